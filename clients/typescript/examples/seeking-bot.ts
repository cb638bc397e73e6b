/**
 * A bot that seeks games and plays them, the way Lichess bots run: it takes a player's key
 * (`--key`), registers a handle (`--handle`) or seeks as a guest (`--guest NAME`, the default),
 * posts a seek (`POST /seeks`), waits until it is matched, plays its own seat with random
 * legal moves (the key, or the guest's secret, which is her seat's token) until the game ends,
 * and seeks again, `--games` times in all. A player's bot keeps her feed open (`GET
 * /me/socket`, `src/feed.ts`): the `seek-matched` note tells it its table, and the open feed
 * keeps its seeks alive; a guest's reads `GET /seeks/{id}` until it is matched.
 *
 *     npm run build && node build/examples/seeking-bot.js http://127.0.0.1:8000 \
 *         --handle robo --ruleset race35 --players 2 --games 3
 *
 * It waits for the others' moves on the game's socket (events pushed, no polling) and reads
 * the state after each batch. One line per seek matched and per game finished:
 *
 *     matched seek s_... at game g_... seat 1 (told by the feed)
 *     finished game g_... at version 57: winners [1] (won)
 *
 * Exits 1 on any failure, a seek that expires or is cancelled included.
 */

import { parseArgs } from "node:util";
import WebSocket from "ws";
import { type RuleSetName, type Tabula, tabula } from "tabula-client-ts/client";
import { connectFeed, type PlayerFeed } from "tabula-client-ts/feed";
import { postSeek, waitForMatch } from "tabula-client-ts/meeting";
import { register } from "tabula-client-ts/players";
import { isProblem, ok } from "tabula-client-ts/problems";
import { connect, type WebSocketConstructor } from "tabula-client-ts/socket";

const sockets = { WebSocket: WebSocket as unknown as WebSocketConstructor };
const QUIET_MS = 30_000;

interface Seat {
  gameId: string;
  seat: number;
  /** The seat's credential: the player's key, or the guest's secret. */
  token: string;
}

/** Post a seek and wait for its match (on the player's feed, if open); the seat it sat the
 * bot at. */
async function seekAndWait(
  baseUrl: string,
  key: string | undefined,
  feed: PlayerFeed | undefined,
  seeking: { ruleset: RuleSetName; players: number; guest: string },
): Promise<Seat> {
  const asker = tabula({ baseUrl, token: key });
  const { ruleset, players } = seeking;
  const posted = await postSeek(asker, { ruleset, players, ...(key === undefined ? { name: seeking.guest } : {}) });
  if (key !== undefined && feed !== undefined) {
    const note = await feed.next((n) => n.kind === "seek-matched" && (n.seek ?? posted.id) === posted.id);
    console.log(`matched seek ${posted.id} at game ${note.game_id} seat ${note.seat} (told by the feed)`);
    return { gameId: note.game_id, seat: note.seat, token: key };
  }
  const token = posted.secret!;
  const found = await waitForMatch(tabula({ baseUrl, token }), posted.id);
  if (found.status !== "matched" || found.game_id === null || found.seat === null) {
    throw new Error(`seek ${posted.id} was ${found.status} before it was matched`);
  }
  console.log(`matched seek ${posted.id} at game ${found.game_id} seat ${found.seat}`);
  return { gameId: found.game_id, seat: found.seat, token };
}

/** Play `seat` with random legal moves until the game ends; its last version and winners. */
async function playSeat(baseUrl: string, seat: Seat): Promise<{ version: number; winners: number[] }> {
  const api: Tabula = tabula({ baseUrl, token: seat.token });
  const path = { params: { path: { game_id: seat.gameId } } };
  let pushed = 0;
  let wake: (() => void) | undefined;
  const live = await connect(baseUrl, seat.gameId, seat.token, {
    ...sockets,
    onEvents: () => {
      pushed += 1;
      wake?.();
    },
  });
  try {
    for (;;) {
      const mark = pushed;
      const view = await ok(api.GET("/games/{game_id}", path));
      if (view.status === "finished") {
        return { version: view.version, winners: view.winners };
      }
      if (!view.to_act.some((pending) => pending.seat === seat.seat)) {
        if (pushed === mark) {
          await new Promise<void>((resolve) => {
            const quiet = setTimeout(resolve, QUIET_MS); // read again after a long silence
            wake = () => {
              clearTimeout(quiet); // no timer left to keep the process alive at the end
              resolve();
            };
          });
          wake = undefined;
        }
        continue;
      }
      const legal = await ok(api.GET("/games/{game_id}/legal-moves", path));
      const move = legal.moves[Math.floor(Math.random() * legal.moves.length)];
      if (move === undefined) continue;
      try {
        await ok(api.POST("/games/{game_id}/moves", { ...path, body: { move: move.id, expected_version: legal.version } }));
      } catch (error) {
        if (!isProblem(error, "version-conflict")) throw error; // something came first: read again
      }
    }
  } finally {
    live.close();
  }
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      key: { type: "string" },
      handle: { type: "string" },
      guest: { type: "string", default: "Robot" },
      ruleset: { type: "string", default: "race35" },
      players: { type: "string", default: "2" },
      games: { type: "string", default: "1" },
    },
  });
  const baseUrl = positionals[0] ?? process.env.TABULA_URL ?? "http://127.0.0.1:8000";
  let key = values.key;
  if (key === undefined && values.handle !== undefined) {
    const registered = await register(tabula({ baseUrl }), values.handle);
    console.log(`registered ${registered.handle}`);
    key = registered.key;
  }
  // A player's feed, open the whole time: it tells her each match and keeps her seeks alive.
  const feed = key === undefined ? undefined : await connectFeed(baseUrl, key, sockets);
  const seeking = { ruleset: values.ruleset as RuleSetName, players: Number(values.players), guest: values.guest };
  try {
    for (let game = 0; game < Number(values.games); game += 1) {
      const seat = await seekAndWait(baseUrl, key, feed, seeking);
      const final = await playSeat(baseUrl, seat);
      const result = final.winners.includes(seat.seat) ? "won" : "lost";
      console.log(`finished game ${seat.gameId} at version ${final.version}: winners [${final.winners.join(", ")}] (${result})`);
    }
  } finally {
    feed?.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
