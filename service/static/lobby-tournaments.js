// The lobby's tournaments: a form to create one (then the director's link and one per
// player, each token in the URL fragment, as a game's seat links) and the tournaments to
// follow. The rule set's options keep their defaults here (the API takes any).

import { call } from "./api.js";
import { $, element, tournamentLink } from "./dom.js";

const NAMES = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal"];

function field(id, label, control) {
  return element("label", { for: id }, element("span", { text: label }), control);
}

function form(all) {
  const made = element("form", { className: "create", id: "tournament-form", novalidate: true });
  made.append(
    field("t-name", "Name", element("input", { type: "text", id: "t-name", name: "name", maxlength: 200, value: "Club night", required: true })),
    field("t-ruleset", "Rule set", element("select", { id: "t-ruleset", name: "ruleset" },
      ...all.map((r) => element("option", { value: r.name, text: r.name })))),
    field("t-format", "Format", element("select", { id: "t-format", name: "format" },
      element("option", { value: "swiss", text: "Swiss: equal scores meet" }),
      element("option", { value: "round-robin", text: "round-robin: everyone meets everyone" }))),
    field("t-rounds", "Rounds (empty: enough for everyone to meet)", element("input", { type: "number", id: "t-rounds", name: "rounds", min: 1, max: 100 })),
    field("t-seats", "Seats per table", element("input", { type: "number", id: "t-seats", name: "seats", min: 2, max: 6, value: 4 })),
    field("t-players", "Players, one name a line", element("textarea", { id: "t-players", name: "players", rows: 6, text: NAMES.join("\n") })),
    element("button", { type: "submit", className: "primary", id: "create-tournament", text: "Create the tournament" }),
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

function body(made) {
  const rounds = made.elements.rounds.value;
  return {
    name: made.elements.name.value.trim(),
    ruleset: made.elements.ruleset.value,
    format: made.elements.format.value,
    ...(rounds ? { rounds: Number(rounds) } : {}),
    seats_per_table: Number(made.elements.seats.value),
    players: made.elements.players.value.split("\n").map((n) => n.trim()).filter(Boolean).map((name) => ({ name })),
  };
}

function links(created) {
  const link = (label, url, id) => element("div", {},
    element("a", { href: url, id, target: "_blank", rel: "noopener", text: label }),
    element("input", { type: "text", readonly: true, value: url, "aria-label": `${label}: link to copy` }));
  return element("div", { className: "links", id: "tournament-links" },
    element("p", { text: "Each link carries its holder's secret token after the #: the director's pairs the rounds; give each player only their own, which leads to their table every round." }),
    link("Director", tournamentLink(created.id, created.tokens.director, "director"), "tournament-director"),
    ...created.tokens.players.map((p, i) => link(`Player ${p.name}`, tournamentLink(created.id, p.token, "player"), `tournament-player-${i}`)),
    element("a", { href: tournamentLink(created.id), text: "Follow the tournament (standings, rounds, tables)" }));
}

function listing(part) {
  const list = element("ul", { className: "games", id: "tournaments-list" });
  part.append(element("h3", { text: "Tournaments to follow" }), list);
  return async () => {
    const found = (await call("/tournaments")).tournaments.slice(-50).reverse();
    list.replaceChildren(...found.map((t) => element("li", {},
      element("a", { href: tournamentLink(t.id), text: t.name }),
      element("span", { className: "hint", text: ` (${t.ruleset}, ${t.format}, ${t.players} players, round ${t.rounds_paired} of ${t.round_count}, ${t.status})` }))));
    if (!found.length) list.append(element("li", { text: "No tournament yet." }));
  };
}

/** Fill the lobby's `part` with the tournament form and the tournaments listed. */
export function tournamentsSection(part, all) {
  const made = form(all);
  part.append(made);
  const refresh = listing(part);
  made.onsubmit = async (submit) => {
    submit.preventDefault();
    $("tournament-message").textContent = "";
    try {
      const created = await call("/tournaments", { body: body(made) });
      $("tournament-links")?.remove();
      made.after(links(created));
      $("tournament-director").focus();
      refresh();
    } catch (error) {
      $("tournament-message").textContent = error.message;
    }
  };
  refresh();
}
