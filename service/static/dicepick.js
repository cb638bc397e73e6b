// Two dice played on the board: pick a die (or both together, their sum), then the piece it
// moves; the other die is then picked for you, and a click on a piece plays the throw. A throw
// split between two pieces is played this way, which the board's whole moves (one piece each)
// cannot offer; the list of legal moves stays as the fallback.
//
// A two-dice move's id names its parts, `3:track:10>track:13,4:track:20>track:24`, one per
// step: the die (`3`, or `3+4` for both at once) and the step it makes.

import { t } from "./i18n.js";
import { dieFace } from "./faces.js";
import { pieceName, place } from "./words.js";

/** A move's parts, each a step with the dice it uses, or null when a part is not a die's. */
export function subMoves(move) {
  const parts = String(move.id).split(",");
  const steps = move.steps || [];
  if (!steps.length || parts.length !== steps.length) return null;
  const subs = [];
  for (const [i, part] of parts.entries()) {
    const label = part.split(":")[0];
    if (!/^\d+(\+\d+)?$/.test(label)) return null;
    subs.push({ label, dice: label.split("+").map(Number), piece: steps[i].piece, from: steps[i].from, to: steps[i].to });
  }
  return subs;
}

const sameSub = (a, b) => a.piece === b.piece && a.to === b.to && a.label === b.label;
const sorted = (list) => [...list].map(String).sort().join(" ");

/** The parts of `rest` that play `label` next (a die, or `a+b`: both dice by one piece). */
function nextWith(rest, label) {
  if (!rest.length) return null;
  if (rest[0].label === label) return [rest[0]];
  if (!label.includes("+")) return null;
  const both = label.split("+");
  if (rest[0].dice.length === 2 && sorted(rest[0].dice) === sorted(both)) return [rest[0]];
  if (rest.length >= 2 && rest[0].piece === rest[1].piece && sorted([rest[0].label, rest[1].label]) === sorted(both)) {
    return rest.slice(0, 2);
  }
  return null;
}

function dieButton(label, dice, text) {
  const made = document.createElement("button");
  made.type = "button";
  made.className = "die-button";
  made.dataset.die = label;
  made.setAttribute("aria-pressed", "false");
  made.setAttribute("aria-label", text);
  made.append(...dice.map(dieFace));
  for (const face of made.querySelectorAll(".die")) face.setAttribute("aria-hidden", "true");
  return made;
}

function element(tag, className, text = "") {
  const made = document.createElement(tag);
  made.className = className;
  made.textContent = text;
  return made;
}

/** The picks `left` dice offer: each die, and both together when two are left. */
const picksOf = (left) => [...new Set(left.map(String)), ...(left.length === 2 ? [`${left[0]}+${left[1]}`] : [])];

/** A button for each die left, and one for both together (their sum) when two are left. */
function diceButtons(left) {
  const buttons = left.map((die) => dieButton(String(die), [die], t("dice.pick", { value: die })));
  if (left.length === 2) {
    const [first, second] = left;
    const sum = dieButton(`${first}+${second}`, left, t("dice.pickSum", { first, second, sum: first + second }));
    sum.classList.add("sum");
    buttons.push(sum);
  }
  return buttons;
}

/** The parts picked so far in words, and a button to pick again. */
function planShown(plan, again) {
  const said = plan.map((p) => t("dice.planned", { die: p.label, piece: pieceName(p.piece), place: place(p.to) }));
  const button = element("button", "dice-again", t("dice.startOver"));
  button.type = "button";
  button.onclick = again;
  return [element("p", "dice-planned", said.join(" ")), button];
}

/** The parts `options` offer on the board, each once (moves that share a part offer it once). */
function uniqueParts(options) {
  const unique = new Map();
  for (const option of options) {
    const key = option.next.map((s) => `${s.label}:${s.piece}>${s.to}`).join(",");
    const steps = option.next.map(({ piece, from, to }) => ({ piece, from, to }));
    if (!unique.has(key)) unique.set(key, { id: key, steps, option });
  }
  return [...unique.values()];
}

const focusOnBoard = () => !document.activeElement || document.activeElement === document.body || Boolean(document.activeElement.closest("svg"));

/**
 * Offer the dice of a two-dice throw in `panel` and play them on `board` (makePlayable's
 * controller) for `moves`; `dice` are the dice to play. `play(move)` plays the one move the
 * picks make, `choose(moves)` offers several, `marked(plan)` marks the parts picked. Returns
 * whether the dice are offered.
 */
export function offerDice(panel, board, moves, { play, choose, dice, marked }) {
  const entries = moves.map((move) => ({ move, subs: subMoves(move) })).filter((e) => e.subs);
  const twoDice = entries.some((e) => e.subs.reduce((n, s) => n + s.dice.length, 0) >= 2);
  panel.hidden = !twoDice;
  if (!twoDice) {
    panel.replaceChildren();
    return false;
  }
  let plan = []; // the parts picked so far
  let picked = null; // the die (or `a+b`) picked

  const matching = () => entries.filter((e) => plan.every((p, i) => e.subs[i] && sameSub(e.subs[i], p)));
  const diceLeft = () => {
    const left = [...dice];
    for (const die of plan.flatMap((p) => p.dice)) {
      if (left.includes(die)) left.splice(left.indexOf(die), 1);
    }
    return left;
  };
  const options = (label) => matching()
    .map((entry) => ({ entry, next: nextWith(entry.subs.slice(plan.length), label) }))
    .filter((o) => o.next);

  const pickedPart = (option) => {
    plan = [...plan, ...option.next];
    const left = matching();
    const done = left.filter((e) => e.subs.length === plan.length);
    if (done.length && done.length === left.length) {
      if (done.length === 1) play(done[0].move);
      else choose(done.map((e) => e.move));
      return;
    }
    const remaining = diceLeft();
    picked = new Set(remaining).size === 1 ? String(remaining[0]) : null; // the other die, at once
    const keyboard = focusOnBoard();
    show();
    if (keyboard) board.pieces[0]?.focus({ preventScroll: true }); // the keyboard goes on
  };
  // A tap on a piece the die picked (or no die) cannot move: the one die that moves it is
  // picked and the piece chosen; with several, the person is asked to pick; with none, why.
  const tapped = (piece) => {
    const id = piece.dataset.piece;
    const usable = picksOf(diceLeft()).filter((label) => options(label).some((o) => o.next[0].piece === id));
    if (usable.length === 1) {
      picked = usable[0];
      show();
      const chosen = board.pieces.find((p) => p.dataset.piece === id);
      if (chosen) board.select(chosen);
    } else if (usable.length > 1) {
      board.why(piece, { pick: usable });
    } else {
      board.why(piece, { die: picked });
    }
    return true;
  };
  const onBoard = () => {
    const movers = matching().flatMap((e) => e.subs.slice(plan.length).map((s) => s.piece));
    if (!picked) return board.load(moves, { also: movers, other: tapped });
    return board.load(uniqueParts(options(picked)), {
      direct: true,
      other: tapped,
      play: (part) => pickedPart(part.option),
      choose: (list) => choose([...new Set(list.map((part) => part.option.entry.move))]),
    });
  };
  const pick = (die) => {
    picked = picked === die ? null : die;
    show();
    panel.querySelector(`.die-button[data-die="${die}"]`)?.focus(); // drawn anew
  };
  const show = () => {
    const buttons = diceButtons(diceLeft());
    for (const button of buttons) {
      button.disabled = options(button.dataset.die).length === 0;
      button.setAttribute("aria-pressed", String(button.dataset.die === picked));
      button.onclick = () => pick(button.dataset.die);
    }
    const row = element("div", "dice-row");
    row.append(...buttons);
    const hint = element("p", "hint dice-hint", picked ? t("dice.pickPiece", { die: picked }) : t("dice.pickDie"));
    const again = () => {
      plan = [];
      picked = null;
      show();
    };
    panel.replaceChildren(row, hint, ...(plan.length ? planShown(plan, again) : []));
    marked(plan);
    onBoard();
  };
  show();
  return true;
}
