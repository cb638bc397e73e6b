// The play page's account of the game: every event of the log in words, the latest first, in
// an aria-live region (a screen reader says each new line). What others (and bots) did is told
// one line at a time, at a pace a person can follow; a passed turn names the card or dice that
// left no move, and is held a little longer before the next line.

import { call } from "./api.js";
import { describeMove, seatName } from "./words.js";

export const PACE_MS = 700; // between two lines told
const PASS_HOLD_MS = 1600; // after a passed turn, before the next line
const KEPT = 60; // lines kept on the page

function chanceOf(event) {
  if (event.type === "CardDrawn") return { card: event.data.card };
  if (event.type === "DiceRolled") return { dice: event.data.dice };
  return null;
}

/** A card or dice as a small chip (a card, die faces), with its words for screen readers. */
function chip(chance) {
  const made = document.createElement("span");
  if (chance.card !== undefined) {
    made.className = "card mini";
    made.textContent = chance.card;
  } else {
    made.className = "dice";
    for (const value of chance.dice) {
      const die = document.createElement("span");
      die.className = "die";
      die.textContent = value;
      made.append(die);
    }
  }
  return made;
}

function chanceWords(chance) {
  if (chance.card !== undefined) return `card ${chance.card}`;
  return chance.dice.length === 1 ? `a ${chance.dice[0]}` : chance.dice.join(" and ");
}

/** What kind of move it was, for the line's `data-kind`: a capture, a bump, a slide or a move. */
function moveKind(data) {
  const whys = (data.effects || []).map((e) => e.why || "");
  if (whys.some((w) => w.includes("captured"))) return "capture";
  if ((data.effects || []).some((e) => e.to === "start")) return "bump";
  if (whys.some((w) => w.includes("slide"))) return "slide";
  return "move";
}

/** One event in words (with the chance that caused a pass): `{ text, kind, chance }`. */
export function tell(event, seats, lastChance) {
  const d = event.data || {};
  const who = d.seat === undefined || d.seat === null ? "" : seatName(seats, d.seat);
  switch (event.type) {
    case "GameCreated": return { text: `The game begins: ${d.seats.join(", ")}.`, kind: "start" };
    case "CardDrawn": return { text: `${who} draws card ${d.card}.`, kind: "draw", chance: { card: d.card } };
    case "DiceRolled": return { text: `${who} rolls ${d.dice.join(" and ")}.`, kind: "roll", chance: { dice: d.dice } };
    case "CardsDealt": {
      const count = (d.hands[0] || []).length;
      return { text: `${seatName(seats, d.dealer)} deals ${count} ${count === 1 ? "card" : "cards"} to each player.`, kind: "deal" };
    }
    case "DeckShuffled": return { text: `The ${d.cards} discarded cards are shuffled into a new pile.`, kind: "shuffle" };
    case "MovePlayed": {
      const bonus = /(^|,)bonus\d/.test(d.move || "") ? "bonus" : null;
      const kind = bonus || moveKind(d);
      return { text: `${who}${d.auto ? " (played by itself)" : ""}: ${describeMove(d)}.`, kind };
    }
    case "TurnPassed": {
      const chance = lastChance.get(d.seat);
      const text = chance
        ? `${who} cannot move with ${chanceWords(chance)}: ${d.reason}. The turn passes.`
        : `${who} passes: ${d.reason}.`;
      return { text, kind: "pass", chance };
    }
    case "CardExchanged":
      return { text: `${who} gives ${d.card ? `card ${d.card}` : "a card"} to ${seatName(seats, d.to)}.`, kind: "exchange" };
    case "MoveUndone": return { text: `Taken back: everything from event ${d.reverts} on${d.reason ? ` (${d.reason})` : ""}.`, kind: "undo" };
    case "GameFinished": {
      const won = d.winners.map((s) => seatName(seats, s)).join(" and ");
      return { text: `Game over: ${won ? `${won} won` : "no winner"}${d.reason ? ` (${d.reason})` : ""}.`, kind: "finish" };
    }
    case "Adjudicated": return { text: `The referee's ${d.kind}${who ? ` for ${who}` : ""}: ${d.reason}.`, kind: "referee" };
    case "TimeExpired": return { text: `${who} ran out of time: ${d.consequence}.`, kind: "timeout" };
    case "SeedRevealed": return { text: "The seed is revealed: the game's chance can be checked.", kind: "seed" };
    default: return { text: event.type, kind: "other" };
  }
}

/**
 * The account in the list `root`: `history(events)` tells the log so far at once, `add(events)`
 * queues new events and tells them one by one; `seats()` gives the seats' names.
 */
export function createAccount(root, seats) {
  const queue = [];
  const lastChance = new Map(); // the last card or dice each seat drew or rolled
  let last = 0; // the latest version queued or told
  let timer = null;

  const line = (event) => {
    const said = tell(event, seats(), lastChance);
    const chance = chanceOf(event);
    if (chance) lastChance.set(event.data.seat, chance);
    const item = document.createElement("li");
    item.dataset.version = event.version;
    item.dataset.type = event.type;
    item.dataset.kind = said.kind;
    item.className = `told ${said.kind}`;
    const words = document.createElement("span");
    words.textContent = said.text;
    if (said.chance) {
      const shown = chip(said.chance);
      shown.setAttribute("aria-hidden", "true");
      item.append(shown, " ");
    }
    item.append(words);
    if (event.type === "MoveUndone") {
      for (const old of root.children) if (+old.dataset.version >= event.data.reverts) old.classList.add("undone");
    }
    root.prepend(item);
    while (root.children.length > KEPT) root.lastElementChild.remove();
    root.dataset.version = event.version;
    return said.kind;
  };

  const next = () => {
    timer = null;
    const event = queue.shift();
    if (!event) return;
    const kind = line(event); // the next line waits its turn, even if it comes later
    timer = setTimeout(next, kind === "pass" ? PASS_HOLD_MS : PACE_MS);
  };

  const fresh = (events) => events.filter((e) => e.version > last).sort((a, b) => a.version - b.version);

  return {
    history(events) {
      const told = fresh(events);
      if (!told.length) return;
      last = told[told.length - 1].version;
      const quiet = root.getAttribute("aria-live");
      root.setAttribute("aria-live", "off"); // the past is not announced
      told.forEach(line);
      root.setAttribute("aria-live", quiet || "polite");
    },
    add(events) {
      const told = fresh(events);
      if (!told.length) return;
      last = told[told.length - 1].version;
      queue.push(...told);
      if (!timer) next();
    },
    /** Whether every event queued has been told. */
    idle: () => !queue.length,
  };
}

/** The log so far (read with the token, so a seat sees its live game), page by page. */
export async function readLog(gameId, token) {
  const events = [];
  for (let after = 0; ;) {
    const page = await call(`/games/${gameId}/events?after=${after}`, { token });
    events.push(...page.events);
    if (!page.events.length) return events;
    after = page.events[page.events.length - 1].version;
    if (after >= page.version) return events;
  }
}
