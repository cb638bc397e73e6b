"""The game as one seat knows it: its log (already redacted for the seat) folded into a state.

Where the seat may not see cards (other hands, cards passed between others), the bot fills
them in with a *determinization*: cards chosen at random among those the seat has not seen,
kept consistent with what it has seen. A card another seat later plays must have been in that
seat's hand, so a first pass follows every hidden card as a token from hand to hand and pins
the tokens that were played (``bots.pins``); the fold then gives every pinned token its card
and every other one a card drawn from the pile the fold holds at that moment, less the pinned
cards still to come. The bot never sees the game's seed or chance stream: its own generator picks.
"""

from __future__ import annotations

import copy
import random
from collections import Counter, OrderedDict
from collections.abc import Iterator
from typing import Any, NamedTuple

import msgspec
from msgspec.structs import replace

from bots.latest import keep
from bots.pins import Token, follow, follow_on
from domain.events import (
    CardDrawn,
    CardExchanged,
    CardsDealt,
    DeckShuffled,
    Event,
    GameCreated,
)
from domain.model import HIDDEN, Deal, Draw
from domain.registry import find_ruleset
from domain.replay import Frame, Replay

TRIES = 2
"""Determinizations tried: the first pins each play to the oldest card it can, the second to
the epoch likeliest to have given the card (and picks at random among equals)."""


class Inconsistent(Exception):
    """No determinization of the log could be folded (the fold refused every try)."""


def rebuild(seen: list[Event], seat: int, rng: random.Random) -> Replay:
    """The log folded, hidden cards filled in consistently with what ``seat`` has seen."""
    created = seen[0]
    if not isinstance(created, GameCreated):
        raise ValueError("a game's log starts with GameCreated")
    if not any(_hidden(event) for event in seen):
        return _fold_public(created, seen, seat)
    return determinize(seen, seat, rng)[1]


def determinize(seen: list[Event], seat: int, rng: random.Random) -> tuple[list[Event], Replay]:
    """A log the seat could not tell from ``seen`` with every hidden card filled in, and its
    fold; Inconsistent when no try folds. The first try goes on from what the seat's last
    first fill kept, as ``fills`` does."""
    created = seen[0]
    assert isinstance(created, GameCreated)
    key = (msgspec.json.encode(created), seat)
    for attempt in range(TRIES):
        start = None
        if attempt == 0:
            pinned, travels = follow_on(key, seen, seat, rng, _deck(created))
            start = _kept_fill(key, seen, pinned, travels)
        else:
            pinned, travels = follow(seen, seat, rng, oldest=False, deck=_deck(created))
        try:
            fold = _replay(created, seen, pinned, travels, rng, start)
        except FOLD_ERRORS:
            continue
        if attempt == 0:
            keep(FILLS, key, (seen, pinned, travels, fold))
        return fold.filled, fold.replay
    raise Inconsistent(f"no determinization of the log for seat {seat} folds")


def fills(seen: list[Event], seat: int, rng: random.Random, count: int) -> Iterator[Replay]:
    """Up to ``count`` folds of the log, each filling the hidden cards in afresh, consistently
    with what ``seat`` has seen (fewer when a fill cannot be folded; one when nothing is
    hidden). The cards are followed once, the first way ``determinize`` tries; every fill
    folds alike up to the first hidden card that no later play pins, so each fill after the
    first folds on from there (in a deal-by-deal game, the latest deal). The first fill folds
    on from the previous call's first fill for the same game and seat where the log before
    that fill's ``at`` is unchanged (``FILLS``), so a seat asked again within a deal folds
    only the events since the deal."""
    created = seen[0]
    if not isinstance(created, GameCreated):
        raise ValueError("a game's log starts with GameCreated")
    if not any(_hidden(event) for event in seen):
        yield _fold_public(created, seen, seat)
        return
    key = (msgspec.json.encode(created), seat)
    pinned, travels = follow_on(key, seen, seat, rng, _deck(created))
    first: _Fold | None = None
    for tried in range(count):
        try:
            if first is None and tried > 0:
                raise ValueError("the shared follow did not fold")
            start = first or _kept_fill(key, seen, pinned, travels)
            fold = _replay(created, seen, pinned, travels, rng, start)
            if first is None:
                first = fold
                keep(FILLS, key, (seen, pinned, travels, fold))
            yield fold.replay
        except FOLD_ERRORS:
            try:
                yield determinize(seen, seat, rng)[1]
            except Inconsistent:
                continue


FOLD_ERRORS = (KeyError, ValueError, IndexError)
"""What a fold of a filled log that contradicts itself raises."""

FOLDS: OrderedDict[tuple[bytes, int], tuple[list[Event], Replay]] = OrderedDict()
"""The latest folds of logs with nothing hidden, by game settings and seat: a bot asked again
later in the same game folds only the events since (its log starts with the one folded)."""


FILLS: OrderedDict[
    tuple[bytes, int], tuple[list[Event], dict[Token, str], dict[int, Token | str], _Fold]
] = OrderedDict()
"""The latest first fill of each game and seat (by game settings and seat), with the log and
pins it was made from: the next fill of the same game folds on from its ``at`` when what
comes before is the same (the log, the pins, the exchanges). Before ``at`` every hidden card
is pinned and no card is chosen at random, so the fold is the same either way."""


def _kept_fill(
    key: tuple[bytes, int],
    seen: list[Event],
    pinned: dict[Token, str],
    travels: dict[int, Token | str],
) -> _Fold | None:
    """The kept first fill of ``key`` as a start for this log and these pins, else None."""
    kept = FILLS.pop(key, None)  # taken out while in use: another thread folds its own
    if kept is None:
        return None
    earlier, was_pinned, travelled, fold = kept
    at = fold.at
    if at >= len(seen) or len(earlier) < at or seen[:at] != earlier[:at]:
        return None
    if _before(pinned, at) != _before(was_pinned, at) or _before(travels, at) != _before(
        travelled, at
    ):
        return None
    ahead = _Ahead(seen, pinned)  # what later draws still need follows this log's pins
    ahead.skip(at)
    return fold._replace(ahead=ahead)


def _before(items: dict[Any, Any], at: int) -> dict[Any, Any]:
    """The entries of a map by token or event index that belong to events before ``at``."""
    return {k: v for k, v in items.items() if (k[0] if isinstance(k, tuple) else k) < at}


def _fold_public(created: GameCreated, seen: list[Event], seat: int) -> Replay:
    key = (msgspec.json.encode(created), seat)
    cached = FOLDS.pop(key, None)  # taken out while in use: another thread folds its own
    if cached is not None and len(cached[0]) <= len(seen) and seen[: len(cached[0])] == cached[0]:
        folded, replay = cached
        for version, event in enumerate(seen[len(folded) :], start=len(folded) + 1):
            replay.push(version, event)
    else:
        replay = _fold(created, seen)
    keep(FOLDS, key, (list(seen), replay))
    return replay


def _fold(created: GameCreated, events: list[Event]) -> Replay:
    replay = Replay(created)
    for version, event in enumerate(events[1:], start=2):
        replay.push(version, event)
    return replay


def _hidden(event: Event) -> bool:
    match event:
        case CardsDealt(hands=hands):
            return any(HIDDEN in hand for hand in hands)
        case CardDrawn(card=card) | CardExchanged(card=card):
            return card == HIDDEN
    return False


def _deck(created: GameCreated) -> Counter[str]:
    """Every card of the game's deck (the pile of its first deal or draw)."""
    rules = find_ruleset(created.ruleset, created.ruleset_version)
    need = rules.chance(rules.setup(created.options, len(created.seats)))
    return Counter(need.pile) if isinstance(need, Deal | Draw) else Counter()


def _replay(
    created: GameCreated,
    seen: list[Event],
    pinned: dict[Token, str],
    travels: dict[int, Token | str],
    rng: random.Random,
    start: _Fold | None = None,
) -> _Fold:
    """The log with every hidden card given a value, and its fold (folding as it goes tells
    the pile); from ``start``'s fold of the same log and pins at ``at`` when given (the
    events before it folded alike)."""
    rules = find_ruleset(created.ruleset, created.ruleset_version)
    filled: list[Event]
    if start is None:
        begin, replay, values, filled = 1, Replay(created), {}, [created]
        ahead = _Ahead(seen, pinned)
    else:
        begin, replay = start.at, Replay(created, start.frame, start.frame.version)
        values = {token: card for token, card in start.values.items() if token[0] < begin}
        filled, ahead = start.filled[:begin], start.ahead.copy()
    at, frame, marks = _fork(seen, pinned), replay.top, ahead
    for index, event in enumerate(seen[begin:], start=begin):
        if index == at:
            frame, marks = replay.top, ahead.copy()
        ahead.reach(index)
        if _hidden(event):
            event = _fill_one(
                rules, replay.state, event, index, pinned, travels, values, ahead, rng
            )
        replay.push(index + 1, event)
        filled.append(event)
    if at >= len(seen):
        frame = replay.top
    return _Fold(filled, replay, values, at, frame, marks)


class _Fold(NamedTuple):
    """A filled log, its fold, the value given to each hidden card, ``at``: the index of the
    first event whose hidden cards are chosen at random (every fill with the same pins folds
    alike before it); ``frame`` and ``ahead``: the fold's top frame and cards ahead just
    before that event."""

    filled: list[Event]
    replay: Replay
    values: dict[Token, str]
    at: int
    frame: Frame
    ahead: _Ahead


def _fork(seen: list[Event], pinned: dict[Token, str]) -> int:
    """The index of the first event with a hidden card no later play pins."""
    for index, event in enumerate(seen):
        match event:
            case CardDrawn(card=card) if card == HIDDEN and (index, 0) not in pinned:
                return index
            case CardsDealt(hands=hands):
                for place, cards in enumerate(hands):
                    for k, card in enumerate(cards):
                        if card == HIDDEN and (index, place * 100 + k) not in pinned:
                            return index
    return len(seen)


def _fill(
    created: GameCreated,
    seen: list[Event],
    pinned: dict[Token, str],
    travels: dict[int, Token | str],
    rng: random.Random,
) -> list[Event]:
    """The log with every hidden card given a value."""
    return _replay(created, seen, pinned, travels, rng).filled


class _Ahead:
    """The cards the log's draws and deals still have to take from the pile before it is next
    refilled: pinned hidden cards and cards the seat saw drawn (the fold must leave them)."""

    def __init__(self, seen: list[Event], pinned: dict[Token, str]) -> None:
        self.demands: dict[int, list[str]] = {}
        self.epochs: list[Counter[str]] = [Counter()]
        self.epoch_of: dict[int, int] = {}
        for (at, _), card in pinned.items():
            self.demands.setdefault(at, []).append(card)
        for index, event in enumerate(seen):
            match event:
                case DeckShuffled():
                    self.epochs.append(Counter())
                case CardDrawn(card=card) if card != HIDDEN:
                    self.demands.setdefault(index, []).append(card)
                case CardsDealt(hands=hands):
                    shown = [card for hand in hands for card in hand if card != HIDDEN]
                    self.demands.setdefault(index, []).extend(shown)
            self.epoch_of[index] = len(self.epochs) - 1
            if index in self.demands:
                self.epochs[-1].update(self.demands[index])
        self.current: Counter[str] = Counter()

    def reach(self, index: int) -> None:
        """Move on to the event at ``index``: its own cards are no longer ahead."""
        self.current = self.epochs[self.epoch_of[index]]
        self.current.subtract(self.demands.get(index, ()))

    def skip(self, to: int) -> None:
        """Move on to the event before ``to`` as ``reach`` would, event by event, from the
        start (only the epoch reached is kept up to date)."""
        epoch = self.epoch_of[to - 1]
        self.current = self.epochs[epoch]
        for index, cards in self.demands.items():
            if index < to and self.epoch_of[index] == epoch:
                self.current.subtract(cards)

    def copy(self) -> _Ahead:
        """One that goes on from here apart from this one."""
        twin = copy.copy(self)
        twin.epochs = [Counter(epoch) for epoch in self.epochs]
        now = [i for i, epoch in enumerate(self.epochs) if epoch is self.current]
        twin.current = twin.epochs[now[0]] if now else Counter()
        return twin


def _fill_one(
    rules: Any,
    state: Any,
    event: Event,
    index: int,
    pinned: dict[Token, str],
    travels: dict[int, Token | str],
    values: dict[Token, str],
    ahead: _Ahead,
    rng: random.Random,
) -> Event:
    if isinstance(event, CardExchanged):
        passed = travels.get(index)
        card = passed if isinstance(passed, str) else values.get(passed or (-1, -1), "")
        if not card:
            raise ValueError("a hidden exchange of a card that cannot be followed")
        return replace(event, card=card)
    need = rules.chance(state)
    pile = Counter(need.pile) if isinstance(need, Deal | Draw) else Counter()
    pile -= +ahead.current

    def value(token: Token, shown: str) -> str:
        if shown != HIDDEN:
            card = shown
        elif token in pinned:
            card = pinned[token]
        else:
            choices = sorted(pile.elements())
            card = rng.choice(choices) if choices else pinned.get(token, "")
        pile[card] -= 1
        values[token] = card
        return card

    if isinstance(event, CardDrawn):
        return replace(event, card=value((index, 0), event.card))
    assert isinstance(event, CardsDealt)
    for place, cards in enumerate(event.hands):
        for k, card in enumerate(cards):
            if card != HIDDEN:
                pile[card] -= 1
            elif (index, place * 100 + k) in pinned:
                pile[pinned[index, place * 100 + k]] -= 1
    hands = []
    for place, cards in enumerate(event.hands):
        hand = []
        for k, card in enumerate(cards):
            token = (index, place * 100 + k)
            if card == HIDDEN and token in pinned:
                values[token] = pinned[token]
                hand.append(pinned[token])
            else:
                hand.append(value(token, card) if card == HIDDEN else card)
        hands.append(tuple(hand))
    return replace(event, hands=tuple(hands))
