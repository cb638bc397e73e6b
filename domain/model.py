"""Shared vocabulary of every rule set: pieces, moves, pending actions, chance needs, errors.

Errors::

    GameError
     +-- BadSetup        (player count, options)
     |    +-- BadOption  (an unknown option, a wrong type, a value not allowed)
     +-- IllegalMove     (says why)
     +-- NotYourTurn
     +-- GameOver
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

import msgspec

if TYPE_CHECKING:
    from random import Random

Viewer = int | Literal["referee"] | None
"""A seat number, the referee, or an anonymous spectator."""

PendingKind = Literal["move", "exchange", "discard", "draw", "roll", "deal"]
CHANCE_KINDS: frozenset[str] = frozenset({"draw", "roll", "deal"})
HIDDEN = "?"
"""What a viewer sees in place of a card it may not see."""
COLOURS = ("red", "blue", "yellow", "green", "orange", "purple")

Uses = str | tuple[int, ...] | None
"""What a move uses: a card (``"7"``), the dice (``(3, 5)``) or nothing (a draw or roll)."""


class GameError(Exception):
    """A command that the rules refuse."""


class BadSetup(GameError):
    """Wrong player count or options."""


class IllegalMove(GameError):
    """A move that the rules do not allow here."""


class NotYourTurn(GameError):
    """A seat acting while another must act."""


class GameOver(GameError):
    """An action on a finished game."""


class Step(msgspec.Struct, frozen=True):
    """One piece's own movement."""

    piece: str
    from_: str = msgspec.field(name="from")
    to: str = ""


class Effect(msgspec.Struct, frozen=True):
    """What a move does to a piece besides its own steps (bump, slide, swap)."""

    piece: str
    from_: str = msgspec.field(name="from")
    to: str = ""
    why: str = ""


class Move(msgspec.Struct, frozen=True):
    """One legal move, complete enough to animate without knowing the rules."""

    id: str
    seat: int
    uses: Uses = None
    steps: tuple[Step, ...] = ()
    effects: tuple[Effect, ...] = ()


class Pending(msgspec.Struct, frozen=True):
    """A seat that must act now, and how."""

    seat: int
    kind: PendingKind


class Roll(msgspec.Struct, frozen=True, tag="roll"):
    """Chance needed now: this many six-sided dice."""

    dice: int = 1


class Draw(msgspec.Struct, frozen=True, tag="draw"):
    """Chance needed now: one card from this draw pile (a multiset, order is not kept).
    ``reshuffled``: the draw finds the pile empty, so this many discards are shuffled back
    first (a ``DeckShuffled`` just before the ``CardDrawn``); ``pile`` is then those cards."""

    pile: tuple[str, ...]
    reshuffled: int = 0


class Deal(msgspec.Struct, frozen=True, tag="deal"):
    """Chance needed now: ``count`` cards to each of ``seats`` (in that order), from the pile."""

    pile: tuple[str, ...]
    seats: tuple[int, ...]
    count: int


ChanceNeed = Roll | Draw | Deal

Drawn = tuple[int, ...] | str | tuple[tuple[str, ...], ...]
"""A chance outcome: the dice of a ``Roll``, the card of a ``Draw``, or the hands of a ``Deal``
(one per seat of its ``seats``, in that order)."""


@overload
def sample(need: Roll, rng: Random) -> tuple[int, ...]: ...
@overload
def sample(need: Draw, rng: Random) -> str: ...
@overload
def sample(need: Deal, rng: Random) -> tuple[tuple[str, ...], ...]: ...
def sample(need: ChanceNeed, rng: Random) -> Drawn:
    """A random outcome of ``need`` drawn with ``rng`` (the domain has no randomness of its
    own): fair dice, a card of the pile (uniform over its cards), the hands dealt round from
    the pile."""
    match need:
        case Roll(dice=count):
            return tuple(rng.randint(1, 6) for _ in range(count))
        case Draw(pile=pile):
            return rng.choice(sorted(pile))
        case Deal(pile=pile, seats=seats, count=count):
            cards = rng.sample(sorted(pile), count * len(seats))
            return tuple(tuple(cards[i :: len(seats)]) for i in range(len(seats)))


class Piece(msgspec.Struct, frozen=True):
    """A piece as the public model shows it."""

    id: str
    seat: int
    at: str


class Outcome(msgspec.Struct, frozen=True, omit_defaults=True):
    """The chance outcome the pending decision uses: a card, or the dice."""

    card: str | None = None
    dice: list[int] | None = None


class Hand(msgspec.Struct, frozen=True, omit_defaults=True):
    """A seat's hand as a viewer may see it: its cards (the owner, the referee), else only how
    many it holds."""

    seat: int
    cards: list[str] | None = None
    count: int | None = None


class SeatView(msgspec.Struct, frozen=True):
    """A seat at the table: its number, its player's name, its colour, the level of the bot
    playing it (null for a person), whether its player is at the table now (``present``: a
    socket or stream of the seat open, or seen lately; the service fills it in) and, in a game
    with an absence rule, when the seat is timed out for being away (``absent_until``, UTC;
    null while it is present or need not act)."""

    seat: int
    name: str
    colour: str
    bot: str | None = None
    present: bool = False
    absent_until: str | None = None
    open: bool = False
    """While its table gathers: whether anyone may join the seat (its name is "" then)."""
    invite: str | None = None
    """While its table gathers: the handle of the invited player the seat is kept for."""


class TableView(msgspec.Struct, frozen=True):
    """A game created with open or invited seats (a table that gathers): whether the lobby
    lists it, and why it closed before it started (``cancelled``, ``expired``; null while it
    has not)."""

    listed: bool
    reason: str | None = None


class ClockView(msgspec.Struct, frozen=True):
    """A timed game's clock: its settings, each seat's seconds left (null without a limit) and
    the deadline of each pending seat (by seat number, UTC)."""

    per_decision: float | None
    total: float | None
    increment: float
    on_timeout: str
    remaining: list[float | None]
    deadlines: dict[str, str]


class View(msgspec.Struct, frozen=True, kw_only=True, tag_field="ruleset"):
    """The public model of a game as one viewer may see it, tagged by its rule set; each rule
    set adds its own fields in a subclass. The rule set fills the game's part (status, pieces,
    who acts, the pending outcome, winners); the service fills the table's (ids, seats,
    settings, seed, clock)."""

    game_id: str = ""
    version: int = 0
    seats: list[SeatView] = []
    options: dict[str, Any] = {}
    chance_mode: str = "server"
    seed_commitment: str = ""
    seed: str | None = None
    status: Literal["gathering", "active", "finished", "closed"]
    """``gathering`` while a table's open or invited seats wait for players (nobody acts),
    ``closed`` for a table that closed before it started (no result)."""
    pieces: list[Piece]
    to_act: list[Pending]
    chance: Outcome | None
    winners: list[int]
    clock: ClockView | None = None
    table: TableView | None = None
    rematch_of: str | None = None
    """The finished game this one is the rematch of (null for none)."""
    rematch: str | None = None
    """The table a rematch of this finished game created (null until one is asked for)."""


def status_of(finished: object) -> Literal["active", "finished"]:
    """A game's status word."""
    return "finished" if finished else "active"


def chance_move(pending: Pending) -> Move:
    """The single legal move of a seat that must draw or roll."""
    return Move(id=pending.kind, seat=pending.seat)


def piece_id(seat: int, number: int) -> str:
    """``red-1`` for seat 0's first piece."""
    return f"{COLOURS[seat]}-{number}"


class BadOption(BadSetup):
    """An option that is unknown, of the wrong type or outside its allowed values."""

    def __init__(self, option: str, detail: str) -> None:
        super().__init__(detail)
        self.option = option


Options = TypeVar("Options", bound=msgspec.Struct)


def parse_options(name: str, cls: type[Options], given: dict[str, Any]) -> Options:
    """``given`` as the rule set's typed options (defaults for the rest); BadOption names the
    first bad option and what it allows."""
    try:
        return msgspec.convert(given, cls)
    except msgspec.ValidationError as error:
        raise bad_option(name, cls, given) or BadOption("", f"options: {error}") from None


def bad_option(name: str, cls: type[msgspec.Struct], given: dict[str, Any]) -> BadOption | None:
    """The first option of ``given`` that ``cls`` refuses, told in words."""
    allowed = options_schema(name, cls)["properties"]
    for option, value in given.items():
        if option not in allowed:
            known = ", ".join(allowed)
            return BadOption(
                option, f"options.{option}: unknown option {option!r}; {name} knows {known}"
            )
        try:
            msgspec.convert({option: value}, cls)
        except msgspec.ValidationError as error:
            why = str(error).split(" - at ")[0].replace("Invalid enum value", "invalid value")
            where = " (a key)" if "`key` in" in str(error) else ""
            wanted = describe(allowed[option])
            detail = f"options.{option}: {why[0].lower()}{why[1:]}{where}; {name} allows {wanted}"
            return BadOption(option, detail)
    return None


@lru_cache(maxsize=16)
def _schema(name: str, cls: type[msgspec.Struct]) -> str:
    (_,), components = msgspec.json.schema_components([cls])
    schema: dict[str, Any] = components[cls.__name__]
    defaults = msgspec.to_builtins(cls())
    for option, prop in schema["properties"].items():
        prop["default"] = defaults[option]
        keys = prop.get("propertyNames", {}).get("enum")
        if keys and all(key.isdigit() for key in keys):
            keys.sort(key=int)  # squares in board order, not as strings
    schema.pop("required", None)
    return json.dumps({**schema, "title": f"Options of {name}"})


def options_schema(name: str, cls: type[msgspec.Struct]) -> dict[str, Any]:
    """The JSON Schema of a rule set's options: types, allowed values, defaults, meanings."""
    schema: dict[str, Any] = json.loads(_schema(name, cls))
    return schema


def describe(schema: dict[str, Any]) -> str:
    """What a JSON Schema of an option allows, in words: ``one of "a", "b"``."""
    if "enum" in schema:
        return "one of " + ", ".join(json.dumps(value) for value in schema["enum"])
    kind = schema.get("type")
    if kind == "boolean":
        return "true or false"
    if kind == "integer":
        low, high = schema.get("minimum"), schema.get("maximum")
        if low is not None and high is not None:
            return f"an integer from {low} to {high}"
        return f"an integer >= {low}" if low is not None else "an integer"
    if kind == "object":
        keys = describe(schema.get("propertyNames", {"type": "string"}))
        values = describe(schema.get("additionalProperties", {}))
        return f"an object whose keys are {keys} and whose values are {values}"
    return "a string" if kind == "string" else "any value"


def check_players(name: str, seats: int, low: int, high: int) -> None:
    """Refuse a player count outside ``low..high``."""
    if not low <= seats <= high:
        raise BadSetup(f"{name} takes {low} to {high} players, not {seats}")


def check_seat(option: str, seat: int, seats: int) -> None:
    """Refuse an option naming a seat the game does not have."""
    if seat >= seats:
        raise BadSetup(f"{option} must be a seat from 0 to {seats - 1}, not {seat}")


def home_counts(pieces: Iterable[Piece]) -> dict[int, int]:
    """Pieces at ``home`` per seat, for rule sets whose pieces finish there."""
    return dict(Counter(piece.seat for piece in pieces if piece.at == "home"))
