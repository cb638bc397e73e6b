/**
 * The typed client: openapi-fetch over the paths generated from openapi/openapi.json, so a
 * call's path, parameters, body and reply are checked by the compiler against the contract.
 *
 *     const api = tabula({ baseUrl: "http://127.0.0.1:8000", token });
 *     const view = await ok(api.GET("/games/{game_id}", { params: { path: { game_id } } }));
 */

import createClient, { type Client, type Middleware } from "openapi-fetch";
import { ok } from "./problems.js";
import type { components, paths } from "./schema.js";

export type { components, paths } from "./schema.js";

type Schemas = components["schemas"];

/** A game as one caller sees it: a union of each rule set's view, told apart by `ruleset`. */
export type GameView = Schemas["Played"]["state"];
export type Move = Schemas["Move"];
export type GameEvent = Schemas["EventOut"];
export type Created = Schemas["Created"];
export type CreateGame = Schemas["CreateGame"];
export type Played = Schemas["Played"];
export type LegalMoves = Schemas["LegalMoves"];
export type RuleSetName = CreateGame["ruleset"];
/** A bot level from `GET /bots`: its name, description, version and the rule sets it plays. */
export type BotInfo = Schemas["BotInfo"];
/** A seat of a new game: a guest's (`{ name }`), a server bot's (`{ name, bot }`) or a
 * registered player's (`{ player }`, `playerSeat` in players.ts: her key plays it). */
export type SeatSpec = Schemas["SeatSpec"];

/** A seat the server's bot of `level` (a name from `GET /bots`) plays. */
export function botSeat(name: string, level: string): SeatSpec {
  return { name, bot: level };
}

/** A registered handle and the player's key, its only copy (`POST /players`). */
export type Registered = Schemas["Registered"];
/** `GET /me`: the player's handle, ratings, latest games, tournaments and invitations. */
export type Me = Schemas["Me"];
/** A new key, its only copy (`POST /me/keys`, `POST /players/{handle}/keys`). */
export type NewKey = Schemas["NewKey"];

/** The client of one caller: a seat's, the referee's, a player's, an app's, or a spectator's
 * (no token). */
export type Tabula = Client<paths>;

export interface TabulaOptions {
  /** The service's root, e.g. `http://127.0.0.1:8000`. */
  baseUrl: string;
  /** A seat's or the referee's token (from `POST /games`), a player's key (`POST /players`,
   * `POST /me/keys`) or an app's key; none (or null: a seat of a registered player has no
   * token) for a spectator or a player registering herself. */
  token?: string | null | undefined;
  /** Another `fetch` (tests, proxies); defaults to the global one. */
  fetch?: typeof globalThis.fetch;
}

/** Middleware that sends `Authorization: Bearer <token>` with every request. */
export function bearer(token: string): Middleware {
  return {
    onRequest({ request }) {
      request.headers.set("Authorization", `Bearer ${token}`);
      return request;
    },
  };
}

/** A typed client for one caller. */
export function tabula(options: TabulaOptions): Tabula {
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  if (options.token) {
    client.use(bearer(options.token));
  }
  return client;
}

/** A game's analysis: each seat's chances at every position, luck, and decisions judged. */
export type GameAnalysis = Schemas["GameAnalysis"];
/** An analysis under way (a 202): versions done of `total`. */
export type AnalysisProgress = Schemas["Progress"];
/** A seat's legal moves ranked by the chance each keeps (`GET /games/{id}/hints`). */
export type Hints = Schemas["Hints"];
export type Hint = Schemas["Hint"];

/** `GET /games/{id}/analysis`: the analysis, or its progress while it is computed (a 202:
 * ask again). Anyone's once the game is finished; the referee's alone while it runs. */
export async function analysis(
  api: Tabula,
  game_id: string,
): Promise<GameAnalysis | AnalysisProgress> {
  return ok(api.GET("/games/{game_id}/analysis", { params: { path: { game_id } } }));
}

/** Whether an analysis reply is still under way. */
export function underWay(found: GameAnalysis | AnalysisProgress): found is AnalysisProgress {
  return "status" in found && found.status === "running";
}

/** `GET /games/{id}/hints`: the caller's seat's legal moves, best first (a seat's client, in
 * a game created with `allow_hints: true`). */
export async function hints(api: Tabula, game_id: string): Promise<Hints> {
  return ok(api.GET("/games/{game_id}/hints", { params: { path: { game_id } } }));
}
