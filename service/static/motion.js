// Pieces that move along their path: when a new drawing of the board replaces the old one,
// each piece that changed place is animated from where it stood, square by square along the
// track when both places are track squares (the shorter way round), else in one slide. Nothing
// moves when the browser asks for reduced motion.

export const STEP_MS = 110; // per square walked
export const SLIDE_MS = 450; // a slide, and the least a walk takes
const LONGEST = 1400;
const WALK_AT_MOST = 24; // squares; a longer way is a slide

export const reducedMotion = () => matchMedia("(prefers-reduced-motion: reduce)").matches;

function centre(element) {
  const box = element.getBBox();
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/** Where each piece of a drawing stands: piece id to its place and its disc's centre. */
export function piecePlaces(root) {
  const places = new Map();
  if (!root) return places;
  for (const piece of root.querySelectorAll(".piece")) {
    const disc = piece.querySelector("circle");
    if (disc) places.set(piece.dataset.piece, { at: piece.dataset.at, x: disc.cx.baseVal.value, y: disc.cy.baseVal.value });
  }
  return places;
}

/** The centres of the track squares walked from `from` to `to` (both `track:N`), or null. */
function trackWalk(root, from, to) {
  const number = (at) => (/^track:(\d+)$/.exec(at) || [])[1];
  const [a, b] = [number(from), number(to)].map((n) => (n === undefined ? NaN : Number(n)));
  if (Number.isNaN(a) || Number.isNaN(b)) return null;
  const squares = new Map();
  for (const square of root.querySelectorAll('[data-key^="track:"]:not(.piece)')) {
    squares.set(Number(square.dataset.key.slice(6)), square);
  }
  const keys = [...squares.keys()];
  const [low, high] = [Math.min(...keys), Math.max(...keys)];
  const size = high - low + 1;
  const ahead = (((b - a) % size) + size) % size;
  const step = ahead <= size - ahead ? 1 : -1;
  const count = step === 1 ? ahead : size - ahead;
  if (count > WALK_AT_MOST) return null;
  const walk = [];
  for (let i = 1, n = a; i < count; i += 1) {
    n = ((n - low + step + size) % size) + low;
    const square = squares.get(n);
    if (square) walk.push(centre(square.querySelector("rect, circle") || square));
  }
  return walk;
}

/**
 * Animate each piece of `root` whose place differs from `before` (as `piecePlaces` gave it):
 * from its old centre, through the squares walked, to where it is drawn. Returns the pieces
 * moved and how many were animated (none under reduced motion).
 */
export function animateMoves(root, before) {
  const moved = [];
  let animated = 0;
  if (!root || !before || !before.size) return { moved, animated };
  for (const piece of root.querySelectorAll(".piece")) {
    const old = before.get(piece.dataset.piece);
    const disc = piece.querySelector("circle");
    if (!old || !disc || old.at === piece.dataset.at) continue;
    moved.push(piece.dataset.piece);
    if (reducedMotion()) continue;
    const now = { x: disc.cx.baseVal.value, y: disc.cy.baseVal.value };
    const walk = trackWalk(root, old.at, piece.dataset.at) || [];
    const points = [old, ...walk, now];
    const duration = Math.min(LONGEST, Math.max(SLIDE_MS, STEP_MS * (points.length - 1)));
    const frames = points.map((p) => ({ transform: `translate(${p.x - now.x}px, ${p.y - now.y}px)` }));
    piece.animate(frames, { duration, easing: walk.length ? "linear" : "ease-in-out" });
    animated += 1;
  }
  return { moved, animated };
}
