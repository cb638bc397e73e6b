// A tournament's page: standings, every round's tables (seats by name, each linking to its
// game's viewer) and, with a token in the URL fragment (`#token=...&as=director|player`,
// kept in sessionStorage and taken out of the address bar), the director's button to pair
// the next round or a player's link to their current table. A registered player of the
// tournament has no token: the page reads their table with the key of the player signed in in
// this browser (player.js), and their table's link carries no secret either. It reads the
// tournament again every few seconds while it runs (a round's results are recorded when it is
// read).

import { call } from "./api.js";
import { $, element } from "./dom.js";
import { loadLanguage, t } from "./i18n.js";
import { signedIn } from "./player.js";
import { names, problemText, rulesetName } from "./words.js";

const id = location.pathname.split("/")[2];
const POLL_MS = 4000;

/** The caller's token and role: from the fragment (then kept for this tab), else as kept. */
function caller() {
  const key = `tabula:tournament:${id}`;
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (fragment.get("token")) {
    sessionStorage.setItem(key, JSON.stringify({ token: fragment.get("token"), as: fragment.get("as") }));
    history.replaceState(null, "", location.pathname + location.search);
  }
  const kept = JSON.parse(sessionStorage.getItem(key) || "{}");
  return { token: kept.token || null, as: kept.as === "director" ? "director" : kept.token ? "player" : null };
}

const me = caller();
let shown = ""; // what the page shows, to draw again only on a change
let timer = null;

function summary(tour) {
  return t("tournamentPage.summary", {
    ruleset: rulesetName(tour.ruleset), format: tour.format, players: tour.players.length,
    seats: tour.seats_per_table, round: tour.rounds.length, rounds: tour.round_count, status: tour.status,
  });
}

function standingsRows(rows) {
  $("standings").tBodies[0].replaceChildren(...rows.map((r) => element("tr", { "data-player": r.name },
    element("td", { text: String(r.rank) }),
    element("th", { scope: "row", text: r.withdrawn ? t("tournamentPage.withdrawn", { name: r.name }) : r.name }),
    ...[r.points, r.games, r.wins, r.byes, r.pieces_home, r.opponents_points].map((n) => element("td", { text: String(n) })))));
}

function result(table) {
  if (table.status !== "finished") return t("tournamentPage.inPlay");
  const points = table.seats.map((name) => t("tournamentPage.seatPoints", { name, count: table.points[name] ?? 0 })).join(", ");
  const won = names(table.winners);
  return won ? t("tournamentPage.result", { names: won, count: table.winners.length, points }) : t("tournamentPage.noWinner", { points });
}

function tableItem(round, table) {
  return element("li", { className: "tournament-table", "data-table": table.table },
    element("h4", { text: t("tournamentPage.table", { table: table.table }) }),
    element("ol", { className: "table-seats", "aria-label": t("tournamentPage.seatsInOrder", { round: round.round, table: table.table }) },
      ...table.seats.map((name) => element("li", { text: name }))),
    element("p", { className: "hint", text: result(table) }),
    element("a", { href: `/games/${table.game_id}/view`, "aria-label": t("tournamentPage.watchLabel", { round: round.round, table: table.table }), text: t("tournamentPage.watch") }));
}

function roundsPart(rounds) {
  const parts = [...rounds].reverse().map((round) => element("section", { className: "round", "aria-labelledby": `round-${round.round}` },
    element("h3", { id: `round-${round.round}`, tabindex: -1, text: t("tournamentPage.round", { round: round.round, closed: round.closed ? "yes" : "no" }) }),
    element("ul", { className: "tournament-tables" }, ...round.tables.map((table) => tableItem(round, table))),
    round.byes.length ? element("p", { text: t("tournamentPage.byesList", { names: names(round.byes), count: round.byes.length }) }) : ""));
  $("rounds").replaceChildren(...(parts.length ? parts : [element("p", { text: t("tournamentPage.noRound") })]));
}

function directorPart(tour) {
  $("director").hidden = me.as !== "director";
  const current = tour.rounds[tour.rounds.length - 1];
  const open = current && !current.closed;
  const done = tour.rounds.length >= tour.round_count;
  $("pair-round").disabled = Boolean(open || done);
  $("pair-round").dataset.version = tour.version;
  if (done && !open) $("pair-status").textContent = t("tournamentPage.allPaired");
  else if (open) {
    const finished = current.tables.filter((x) => x.status === "finished").length;
    $("pair-status").textContent = t("tournamentPage.roundInPlay", { round: current.round, finished, count: current.tables.length });
  } else $("pair-status").textContent = t("tournamentPage.canPair", { round: tour.rounds.length + 1 });
}

/** Without a token, the player signed in here is this tournament's player when it lists
 * their handle as a registered player's. */
function asPlayer(tour) {
  const player = signedIn();
  if (me.token || !player) return;
  if (tour.players.some((p) => p.player && p.name === player.handle)) Object.assign(me, { token: player.key, as: "player" });
}

async function playerPart() {
  if (me.as !== "player") return;
  $("you").hidden = false;
  const mine = await call(`/tournaments/${id}/me`, { token: me.token });
  const line = $("my-table");
  if (!mine.round) line.replaceChildren(t("tournamentPage.meNoRound", { name: mine.name }));
  else if (mine.bye) line.replaceChildren(t("tournamentPage.meBye", { name: mine.name, round: mine.round }));
  else if (mine.game_id) {
    const token = mine.seat_token ? `token=${encodeURIComponent(mine.seat_token)}&` : ""; // none for a registered player
    const url = `/games/${mine.game_id}/play#${token}seat=${mine.seat}`;
    const where = { name: mine.name, round: mine.round, table: mine.table, seat: mine.seat + 1 };
    line.replaceChildren(`${t("tournamentPage.meTable", where)} `,
      element("a", { href: url, id: "my-table-link", text: mine.game_status === "finished" ? t("tournamentPage.seeGame") : t("tournamentPage.playTable") }));
  } else line.replaceChildren(t("tournamentPage.meUnpaired", { name: mine.name, withdrawn: mine.withdrawn ? "yes" : "no" }));
}

async function refresh() {
  clearTimeout(timer);
  try {
    const [tour, standings] = await Promise.all([call(`/tournaments/${id}`), call(`/tournaments/${id}/standings`)]);
    const now = JSON.stringify([tour, standings]);
    if (now !== shown) {
      shown = now;
      document.title = t("tournamentPage.documentTitle", { name: tour.name });
      $("title").textContent = tour.name;
      $("summary").textContent = summary(tour);
      asPlayer(tour);
      standingsRows(standings.standings);
      roundsPart(tour.rounds);
      directorPart(tour);
      await playerPart();
    }
    $("message").textContent = "";
    $("refresh").textContent = tour.status === "finished" ? t("tournamentPage.finished") : t("tournamentPage.polling", { count: POLL_MS / 1000 });
    if (tour.status !== "finished") timer = setTimeout(refresh, POLL_MS);
  } catch (error) {
    $("message").textContent = problemText(error);
    timer = setTimeout(refresh, POLL_MS);
  }
}

$("pair-round").onclick = async () => {
  const button = $("pair-round");
  button.disabled = true;
  try {
    const paired = await call(`/tournaments/${id}/rounds`, { token: me.token, body: { expected_version: Number(button.dataset.version) } });
    $("pair-status").textContent = t("tournamentPage.paired", { round: paired.round.round, count: paired.round.tables.length });
  } catch (error) {
    $("message").textContent = error.status === 409 ? t("tournamentPage.conflict", { problem: problemText(error) }) : problemText(error);
  }
  shown = "";
  await refresh();
  document.querySelector("#rounds h3")?.focus(); // the latest round, drawn first
};

loadLanguage().then(refresh);
