// Calls to Tabula's HTTP API from the pages: JSON in and out, problems as errors, and the
// event stream followed across dropped connections.

import { EVENT_TYPES } from "./words.js";

/** An RFC 9457 problem reply, thrown: `detail` says what was wrong, `slug` its type. */
export class Problem extends Error {
  constructor(body, status) {
    const detail = (body && body.detail) || `the server answered ${status}`;
    super(detail);
    this.status = status;
    this.body = body || {};
    this.slug = String(this.body.type || "").split("/").pop();
  }
}

/** A GET or POST to the API, with the token when there is one; the decoded JSON reply. */
export async function call(path, { token = null, body = undefined } = {}) {
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const reply = await fetch(path, {
    method: body === undefined ? "GET" : "POST",
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (reply.headers.get("content-type") || "").includes("json");
  const data = json ? await reply.json() : await reply.text();
  if (!reply.ok) throw new Problem(json ? data : null, reply.status);
  return data;
}

/** The board after event `at` (the current one without), as SVG text. */
export async function boardSvg(gameId, at = null) {
  const reply = await fetch(`/games/${gameId}/board.svg${at ? `?at=${at}` : ""}`);
  if (!reply.ok) throw new Problem(null, reply.status);
  return reply.text();
}

/**
 * Follow a game's events live from version `after`: `onEvent(event)` for each. A dropped
 * connection is resumed after the last event seen (EventSource sends Last-Event-ID itself;
 * a refused one is opened again after `retryMs`) until `done()` says the game is over.
 * `onState` hears "live", "reconnecting" and "ended". Returns a function that stops following.
 */
export function follow(gameId, after, onEvent, { retryMs = 2000, onState = () => {}, done = () => false } = {}) {
  let last = after;
  let source = null;
  let stopped = false;
  const open = () => {
    if (stopped) return;
    source = new EventSource(`/games/${gameId}/events/stream?after=${last}`);
    const receive = (message) => {
      const event = JSON.parse(message.data);
      if (event.version <= last) return;
      last = event.version;
      onEvent(event);
    };
    EVENT_TYPES.forEach((type) => source.addEventListener(type, receive));
    source.onopen = () => onState("live");
    source.onerror = () => {
      if (done()) { // a finished game's stream ends once it has sent everything
        stopped = true;
        source.close();
        onState("ended");
        return;
      }
      onState("reconnecting");
      if (source.readyState === EventSource.CLOSED) setTimeout(open, retryMs);
    };
  };
  open();
  return () => {
    stopped = true;
    if (source) source.close();
  };
}
