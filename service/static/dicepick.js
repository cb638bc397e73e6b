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

/**
 * Offer the dice of a two-dice throw in `panel` and play them on `board` (makePlayable's
 * controller) for `moves`; `dice` are the dice to play. `play(move)` plays the one move the
 * picks make, `choose(moves)` offers several. Returns whether the dice are offered.
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
    for (const die of plan.flatMap((p) => p.dice)) left.splice(left.indexOf(die), 1);
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
    picked = null;
    if (new Set(remaining).size === 1) picked = String(remaining[0]); // the other die, at once
    const onTheBoard = !document.activeElement || document.activeElement === document.body || document.activeElement.closest("svg");
    show();
    if (onTheBoard) board.pieces[0]?.focus({ preventScroll: true }); // the keyboard goes on
  };
  const onBoard = () => {
    if (!picked) {
      board.load(moves);
      return;
    }
    const unique = new Map(); // moves that share this part offer it once
    for (const option of options(picked)) {
      const key = option.next.map((s) => `${s.label}:${s.piece}>${s.to}`).join(",");
      if (!unique.has(key)) unique.set(key, { id: key, steps: option.next.map(({ piece, from, to }) => ({ piece, from, to })), option });
    }
    const parts = [...unique.values()];
    board.load(parts, {
      direct: true,
      play: (part) => pickedPart(part.option),
      choose: (list) => choose([...new Set(list.map((part) => part.option.entry.move))]),
    });
  };
  const show = () => {
    const left = diceLeft();
    const buttons = left.map((die) => dieButton(String(die), [die], t("dice.pick", { value: die })));
    if (left.length === 2) {
      const [first, second] = left;
      buttons.push(dieButton(`${first}+${second}`, left, t("dice.pickSum", { first, second, sum: first + second })));
      buttons[buttons.length - 1].classList.add("sum");
    }
    for (const button of buttons) {
      button.disabled = options(button.dataset.die).length === 0;
      button.setAttribute("aria-pressed", String(button.dataset.die === picked));
      button.onclick = () => {
        picked = picked === button.dataset.die ? null : button.dataset.die;
        show();
        panel.querySelector(`.die-button[data-die="${button.dataset.die}"]`)?.focus(); // drawn anew
      };
    }
    const hint = document.createElement("p");
    hint.className = "hint dice-hint";
    hint.textContent = picked ? t("dice.pickPiece", { die: picked }) : t("dice.pickDie");
    const said = plan.map((p) => t("dice.planned", { die: p.label, piece: pieceName(p.piece), place: place(p.to) }));
    const row = document.createElement("div");
    row.className = "dice-row";
    row.append(...buttons);
    const parts = [row, hint];
    if (plan.length) {
      const planned = document.createElement("p");
      planned.className = "dice-planned";
      planned.textContent = said.join(" ");
      const again = document.createElement("button");
      again.type = "button";
      again.className = "dice-again";
      again.textContent = t("dice.startOver");
      again.onclick = () => {
        plan = [];
        picked = null;
        show();
      };
      parts.push(planned, again);
    }
    panel.replaceChildren(...parts);
    marked(plan);
    onBoard();
  };
  show();
  return true;
}
