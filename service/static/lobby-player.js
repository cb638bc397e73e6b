// The lobby's player: who plays from this browser. A guest picks a handle (POST /players: the
// reply's key, its only copy, is kept in this browser, see player.js) or signs in with a key
// copied from another device (checked with GET /me). A player sees the handle and their
// latest games, shows the key again to copy it to another device, signs out (the key is
// forgotten here, the handle stays theirs) or retires the handle (DELETE /me, once confirmed).
// The lobby's form then seats the player by handle.

import { call } from "./api.js";
import { $, element } from "./dom.js";
import { t } from "./i18n.js";
import { problemWords, rulesetTitle } from "./lobby-words.js";
import { PLAYER_KEY, signIn, signOut, signedIn } from "./player.js";

const GAMES_SHOWN = 10;
const KEY_FIELD = { autocomplete: "off", spellcheck: "false", autocapitalize: "off" };

/** Say `text` below the section: a refusal, or (`note`) news such as a welcome. */
function say(text, note = false) {
  $("player-message").textContent = text;
  $("player-message").classList.toggle("note", note);
}

/** A form of the section: a labelled field, a hint below it, and its button. */
function form(id, field, label, hint, button) {
  return element("form", { className: "create", id, novalidate: true },
    element("label", { for: field.id }, element("span", { text: label }), field),
    hint,
    button);
}

/** What a guest sees: the form to pick a handle and, folded, the one to sign in with a key. */
function guestParts(redraw) {
  const handle = element("input", { type: "text", id: "handle", minlength: 2, maxlength: 32, required: true, "aria-describedby": "handle-rules", ...KEY_FIELD });
  const pick = form("register-form", handle, t("player.handle"),
    element("p", { className: "hint", id: "handle-rules", text: t("player.handleRules") }),
    element("button", { type: "submit", className: "primary", id: "register", text: t("player.register") }));
  pick.oninput = () => handle.removeAttribute("aria-invalid");
  pick.onsubmit = (submit) => {
    submit.preventDefault();
    register(handle, redraw);
  };
  // The key's field has no name: were the form ever submitted, the key would not go with it.
  const key = element("input", { type: "password", id: "key-in", required: true, ...KEY_FIELD });
  const enter = form("sign-in-form", key, t("player.keyIn"), "",
    element("button", { type: "submit", id: "sign-in", text: t("player.signIn") }));
  enter.onsubmit = (submit) => {
    submit.preventDefault();
    enterKey(key, redraw);
  };
  return [
    element("p", { id: "guest", text: t("player.guest") }),
    pick,
    element("details", { id: "sign-in-box" }, element("summary", { text: t("player.haveKey") }), enter),
  ];
}

async function register(field, redraw) {
  say("");
  const wanted = field.value.trim();
  if (!wanted) {
    field.setAttribute("aria-invalid", "true");
    field.focus();
    say(t("player.noHandle"));
    return;
  }
  try {
    const made = await call("/players", { body: { handle: wanted } });
    signIn(made.handle, made.key);
    redraw({ fresh: true });
    say(t("player.registered", { handle: made.handle }), true);
  } catch (error) {
    field.setAttribute("aria-invalid", "true");
    field.focus();
    say(problemWords(error));
  }
}

async function enterKey(field, redraw) {
  say("");
  const key = field.value.trim();
  if (!key.startsWith(PLAYER_KEY)) {
    say(t("player.notAKey"));
    return;
  }
  try {
    const me = await call("/me", { token: key });
    field.value = "";
    signIn(me.handle, key);
    redraw({});
    say(t("player.welcome", { handle: me.handle }), true);
  } catch (error) {
    say(error.status === 401 || error.status === 403 ? t("player.keyRefused") : problemWords(error));
  }
}

/** The player's key, shown on request (at once after registering) to copy to another device. */
function keyBox(who, fresh) {
  const shown = element("input", { type: "text", id: "key-shown", readonly: true, "aria-label": t("player.keyLabel"), ...KEY_FIELD });
  const copy = element("button", { type: "button", id: "copy-key", text: t("player.copy") });
  const box = element("div", { className: "links", id: "key-box", hidden: true },
    element("p", { text: t("player.keyHelp", { handle: who.handle }) }), shown, copy);
  const toggle = element("button", { type: "button", id: "show-key", "aria-expanded": "false", "aria-controls": "key-box" });
  const show = (open) => {
    box.hidden = !open;
    shown.value = open ? who.key : ""; // on the page only while asked for
    toggle.setAttribute("aria-expanded", String(open));
    toggle.textContent = t(open ? "player.hideKey" : "player.showKey");
  };
  toggle.onclick = () => show(box.hidden);
  copy.onclick = () => {
    shown.select();
    navigator.clipboard.writeText(who.key).then(() => say(t("player.copied"), true), () => say(t("player.copyByHand")));
  };
  show(fresh);
  return [toggle, box];
}

/** The handle's retirement, behind a confirmation. */
function retirement(who, redraw) {
  const ask = element("button", { type: "button", id: "retire", "aria-expanded": "false", "aria-controls": "retire-confirm", text: t("player.retire") });
  const yes = element("button", { type: "button", className: "danger", id: "retire-yes", text: t("player.retireYes", { handle: who.handle }) });
  const no = element("button", { type: "button", id: "retire-no", text: t("player.retireNo") });
  const confirm = element("div", { id: "retire-confirm", className: "confirm", hidden: true },
    element("p", { text: t("player.retireWarning", { handle: who.handle }) }),
    element("div", { className: "actions" }, yes, no));
  const open = (shown) => {
    confirm.hidden = !shown;
    ask.setAttribute("aria-expanded", String(shown));
    (shown ? no : ask).focus();
  };
  ask.onclick = () => open(confirm.hidden);
  no.onclick = () => open(false);
  yes.onclick = async () => {
    try {
      await call("/me", { token: who.key, method: "DELETE" });
      signOut();
      redraw({});
      say(t("player.retired", { handle: who.handle }), true);
    } catch (error) {
      if (error.status === 401) return forgotten(redraw);
      say(problemWords(error));
    }
  };
  return [ask, confirm];
}

/** The key kept here no longer works (replaced or retired elsewhere): forget it. */
function forgotten(redraw) {
  signOut();
  redraw({});
  say(t("player.keyGone"));
}

/** What a player sees: the handle, the key on request, signing out, retiring, the games. */
function playerParts(who, fresh, redraw) {
  const out = element("button", { type: "button", id: "sign-out", text: t("player.signOut") });
  out.onclick = () => {
    signOut();
    redraw({});
    say(t("player.signedOut", { handle: who.handle }), true);
  };
  const [toggle, box] = keyBox(who, fresh);
  const [retire, confirm] = retirement(who, redraw);
  return [
    element("p", { id: "signed-in", "data-handle": who.handle, text: t("player.signedInAs", { handle: who.handle }) }),
    element("p", { className: "hint", text: t("player.seatHelp") }),
    element("div", { className: "actions" }, toggle, out, retire),
    box,
    confirm,
    element("h3", { text: t("player.games") }),
    element("ul", { className: "games", id: "my-games" }),
  ];
}

/** Check the key kept here (GET /me) and list the player's latest games. */
async function check(who, redraw) {
  try {
    const me = await call("/me", { token: who.key });
    if (me.handle !== who.handle) signIn(me.handle, who.key);
    const list = $("my-games");
    if (!list) return;
    list.replaceChildren(...me.games.slice(0, GAMES_SHOWN).map((g) => element("li", {},
      element("a", { href: `/games/${g.id}/${g.status === "active" ? "play" : "view"}`, text: t("lobby.game", { game: rulesetTitle(g.ruleset), names: g.seats.join(", ") }) }),
      element("span", { className: "hint", text: ` ${t(g.status === "active" ? "player.running" : "player.over")}` }))));
    if (!me.games.length) list.append(element("li", { text: t("player.noGames") }));
  } catch (error) {
    if (error.status === 401) forgotten(redraw);
    else say(problemWords(error));
  }
}

/**
 * Fill the lobby's `part` with the player signed in here (or a guest's way to become one);
 * `changed()` is called whenever someone signs in or out.
 */
export function playerSection(part, changed) {
  const body = element("div", { id: "player-body" });
  part.append(body, element("p", { className: "message", id: "player-message", role: "alert" }));
  const redraw = ({ fresh = false }) => {
    const who = signedIn();
    body.replaceChildren(...(who ? playerParts(who, fresh, redraw) : guestParts(redraw)));
    if (who) check(who, redraw);
    changed();
  };
  const who = signedIn();
  body.replaceChildren(...(who ? playerParts(who, false, redraw) : guestParts(redraw)));
  if (who) check(who, redraw);
}
