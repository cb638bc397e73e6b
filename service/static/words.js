// Plain words for what the API says, in the page's language (i18n.js): seats by name,
// positions, moves, whose turn. Pure functions of the API's replies, shared by the pages.

import { t } from "./i18n.js";

/** Every event type the log holds (the event stream names each message by its type). */
export const EVENT_TYPES = [
  "GameCreated", "CardDrawn", "DiceRolled", "CardsDealt", "DeckShuffled", "MovePlayed",
  "TurnPassed", "CardExchanged", "MoveUndone", "GameFinished", "Adjudicated", "TimeExpired",
  "SeatHandedOver", "SeedRevealed", "HintsShown",
];

/** What a pending seat must do, by the state view's `to_act[].kind`. */
export function toDo(kind) {
  const keys = {
    move: "todo.move", exchange: "todo.exchange", discard: "todo.discard",
    draw: "todo.draw", roll: "todo.roll", deal: "todo.deal",
  };
  return keys[kind] ? t(keys[kind]) : kind;
}

const CHANCE_MOVES = { draw: "move.draw", roll: "move.roll", deal: "move.deal" };

/** A seat's player's name, or `seat N` when the seat is unknown. */
export function seatName(seats, seat) {
  const found = (seats || []).find((s) => s.seat === seat);
  return found ? found.name : t("seat.unknown", { seat });
}

/** `red 2` for the piece `red-2`. */
export function pieceName(piece) {
  const cut = piece.lastIndexOf("-");
  return cut < 0 ? piece : t("piece.name", { colour: piece.slice(0, cut), number: piece.slice(cut + 1) });
}

/** A card's name, as printed on it: `Start or 8` for `START_8`, `7` for `7`. */
export const cardName = (card) => t("card.name", { card });

/** A colour's name. */
export const colourName = (colour) => t("colour.name", { colour });

/** A position in words: `square 12`, `safety square 3`, `start`, `home`. */
export function place(at) {
  const [kind, number] = String(at).split(":");
  if (kind === "track") return t("place.track", { number });
  if (kind === "lane") return t("place.lane", { number });
  if (kind === "start") return t("place.start");
  if (kind === "home") return t("place.home");
  return at;
}

/** A list of words joined: `a and b`, `a, b and c`. */
export function names(list) {
  if (list.length < 2) return list.join("");
  return t("names.two", { first: list.slice(0, -1).join(", "), second: list[list.length - 1] });
}

/** Dice in words: `3 and 5`. */
export const diceWords = (dice) => names(dice.map(String));

/** Cards and dice in words: `card 7`, `dice 3 and 5`. */
export function uses(used) {
  if (used === null || used === undefined) return "";
  if (Array.isArray(used)) {
    if (used.length === 1) return t("uses.die", { die: used[0] });
    return t("uses.dice", { first: used.slice(0, -1).join(", "), second: used[used.length - 1] });
  }
  const bonus = /^bonus(\d+)$/.exec(String(used));
  if (bonus) return t("uses.bonus", { count: bonus[1] });
  return t("uses.card", { card: cardName(used) });
}

const then = (parts) => parts.reduce((first, second) => t("move.then", { first, second }));

function pathOf(steps) {
  const byPiece = new Map();
  for (const step of steps) {
    const seen = byPiece.get(step.piece);
    if (seen) seen.to = step.to;
    else byPiece.set(step.piece, { from: step.from, to: step.to });
  }
  return [...byPiece].map(([piece, p]) => t("move.path", { piece: pieceName(piece), from: place(p.from), to: place(p.to) }));
}

function effectText(e) {
  const params = { piece: pieceName(e.piece), to: place(e.to), why: e.why };
  return t(e.why ? "move.effectWhy" : "move.effect", params);
}

/** A move (a legal move, or a MovePlayed event's data) in plain words. */
export function describeMove(move) {
  const id = move.id ?? move.move;
  if (CHANCE_MOVES[id]) return t(CHANCE_MOVES[id]);
  if (id === "decline") return t("move.decline");
  let match = /^11:decline\+discard:(.+)$/.exec(id);
  if (match) return t("move.declineDiscard", { card: cardName(match[1]) });
  match = /^discard:(.+)$/.exec(id);
  if (match) return t("move.discard", { card: cardName(match[1]) });
  match = /^exchange:(.+)$/.exec(id);
  if (match) return t("move.exchange", { card: cardName(match[1]) });
  const steps = move.steps || [];
  const effects = (move.effects || []).map(effectText);
  let what;
  if (id.includes("<>") && steps.length === 2) {
    const [a, b] = steps;
    what = t("move.swap", { piece: pieceName(a.piece), from: place(a.from), other: pieceName(b.piece), otherFrom: place(b.from) });
  } else if (steps.length) {
    what = then(pathOf(steps));
  } else {
    what = id;
  }
  const card = uses(move.uses);
  const said = card ? t("move.with", { uses: card, what }) : what;
  const text = effects.length
    ? t("move.withEffects", { what: said, effects: effects.reduce((first, second) => t("move.effects", { first, second })) })
    : said;
  return text.charAt(0).toLocaleUpperCase() + text.slice(1);
}

/** Who must act now and how, or who won: one sentence per pending seat. */
export function whoseTurn(state, me = null) {
  if (state.status === "finished") {
    const won = state.winners.map((s) => seatName(state.seats, s));
    return [won.length ? t("turn.won", { names: names(won), count: won.length }) : t("turn.over")];
  }
  if (state.to_act.length > 1 && state.to_act.every((p) => p.kind === "exchange")) {
    const mine = state.to_act.some((p) => p.seat === me); // the exchange, said once
    return [mine ? t("turn.you", { todo: toDo("exchange") }) : t("turn.exchange")];
  }
  return state.to_act.map((p) => (p.seat === me
    ? t("turn.you", { todo: toDo(p.kind) })
    : t("turn.seat", { name: seatName(state.seats, p.seat), todo: toDo(p.kind) })));
}

/** The card or dice the pending decision uses, in words, or "" when none is pending. */
export function pendingChance(state) {
  const parts = [];
  if (state.chance && state.chance.card) parts.push(t("chance.card", { card: cardName(state.chance.card) }));
  if (state.chance && state.chance.dice) parts.push(t("chance.dice", { dice: diceWords(state.chance.dice) }));
  if (state.dice_left && state.dice_left.length) parts.push(t("chance.left", { dice: diceWords(state.dice_left) }));
  return parts.length ? parts.reduce((first, second) => t("chance.join", { first, second })) : "";
}

/** Seconds as `m:ss`. */
export function clockText(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
