// The lobby's tournaments: a form to create one (then the director's link and one per
// player, each token in the URL fragment, as a game's seat links) and the tournaments to
// follow. The player signed in here may enter it by handle (`{"player": handle}`): their link
// carries no token (the tournament page and their tables use the key kept in this browser).
// The rule set's options keep their defaults here (the API takes any).

import { call } from "./api.js";
import { $, element, tournamentLink } from "./dom.js";
import { t } from "./i18n.js";
import { problemWords, rulesetTitle } from "./lobby-words.js";
import { signedIn } from "./player.js";

const NAMES = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal"];

function field(id, label, control) {
  return element("label", { for: id }, element("span", { text: label }), control);
}

function form(all) {
  const made = element("form", { className: "create", id: "tournament-form", novalidate: true });
  made.append(
    field("t-name", t("tournament.name"), element("input", { type: "text", id: "t-name", name: "name", maxlength: 200, value: t("tournament.nameDefault"), required: true })),
    field("t-ruleset", t("lobby.ruleset"), element("select", { id: "t-ruleset", name: "ruleset" },
      ...all.map((r) => element("option", { value: r.name, text: rulesetTitle(r.name) })))),
    field("t-format", t("tournament.format"), element("select", { id: "t-format", name: "format" },
      element("option", { value: "swiss", text: t("tournament.swiss") }),
      element("option", { value: "round-robin", text: t("tournament.roundRobin") }))),
    field("t-rounds", t("tournament.rounds"), element("input", { type: "number", id: "t-rounds", name: "rounds", min: 1, max: 100 })),
    field("t-seats", t("tournament.seats"), element("input", { type: "number", id: "t-seats", name: "seats", min: 2, max: 6, value: 4 })),
    field("t-players", t("tournament.players"), element("textarea", { id: "t-players", name: "players", rows: 6, text: NAMES.join("\n"), "aria-describedby": "t-players-help" })),
    element("p", { className: "hint", id: "t-players-help", text: t("tournament.playersHelp", { example: "Robin [expert]" }) }),
    element("div", { id: "t-me-box" }),
    element("button", { type: "submit", className: "primary", id: "create-tournament", text: t("tournament.create") }),
    element("p", { className: "message", id: "tournament-message", role: "alert" }));
  const seatsOf = () => {
    const ruleset = all.find((r) => r.name === made.elements.ruleset.value);
    const seats = made.elements.seats;
    seats.min = Math.max(ruleset.min_players, 2);
    seats.max = Math.min(ruleset.max_players, 6);
    seats.value = Math.min(Math.max(Number(seats.value) || 4, seats.min), seats.max);
  };
  made.elements.ruleset.onchange = seatsOf;
  seatsOf();
  return made;
}

/** A line of the players' list: a name, or a name and a bot level in brackets ("Robin [expert]"). */
export function player(line) {
  const bot = /^(.*?)\s*\[\s*([\w-]+)\s*\]$/.exec(line);
  return bot ? { name: bot[1], bot: bot[2] } : { name: line };
}

/** The player signed in here, offered a place in the tournament (by handle), or nothing. */
function entryField(made) {
  const me = signedIn();
  made.querySelector("#t-me-box").replaceChildren(...(me ? [element("label", { className: "check", for: "t-me" },
    element("input", { type: "checkbox", id: "t-me", name: "me", checked: true }),
    element("span", { text: t("tournament.me", { handle: me.handle }) }))] : []));
}

function body(made) {
  const rounds = made.elements.rounds.value;
  const me = signedIn();
  const entered = me && made.elements.me?.checked ? [{ player: me.handle }] : [];
  return {
    name: made.elements.name.value.trim(),
    ruleset: made.elements.ruleset.value,
    format: made.elements.format.value,
    ...(rounds ? { rounds: Number(rounds) } : {}),
    seats_per_table: Number(made.elements.seats.value),
    players: [...entered, ...made.elements.players.value.split("\n").map((n) => n.trim()).filter(Boolean).map(player)],
  };
}

function links(created, bots) {
  const link = (label, url, id) => element("div", {},
    element("a", { href: url, id, target: "_blank", rel: "noopener", text: label }),
    element("input", { type: "text", readonly: true, value: url, "aria-label": t("lobby.copy", { label }) }));
  return element("div", { className: "links", id: "tournament-links" },
    element("p", { text: t("tournament.linksHelp") }),
    link(t("tournament.director"), tournamentLink(created.id, created.tokens.director, "director"), "tournament-director"),
    ...created.tokens.players.filter((p) => !bots.has(p.name)).map((p, i) => link(t("tournament.player", { name: p.name }), tournamentLink(created.id, p.token, p.token && "player"), `tournament-player-${i}`)),
    element("a", { href: tournamentLink(created.id), text: t("tournament.follow") }));
}

function listing(part) {
  const list = element("ul", { className: "games", id: "tournaments-list" });
  part.append(element("h3", { text: t("tournament.list") }), list);
  return async () => {
    const found = (await call("/tournaments")).tournaments.slice(-50).reverse();
    list.replaceChildren(...found.map((one) => element("li", {},
      element("a", { href: tournamentLink(one.id), text: one.name }),
      element("span", { className: "hint", text: ` ${t("tournament.entry", { game: rulesetTitle(one.ruleset), format: one.format, count: one.players, round: one.rounds_paired, rounds: one.round_count, status: one.status })}` }))));
    if (!found.length) list.append(element("li", { text: t("tournament.none") }));
  };
}

/** Fill the lobby's `part` with the tournament form and the tournaments listed; the function
 * returned offers the player signed in here a place again (after a sign-in or out). */
export function tournamentsSection(part, all) {
  const made = form(all);
  part.append(made);
  entryField(made);
  const refresh = listing(part);
  made.onsubmit = async (submit) => {
    submit.preventDefault();
    $("tournament-message").textContent = "";
    try {
      const asked = body(made);
      const created = await call("/tournaments", { body: asked });
      $("tournament-links")?.remove();
      made.after(links(created, new Set(asked.players.filter((p) => p.bot).map((p) => p.name))));
      $("tournament-director").focus();
      refresh();
    } catch (error) {
      $("tournament-message").textContent = problemWords(error);
    }
  };
  refresh();
  return () => entryField(made);
}
