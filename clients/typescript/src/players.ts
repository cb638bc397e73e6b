/**
 * Registered players and their keys: one helper per call, each unwrapping its reply with
 * `ok` (or throwing the `ProblemError` it was refused with).
 *
 *     const lobby = tabula({ baseUrl });                   // no key: a player registers herself
 *     const { handle, key } = await register(lobby, "ann"); // the key's only copy: keep it
 *     const ann = tabula({ baseUrl, token: key });         // acts as Ann on every route
 *     const game = await ok(ann.POST("/games", { body: { ruleset: "race35", seats: [playerSeat(handle), { name: "Guest" }] } }));
 *
 * A player's key plays the seats that belong to her (`game.tokens.seats` holds `null` at
 * their places: no seat token is issued for them), over HTTP and the socket (`connect(baseUrl,
 * gameId, key)`). An app's key (a frontend with its own users, added by the operator with
 * `python -m service apps add NAME`) registers players in its namespace (`NAME:handle`) and
 * mints their keys; it never acts in a game itself.
 */

import type { Me, NewKey, Registered, SeatSpec, Tabula, components } from "./client.js";
import { ProblemError, ok } from "./problems.js";

type Schemas = components["schemas"];

export type { Me, NewKey, Registered } from "./client.js";
/** A player's rating in one rule set, as `GET /me` lists it. */
export type MyRating = Schemas["MyRating"];
/** A player's log, hash-chained like a game's (`GET /players/{handle}/record`). */
export type PlayerRecord = Schemas["PlayerRecord"];

/** A seat of a new game that belongs to the registered player `handle`: her key plays it. */
export function playerSeat(handle: string): SeatSpec {
  return { player: handle };
}

/** `POST /players`: register `handle`. With no key the caller registers herself; with an
 * app's key the handle is the app's player, `<app>:<handle>` (the reply says it as
 * registered). The reply's key is its only copy. */
export async function register(api: Tabula, handle: string): Promise<Registered> {
  return ok(api.POST("/players", { body: { handle } }));
}

/** `GET /me` (a player's key): who the key is, with ratings, latest games (newest first),
 * tournaments and invitations. */
export async function me(api: Tabula): Promise<Me> {
  return ok(api.GET("/me"));
}

/** `POST /me/keys` (a player's key): a new key; the one this client holds stops working at
 * once, on every route and open socket (closed with 4401 `key-revoked`). Act with the new one:
 * `tabula({ baseUrl, token: fresh.key })`. */
export async function rotateKey(api: Tabula): Promise<NewKey> {
  return ok(api.POST("/me/keys", { body: {} }));
}

/** `DELETE /me` (a player's key): retire the handle. Its key stops working, its public
 * profile goes, and it is never registered again; the games' logs keep it as it played. */
export async function retire(api: Tabula): Promise<void> {
  const { error, response } = await api.DELETE("/me");
  if (error !== undefined || !response.ok) {
    throw ProblemError.from(error, response);
  }
}

/** `POST /players/{handle}/keys` (an app's key): a new key for one of the app's players
 * (`handle` as registered, `<app>:<handle>`); the player's key before it stops working. */
export async function mintKey(api: Tabula, handle: string): Promise<NewKey> {
  return ok(api.POST("/players/{handle}/keys", { params: { path: { handle } }, body: {} }));
}

/** `GET /players/{handle}/record` (the player's key or her app's): her log, as the server
 * sent it; written out as it is, `python -m service verify FILE` checks it offline. */
export async function playerRecord(api: Tabula, handle: string): Promise<PlayerRecord> {
  return ok(api.GET("/players/{handle}/record", { params: { path: { handle } } }));
}
