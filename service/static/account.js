// The play page's account of the game: every event of the log in words, the latest first, in
// an aria-live region (a screen reader says each new line). What others (and bots) did is told
// one line at a time, at a pace a person can follow; a passed turn names the card or dice that
// left no move, and is held a little longer before the next line. The pace never lets the
// account fall behind: no line waits more than LATE_MS to be told (the lines come faster while
// many wait), and beyond MOST_WAITING lines waiting the oldest are told at once.

import { call } from "./api.js";
import { t } from "./i18n.js";
import { chanceChip } from "./faces.js";
import { cardName, describeMove, diceWords, names, reasonText, seatName } from "./words.js";

/** Each pace a person may choose (kept in localStorage): the milliseconds between two lines
 * told, and after a passed turn before the next line. */
export const PACES = { steady: [700, 1600], brisk: [250, 600], instant: [0, 0] };
const PACE_KEPT = "tabula:pace";

/** The pace chosen in this browser, "steady" unless another was. */
export function chosenPace() {
  const kept = localStorage.getItem(PACE_KEPT);
  return Object.hasOwn(PACES, kept ?? "") ? kept : "steady";
}

/** Let `select` choose the pace: it shows the one chosen and keeps a new choice. */
export function offerPace(select) {
  select.value = chosenPace();
  select.onchange = () => localStorage.setItem(PACE_KEPT, select.value);
}

const KEPT = 60; // lines kept on the page
/** The longest a line waits to be told (ms), whatever the pace. */
export const LATE_MS = 3000;
/** The most lines that wait their turn: the older ones are told at once, unannounced. */
export const MOST_WAITING = 6;

/** The time until the next line of `waiting` (each `{ at }`, when it came) is told, `pace`
 * ms at most: short enough that each is told within LATE_MS of its coming, at `now`. */
export function nextGap(pace, waiting, now) {
  let gap = pace;
  waiting.forEach(({ at }, index) => {
    gap = Math.min(gap, (at + LATE_MS - now) / (index + 1));
  });
  return Math.max(0, gap);
}

function chanceOf(event) {
  if (event.type === "CardDrawn") return { card: event.data.card };
  if (event.type === "DiceRolled") return { dice: event.data.dice };
  return null;
}

/** What kind of move it was, for the line's `data-kind`: a capture, a bump, a slide or a move. */
function moveKind(data) {
  const whys = (data.effects || []).map((e) => e.why || "");
  if (/(^|,)bonus\d/.test(data.move || "")) return "bonus";
  if (whys.some((w) => w.includes("captured"))) return "capture";
  if ((data.effects || []).some((e) => e.to === "start")) return "bump";
  if (whys.some((w) => w.includes("slide"))) return "slide";
  return "move";
}

function passed(name, given, chance) {
  const reason = reasonText(given);
  if (!chance) return t("account.passes", { name, reason });
  if (chance.card !== undefined) return t("account.cannotMoveCard", { name, card: cardName(chance.card), reason });
  return t("account.cannotMoveDice", { name, dice: diceWords(chance.dice), reason });
}

function finished(d, seats) {
  const won = names(d.winners.map((s) => seatName(seats, s)));
  const count = d.winners.length;
  const reason = reasonText(d.reason);
  if (won) return t(d.reason ? "account.wonWhy" : "account.won", { names: won, count, reason });
  return t(d.reason ? "account.noWinnerWhy" : "account.noWinner", { reason });
}

/** One event in words (with the chance that caused a pass): `{ text, kind, chance }`;
 * `lastChance` holds each seat's last card or dice. */
export function tell(event, seats, lastChance = new Map()) {
  const d = event.data || {};
  const name = d.seat === undefined || d.seat === null ? "" : seatName(seats, d.seat);
  switch (event.type) {
    case "GameCreated": return { text: t("account.begins", { names: names(d.seats.filter(Boolean)) }), kind: "start" };
    case "SeatTaken": return { text: t("account.seatTaken", { name: d.name }), kind: "table" };
    case "SeatLeft": return { text: t("account.seatLeft", { number: d.seat + 1 }), kind: "table" };
    case "InvitationDeclined":
      return { text: t(d.reason === "expired" ? "account.invitationExpired" : "account.invitationDeclined", { number: d.seat + 1 }), kind: "table" };
    case "TableStarted": return { text: t("account.tableStarted"), kind: "table" };
    case "TableClosed": return { text: t(d.reason === "expired" ? "account.tableExpired" : "account.tableCancelled"), kind: "table" };
    case "CardDrawn": return { text: t("account.draws", { name, card: cardName(d.card) }), kind: "draw", chance: { card: d.card } };
    case "DiceRolled": return { text: t("account.rolls", { name, dice: diceWords(d.dice) }), kind: "roll", chance: { dice: d.dice } };
    case "CardsDealt": {
      const count = (d.hands[0] || []).length;
      return { text: t("account.deals", { name: seatName(seats, d.dealer), count }), kind: "deal" };
    }
    case "DeckShuffled": return { text: t("account.shuffled", { count: d.cards }), kind: "shuffle" };
    case "MovePlayed":
      return { text: t(d.auto ? "account.movesAuto" : "account.moves", { name, move: describeMove(d) }), kind: moveKind(d) };
    case "TurnPassed": {
      const chance = lastChance.get(d.seat);
      return { text: passed(name, d.reason, chance), kind: "pass", chance };
    }
    case "CardExchanged": {
      const to = seatName(seats, d.to);
      return { text: d.card ? t("account.gives", { name, card: cardName(d.card), to }) : t("account.givesHidden", { name, to }), kind: "exchange" };
    }
    case "MoveUndone":
      return { text: t(d.reason ? "account.undoneWhy" : "account.undone", { version: d.reverts, reason: d.reason }), kind: "undo" };
    case "GameFinished": return { text: finished(d, seats), kind: "finish" };
    case "Adjudicated":
      return { text: t(name ? "account.refereeFor" : "account.referee", { kind: d.kind, name, reason: d.reason }), kind: "referee" };
    case "TimeExpired": return { text: t("account.timeout", { name, consequence: d.consequence }), kind: "timeout" };
    case "SeedRevealed": return { text: t("account.seed"), kind: "seed" };
    default: return { text: event.type, kind: "other" };
  }
}

/** Prepend `event`'s line to `root` (keeping KEPT lines): its words, the card or dice of a
 * pass, and its version, type and kind in data attributes; its kind. */
function tellLine(root, event, seats, lastChance) {
  const said = tell(event, seats, lastChance);
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
    const shown = chanceChip(said.chance);
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
}

/**
 * The account in the list `root`: `history(events)` tells the log so far at once, `add(events)`
 * queues new events and tells them one by one; `seats()` gives the seats' names.
 * `whenTold(version, then)` calls `then` once every event up to `version` is told (or, should
 * they never come, after LATE_MS and a second more).
 */
export function createAccount(root, seats) {
  const queue = []; // { event, at }: the events waiting their turn, and when each came
  const lastChance = new Map(); // the last card or dice each seat drew or rolled
  const waiters = new Set(); // { version, then }: called once the account has told that far
  let last = 0; // the latest version queued or told
  let told = 0; // the latest version told
  let timer = null;
  let ready = false; // whether the log so far is told (news wait until it is)
  const early = [];

  const line = (event) => {
    const kind = tellLine(root, event, seats(), lastChance);
    told = Math.max(told, event.version);
    return kind;
  };

  const answer = (waiter) => {
    waiters.delete(waiter);
    waiter.then();
  };
  const answerTold = () => waiters.forEach((waiter) => waiter.version <= told && answer(waiter));

  /** Tell `events` at once, without announcing them (the last line told will be). */
  const quietly = (entries) => {
    if (!entries.length) return;
    root.setAttribute("aria-live", "off");
    entries.forEach((entry) => line(entry.event));
    root.setAttribute("aria-live", "polite");
  };

  let lastAt = 0; // when the latest line was told one by one
  let lastPace = 0; // and the pace after it

  /** The next line at the pace after the latest, sooner where one would wait too long. */
  const schedule = () => {
    clearTimeout(timer);
    const due = lastAt + nextGap(lastPace, queue, lastAt);
    timer = setTimeout(next, Math.max(0, due - performance.now()));
  };

  const next = () => {
    timer = null;
    quietly(queue.splice(0, Math.max(0, queue.length - MOST_WAITING)));
    const entry = queue.shift();
    if (entry) {
      const kind = line(entry.event); // the next line waits its turn, even if it comes later
      const [between, afterPass] = PACES[chosenPace()];
      [lastAt, lastPace] = [performance.now(), kind === "pass" ? afterPass : between];
      schedule();
    }
    answerTold();
  };

  const fresh = (events) => events.filter((e) => e.version > last).sort((a, b) => a.version - b.version);

  return {
    history(events) {
      const past = fresh(events);
      if (past.length) {
        last = past[past.length - 1].version;
        root.setAttribute("aria-live", "off"); // the past is not announced
        past.forEach(line);
        root.setAttribute("aria-live", "polite");
      }
      ready = true;
      this.add(early.splice(0));
      answerTold();
    },
    add(events) {
      if (!ready) {
        early.push(...events);
        return;
      }
      const news = fresh(events);
      if (!news.length) return;
      last = news[news.length - 1].version;
      const at = performance.now();
      queue.push(...news.map((event) => ({ event, at })));
      if (!timer) return next();
      quietly(queue.splice(0, Math.max(0, queue.length - MOST_WAITING)));
      schedule(); // sooner, if the news would wait too long
      answerTold();
    },
    /** Tell every event waiting at once. */
    hurry() {
      quietly(queue.splice(0, Math.max(0, queue.length - 1)));
      if (queue.length) {
        clearTimeout(timer);
        next();
      }
    },
    whenTold(version, then) {
      const waiter = { version, then };
      if (version <= told) return then();
      waiters.add(waiter);
      setTimeout(() => {
        if (!waiters.has(waiter)) return;
        this.hurry(); // what came is told at once, which may answer it
        if (waiters.has(waiter)) answer(waiter);
      }, LATE_MS + 1000);
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
