// Plain words for what the API says: seats by name, positions, moves, events, whose turn.
// Pure functions of the API's replies, shared by the viewer and the play page.

/** Every event type the log holds (the event stream names each message by its type). */
export const EVENT_TYPES = [
  "GameCreated", "CardDrawn", "DiceRolled", "CardsDealt", "DeckShuffled", "MovePlayed",
  "TurnPassed", "CardExchanged", "MoveUndone", "GameFinished", "Adjudicated", "TimeExpired",
  "SeedRevealed",
];

/** What a pending seat must do, by the state view's `to_act[].kind`. */
export const TO_DO = {
  move: "move", exchange: "choose a card to give their partner", discard: "discard a card",
  draw: "draw a card", roll: "roll the dice", deal: "deal the cards",
};

const CHANCE_MOVES = { draw: "Draw a card", roll: "Roll the dice", deal: "Deal the cards" };

/** A seat's player's name, or `seat N` when the seat is unknown. */
export function seatName(seats, seat) {
  const found = (seats || []).find((s) => s.seat === seat);
  return found ? found.name : `seat ${seat}`;
}

/** `red 2` for the piece `red-2`. */
export function pieceName(piece) {
  const cut = piece.lastIndexOf("-");
  return cut < 0 ? piece : `${piece.slice(0, cut)} ${piece.slice(cut + 1)}`;
}

/** A position in words: `square 12`, `safety square 3`, `start`, `home`. */
export function place(at) {
  const [kind, number] = String(at).split(":");
  if (kind === "track") return `square ${number}`;
  if (kind === "lane") return `safety square ${number}`;
  return at;
}

/** Cards and dice in words: `card 7`, `dice 3 and 5`. */
export function uses(used) {
  if (used === null || used === undefined) return "";
  if (Array.isArray(used)) return used.length === 1 ? `die ${used[0]}` : `dice ${used.join(" and ")}`;
  return `card ${used}`;
}

function pathOf(steps) {
  const byPiece = new Map();
  for (const step of steps) {
    const seen = byPiece.get(step.piece);
    if (seen) seen.to = step.to;
    else byPiece.set(step.piece, { from: step.from, to: step.to });
  }
  return [...byPiece].map(([piece, p]) => `${pieceName(piece)} from ${place(p.from)} to ${place(p.to)}`);
}

/** A move (a legal move, or a MovePlayed event's data) in plain words. */
export function describeMove(move) {
  const id = move.id ?? move.move;
  if (CHANCE_MOVES[id]) return CHANCE_MOVES[id];
  if (id === "decline") return "Decline: move no pawn";
  let match = /^11:decline\+discard:(.+)$/.exec(id);
  if (match) return `Decline the 11's swap and discard card ${match[1]}`;
  match = /^discard:(.+)$/.exec(id);
  if (match) return `Discard card ${match[1]}`;
  match = /^exchange:(.+)$/.exec(id);
  if (match) return `Give card ${match[1]} to your partner`;
  const steps = move.steps || [];
  const effects = (move.effects || []).map(
    (e) => `${pieceName(e.piece)} goes to ${place(e.to)}${e.why ? `, ${e.why}` : ""}`,
  );
  let what;
  if (id.includes("<>") && steps.length === 2) {
    const [a, b] = steps;
    what = `swap ${pieceName(a.piece)} on ${place(a.from)} with ${pieceName(b.piece)} on ${place(b.from)}`;
  } else if (steps.length) {
    what = pathOf(steps).join(", then ");
  } else {
    what = id;
  }
  const card = uses(move.uses);
  const said = `${card ? `${card}: ` : ""}${what}`;
  const text = effects.length ? `${said} (${effects.join("; ")})` : said;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function names(seats, list) {
  return list.map((s) => seatName(seats, s)).join(" and ");
}

/** An event of the log in plain words, naming seats by their players' names. */
export function describeEvent(event, seats) {
  const d = event.data || {};
  const who = d.seat === undefined || d.seat === null ? "" : seatName(seats, d.seat);
  switch (event.type) {
    case "GameCreated": return `${d.ruleset} for ${d.seats.join(", ")}`;
    case "CardDrawn": return `${who} draws card ${d.card}`;
    case "DiceRolled": return `${who} rolls ${d.dice.join(" and ")}`;
    case "CardsDealt": return `${seatName(seats, d.dealer)} deals ${(d.hands[0] || []).length} cards each`;
    case "DeckShuffled": return `${d.cards} discarded cards shuffled back into the pile`;
    case "MovePlayed": return `${who}${d.auto ? " (by itself)" : ""}: ${describeMove(d)}`;
    case "TurnPassed": return `${who} passes: ${d.reason}`;
    case "CardExchanged": return `${who} gives card ${d.card} to ${seatName(seats, d.to)}`;
    case "MoveUndone": return `undone back to before event ${d.reverts}${d.reason ? `: ${d.reason}` : ""}`;
    case "GameFinished":
      return `game over: ${d.winners.length ? `${names(seats, d.winners)} won` : "no winner"}${d.reason ? ` (${d.reason})` : ""}`;
    case "Adjudicated": return `referee's ${d.kind}${who ? ` for ${who}` : ""}: ${d.reason}`;
    case "TimeExpired": return `${who} ran out of time: ${d.consequence}`;
    case "SeedRevealed": return "the seed is revealed";
    default: return JSON.stringify(d);
  }
}

/** Who must act now and how, or who won: one sentence per pending seat. */
export function whoseTurn(state, me = null) {
  if (state.status === "finished") {
    return [state.winners.length ? `Game over: ${names(state.seats, state.winners)} won.` : "Game over."];
  }
  return state.to_act.map((p) => {
    const name = p.seat === me ? "You" : seatName(state.seats, p.seat);
    return `${name} must ${TO_DO[p.kind] || p.kind}.`;
  });
}

/** The card or dice the pending decision uses, in words, or "" when none is pending. */
export function pendingChance(state) {
  const parts = [];
  if (state.chance && state.chance.card) parts.push(`Card in play: ${state.chance.card}`);
  if (state.chance && state.chance.dice) parts.push(`Dice: ${state.chance.dice.join(" and ")}`);
  if (state.dice_left && state.dice_left.length) parts.push(`Dice left to play: ${state.dice_left.join(" and ")}`);
  return parts.join(". ");
}

/** Seconds as `m:ss`. */
export function clockText(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
