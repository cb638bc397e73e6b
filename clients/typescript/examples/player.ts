/**
 * A registered player's whole game (docs/getting-started/typescript.md shows this file):
 * register a handle, create a race35 game with her seat and a guest's, play her seat with her
 * key over the game's socket (the guest's with its seat token over HTTP) to the end, then
 * rotate the key: the socket opened with the old one is closed (4401 key-revoked), the old key
 * is refused, the new one reads `GET /me`, and her record lists every key issued.
 *
 *     npm run build && node build/examples/player.js http://127.0.0.1:8000 [--handle ann]
 *
 * With `--app-key KEY` (an app's key, from `python -m service apps add NAME`) the handle is
 * registered as the app's player (`NAME:handle`), and the app mints her a key to play with.
 * A handle left out is made up (`ann-` and 8 hex digits). Exits 1 on any failure.
 */

import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import WebSocket from "ws";
import { tabula } from "tabula-client-ts/client";
import { mintKey, me, playerRecord, playerSeat, register, rotateKey } from "tabula-client-ts/players";
import { isProblem, ok } from "tabula-client-ts/problems";
import { connect, type SocketClosed, type WebSocketConstructor } from "tabula-client-ts/socket";

const sockets = { WebSocket: WebSocket as unknown as WebSocketConstructor };

/** Her key: the one registration gave, or, for an app's player, one the app mints. */
async function signUp(baseUrl: string, wanted: string, appKey: string | undefined) {
  const registered = await register(tabula({ baseUrl, token: appKey }), wanted);
  console.log(`registered ${registered.handle}`);
  if (appKey === undefined) {
    return registered;
  }
  const minted = await mintKey(tabula({ baseUrl, token: appKey }), registered.handle);
  console.log(`the app minted ${registered.handle} a new key`);
  return { handle: registered.handle, key: minted.key };
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { handle: { type: "string" }, "app-key": { type: "string" } },
  });
  const baseUrl = positionals[0] ?? process.env.TABULA_URL ?? "http://127.0.0.1:8000";
  const wanted = values.handle ?? `ann-${randomBytes(4).toString("hex")}`;
  const { handle, key } = await signUp(baseUrl, wanted, values["app-key"]);

  // Her key creates the game and seats her; no seat token is issued for her seat (null).
  const ann = tabula({ baseUrl, token: key });
  const seats = [playerSeat(handle), { name: "Guest" }];
  const created = await ok(ann.POST("/games", { body: { ruleset: "race35", seats } }));
  const guest = tabula({ baseUrl, token: created.tokens.seats[1] });
  const path = { params: { path: { game_id: created.id } } };
  console.log(`game ${created.id}: her seat's token is ${created.tokens.seats[0]}`);

  // Her seat over the socket, opened with her key; the guest's over HTTP.
  let closedFor: SocketClosed | undefined;
  const live = await connect(baseUrl, created.id, key, {
    ...sockets,
    onClosed: (closed) => (closedFor = closed),
  });
  console.log(`welcome: ${live.welcome?.role} ${live.welcome?.seat}`);
  let view = await ok(ann.GET("/games/{game_id}", path));
  while (view.status !== "finished") {
    if (view.to_act[0]!.seat === 0) {
      const legal = await ok(ann.GET("/games/{game_id}/legal-moves", path));
      await live.play(legal.moves[0]!.id, { expectedVersion: legal.version });
    } else {
      const legal = await ok(guest.GET("/games/{game_id}/legal-moves", path));
      const body = { move: legal.moves[0]!.id, expected_version: legal.version };
      await ok(guest.POST("/games/{game_id}/moves", { ...path, body }));
    }
    view = await ok(ann.GET("/games/{game_id}", path));
  }
  const winners = view.winners.map((seat) => view.seats[seat]!.name);
  console.log(`finished at version ${view.version}; winners: ${winners.join(", ")}`);

  // A new key: the old one stops at once, on HTTP and on the socket opened with it.
  const fresh = await rotateKey(ann);
  const deadline = Date.now() + 10_000;
  while (closedFor === undefined && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  console.log(`her socket closed: ${closedFor?.code} ${closedFor?.reason}`);
  try {
    await me(ann);
  } catch (error) {
    if (!isProblem(error)) throw error;
    console.log(`the old key is refused: ${error.status} ${error.slug}`);
  }
  const now = tabula({ baseUrl, token: fresh.key });
  const mine = await me(now);
  console.log(`me: ${mine.handle}, ${mine.games.length} game(s), latest ${mine.games[0]?.id}`);
  const record = await playerRecord(now, handle);
  console.log(`her record: ${record.events.map((event) => event.type).join(", ")}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
