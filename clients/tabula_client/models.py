"""Wire models: typed mirrors of the Tabula API's JSON (unknown fields are ignored).

They are deliberately independent of the server's packages; an end-to-end test keeps them
honest. ``GameView.raw`` keeps the whole state view, since rule sets add their own members
(``hands``, ``statuses``, ...).
"""

from __future__ import annotations

from typing import Any

import msgspec

Uses = str | int | list[int] | None
"""What a move uses: a card (``"7"``), the dice (``[3, 5]``) or nothing (a draw or roll)."""


class Health(msgspec.Struct, frozen=True):
    """``GET /health``."""

    status: str


class RuleSetInfo(msgspec.Struct, frozen=True):
    """A rule set the server offers, with its options' defaults."""

    name: str
    version: int | str
    min_players: int
    max_players: int
    options: dict[str, Any] = {}


class Tokens(msgspec.Struct, frozen=True):
    """The bearer tokens handed out when a game is created."""

    referee: str
    seats: list[str]


class CreatedGame(msgspec.Struct, frozen=True):
    """``POST /games`` reply."""

    id: str
    version: int
    tokens: Tokens
    seed_commitment: str | None = None


class GameSummary(msgspec.Struct, frozen=True):
    """One row of ``GET /games``."""

    id: str
    ruleset: str
    status: str
    version: int
    seats: list[str] = []
    created_at: str | None = None
    tags: dict[str, str] = {}


class Seat(msgspec.Struct, frozen=True):
    """A seat of a game."""

    seat: int
    name: str
    colour: str | None = None


class Piece(msgspec.Struct, frozen=True):
    """A piece and where it stands (``start``, ``track:N``, ``lane:N``, ``home``)."""

    id: str
    seat: int
    at: str


class Pending(msgspec.Struct, frozen=True):
    """A seat that must act now, and how (``move``, ``roll``, ``draw``, ...)."""

    seat: int
    kind: str


class Step(msgspec.Struct, frozen=True):
    """One piece's own movement."""

    piece: str
    from_: str = msgspec.field(name="from")
    to: str


class Effect(msgspec.Struct, frozen=True):
    """What a move does to another piece (bumped, slid, swapped), and why."""

    piece: str
    from_: str = msgspec.field(name="from")
    to: str
    why: str = ""


class Move(msgspec.Struct, frozen=True):
    """One legal move, with its steps and effects."""

    id: str
    seat: int
    uses: Uses = None
    steps: list[Step] = []
    effects: list[Effect] = []


class LegalMoves(msgspec.Struct, frozen=True):
    """``GET /games/{id}/legal-moves``: the moves open to the caller at ``version``."""

    version: int
    moves: list[Move]


class GameView(msgspec.Struct, frozen=True):
    """A state view as the caller may see it; ``raw`` holds every member, extras included."""

    game_id: str
    ruleset: str
    version: int
    status: str
    seats: list[Seat] = []
    pieces: list[Piece] = []
    to_act: list[Pending] = []
    chance: dict[str, Any] | None = None
    winners: list[int] = []
    options: dict[str, Any] = {}
    seed_commitment: str | None = None
    seed: str | None = None
    raw: dict[str, Any] = {}

    @property
    def is_finished(self) -> bool:
        """Whether the game is over."""
        return self.status == "finished"

    def seat_name(self, seat: int) -> str:
        """The name at ``seat`` (``seat N`` when the view does not say)."""
        for entry in self.seats:
            if entry.seat == seat:
                return entry.name
        return f"seat {seat}"


class StoredEvent(msgspec.Struct, frozen=True):
    """One event of a game's log."""

    game_id: str
    version: int
    type: str
    data: dict[str, Any] = {}
    by: int | str | None = None
    at: str | None = None
    prev_hash: str | None = None
    hash: str | None = None


class EventPage(msgspec.Struct, frozen=True):
    """``GET /games/{id}/events``: a page of the log and the game's current version."""

    version: int
    events: list[StoredEvent]


class PlayResult(msgspec.Struct, frozen=True):
    """A write's reply: the events appended, the state after them and the caller's legal moves
    now (what ``legal_moves`` would answer; empty from servers older than the field)."""

    version: int
    events: list[StoredEvent]
    state: GameView
    legal_moves: list[Move] = msgspec.field(default_factory=list)


class Verification(msgspec.Struct, frozen=True):
    """The verdict on a game's log: valid, or the first bad event and why."""

    valid: bool
    events: int
    chance_checked: bool
    finished: bool = False
    first_bad: int | None = None
    reason: str | None = None


class Audit(msgspec.Struct, frozen=True):
    """``GET /games/{id}/audit``: the full log with hashes, the seed once revealed, and the
    log's verification."""

    game_id: str
    ruleset: str
    status: str
    events: list[StoredEvent]
    verification: Verification
    seed_commitment: str | None = None
    seed: str | None = None


class GameRecord(msgspec.Struct, frozen=True):
    """``GET /games/{id}/export``: a self-contained game record.

    ``raw`` holds the record exactly as the server sent it (decoded JSON); ``import_game``
    sends ``raw``, so an exported record is re-imported member for member.
    """

    game_id: str
    ruleset: str
    ruleset_version: int
    seats: list[str]
    chance: str
    events: list[StoredEvent]
    options: dict[str, Any] = {}
    seed_commitment: str | None = None
    seed: str | None = None
    format: str = "tabula-game-record"
    format_version: int = 1
    raw: dict[str, Any] = {}


class Problem(msgspec.Struct, frozen=True):
    """An RFC 9457 problem; ``extra`` holds members beyond the standard ones."""

    type: str = "about:blank"
    title: str = ""
    status: int = 0
    detail: str = ""
    instance: str | None = None
    extra: dict[str, Any] = {}

    @property
    def slug(self) -> str:
        """The last segment of ``type``: ``illegal-move`` for ``.../problems/illegal-move``."""
        return self.type.rstrip("/").rsplit("/", 1)[-1]
