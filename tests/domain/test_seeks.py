"""The seeks' fold and matcher, pure: arrival order, expiry first, rated runs by rating and
the window widening with the wait, bots after a wait, and when the answer next changes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from domain.seeks.book import BadEvent, Book, Seek, fold, step
from domain.seeks.events import (
    SeekCancelled,
    SeekEvent,
    SeekPosted,
    SeeksMatched,
    SeeksOpened,
    SeeksRenewed,
)
from domain.seeks.matching import RATING_WINDOW, WIDENING, Seating, next_due, plan

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def seek(
    name: str,
    posted: float = 0,
    rating: float = 0.0,
    handle: str = "",
    bots_after: float | None = None,
    level: str = "",
) -> Seek:
    return Seek(name, at(posted), at(posted + 120), handle, "", "", rating, bots_after, level)


def book(*seeks: Seek, players: int = 4, rated: bool = False) -> Book:
    return Book("ludo", players, rated, {}, tuple(seeks))


def ids(table: Seating) -> list[str]:
    return [s.id for s in table.seeks]


def test_unrated_seeks_sit_in_arrival_order_a_table_at_a_time() -> None:
    planned = plan(book(*(seek(f"s{n}", posted=n) for n in range(9))), at(10))
    assert [ids(t) for t in planned.tables] == [["s0", "s1", "s2", "s3"], ["s4", "s5", "s6", "s7"]]
    assert planned.expired == ()


def test_a_player_never_sits_twice_at_one_table() -> None:
    waiting = [seek("a1", handle="ann"), seek("a2", 1, handle="ann"), seek("b", 2), seek("c", 3)]
    planned = plan(book(*waiting, players=3), at(5))
    assert [ids(t) for t in planned.tables] == [["a1", "b", "c"]]


def test_a_seek_expires_before_it_could_sit() -> None:
    waiting = [seek("old", posted=-120), seek("a", 1), seek("b", 2)]
    planned = plan(book(*waiting, players=2), at(3))
    assert [s.id for s in planned.expired] == ["old"]
    assert [ids(t) for t in planned.tables] == [["a", "b"]]


def test_rated_seeks_sit_with_their_nearest_neighbours_by_rating() -> None:
    waiting = [seek("a", 0, 0.0), seek("b", 1, 30.0), seek("c", 2, 1.0), seek("d", 3, 29.0)]
    planned = plan(book(*waiting, players=2, rated=True), at(3))
    assert [ids(t) for t in planned.tables] == [["a", "c"], ["b", "d"]]


def test_the_run_holding_the_oldest_seek_sits_first() -> None:
    waiting = [seek("c", 0, 1.0), seek("a", 1, 0.0), seek("b", 2, 2.5)]
    planned = plan(book(*waiting, players=2, rated=True), at(2))
    assert [ids(t) for t in planned.tables] == [["c", "a"]]  # c is oldest; a is nearer than b


def test_the_window_widens_with_the_wait_of_the_later_seek() -> None:
    gap = 10.0
    waiting = book(seek("a", 0, 0.0), seek("b", 5, gap), players=2, rated=True)
    sits = at(5 + (gap - RATING_WINDOW) / WIDENING)
    assert plan(waiting, sits - timedelta(milliseconds=1)).tables == ()
    assert next_due(waiting) == sits
    assert [ids(t) for t in plan(waiting, sits).tables] == [["a", "b"]]


def test_a_seek_due_for_bots_sits_with_the_seeks_that_accept_bots() -> None:
    waiting = [
        seek("a", 0, bots_after=30, level="greedy"),
        seek("human-only", 1),
        seek("b", 2, bots_after=90, level="random"),
    ]
    assert plan(book(*waiting), at(29)).tables == ()
    planned = plan(book(*waiting), at(30))
    assert [(ids(t), t.bots) for t in planned.tables] == [(["a", "b"], "greedy")]


def test_next_due_is_the_first_expiry_or_bots_moment() -> None:
    assert next_due(book()) is None
    waiting = book(seek("a", 0), seek("b", 1, bots_after=30))
    assert next_due(waiting) == at(31)


def test_the_fold_ends_seeks_as_the_log_says() -> None:
    events: list[SeekEvent] = [
        SeeksOpened("ludo", 2, False, {}),
        SeekPosted("a", at(0).isoformat(), at(120).isoformat(), handle="ann"),
        SeekPosted("b", at(1).isoformat(), at(121).isoformat(), digest="d" * 64),
        SeekPosted("c", at(2).isoformat(), at(122).isoformat()),
        SeeksRenewed(("a",), at(200).isoformat()),
    ]
    after = fold(events)
    assert [s.id for s in after.waiting] == ["a", "b", "c"] and after.waiting[0].expires == at(200)
    after, closed = step(after, SeeksMatched(("b", "a"), "game"))
    assert [(c.seek.id, c.status, c.seat) for c in closed] == [
        ("b", "matched", 0),
        ("a", "matched", 1),
    ]
    after, closed = step(after, SeekCancelled("c"))
    assert after.waiting == () and closed[0].status == "cancelled"
    with pytest.raises(BadEvent):
        step(after, SeekCancelled("c"))
    with pytest.raises(BadEvent):
        step(None, SeekCancelled("c"))
