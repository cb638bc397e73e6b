// The board zoomed on the part in play: when a piece that can move, or a square it can move
// to, is drawn smaller than a finger's target (WCAG 2.2: 24 x 24 CSS px), the drawing is
// widened in its box (which then scrolls both ways) until every such target is at least that
// big and the squares' numbers are legible, and the box is scrolled to the pieces in play.

import { t } from "./i18n.js";

export const TARGET_PX = 24;
const ROOM = 1.15; // a little over the least, for rounding and borders
const LEGIBLE_PX = 10; // a square's number, once the board is zoomed
const MOST = 4;
// Zoomed by default on a phone (a narrow window or a finger); the whole board elsewhere,
// where a mouse points finely and the whole game counts more. The button overrides either.
const ZOOMED_BY_DEFAULT = "(max-width: 760px), (pointer: coarse)";
let asked = null; // whether the person asked for the whole board (null: not asked)
const whole = () => asked ?? !matchMedia(ZOOMED_BY_DEFAULT).matches;

function smallest(elements) {
  let least = Infinity;
  for (const element of elements) {
    const disc = element.classList.contains("piece") && element.querySelector(":scope > circle");
    const box = (disc || element).getBoundingClientRect(); // a piece's disc, not its marks
    if (box.width && box.height) least = Math.min(least, box.width, box.height);
  }
  return least;
}

function smallestFont(root) {
  let least = Infinity;
  const scale = root.getBoundingClientRect().width / root.viewBox.baseVal.width;
  for (const label of root.querySelectorAll("text.label")) {
    least = Math.min(least, Number(label.getAttribute("font-size")) * scale);
  }
  return least;
}

/** Scroll `box` so that the middle of `elements` is in its middle. */
export function scrollTo(box, elements) {
  const boxes = [...elements].filter(Boolean).map((e) => e.getBoundingClientRect()).filter((b) => b.width);
  if (!boxes.length || !box.classList.contains("zoomed")) return;
  const frame = box.getBoundingClientRect();
  const left = Math.min(...boxes.map((b) => b.left));
  const right = Math.max(...boxes.map((b) => b.right));
  const top = Math.min(...boxes.map((b) => b.top));
  const bottom = Math.max(...boxes.map((b) => b.bottom));
  box.scrollLeft += (left + right) / 2 - (frame.left + frame.width / 2);
  box.scrollTop += (top + bottom) / 2 - (frame.top + frame.height / 2);
}

/** The zoom that makes every one of `targets` at least TARGET_PX, the board's numbers legible. */
function zoomFor(root, targets) {
  const least = smallest(targets);
  if (!Number.isFinite(least) || least >= TARGET_PX * ROOM) return 1;
  const font = smallestFont(root);
  const legible = Number.isFinite(font) ? (LEGIBLE_PX * 1.05) / font : 1;
  return Math.min(MOST, Math.max((TARGET_PX * ROOM) / least, legible));
}

/**
 * Zoom the drawing `root` (in its box) so that every one of `targets` can be tapped, and
 * scroll to `focus`; `button` toggles between this and the whole board. Returns the zoom.
 */
export function fitTargets(root, targets, focus, button = null) {
  const box = root.parentElement;
  root.style.width = "";
  box.classList.remove("zoomed");
  const zoom = whole() ? 1 : zoomFor(root, targets);
  const needed = zoomFor(root, targets) > 1;
  if (zoom > 1) {
    root.style.width = `${(zoom * 100).toFixed(1)}%`;
    box.classList.add("zoomed");
    scrollTo(box, focus);
  }
  box.dataset.zoom = zoom.toFixed(2);
  if (button) {
    button.hidden = !needed;
    button.textContent = t("board.wholeBoard");
    button.setAttribute("aria-pressed", String(whole()));
    button.onclick = () => {
      asked = !whole();
      fitTargets(root, targets, focus, button);
    };
  }
  return zoom;
}
