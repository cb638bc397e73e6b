"""Events: the facts a game's log is made of. Tags are stored forever; evolve only by adding
fields with defaults."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from domain.model import ChanceNeed, Deal, Draw, Effect, Roll, Step, Uses, sample

if TYPE_CHECKING:
    from random import Random


class Event(msgspec.Struct, frozen=True, tag_field="type", tag=True):
    """Base of every event; the tag is the class name."""


class SeatBot(msgspec.Struct, frozen=True):
    """A seat a bot plays from the start: its level and the version of that level's play."""

    seat: int
    level: str
    version: int


class SeatPlayer(msgspec.Struct, frozen=True):
    """A seat that belongs to a registered player: only that player acts for it."""

    seat: int
    handle: str


class GameCreated(Event, frozen=True, omit_defaults=True):
    """Every setting of a game, so its log alone says how it was played (and an exported
    record imports with nothing lost)."""

    ruleset: str
    options: dict[str, Any]
    seats: tuple[str, ...]
    chance: str = "server"
    seed_commitment: str = ""
    clock: dict[str, Any] | None = None
    auto_chance: bool = False
    allow_undo: bool = False
    tags: dict[str, str] = {}
    rated: bool = True
    """Whether the result counts towards ratings (omitted when true, so older logs read as
    rated and their hashes stay as they were)."""
    spectator_delay: dict[str, Any] | None = None
    ruleset_version: int = 1
    """The version of the rule set the game is played under (left out when 1, as in every
    game recorded before rule sets had a second version)."""
    bots: tuple[SeatBot, ...] = ()
    """The seats bots play from the start (left out when none)."""
    allow_hints: bool = False
    """Whether a seat may ask for hints (left out when false; never in a rated game)."""
    players: tuple[SeatPlayer, ...] = ()
    """The seats that belong to registered players, by handle (left out when none)."""
    open_seats: tuple[int, ...] = ()
    """The seats left open for anyone to join (left out when none): the table gathers until
    they and the invited seats are taken (``domain.tables``)."""
    invites: tuple[SeatPlayer, ...] = ()
    """The seats kept for invited registered players, by handle (left out when none)."""
    listed: bool = True
    """Whether a gathering table is listed in the lobby (left out when true; false: joined by
    its link only)."""
    absent: dict[str, Any] | None = None
    """What happens to a seat that must act and is away too long (``after`` seconds, ``then``:
    ``bot:<level>``, ``forfeit`` or ``pass``); left out when none."""
    rematch_of: str = ""
    """The finished game this table is the rematch of (``POST /games/{id}/rematch``); left
    out when none."""


class CardDrawn(Event, frozen=True):
    seat: int
    card: str


class DiceRolled(Event, frozen=True):
    seat: int
    dice: tuple[int, ...]


class CardsDealt(Event, frozen=True):
    """A deal by ``dealer``: ``hands[i]`` went to ``seats[i]``."""

    dealer: int
    seats: tuple[int, ...]
    hands: tuple[tuple[str, ...], ...]


class DeckShuffled(Event, frozen=True):
    """The discard pile became the draw pile (draws are uniform from the pile, so no order)."""

    cards: int


class MovePlayed(Event, frozen=True):
    """A move; ``auto`` when the rules played it with no choice (race35), so undo skips it."""

    seat: int
    move: str
    uses: Uses = None
    steps: tuple[Step, ...] = ()
    effects: tuple[Effect, ...] = ()
    auto: bool = False


class TurnPassed(Event, frozen=True):
    seat: int
    reason: str


class CardExchanged(Event, frozen=True):
    seat: int
    card: str
    to: int


class MoveUndone(Event, frozen=True):
    """Reverts the decision stored at version ``reverts`` and everything after it."""

    reverts: int
    reason: str = ""


class GameFinished(Event, frozen=True):
    winners: tuple[int, ...]
    reason: str = ""


class Adjudicated(Event, frozen=True):
    """A referee's decision on record (forfeit, penalty, agreement), with its reason."""

    kind: str
    reason: str
    seat: int | None = None


class TimeExpired(Event, frozen=True):
    """A seat's clock ran out; what follows (a random move, a forfeit) are their own events."""

    seat: int
    consequence: str


class SeatHandedOver(Event, frozen=True):
    """A seat handed to a bot (``bot`` its level, ``version`` that level's version) or, with
    ``bot`` empty, back to its player."""

    seat: int
    bot: str = ""
    version: int = 0
    reason: str = ""


class SeedRevealed(Event, frozen=True):
    seed: str


class HintsShown(Event, frozen=True):
    """``seat`` was shown its legal moves ranked by the chance each keeps, judged at
    ``version`` by the analysis ``method``; it changes nothing in the game."""

    seat: int
    version: int
    method: str = ""


class SeatTaken(Event, frozen=True, omit_defaults=True):
    """A gathering table's open or invited seat taken: by the registered player ``player``
    (her handle: the seat is hers from now on) or by a guest named ``name``, who holds the
    seat's token whose sha256 hex is ``digest`` (a 256-bit token: its digest is safe to
    publish)."""

    seat: int
    name: str
    player: str = ""
    digest: str = ""


class SeatLeft(Event, frozen=True):
    """Whoever took ``seat`` by joining left it before the table started: it is open again."""

    seat: int


class InvitationDeclined(Event, frozen=True, omit_defaults=True):
    """The player invited to ``seat`` declined (or, with ``reason`` ``expired``, the
    invitation ran out of time): the seat is open."""

    seat: int
    reason: str = ""


class TableStarted(Event, frozen=True, omit_defaults=True):
    """A gathering table starts: its last seat was taken, or its referee filled the open
    seats with ``bots``. The first chance and the clocks follow."""

    bots: tuple[SeatBot, ...] = ()


class TableClosed(Event, frozen=True):
    """A gathering table closed before it started (``reason``: ``cancelled`` by its referee,
    ``expired``): the game is over with no result."""

    reason: str


TABLE_EVENTS = (SeatTaken, SeatLeft, InvitationDeclined, TableStarted, TableClosed)
"""What changes who sits at a gathering table: never the rule state (a closed table ends the
game, with no result)."""

AnyEvent = (
    GameCreated
    | CardDrawn
    | CardsDealt
    | DiceRolled
    | DeckShuffled
    | MovePlayed
    | TurnPassed
    | CardExchanged
    | MoveUndone
    | GameFinished
    | Adjudicated
    | TimeExpired
    | SeatHandedOver
    | SeedRevealed
    | HintsShown
    | SeatTaken
    | SeatLeft
    | InvitationDeclined
    | TableStarted
    | TableClosed
)

EVENT_TYPES: dict[str, type[Event]] = {
    cls.__name__: cls
    for cls in (
        GameCreated,
        CardDrawn,
        CardsDealt,
        DiceRolled,
        DeckShuffled,
        MovePlayed,
        TurnPassed,
        CardExchanged,
        MoveUndone,
        GameFinished,
        Adjudicated,
        TimeExpired,
        SeatHandedOver,
        SeedRevealed,
        HintsShown,
        *TABLE_EVENTS,
    )
}


def event_type(event: Event) -> str:
    """The stored ``type`` of an event."""
    return type(event).__name__


def event_data(event: Event) -> dict[str, Any]:
    """The stored ``data`` of an event: its fields as JSON-ready builtins."""
    data: dict[str, Any] = msgspec.to_builtins(event)
    data.pop("type", None)
    return data


def parse_event(type_: str, data: dict[str, Any]) -> Event:
    """Rebuild an event from its stored type and data."""
    try:
        cls = EVENT_TYPES[type_]
    except KeyError:
        raise ValueError(f"unknown event type {type_!r}") from None
    return msgspec.convert(data, cls)


def no_secrets(event: Event, viewer: object) -> Event:
    """``redact`` for rule sets without hidden information: every event is public."""
    return event


def sampled(need: ChanceNeed, seat: int, rng: Random) -> list[Event]:
    """A random outcome of ``need`` for ``seat`` (the dealer of a deal) as the referee records
    it: the reshuffle a draw finds due first (``DeckShuffled``), then the outcome."""
    match need:
        case Roll():
            return [DiceRolled(seat, sample(need, rng))]
        case Draw(reshuffled=reshuffled):
            drawn = CardDrawn(seat, sample(need, rng))
            return [DeckShuffled(cards=reshuffled), drawn] if reshuffled else [drawn]
        case Deal(seats=seats):
            return [CardsDealt(seat, seats, sample(need, rng))]
