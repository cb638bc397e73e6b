// The play page: one seat (or the referee) at a game. The token comes in the URL fragment
// (`#token=...&seat=N`), is kept in sessionStorage and taken out of the address bar; it is
// sent only as the Authorization header (or in the socket's hello). A seat that belongs to a
// registered player has no token: its link is `#seat=N` (or none), and the page plays it with
// the key of the player signed in in this browser (player.js), when the game seats them. The
// page hears the game's events on its WebSocket and plays its moves there, or, where no socket
// can be opened, follows the event stream and POSTs its moves; it reads the state, the board
// and the caller's legal moves again after each event. `data-transport` on the body says which
// ("socket", "stream").

import { boardSvg, call, follow } from "./api.js";
import { playOnBoard, showBoard } from "./board.js";
import { createAccount, offerPace, readLog } from "./account.js";
import { showEnd } from "./end.js";
import { loadLanguage, t } from "./i18n.js";
import { openSocket } from "./live.js";
import { renderSeats, showPresence, tickClocks } from "./table.js";
import { cardFace, showChance } from "./faces.js";
import { linkTournament, renderTeams } from "./teams.js";
import { whyNot } from "./unmovable.js";
import { signedIn } from "./player.js";
import { cardName, describeMove, problemText, rulesetName, seatName, whoseTurn } from "./words.js";

const gameId = location.pathname.split("/")[2];
const CHANCE = new Set(["draw", "roll", "deal"]);
const TOUCH = "(pointer: coarse), (max-width: 760px)"; // a phone: the short hint, for taps
const $ = (id) => document.getElementById(id);

/** The caller's token and seat: from the fragment (then kept for this tab), else as kept;
 * `asked`, the seat a link without a token names (a registered player's). */
function caller() {
  const key = `tabula:${gameId}`;
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (fragment.get("token")) {
    const found = { token: fragment.get("token"), seat: fragment.get("seat") };
    sessionStorage.setItem(key, JSON.stringify(found));
    history.replaceState(null, "", location.pathname + location.search);
  }
  const kept = JSON.parse(sessionStorage.getItem(key) || "{}");
  const number = (text) => (/^\d+$/.test(text || "") ? Number(text) : null);
  const asked = number(fragment.get("seat"));
  return { token: kept.token || null, seat: number(kept.seat), referee: kept.seat === "referee", asked, players: [] };
}

/** The seats that belong to registered players in `events`, a log from its start:
 * `GameCreated.players` and, at a table that gathered, the seats players took by joining
 * (`SeatTaken.player`, until a `SeatLeft`). */
function playersIn(events) {
  const first = events[0];
  const taken = new Map((first?.data.players || []).map((p) => [p.seat, p]));
  for (const event of events) {
    if (event.type === "SeatTaken" && event.data.player) taken.set(event.data.seat, { seat: event.data.seat, handle: event.data.player });
    if (event.type === "SeatLeft") taken.delete(event.data.seat);
    if (event.type === "TableStarted") break;
  }
  return [...taken.values()];
}

/** The game's seats that belong to registered players, read with `token` (or as a
 * spectator); null when the log cannot be read so. */
async function playersOf(token) {
  const first = (await call(`/games/${gameId}/events?limit=1`, { token })).events[0];
  if (!first || first.type !== "GameCreated") return null;
  if (!(first.data.open_seats || []).length && !(first.data.invites || []).length) return first.data.players || [];
  return playersIn((await call(`/games/${gameId}/events?limit=1000`, { token })).events);
}

/** Without a token, the player signed in here plays their seat of this game with their key;
 * otherwise, when the link names a registered player's seat, the page says whose it is. */
async function asPlayer() {
  const player = signedIn();
  if (me.token) return;
  if (player) {
    try {
      const mine = ((await playersOf(player.key)) || []).find((p) => p.handle === player.handle);
      if (mine) {
        Object.assign(me, { token: player.key, seat: mine.seat, player: player.handle });
        return;
      }
    } catch (error) { // 403: the game does not seat this player; 401: the key no longer works
      if (error.status === 401) say(t("play.keyRefused"));
    }
  }
  me.players = await playersOf(null).catch(() => null) || [];
  const asked = me.players.find((p) => p.seat === me.asked);
  if (asked) say(t("play.signInAs", { handle: asked.handle }));
}

const me = caller();
let state = null; // the state view shown
let movesVersion = 0; // the version the legal moves shown were listed at
let lastShown = ""; // the version and moves on the page
let posting = false;
let live = null; // the game's socket, while it works
let refreshing = false;
let again = false;
const account = createAccount($("account"), () => (state ? state.seats : []));
offerPace($("pace"));

function say(text) {
  $("message").textContent = text;
}

/** A line of the page's own in the account (why a tapped piece cannot move), the latest first. */
function note(text) {
  if (!text) return;
  const line = document.createElement("li");
  line.className = "note why";
  line.textContent = text;
  $("account").prepend(line);
}

function button(text, move, className = "") {
  const made = document.createElement("button");
  made.type = "button";
  made.textContent = text;
  made.className = className;
  made.dataset.move = move.id;
  made.onclick = () => play(move);
  return made;
}

function moveText(move) {
  const text = describeMove(move);
  return me.referee ? t("play.refereeMove", { name: seatName(state.seats, move.seat), move: text }) : text;
}

function renderHands() {
  const hands = (state.hands || []).filter((h) => h.cards);
  $("hands").replaceChildren(...hands.map((hand) => {
    const heading = document.createElement("h2");
    heading.textContent = hand.seat === me.seat ? t("play.yourHand") : t("play.theirHand", { name: seatName(state.seats, hand.seat) });
    const list = document.createElement("ul");
    list.className = "hand";
    list.dataset.seat = hand.seat;
    list.append(...hand.cards.map((card) => {
      const item = cardFace(card);
      item.setAttribute("aria-label", t("play.card", { card: cardName(card) }));
      return item;
    }));
    const part = document.createElement("div");
    part.append(heading, list);
    return part;
  }));
}

/** Mark the moves a destination stands for (several cards or dice end there): pick one. */
function choose(moves) {
  const ids = new Set(moves.map((m) => m.id));
  $("all-moves").open = true;
  let first = null;
  for (const item of $("moves").querySelectorAll("button")) {
    item.classList.toggle("choice", ids.has(item.dataset.move));
    if (!first && ids.has(item.dataset.move)) first = item;
  }
  $("hint").textContent = t("play.choose");
  first?.focus();
}

function renderMoves(moves, root) {
  const playable = me.token && state.status === "active";
  const chance = playable ? moves.filter((m) => CHANCE.has(m.id)) : [];
  const others = moves.filter((m) => !CHANCE.has(m.id));
  $("actions").replaceChildren(...chance.map((m) => button(moveText(m), m, "primary")));
  $("moves").replaceChildren(...others.map((m) => {
    const item = document.createElement("li");
    item.append(playable ? button(moveText(m), m) : moveText(m));
    return item;
  }));
  $("all-moves-summary").textContent = t("play.allMovesCount", { count: others.length });
  const dice = state.dice_left && state.dice_left.length ? state.dice_left : (state.chance && state.chance.dice) || [];
  const why = (piece, about) => note(whyNot(piece, { state, me, moves: playable ? moves : [] }, about));
  const board = { play, choose, why, dice, picker: $("dice-picker"), zoom: $("board-zoom") };
  const onBoard = root ? playOnBoard(root, playable ? others : [], board) : 0;
  $("all-moves").open = others.length > 0 && onBoard === 0;
  $("all-moves").hidden = others.length === 0;
  $("hint").textContent = onBoard ? t(matchMedia(TOUCH).matches ? "play.hintTouch" : "play.hint") : "";
  $("swap-hint").textContent = swapHint(playable ? others : []);
}

/** Where a swap is offered, how to play it on the board: the pawn its move id names first. */
function swapHint(moves) {
  if (moves.some((m) => m.id.startsWith("SWAP:"))) return t("play.swapHintPartners");
  if (moves.some((m) => m.id.includes("<>"))) return t("play.swapHint");
  return "";
}

/** Show `view` with `moves` (listed at `version`) and the board, unless an older reply than
 * the one shown: its moves' version must not replace a newer one either. */
function render(view, moves, version, svg) {
  if (state && view.version < state.version) return;
  movesVersion = version;
  const shown = `${view.version} ${view.status} ${JSON.stringify(moves)}`;
  if (shown === lastShown) return; // nothing new: keep the page as it is (and a chosen piece)
  lastShown = shown;
  state = view;
  const who = me.referee ? t("play.referee") : me.seat === null ? t("play.spectator") : seatName(view.seats, me.seat);
  $("title").textContent = t("play.title", { ruleset: rulesetName(view.ruleset), who });
  document.title = t("play.documentTitle", { ruleset: rulesetName(view.ruleset), who });
  renderSeats($("seats"), view, me.seat);
  renderTeams($("teams"), view, me.seat);
  $("turn").textContent = view.status === "gathering" ? gatheringWords(view) : whoseTurn(view, me.seat).join(" ");
  $("turn").dataset.winners = view.winners.join(",");
  showChance($("chance"), view);
  renderHands();
  const root = showBoard($("board"), svg, { animate: true });
  renderMoves(moves, root);
  if (view.status === "finished") account.whenTold(view.version, () => showEnd($("end"), view, me)); // the banner waits for the account
  document.body.dataset.version = view.version;
  document.body.dataset.status = view.status;
  $("analyse-link").hidden = view.status !== "finished";
}

/** While the table gathers: who has joined and how many seats are still awaited. */
function gatheringWords(view) {
  const joined = view.seats.filter((s) => !s.open && !s.invite).map((s) => s.name);
  const awaited = view.seats.length - joined.length;
  return t("play.gathering", { names: joined.join(", "), count: awaited });
}

/** A link without `seat=`: the seat is the one whose hand the token sees, or whose moves it
 * gets (a seat's token gets only its own). */
function guessSeat(view, moves) {
  if (!me.token || me.referee || me.seat !== null) return;
  const hands = (view.hands || []).filter((h) => h.cards);
  const seats = new Set(moves.map((m) => m.seat));
  if (hands.length === 1) me.seat = hands[0].seat;
  else if (seats.size === 1) me.seat = [...seats][0];
}

/** Read the state, the legal moves and the board again (once more if news came meanwhile). */
async function refresh() {
  if (refreshing) {
    again = true;
    return;
  }
  refreshing = true;
  try {
    do {
      again = false;
      const view = await call(`/games/${gameId}`, { token: me.token });
      const [legal, svg] = await Promise.all([
        me.token ? call(`/games/${gameId}/legal-moves`, { token: me.token }) : { moves: [], version: view.version },
        boardSvg(gameId, view.version, me.token),
      ]);
      guessSeat(view, legal.moves);
      render(view, legal.moves, legal.version, svg);
      if (legal.version !== view.version) again = true;
    } while (again);
  } catch (error) {
    say(problemText(error));
  } finally {
    refreshing = false;
  }
}

async function play(move) {
  if (posting) return;
  posting = true;
  say("");
  try {
    const body = { move: move.id, expected_version: movesVersion };
    if (me.referee) body.seat = move.seat;
    if (live) {
      const reply = await live.play(body);
      account.add(reply.events);
      // The game may have moved on meanwhile (a bot plays at once): the board drawn at the
      // version of the state shown, and the moves read again when they are older than it.
      const view = await call(`/games/${gameId}`, { token: me.token });
      render(view, reply.legal_moves.moves, reply.legal_moves.version, await boardSvg(gameId, view.version, me.token));
      if (view.version > reply.legal_moves.version) refresh();
    } else {
      const reply = await call(`/games/${gameId}/moves`, { token: me.token, body });
      account.add(reply.events);
      render(reply.state, reply.legal_moves, reply.version, await boardSvg(gameId, reply.version, me.token));
    }
  } catch (error) {
    say(problemText(error));
    if (error.slug === "version-conflict" || error.slug === "not-your-turn") refresh();
  } finally {
    posting = false;
  }
}

(async () => {
  await loadLanguage();
  $("view-link").href = `/games/${gameId}/view`;
  $("analyse-link").href = `/games/${gameId}/view#analysis`;
  await asPlayer();
  if (!me.token && !$("message").textContent) say(t("play.noToken"));
  await refresh();
  if (!state) return;
  readLog(gameId, me.token).then((log) => {
    me.players = playersIn(log);
    account.history(log);
    linkTournament($("tournament-link"), log);
  }, () => account.history([]));
  const connection = (now) => {
    $("connection").textContent = { reconnecting: t("play.reconnecting"), ended: t("play.ended") }[now] || "";
  };
  const stream = () => {
    live = null;
    document.body.dataset.transport = "stream";
    let dropped = false;
    follow(gameId, state.version, (event) => {
      account.add([event]);
      if (event.version > state.version) refresh();
    }, {
      token: me.token,
      done: () => state.status === "finished",
      onState: (now) => {
        connection(now);
        if (now === "reconnecting") dropped = true;
        if (now === "live" && dropped) refresh(); // catch up with what happened meanwhile
      },
    });
  };
  live = await openSocket(gameId, me.token, state.version, {
    onEvents: (events) => {
      account.add(events);
      if (events[events.length - 1].version > state.version) refresh();
    },
    onPresence: (seats) => showPresence($("seats"), state, seats),
    onState: (now) => {
      if (now === "lost") return stream(); // the socket is given up: the stream instead
      connection(now);
      if (now === "live") refresh(); // (again) live: catch up with what happened meanwhile
    },
  });
  if (live) document.body.dataset.transport = "socket";
  else stream();
  setInterval(() => tickClocks($("seats"), state), 500);
})();
