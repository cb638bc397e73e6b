/**
 * Play one whole game over the game's WebSocket as the referee, each move a `play` message
 * answered by `played` (its events and the next legal moves), while a spectator's socket
 * follows the game.
 *
 *     npm run build && node build/examples/socket.js http://127.0.0.1:8000 --ruleset sorry
 *
 * The URL comes from the first argument, else TABULA_URL, else http://127.0.0.1:8000.
 * Options: --ruleset NAME (race35), --players N (2). Exits 1 on any failure.
 */

import { parseArgs } from "node:util";
import WebSocket from "ws";
import { type GameEvent, type RuleSetName, tabula } from "tabula-client-ts/client";
import { ok } from "tabula-client-ts/problems";
import { connect, type WebSocketConstructor } from "tabula-client-ts/socket";

const NAMES = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay"];
const options = { WebSocket: WebSocket as unknown as WebSocketConstructor };

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      ruleset: { type: "string", default: "race35" },
      players: { type: "string", default: "2" },
    },
  });
  const baseUrl = positionals[0] ?? process.env.TABULA_URL ?? "http://127.0.0.1:8000";
  const seats = NAMES.slice(0, Number(values.players)).map((name) => ({ name }));
  const ruleset = values.ruleset as RuleSetName;
  const created = await ok(tabula({ baseUrl }).POST("/games", { body: { ruleset, seats } }));
  console.log(`game ${created.id} (${ruleset})`);

  const watched: GameEvent[] = [];
  const spectator = await connect(baseUrl, created.id, null, {
    ...options,
    onEvents: (events) => watched.push(...events), // given here: none of the first is missed
  });
  const referee = await connect(baseUrl, created.id, created.tokens.referee, options);
  console.log(`welcome: ${referee.welcome?.role} at version ${referee.welcome?.version}`);

  const api = tabula({ baseUrl, token: created.tokens.referee });
  const path = { params: { path: { game_id: created.id } } };
  let legal = await ok(api.GET("/games/{game_id}/legal-moves", path));
  let moves = 0;
  while (legal.moves.length > 0) {
    const move = legal.moves[Math.floor(Math.random() * legal.moves.length)]!;
    const played = await referee.play(move.id, { seat: move.seat, expectedVersion: legal.version });
    legal = played.legal_moves;
    moves += 1;
  }
  console.log(`finished at version ${referee.version} after ${moves} moves over the socket`);
  const deadline = Date.now() + 5000;
  while (spectator.version < referee.version && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const inOrder = watched.every((event, i) => event.version === i + 1);
  console.log(`the spectator's socket was pushed ${watched.length} events${inOrder ? " in order" : ""}`);
  referee.close();
  spectator.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
