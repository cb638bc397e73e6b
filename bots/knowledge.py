"""The game as one seat knows it: its log (already redacted for the seat) folded into a state.

Where the seat may not see cards (other hands, cards passed between others), the bot fills
them in with a *determinization*: cards chosen at random among those the seat has not seen,
kept consistent with what it has seen. A card another seat later plays must have been in that
seat's hand, so a first pass follows every hidden card as a token from hand to hand and pins
the tokens that were played; the fold then gives every pinned token its card and every other
one a card drawn from the pile the fold holds at that moment, less the pinned cards still to
come. The bot never sees the game's seed or chance stream: its own generator picks.
"""

from __future__ import annotations

import copy
import random
from collections import Counter, OrderedDict
from collections.abc import Iterator
from typing import Any, NamedTuple

import msgspec
from msgspec.structs import replace

from domain.events import (
    CardDrawn,
    CardExchanged,
    CardsDealt,
    DeckShuffled,
    Event,
    GameCreated,
    MovePlayed,
    TurnPassed,
)
from domain.model import HIDDEN, Deal, Draw
from domain.registry import find_ruleset
from domain.replay import Frame, Replay

Token = tuple[int, int]
"""A hidden card: (index of the event that brought it, its place in that event)."""

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
    fold; Inconsistent when no try folds."""
    created = seen[0]
    assert isinstance(created, GameCreated)
    for attempt in range(TRIES):
        pinned, travels = _follow(seen, seat, rng, oldest=attempt == 0, deck=_deck(created))
        try:
            fold = _replay(created, seen, pinned, travels, rng)
            return fold.filled, fold.replay
        except FOLD_ERRORS:
            continue
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
    pinned, travels = _follow(seen, seat, rng, oldest=True, deck=_deck(created))
    key = (msgspec.json.encode(created), seat)
    first: _Fold | None = None
    for tried in range(count):
        try:
            if first is None and tried > 0:
                raise ValueError("the shared follow did not fold")
            start = first or _kept_fill(key, seen, pinned, travels)
            fold = _replay(created, seen, pinned, travels, rng, start)
            if first is None:
                first = fold
                _keep_fill(key, seen, pinned, travels, fold)
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
KEEP = 64


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


def _keep_fill(
    key: tuple[bytes, int],
    seen: list[Event],
    pinned: dict[Token, str],
    travels: dict[int, Token | str],
    fold: _Fold,
) -> None:
    FILLS[key] = (seen, pinned, travels, fold)
    while len(FILLS) > KEEP:
        try:
            FILLS.popitem(last=False)
        except KeyError:  # emptied by another thread meanwhile
            break


def _fold_public(created: GameCreated, seen: list[Event], seat: int) -> Replay:
    key = (msgspec.json.encode(created), seat)
    cached = FOLDS.pop(key, None)  # taken out while in use: another thread folds its own
    if cached is not None and len(cached[0]) <= len(seen) and seen[: len(cached[0])] == cached[0]:
        folded, replay = cached
        for version, event in enumerate(seen[len(folded) :], start=len(folded) + 1):
            replay.push(version, event)
    else:
        replay = _fold(created, seen)
    FOLDS[key] = (list(seen), replay)
    while len(FOLDS) > KEEP:
        try:
            FOLDS.popitem(last=False)
        except KeyError:  # emptied by another thread meanwhile
            break
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


def _supply(seen: list[Event], epoch_of: list[int], deck: Counter[str]) -> list[Counter[str]]:
    """How many of each card the pile can hold in each epoch (between two refills): the
    whole deck in the first and in any that deals; else the cards played in the epoch before
    (they made the discard pile the refill turns over)."""
    played: list[Counter[str]] = [Counter() for _ in range(epoch_of[-1] + 1)]
    deals = [False] * len(played)
    for index, event in enumerate(seen):
        match event:
            case MovePlayed(uses=str() as card):
                played[epoch_of[index]][card] += 1
            case CardsDealt():
                deals[epoch_of[index]] = True
    return [
        deck if epoch == 0 or deals[epoch] else played[epoch - 1] for epoch in range(len(played))
    ]


def _follow(
    seen: list[Event], seat: int, rng: random.Random, oldest: bool, deck: Counter[str]
) -> tuple[dict[Token, str], dict[int, Token | str]]:
    """Follow the cards from hand to hand: the tokens a later play pins to a card, and what
    each hidden exchange passed (a token, or a card known to be in the giver's hand).

    A play by another seat pins one hidden card of its hand, of an epoch (the cards between
    two refills of the pile) whose pile could still hold that card: the ``oldest`` such
    epoch first, else the likeliest to have given the card first (``_Pinner._odds``). When a
    later play finds no such card, the follow backs up to the latest play that had another
    epoch to take from and could undo the conflict (a depth-first search with backjumping,
    at most ``STEPS`` events followed)."""
    pinner = _Pinner(seen, seat, deck, oldest, random.Random(rng.random()))
    pinner.solve()
    return pinner.pinned, pinner.travels


LAID = " lays down "
"""What a pass that lays a hand down face up says before the hand's cards."""
STEPS = 10_000
"""Events followed at most by one search for pins (backing up counts again what it redoes)."""

Snapshot = tuple[
    dict[int, list[Token | str]],
    Counter[tuple[int, str]],
    dict[Token, str],
    dict[int, Token | str],
    list[tuple[int, Token | str]],
    Counter[int],
]


class _Pinner:
    """The search for pins: the hands as followed so far and the choices left to back up to."""

    def __init__(
        self, seen: list[Event], seat: int, deck: Counter[str], oldest: bool, rng: random.Random
    ) -> None:
        self.seen, self.seat, self.oldest, self.rng = seen, seat, oldest, rng
        self.epoch_of: list[int] = []
        for event in seen:
            self.epoch_of.append(
                (self.epoch_of[-1] if self.epoch_of else 0) + isinstance(event, DeckShuffled)
            )
        self.supply = _supply(seen, self.epoch_of, deck)
        self.taken: Counter[tuple[int, str]] = Counter()
        for index, event in enumerate(seen):
            match event:
                case CardDrawn(card=card) if card != HIDDEN:
                    self.taken[self.epoch_of[index], card] += 1
                case CardsDealt(hands=dealt):
                    for cards in dealt:
                        for card in cards:
                            if card != HIDDEN:
                                self.taken[self.epoch_of[index], card] += 1
        self.tokens: Counter[int] = Counter()
        for index, event in enumerate(seen):
            match event:
                case CardDrawn(card=card) if card == HIDDEN:
                    self.tokens[self.epoch_of[index]] += 1
                case CardsDealt(hands=dealt):
                    hidden = sum(card == HIDDEN for cards in dealt for card in cards)
                    self.tokens[self.epoch_of[index]] += hidden
        self.pins: Counter[int] = Counter()
        self.hands: dict[int, list[Token | str]] = {}
        self.pinned: dict[Token, str] = {}
        self.travels: dict[int, Token | str] = {}
        self.incoming: list[tuple[int, Token | str]] = []
        self.branch: tuple[Snapshot, list[int], int, str, int] | None = None
        self.conflict: tuple[int, str, set[int]] = (-1, "", set())

    def snapshot(self) -> Snapshot:
        return (
            {owner: list(hand) for owner, hand in self.hands.items()},
            Counter(self.taken),
            dict(self.pinned),
            dict(self.travels),
            list(self.incoming),
            Counter(self.pins),
        )

    def solve(self) -> bool:
        """Follow the whole log, backing up on conflicts; whether every play was pinned."""
        stack: list[tuple[int, Snapshot, list[int], int, str, int]] = []
        index, forced = 0, None
        for _ in range(STEPS):
            if index == len(self.seen):
                return True
            event = self.seen[index]
            if self.incoming and not isinstance(event, CardExchanged):
                for taker, item in self.incoming:  # exchanges are simultaneous: cards arrive last
                    self.hands.setdefault(taker, []).append(item)
                self.incoming = []
            self.branch = None
            if self._step(index, event, forced):
                forced = None
                index += 1
                if self.branch is not None:
                    stack.append((index - 1, *self.branch))
                continue
            while stack and not (stack[-1][2] and self._relevant(*stack[-1][3:])):
                stack.pop()
            if not stack:
                return False
            index, saved, others, *_ = stack[-1]
            forced = others.pop(0)
            stack[-1] = (*stack[-1][:5], forced)
            (self.hands, self.taken, self.pinned, self.travels, self.incoming, self.pins) = (
                {owner: list(hand) for owner, hand in saved[0].items()},
                Counter(saved[1]),
                dict(saved[2]),
                dict(saved[3]),
                list(saved[4]),
                Counter(saved[5]),
            )
        return False

    def _odds(self, epoch: int, card: str) -> float:
        """How likely a hidden card of ``epoch`` not yet pinned is ``card``: the copies of it
        the epoch's pile can still have given, over its hidden cards not yet pinned."""
        left = self.supply[epoch][card] - self.taken[epoch, card]
        return left / max(1, self.tokens[epoch] - self.pins[epoch])

    def _relevant(self, owner: int, card: str, chosen: int) -> bool:
        """Whether another choice at a play (``owner`` gave up ``card`` from epoch ``chosen``)
        could undo the latest conflict: it took the card from an epoch now full, or it was a
        play of the conflicting seat that took from an epoch it no longer holds (backjumping)."""
        who, wanted, full = self.conflict
        return (card == wanted and chosen in full) or (owner == who and chosen not in full)

    def _step(self, index: int, event: Event, forced: int | None) -> bool:
        """Follow one event; False when it is a play no hidden card can have made."""
        hands = self.hands
        match event:
            case CardsDealt(seats=seats, hands=dealt):
                for place, (owner, cards) in enumerate(zip(seats, dealt, strict=True)):
                    hands[owner] = [
                        (index, place * 100 + k) if card == HIDDEN else card
                        for k, card in enumerate(cards)
                    ]
            case CardDrawn(seat=owner, card=card):
                hands.setdefault(owner, []).append((index, 0) if card == HIDDEN else card)
            case CardExchanged(seat=giver, card=card, to=taker) if card == HIDDEN:
                hand = hands.setdefault(giver, [])
                free = [t for t in hand if not isinstance(t, str)]
                if free:
                    token = free[0] if self.oldest else self.rng.choice(free)
                    hand.remove(token)
                    self.travels[index] = token
                    self.incoming.append((taker, token))
            case CardExchanged(seat=giver, card=card, to=taker):
                self.incoming.append((taker, card))
                if giver != self.seat:
                    return self._take(giver, card, forced)
                if card in hands.get(giver, []):
                    hands[giver].remove(card)
            case MovePlayed(seat=owner, uses=str() as card) if owner != self.seat:
                return self._take(owner, card, forced)
            case MovePlayed(seat=owner, uses=str() as card):
                if card in hands.get(owner, []):
                    hands[owner].remove(card)
            case TurnPassed(seat=owner, reason=reason) if owner != self.seat and LAID in reason:
                # a hand laid down face up (partners): its cards were all in the hand
                laid = reason.rpartition(LAID)[2].split(", ")
                return all(self._take(owner, card, None) for card in laid if card)
        return True

    def _take(self, owner: int, card: str, forced: int | None) -> bool:
        """``owner`` gave up ``card``: a card known in its hand, else a hidden one pinned."""
        hand = self.hands.setdefault(owner, [])
        if card in hand:
            hand.remove(card)
            return True
        free = [t for t in hand if not isinstance(t, str)]
        if not free:
            return True  # a log the seat saw cannot lack the card; the fold will tell
        if forced is None:
            epochs = sorted({self.epoch_of[t[0]] for t in free})
            room = [e for e in epochs if self.taken[e, card] < self.supply[e][card]]
            if not room:
                self.conflict = (owner, card, set(epochs))
                return False
            if not self.oldest:
                room.sort(key=lambda e: -self._odds(e, card))
            if len(room) > 1:
                self.branch = (self.snapshot(), room[1:], owner, card, room[0])
            forced = room[0]
        ours = [t for t in free if self.epoch_of[t[0]] == forced]
        token = ours[0] if self.oldest else self.rng.choice(ours)
        self.pinned[token] = card
        self.taken[forced, card] += 1
        self.pins[forced] += 1
        hand.remove(token)
        return True


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
