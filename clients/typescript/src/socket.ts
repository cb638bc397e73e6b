/**
 * Live play over a game's WebSocket (`GET /games/{id}/socket`): one connection carries every
 * event the caller may see, pushed as it is appended, and the caller's moves, each answered
 * once it is stored.
 *
 *     const live = await connect("http://127.0.0.1:8000", gameId, token, {
 *       onEvents: (events) => render(events),
 *     });
 *     const played = await live.play(moveId, { expectedVersion: live.version });
 *
 * Events can come in the same read as the welcome, before `connect` resolves: the handlers are
 * best given to `connect`. Events that come while no `onEvents` is set are kept and handed to
 * the handler as soon as one is set (`live.onEvents = ...`), so none is lost either way; a
 * close for good before `onClosed` is set is handed to it the same way.
 *
 * A connection that drops is opened again with the last version seen (waiting longer each
 * time: `backoff`), so every event comes once, in order; a write whose answer the drop cut
 * off is rejected, and may be sent again with the same `idempotencyKey`. A close the server
 * chose (codes 4400-4499: a bad hello, a token of no seat, a key refused or, with the reason
 * `key-revoked`, replaced since (`keyRevoked`), no such game, too slow a reader, too many
 * sockets) is not retried. Browsers have `WebSocket`; in Node 20 pass one (`ws`).
 */

import type { GameEvent, LegalMoves } from "./client.js";
import { ProblemError } from "./problems.js";

export interface Welcome {
  type: "welcome";
  role: "seat" | "referee" | "spectator";
  seat: number | null;
  version: number;
}

export interface SocketPlayed {
  type: "played";
  ref: string;
  version: number;
  events: GameEvent[];
  legal_moves: LegalMoves;
}

export type ServerMessage =
  | Welcome
  | { type: "events"; events: GameEvent[] }
  | SocketPlayed
  | { type: "refused"; ref: string | null; problem: Record<string, unknown> }
  | { type: "pong"; ref: string | null }
  | { type: "presence"; seats: { seat: number; present: boolean }[] };

export type ClientMessage =
  | { type: "hello"; token: string | null; after: number; presence?: boolean }
  | {
      type: "play";
      ref: string;
      move: string;
      expected_version?: number;
      seat?: number;
      idempotency_key?: string;
    }
  | { type: "undo"; ref: string; reason: string; idempotency_key?: string }
  | { type: "chance"; ref: string; card?: string; dice?: number[] }
  | { type: "ping"; ref?: string };

/** What this module needs of a WebSocket (the browser's, or Node's `ws`). */
export interface WebSocketLike {
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

export type WebSocketConstructor = new (url: string) => WebSocketLike;

export interface SocketOptions {
  /** The last version already seen (0: the whole log). */
  after?: number;
  /** The WebSocket class; the global one by default. */
  WebSocket?: WebSocketConstructor;
  /** Milliseconds to wait before each reconnect; after the last, give up. */
  backoff?: number[];
  /** Called with each batch of new events, in order, each event once (from the first). */
  onEvents?: (events: GameEvent[]) => void;
  /** Called once the socket is closed for good. */
  onClosed?: (error: SocketClosed) => void;
  /** Called with every seat's presence each time the set of present seats changes (asked
   * for in the hello when given; a socket is not told of the change its own opening makes:
   * `GET /games/{id}` says each seat's `present` at the start). */
  onPresence?: (seats: SeatPresence[]) => void;
}

/** Whether a seat is present (connected, or seen within the server's `presence_seconds`). */
export interface SeatPresence {
  seat: number;
  present: boolean;
}

const BACKOFF = [100, 200, 500, 1000, 2000, 5000];

/** The reason of a 4401 close after the player's key the socket was opened with was replaced
 * (`POST /me/keys`, an app's `POST /players/{handle}/keys`) or her handle retired. */
export const KEY_REVOKED = "key-revoked";

/** A socket closed for good, with the server's close code when it chose to close it. */
export class SocketClosed extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
  ) {
    super(`socket closed: ${code} ${reason}`.trim());
    this.name = "SocketClosed";
  }

  /** Whether the player's key the socket was opened with stopped working (4401
   * `key-revoked`): connect again with her new key. */
  get keyRevoked(): boolean {
    return this.code === 4401 && this.reason === KEY_REVOKED;
  }
}

interface Waiting {
  resolve: (played: SocketPlayed) => void;
  reject: (error: Error) => void;
}

/** A game's WebSocket session; `connect` opens one. */
export class GameSocket {
  version: number;
  welcome: Welcome | undefined;
  private eventsHandler: ((events: GameEvent[]) => void) | undefined;
  private closedHandler: ((error: SocketClosed) => void) | undefined;
  /** Events that came while no `onEvents` was set, for the first one set. */
  private unhandled: GameEvent[] = [];
  private closedFor: SocketClosed | undefined;
  private socket: WebSocketLike | undefined;
  private readonly waiting = new Map<string, Waiting>();
  private refs = 0;
  private attempt = 0;
  private closing = false;

  constructor(
    readonly url: string,
    readonly token: string | null,
    private readonly options: SocketOptions = {},
  ) {
    this.version = options.after ?? 0;
    this.eventsHandler = options.onEvents;
    this.closedHandler = options.onClosed;
  }

  /** Called with each batch of new events, in order, each event once. Events that came before
   * it was set (in the welcome's read, say) are handed to it at once when it is set. */
  get onEvents(): (events: GameEvent[]) => void {
    return this.eventsHandler ?? (() => undefined);
  }

  set onEvents(handler: (events: GameEvent[]) => void) {
    this.eventsHandler = handler;
    const kept = this.unhandled;
    this.unhandled = [];
    if (kept.length > 0) {
      handler(kept);
    }
  }

  /** Called once the socket is closed for good (at once when set after that close). */
  get onClosed(): (error: SocketClosed) => void {
    return this.closedHandler ?? (() => undefined);
  }

  set onClosed(handler: (error: SocketClosed) => void) {
    this.closedHandler = handler;
    const closed = this.closedFor;
    this.closedFor = undefined;
    if (closed !== undefined) {
      handler(closed);
    }
  }

  /** Open the connection and say hello; resolves with the welcome. */
  open(): Promise<Welcome> {
    const Socket = this.options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (Socket === undefined) {
      throw new Error("no WebSocket here: pass one in options.WebSocket (Node 20: the ws package)");
    }
    const socket = new Socket(this.url);
    this.socket = socket;
    return new Promise<Welcome>((resolve, reject) => {
      const presence = this.options.onPresence === undefined ? {} : { presence: true };
      socket.onopen = () => this.send({ type: "hello", token: this.token, after: this.version, ...presence });
      socket.onmessage = (event) => {
        const message = JSON.parse(String(event.data)) as ServerMessage;
        if (message.type === "welcome") {
          this.welcome = message;
          this.attempt = 0;
          resolve(message);
        } else {
          this.take(message);
        }
      };
      socket.onerror = () => undefined; // a close follows
      socket.onclose = (event) => {
        const closed = new SocketClosed(event.code, event.reason);
        if (this.welcome === undefined || this.socket !== socket) {
          reject(closed);
        }
        this.dropped(socket, closed);
      };
    });
  }

  /** Play a move for the caller's seat; rejects with the `ProblemError` HTTP would give. */
  play(
    move: string,
    options: { expectedVersion?: number; seat?: number; idempotencyKey?: string } = {},
  ): Promise<SocketPlayed> {
    const ref = this.nextRef();
    return this.write(ref, {
      type: "play",
      ref,
      move,
      ...(options.expectedVersion === undefined ? {} : { expected_version: options.expectedVersion }),
      ...(options.seat === undefined ? {} : { seat: options.seat }),
      ...(options.idempotencyKey === undefined ? {} : { idempotency_key: options.idempotencyKey }),
    });
  }

  /** Revert the latest decision (the referee, or a seat where the game allows). */
  undo(reason = "", idempotencyKey?: string): Promise<SocketPlayed> {
    const ref = this.nextRef();
    const key = idempotencyKey === undefined ? {} : { idempotency_key: idempotencyKey };
    return this.write(ref, { type: "undo", ref, reason, ...key });
  }

  /** Record the card drawn or the dice thrown at the table (external chance, referee). */
  chance(outcome: { card?: string; dice?: number[] }): Promise<SocketPlayed> {
    const ref = this.nextRef();
    return this.write(ref, { type: "chance", ref, ...outcome });
  }

  /** Close for good. */
  close(): void {
    this.closing = true;
    this.socket?.close(1000, "bye");
  }

  private nextRef(): string {
    this.refs += 1;
    return String(this.refs);
  }

  private write(ref: string, message: ClientMessage): Promise<SocketPlayed> {
    return new Promise<SocketPlayed>((resolve, reject) => {
      this.waiting.set(ref, { resolve, reject });
      this.send(message);
    });
  }

  private send(message: ClientMessage): void {
    this.socket?.send(JSON.stringify(message));
  }

  private take(message: ServerMessage): void {
    if (message.type === "events") {
      this.keep(message.events);
    } else if (message.type === "played") {
      this.keep(message.events);
      this.answered(message.ref)?.resolve(message);
    } else if (message.type === "refused" && message.ref !== null) {
      this.answered(message.ref)?.reject(problemOf(message.problem));
    } else if (message.type === "presence") {
      this.options.onPresence?.(message.seats);
    }
  }

  private keep(events: GameEvent[]): void {
    const fresh = events.filter((event) => event.version > this.version);
    if (fresh.length > 0) {
      this.version = fresh[fresh.length - 1]!.version;
      if (this.eventsHandler === undefined) {
        this.unhandled.push(...fresh);
      } else {
        this.eventsHandler(fresh);
      }
    }
  }

  private answered(ref: string): Waiting | undefined {
    const waiting = this.waiting.get(ref);
    this.waiting.delete(ref);
    return waiting;
  }

  private dropped(socket: WebSocketLike, closed: SocketClosed): void {
    if (this.socket !== socket) {
      return;
    }
    for (const waiting of this.waiting.values()) {
      waiting.reject(closed);
    }
    this.waiting.clear();
    const backoff = this.options.backoff ?? BACKOFF;
    const chosen = closed.code >= 4400 && closed.code < 4500;
    if (this.closing || chosen || this.attempt >= backoff.length) {
      if (this.closedHandler === undefined) {
        this.closedFor = closed;
      } else {
        this.closedHandler(closed);
      }
      return;
    }
    const wait = backoff[this.attempt] ?? 0;
    this.attempt += 1;
    setTimeout(() => {
      this.open().catch(() => undefined); // its close comes back here
    }, wait);
  }
}

/** Open a game's socket as `token`'s caller (a token, or a player's key: her seat; null: a
 * spectator); handlers given in `options` are set before the first frame comes. */
export async function connect(
  baseUrl: string,
  gameId: string,
  token: string | null,
  options: SocketOptions = {},
): Promise<GameSocket> {
  const root = baseUrl.replace(/\/+$/, "").replace(/^http/, "ws");
  const live = new GameSocket(`${root}/games/${encodeURIComponent(gameId)}/socket`, token, options);
  await live.open();
  return live;
}

function problemOf(problem: Record<string, unknown>): ProblemError {
  const { type, title, status, detail, instance, ...extra } = problem;
  return new ProblemError({
    type: String(type),
    title: String(title),
    status: Number(status),
    detail: typeof detail === "string" ? detail : "",
    ...(typeof instance === "string" ? { instance } : {}),
    extra,
  });
}
