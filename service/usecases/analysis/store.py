"""A finished game's analysis kept beside its log, as derived data: one row of the store's
``derived`` table per game, in space ``analysis/<method>``, keyed by the game's id, holding
the version analysed and the analysis as JSON. The method names the analysis code's own
number and a digest of the model's weights, so an analysis made by another model is never
served; a game reopened (an undo) and finished again at another version is analysed again.

Each game's row is written with the mark ``analysis/<method>/<game>`` moved from where it was
read to the version analysed, so of two processes that analyse a game at once only one writes
and the other's work is dropped (both are the same: the method is seeded by the game).
"""

from __future__ import annotations

import hashlib
from functools import cache

import msgspec

from analysis.game import Analysis, Point
from analysis.model import WEIGHTS
from eventstore import Derived, DerivedRow

NUMBER = 2
"""The analysis code's own number: raised when the same weights would give another analysis."""


class Position(msgspec.Struct, frozen=True, omit_defaults=True):
    """A version at which a chance outcome or a decision happens: each seat's chance of
    winning before it (``half_width``: the calibration error's bound), and a chance
    outcome's ``luck`` (what it moved each seat's chance by against the average outcome); or
    a finished game's result at its last version (the winners' chances 1 between them)."""

    version: int
    kind: str
    """``chance``, ``decision`` or ``result``."""
    seat: int
    chances: list[float]
    half_width: list[float]
    luck: list[float] | None = None


class Decision(msgspec.Struct, frozen=True, omit_defaults=True):
    """A decision judged: the chance the seat's best legal move (``best``) kept, less the one
    its move kept (``loss``), and the word for a large loss (``inaccuracy`` from 0.03,
    ``mistake`` from 0.07, ``blunder`` from 0.15)."""

    version: int
    seat: int
    loss: float
    best: str | None = None
    label: str | None = None


class GameAnalysis(msgspec.Struct, frozen=True):
    """``GET /games/{id}/analysis``: a game's analysis up to ``version``, by ``method``; per
    seat, the luck its chance outcomes gained (``luck``) and the chances its decisions lost
    (``lost``)."""

    game_id: str
    version: int
    method: str
    ruleset: str
    seats: int
    positions: list[Position]
    decisions: list[Decision]
    luck: list[float]
    lost: list[float]


def wire(game_id: str, version: int, analysis: Analysis) -> GameAnalysis:
    """The analysis of a game up to ``version`` as the API gives it."""
    return GameAnalysis(
        game_id,
        version,
        method(),
        analysis.ruleset,
        analysis.seats,
        [position(point) for point in analysis.points],
        [
            Decision(p.version, p.seat, p.loss or 0.0, p.best, p.label)
            for p in analysis.points
            if p.kind == "decision"
        ],
        analysis.luck,
        analysis.lost,
    )


def position(point: Point) -> Position:
    """A point's position: its chances and luck."""
    return Position(
        point.version, point.kind, point.seat, point.chances, point.half_width, point.luck
    )


@cache
def method() -> str:
    """The method's name: its number and the first 12 hex digits of the weights' digest."""
    digest = hashlib.sha256()
    for path in sorted(WEIGHTS.glob("*")):
        if path.is_file():
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return f"{NUMBER}-{digest.hexdigest()[:12]}"


def space() -> str:
    """The derived space the analyses of this method are kept in."""
    return f"analysis/{method()}"


def stored(store: Derived, game_id: str, version: int) -> GameAnalysis | None:
    """The analysis kept for a game at ``version``, or None (none, or of another version)."""
    rows = store.derived_rows(space(), since=game_id, limit=1)
    if not rows or rows[0].key != game_id or rows[0].document is None:
        return None
    if rows[0].document.get("version") != version:
        return None
    return msgspec.convert(rows[0].document["analysis"], GameAnalysis)


def keep(store: Derived, game_id: str, version: int, analysis: GameAnalysis) -> bool:
    """Keep a finished game's analysis at ``version`` (replacing one of another version);
    False when another writer moved the game's mark meanwhile."""
    name = f"{space()}/{game_id}"
    document = {"version": version, "analysis": msgspec.to_builtins(analysis)}
    row = DerivedRow(space(), game_id, float(version), document)
    return store.derived_save(name, store.derived_mark(name), version, [row])
