// A game's analysis under the viewer's board: an SVG chart of every seat's chance of winning
// over the game (each seat's line in its colour, named at its end), the version shown marked,
// costly decisions marked on their seat's line, the same figures as a table for screen
// readers, and each seat's luck and skill. A click on the chart asks for the version there.

import { element } from "./dom.js";
import { language, t } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 800;
const HEIGHT = 260;
const LEFT = 44;
const RIGHT = 110;
const TOP = 12;
const BOTTOM = 28;
const COSTLY = new Set(["mistake", "blunder"]);

const percent = (chance) => new Intl.NumberFormat(language(), { style: "percent", maximumFractionDigits: 0 }).format(chance);
const points = (value, sign = false) => new Intl.NumberFormat(language(), { maximumFractionDigits: 1, signDisplay: sign ? "exceptZero" : "auto" }).format(value * 100);

function svg(tag, attributes = {}, text = null) {
  const made = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
  if (text !== null) made.textContent = text;
  return made;
}

/** The chart's scales for a game analysed up to `last`. */
function scales(last) {
  const span = Math.max(1, last - 1);
  return {
    x: (version) => LEFT + ((version - 1) / span) * (WIDTH - LEFT - RIGHT),
    y: (chance) => TOP + (1 - chance) * (HEIGHT - TOP - BOTTOM),
    version: (x) => Math.round(1 + ((x - LEFT) / (WIDTH - LEFT - RIGHT)) * span),
  };
}

/** The chart of `analysis` for `seats` (the state's seats: name and colour); `go(version)` is
 * called with the version a click lands on. */
export function chart(analysis, seats, go) {
  const last = analysis.version;
  const { x, y, version } = scales(last);
  const root = svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "chart", role: "img", "aria-label": t("analysis.chartLabel") });
  for (const chance of [0, 0.5, 1]) {
    root.append(svg("line", { x1: LEFT, x2: WIDTH - RIGHT, y1: y(chance), y2: y(chance), class: "grid" }));
    root.append(svg("text", { x: LEFT - 6, y: y(chance) + 4, class: "axis", "text-anchor": "end" }, percent(chance)));
  }
  root.append(svg("text", { x: LEFT, y: HEIGHT - 8, class: "axis" }, "1"));
  root.append(svg("text", { x: WIDTH - RIGHT, y: HEIGHT - 8, class: "axis", "text-anchor": "end" }, String(last)));
  const positions = analysis.positions;
  seats.forEach((seat) => {
    const line = positions.map((p) => `${x(p.version).toFixed(1)},${y(p.chances[seat.seat] ?? 0).toFixed(1)}`);
    root.append(svg("polyline", { points: line.join(" "), class: `series colour-${seat.colour}`, "data-seat": seat.seat }));
  });
  for (const [seat, at] of labelPlaces(positions, seats, y)) {
    const tag = svg("g", { class: "tag", "data-seat": seat.seat });
    tag.append(svg("circle", { cx: WIDTH - RIGHT + 12, cy: at, r: 6, class: `colour-${seat.colour}` }));
    tag.append(svg("text", { x: WIDTH - RIGHT + 22, y: at + 5 }, seat.name));
    root.append(tag);
  }
  const chanceAt = new Map(positions.map((p) => [p.version, p.chances]));
  for (const decision of analysis.decisions.filter((d) => COSTLY.has(d.label))) {
    const seat = seats.find((s) => s.seat === decision.seat);
    const mark = svg("circle", {
      cx: x(decision.version), cy: y((chanceAt.get(decision.version) || [])[decision.seat] ?? 0), r: decision.label === "blunder" ? 6 : 4.5,
      class: `costly ${decision.label} colour-${seat ? seat.colour : ""}`, "data-version": decision.version,
    });
    mark.append(svg("title", {}, t("analysis.costly", { seat: seat ? seat.name : decision.seat, label: decision.label, version: decision.version, loss: points(decision.loss) })));
    root.append(mark);
  }
  root.append(svg("line", { x1: x(1), x2: x(1), y1: TOP, y2: HEIGHT - BOTTOM, class: "now", id: "chart-now" }));
  root.onclick = (click) => {
    const box = root.getBoundingClientRect();
    const at = ((click.clientX - box.left) / box.width) * WIDTH;
    go(Math.max(1, Math.min(last, version(at))));
  };
  return root;
}

/** Where each seat's name goes at the chart's right edge: by its last chance, at least 18
 * units from the next, so names of seats that end alike do not overlap. */
function labelPlaces(positions, seats, y) {
  const end = positions.length ? positions[positions.length - 1].chances : [];
  const order = [...seats].sort((a, b) => (end[b.seat] ?? 0) - (end[a.seat] ?? 0));
  const places = [];
  let below = -Infinity;
  for (const seat of order) {
    const at = Math.max(y(end[seat.seat] ?? 0), below + 18);
    places.push([seat, at]);
    below = at;
  }
  const over = below - (HEIGHT - 8);
  return over > 0 ? places.map(([seat, at]) => [seat, at - over]) : places;
}

/** Move the chart's mark to `shown` (a version beyond the analysis stays at its end). */
export function mark(root, analysis, shown) {
  const line = root.querySelector("#chart-now");
  if (!line) return;
  const at = scales(analysis.version).x(Math.min(shown, analysis.version));
  line.setAttribute("x1", at);
  line.setAttribute("x2", at);
  root.dataset.version = shown;
}

/** The chart's figures as a table: a row per position, a column per seat. */
export function table(analysis, seats) {
  const head = element("tr", {}, element("th", { scope: "col", text: t("analysis.event") }),
    ...seats.map((seat) => element("th", { scope: "col", text: seat.name })));
  const rows = analysis.positions.map((p) => element("tr", {}, element("th", { scope: "row", text: String(p.version) }),
    ...seats.map((seat) => element("td", { text: percent(p.chances[seat.seat] ?? 0) }))));
  return element("div", { className: "visually-hidden" }, element("table", { id: "chart-table" },
    element("caption", { text: t("analysis.tableCaption") }), element("thead", {}, head), element("tbody", {}, ...rows)));
}

/** Each seat's luck and skill: luck gained, chances lost to decisions, the costly ones. */
export function summary(analysis, seats) {
  return element("ul", { className: "analysis-summary", id: "analysis-summary" }, ...seats.map((seat) => {
    const mine = analysis.decisions.filter((d) => d.seat === seat.seat);
    const count = (label) => mine.filter((d) => d.label === label).length;
    return element("li", { "data-seat": seat.seat },
      element("span", { className: `swatch colour-${seat.colour}`, "aria-hidden": "true", text: seat.colour.charAt(0).toUpperCase() }),
      element("strong", { text: seat.name }), " ",
      t("analysis.luck", { luck: points(analysis.luck[seat.seat] ?? 0, true) }), " ",
      t("analysis.lost", { lost: points(analysis.lost[seat.seat] ?? 0) }), " ",
      t("analysis.counts", { inaccuracies: count("inaccuracy"), mistakes: count("mistake"), blunders: count("blunder") }));
  }));
}
