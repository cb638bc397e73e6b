/**
 * A table from its opening to its rematch, with the meeting place's helpers (src/meeting.ts)
 * and the player's feed (src/feed.ts): Ann opens a race35 table with an open seat and a seat
 * kept for Bob; Bob's feed tells him of the invitation; the lobby lists the table; a guest
 * joins and leaves; Bob declines, so his seat opens; Zed and then Bob take the open seats, and
 * the last seat taken starts the table. Everyone plays random moves to the end, then Zed asks
 * for the rematch (a new token), Ann's notes stream (`GET /me/stream`) tells her of it, she asks
 * too and gets the same table, and Bob joins it. A
 * second table, left unlisted, is started early with bots and a third is cancelled.
 *
 *     npm run build && node build/examples/table.js http://127.0.0.1:8000
 *
 * One line per step; exits 1 on any failure.
 */

import { randomBytes } from "node:crypto";
import WebSocket from "ws";
import { type Tabula, tabula } from "tabula-client-ts/client";
import { connectFeed, followNotes } from "tabula-client-ts/feed";
import { cancel, createTable, decline, inviteSeat, join, leave, lobbyTables, openSeat, rematch, start } from "tabula-client-ts/meeting";
import { playerSeat, register } from "tabula-client-ts/players";
import { ok } from "tabula-client-ts/problems";
import type { WebSocketConstructor } from "tabula-client-ts/socket";

const sockets = { WebSocket: WebSocket as unknown as WebSocketConstructor };

/** Play random legal moves, each seat with its own client, until the game ends. */
async function playOut(gameId: string, seats: Map<number, Tabula>, anyone: Tabula): Promise<number> {
  const path = { params: { path: { game_id: gameId } } };
  for (;;) {
    const view = await ok(anyone.GET("/games/{game_id}", path));
    if (view.status === "finished") {
      return view.version;
    }
    const acting = seats.get(view.to_act[0]!.seat)!;
    const legal = await ok(acting.GET("/games/{game_id}/legal-moves", path));
    const move = legal.moves[Math.floor(Math.random() * legal.moves.length)]!;
    await ok(acting.POST("/games/{game_id}/moves", { ...path, body: { move: move.id, expected_version: legal.version } }));
  }
}

async function main(): Promise<void> {
  const baseUrl = process.argv[2] ?? process.env.TABULA_URL ?? "http://127.0.0.1:8000";
  const anyone = tabula({ baseUrl });
  const suffix = randomBytes(4).toString("hex");
  const annKey = (await register(anyone, `ann-${suffix}`)).key;
  const bobReg = await register(anyone, `bob-${suffix}`);
  const ann = tabula({ baseUrl, token: annKey });
  const bob = tabula({ baseUrl, token: bobReg.key });
  const feed = await connectFeed(baseUrl, bobReg.key, sockets);

  const seats = [playerSeat(`ann-${suffix}`), openSeat(), inviteSeat(bobReg.handle)];
  const table = await createTable(ann, "race35", seats, { rated: false });
  const invited = await feed.next((note) => note.kind === "invitation" && note.game_id === table.id);
  console.log(`bob's feed: invitation to seat ${invited.seat}`);
  const listed: string[] = [];
  for await (const open of lobbyTables(anyone, { ruleset: "race35", players: 3 })) {
    listed.push(open.id);
  }
  console.log(`the lobby lists it: ${listed.includes(table.id)}`);

  const gus = await join(anyone, table.id, { name: "Gus" });
  await leave(tabula({ baseUrl, token: gus.token }), table.id);
  console.log(`gus took seat ${gus.seat} and left`);
  await decline(bob, table.id);
  const zed = await join(anyone, table.id, { name: "Zed" });
  const bobs = await join(bob, table.id);
  const zedApi = tabula({ baseUrl, token: zed.token });
  const path = { params: { path: { game_id: table.id } } };
  const status = (await ok(anyone.GET("/games/{game_id}", path))).status;
  console.log(`zed sits at ${zed.seat}, bob at ${bobs.seat} (token ${bobs.token}): ${status}`);

  const played = new Map([[0, ann], [zed.seat, zedApi], [bobs.seat, bob]]);
  console.log(`finished at version ${await playOut(table.id, played, anyone)}`);
  const next = await rematch(zedApi, table.id);
  // Ann's notes over Server-Sent Events, after a note id older than any: her rematch offer.
  const since = { baseUrl, key: annKey, after: "2000-01-01T00:00:00.000000Z/-/00000000/0" };
  for await (const note of followNotes(since)) {
    if (note.kind === "rematch" && note.game_id === next.id) {
      console.log(`ann's stream: rematch of ${note.rematch_of === table.id ? "the table" : note.rematch_of}`);
      break;
    }
  }
  const annAgain = await rematch(ann, table.id);
  await join(bob, next.id);
  const nextView = await ok(anyone.GET("/games/{game_id}", { params: { path: { game_id: next.id } } }));
  const same = annAgain.id === next.id;
  console.log(`rematch ${next.id}: zed at ${next.seat} with a token: ${next.token !== null}, ann's the same: ${same}, ${nextView.status}`);

  const early = await createTable(anyone, "race35", [{ name: "Host" }, openSeat()], { unlisted: true });
  const started = await start(tabula({ baseUrl, token: early.tokens.referee }), early.id, "random");
  console.log(`started early: ${started.events.some((event) => event.type === "TableStarted")}`);
  const dropped = await createTable(anyone, "race35", [{ name: "Host" }, openSeat()]);
  const cancelled = await cancel(tabula({ baseUrl, token: dropped.tokens.referee }), dropped.id);
  console.log(`cancelled: ${cancelled.events.some((event) => event.type === "TableClosed")}`);
  feed.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
