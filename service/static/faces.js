// Dice and cards as things to look at: a die as its face of pips (an SVG with an accessible
// label), a card as a card with its name in the page's language. Shared by the hand, the
// pending draw or throw and the account.

import { t } from "./i18n.js";
import { cardName, pendingChance } from "./words.js";

const SVG_NS = "http://www.w3.org/2000/svg";
// The pips of each face on a 3 x 3 grid (0..8, read row by row).
const PIPS = { 1: [4], 2: [2, 6], 3: [2, 4, 6], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8], 6: [0, 2, 3, 5, 6, 8] };

function svgElement(tag, attributes) {
  const made = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
  return made;
}

/** A die showing `value`: its pips (the number itself beyond six), labelled for screen readers. */
export function dieFace(value) {
  const face = document.createElement("span");
  face.className = "die";
  face.dataset.value = value;
  face.setAttribute("role", "img");
  face.setAttribute("aria-label", t("dice.face", { value }));
  const drawing = svgElement("svg", { viewBox: "0 0 30 30", "aria-hidden": "true", focusable: "false" });
  drawing.append(svgElement("rect", { x: 1, y: 1, width: 28, height: 28, rx: 5, class: "die-body" }));
  const pips = PIPS[value];
  if (pips) {
    for (const at of pips) {
      drawing.append(svgElement("circle", { cx: 7.5 + (at % 3) * 7.5, cy: 7.5 + Math.floor(at / 3) * 7.5, r: 2.8, class: "pip" }));
    }
  } else {
    const number = svgElement("text", { x: 15, y: 20, "text-anchor": "middle", class: "die-number" });
    number.textContent = String(value);
    drawing.append(number);
  }
  face.append(drawing);
  return face;
}

/** Dice as faces side by side. */
export function diceFaces(dice) {
  const made = document.createElement("span");
  made.className = "dice";
  made.append(...dice.map(dieFace));
  return made;
}

/** A card as a card: its name in the page's language; `data-card` keeps the card for scripts. */
export function cardFace(card, { small = false, tag = small ? "span" : "li" } = {}) {
  const made = document.createElement(tag);
  made.className = small ? "card mini" : "card";
  made.dataset.card = card;
  const name = document.createElement("span");
  name.className = "card-name";
  name.textContent = cardName(card);
  made.append(name);
  return made;
}

/** The pending card or dice in `container`: the card or the die faces, then the words. */
export function showChance(container, state) {
  const words = document.createElement("span");
  words.className = "chance-words";
  words.textContent = pendingChance(state);
  const shown = [];
  const chance = state.chance || {};
  if (chance.card) shown.push(cardFace(chance.card, { tag: "span" }));
  const dice = state.dice_left && state.dice_left.length ? state.dice_left : chance.dice;
  if (dice && dice.length) shown.push(diceFaces(dice));
  for (const face of shown) face.setAttribute("aria-hidden", "true"); // the words say it
  container.replaceChildren(...shown, words);
}

/** The card or dice of an account's line, small. */
export function chanceChip(chance) {
  return chance.card !== undefined ? cardFace(chance.card, { small: true }) : diceFaces(chance.dice);
}
