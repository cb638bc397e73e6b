/**
 * Play one whole game against a running Tabula with random legal moves, through the typed
 * client, while following the game's event stream as a spectator.
 *
 *     npm run build && node build/examples/play.js http://127.0.0.1:8000 --ruleset sorry
 *
 * The URL comes from the first argument, else TABULA_URL, else http://127.0.0.1:8000.
 * Options: --ruleset NAME (race35), --players N (2), --seed TEXT (the server's chance seed and
 * the moves' random choices, so a game replays), --bot SEAT=LEVEL (the server's bot of that
 * level, from GET /bots, plays the seat; repeatable). Exits 1 on any failure.
 */

import { parseArgs } from "node:util";
import {
  type GameEvent,
  type Move,
  type Played,
  type RuleSetName,
  type SeatSpec,
  botSeat,
  tabula,
} from "tabula-client-ts/client";
import { follow } from "tabula-client-ts/follow";
import { ProblemError, ok } from "tabula-client-ts/problems";

const NAMES = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay"];
const MAX_MOVES = 20_000; // a safety net: no rule set needs nearly this many decisions

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      ruleset: { type: "string", default: "race35" },
      players: { type: "string", default: "2" },
      seed: { type: "string" },
      bot: { type: "string", multiple: true, default: [] },
    },
  });
  const baseUrl = positionals[0] ?? process.env.TABULA_URL ?? "http://127.0.0.1:8000";
  const ruleset = values.ruleset as RuleSetName; // the server refuses a name it does not know
  const names = NAMES.slice(0, Number(values.players));
  const random = values.seed === undefined ? Math.random : seeded(values.seed);

  const spectator = tabula({ baseUrl });
  const levels = await ok(spectator.GET("/bots"));
  const bots = new Map<number, string>();
  for (const pair of values.bot) {
    const [seat, level] = pair.split("=");
    if (!levels.bots.some((bot) => bot.name === level)) {
      throw new Error(`--bot ${pair}: the levels are ${levels.bots.map((bot) => bot.name).join(", ")}`);
    }
    bots.set(Number(seat), level as string);
  }
  const seatSpecs: SeatSpec[] = names.map((name, seat) => {
    const level = bots.get(seat);
    return level === undefined ? { name } : botSeat(name, level);
  });
  const created = await ok(
    spectator.POST("/games", {
      body: {
        ruleset,
        seats: seatSpecs,
        chance: "server",
        ...(values.seed === undefined ? {} : { seed: values.seed }),
      },
    }),
  );
  const game_id = created.id;
  const seats = created.tokens.seats.map((token) => tabula({ baseUrl, token }));
  console.log(`game ${game_id} (${ruleset}, seats ${names.join(", ")})`);

  // Follow the game as a spectator while it is played; the stream ends when it finishes.
  const stop = new AbortController();
  const followed = collect(follow({ baseUrl, gameId: game_id, signal: stop.signal }));
  followed.catch(() => undefined); // its failure is reported where it is awaited, below

  let view = await ok(spectator.GET("/games/{game_id}", { params: { path: { game_id } } }));
  let latest: { seat: number; reply: Played } | undefined;
  let moves = 0;
  let version = created.version;
  while (view.status !== "finished") {
    let played: Played | undefined;
    const ours = [...new Set(view.to_act.map((pending) => pending.seat))].filter(
      (seat) => !bots.has(seat),
    );
    if (ours.length === 0) {
      // Only the server's bots are to act: they play at once; look again.
      await new Promise((resolve) => setTimeout(resolve, 20));
      view = await ok(spectator.GET("/games/{game_id}", { params: { path: { game_id } } }));
      continue;
    }
    for (const seat of ours) {
      const client = seats[seat];
      if (client === undefined) {
        throw new Error(`seat ${seat} is pending but the game has ${seats.length} seats`);
      }
      // A seat's own last reply carries its legal moves now, sparing a read (a roll, then
      // the move it allows); otherwise ask.
      let legal: { version: number; moves: Move[] };
      if (latest?.seat === seat && latest.reply.legal_moves.length > 0) {
        legal = { version: latest.reply.version, moves: latest.reply.legal_moves };
      } else {
        const path = { game_id };
        legal = await ok(client.GET("/games/{game_id}/legal-moves", { params: { path } }));
      }
      const move = legal.moves[Math.floor(random() * legal.moves.length)];
      if (move === undefined) {
        continue;
      }
      played = await ok(
        client.POST("/games/{game_id}/moves", {
          params: { path: { game_id } },
          body: { move: move.id, expected_version: legal.version },
        }),
      );
      latest = { seat, reply: played };
      version = played.version;
      moves += 1;
    }
    if (played === undefined) {
      throw new Error(`game ${game_id} is ${view.status} but no seat has a legal move`);
    }
    if (moves > MAX_MOVES) {
      throw new Error(`game ${game_id} is not finished after ${moves} moves`);
    }
    if (played.state === undefined) {
      throw new Error("a reply without `state`, which only Prefer: return=minimal asks for");
    }
    view = played.state;
  }

  const final = await ok(spectator.GET("/games/{game_id}", { params: { path: { game_id } } }));
  version = final.version; // the server's bots may have made the last moves
  const winners = final.winners.map((seat) => final.seats?.[seat]?.name ?? `seat ${seat}`);
  console.log(`${final.status} at version ${version} after ${moves} moves; winners: ${winners.join(", ")}`);

  const timer = setTimeout(() => stop.abort(), 30_000);
  const events = await followed;
  clearTimeout(timer);
  const gaps = events.some((event, i) => event.version !== i + 1);
  if (gaps || events.length !== version) {
    throw new Error(`the stream gave ${events.length} events, not versions 1..${version}`);
  }
  console.log(`followed ${events.length} events live, the last ${events.at(-1)?.type}`);

  // A finished game refuses writes with a problem response, thrown as a typed ProblemError.
  const refused = await ok(
    seats[0]!.POST("/games/{game_id}/moves", {
      params: { path: { game_id } },
      body: { move: "roll", expected_version: version },
    }),
  ).catch((error: unknown) => error);
  if (!(refused instanceof ProblemError) || refused.status !== 409) {
    throw new Error(`a move on the finished game was not refused with 409: ${String(refused)}`);
  }
  console.log(`a further move is refused: ${refused.status} ${refused.slug}`);
}

async function collect(events: AsyncIterable<GameEvent>): Promise<GameEvent[]> {
  const all: GameEvent[] = [];
  for await (const event of events) {
    all.push(event);
  }
  return all;
}

/** A small seeded generator (mulberry32 over a hash of the text), for replayable choices. */
function seeded(text: string): () => number {
  let state = 0;
  for (const char of text) {
    state = Math.imul(state ^ char.charCodeAt(0), 2654435761) >>> 0;
  }
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? `failed: ${error.message}` : error);
  process.exit(1);
});
