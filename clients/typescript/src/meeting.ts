/**
 * The meeting place: tables with open and invited seats, the lobby, quick play (seeks) and
 * rematches. One helper per call, each unwrapping its reply with `ok` (or throwing the
 * `ProblemError` it was refused with).
 *
 *     const host = tabula({ baseUrl, token: key });            // Ann's key
 *     const table = await createTable(host, "ludo", [playerSeat("ann"), openSeat(), inviteSeat("bob")]);
 *     const page = await lobby(tabula({ baseUrl }), { ruleset: "ludo", players: 3 });
 *     const gus = await join(tabula({ baseUrl }), table.id, { name: "Gus" }); // a guest: gus.token
 *
 *     const { id } = await postSeek(host, { ruleset: "race35", players: 2 });
 *     const matched = await waitForMatch(host, id);           // its game_id and seat
 *
 * Who may call what: joining takes a player's key (she sits as herself, `token` null) or no
 * credential and a `name` (a guest: `token` is her seat's, shown only here); leaving takes the
 * seat's token or the player's key; starting and cancelling take the table's referee token;
 * declining takes the invited player's key; a seek is read and cancelled by its owner (the
 * player's key, or the guest's `secret` from `postSeek`, which is also her seat's token once
 * matched).
 */

import type { Created, CreateGame, Played, SeatSpec, Tabula, components } from "./client.js";
import { ok } from "./problems.js";

type Schemas = components["schemas"];

/** `GET /lobby`: a page of listed gathering tables, `next` the path of the next page. */
export type Lobby = Schemas["Lobby"];
export type LobbyTable = Schemas["LobbyTable"];
export type LobbySeat = Schemas["LobbySeat"];
/** A seat taken by joining: its number, and a guest's seat token (null for a player). */
export type Joined = Schemas["Joined"];
/** What `POST /seeks` takes. */
export type SeekRequest = Schemas["PostSeek"];
/** A new seek's id, and a guest's secret (null for a player), shown only here. */
export type NewSeek = Schemas["NewSeek"];
/** A seek as its owner reads it: waiting, matched (`game_id`, `seat`), expired, cancelled. */
export type SeekView = Schemas["SeekView"];
/** The rematch table: its id, the asker's seat there and, for a guest, that seat's token. */
export type Rematched = Schemas["Rematched"];

/** A seat left open: whoever joins first takes it. */
export function openSeat(): SeatSpec {
  return { open: true };
}

/** A seat kept for the registered player `handle`, hers to join or decline. */
export function inviteSeat(handle: string): SeatSpec {
  return { invite: handle };
}

/** `POST /games` with open or invited seats: a table that gathers until every seat is taken
 * (`unlisted: true` keeps it out of the lobby). The reply's referee token starts or cancels it. */
export async function createTable(
  api: Tabula,
  ruleset: CreateGame["ruleset"],
  seats: SeatSpec[],
  settings: Omit<CreateGame, "ruleset" | "seats"> = {},
): Promise<Created> {
  return ok(api.POST("/games", { body: { ruleset, seats, ...settings } }));
}

export interface LobbyQuery {
  ruleset?: string;
  players?: number;
  rated?: boolean;
  limit?: number;
  /** The `cursor` of a page's `next` (`nextCursor`). */
  cursor?: string;
}

/** `GET /lobby`: one page of the listed tables with an open seat, the longest waiting first. */
export async function lobby(api: Tabula, query: LobbyQuery = {}): Promise<Lobby> {
  return ok(api.GET("/lobby", { params: { query } }));
}

/** The `cursor` of the page after `page` (undefined on the last). */
export function nextCursor(page: { next: string | null }): string | undefined {
  if (page.next === null) {
    return undefined;
  }
  return new URL(page.next, "http://tabula.invalid").searchParams.get("cursor") ?? undefined;
}

/** Every listed table matching `query`, page after page. */
export async function* lobbyTables(api: Tabula, query: LobbyQuery = {}): AsyncGenerator<LobbyTable> {
  let cursor = query.cursor;
  do {
    const page = await lobby(api, { ...query, ...(cursor === undefined ? {} : { cursor }) });
    yield* page.tables;
    cursor = nextCursor(page);
  } while (cursor !== undefined);
}

export interface JoinOptions {
  /** The seat wanted; else the one kept for the caller's invitation, else the first open. */
  seat?: number;
  /** A guest's name (no credential). */
  name?: string;
  idempotencyKey?: string;
}

function game(game_id: string, idempotencyKey?: string) {
  return {
    path: { game_id },
    ...(idempotencyKey === undefined ? {} : { header: { "Idempotency-Key": idempotencyKey } }),
  };
}

/** `POST /games/{id}/join`: a seat of a gathering table, as the key's player or a guest. */
export async function join(api: Tabula, gameId: string, options: JoinOptions = {}): Promise<Joined> {
  const body = {
    ...(options.seat === undefined ? {} : { seat: options.seat }),
    ...(options.name === undefined ? {} : { name: options.name }),
  };
  return ok(api.POST("/games/{game_id}/join", { params: game(gameId, options.idempotencyKey), body }));
}

/** `POST /games/{id}/leave` (the seat's token or the player's key): the seat opens again. */
export async function leave(api: Tabula, gameId: string): Promise<Played> {
  return ok(api.POST("/games/{game_id}/leave", { params: game(gameId), body: {} }));
}

/** `POST /games/{id}/decline` (the invited player's key): her seat opens. */
export async function decline(api: Tabula, gameId: string): Promise<Played> {
  return ok(api.POST("/games/{game_id}/decline", { params: game(gameId), body: {} }));
}

/** `POST /games/{id}/start` (the referee): start now, bots of level `bots` in the open seats. */
export async function start(api: Tabula, gameId: string, bots?: string): Promise<Played> {
  const body = bots === undefined ? {} : { bots };
  return ok(api.POST("/games/{game_id}/start", { params: game(gameId), body }));
}

/** `POST /games/{id}/cancel` (the referee): close a gathering table, with no result. */
export async function cancel(api: Tabula, gameId: string): Promise<Played> {
  return ok(api.POST("/games/{game_id}/cancel", { params: game(gameId), body: {} }));
}

/** `POST /games/{id}/rematch` (a seat of the finished game: its token or its player's key):
 * the next table, the same rule set and options, the seats turned by one. The asker sits there
 * (a guest is given her new seat's `token`); the other players are invited (a `rematch` note
 * in their feeds), the other guests' seats are open to whoever has the link. Asked again, by
 * anyone of the game: the same table, so accepting is asking too, or joining it. */
export async function rematch(api: Tabula, gameId: string, idempotencyKey?: string): Promise<Rematched> {
  return ok(api.POST("/games/{game_id}/rematch", { params: game(gameId, idempotencyKey), body: {} }));
}

/** `POST /seeks`: ask for a table (quick play), with a player's key or as a guest (`name`). */
export async function postSeek(api: Tabula, seek: SeekRequest): Promise<NewSeek> {
  return ok(api.POST("/seeks", { body: { options: {}, ...seek } }));
}

/** `GET /seeks/{id}` (its owner). */
export async function seek(api: Tabula, seekId: string): Promise<SeekView> {
  return ok(api.GET("/seeks/{seek_id}", { params: { path: { seek_id: seekId } } }));
}

/** `DELETE /seeks/{id}` (its owner): cancel a waiting seek. */
export async function cancelSeek(api: Tabula, seekId: string): Promise<SeekView> {
  return ok(api.DELETE("/seeks/{seek_id}", { params: { path: { seek_id: seekId } } }));
}

/** Read a seek every `intervalMs` until it is no longer waiting; the seek then (matched:
 * its `game_id` and `seat`; else expired or cancelled). A player's feed says the same sooner
 * (a `seek-matched` note, `feed.ts`). */
export async function waitForMatch(
  api: Tabula,
  seekId: string,
  options: { intervalMs?: number; signal?: AbortSignal } = {},
): Promise<SeekView> {
  for (;;) {
    const found = await seek(api, seekId);
    if (found.status !== "waiting") {
      return found;
    }
    options.signal?.throwIfAborted();
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 250));
  }
}
