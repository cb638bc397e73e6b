// Plain words for what the API says, in the page's language (i18n.js): seats by name,
// positions, moves, whose turn. Pure functions of the API's replies, shared by the pages.

import { t } from "./i18n.js";

/** Every event type the log holds (the event stream names each message by its type). */
export const EVENT_TYPES = [
  "GameCreated", "CardDrawn", "DiceRolled", "CardsDealt", "DeckShuffled", "MovePlayed",
  "TurnPassed", "CardExchanged", "MoveUndone", "GameFinished", "Adjudicated", "TimeExpired",
  "SeatHandedOver", "SeedRevealed", "HintsShown",
  "SeatTaken", "SeatLeft", "InvitationDeclined", "TableStarted", "TableClosed",
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

/** A seat's player's name, or `seat N` when the seat is unknown (numbered from 1, as people
 * count: the wire's seat 0 is seat 1). */
export function seatName(seats, seat) {
  const found = (seats || []).find((s) => s.seat === seat);
  return found ? found.name : t("seat.unknown", { seat: typeof seat === "number" ? seat + 1 : seat });
}

/** `red 2` for the piece `red-2`. */
export function pieceName(piece) {
  const cut = piece.lastIndexOf("-");
  return cut < 0 ? piece : t("piece.name", { colour: piece.slice(0, cut), number: piece.slice(cut + 1) });
}

/** A card's name, as printed on it: `Start or 8` for `START_8`, `7` for `7`. */
export const cardName = (card) => t("card.name", { card });

/** A rule set's name for people: `Parchís with two dice` for `parchis-2dice`. */
export const rulesetName = (ruleset) => t(`ruleset.${ruleset}.title`);

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

/** A reason's message: its arguments, and the grammatical gender of the language's word for a
 * piece (`piece.gender`), which the words that describe a piece agree with (`devuelta`). */
const why = (key, params = {}) => t(key, { gender: t("piece.gender"), ...params });

const REASONS = [
  [/^no card has a legal move: (\w+) lays down (.+)$/, (m) => why("why.laysDown", { colour: m[1], cards: names(m[2].split(", ").map(cardName)) })],
  [/^captured by ([\w-]+)(?:: back to (?:jail|the yard))?$/, (m) => why("why.captured", { piece: pieceName(m[1]) })],
  [/^swapped with ([\w-]+)$/, (m) => why("why.swapped", { piece: pieceName(m[1]) })],
  [/^slide of (\w+)$/, (m) => why("why.slide", { colour: m[1] })],
  [/^ended on the (\w+) stack on (\S+)$/, (m) => why("why.stack", { colour: m[1], place: place(m[2]) })],
  [/^no legal move for card '\w+'; \w+ draws again$/, () => why("why.noMoveDrawAgain")],
  [/^no legal move for (?:card '\w+'|a \d|\(\d, \d\))$/, () => why("why.noMove")],
  [/^no legal move for (?:a \d|\(\d, \d\)); throws again$/, () => why("why.noMoveThrowAgain")],
  [/^no legal move for a \d; (\d+) more tr(?:y|ies)$/, (m) => why("why.noMoveTries", { count: Number(m[1]) })],
  [/^no legal move for a \d; no tries left$/, () => why("why.noMoveNoTries")],
  [/^no legal move for the bonus of (\d+): it is lost$/, (m) => why("why.bonusLost", { count: Number(m[1]) })],
  [/^third .+ in a row: not played, (?:nothing goes back, )?turn over$/, () => why("why.thirdNotPlayed")],
  [/^third .+ in a row: the last piece moved goes back to (jail|the yard)$/, (m) => why("why.thirdBack", { back: m[1] === "jail" ? "jail" : "yard" })],
  [/^no legal move for the extra play after a 2$/, () => why("why.noExtraPlay")],
  [/^waits on blue square (\d+) until another pawn takes it$/, (m) => why("why.waitsBlue", { square: m[1] })],
  [/^misses this turn after landing on green square (\d+)$/, (m) => why("why.missesGreen", { square: m[1] })],
  [/^displaced to square (\d+)$/, (m) => why("why.displaced", { square: m[1] })],
  [/^bumped by ([\w-]+)$/, (m) => why("why.bumped", { piece: pieceName(m[1]) })],
  [/^sorry! by ([\w-]+)$/, (m) => why("why.sorryBy", { piece: pieceName(m[1]) })],
  [/^swept by the slide of ([\w-]+)$/, (m) => why("why.swept", { piece: pieceName(m[1]) })],
  [/^landed inside the slide of (\w+)$/, (m) => why("why.insideSlide", { colour: m[1] })],
  [/^(\w+) has all 4 pawns home$/, (m) => why("why.allHome", { colour: m[1] })],
  [/^all four pieces (?:reached the goal|in the home column)$/, () => why("why.allFourHome")],
  [/^(\w+) and (\w+) have all 8 pawns in their lanes$/, (m) => why("why.teamHome", { first: m[1], second: m[2] })],
  [/^reached square 35$/, () => why("why.reached35")],
  [/^red square (\d+): (the game restarts|back to 1)$/, (m) => why("why.redSquare", { square: m[1], restart: m[2] === "the game restarts" ? "yes" : "no" })],
];

/** A reason the referee gave (a pass's, an effect's) in the page's language where its form is
 * known (the cards and pieces it names by their names), else as given. */
export function reasonText(reason) {
  for (const [pattern, said] of REASONS) {
    const match = pattern.exec(String(reason || ""));
    if (match) return said(match);
  }
  return reason;
}

function effectText(e) {
  const params = { piece: pieceName(e.piece), to: place(e.to), why: reasonText(e.why) };
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
  const swapped = id.includes("<>") ? [...steps, ...(move.effects || [])] : [];
  if (swapped.length === 2) { // a swap: its two pieces, no effect told apart
    const [a, b] = swapped;
    what = t("move.swap", { piece: pieceName(a.piece), from: place(a.from), other: pieceName(b.piece), otherFrom: place(b.from) });
    effects.length = 0;
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

/** Whether every seat to act is choosing a card to give its partner (Partners' exchange). */
export const isExchange = (state) => state.to_act.length > 0 && state.to_act.every((p) => p.kind === "exchange");

/** The seat playing in a team with `seat` (the state's `teams`), or null. */
export function partnerOf(state, seat) {
  const team = (state.teams || []).find((seats) => seats.includes(seat));
  return team ? team.find((s) => s !== seat) ?? null : null;
}

/** Who must act now and how, or who won: one sentence per pending seat. */
export function whoseTurn(state, me = null) {
  if (state.status === "finished") {
    const won = state.winners.map((s) => seatName(state.seats, s));
    return [won.length ? t("turn.won", { names: names(won), count: won.length }) : t("turn.over")];
  }
  if (isExchange(state)) { // the exchange, said once
    const mine = state.to_act.some((p) => p.seat === me);
    const partner = partnerOf(state, me);
    return [mine && partner !== null ? t("turn.exchangeYou", { partner: seatName(state.seats, partner) }) : t("turn.exchange")];
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

/** A refusal in the page's language: its type's title, then the server's detail. */
export function problemText(error) {
  const title = error.slug ? t(`problem.${error.slug}`) : "";
  if (!title || title.startsWith("problem.")) return error.message;
  return error.slug === "connection" ? title : t("problem.shown", { title, detail: error.message });
}

/** Seconds as `m:ss`. */
export function clockText(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
