// The lobby: who plays from this browser (a guest, or a registered player: lobby-player.js),
// the rule sets (each with its board's picture, one line on what it is and its rules), then a
// form to create a game (each seat a person, the player signed in here, or a computer
// opponent; then one link per seat and one for the referee, each carrying its token in the URL
// fragment (the player's own seat's link carries none: the play page uses the key kept in this
// browser), or straight to the one person's play page), the games in play to watch and the
// tournaments. Each part is a section made by one function (tournaments: lobby-tournaments.js).

import { call } from "./api.js";
import { $, element } from "./dom.js";
import { language, loadLanguage, t } from "./i18n.js";
import { invitationsSection, openTablesSection, playNowSection } from "./lobby-meet.js";
import { playerSection } from "./lobby-player.js";
import { tournamentsSection } from "./lobby-tournaments.js";
import {
  botMeaning, botName, optionMeaning, optionName, optionValueName, problemWords, rulesElements, rulesetSummary, rulesetTitle,
} from "./lobby-words.js";
import { signedIn } from "./player.js";

const NAMES = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay"];
const PERSON = "";
const ME = ":me"; // the seat of the player signed in here (no bot level has a colon)
const OPEN = ":open"; // a seat left open, for anyone to join from the lobby
const INVITE = ":invite"; // a seat kept for the registered player its name field names
/** What happens to a seat whose time runs out (a computer level besides), and its words. */
const TIMEOUTS = { random_move: "lobby.timeout.random_move", pass: "lobby.timeout.pass", forfeit: "lobby.timeout.forfeit" };

function section(id, title, parent = $("lobby")) {
  const part = element("section", { id, "aria-labelledby": `${id}-heading` });
  part.append(element("h2", { id: `${id}-heading`, text: title }));
  parent.append(part);
  return part;
}

async function rulesets() {
  const list = (await call("/rulesets")).rulesets;
  return Promise.all(list.map((r) => call(`/rulesets/${r.name}`)));
}

/** A rule set's card: its board, name, player counts, one line, its rules and a button that
 * chooses it in the form. */
function rulesetCard(r) {
  const title = rulesetTitle(r.name);
  const rules = element("details", { className: "rules", id: `rules-${r.name}` },
    element("summary", { text: t("lobby.rules") }),
    element("div", { lang: "en" }, ...rulesElements(r.rules)));
  return element("li", { className: "ruleset", "data-ruleset": r.name },
    element("img", { src: `/rulesets/${r.name}/board.svg?lang=${language()}`, alt: t("lobby.picture", { game: title }), width: 600, height: 600 }),
    element("h3", { text: title }),
    element("p", { className: "players", text: t(r.min_players === r.max_players ? "lobby.playersExactly" : "lobby.players", { min: r.min_players, max: r.max_players, count: r.max_players }) }),
    element("p", { className: "summary", text: rulesetSummary(r) }),
    rules,
    element("button", { type: "button", className: "primary", "data-choose": r.name, text: t("lobby.choose", { game: title }) }));
}

function rulesetsSection(all) {
  const part = section("rulesets", t("lobby.rulesets"));
  const choose = (name) => {
    const select = $("ruleset");
    select.value = name;
    select.dispatchEvent(new Event("change"));
    $("create").scrollIntoView({ behavior: "smooth", block: "start" });
    $("seat-0").focus({ preventScroll: true });
  };
  const list = element("ul", { className: "rulesets" }, ...all.map(rulesetCard));
  for (const button of list.querySelectorAll("button[data-choose]")) button.onclick = () => choose(button.dataset.choose);
  part.append(list);
  const asked = /^#rules-(.+)$/.exec(location.hash);
  if (asked && $(`rules-${asked[1]}`)) {
    $(`rules-${asked[1]}`).open = true;
    $(`rules-${asked[1]}`).scrollIntoView();
  }
}

/** The options whose value is a seat: the form numbers seats from 1, as every page does, and
 * sends the wire's number (seat 1 is `0`). */
const SEAT_OPTIONS = new Set(["first_player", "first_dealer"]);

/** An input for one option from its JSON Schema, or null when it has no simple form
 * (an object such as race35's special squares keeps its default): its name in words, its
 * meaning, and its code name as a detail. */
function optionField(name, schema) {
  const id = `option-${name}`;
  const words = [
    element("span", { className: "hint", text: optionMeaning(name, schema) }),
    element("code", { className: "code-name", text: name }),
  ];
  if (schema.type === "boolean") {
    const box = element("input", { type: "checkbox", id, name, checked: schema.default === true });
    return element("label", { className: "check", for: id }, box,
      element("span", {}, element("span", { className: "option-name", text: optionName(name) }), ...words));
  }
  let control = null;
  if (schema.enum) {
    control = element("select", { id, name },
      ...schema.enum.map((v) => element("option", { value: JSON.stringify(v), selected: v === schema.default, text: optionValueName(name, v) })));
  } else if (SEAT_OPTIONS.has(name) && schema.type === "integer") {
    control = element("input", { type: "number", id, name, value: schema.default + 1, min: schema.minimum + 1, max: schema.maximum + 1, step: 1 });
    control.dataset.seat = "from 1";
  } else if (schema.type === "integer" || schema.type === "number") {
    control = element("input", { type: "number", id, name, value: schema.default, min: schema.minimum, max: schema.maximum, step: schema.type === "integer" ? 1 : "any" });
  }
  return control && element("label", { for: id }, element("span", { className: "option-name", text: optionName(name) }), control, ...words);
}

function optionValue(control) {
  if (control.type === "checkbox") return control.checked;
  if (control.type === "number") return Number(control.value) - (control.dataset.seat ? 1 : 0);
  return JSON.parse(control.value);
}

/** One seat: who plays it (a person, the player signed in here, `me`, or a computer at a level
 * that plays the rule set) and its name (the player's handle for their seat). */
function seatField(i, kept, bots, me) {
  const number = i + 1;
  const mine = me && kept.bot === ME;
  const who = element("select", { id: `seat-${i}-bot`, name: `seat-${i}-bot` },
    ...(me ? [element("option", { value: ME, selected: mine, text: t("lobby.you", { handle: me.handle }) })] : []),
    element("option", { value: PERSON, selected: !mine && !kept.bot, text: t("lobby.person") }),
    ...bots.map((b) => element("option", { value: b.name, selected: b.name === kept.bot, text: t("lobby.computer", { level: botName(b) }) })),
    element("option", { value: OPEN, selected: kept.bot === OPEN, text: t("lobby.openSeat") }),
    element("option", { value: INVITE, selected: kept.bot === INVITE, text: t("lobby.invite") }));
  const name = element("input", { type: "text", id: `seat-${i}`, name: `seat-${i}`, maxlength: 64, value: kept.name ?? NAMES[i], required: true });
  const meaning = element("span", { className: "hint", id: `seat-${i}-meaning` });
  const explain = () => {
    const bot = bots.find((b) => b.name === who.value);
    const said = { [ME]: "lobby.youMeaning", [OPEN]: "lobby.openMeaning", [INVITE]: "lobby.inviteMeaning" }[who.value];
    meaning.textContent = bot ? botMeaning(bot) : said ? t(said) : "";
    if (who.value === ME) name.value = me.handle;
    else if (name.readOnly) name.value = NAMES[i];
    name.readOnly = who.value === ME || who.value === OPEN;
  };
  who.onchange = () => {
    if (who.value === ME) mineOnly(who);
    explain();
  };
  explain();
  return element("div", { className: "seat-row" },
    element("label", { for: `seat-${i}` }, element("span", { text: t("lobby.seatName", { number }) }), name),
    element("label", { for: `seat-${i}-bot` }, element("span", { text: t("lobby.seatWho", { number }) }), who, meaning));
}

/** The player sits at one seat only: choosing it for `chosen` makes any other a person's. */
function mineOnly(chosen) {
  for (const other of chosen.form.querySelectorAll("#seats select")) {
    if (other !== chosen && other.value === ME) {
      other.value = PERSON;
      other.dispatchEvent(new Event("change"));
    }
  }
}

/** The seats' fields, each keeping what it held; the player signed in here sits at the first
 * person's seat unless they sit at another already. */
function seatFields(form, ruleset, bots) {
  const count = Number(form.elements.players.value);
  const seats = form.querySelector("#seats");
  const kept = [...seats.querySelectorAll(".seat-row")].map((row) => ({
    name: row.querySelector("input").value, bot: row.querySelector("select").value,
  }));
  const me = signedIn();
  const wanted = Array.from({ length: count }, (_, i) => kept[i] || {});
  if (me && !wanted.some((k) => k.bot === ME)) {
    const first = wanted.find((k) => !k.bot);
    if (first) first.bot = ME;
  }
  const playing = bots.filter((b) => b.rulesets.includes(ruleset.name));
  seats.replaceChildren(element("legend", { text: t("lobby.seats") }),
    ...wanted.map((k, i) => seatField(i, me || k.bot !== ME ? k : { bot: PERSON }, playing, me)));
}

function optionFields(form, ruleset) {
  const fields = Object.entries(ruleset.options_schema.properties || {})
    .map(([name, schema]) => optionField(name, schema)).filter(Boolean);
  form.querySelector("#options").replaceChildren(element("legend", { text: t("lobby.options", { game: rulesetTitle(ruleset.name) }) }), ...fields);
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

function seatsOf(form) {
  const me = signedIn();
  return Array.from({ length: Number(form.elements.players.value) }, (_, i) => {
    const bot = form.elements[`seat-${i}-bot`].value;
    const name = form.elements[`seat-${i}`].value.trim();
    if (bot === ME && me) return { player: me.handle };
    if (bot === OPEN) return { open: true };
    if (bot === INVITE) return { invite: name };
    return bot === PERSON || bot === ME ? { name } : { name, bot };
  });
}

function body(form) {
  const options = {};
  for (const control of form.querySelectorAll("#options input, #options select")) options[control.name] = optionValue(control);
  const made = { ruleset: form.elements.ruleset.value, seats: seatsOf(form), options, chance: form.elements.chance.value };
  const seed = form.elements.seed.value.trim();
  if (seed) made.seed = seed;
  const clock = clockOf(form);
  if (clock) made.clock = clock;
  return made;
}

/** Where `created`'s seat `seat` (or the referee) plays: with its token in the fragment, or,
 * for a registered player's seat (no token), with none (the player's key stays in their
 * browser). */
export function playLink(created, token, seat) {
  const page = `${location.origin}/games/${created.id}/play`;
  return token ? `${page}#token=${encodeURIComponent(token)}&seat=${seat}` : `${page}#seat=${seat}`;
}

/** Whether a seat of a created game is a person's seated by its creator (not a computer, nor a
 * seat left open or kept for an invited player, who joins from her own lobby). */
function seatedHere(seat) {
  return !seat.bot && !seat.open && !seat.invite;
}

/** The links to a created game: one per person's seat, the referee's and the viewer. */
export function linksOf(created, seats) {
  const link = (label, token, seat, id) => {
    const url = playLink(created, token, seat);
    return element("div", {},
      element("a", { href: url, id, target: "_blank", rel: "noopener", text: label }),
      element("input", { type: "text", readonly: true, value: url, "aria-label": t("lobby.copy", { label }) }));
  };
  const people = created.tokens.seats.map((token, i) => [token, i]).filter(([, i]) => seatedHere(seats[i]));
  const players = seats.some((s) => s.player);
  return element("div", { className: "links", id: "links" },
    element("p", { text: t("lobby.linksHelp") }),
    ...(players ? [element("p", { text: t("lobby.linksPlayer") })] : []),
    ...people.map(([token, i]) => link(t("lobby.playAs", { name: seats[i].player ?? seats[i].name }), token, i, `link-seat-${i}`)),
    link(t("lobby.referee"), created.tokens.referee, "referee", "link-referee"),
    element("a", { href: `/games/${created.id}/view`, text: t("lobby.watch") }));
}

/** Why the form cannot be sent as it is (an empty name), or null. */
function refused(form) {
  const seats = seatsOf(form);
  const empty = seats.findIndex((s) => !s.name && !s.player && !s.open && !s.invite);
  if (empty >= 0) {
    form.elements[`seat-${empty}`].setAttribute("aria-invalid", "true");
    form.elements[`seat-${empty}`].focus();
    return t("lobby.error.emptyName", { number: empty + 1 });
  }
  return null;
}

function chanceAndClock(bots) {
  const field = (id, words, control) => element("label", { for: id }, element("span", { text: words }), control);
  const timeouts = [
    ...Object.entries(TIMEOUTS).map(([v, key]) => element("option", { value: v, text: t(key) })),
    ...bots.map((b) => element("option", { value: `bot:${b.name}`, text: t("lobby.timeout.bot", { level: botName(b) }) })),
  ];
  return element("fieldset", {},
    element("legend", { text: t("lobby.chanceClock") }),
    field("chance", t("lobby.chance"), element("select", { id: "chance", name: "chance" },
      element("option", { value: "server", text: t("lobby.chanceServer") }),
      element("option", { value: "external", text: t("lobby.chanceExternal") }))),
    field("seed", t("lobby.seed"), element("input", { type: "text", id: "seed", name: "seed", maxlength: 200 })),
    field("clock-per-decision", t("lobby.perDecision"), element("input", { type: "number", id: "clock-per-decision", name: "clock-per-decision", min: 1 })),
    field("clock-total", t("lobby.total"), element("input", { type: "number", id: "clock-total", name: "clock-total", min: 1 })),
    field("clock-on-timeout", t("lobby.onTimeout"), element("select", { id: "clock-on-timeout", name: "clock-on-timeout" }, ...timeouts)));
}

async function create(form, part) {
  $("create-message").textContent = "";
  const why = refused(form);
  if (why) {
    $("create-message").textContent = why;
    return;
  }
  const made = body(form);
  try {
    const created = await call("/games", { body: made });
    const people = made.seats.map((s, i) => i).filter((i) => seatedHere(made.seats[i]));
    if (people.length === 1 && people.length < made.seats.length) { // one person here, the others the computer or to come: to the table
      location.assign(playLink(created, created.tokens.seats[people[0]], people[0]));
      return;
    }
    $("links")?.remove();
    part.append(linksOf(created, made.seats));
    (document.querySelector("#links a") || $("link-referee")).focus();
    refreshGames();
  } catch (error) {
    $("create-message").textContent = problemWords(error);
  }
}

function createSection(all, bots, parent) {
  const part = section("create", t("lobby.create"), parent);
  const form = element("form", { className: "create", id: "create-form", novalidate: true });
  const byName = Object.fromEntries(all.map((r) => [r.name, r]));
  form.append(
    element("label", { for: "ruleset" }, element("span", { text: t("lobby.ruleset") }),
      element("select", { id: "ruleset", name: "ruleset" }, ...all.map((r) => element("option", { value: r.name, text: rulesetTitle(r.name) })))),
    element("label", { for: "players" }, element("span", { text: t("lobby.playerCount") }), element("select", { id: "players", name: "players" })),
    element("fieldset", { id: "seats" }),
    element("fieldset", { id: "options" }),
    chanceAndClock(bots),
    element("button", { type: "submit", className: "primary", id: "create-game", text: t("lobby.createButton") }),
    element("p", { className: "message", id: "create-message", role: "alert" }));
  const chosen = () => byName[form.elements.ruleset.value];
  const setUp = () => {
    playersField(form, chosen());
    seatFields(form, chosen(), bots);
    optionFields(form, chosen());
  };
  form.elements.ruleset.onchange = setUp;
  form.elements.players.onchange = () => seatFields(form, chosen(), bots);
  refreshSeats = () => seatFields(form, chosen(), bots);
  form.oninput = (changed) => changed.target.removeAttribute("aria-invalid");
  form.onsubmit = (submit) => {
    submit.preventDefault();
    create(form, part);
  };
  part.append(form);
  setUp();
}

let refreshGames = () => {};
let refreshSeats = () => {}; // the form's seats again, after someone signs in or out
let refreshEntry = () => {}; // the tournament form's place for the player, likewise
let refreshInvitations = () => {}; // the invitations waiting for the player, likewise
let refreshTables = () => {}; // the open tables (a guest's name field is hidden for a player)

function gamesSection(all, bots, parent) {
  const part = section("games", t("lobby.games"), parent);
  const list = element("ul", { className: "games", id: "games-list" });
  part.append(list);
  refreshGames = async () => {
    const games = (await call("/games?status=active")).games.slice(-50).reverse();
    list.replaceChildren(...games.map((g) => element("li", {},
      element("a", { href: `/games/${g.id}/view`, text: t("lobby.game", { game: rulesetTitle(g.ruleset), names: g.seats.join(", ") }) }),
      element("span", { className: "hint", text: ` ${t("lobby.gameEvents", { count: g.version })}` }))));
    if (!games.length) list.append(element("li", { text: t("lobby.noGames") }));
  };
  refreshGames();
}

/** The lobby's parts below the rule sets, in two columns on a wide screen. */
function columns(all, bots) {
  const left = element("div", { className: "column" });
  const right = element("div", { className: "column" });
  $("lobby").append(element("div", { className: "lobby-columns" }, left, right));
  refreshInvitations = invitationsSection(section("invitations", t("meet.invitations"), left));
  refreshTables = openTablesSection(section("tables", t("meet.tables"), left));
  playNowSection(section("play-now-part", t("meet.playNowHeading"), left), all);
  createSection(all, bots, left);
  gamesSection(all, bots, right);
  refreshEntry = tournamentsSection(section("tournaments", t("lobby.tournaments"), right), all);
}

(async () => {
  await loadLanguage();
  const [all, bots] = await Promise.all([rulesets(), call("/bots").then((b) => b.bots)]);
  const player = section("player", t("player.heading"));
  player.className = "player";
  playerSection(player, () => {
    refreshSeats();
    refreshEntry();
    refreshInvitations();
    refreshTables();
  });
  rulesetsSection(all);
  columns(all, bots);
  document.body.dataset.ready = "true";
})();
