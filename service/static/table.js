// The players at the table: each seat's name, colour (a swatch with the colour's letter, so
// colour is never the only cue), what it must do now, turns it misses (race35), its hand's
// size and its clock; whether the seat's person is here (present) or away, and, while the
// table gathers, the seats still awaited (open to anyone, or kept for an invited player).

import { t } from "./i18n.js";
import { clockText, colourName, isExchange, toDo } from "./words.js";

function element(tag, className, text) {
  const made = document.createElement(tag);
  if (className) made.className = className;
  if (text !== undefined) made.textContent = text;
  return made;
}

/** A colour's swatch: its initial on the colour. */
export function swatch(colour) {
  const mark = element("span", `swatch colour-${colour}`, colour.charAt(0).toUpperCase());
  mark.setAttribute("aria-hidden", "true");
  return mark;
}

function handSize(state, seat) {
  const hand = (state.hands || []).find((h) => h.seat === seat);
  if (!hand) return null;
  return hand.cards ? hand.cards.length : hand.count;
}

/** Fill `list` with one item per seat of `state`; `me` is the caller's seat, if any. */
export function renderSeats(list, state, me = null) {
  const exchange = isExchange(state); // said once, in the turn's line, not at every seat
  list.replaceChildren(...state.seats.map((seat) => {
    const item = element("li", "seat");
    item.dataset.seat = seat.seat;
    const pending = state.to_act.find((p) => p.seat === seat.seat);
    item.classList.toggle("pending", Boolean(pending));
    const awaited = seat.open || seat.invite;
    const name = seat.open ? t("seats.open") : seat.invite ? t("seats.invited", { handle: seat.invite }) : seat.name;
    item.classList.toggle("awaited", Boolean(awaited));
    item.append(swatch(seat.colour), element("span", "name", name), " ", t("seats.colour", { colour: colourName(seat.colour) }));
    if (!awaited && !seat.bot && typeof seat.present === "boolean") {
      const here = element("span", `presence ${seat.present ? "present" : "away"}`, ` ${t(seat.present ? "seats.present" : "seats.away")}`);
      item.dataset.present = String(seat.present);
      item.append(here);
    }
    if (seat.seat === me) item.append(element("span", "you", ` ${t("seats.you")}`));
    if (state.winners.includes(seat.seat)) item.append(element("strong", "won", ` ${t("seats.won")}`));
    if (pending && !exchange) item.append(element("span", "todo", ` ${t("seats.todo", { todo: toDo(pending.kind) })}`));
    const status = (state.statuses || []).find((s) => s.seat === seat.seat);
    if (status && status.skip_turns) item.append(element("span", "status", t("seats.misses", { count: status.skip_turns })));
    if (status && status.waiting) item.append(element("span", "status", t("seats.waiting")));
    const size = handSize(state, seat.seat);
    if (size !== null) item.append(element("span", "hand-size", t("seats.cards", { count: size })));
    if (state.clock) item.append(element("span", "clock", ""));
    return item;
  }));
  tickClocks(list, state);
}

/** Mark each seat of `list` present or away as the socket's presence message `seats` says. */
export function showPresence(list, state, seats) {
  for (const { seat, present } of seats) {
    const shown = state && state.seats.find((s) => s.seat === seat);
    if (shown) shown.present = present;
    const here = list.querySelector(`.seat[data-seat="${seat}"] .presence`);
    if (!here) continue;
    here.className = `presence ${present ? "present" : "away"}`;
    here.textContent = ` ${t(present ? "seats.present" : "seats.away")}`;
    here.parentElement.dataset.present = String(present);
  }
}

/** Show each seat's time left: the pending seats' counting down to their deadlines. */
export function tickClocks(list, state, now = Date.now()) {
  if (!state.clock) return;
  for (const item of list.querySelectorAll(".seat")) {
    const seat = Number(item.dataset.seat);
    const deadline = state.clock.deadlines[String(seat)];
    const left = deadline && state.status === "active"
      ? (Date.parse(deadline) - now) / 1000
      : state.clock.remaining[seat];
    const clock = item.querySelector(".clock");
    if (clock) clock.textContent = left === null || left === undefined ? "" : t("seats.clock", { time: clockText(left) });
  }
}
