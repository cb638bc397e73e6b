"""The contract every rule set passes: random games end, pieces are conserved, replay is exact.

Every rule set plays with its default options; Parchís also with its bonus counts on, and
``parchis-2dice``, ``ludo``, ``sorry`` and ``sorry-hand`` also at their earlier versions (kept to
replay games recorded under them)."""

from __future__ import annotations

import random
from collections import Counter

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.events import GameCreated, event_data, event_type, parse_event
from domain.model import CHANCE_KINDS, Piece
from domain.registry import RULESETS, find_ruleset
from domain.replay import fold
from domain.ruleset import RuleSet
from tests.domain.playout import random_events

NAMES = sorted(RULESETS)
BONUSES = {"capture_bonus": 20, "home_bonus": 10}
VARIANTS = [
    *((name, None, {}) for name in NAMES),
    ("parchis", None, BONUSES),
    ("parchis-2dice", None, BONUSES),
    ("parchis-2dice", 1, {}),
    ("parchis-2dice", 1, BONUSES),
    ("parchis-2dice", 2, BONUSES),
    ("ludo", 1, {}),
    ("ludo", 1, {"three_tries": "whenever_no_piece_out", "safe_squares": "starts"}),
    ("ludo", None, {"three_tries": "whenever_no_piece_out", "safe_squares": "starts"}),
    ("sorry", 1, {}),
    ("sorry-hand", 1, {}),
]
"""(rule set, version or None for the current one, options)."""
VARIANT_IDS = [
    f"{name}{'' if version is None else f'-v{version}'}{'+options' if options else ''}"
    for name, version, options in VARIANTS
]


def player_counts(rules: RuleSet) -> st.SearchStrategy[int]:
    return st.integers(rules.MIN_PLAYERS, min(rules.MAX_PLAYERS, 4))


def pieces_of(rules: RuleSet, state: object) -> list[Piece]:
    return list(rules.view(state, "referee").pieces)


def check_pieces(rules: RuleSet, state: object, expected: Counter[int]) -> None:
    """Same pieces per seat always; no two pieces of one seat share a square but start/home
    (unless the rule set allows stacking, e.g. Parchís barriers: then at most two)."""
    pieces = pieces_of(rules, state)
    assert Counter(p.seat for p in pieces) == expected
    assert len({p.id for p in pieces}) == len(pieces)
    for seat in expected:
        squares = [p.at for p in pieces if p.seat == seat and p.at not in ("start", "home")]
        if getattr(rules, "STACKING", False):
            assert max(Counter(squares).values(), default=0) <= getattr(rules, "STACK_LIMIT", 2), (
                f"seat {seat}: {squares}"
            )
        elif rules.NAME != "race35":
            assert len(squares) == len(set(squares)), f"seat {seat} stacks pieces: {squares}"


def check_finished(rules: RuleSet, state: object, expected: Counter[int]) -> dict[int, int]:
    """Finished pieces per seat (those that count towards the win) are within the seat's
    count; returns them."""
    now = rules.finished(state)
    assert all(0 < count <= expected[seat] for seat, count in now.items()), now
    return now


@pytest.mark.parametrize(("name", "version", "options"), VARIANTS, ids=VARIANT_IDS)
@settings(max_examples=15, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**32))
def test_random_games_end_and_conserve_pieces(
    name: str, version: int | None, options: dict[str, int], data: st.DataObject, seed: int
) -> None:
    rules = find_ruleset(name, version)
    seats = data.draw(player_counts(rules))
    start = rules.setup(options, seats)
    expected = Counter(p.seat for p in pieces_of(rules, start))
    state, finished = start, rules.finished(start)
    for state, _ in random_events(rules, start, random.Random(seed)):
        check_pieces(rules, state, expected)
        finished = check_finished(rules, state, expected)
        for pending in rules.to_act(state):
            assert rules.legal_moves(state, pending.seat), "a pending seat always has a move"
            if pending.kind in CHANCE_KINDS:
                assert rules.chance(state) is not None
    assert rules.view(state, None).status == "finished"
    assert state.winners
    assert all(finished.get(seat) == expected[seat] for seat in state.winners), finished


@pytest.mark.parametrize(("name", "version", "options"), VARIANTS, ids=VARIANT_IDS)
@settings(max_examples=10, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**32))
def test_replay_of_the_log_equals_live_state(
    name: str, version: int | None, options: dict[str, int], data: st.DataObject, seed: int
) -> None:
    rules = find_ruleset(name, version)
    seats = data.draw(player_counts(rules))
    players = tuple(f"p{i}" for i in range(seats))
    created = GameCreated(name, options, players, ruleset_version=rules.VERSION)
    log: list[tuple[int, object]] = [(1, created)]
    start = live = rules.setup(options, seats)
    for live, batch in random_events(rules, start, random.Random(seed)):  # noqa: B007
        for event in batch:
            stored = parse_event(
                event_type(event), msgspec.json.decode(msgspec.json.encode(event_data(event)))
            )
            assert stored == event, "an event survives its stored encoding"
            log.append((len(log) + 1, stored))
    assert fold(log).state == live  # type: ignore[arg-type]
