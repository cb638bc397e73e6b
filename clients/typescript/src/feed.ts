/**
 * A registered player's feed over `GET /me/socket`: what concerns her across every game that
 * names her, pushed as notes (`invitation`, `rematch`, `seek-matched`, `game-started`,
 * `your-turn`, `game-finished`), each with its game, version and her seat there.
 *
 *     const feed = await connectFeed(baseUrl, key, { WebSocket, onNote: (note) => show(note) });
 *     for await (const note of feed.notes()) {
 *       if (note.kind === "your-turn") await play(note.game_id, note.seat);
 *     }
 *
 * The socket keeps the game socket's conventions: her key goes in the first message (`hello`,
 * with `after`, the id of the last note she has seen, or null for the notes that stand now),
 * never in the URL; the server answers `welcome` with her handle, then pushes each `note`.
 * A dropped connection is opened again after the greatest note id received (waiting longer
 * each time: `backoff`), so each note comes once (the feed is made again from the games' logs).
 * A close the server chose (4400-4499: a bad hello, a key refused or replaced, `key-revoked`,
 * too many sockets) is not retried. While her feed is open, her waiting seeks stay alive.
 */

import { Dropped, messages, open, readBody, sleep } from "./follow.js";
import { SocketClosed, type WebSocketConstructor, type WebSocketLike } from "./socket.js";

export type NoteKind = "invitation" | "seek-matched" | "game-started" | "your-turn" | "game-finished" | "rematch";

/** Something that concerns the player in one game, derived from one event of its log. */
export interface Note {
  /** `<at>/<game id>/<version>/<rank>`: ids compare as text in the order the notes come. */
  id: string;
  kind: NoteKind;
  game_id: string;
  version: number;
  at: string;
  ruleset: string;
  /** Her seat in that game (the one kept for her, for an invitation). */
  seat: number;
  /** `your-turn`: what her seat must do. */
  pending?: string[];
  /** `game-finished`: the winning seats. */
  winners?: number[];
  /** `game-finished` of a table that never started: why it closed (`cancelled`, `expired`). */
  closed?: string;
  /** `rematch` (and its `game-started`): the game this one is the rematch of. */
  rematch_of?: string | null;
  /** `seek-matched`: the seek that sat her, when known. */
  seek?: string | null;
}

export interface FeedWelcome {
  type: "welcome";
  handle: string;
}

export type FeedServerMessage =
  | FeedWelcome
  | { type: "note"; note: Note }
  | { type: "pong"; ref: string | null }
  | { type: "refused"; ref: string | null; problem: Record<string, unknown> };

export type FeedClientMessage = { type: "hello"; token: string; after: string | null } | { type: "ping"; ref?: string };

export interface FeedOptions {
  /** The id of the last note already seen (null or left out: the notes that stand now). */
  after?: string | null;
  /** The WebSocket class; the global one by default (Node 20: the `ws` package). */
  WebSocket?: WebSocketConstructor;
  /** Milliseconds to wait before each reconnect; after the last, give up. */
  backoff?: number[];
  /** Called with each note, once, as it comes; without it, `notes()` and `next()` hand them out. */
  onNote?: (note: Note) => void;
  /** Called once the feed is closed for good. */
  onClosed?: (error: SocketClosed) => void;
}

const BACKOFF = [100, 200, 500, 1000, 2000, 5000];

/** A player's feed session; `connectFeed` opens one. */
export class PlayerFeed {
  /** The greatest note id received (where a reconnect resumes). */
  lastId: string | null;
  handle: string | undefined;
  private readonly queue: Note[] = [];
  private waiter: (() => void) | undefined;
  private closedFor: SocketClosed | undefined;
  private socket: WebSocketLike | undefined;
  private attempt = 0;
  private closing = false;

  constructor(
    readonly url: string,
    readonly key: string,
    private readonly options: FeedOptions = {},
  ) {
    this.lastId = options.after ?? null;
  }

  /** Open the connection and say hello; resolves with the welcome. */
  open(): Promise<FeedWelcome> {
    const Socket = this.options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (Socket === undefined) {
      throw new Error("no WebSocket here: pass one in options.WebSocket (Node 20: the ws package)");
    }
    const socket = new Socket(this.url);
    this.socket = socket;
    let welcomed = false;
    return new Promise<FeedWelcome>((resolve, reject) => {
      socket.onopen = () => this.send({ type: "hello", token: this.key, after: this.lastId });
      socket.onmessage = (event) => {
        const message = JSON.parse(String(event.data)) as FeedServerMessage;
        if (message.type === "welcome") {
          welcomed = true;
          this.handle = message.handle;
          this.attempt = 0;
          resolve(message);
        } else if (message.type === "note") {
          this.take(message.note);
        }
      };
      socket.onerror = () => undefined; // a close follows
      socket.onclose = (event) => {
        const closed = new SocketClosed(event.code, event.reason);
        if (!welcomed) {
          reject(closed);
        }
        this.dropped(socket, closed);
      };
    });
  }

  /** Every note as it comes, each once, until the feed is closed for good (then it throws
   * the close, unless `close()` ended it). One reader at a time. */
  async *notes(): AsyncGenerator<Note> {
    for (;;) {
      const note = this.queue.shift();
      if (note !== undefined) {
        yield note;
        continue;
      }
      if (this.closedFor !== undefined) {
        if (this.closing) return;
        throw this.closedFor;
      }
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
  }

  /** The next note that `matches` (notes before it are passed over); rejects when the feed
   * closes for good first. */
  async next(matches: (note: Note) => boolean = () => true): Promise<Note> {
    for await (const note of this.notes()) {
      if (matches(note)) {
        return note;
      }
    }
    throw this.closedFor ?? new SocketClosed(1000, "closed");
  }

  /** Close for good. */
  close(): void {
    this.closing = true;
    this.socket?.close(1000, "bye");
  }

  private send(message: FeedClientMessage): void {
    this.socket?.send(JSON.stringify(message));
  }

  private take(note: Note): void {
    if (this.lastId === null || note.id > this.lastId) {
      this.lastId = note.id; // the greatest: the notes that stand now need not come in order
    }
    if (this.options.onNote === undefined) {
      this.queue.push(note);
      this.wake();
    } else {
      this.options.onNote(note);
    }
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }

  private dropped(socket: WebSocketLike, closed: SocketClosed): void {
    if (this.socket !== socket) {
      return;
    }
    const backoff = this.options.backoff ?? BACKOFF;
    const chosen = closed.code >= 4400 && closed.code < 4500;
    if (this.closing || chosen || this.attempt >= backoff.length) {
      this.closedFor = closed;
      this.options.onClosed?.(closed);
      this.wake();
      return;
    }
    const wait = backoff[this.attempt] ?? 0;
    this.attempt += 1;
    setTimeout(() => {
      this.open().catch(() => undefined); // its close comes back here
    }, wait);
  }
}

/** Open the player's feed with her key (`after`: the last note's id she has seen). */
export async function connectFeed(baseUrl: string, key: string, options: FeedOptions = {}): Promise<PlayerFeed> {
  const root = baseUrl.replace(/\/+$/, "").replace(/^http/, "ws");
  const feed = new PlayerFeed(`${root}/me/socket`, key, options);
  await feed.open();
  return feed;
}

export interface NoteStreamOptions {
  baseUrl: string;
  /** The player's key (sent in the Authorization header). */
  key: string;
  /** The id of the last note already seen (null or left out: the notes that stand now). */
  after?: string | null;
  /** Stops following (the generator returns). */
  signal?: AbortSignal;
  /** Reconnections in a row without a new note before giving up (default 5). */
  retries?: number;
  /** The first wait before reconnecting, doubled each time (default 250 ms). */
  retryDelayMs?: number;
  fetch?: typeof globalThis.fetch;
}

/**
 * The player's notes over `GET /me/stream` (Server-Sent Events read over `fetch`, so the key
 * goes in a header, which a browser's `EventSource` cannot send): the same notes as the
 * socket, until `signal` aborts. A stream that drops or ends is opened again with
 * `Last-Event-ID` set to the greatest note id received; a refusal (401 for a key replaced
 * since, the stream's end) is thrown as its `ProblemError`.
 */
export async function* followNotes(options: NoteStreamOptions): AsyncGenerator<Note, void, undefined> {
  const fetcher = options.fetch ?? globalThis.fetch;
  const url = `${options.baseUrl.replace(/\/+$/, "")}/me/stream`;
  const retries = options.retries ?? 5;
  const delay = options.retryDelayMs ?? 250;
  let cursor = options.after ?? null;
  let failures = 0;
  while (!options.signal?.aborted) {
    const headers: Record<string, string> = { Accept: "text/event-stream", Authorization: `Bearer ${options.key}` };
    if (cursor !== null) {
      headers["Last-Event-ID"] = cursor;
    }
    try {
      const response = await open(fetcher, url, headers, options.signal);
      for await (const message of messages(readBody(response))) {
        if (message.event !== "note") {
          continue;
        }
        const note = JSON.parse(message.data) as Note;
        if (cursor === null || note.id > cursor) {
          cursor = note.id;
        }
        failures = 0;
        yield note;
      }
      throw new Dropped(new Error("the feed's stream ended")); // open again: refused if her key went
    } catch (error) {
      if (options.signal?.aborted) {
        return;
      }
      if (!(error instanceof Dropped) || failures >= retries) {
        throw error instanceof Dropped ? error.reason : error;
      }
      failures += 1;
      await sleep(error.waitMs ?? delay * 2 ** (failures - 1), options.signal);
    }
  }
}
