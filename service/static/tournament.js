// A tournament's page: standings, every round's tables (seats by name, each linking to its
// game's viewer) and, with a token in the URL fragment (`#token=...&as=director|player`,
// kept in sessionStorage and taken out of the address bar), the director's button to pair
// the next round or a player's link to their current table. It reads the tournament again
// every few seconds while it runs (a round's results are recorded when it is read).

import { call } from "./api.js";
import { $, element } from "./dom.js";

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

function summary(t) {
  const format = t.format === "swiss" ? "Swiss" : "round-robin";
  return `${t.ruleset}, ${format}, ${t.players.length} players at tables of ${t.seats_per_table}; `
    + `round ${t.rounds.length} of ${t.round_count}; ${t.status}.`;
}

function standingsRows(rows) {
  $("standings").tBodies[0].replaceChildren(...rows.map((r) => element("tr", { "data-player": r.name },
    element("td", { text: String(r.rank) }),
    element("th", { scope: "row", text: r.withdrawn ? `${r.name} (withdrawn)` : r.name }),
    ...[r.points, r.games, r.wins, r.byes, r.pieces_home, r.opponents_points].map((n) => element("td", { text: String(n) })))));
}

function result(table) {
  if (table.status !== "finished") return "in play";
  const points = table.seats.map((name) => `${name} ${table.points[name] ?? 0}`).join(", ");
  return `won by ${table.winners.join(" and ") || "nobody"}; points: ${points}`;
}

function tableItem(round, table) {
  return element("li", { className: "tournament-table", "data-table": table.table },
    element("h4", { text: `Table ${table.table}` }),
    element("ol", { className: "table-seats", "aria-label": `round ${round.round}, table ${table.table}: seats in order` },
      ...table.seats.map((name) => element("li", { text: name }))),
    element("p", { className: "hint", text: result(table) }),
    element("a", { href: `/games/${table.game_id}/view`, "aria-label": `Watch round ${round.round}, table ${table.table}`, text: "Watch this table" }));
}

function roundsPart(rounds) {
  const parts = [...rounds].reverse().map((round) => element("section", { className: "round", "aria-labelledby": `round-${round.round}` },
    element("h3", { id: `round-${round.round}`, tabindex: -1, text: `Round ${round.round}${round.closed ? " (closed)" : " (in play)"}` }),
    element("ul", { className: "tournament-tables" }, ...round.tables.map((t) => tableItem(round, t))),
    round.byes.length ? element("p", { text: `Sitting out (bye): ${round.byes.join(", ")}` }) : ""));
  $("rounds").replaceChildren(...(parts.length ? parts : [element("p", { text: "No round paired yet." })]));
}

function directorPart(t) {
  $("director").hidden = me.as !== "director";
  const current = t.rounds[t.rounds.length - 1];
  const open = current && !current.closed;
  const done = t.rounds.length >= t.round_count;
  $("pair-round").disabled = Boolean(open || done);
  $("pair-round").dataset.version = t.version;
  if (done && !open) $("pair-status").textContent = "Every round has been paired.";
  else if (open) {
    const finished = current.tables.filter((x) => x.status === "finished").length;
    $("pair-status").textContent = `Round ${current.round} is in play: ${finished} of ${current.tables.length} tables finished.`;
  } else $("pair-status").textContent = `Round ${t.rounds.length + 1} can be paired.`;
}

async function playerPart() {
  if (me.as !== "player") return;
  $("you").hidden = false;
  const mine = await call(`/tournaments/${id}/me`, { token: me.token });
  const line = $("my-table");
  if (!mine.round) line.replaceChildren(`${mine.name}: no round has been paired yet.`);
  else if (mine.bye) line.replaceChildren(`${mine.name}: you sit out round ${mine.round} (a bye).`);
  else if (mine.game_id) {
    const url = `/games/${mine.game_id}/play#token=${encodeURIComponent(mine.seat_token)}&seat=${mine.seat}`;
    line.replaceChildren(`${mine.name}, round ${mine.round}: table ${mine.table}, seat ${mine.seat + 1}. `,
      element("a", { href: url, id: "my-table-link", text: mine.game_status === "finished" ? "See your finished game" : "Play your table" }));
  } else line.replaceChildren(`${mine.name}: not paired this round${mine.withdrawn ? " (withdrawn)" : ""}.`);
}

async function refresh() {
  clearTimeout(timer);
  try {
    const [t, standings] = await Promise.all([call(`/tournaments/${id}`), call(`/tournaments/${id}/standings`)]);
    const now = JSON.stringify([t, standings]);
    if (now !== shown) {
      shown = now;
      document.title = `Tabula: ${t.name}`;
      $("title").textContent = t.name;
      $("summary").textContent = summary(t);
      standingsRows(standings.standings);
      roundsPart(t.rounds);
      directorPart(t);
      await playerPart();
    }
    $("message").textContent = "";
    $("refresh").textContent = t.status === "finished" ? "The tournament has finished." : `Read again every ${POLL_MS / 1000} seconds.`;
    if (t.status !== "finished") timer = setTimeout(refresh, POLL_MS);
  } catch (error) {
    $("message").textContent = error.message;
    timer = setTimeout(refresh, POLL_MS);
  }
}

$("pair-round").onclick = async () => {
  const button = $("pair-round");
  button.disabled = true;
  try {
    const paired = await call(`/tournaments/${id}/rounds`, { token: me.token, body: { expected_version: Number(button.dataset.version) } });
    $("pair-status").textContent = `Round ${paired.round.round} paired: ${paired.round.tables.length} tables.`;
  } catch (error) {
    $("message").textContent = error.status === 409 ? `${error.message}: shown again, try once more.` : error.message;
  }
  shown = "";
  await refresh();
  document.querySelector("#rounds h3")?.focus(); // the latest round, drawn first
};

refresh();
