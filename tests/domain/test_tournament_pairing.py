"""Pairings for tables of several seats: table sizes and byes, every active player at exactly
one table a round, repeat meetings as few as an exhaustive search finds, seats where the
players sat least; over many player counts (hypothesis)."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations, permutations, product

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.tournament.pairing import (
    arrangements,
    cost,
    pair,
    partition,
    table_sizes,
)
from domain.tournament.rounds import plan_round
from domain.tournament.seats import seat_order
from domain.tournament.state import seats_had
from tests.domain.tournament_play import created, finished, meetings_of, paired, play, registered


def fewest_byes(players: int, seats: int, least: int) -> int:
    """By brute force: the fewest players left out by any number of tables of least..seats."""
    best = players
    for tables in range(1, players + 1):
        if tables * least <= players:
            best = min(best, players - min(players, tables * seats))
    return best


@given(st.integers(1, 80), st.integers(2, 6), st.data())
def test_table_sizes_seat_everyone_they_can_in_tables_as_even_as_possible(
    players: int, seats: int, data: st.DataObject
) -> None:
    least = data.draw(st.integers(2, seats))
    sizes, byes = table_sizes(players, seats, least)
    assert sum(sizes) + byes == players
    assert all(least <= size <= seats for size in sizes)
    assert byes == fewest_byes(players, seats, least)
    if sizes:
        assert max(sizes) - min(sizes) <= 1
        assert byes == 0 or all(size == seats for size in sizes)
        assert byes > 0 or len(sizes) == -(-players // seats)  # smaller tables only if needed


def test_ten_players_at_four_seats_are_four_three_three_and_partners_gets_byes() -> None:
    assert table_sizes(10, 4, 2) == ((4, 3, 3), 0)
    assert table_sizes(10, 4, 4) == ((4, 4), 2)
    assert table_sizes(6, 3, 2) == ((3, 3), 0)


@settings(max_examples=60, deadline=None)
@given(
    players=st.integers(2, 40),
    seats=st.integers(2, 6),
    rounds=st.integers(1, 4),
    swiss=st.booleans(),
    seed=st.integers(0, 1000),
)
def test_every_active_player_sits_at_exactly_one_table_or_has_a_bye_each_round(
    players: int, seats: int, rounds: int, swiss: bool, seed: int
) -> None:
    settings_ = created("swiss" if swiss else "round-robin", rounds, seats)
    state = play(settings_, players, seed)
    for round_ in state.rounds:
        seated = [name for table in round_.tables for name in table.seats]
        assert Counter(seated + list(round_.byes)) == Counter(state.players)
        sizes = sorted((len(t.seats) for t in round_.tables), reverse=True)
        assert (tuple(sizes), len(round_.byes)) == table_sizes(players, seats, 2)


def every_partition(players: list[str], sizes: tuple[int, ...]) -> list[list[list[str]]]:
    """Every way to seat ``players`` at tables of ``sizes``, by giving each player a table
    and keeping the assignments that fill every table (slow and plain, unlike the pairing's)."""
    found: set[tuple[tuple[str, ...], ...]] = set()
    for assignment in product(range(len(sizes)), repeat=len(players)):
        tables: list[list[str]] = [[] for _ in sizes]
        for player, table in zip(players, assignment, strict=True):
            tables[table].append(player)
        if [len(t) for t in tables] == list(sizes):
            found.add(tuple(sorted(tuple(t) for t in tables)))
    return [[list(t) for t in tables] for tables in found]


@settings(max_examples=40, deadline=None)
@given(players=st.integers(4, 8), seats=st.integers(2, 4), seed=st.integers(0, 10_000))
def test_repeat_meetings_are_as_few_as_an_exhaustive_search_finds(
    players: int, seats: int, seed: int
) -> None:
    rng = random.Random(seed)
    sizes, _ = table_sizes(players, seats, 2)
    names = [f"p{i}" for i in range(sum(sizes))]  # those a bye leaves
    met: Counter[tuple[str, str]] = Counter()
    for _ in range(rng.randint(1, 4)):  # earlier rounds, seated at random
        rng.shuffle(names)
        start = 0
        for size in sizes:
            for a, b in combinations(names[start : start + size], 2):
                met[pair(a, b)] += 1
            start += size
    scores = {name: rng.randint(0, 3) for name in names}
    ranked = sorted(names, key=lambda n: -scores[n])
    everything = every_partition(names, sizes)
    assert len(everything) == arrangements(sizes)
    best = min(cost(tables, met, scores) for tables in everything)
    assert cost(partition(ranked, sizes, met, scores), met, scores) == best


def test_a_swiss_round_groups_equal_scores_when_nobody_met() -> None:
    names = [f"p{i}" for i in range(8)]
    scores = {name: 3 if i < 4 else 0 for i, name in enumerate(names)}
    assert partition(names, (4, 4), {}, scores) == [names[:4], names[4:]]


def test_a_swiss_round_splits_a_score_group_that_already_met() -> None:
    names = [f"p{i}" for i in range(8)]
    scores = {name: 3 if i < 4 else 0 for i, name in enumerate(names)}
    met = {pair(a, b): 1 for a, b in combinations(names[:4], 2)}
    tables = partition(names, (4, 4), met, scores)
    assert all(len(set(table) & set(names[:4])) == 2 for table in tables)


@pytest.mark.parametrize(
    ("players", "seats", "rounds"),
    [(4, 2, 3), (5, 3, 3), (6, 2, 3), (6, 3, 3), (6, 4, 3), (8, 4, 2)],
)
def test_a_round_robin_meets_as_many_pairs_as_the_best_whole_schedule(
    players: int, seats: int, rounds: int
) -> None:
    """Every schedule of ``rounds`` rounds tried: the one planned round by round meets as
    many different pairs as the best (6 at 3 seats in 3 rounds: 13 of 15, none does all)."""
    names = [f"p{i:02}" for i in range(players)]
    sizes, _ = table_sizes(players, seats, 2)
    rounds_of = every_partition(names, sizes)
    best = max(
        len({pair(a, b) for tables in schedule for t in tables for a, b in combinations(t, 2)})
        for schedule in product(rounds_of, repeat=rounds)
    )
    assert len(meetings_of(play(created("round-robin", rounds, seats), players))) == best


@settings(max_examples=40, deadline=None)
@given(players=st.integers(4, 20), seats=st.integers(2, 6), seed=st.integers(0, 1000))
def test_each_table_seats_nobody_where_they_sat_more_often_than_some_order_would(
    players: int, seats: int, seed: int
) -> None:
    rng = random.Random(seed)
    state = registered(created("swiss", 4, seats), players)
    for _ in range(3):
        plan = plan_round(state)
        had = seats_had(state)
        for table in plan.tables:
            chosen = max(had[name][seat] for seat, name in enumerate(table))
            fewest = min(
                max(had[name][seat] for seat, name in enumerate(order))
                for order in permutations(table)
            )
            assert chosen == fewest
        state = finished(paired(state, plan), rng)


def test_seat_order_gives_the_first_seat_to_whoever_had_it_least() -> None:
    had = {"a": [2, 0, 0], "b": [0, 1, 1], "c": [1, 1, 0]}
    assert seat_order(["a", "b", "c"], had) == ("b", "a", "c")


def test_partners_pairs_teams_of_two_sitting_across_the_table() -> None:
    settings = msgspec.structs.replace(created("swiss", 4, 4, least=4), teams=True)
    state = play(settings, 10)  # five teams: p00 + p01, p02 + p03, ...
    teams = {frozenset((f"p{i:02}", f"p{i + 1:02}")) for i in range(0, 10, 2)}
    met: Counter[frozenset[frozenset[str]]] = Counter()
    for round_ in state.rounds:
        assert len(round_.tables) == 2 and frozenset(round_.byes) in teams
        for table in round_.tables:
            one, other = frozenset(table.seats[0::2]), frozenset(table.seats[1::2])
            assert one in teams and other in teams
            met[frozenset((one, other))] += 1
    assert max(met.values()) == 1  # 8 meetings of 10 possible: no two teams twice
    byes = Counter(name for round_ in state.rounds for name in round_.byes)
    assert max(byes.values()) == 1


def test_a_swiss_round_shares_out_those_who_started_first_least() -> None:
    names = [f"p{i}" for i in range(8)]
    level = dict.fromkeys(names, 0)
    firsts = {name: 1 if i < 4 else 0 for i, name in enumerate(names)}
    assert partition(names, (4, 4), {}, level) == [names[:4], names[4:]]
    for table in partition(names, (4, 4), {}, level, firsts):
        assert any(firsts[name] == 0 for name in table)
