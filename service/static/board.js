// The board: the server's SVG drawing put in the page, labelled for screen readers, and (on
// the play page) made playable by mouse and keyboard. It relies only on the drawing's
// documented attributes: pieces are `<g class="piece" data-piece data-seat data-at>`,
// squares carry `data-key`.

import { t } from "./i18n.js";
import { offerDice } from "./dicepick.js";
import { animateMoves, piecePlaces } from "./motion.js";
import { fitTargets, scrollTo } from "./zoom.js";
import { pieceName, place } from "./words.js";

/** The squares' `data-key` a position may be drawn under, most specific first: a piece's
 * `lane:4` is `lane:<colour>:4`, its `start` is `start:<colour>`. */
function keysFor(at, piece) {
  const colour = piece.slice(0, piece.lastIndexOf("-"));
  const [kind, ...rest] = String(at).split(":");
  return [[kind, colour, ...rest].join(":"), at];
}

/** Put `svg` (text) in `container`, every piece and square labelled. */
export function showBoard(container, svg, { animate = false } = {}) {
  const before = animate ? piecePlaces(container.querySelector("svg")) : null;
  container.innerHTML = svg;
  const root = container.querySelector("svg");
  if (!root) return null;
  const title = root.querySelector(":scope > title");
  root.setAttribute("role", "group");
  root.setAttribute("aria-label", title ? title.textContent : t("board.label"));
  for (const piece of root.querySelectorAll(".piece")) {
    piece.setAttribute("role", "img");
    if (!piece.hasAttribute("aria-label")) {
      piece.setAttribute("aria-label", t("board.piece", { piece: pieceName(piece.dataset.piece), place: place(piece.dataset.at) }));
    }
  }
  for (const square of root.querySelectorAll("[data-key]")) {
    if (square.classList.contains("piece")) continue;
    square.setAttribute("role", "img");
    if (!square.hasAttribute("aria-label")) {
      square.setAttribute("aria-label", place(square.dataset.key.replace(/^(lane|start|home):\w+/, "$1")));
    }
  }
  if (animate) {
    const { moved, animated } = animateMoves(root, before);
    container.dataset.moved = moved.join(" ");
    container.dataset.animated = animated;
  }
  return root;
}

/** The square element a piece's position `at` is drawn on, or null. */
export function squareOf(root, at, piece) {
  for (const key of keysFor(at, piece)) {
    const square = root.querySelector(`[data-key="${CSS.escape(key)}"]:not(.piece)`);
    if (square) return square;
  }
  return null;
}

/** The moves of one piece only, by piece: each with the square it ends on. */
function pieceMoves(root, moves) {
  const byPiece = new Map();
  for (const move of moves) {
    const steps = move.steps || [];
    if (!steps.length || steps.some((s) => s.piece !== steps[0].piece)) continue;
    const piece = steps[0].piece;
    const square = squareOf(root, steps[steps.length - 1].to, piece);
    if (!square) continue;
    if (!byPiece.has(piece)) byPiece.set(piece, []);
    byPiece.get(piece).push({ move, square });
  }
  return byPiece;
}

function focusable(element, label) {
  element.setAttribute("tabindex", "0");
  element.setAttribute("role", "button");
  element.setAttribute("aria-label", label);
}

const SVG_NS = "http://www.w3.org/2000/svg";

function drawn(tag, attributes) {
  const made = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value.toFixed ? value.toFixed(2) : value);
  return made;
}

/** The mark a movable piece wears (shown by the class `movable`, so never colour alone): a
 * dashed ring around its disc and a small arrow badge at its upper right; taps go through. */
function cueOf(piece) {
  const found = piece.querySelector(":scope > .movable-cue");
  if (found) return found;
  const disc = piece.querySelector("circle");
  const [x, y, r] = [disc.cx, disc.cy, disc.r].map((length) => length.baseVal.value);
  const cue = drawn("g", { class: "movable-cue", "aria-hidden": "true" });
  const [bx, by, br] = [x + r * 0.85, y - r * 0.85, r * 0.4];
  cue.append(
    drawn("circle", { class: "halo", cx: x, cy: y, r: r * 1.2, "stroke-width": r * 0.3 }),
    drawn("circle", { class: "ring", cx: x, cy: y, r: r * 1.2, "stroke-width": r * 0.16, "stroke-dasharray": `${(r * 0.5).toFixed(2)} ${(r * 0.25).toFixed(2)}` }),
    drawn("circle", { class: "badge", cx: bx, cy: by, r: br, "stroke-width": r * 0.08 }),
    drawn("path", { class: "arrow", d: `M${(bx - br * 0.35).toFixed(2)},${(by - br * 0.55).toFixed(2)} L${(bx + br * 0.6).toFixed(2)},${by.toFixed(2)} L${(bx - br * 0.35).toFixed(2)},${(by + br * 0.55).toFixed(2)} z` }),
  );
  piece.append(cue);
  return cue;
}

/** Mark the pieces of `root` whose ids are in `ids` movable (class and cue), and no other. */
export function markMovable(root, ids) {
  for (const piece of root.querySelectorAll(".piece")) {
    const movable = ids.has(piece.dataset.piece);
    piece.classList.toggle("movable", movable);
    if (movable) cueOf(piece);
  }
  root.dataset.movable = [...ids].sort().join(" ");
}

function cycle(list, current, step) {
  const at = list.indexOf(current);
  return list[(at + step + list.length) % list.length];
}

/**
 * Make the pieces that have moves playable: click (or Enter on) a piece to mark where it can
 * go, then click (or Enter on) a destination. `play(move)` is called with the one move that
 * ends there, `choose(moves)` when several do (different cards or dice to the same square);
 * `why(piece)` when a piece that cannot move is clicked (tapped). The pieces that can move
 * are marked (markMovable). Arrow keys step through the pieces, or through the destinations
 * once a piece is chosen; Escape goes back to the piece. `load(moves, options)` puts other
 * moves on the board (the dice picker's sub-moves): with `direct`, a piece with one
 * destination moves at once; `also` names more pieces to mark movable, `other(piece)` is
 * asked first about a click on a piece without moves (true when it handled it).
 */
export function makePlayable(root, moves, handlers) {
  let { play, choose } = handlers;
  let other = null;
  let byPiece = new Map();
  let pieces = [];
  let direct = false;
  let chosen = null;
  let targets = [];

  const clear = () => {
    root.querySelectorAll(".selected").forEach((e) => e.classList.remove("selected"));
    for (const t of targets) {
      t.classList.remove("target");
      t.removeAttribute("tabindex");
      t.setAttribute("role", "img");
      t.setAttribute("aria-label", t.dataset.label || "");
    }
    targets = [];
    chosen = null;
  };
  const land = (square) => {
    const list = square.movesHere;
    if (list.length === 1) play(list[0]);
    else choose(list);
  };
  const select = (piece) => {
    clear();
    chosen = piece;
    piece.classList.add("selected");
    const ends = new Map();
    for (const { move, square } of byPiece.get(piece.dataset.piece)) {
      if (!ends.has(square)) ends.set(square, []);
      ends.get(square).push(move);
    }
    for (const [square, list] of ends) {
      square.dataset.label = square.getAttribute("aria-label") || "";
      square.classList.add("target");
      square.movesHere = list;
      focusable(square, t("board.target", { piece: pieceName(piece.dataset.piece), place: square.dataset.label }));
      targets.push(square);
    }
    root.dispatchEvent(new CustomEvent("chosen", { detail: { piece: piece.dataset.piece, targets } }));
    if (direct && targets.length === 1) {
      const [only] = targets;
      land(only);
      return null;
    }
    return targets[0];
  };
  const load = (list, options = {}) => {
    clear();
    for (const piece of pieces) {
      piece.removeAttribute("tabindex");
      piece.setAttribute("role", "img");
      piece.setAttribute("aria-label", piece.dataset.label || piece.getAttribute("aria-label"));
    }
    byPiece = pieceMoves(root, list);
    pieces = [...root.querySelectorAll(".piece")].filter((p) => byPiece.has(p.dataset.piece));
    direct = Boolean(options.direct);
    ({ play, choose } = options.play ? options : handlers);
    other = options.other || null;
    markMovable(root, new Set([...pieces.map((p) => p.dataset.piece), ...(options.also || [])]));
    for (const piece of pieces) {
      piece.dataset.label = piece.dataset.label || piece.getAttribute("aria-label") || "";
      focusable(piece, t("board.choose", { piece: pieceName(piece.dataset.piece), place: place(piece.dataset.at) }));
    }
    return pieces;
  };
  // The marked square clicked: the one under the element, or the one under the point
  // (a slide or another drawing may lie on top of a square).
  const targetUnder = (click) => {
    const piece = click.target.closest(".piece");
    const square = piece ? squareOf(root, piece.dataset.at, piece.dataset.piece) : click.target.closest("[data-key]");
    if (targets.includes(square)) return square;
    return targets.find((t) => {
      const box = t.getBoundingClientRect();
      return click.clientX >= box.left && click.clientX <= box.right && click.clientY >= box.top && click.clientY <= box.bottom;
    }) || null;
  };

  load(moves);
  root.addEventListener("click", (click) => {
    const square = chosen && targetUnder(click);
    if (square) return land(square);
    const piece = click.target.closest(".piece");
    if (piece && pieces.includes(piece)) return select(piece);
    // A piece of the same seat on the same square moves for it (the referee lists one of
    // the pieces waiting in a start, say).
    const twin = piece && pieces.find((p) => p.dataset.at === piece.dataset.at && p.dataset.seat === piece.dataset.seat);
    if (twin) return select(twin);
    clear();
    if (piece && !(other && other(piece))) handlers.why?.(piece);
  });
  root.addEventListener("keydown", (key) => {
    const here = key.target;
    const arrow = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[key.key];
    if (key.key === "Enter" || key.key === " ") {
      if (targets.includes(here)) land(here);
      else if (pieces.includes(here)) select(here)?.focus();
      else return;
    } else if (key.key === "Escape" && chosen) {
      const piece = chosen;
      clear();
      piece.focus();
    } else if (arrow && targets.includes(here)) {
      cycle(targets, here, arrow).focus();
    } else if (arrow && pieces.includes(here)) {
      cycle(pieces, here, arrow).focus();
    } else {
      return;
    }
    key.preventDefault();
    key.stopPropagation();
  });
  return { get pieces() { return pieces; }, select, clear, load, why: (piece, about) => handlers.why?.(piece, about), destinations: () => [...byPiece.values()].flat().map((e) => e.square) };
}

/** The disc's centre and radius of `piece`, as drawn (before any transform). */
function discOf(piece) {
  const disc = piece.querySelector("circle");
  return [disc.cx, disc.cy, disc.r].map((length) => length.baseVal.value);
}

/** Draw `pieces` (elements) on `square` side by side, in a grid over its middle, each no
 * bigger than it was drawn: where parts of a throw picked, not yet played, take them. */
function standOn(pieces, square) {
  const box = (square.querySelector("rect, circle") || square).getBBox();
  const columns = Math.ceil(Math.sqrt(pieces.length));
  const rows = Math.ceil(pieces.length / columns);
  const pitch = Math.min(box.width / columns, box.height / rows);
  const x0 = box.x + box.width / 2 - (pitch * (columns - 1)) / 2;
  const y0 = box.y + box.height / 2 - (pitch * (rows - 1)) / 2;
  pieces.forEach((piece, i) => {
    const [cx, cy, r] = discOf(piece);
    const scale = pieces.length > 1 ? Math.min(1, (pitch * 0.42) / r) : 1;
    const x = x0 + (i % columns) * pitch - scale * cx;
    const y = y0 + Math.floor(i / columns) * pitch - scale * cy;
    piece.setAttribute("transform", `translate(${x.toFixed(2)} ${y.toFixed(2)}) scale(${scale.toFixed(3)})`);
  });
}

/** Draw each part of `plan` ({piece, to}) where it takes its piece, beside the pieces that stand
 * there (so each keeps a centre of its own to tap); the squares reached marked `planned`. */
function drawPlan(root, plan) {
  root.querySelectorAll(".planned").forEach((e) => e.classList.remove("planned"));
  root.querySelectorAll(".piece[transform]").forEach((e) => e.removeAttribute("transform"));
  const ends = new Map(); // the last square each planned piece reaches
  for (const part of plan) {
    const square = squareOf(root, part.to, part.piece);
    const piece = root.querySelector(`.piece[data-piece="${CSS.escape(part.piece)}"]`);
    square?.classList.add("planned");
    if (square && piece) ends.set(piece, square);
  }
  const squares = new Set(ends.values());
  for (const square of squares) {
    const staying = [...root.querySelectorAll(".piece")]
      .filter((p) => !ends.has(p) && squareOf(root, p.dataset.at, p.dataset.piece) === square);
    const arriving = [...ends].filter(([, end]) => end === square).map(([piece]) => piece);
    standOn([...staying, ...arriving], square);
  }
}

/** Every element a person may tap for `moves`: the pieces that move and the squares they reach
 * (after each step, so the dice picker's parts are counted too). */
function tappable(root, moves) {
  const found = new Set();
  for (const move of moves) {
    for (const step of move.steps || []) {
      const piece = root.querySelector(`.piece[data-piece="${CSS.escape(step.piece)}"]`);
      const square = squareOf(root, step.to, step.piece);
      if (piece) found.add(piece);
      if (square) found.add(square);
    }
  }
  return [...found];
}

/**
 * The board made playable for `moves` (none for a spectator): the pieces and their squares,
 * the dice of a two-dice throw offered in `picker`, and the drawing zoomed until everything to
 * tap is big enough (`zoom` the button that shows the whole board). Returns how many pieces
 * can be played by clicks.
 */
export function playOnBoard(root, moves, { play, choose, why, dice, picker, zoom }) {
  const board = makePlayable(root, moves, { play, choose, why });
  const marked = (plan) => drawPlan(root, plan);
  const offered = offerDice(picker, board, moves, { play, choose, dice, marked });
  const all = tappable(root, moves);
  fitTargets(root, all, board.pieces.length ? board.pieces : all, zoom);
  root.addEventListener("chosen", (event) => scrollTo(root.parentElement, [root.querySelector(`.piece[data-piece="${CSS.escape(event.detail.piece)}"]`), ...event.detail.targets]));
  return offered ? Math.max(1, board.pieces.length) : board.pieces.length;
}
