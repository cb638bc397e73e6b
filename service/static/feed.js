// The player's feed for the pages (GET /me/socket): the notes of every game that names the
// player signed in here (an invitation, a rematch offered, a seek matched, a game started,
// her turn, a game finished), each once. The key goes in the hello, never in an address. A
// dropped connection opens again after the greatest note id received, so nothing is lost or
// told twice; a close the server chose (a refused key) is not retried. While it is open the
// service keeps the player's seeks alive.

const BACKOFF_MS = [500, 2000, 5000];

/** Open the feed of the player whose key is `key`: `onNote(note)` hears each note. Returns a
 * function that closes it; null where this browser has no WebSocket. */
export function openFeed(key, onNote) {
  if (typeof WebSocket !== "function") return null;
  const url = `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/me/socket`;
  let last = null; // the greatest note id received
  let socket = null;
  let closed = false;
  let attempt = 0;
  const open = () => {
    socket = new WebSocket(url);
    socket.onopen = () => socket.send(JSON.stringify({ type: "hello", token: key, after: last }));
    socket.onmessage = (frame) => {
      const message = JSON.parse(frame.data);
      if (message.type === "welcome") attempt = 0;
      if (message.type !== "note") return;
      if (last === null || message.note.id > last) last = message.note.id;
      onNote(message.note);
    };
    socket.onclose = (event) => {
      if (closed || (event.code >= 4400 && event.code < 4500) || attempt >= BACKOFF_MS.length) return;
      setTimeout(open, BACKOFF_MS[attempt++]);
    };
  };
  open();
  return () => {
    closed = true;
    socket.close(1000, "bye");
  };
}
