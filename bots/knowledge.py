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

import random
from collections import Counter, OrderedDict
from typing import Any

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
)
from domain.model import HIDDEN, Deal, Draw
from domain.registry import find_ruleset
from domain.replay import Replay

Token = tuple[int, int]
"""A hidden card: (index of the event that brought it, its place in that event)."""

TRIES = 2


class Inconsistent(Exception):
    """No determinization of the log could be folded (the fold refused every try)."""


def rebuild(seen: list[Event], seat: int, rng: random.Random) -> Replay:
    """The log folded, hidden cards filled in consistently with what ``seat`` has seen."""
    created = seen[0]
    if not isinstance(created, GameCreated):
        raise ValueError("a game's log starts with GameCreated")
    if not any(_hidden(event) for event in seen):
        return _fold_public(created, seen, seat)
    for attempt in range(TRIES):
        pinned, travels = _follow(seen, seat, rng, oldest=attempt == 0, deck=_deck(created))
        try:
            return _fold(created, _fill(created, seen, pinned, travels, rng))
        except (KeyError, ValueError, IndexError):
            continue
    raise Inconsistent(f"no determinization of the log for seat {seat} folds")


FOLDS: OrderedDict[tuple[bytes, int], tuple[list[Event], Replay]] = OrderedDict()
"""The latest folds of logs with nothing hidden, by game settings and seat: a bot asked again
later in the same game folds only the events since (its log starts with the one folded)."""
KEEP = 64


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
    each hidden exchange passed (a token, or a card known to be in the giver's hand). A play
    pins the ``oldest`` hidden card of the hand (the one most likely to have had the card
    still in the pile), else one at random."""
    hands: dict[int, list[Token | str]] = {}
    pinned: dict[Token, str] = {}
    travels: dict[int, Token | str] = {}
    epoch_of: list[int] = []
    for event in seen:
        epoch_of.append((epoch_of[-1] if epoch_of else 0) + isinstance(event, DeckShuffled))
    taken: Counter[tuple[int, str]] = Counter()
    supply = _supply(seen, epoch_of, deck)
    for index, event in enumerate(seen):
        match event:
            case CardDrawn(card=card) if card != HIDDEN:
                taken[epoch_of[index], card] += 1
            case CardsDealt(hands=dealt):
                for cards in dealt:
                    for card in cards:
                        if card != HIDDEN:
                            taken[epoch_of[index], card] += 1

    def take(owner: int, card: str) -> None:
        hand = hands.setdefault(owner, [])
        if card in hand:
            hand.remove(card)
            return
        free = [t for t in hand if not isinstance(t, str) and t not in pinned]
        spare = [t for t in free if taken[epoch_of[t[0]], card] < supply[epoch_of[t[0]]][card]]
        free = spare or free
        if free:
            token = free[0] if oldest else rng.choice(free)
            pinned[token] = card
            taken[epoch_of[token[0]], card] += 1
            hand.remove(token)

    for index, event in enumerate(seen):
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
                if hand:
                    token = hand.pop(rng.randrange(len(hand)))
                    travels[index] = token
                    hands.setdefault(taker, []).append(token)
            case CardExchanged(seat=giver, card=card, to=taker):
                if giver != seat:
                    take(giver, card)
                elif card in hands.get(giver, []):
                    hands[giver].remove(card)
                hands.setdefault(taker, []).append(card)
            case MovePlayed(seat=owner, uses=str() as card) if owner != seat:
                take(owner, card)
            case MovePlayed(seat=owner, uses=str() as card):
                if card in hands.get(owner, []):
                    hands[owner].remove(card)
    return pinned, travels


def _fill(
    created: GameCreated,
    seen: list[Event],
    pinned: dict[Token, str],
    travels: dict[int, Token | str],
    rng: random.Random,
) -> list[Event]:
    """The log with every hidden card given a value, folding as it goes to know the pile."""
    rules = find_ruleset(created.ruleset, created.ruleset_version)
    replay = Replay(created)
    values: dict[Token, str] = {}
    filled: list[Event] = [created]
    ahead = _Ahead(seen, pinned)
    for index, event in enumerate(seen[1:], start=1):
        ahead.reach(index)
        if _hidden(event):
            event = _fill_one(
                rules, replay.state, event, index, pinned, travels, values, ahead, rng
            )
        replay.push(index + 1, event)
        filled.append(event)
    return filled


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
            self.epochs[-1].update(self.demands.get(index, ()))
        self.current: Counter[str] = Counter()

    def reach(self, index: int) -> None:
        """Move on to the event at ``index``: its own cards are no longer ahead."""
        self.current = self.epochs[self.epoch_of[index]]
        self.current.subtract(self.demands.get(index, ()))


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
