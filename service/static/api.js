// Calls to Tabula's HTTP API from the pages: JSON in and out, problems as errors, and the
// event stream followed across dropped connections.

import { language } from "./i18n.js";
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

/** A call to the API (a GET, or a POST with a body, unless `method` says otherwise), with the
 * token when there is one; the decoded JSON reply (an empty text for none). */
export async function call(path, { token = null, body = undefined, method = undefined } = {}) {
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const reply = await fetch(path, {
    method: method ?? (body === undefined ? "GET" : "POST"),
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (reply.headers.get("content-type") || "").includes("json");
  const data = json ? await reply.json() : await reply.text();
  if (!reply.ok) throw new Problem(json ? data : null, reply.status);
  return data;
}

/** The board after event `at` (the current one without), as SVG text in the page's language;
 * drawn for the token's holder when there is one (a seat sees the live game, a spectator may
 * be kept behind). */
export async function boardSvg(gameId, at = null, token = null) {
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const query = new URLSearchParams({ lang: language() });
  if (at) query.set("at", at);
  const reply = await fetch(`/games/${gameId}/board.svg?${query}`, { headers });
  if (!reply.ok) throw new Problem(null, reply.status);
  return reply.text();
}

/**
 * Follow a game's events live from version `after`: `onEvent(event)` for each. A dropped
 * connection is resumed after the last event seen (Last-Event-ID; a refused one is opened
 * again after `retryMs`) until `done()` says the game is over. `onState` hears "live",
 * "reconnecting" and "ended". With a `token` the stream is read with fetch(), so that the
 * token goes in the Authorization header (EventSource cannot send one, and a token never goes
 * in a URL); without, with EventSource. Returns a function that stops following.
 */
export function follow(gameId, after, onEvent, { token = null, retryMs = 2000, onState = () => {}, done = () => false } = {}) {
  let last = after;
  const receive = (data) => {
    const event = JSON.parse(data);
    if (event.version <= last) return;
    last = event.version;
    onEvent(event);
  };
  const url = () => `/games/${gameId}/events/stream?after=${last}`;
  const options = { retryMs, onState, done };
  return token ? followFetched(url, token, receive, options) : followSource(url, receive, options);
}

function followSource(url, receive, { retryMs, onState, done }) {
  let source = null;
  let stopped = false;
  const open = () => {
    if (stopped) return;
    source = new EventSource(url());
    EVENT_TYPES.forEach((type) => source.addEventListener(type, (message) => receive(message.data)));
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

function followFetched(url, token, receive, { retryMs, onState, done }) {
  const stop = new AbortController();
  let lastId = null; // the id of the last event received, sent back as Last-Event-ID
  const readOnce = async () => {
    const headers = { Accept: "text/event-stream", Authorization: `Bearer ${token}` };
    if (lastId !== null) headers["Last-Event-ID"] = lastId;
    const reply = await fetch(url(), { headers, signal: stop.signal, cache: "no-store" });
    if (!reply.ok || !reply.body) throw new Problem(null, reply.status);
    onState("live");
    const reader = reply.body.pipeThrough(new TextDecoderStream()).getReader();
    const messages = sseParser((message) => {
      if (message.id !== null) lastId = message.id;
      if (message.event !== "message") receive(message.data);
    });
    for (;;) {
      const { value, done: ended } = await reader.read();
      if (ended) return;
      messages(value);
    }
  };
  (async () => {
    while (!stop.signal.aborted) {
      try {
        await readOnce();
      } catch {
        if (stop.signal.aborted) return;
      }
      if (done()) { // a finished game's stream ends once it has sent everything
        onState("ended");
        return;
      }
      onState("reconnecting");
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
  })();
  return () => stop.abort();
}

/**
 * A text/event-stream reader: feed it the body's text as it comes; it calls
 * `onMessage({ id, event, data })` for each message (lines of `field: value`, a blank line
 * ends a message; comments, such as keep-alives, are skipped).
 */
function sseParser(onMessage) {
  let buffer = "";
  let id = null;
  let event = "";
  let data = [];
  const line = (text) => {
    if (text === "") {
      if (data.length) onMessage({ id, event: event || "message", data: data.join("\n") });
      event = "";
      data = [];
      return;
    }
    if (text.startsWith(":")) return;
    const colon = text.indexOf(":");
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? "" : text.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") data.push(value);
    else if (field === "event") event = value;
    else if (field === "id") id = value;
  };
  return (chunk) => {
    buffer += chunk;
    // A line ends at \r\n, \n or \r; a \r last in a chunk may be half of a \r\n, so wait.
    const lines = buffer.split(/\r\n|\n|\r(?!$)/);
    buffer = lines.pop();
    lines.forEach(line);
  };
}
