// Why a piece cannot move, in the page's language: said in the account when a person taps
// (or clicks) a piece the board does not let them move, so a tap is never met with silence.
// The reasons come from what the page already has: the state view (whose piece it is, where
// it stands, the card, dice or hand in play, who must act) and the die the dice picker holds.

import { t } from "./i18n.js";
import { cardName, diceWords, names, pieceName, seatName, whoseTurn } from "./words.js";

/** What the seat holds to move with, in words for `board.cannotMove*`: a card, dice, a hand. */
function cannotMove(state, piece) {
  const chance = state.chance || {};
  if (chance.card) return t("board.cannotMoveCard", { piece, card: cardName(chance.card) });
  const dice = state.dice_left && state.dice_left.length ? state.dice_left : chance.dice;
  if (dice && dice.length) return t("board.cannotMoveDice", { piece, dice: diceWords(dice), count: dice.length });
  if ((state.hands || []).some((h) => h.cards && h.cards.length)) return t("board.cannotMoveHand", { piece });
  return t("board.cannotMoveNow", { piece });
}

/**
 * Why the piece element `element` cannot move now, or "" when nothing need be said (the page
 * watches, or the game is over). `me` is the page's caller ({ seat, referee }), `moves` the
 * legal moves shown, `about` what the dice picker adds: `die` (the die picked) or `pick` (the
 * dice that would move the piece: one must be picked first).
 */
export function whyNot(element, page, about = {}) {
  const said = reason(element, page, about);
  return said.charAt(0).toLocaleUpperCase() + said.slice(1);
}

function reason(element, { state, me, moves }, about) {
  if (!state || state.status !== "active" || (me.seat === null && !me.referee)) return "";
  const piece = pieceName(element.dataset.piece);
  const seat = Number(element.dataset.seat);
  const mine = state.to_act.find((p) => p.seat === me.seat);
  if (!me.referee && !mine) return whoseTurn(state, me.seat).join(" ");
  if (!me.referee && seat !== me.seat) return t("board.notYours", { piece, name: seatName(state.seats, seat) });
  if (about.pick) return t("board.pickDieFirst", { piece, dice: names(about.pick.map((d) => d.replace("+", " + "))) });
  if (!moves.some((m) => (m.steps || []).length)) return whoseTurn(state, me.seat).join(" ");
  if (about.die) return t("board.cannotMoveDie", { piece, die: about.die.replace("+", " + ") });
  if (String(element.dataset.at).startsWith("home")) return t("board.atHome", { piece });
  if (moves.some((m) => (m.steps || []).some((s) => s.piece === element.dataset.piece))) return t("board.inList", { piece });
  return cannotMove(state, piece);
}
