/**
 * Follow a game live: `GET /games/{id}/events/stream` (Server-Sent Events) read over `fetch`
 * and parsed here, since Node has no `EventSource`.
 *
 * Each message's `id:` is the event's version, `event:` its type and `data:` the event as
 * JSON; `:` lines are keep-alives. The server ends the stream once the game has finished and
 * every event was sent. A connection that drops (an error while connecting or reading, a 429
 * or 5xx reply) is opened again with `Last-Event-ID` set to the last version seen, so each
 * event comes exactly once, in order. A stream that ends cleanly after new events is asked
 * once more (a finished game's answer is an empty stream), so a clean cut by something in
 * between is not taken for the end of the game.
 */

import type { GameEvent } from "./client.js";
import { ProblemError } from "./problems.js";

/** One dispatched server-sent event. */
export interface SseMessage {
  data: string;
  event: string;
  id: string | undefined;
  retry: number | undefined;
}

/**
 * Turns lines (without their line ends) into messages, as the WHATWG rules say: a blank line
 * dispatches, `:` starts a comment, one space after the colon is dropped, `data` lines join
 * with `\n`, a message without data is not dispatched, and the last `id` stays in force.
 */
export class SseDecoder {
  private data: string[] = [];
  private event = "";
  private id: string | undefined = undefined;
  private retry: number | undefined = undefined;

  feed(line: string): SseMessage | undefined {
    if (line === "") {
      return this.dispatch();
    }
    if (line.startsWith(":")) {
      return undefined;
    }
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) {
      value = value.slice(1);
    }
    if (field === "data") {
      this.data.push(value);
    } else if (field === "event") {
      this.event = value;
    } else if (field === "id" && !value.includes("\0")) {
      this.id = value;
    } else if (field === "retry" && /^\d+$/.test(value)) {
      this.retry = Number(value);
    }
    return undefined;
  }

  private dispatch(): SseMessage | undefined {
    const { data, event } = this;
    this.data = [];
    this.event = "";
    if (data.length === 0) {
      return undefined;
    }
    return { data: data.join("\n"), event: event || "message", id: this.id, retry: this.retry };
  }
}

/** The lines of a byte stream, split at CRLF, LF or CR (a CR at a chunk's end waits for LF). */
export async function* lines(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of chunks) {
    buffer += decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let i = 0; i < buffer.length; i++) {
      const char = buffer[i];
      if (char !== "\n" && char !== "\r") {
        continue;
      }
      if (char === "\r" && i + 1 === buffer.length) {
        break; // maybe the first half of a CRLF split across chunks
      }
      yield buffer.slice(start, i);
      if (char === "\r" && buffer[i + 1] === "\n") {
        i++;
      }
      start = i + 1;
    }
    buffer = buffer.slice(start);
  }
  buffer += decoder.decode();
  if (buffer.endsWith("\r")) {
    yield buffer.slice(0, -1);
  } // anything else left is a line the stream never ended: discarded, as the SSE rules say
}

/** The messages of a byte stream. */
export async function* messages(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new SseDecoder();
  for await (const line of lines(chunks)) {
    const message = decoder.feed(line);
    if (message !== undefined) {
      yield message;
    }
  }
}

export interface FollowOptions {
  baseUrl: string;
  gameId: string;
  /** A seat's or the referee's token; a spectator's stream without one. Events are redacted
   * for the caller, as `GET /games/{id}/events` is. */
  token?: string | undefined;
  /** Start after this version (0, the default: from the first event). */
  after?: number;
  /** Stops following (the generator returns). */
  signal?: AbortSignal;
  /** Reconnections in a row without a new event before giving up (default 5). */
  retries?: number;
  /** The first wait before reconnecting, doubled each time (default 250 ms); a 429's
   * `Retry-After` and the stream's `retry:` field take precedence. */
  retryDelayMs?: number;
  /** Told of each reconnection: after which version, the attempt, and why. */
  onReconnect?: (after: number, attempt: number, cause: unknown) => void;
  fetch?: typeof globalThis.fetch;
}

/** A connection that failed in a way worth trying again, and how long to wait first. */
export class Dropped extends Error {
  constructor(
    readonly reason: unknown,
    readonly waitMs?: number,
  ) {
    super("the event stream dropped");
  }
}

/**
 * Every event of a game from `after` on, live, until the game has finished (the server ends
 * the stream) or `signal` aborts. Reconnects after a drop with `Last-Event-ID`; throws
 * `ProblemError` for a refusal (404, 401, ...) and the last cause once `retries` are spent.
 */
export async function* follow(options: FollowOptions): AsyncGenerator<GameEvent, void, undefined> {
  const fetcher = options.fetch ?? globalThis.fetch;
  const base = options.baseUrl.replace(/\/+$/, "");
  const url = `${base}/games/${encodeURIComponent(options.gameId)}/events/stream`;
  const retries = options.retries ?? 5;
  let delay = options.retryDelayMs ?? 250;
  let cursor = options.after ?? 0;
  let failures = 0;
  while (!options.signal?.aborted) {
    const headers: Record<string, string> = { Accept: "text/event-stream" };
    if (options.token) {
      headers.Authorization = `Bearer ${options.token}`;
    }
    if (cursor > 0) {
      headers["Last-Event-ID"] = String(cursor);
    }
    try {
      const response = await open(fetcher, url, headers, options.signal);
      let fresh = 0;
      for await (const message of messages(readBody(response))) {
        if (message.retry !== undefined) {
          delay = message.retry;
        }
        const event = JSON.parse(message.data) as GameEvent;
        if (event.version <= cursor) {
          continue; // already seen (a server resending after a resume)
        }
        cursor = event.version;
        failures = 0;
        fresh += 1;
        yield event;
      }
      if (fresh === 0) {
        return; // ended with nothing new: the game has finished and every event was sent
      }
      // Ended after news: the game has finished, or something between cut the stream
      // cleanly. Asking again settles it; a finished game's stream ends at once.
    } catch (error) {
      if (options.signal?.aborted) {
        return;
      }
      if (!(error instanceof Dropped) || failures >= retries) {
        throw error instanceof Dropped ? error.reason : error;
      }
      failures += 1;
      options.onReconnect?.(cursor, failures, error.reason);
      await sleep(error.waitMs ?? delay * 2 ** (failures - 1), options.signal);
    }
  }
}

/** Open a stream: the response, a `Dropped` worth trying again (no connection, a 429 or a
 * 5xx), or the `ProblemError` it was refused with. */
export async function open(
  fetcher: typeof globalThis.fetch,
  url: string,
  headers: Record<string, string>,
  signal: AbortSignal | undefined,
): Promise<Response> {
  let response: Response;
  try {
    response = await fetcher(url, { headers, ...(signal ? { signal } : {}) });
  } catch (error) {
    throw new Dropped(error); // refused, reset, DNS: try again
  }
  if (response.ok && response.body) {
    return response;
  }
  const text = await response.text().catch(() => "");
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: the problem is made of the status
  }
  const problem = ProblemError.from(body, response);
  if (response.status === 429 || response.status >= 500) {
    const after = Number(response.headers.get("Retry-After"));
    throw new Dropped(problem, Number.isFinite(after) && after > 0 ? after * 1000 : undefined);
  }
  throw problem;
}

/** The response's body; an error while reading it is a drop. */
export async function* readBody(response: Response): AsyncGenerator<Uint8Array> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  try {
    while (true) {
      const chunk = await reader.read().catch((error: unknown) => {
        throw new Dropped(error);
      });
      if (chunk.done) {
        return;
      }
      yield chunk.value;
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
}

/** Wait `ms`, or less if `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
  });
}
