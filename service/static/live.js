// The game's WebSocket for the pages: every event pushed once, in order, and moves played on
// the same connection. When WebSockets do not work here (none in this browser, a proxy that
// refuses the upgrade, a socket that keeps dropping), `openSocket` resolves to null and the
// page follows the event stream and POSTs its moves instead.

import { Problem } from "./api.js";

const HELLO_MS = 3000; // no welcome by then: use the stream instead
const BACKOFF_MS = [250, 1000, 3000]; // reconnects before giving up on the socket

/**
 * Open `gameId`'s socket as `token`'s holder from version `after`. `onEvents(events)` hears
 * each batch of new events; `onState` hears "live", "reconnecting" and, once the socket is
 * given up, "lost" (the page then falls back); `onPresence(seats)` hears each presence
 * message (`[{seat, present}]`: the hello asks for them). Resolves to `{ play(body), close() }`, where
 * `play` resolves to the write's reply (`version`, `events`, `legal_moves`) or rejects with
 * its Problem; or to null when no socket could be opened.
 */
export function openSocket(gameId, token, after, { onEvents, onState = () => {}, onPresence = () => {} }) {
  if (typeof WebSocket !== "function") return Promise.resolve(null);
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const url = `${scheme}//${location.host}/games/${gameId}/socket`;
  let version = after;
  let socket = null;
  let refs = 0;
  let attempt = 0;
  let closed = false;
  const waiting = new Map();

  const take = (message) => {
    if (message.type === "presence") onPresence(message.seats);
    if (message.type === "events" || message.type === "played") {
      const fresh = message.events.filter((event) => event.version > version);
      if (fresh.length) {
        version = fresh[fresh.length - 1].version;
        onEvents(fresh);
      }
    }
    if ((message.type === "played" || message.type === "refused") && waiting.has(message.ref)) {
      const { resolve, reject } = waiting.get(message.ref);
      waiting.delete(message.ref);
      if (message.type === "played") resolve(message);
      else reject(new Problem(message.problem, message.problem.status));
    }
  };

  // One connection: resolves true once welcomed, false if it closed before its welcome.
  const open = () => new Promise((resolve) => {
    const current = new WebSocket(url);
    socket = current;
    const timer = setTimeout(() => current.close(), HELLO_MS);
    let welcomed = false;
    current.onopen = () => current.send(JSON.stringify({ type: "hello", token, after: version, presence: true }));
    current.onmessage = (frame) => {
      const message = JSON.parse(frame.data);
      if (message.type !== "welcome") return take(message);
      welcomed = true;
      attempt = 0;
      clearTimeout(timer);
      onState("live");
      resolve(true);
    };
    current.onclose = (event) => {
      clearTimeout(timer);
      const dropped = new Problem({ type: "connection", detail: "the connection dropped; try again" }, 0);
      waiting.forEach(({ reject }) => reject(dropped));
      waiting.clear();
      if (!welcomed) return resolve(false);
      const chosen = event.code >= 4400 && event.code < 4500; // the server said no
      if (!closed) chosen ? onState("lost") : reconnect();
    };
  });

  // After a drop: open again from the last version seen, waiting longer each time.
  const reconnect = () => {
    if (attempt >= BACKOFF_MS.length) return onState("lost");
    onState("reconnecting");
    setTimeout(() => open().then((ok) => ok || reconnect()), BACKOFF_MS[attempt++]);
  };

  const session = {
    play(body) {
      refs += 1;
      const ref = String(refs);
      return new Promise((resolve, reject) => {
        waiting.set(ref, { resolve, reject });
        socket.send(JSON.stringify({ type: "play", ref, ...body }));
      });
    },
    close() {
      closed = true;
      socket.close(1000, "bye");
    },
  };
  return open().then((ok) => (ok ? session : null));
}
