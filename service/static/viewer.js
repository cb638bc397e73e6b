// The viewer: steps through a game's log (buttons, keys, slider, the event list) and follows a
// live game. Seats are named, and the turn and pending card or dice are said for the event shown.

import { boardSvg, call, follow } from "./api.js";
import { showBoard } from "./board.js";
import { chart, explain, legend, mark, summary, table } from "./chart.js";
import { renderSeats } from "./table.js";
import { tell } from "./account.js";
import { loadLanguage, t } from "./i18n.js";
import { linkTournament, renderTeams } from "./teams.js";
import { names, pendingChance, rulesetName, whoseTurn } from "./words.js";

const gameId = location.pathname.split("/")[2];
const events = []; // every event seen, in version order
let seats = [];
let shown = 0; // the version on the board
let following = true; // whether the board follows the latest event
let drawing = 0; // the number of the latest board request (older replies are dropped)
let finished = false;
let analysis = null; // the game's analysis, once read
let analysed = []; // the seats the analysis is drawn for
let drawnWidth = 0; // the width the chart is drawn at
const lastChance = new Map(); // each seat's last card or dice, for the words of a pass

const $ = (id) => document.getElementById(id);
const latest = () => (events.length ? events[events.length - 1].version : 1);

function addEvent(event) {
  if (events.length && event.version <= latest()) return;
  events.push(event);
  const item = document.createElement("li");
  item.value = event.version;
  item.dataset.version = event.version;
  item.dataset.type = event.type;
  item.tabIndex = -1;
  item.textContent = tell(event, seats, lastChance).text;
  if (event.type === "CardDrawn") lastChance.set(event.data.seat, { card: event.data.card });
  if (event.type === "DiceRolled") lastChance.set(event.data.seat, { dice: event.data.dice });
  item.onclick = () => show(event.version);
  $("moves").append(item);
  if (event.type === "MoveUndone") markUndone(event.data.reverts);
  if (event.type === "GameFinished") finished = true;
}

function markUndone(reverts) {
  for (const item of $("moves").children) {
    if (+item.dataset.version >= reverts) item.classList.add("undone");
  }
  $("moves").lastElementChild.classList.remove("undone");
}

async function show(version) {
  shown = Math.max(1, Math.min(version, latest()));
  following = shown === latest();
  $("slider").max = latest();
  $("slider").value = shown;
  $("status").textContent = t("viewer.status", { move: shown, last: latest(), finished: finished ? "yes" : "no" });
  for (const item of $("moves").children) {
    item.classList.toggle("current", +item.dataset.version === shown);
  }
  $("moves").querySelector(".current")?.scrollIntoView({ block: "nearest" });
  if (analysis) {
    mark($("chart").firstElementChild, analysis, shown);
    explain($("chart-note"), analysis, analysed, shown);
  }
  const ticket = ++drawing;
  const [svg, state] = await Promise.all([
    boardSvg(gameId, shown),
    call(`/games/${gameId}/state?at=${shown}`),
  ]);
  if (ticket !== drawing) return;
  showBoard($("board"), svg);
  renderSeats($("seats"), state);
  renderTeams($("teams"), state);
  $("turn").textContent = whoseTurn(state).join(" ");
  $("chance").textContent = pendingChance(state);
  $("board").dataset.version = shown;
}

async function loadLog() {
  for (;;) {
    const page = await call(`/games/${gameId}/events?after=${events.length ? latest() : 0}`);
    page.events.forEach(addEvent);
    if (!page.events.length || latest() >= page.version) return;
  }
}

function receive(event) {
  const wasFollowing = following;
  addEvent(event);
  if (event.type === "GameFinished" && !analysis) loadAnalysis();
  if (wasFollowing) show(latest());
  else $("slider").max = latest();
}

$("first").onclick = () => show(1);
$("prev").onclick = () => show(shown - 1);
$("next").onclick = () => show(shown + 1);
$("last").onclick = () => show(latest());
$("slider").oninput = () => show(+$("slider").value);
document.onkeydown = (key) => {
  if (key.target instanceof HTMLInputElement) return;
  const to = { ArrowLeft: shown - 1, ArrowRight: shown + 1, Home: 1, End: latest() }[key.key];
  if (to !== undefined) show(to);
};

/** Read the analysis (asking again while it is computed) and show it under the board: only for
 * a finished game, which is everyone's to analyse. */
async function loadAnalysis() {
  $("analysis").hidden = false;
  let found;
  for (;;) {
    try {
      found = await call(`/games/${gameId}/analysis`);
    } catch (error) {
      const why = error.slug ? t(`problem.${error.slug}`) : error.message;
      $("analysis-status").textContent = t("analysis.unavailable", { why });
      return;
    }
    if (found.status !== "running") break;
    $("analysis-status").textContent = t("analysis.working", { done: found.done, total: found.total });
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const state = await call(`/games/${gameId}`);
  $("analysis-status").textContent = "";
  analysed = state.seats;
  $("chart-key").replaceChildren(legend(analysed));
  $("analysis-seats").replaceChildren(summary(found, analysed));
  analysis = found; // only now: show() marks the chart once it is drawn
  drawChart();
  new ResizeObserver(() => $("chart").clientWidth !== drawnWidth && drawChart()).observe($("chart"));
  $("analysis").dataset.ready = "true";
  if (location.hash === "#analysis") $("analysis").scrollIntoView();
}

/** Draw the chart at the width it has now (one unit a CSS pixel), marked at the version shown. */
function drawChart() {
  drawnWidth = $("chart").clientWidth;
  $("chart").replaceChildren(chart(analysis, analysed, show, drawnWidth), table(analysis, analysed));
  mark($("chart").firstElementChild, analysis, shown);
  explain($("chart-note"), analysis, analysed, shown);
}

(async () => {
  await loadLanguage();
  const game = await call(`/games/${gameId}`);
  seats = game.seats;
  const title = { ruleset: rulesetName(game.ruleset), names: names(seats.map((s) => s.name)) };
  $("title").textContent = t("viewer.title", title);
  document.title = t("viewer.documentTitle", title);
  await loadLog();
  linkTournament($("tournament-link"), events);
  await show(latest());
  if (finished) await loadAnalysis();
  else follow(gameId, latest(), receive, { done: () => finished });
})();
