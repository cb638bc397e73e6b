// The play page's end banner: once a game is over, "rematch" for a seat (POST
// /games/{id}/rematch: the next table, the same people with the first player turned, where
// each who asks sits down), "play again" (a new game of the same rule set, options and seats,
// people and computers alike), the rule set's rules and the way back to the lobby. A seat's page goes straight to its own seat of the new game when it is the
// only person at the table; otherwise the banner lists each person's link to send on. A seat
// that belongs to a registered player belongs to them again, and its link carries no token
// (the player plays it with their own key).

import { call } from "./api.js";
import { element } from "./dom.js";
import { t } from "./i18n.js";
import { problemWords, rulesetTitle } from "./lobby-words.js";

const playLink = (id, token, seat) => `${location.origin}/games/${id}/play#${token ? `token=${encodeURIComponent(token)}&` : ""}seat=${seat}`;

/** The body of `POST /games` for the same game again; `players`: the seats that belong to
 * registered players (`GameCreated.players`). */
export function againBody(view, players = []) {
  const handles = new Map(players.map((p) => [p.seat, p.handle]));
  const seat = (s) => {
    if (handles.has(s.seat)) return { player: handles.get(s.seat) };
    return s.bot ? { name: s.name, bot: s.bot } : { name: s.name };
  };
  return {
    ruleset: view.ruleset,
    seats: view.seats.map(seat),
    options: view.options,
    chance: view.chance_mode,
  };
}

async function playAgain(view, me, banner) {
  const made = againBody(view, me.players);
  const said = banner.querySelector(".message");
  said.textContent = "";
  try {
    const created = await call("/games", { body: made });
    const people = made.seats.map((s, i) => i).filter((i) => !made.seats[i].bot);
    if (me.seat !== null && people.length === 1 && people[0] === me.seat) {
      location.assign(playLink(created.id, created.tokens.seats[me.seat], me.seat));
      return;
    }
    banner.querySelector(".links")?.remove();
    banner.append(element("div", { className: "links", id: "again-links" },
      element("p", { text: t("end.links") }),
      ...people.map((i) => element("a", { href: playLink(created.id, created.tokens.seats[i], i), id: `again-seat-${i}`, text: t("lobby.playAs", { name: made.seats[i].player ?? made.seats[i].name }) })),
      element("a", { href: playLink(created.id, created.tokens.referee, "referee"), id: "again-referee", text: t("lobby.referee") })));
  } catch (error) {
    said.textContent = problemWords(error);
  }
}

/** Sit down at the rematch of `view`'s game (the same table whoever of its seats asks first)
 * and open its play page. */
async function rematch(view, me, banner) {
  const said = banner.querySelector(".message");
  said.textContent = "";
  try {
    const next = await call(`/games/${view.game_id}/rematch`, { token: me.token, method: "POST" });
    if (next.seat === null || next.seat === undefined) {
      said.textContent = t("end.rematchGone");
      return;
    }
    location.assign(playLink(next.id, next.token, next.seat));
  } catch (error) {
    said.textContent = problemWords(error);
  }
}

/** Show (once) the end banner in `banner` when `view`'s game is over. */
export function showEnd(banner, view, me) {
  if (view.status !== "finished" || !banner.hidden) return;
  const title = rulesetTitle(view.ruleset);
  const again = element("button", { type: "button", className: "primary", id: "play-again", text: t("end.again") });
  again.onclick = () => playAgain(view, me, banner);
  const seated = me.token && !me.referee && me.seat !== null && "rematch" in view; // a seat, where rematches are offered
  const next = element("button", { type: "button", className: "primary", id: "rematch", text: t(view.rematch ? "end.rematchJoin" : "end.rematch") });
  next.onclick = () => rematch(view, me, banner);
  banner.replaceChildren(
    element("h2", { text: t("end.heading") }),
    element("div", { className: "actions" }, ...(seated ? [next] : []), again,
      element("a", { href: `/#rules-${view.ruleset}`, id: "rules-link", text: t("end.rules", { game: title }) }),
      element("a", { href: "/", id: "lobby-link", text: t("common.lobby") })),
    element("p", { className: "message", role: "alert" }));
  banner.hidden = false;
}
