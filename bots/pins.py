"""Following the hidden cards from hand to hand, as one seat can: which hidden card each play
by another seat must have been (its *pins*), and what each hidden exchange passed.

A hidden card is a token, (the index of the event that brought it, its place there). A card
another seat plays was in its hand, so the play pins one of the hand's tokens to that card; a
refilled pile holds only the cards played before the refill, so a token can be pinned to a
card only while its epoch (the cards between two refills) could still have given it. The
search for pins is depth-first and backs up on a conflict (``Pinner``); the latest search of
each game and seat is kept (``FOLLOWS``) so that a later log that only adds plays goes on from
where it ended (``follow_on``).
"""

from __future__ import annotations

import copy
import random
from collections import Counter, OrderedDict

from bots.latest import keep
from domain.events import (
    CardDrawn,
    CardExchanged,
    CardsDealt,
    DeckShuffled,
    Event,
    MovePlayed,
    TurnPassed,
)
from domain.model import HIDDEN

Token = tuple[int, int]
"""A hidden card: (index of the event that brought it, its place in that event)."""


def supply(seen: list[Event], epoch_of: list[int], deck: Counter[str]) -> list[Counter[str]]:
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


def follow(
    seen: list[Event], seat: int, rng: random.Random, oldest: bool, deck: Counter[str]
) -> tuple[dict[Token, str], dict[int, Token | str]]:
    """Follow the cards from hand to hand: the tokens a later play pins to a card, and what
    each hidden exchange passed (a token, or a card known to be in the giver's hand).

    A play by another seat pins one hidden card of its hand, of an epoch (the cards between
    two refills of the pile) whose pile could still hold that card: the ``oldest`` such
    epoch first, else the likeliest to have given the card first (``Pinner._odds``). When a
    later play finds no such card, the follow backs up to the latest play that had another
    epoch to take from and could undo the conflict (a depth-first search with backjumping,
    at most ``STEPS`` events followed)."""
    pinner = Pinner(seen, seat, deck, oldest, random.Random(rng.random()))
    pinner.solve()
    return pinner.pinned, pinner.travels


FOLLOWS: OrderedDict[tuple[bytes, int], Pinner] = OrderedDict()
"""The latest oldest-first search for pins of each game and seat (by game settings and seat)
that followed its whole log."""


def follow_on(
    key: tuple[bytes, int], seen: list[Event], seat: int, rng: random.Random, deck: Counter[str]
) -> tuple[dict[Token, str], dict[int, Token | str]]:
    """``follow`` oldest first, going on from the kept search of ``key`` where this log only
    adds to the log it followed events that draw, deal or refill nothing: the search of the
    whole log would reach the end of the shorter one just as that one ended (the same events,
    and the same cards drawn and dealt in every epoch), so it goes on alike from there."""
    searched = random.Random(rng.random())
    kept = FOLLOWS.pop(key, None)  # taken out while in use: another thread follows its own
    if kept is not None and kept.goes_on_to(seen):
        pinner = kept.going_on(seen)
    else:
        pinner = Pinner(seen, seat, deck, True, searched)
    if pinner.solve():
        keep(FOLLOWS, key, pinner.going_on(seen))  # a copy: what is returned never changes
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


class Pinner:
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
        self.supply = supply(seen, self.epoch_of, deck)
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
        self.stack: list[tuple[int, Snapshot, list[int], int, str, int]] = []
        self.index = self.steps = 0  # where the search stands, and the steps it took

    def goes_on_to(self, seen: list[Event]) -> bool:
        """Whether a search of ``seen`` would stand where this finished search stands once it
        reached the end of this one's log: ``seen`` adds events that draw, deal and refill
        nothing to the very log this one followed."""
        done = len(self.seen)
        return (
            self.index == done <= len(seen)
            and seen[:done] == self.seen
            and not any(isinstance(e, CardDrawn | CardsDealt | DeckShuffled) for e in seen[done:])
        )

    def going_on(self, seen: list[Event]) -> Pinner:
        """A copy that follows ``seen`` on from where this one stands (``goes_on_to``)."""
        twin = copy.copy(self)
        twin.seen = seen
        twin.epoch_of = self.epoch_of + [self.epoch_of[-1]] * (len(seen) - len(self.seen))
        (twin.hands, twin.taken, twin.pinned, twin.travels, twin.incoming, twin.pins) = (
            self.snapshot()
        )
        twin.stack = [
            (i, saved, list(others), owner, card, chosen)
            for i, saved, others, owner, card, chosen in self.stack
        ]
        return twin

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
        """Follow the log from where the search stands (its start, or where the search of a
        log this one goes on from ended) to its end, backing up on conflicts; whether every
        play was pinned."""
        stack = self.stack
        index, forced = self.index, None
        while self.steps < STEPS:
            if index == len(self.seen):
                self.index = index
                return True
            self.steps += 1
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
