// A game's analysis under the viewer's board: an SVG chart of every seat's chance of winning
// over the game (each seat's line in its colour, named at its end), the version shown marked,
// costly decisions marked on their seat's line, the same figures as a table for screen
// readers, a legend of the marks, and each seat's luck and skill with what a point is. The
// chart is drawn at the width it is shown at, one unit a CSS pixel, so its words keep their
// size on a phone and its margins fit the words drawn in them. A click or tap on the chart
// asks for the version there, or for a costly decision's when it lands near its mark; the note
// under the chart then says what that decision cost.

import { element } from "./dom.js";
import { language, t } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";
const NARROWEST = 280;
const TOP = 14;
const BOTTOM = 30;
const GAP = 8; // between a margin's words and the plot
const NEAR = 22; // px: a click or tap this near a costly mark is on it
const COSTLY = new Set(["mistake", "blunder"]);

const percent = (chance) => new Intl.NumberFormat(language(), { style: "percent", maximumFractionDigits: 0 }).format(chance);
const points = (value, sign = false) => new Intl.NumberFormat(language(), { maximumFractionDigits: 1, signDisplay: sign ? "exceptZero" : "auto" }).format(value * 100);

function svg(tag, attributes = {}, text = null) {
  const made = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
  if (text !== null) made.textContent = text;
  return made;
}

/** How wide each of `texts` is drawn in the chart with `className` (px), measured in a chart
 * out of sight. */
function widths(texts, className) {
  const probe = svg("svg", { class: "chart", width: 0, height: 0, "aria-hidden": "true" });
  Object.assign(probe.style, { position: "absolute", width: "0", height: "0", overflow: "hidden" });
  const drawn = texts.map((text) => probe.appendChild(svg("text", { class: className }, text)));
  document.body.append(probe);
  const found = drawn.map((text) => text.getComputedTextLength());
  probe.remove();
  return found;
}

/** `name`, cut short with an ellipsis where it is wider than `room` px. */
function fitted(name, room) {
  let shown = name;
  while (shown.length > 1 && widths([shown], "tag-name")[0] > room) shown = `${shown.slice(0, -2)}…`;
  return shown;
}

/** The chart's size and scales for a game analysed up to `last`, `width` px wide, with room
 * at the left for the axis's words and at the right for the seats' names. */
function frame(last, width, seats) {
  const wide = Math.max(NARROWEST, Math.round(width));
  const high = Math.round(Math.min(300, Math.max(200, wide * 0.4)));
  const left = Math.ceil(Math.max(...widths([0, 0.5, 1].map(percent), "axis"))) + GAP + 2;
  const named = Math.max(0, ...widths(seats.map((s) => s.name), "tag-name"));
  const right = Math.ceil(Math.min(named + 30, wide * 0.3));
  const span = Math.max(1, last - 1);
  const plot = wide - left - right;
  return {
    wide, high, left, right, plot,
    x: (version) => left + ((version - 1) / span) * plot,
    y: (chance) => TOP + (1 - chance) * (high - TOP - BOTTOM),
    version: (x) => Math.round(1 + ((x - left) / plot) * span),
  };
}

/** The costly decisions of `analysis` (mistakes and blunders). */
const costlyOf = (analysis) => analysis.decisions.filter((d) => COSTLY.has(d.label));

/** The chart of `analysis` for `seats` (the state's seats: name and colour), `width` px wide;
 * `go(version)` is called with the version a click or tap lands on. */
export function chart(analysis, seats, go, width) {
  const last = analysis.version;
  const at = frame(last, width, seats);
  const { x, y } = at;
  const root = svg("svg", { viewBox: `0 0 ${at.wide} ${at.high}`, width: at.wide, height: at.high, class: "chart", role: "img", "aria-label": t("analysis.chartLabel") });
  for (const chance of [0, 0.5, 1]) {
    root.append(svg("line", { x1: at.left, x2: at.wide - at.right, y1: y(chance), y2: y(chance), class: "grid" }));
    root.append(svg("text", { x: at.left - GAP, y: y(chance) + 4, class: "axis", "text-anchor": "end" }, percent(chance)));
  }
  root.append(svg("text", { x: at.left, y: at.high - 8, class: "axis" }, "1"));
  root.append(svg("text", { x: at.wide - at.right, y: at.high - 8, class: "axis", "text-anchor": "end" }, String(last)));
  const positions = analysis.positions;
  seats.forEach((seat) => {
    const line = positions.map((p) => `${x(p.version).toFixed(1)},${y(p.chances[seat.seat] ?? 0).toFixed(1)}`);
    root.append(svg("polyline", { points: line.join(" "), class: `series colour-${seat.colour}`, "data-seat": seat.seat }));
  });
  for (const [seat, place] of labelPlaces(positions, seats, y, at.high)) {
    const tag = svg("g", { class: "tag", "data-seat": seat.seat });
    tag.append(svg("circle", { cx: at.wide - at.right + 12, cy: place, r: 6, class: `colour-${seat.colour}` }));
    tag.append(svg("text", { x: at.wide - at.right + 22, y: place + 5, class: "tag-name" }, fitted(seat.name, at.right - 24)));
    root.append(tag);
  }
  const chanceAt = new Map(positions.map((p) => [p.version, p.chances]));
  const marks = costlyOf(analysis).map((decision) => {
    const seat = seats.find((s) => s.seat === decision.seat);
    const place = { x: x(decision.version), y: y((chanceAt.get(decision.version) || [])[decision.seat] ?? 0), version: decision.version };
    const mark = svg("circle", {
      cx: place.x, cy: place.y, r: decision.label === "blunder" ? 7 : 5,
      class: `costly ${decision.label} colour-${seat ? seat.colour : ""}`, "data-version": decision.version,
    });
    mark.append(svg("title", {}, costlyWords(decision, seats)));
    root.append(mark);
    return place;
  });
  root.append(svg("line", { x1: x(1), x2: x(1), y1: TOP, y2: at.high - BOTTOM, class: "now", id: "chart-now", "data-left": at.left, "data-plot": at.plot }));
  root.onclick = (click) => {
    const box = root.getBoundingClientRect();
    const point = { x: ((click.clientX - box.left) / box.width) * at.wide, y: ((click.clientY - box.top) / box.height) * at.high };
    const near = nearest(marks, point);
    go(near ? near.version : Math.max(1, Math.min(last, at.version(point.x))));
  };
  return root;
}

/** The mark of `marks` nearest `point`, if one is within NEAR px of it. */
function nearest(marks, point) {
  let best = null;
  let least = NEAR;
  for (const mark of marks) {
    const distance = Math.hypot(mark.x - point.x, mark.y - point.y);
    if (distance <= least) [best, least] = [mark, distance];
  }
  return best;
}

/** A costly decision in words: who, how costly, when, and the points lost. */
function costlyWords(decision, seats) {
  const seat = seats.find((s) => s.seat === decision.seat);
  return t("analysis.costly", { seat: seat ? seat.name : decision.seat + 1, label: decision.label, version: decision.version, loss: points(decision.loss) });
}

/** Say in `note` what the costly decision at `version` cost, if there is one there (else
 * nothing). */
export function explain(note, analysis, seats, version) {
  const decision = costlyOf(analysis).find((d) => d.version === version);
  const seat = decision && seats.find((s) => s.seat === decision.seat);
  note.textContent = decision ? t("analysis.costlyNote", { seat: seat ? seat.name : decision.seat + 1, label: decision.label, version, loss: points(decision.loss) }) : "";
  note.dataset.version = decision ? version : "";
  note.hidden = !decision;
}

/** What the chart's marks and lines stand for: each seat's line, a mistake's ring, a
 * blunder's and the dashed line of the event on the board. */
export function legend(seats) {
  const key = (drawn, text) => {
    const picture = svg("svg", { width: 28, height: 18, viewBox: "0 0 28 18", "aria-hidden": "true", class: "chart legend-key" });
    picture.append(drawn);
    return element("li", {}, picture, " ", text);
  };
  return element("ul", { className: "chart-legend", id: "chart-legend", "aria-label": t("analysis.legendLabel") },
    ...seats.map((seat) => key(svg("line", { x1: 2, x2: 26, y1: 9, y2: 9, class: `series colour-${seat.colour}` }), seat.name)),
    key(svg("circle", { cx: 14, cy: 9, r: 5, class: "costly mistake" }), t("analysis.legendMistake")),
    key(svg("circle", { cx: 14, cy: 9, r: 7, class: "costly blunder" }), t("analysis.legendBlunder")),
    key(svg("line", { x1: 14, x2: 14, y1: 1, y2: 17, class: "now" }), t("analysis.legendNow")));
}

/** Where each seat's name goes at the chart's right edge: by its last chance, at least 18
 * px from the next, so names of seats that end alike do not overlap, and within `high`. */
function labelPlaces(positions, seats, y, high) {
  const end = positions.length ? positions[positions.length - 1].chances : [];
  const order = [...seats].sort((a, b) => (end[b.seat] ?? 0) - (end[a.seat] ?? 0));
  const places = [];
  let below = -Infinity;
  for (const seat of order) {
    const at = Math.max(y(end[seat.seat] ?? 0), below + 18);
    places.push([seat, at]);
    below = at;
  }
  const over = below - (high - 8);
  return over > 0 ? places.map(([seat, at]) => [seat, at - over]) : places;
}

/** Move the chart's mark to `shown` (a version beyond the analysis stays at its end). */
export function mark(root, analysis, shown) {
  const line = root.querySelector("#chart-now");
  if (!line) return;
  const span = Math.max(1, analysis.version - 1);
  const place = +line.dataset.left + ((Math.min(shown, analysis.version) - 1) / span) * +line.dataset.plot;
  line.setAttribute("x1", place);
  line.setAttribute("x2", place);
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
