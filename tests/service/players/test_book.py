"""The players' book and the apps over a real store, without HTTP: a key checks until it is
replaced or its handle retired, and the same refusal answers every wrong key."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from eventstore import SqliteEventStore
from service.app import UseCases, bootstrap
from service.core.actor import App, Player
from service.core.refusal import Refusal
from service.usecases.games import summaries


@pytest.fixture
def cases(tmp_path: Path) -> Iterator[UseCases]:
    store = SqliteEventStore(tmp_path / "tabula.db")
    try:
        yield bootstrap(store)
    finally:
        store.close()


def slug(call: object) -> str:
    with pytest.raises(Refusal) as refused:
        call()  # type: ignore[operator]
    return refused.value.slug


def test_a_key_checks_until_it_is_replaced(cases: UseCases) -> None:
    first = cases.players.register("Ann")
    assert cases.players.authenticate(first.key) == Player("Ann")
    second = cases.players.rotate(Player("Ann"))
    assert cases.players.authenticate(second) == Player("Ann")
    assert slug(lambda: cases.players.authenticate(first.key)) == "key-refused"


def test_every_wrong_key_is_refused_alike(cases: UseCases) -> None:
    issued = cases.players.register("ann")
    wrong_secret = issued.key[:-4] + "AAAA"
    unknown = "tabula_pk_" + "0" * 24 + "_" + issued.key.split("_", 3)[3]
    for key in (wrong_secret, unknown, "tabula_pk_nonsense", "tabula_pk_"):
        assert slug(lambda key=key: cases.players.authenticate(key)) == "key-refused"


def test_a_retired_handle_checks_no_key_and_is_never_registered_again(cases: UseCases) -> None:
    issued = cases.players.register("ann")
    cases.players.retire(Player("ann"))
    assert slug(lambda: cases.players.authenticate(issued.key)) == "key-refused"
    assert slug(lambda: cases.players.register("ANN")) == "handle-taken"
    assert cases.players.seated("ann") is None


def test_a_watcher_hears_of_a_rotation(cases: UseCases) -> None:
    cases.players.register("ann")
    heard: list[str] = []
    stop = cases.players.watch(Player("ann"), lambda: heard.append("changed"))
    cases.players.rotate(Player("ann"))
    stop()
    cases.players.rotate(Player("ann"))
    assert heard == ["changed"]


def test_an_app_key_checks_until_revoked(cases: UseCases) -> None:
    key = cases.apps.add("ludoclub")
    assert cases.apps.authenticate(key) == App("ludoclub")
    member = cases.players.register("8812", App("ludoclub"))
    assert member.handle == "ludoclub:8812"
    assert cases.players.authenticate(cases.players.mint(App("ludoclub"), "ludoclub:8812"))
    assert slug(lambda: cases.players.authenticate(member.key)) == "key-refused"
    cases.apps.revoke("ludoclub")
    assert slug(lambda: cases.apps.authenticate(key)) == "key-refused"
    assert [(a.name, a.revoked) for a in cases.apps.listed()] == [("ludoclub", True)]


def test_players_and_apps_streams_need_no_summary(cases: UseCases) -> None:
    cases.players.register("ann")
    cases.apps.add("ludoclub")
    with capture_logs() as logged:
        assert summaries.fill(cases.store) == 0  # as at every start: nothing to summarise
    assert logged == []
