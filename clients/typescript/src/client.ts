/**
 * The typed client: openapi-fetch over the paths generated from openapi/openapi.json, so a
 * call's path, parameters, body and reply are checked by the compiler against the contract.
 *
 *     const api = tabula({ baseUrl: "http://127.0.0.1:8000", token });
 *     const view = await ok(api.GET("/games/{game_id}", { params: { path: { game_id } } }));
 */

import createClient, { type Client, type Middleware } from "openapi-fetch";
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
/** A seat of a new game: a person's (`{ name }`) or a server bot's (`{ name, bot }`). */
export type SeatSpec = Schemas["SeatSpec"];

/** A seat the server's bot of `level` (a name from `GET /bots`) plays. */
export function botSeat(name: string, level: string): SeatSpec {
  return { name, bot: level };
}

/** The client of one caller: a seat's, the referee's, or a spectator's (no token). */
export type Tabula = Client<paths>;

export interface TabulaOptions {
  /** The service's root, e.g. `http://127.0.0.1:8000`. */
  baseUrl: string;
  /** A seat's or the referee's token (from `POST /games`); none for a spectator. */
  token?: string | undefined;
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
