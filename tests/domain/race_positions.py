"""Building race-game positions (Parchís, Ludo) for rule tests, and driving them."""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

from domain.events import DiceRolled, Event
from domain.model import Pending
from domain.replay import settle
from domain.ruleset import RuleSet


def arrange(
    rules: RuleSet,
    places: dict[str, list[str]],
    *,
    seats: int = 4,
    turn: int = 0,
    options: dict[str, Any] | None = None,
    rest: str = "home",
) -> Any:
    """A position: the listed pieces per colour (in order of arrival), the others at ``rest``."""
    state = rules.setup(options or {}, seats)
    board = rules.BOARD  # type: ignore[attr-defined]
    pos = list(state.pos)
    order: list[int] = []
    for seat, colour in enumerate(state.colours):
        listed = places.get(board.colours[colour], [])
        for n in range(4):
            place = listed[n] if n < len(listed) else rest
            pos[seat * 4 + n] = board.parse(colour, place)
    for name, listed in places.items():
        seat = state.colours.index(board.colour_index[name])
        order.extend(seat * 4 + n for n in range(len(listed)))
    changes: dict[str, Any] = {"pos": tuple(pos), "turn": turn}
    if hasattr(state, "stamp"):
        stamp = [0] * len(pos)
        for clock, piece in enumerate(order, start=1):
            stamp[piece] = clock
        changes |= {"stamp": tuple(stamp), "clock": len(order) + 1}
    else:
        changes |= {"started": (True,) * seats, "tries": 0}
    return replace(state, **changes)


def run(rules: RuleSet, state: Any, events: list[Event]) -> Any:
    """Apply events, then the automatic ones."""
    for event in events:
        state = rules.apply(state, event)
    return settle(rules, state)[0]


def throw(rules: RuleSet, state: Any, *dice: int) -> Any:
    """The seat to act throws ``dice``."""
    assert rules.to_act(state) == [Pending(state.turn, "roll")]
    return run(rules, state, [DiceRolled(state.turn, dice)])


def ids(rules: RuleSet, state: Any) -> set[str]:
    """The ids of every legal move of the seat to move (which must be pending)."""
    assert rules.to_act(state) == [Pending(state.turn, "move")]
    moves = [move.id for move in rules.legal_moves(state, state.turn)]
    assert len(moves) == len(set(moves))
    return set(moves)


def play(rules: RuleSet, state: Any, move_id: str) -> Any:
    """The seat to move plays ``move_id``."""
    return run(rules, state, rules.decide(state, state.turn, move_id))


def at(rules: RuleSet, state: Any, colour: str) -> list[str]:
    """Where the pieces of ``colour`` are, sorted."""
    return sorted(p.at for p in rules.view(state, None).pieces if p.id.startswith(colour))


def rolling(rules: RuleSet, state: Any, seat: int) -> bool:
    """Whether ``seat`` is now to throw."""
    return bool(rules.to_act(state) == [Pending(seat, "roll")])
