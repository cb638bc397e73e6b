// The lobby: the rule sets, a form to create a game (then one link per seat and one for the
// referee, each carrying its token in the URL fragment), and the games in play to watch.
// Each part is a section made by one function in SECTIONS (tournaments: lobby-tournaments.js).

import { call } from "./api.js";
import { $, element } from "./dom.js";
import { tournamentsSection } from "./lobby-tournaments.js";

function section(id, title) {
  const part = element("section", { id, "aria-labelledby": `${id}-heading` });
  part.append(element("h2", { id: `${id}-heading`, text: title }));
  $("lobby").append(part);
  return part;
}

/** The first paragraph of a rule set's rules (markdown), as plain text. */
function summary(rules) {
  const paragraphs = rules.split(/\n\s*\n/).map((p) => p.trim()).filter((p) => p && !p.startsWith("#"));
  const text = (paragraphs[0] || "").replace(/\s+/g, " ").replace(/[*`]/g, "");
  return text.split(/(?<=\.) /).filter((s) => !/domain\/|\.md\b/.test(s)).join(" ");
}

async function rulesets() {
  const list = (await call("/rulesets")).rulesets;
  return Promise.all(list.map((r) => call(`/rulesets/${r.name}`)));
}

function rulesetsSection(all) {
  const part = section("rulesets", "Rule sets");
  part.append(element("ul", { className: "rulesets" }, ...all.map((r) => element("li", { "data-ruleset": r.name },
    element("strong", { text: r.name }),
    element("span", { className: "players", text: ` (${r.min_players}-${r.max_players} players)` }),
    element("p", { text: summary(r.rules) })))));
}

/** An input for one option from its JSON Schema, or null when it has no simple form
 * (an object such as race35's special squares keeps its default). */
function optionField(name, schema) {
  const id = `option-${name}`;
  const label = (control) => element("label", { for: id }, element("span", { text: name }), control,
    element("span", { className: "hint", text: schema.description || "" }));
  if (schema.enum) {
    return label(element("select", { id, name },
      ...schema.enum.map((v) => element("option", { value: JSON.stringify(v), selected: v === schema.default, text: String(v) }))));
  }
  if (schema.type === "boolean") {
    const box = element("input", { type: "checkbox", id, name, checked: schema.default === true });
    return element("label", { className: "check", for: id }, box, element("span", { text: `${name}: ${schema.description || ""}` }));
  }
  if (schema.type === "integer" || schema.type === "number") {
    return label(element("input", { type: "number", id, name, value: schema.default, min: schema.minimum, max: schema.maximum, step: schema.type === "integer" ? 1 : "any" }));
  }
  return null;
}

function optionValue(control) {
  if (control.type === "checkbox") return control.checked;
  if (control.type === "number") return Number(control.value);
  return JSON.parse(control.value);
}

function seatFields(form, ruleset) {
  const count = Number(form.elements.players.value);
  const names = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay"];
  const seats = form.querySelector("#seats");
  const kept = [...seats.querySelectorAll("input")].map((i) => i.value);
  seats.replaceChildren(element("legend", { text: "Players, in seat order" }),
    ...Array.from({ length: count }, (_, i) => element("label", { for: `seat-${i}` },
      element("span", { text: `Seat ${i + 1} name` }),
      element("input", { type: "text", id: `seat-${i}`, name: `seat-${i}`, maxlength: 64, value: kept[i] ?? names[i] }))));
}

function optionFields(form, ruleset) {
  const fields = Object.entries(ruleset.options_schema.properties || {})
    .map(([name, schema]) => optionField(name, schema)).filter(Boolean);
  form.querySelector("#options").replaceChildren(element("legend", { text: `Options of ${ruleset.name}` }), ...fields);
}

function playersField(form, ruleset) {
  const select = form.elements.players;
  const was = Number(select.value) || 2;
  select.replaceChildren(...Array.from({ length: ruleset.max_players - ruleset.min_players + 1 }, (_, i) => {
    const n = ruleset.min_players + i;
    return element("option", { value: n, text: String(n), selected: n === Math.min(Math.max(was, ruleset.min_players), ruleset.max_players) });
  }));
}

function clockOf(form) {
  const perDecision = form.elements["clock-per-decision"].value;
  const total = form.elements["clock-total"].value;
  if (!perDecision && !total) return null;
  return {
    per_decision: perDecision ? Number(perDecision) : null,
    total: total ? Number(total) : null,
    on_timeout: form.elements["clock-on-timeout"].value,
  };
}

function body(form) {
  const count = Number(form.elements.players.value);
  const options = {};
  for (const control of form.querySelectorAll("#options input, #options select")) options[control.name] = optionValue(control);
  const made = {
    ruleset: form.elements.ruleset.value,
    seats: Array.from({ length: count }, (_, i) => ({ name: form.elements[`seat-${i}`].value.trim() })),
    options,
    chance: form.elements.chance.value,
  };
  const seed = form.elements.seed.value.trim();
  if (seed) made.seed = seed;
  const clock = clockOf(form);
  if (clock) made.clock = clock;
  return made;
}

function linksOf(created, seats) {
  const link = (label, token, seat, id) => {
    const url = `${location.origin}/games/${created.id}/play#token=${encodeURIComponent(token)}&seat=${seat}`;
    return element("div", {},
      element("a", { href: url, id, target: "_blank", rel: "noopener", text: label }),
      element("input", { type: "text", readonly: true, value: url, "aria-label": `${label}: link to copy` }));
  };
  return element("div", { className: "links", id: "links" },
    element("p", { text: "Each link carries its player's secret token after the #: give each player only their own. Open one here to play that seat." }),
    ...created.tokens.seats.map((token, i) => link(`Play as ${seats[i].name || `Player ${i + 1}`}`, token, i, `link-seat-${i}`)),
    link("Referee", created.tokens.referee, "referee", "link-referee"),
    element("a", { href: `/games/${created.id}/view`, text: "Watch in the viewer" }));
}

function createSection(all) {
  const part = section("create", "Create a game");
  const form = element("form", { className: "create", id: "create-form", novalidate: true });
  const byName = Object.fromEntries(all.map((r) => [r.name, r]));
  form.append(
    element("label", { for: "ruleset" }, element("span", { text: "Rule set" }),
      element("select", { id: "ruleset", name: "ruleset" }, ...all.map((r) => element("option", { value: r.name, text: r.name })))),
    element("label", { for: "players" }, element("span", { text: "Players" }), element("select", { id: "players", name: "players" })),
    element("fieldset", { id: "seats" }),
    element("fieldset", { id: "options" }),
    element("fieldset", {},
      element("legend", { text: "Chance and clock" }),
      element("label", { for: "chance" }, element("span", { text: "Cards and dice" }),
        element("select", { id: "chance", name: "chance" },
          element("option", { value: "server", text: "drawn and rolled by the server" }),
          element("option", { value: "external", text: "external: the referee posts each outcome" }))),
      element("label", { for: "seed" }, element("span", { text: "Seed (optional; empty: the server picks one)" }),
        element("input", { type: "text", id: "seed", name: "seed", maxlength: 200 })),
      element("label", { for: "clock-per-decision" }, element("span", { text: "Seconds per decision (empty: no limit)" }),
        element("input", { type: "number", id: "clock-per-decision", name: "clock-per-decision", min: 1 })),
      element("label", { for: "clock-total" }, element("span", { text: "Seconds per player for the whole game (empty: no limit)" }),
        element("input", { type: "number", id: "clock-total", name: "clock-total", min: 1 })),
      element("label", { for: "clock-on-timeout" }, element("span", { text: "When time runs out" }),
        element("select", { id: "clock-on-timeout", name: "clock-on-timeout" },
          ...["random_move", "pass", "forfeit"].map((v) => element("option", { value: v, text: v.replace("_", " ") }))))),
    element("button", { type: "submit", className: "primary", id: "create-game", text: "Create the game" }),
    element("p", { className: "message", id: "create-message", role: "alert" }));
  const chosen = () => byName[form.elements.ruleset.value];
  const setUp = () => {
    playersField(form, chosen());
    seatFields(form, chosen());
    optionFields(form, chosen());
  };
  form.elements.ruleset.onchange = setUp;
  form.elements.players.onchange = () => seatFields(form, chosen());
  form.onsubmit = async (submit) => {
    submit.preventDefault();
    $("create-message").textContent = "";
    const made = body(form);
    try {
      const created = await call("/games", { body: made });
      $("links")?.remove();
      part.append(linksOf(created, made.seats));
      $("link-seat-0").focus();
      refreshGames();
    } catch (error) {
      $("create-message").textContent = error.message;
    }
  };
  part.append(form);
  setUp();
}

let refreshGames = () => {};

function gamesSection() {
  const part = section("games", "Games in play");
  const list = element("ul", { className: "games", id: "games-list" });
  part.append(list);
  refreshGames = async () => {
    const games = (await call("/games?status=active")).games.slice(-50).reverse();
    list.replaceChildren(...games.map((g) => element("li", {},
      element("a", { href: `/games/${g.id}/view`, text: `${g.ruleset}: ${g.seats.join(", ")}` }),
      element("span", { className: "hint", text: ` (event ${g.version})` }))));
    if (!games.length) list.append(element("li", { text: "No game in play." }));
  };
  refreshGames();
}

/** The lobby's parts, in order; each takes the rule sets' details. */
const SECTIONS = [
  createSection,
  rulesetsSection,
  gamesSection,
  (all) => tournamentsSection(section("tournaments", "Tournaments"), all),
];

(async () => {
  const all = await rulesets();
  for (const make of SECTIONS) make(all);
})();
