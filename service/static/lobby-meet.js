// The lobby's meeting place: the open tables to join with one click (GET /lobby, then
// POST /games/{id}/join as the player signed in here or as a guest under a name), "play now"
// (a seek for a rule set and a number of players: POST /seeks, GET /seeks/{id} every second
// until it is matched, DELETE /seeks/{id} to cancel) and the invitations waiting for the
// signed-in player (GET /me's invitations, rematches too: accepted by joining, or declined).
// While a player's seek waits, her feed (feed.js) is open: it says at once that the seek is
// matched and keeps it alive. A joined or matched seat opens its play
// page: a player's seat with no secret in the link (the key stays in this browser), a guest's
// with her seat's token in the URL fragment.

import { call } from "./api.js";
import { $, element } from "./dom.js";
import { openFeed } from "./feed.js";
import { t } from "./i18n.js";
import { problemWords, rulesetTitle } from "./lobby-words.js";
import { signedIn } from "./player.js";

const POLL_MS = 1000;
const GUEST = "tabula:guest-name"; // the name a guest last sat under here

/** The feed of the player whose seek waits: it looks at the seek again once matched. */
function listen(key, id, look) {
  const close = openFeed(key, (note) => {
    if (note.kind === "seek-matched" && note.seek === id) look();
  });
  return close || (() => {});
}

/** The play page of `game`'s seat `seat`, with the guest's `token` in the fragment. */
function seatLink(game, seat, token = null) {
  const page = `${location.origin}/games/${game}/play`;
  return token ? `${page}#token=${encodeURIComponent(token)}&seat=${seat}` : `${page}#seat=${seat}`;
}

/** The guest's name for a table, or null (said in `message`) when the field is empty. */
function guestName(message) {
  const field = $("guest-name");
  const name = field.value.trim();
  if (!name) {
    field.setAttribute("aria-invalid", "true");
    field.focus();
    message.textContent = t("meet.noName");
    return null;
  }
  localStorage.setItem(GUEST, name);
  return name;
}

/** Take a seat of table `id` (`seat`, or the first open one) and go to its play page. */
async function join(id, message, seat = null) {
  message.textContent = "";
  const me = signedIn();
  const body = seat === null ? {} : { seat };
  if (!me) {
    const name = guestName(message);
    if (!name) return;
    body.name = name;
  }
  try {
    const taken = await call(`/games/${id}/join`, { body, token: me ? me.key : null });
    location.assign(seatLink(id, taken.seat, taken.token));
  } catch (error) {
    message.textContent = problemWords(error);
  }
}

/** A table of the lobby: its game, who sits, the seats still open, and its join button. */
function tableItem(table, message) {
  const seated = table.seats.filter((s) => !s.open && !s.invite).map((s) => s.name);
  const open = table.seats.filter((s) => s.open).length;
  const button = element("button", { type: "button", className: "primary", "data-join": table.id, text: t("meet.join") });
  button.onclick = () => join(table.id, message);
  return element("li", { "data-table": table.id },
    element("span", { text: t("meet.table", { game: rulesetTitle(table.ruleset), names: seated.join(", ") || "—" }) }),
    element("span", { className: "hint", text: ` ${t("meet.openSeats", { count: open })} ${table.rated ? t("meet.rated") : ""}` }),
    " ", button);
}

/** The open tables, read again every few seconds; a guest's name field above them. */
export function openTablesSection(part) {
  const list = element("ul", { className: "games", id: "tables-list" });
  const message = element("p", { className: "message", id: "tables-message", role: "alert" });
  const name = element("input", { type: "text", id: "guest-name", maxlength: 64, value: localStorage.getItem(GUEST) || "" });
  name.oninput = () => name.removeAttribute("aria-invalid");
  const guest = element("label", { for: "guest-name", id: "guest-name-label" }, element("span", { text: t("meet.guestName") }), name);
  part.append(element("p", { className: "hint", text: t("meet.tablesHelp") }), guest, list, message);
  const refresh = async () => {
    guest.hidden = Boolean(signedIn());
    try {
      const tables = (await call("/lobby?limit=50")).tables;
      list.replaceChildren(...tables.map((table) => tableItem(table, message)));
      if (!tables.length) list.append(element("li", { text: t("meet.noTables") }));
      list.dataset.loaded = "true";
    } catch (error) {
      message.textContent = problemWords(error);
    }
  };
  refresh();
  setInterval(refresh, 5000);
  return refresh;
}

/** "Play now": a rule set, a number of players, the button; then the wait and its cancel. */
export function playNowSection(part, all) {
  const byName = Object.fromEntries(all.map((r) => [r.name, r]));
  const ruleset = element("select", { id: "seek-ruleset" }, ...all.map((r) => element("option", { value: r.name, text: rulesetTitle(r.name) })));
  const players = element("select", { id: "seek-players" });
  const counts = () => {
    const r = byName[ruleset.value];
    players.replaceChildren(...Array.from({ length: r.max_players - r.min_players + 1 }, (_, i) => {
      const n = r.min_players + i;
      return element("option", { value: n, text: String(n) });
    }));
  };
  ruleset.onchange = counts;
  counts();
  const go = element("button", { type: "submit", className: "primary", id: "play-now", text: t("meet.playNow") });
  const cancel = element("button", { type: "button", id: "seek-cancel", hidden: true, text: t("meet.cancel") });
  const status = element("p", { className: "message note", id: "seek-status", role: "status" });
  const form = element("form", { className: "create", id: "seek-form", novalidate: true },
    element("p", { className: "hint", text: t("meet.playNowHelp") }),
    element("label", { for: "seek-ruleset" }, element("span", { text: t("lobby.ruleset") }), ruleset),
    element("label", { for: "seek-players" }, element("span", { text: t("lobby.playerCount") }), players),
    element("div", { className: "actions" }, go, cancel), status);
  form.onsubmit = (submit) => {
    submit.preventDefault();
    seek({ ruleset: ruleset.value, players: Number(players.value) }, { go, cancel, status });
  };
  part.append(form);
}

async function seek(wanted, { go, cancel, status }) {
  const me = signedIn();
  const body = { ...wanted };
  if (!me) {
    const name = guestName(status);
    if (!name) return;
    body.name = name;
  }
  status.textContent = "";
  let posted;
  try {
    posted = await call("/seeks", { body, token: me ? me.key : null });
  } catch (error) {
    status.textContent = problemWords(error);
    return;
  }
  const token = me ? me.key : posted.secret;
  let timer = null;
  let unlisten = () => {};
  const done = (text) => {
    clearInterval(timer);
    unlisten();
    go.hidden = false;
    cancel.hidden = true;
    status.textContent = text;
  };
  go.hidden = true;
  cancel.hidden = false;
  status.textContent = t("meet.seeking", { game: rulesetTitle(wanted.ruleset), count: wanted.players });
  cancel.onclick = async () => {
    try {
      await call(`/seeks/${posted.id}`, { token, method: "DELETE" });
      done(t("meet.cancelled"));
    } catch (error) {
      if (error.slug !== "seek-not-waiting") status.textContent = problemWords(error);
    }
  };
  const look = async () => {
    try {
      const now = await call(`/seeks/${posted.id}`, { token });
      if (now.status === "matched") {
        done(t("meet.matched"));
        location.assign(seatLink(now.game_id, now.seat, me ? null : posted.secret));
      } else if (now.status !== "waiting") done(t(now.status === "expired" ? "meet.expired" : "meet.cancelled"));
    } catch (error) {
      status.textContent = problemWords(error);
    }
  };
  if (me) unlisten = listen(me.key, posted.id, look);
  timer = setInterval(look, POLL_MS);
  look();
}

/** The seats kept for the signed-in player at gathering tables (GET /me's invitations), with
 * who sits at each as the table stands. */
async function invitations(me) {
  const offered = ((await call("/me", { token: me.key })).invitations || []).map((i) => i.game_id);
  const views = await Promise.all(offered.map((id) => call(`/games/${id}`, { token: me.key }).catch(() => null)));
  return views.filter(Boolean).flatMap((view) => view.seats
    .filter((s) => s.invite === me.handle)
    .map((s) => ({ id: view.game_id, seat: s.seat, ruleset: view.ruleset, names: view.seats.filter((o) => !o.open && !o.invite).map((o) => o.name) })));
}

/** An invitation: the game, who sits there, accept (join its seat) and decline. */
function invitationItem(me, invited, message, refresh) {
  const accept = element("button", { type: "button", className: "primary", "data-accept": invited.id, text: t("meet.accept") });
  const decline = element("button", { type: "button", "data-decline": invited.id, text: t("meet.decline") });
  accept.onclick = () => join(invited.id, message, invited.seat);
  decline.onclick = async () => {
    try {
      await call(`/games/${invited.id}/decline`, { token: me.key, method: "POST" });
      message.textContent = t("meet.declined");
      refresh();
    } catch (error) {
      message.textContent = problemWords(error);
    }
  };
  return element("li", { "data-invitation": invited.id },
    element("span", { text: t("meet.invitation", { game: rulesetTitle(invited.ruleset), names: (invited.names || []).join(", ") || "—" }) }),
    " ", element("span", { className: "actions" }, accept, decline));
}

/** The invitations waiting for the player signed in here (none for a guest), read again every
 * few seconds; the function that reads them again. */
export function invitationsSection(part) {
  const list = element("ul", { className: "games", id: "invitations-list" });
  const message = element("p", { className: "message", id: "invitations-message", role: "alert" });
  part.append(list, message);
  const refresh = async () => {
    const me = signedIn();
    part.hidden = !me;
    if (!me) return;
    try {
      const found = await invitations(me);
      list.replaceChildren(...found.map((i) => invitationItem(me, i, message, refresh)));
      if (!found.length) list.append(element("li", { text: t("meet.noInvitations") }));
      list.dataset.loaded = "true";
    } catch (error) {
      message.textContent = problemWords(error);
    }
  };
  refresh();
  setInterval(refresh, 5000);
  return refresh;
}
