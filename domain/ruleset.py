"""The surface every rule set module exposes (a module satisfies this protocol): constants,
``setup``, ``redact``, ``finished``, and the turn's functions, bound from the one instance
(``RULES``) of the rule set's class of named hooks."""

from __future__ import annotations

from typing import Any, Protocol, TypeVar

import msgspec

from domain.events import Event
from domain.model import ChanceNeed, Move, Pending, View, Viewer

State = TypeVar("State")


class RuleSet(Protocol[State]):
    """One rule set over its own state type: constants, setup, who acts, legal moves, decide,
    apply, finished, view."""

    NAME: str
    VERSION: int
    MIN_PLAYERS: int
    MAX_PLAYERS: int
    OPTIONS: dict[str, Any]
    """The options' defaults (``Options()`` as JSON)."""

    @property
    def Options(self) -> type[msgspec.Struct]:
        """The options as a typed Struct: names, types, allowed values, defaults, meanings."""

    def setup(self, options: dict[str, Any], seats: int) -> State:
        """The initial state; raises BadOption for an option its ``Options`` refuse, BadSetup
        for a wrong player count or options that do not fit together."""

    def to_act(self, state: State) -> list[Pending]:
        """Who must act now, and how; empty when finished."""

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """Every legal move of ``seat``, in a deterministic order."""

    def chance(self, state: State) -> ChanceNeed | None:
        """The chance outcome the pending draw or roll needs, if any."""

    def automatic(self, state: State) -> list[Event]:
        """Events that happen now with no decision (forced passes, automatic moves)."""

    def decide(self, state: State, seat: int, move_id: str) -> list[Event]:
        """The events a decision causes; raises a GameError saying why it is illegal."""

    def apply(self, state: State, event: Event) -> State:
        """The pure reducer; trusts its input."""

    def redact(self, event: Event, viewer: Viewer) -> Event:
        """The event as ``viewer`` may see it (hidden cards as ``HIDDEN``); public sets use
        ``events.no_secrets``."""

    def finished(self, state: State) -> dict[int, int]:
        """How many pieces of each seat have finished (seats with none left out)."""

    def view(self, state: State, viewer: Viewer) -> View:
        """What ``viewer`` may see of the state (pieces, to_act, chance, winners, hands)."""
