"""Seats that belong to registered players: only the player's key acts for such a seat; the
referee's token plays no move for it, hands it to no bot, names it in no adjudication and
undoes none of its decisions; the player hands it to a bot and back herself.

The referee core's rules (``judge`` on a game whose ``GameCreated.players`` names Ann's seat,
as live play and the verification of a log both run it), then creating games that seat
players, against the real app."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from litestar.testing import TestClient

from domain.events import GameCreated, SeatPlayer
from domain.registry import RULESETS
from domain.replay import Replay
from service.core import chance
from service.core.actor import Actor
from service.core.commands import Adjudicate, Command, HandOver, PlayMove, PostChance, Undo
from service.core.luck import Seeded
from service.core.referee import Batch, judge, open_game
from service.core.refusal import Refusal
from service.core.rejudge import Entry, rejudge
from tests.service.conftest import auth, seed_for_test

SEED = "player-seats"
ANN, BOB = 0, 1


def sorry(owned: tuple[int, ...] = (ANN,), **settings: object) -> Replay:
    """A new two-seat sorry game whose seats ``owned`` belong to players (Ann at seat 0)."""
    handles = ("ann", "bob")
    created = GameCreated(
        "sorry",
        dict(RULESETS["sorry"].OPTIONS),
        handles,
        seed_commitment=chance.commitment(SEED),
        players=tuple(SeatPlayer(seat, handles[seat]) for seat in owned),
        **settings,  # type: ignore[arg-type]
    )
    return open_game(created, Seeded(SEED)).after


def acted(replay: Replay, actor: Actor, command: Command) -> tuple[Replay, Batch]:
    verdict = judge(replay, actor, command, Seeded(SEED))
    return verdict.after, verdict.batch


def batch_of(replay: Replay, actor: Actor, command: Command) -> Batch:
    return acted(replay, actor, command)[1]


def refusal(replay: Replay, actor: Actor, command: Command) -> Refusal:
    with pytest.raises(Refusal) as refused:
        judge(replay, actor, command, Seeded(SEED))
    return refused.value


def decided_by(replay: Replay) -> int | str | None:
    """Who made the latest effective decision (None: none yet)."""
    version = replay.last_decision()
    return None if version is None else replay.since(version)[0].by


def played(replay: Replay, actor: Callable[[int], Actor], until: Actor) -> Replay:
    """The pending seats' first legal acts, each by ``actor(seat)``, until the latest decision
    is ``until``'s."""
    while decided_by(replay) != until:
        seat = replay.rules.to_act(replay.state)[0].seat
        move = replay.rules.legal_moves(replay.state, seat)[0].id
        replay, _ = acted(replay, actor(seat), PlayMove(move=move, seat=seat))
    return replay


def test_the_referee_plays_no_move_for_a_players_seat() -> None:
    replay = sorry()
    refused = refusal(replay, "referee", PlayMove(move="draw", seat=ANN))
    assert refused.slug == "forbidden"
    assert "seat 1 belongs to the player `ann`" in refused.detail
    assert "plays no move for it" in refused.detail
    assert refusal(replay, "referee", PlayMove(move="draw")).slug == "forbidden"  # the pending
    batch = batch_of(replay, ANN, PlayMove(move="draw"))
    assert batch[0][0] == ANN  # `by` on Ann's draw is her seat


def test_the_referee_plays_a_free_seat_as_before() -> None:
    replay = sorry(owned=(BOB,))
    batch = batch_of(replay, "referee", PlayMove(move="draw", seat=ANN))
    assert batch[0][0] == "referee"


def test_the_player_hands_her_seat_to_a_bot_and_back_and_nobody_else_does() -> None:
    replay = sorry()
    to_bot = HandOver("greedy", "away", seat=ANN, version=1)
    refused = refusal(replay, "referee", to_bot)
    assert (refused.slug, "hands it to no bot" in refused.detail) == ("forbidden", True)
    assert refusal(replay, BOB, to_bot).slug == "forbidden"
    assert refusal(replay, BOB, HandOver("greedy", seat=BOB)).slug == "forbidden"  # a free seat
    handed, batch = acted(replay, ANN, to_bot)
    assert [(by, type(e).__name__) for by, e in batch] == [(ANN, "SeatHandedOver")]
    assert handed.bot_of(ANN) == "greedy"
    moved = refusal(handed, ANN, PlayMove(move="draw"))
    assert "its player can hand it back" in moved.detail
    assert refusal(handed, "referee", HandOver(None, seat=ANN)).slug == "forbidden"
    back, batch = acted(handed, ANN, HandOver(None, "back", seat=ANN))
    assert batch[0][0] == ANN and back.bot_of(ANN) is None


def test_the_referee_hands_a_free_seat_to_a_bot_in_a_game_with_players() -> None:
    replay = sorry()
    after, batch = acted(replay, "referee", HandOver("greedy", seat=BOB, version=1))
    assert batch[0][0] == "referee" and after.bot_of(BOB) == "greedy"


@pytest.mark.parametrize(
    "command",
    [
        Adjudicate("forfeit", "no show", seat=BOB),
        Adjudicate("forfeit", "no show", seat=ANN),
        Adjudicate("agreement", "a draw", winners=[BOB]),
        Adjudicate("agreement", "a draw", winners=[]),
        Adjudicate("penalty", "slow play", seat=ANN),
    ],
    ids=["forfeit-of-the-other", "forfeit", "agreement", "agreement-no-winner", "penalty"],
)
def test_the_referee_names_no_players_seat_and_ends_no_game_of_hers(command: Adjudicate) -> None:
    refused = refusal(sorry(), "referee", command)
    assert refused.slug == "forbidden"
    assert "seat 1 belongs to the player `ann`" in refused.detail


def test_the_referee_penalises_a_free_seat_of_a_game_with_players() -> None:
    batch = batch_of(sorry(), "referee", Adjudicate("penalty", "slow play", seat=BOB))
    assert [by for by, _ in batch] == ["referee"]


def test_the_referee_undoes_no_decision_of_a_players_seat() -> None:
    replay = played(sorry(allow_undo=True), lambda seat: seat, until=ANN)
    refused = refusal(replay, "referee", Undo("mistake"))
    assert refused.slug == "forbidden"
    assert "undoes none of its decisions" in refused.detail
    batch = batch_of(replay, ANN, Undo("mine"))  # her own, where the game allows it
    assert batch[0][0] == ANN


def test_the_referee_undoes_no_decision_a_bot_made_for_a_players_seat() -> None:
    replay, _ = acted(sorry(), ANN, HandOver("greedy", seat=ANN, version=1))
    replay = played(replay, lambda seat: "bot" if seat == ANN else seat, until="bot")
    assert refusal(replay, "referee", Undo("mistake")).slug == "forbidden"


def test_the_referee_undoes_a_free_seats_decision_in_a_game_with_players() -> None:
    replay = played(sorry(owned=(BOB,)), lambda seat: seat, until=ANN)
    batch = batch_of(replay, "referee", Undo("mistake"))
    assert batch[0][0] == "referee"


def test_no_outcome_is_posted_in_a_rated_game_with_players_seats() -> None:
    replay = sorry(chance="external")
    refused = refusal(replay, "referee", PostChance(card="1"))
    assert refused.slug == "forbidden" and "takes its chance from the server" in refused.detail
    unrated = sorry(chance="external", rated=False)
    batch = batch_of(unrated, "referee", PostChance(card="1"))
    assert batch[0][0] == "referee"


def test_a_log_with_a_players_own_hand_over_verifies_and_a_referees_does_not() -> None:
    replay = sorry()
    log: Batch = [("referee", replay.created)]
    steps: list[tuple[Actor, Command]] = [
        (ANN, HandOver("greedy", "away", seat=ANN, version=1)),
        (ANN, HandOver(None, "back", seat=ANN)),
        (ANN, PlayMove(move="draw")),
    ]
    for actor, command in steps:
        replay, batch = acted(replay, actor, command)
        log += batch
    entries = [Entry(n, event, by) for n, (by, event) in enumerate(log, 1)]
    assert rejudge(entries, SEED)[1] == log
    forged = [*entries[:1], entries[1]._replace(by="referee"), *entries[2:]]
    with pytest.raises(Exception, match="event 2"):
        rejudge(forged, SEED)


def register(api: TestClient[Any], *handles: str) -> list[str]:
    """Register players (``POST /players``): their keys."""
    keys = []
    for handle in handles:
        reply = api.post("/players", json={"handle": handle})
        assert reply.status_code == 201, reply.text
        keys.append(reply.json()["key"])
    return keys


def rotate(api: TestClient[Any], key: str) -> str:
    """A player's new key (``POST /me/keys``)."""
    reply = api.post("/me/keys", headers=auth(key))
    assert reply.status_code == 200, reply.text
    new: str = reply.json()["key"]
    return new


def retire(api: TestClient[Any], key: str) -> None:
    """A player retires her handle (``DELETE /me``)."""
    reply = api.delete("/me", headers=auth(key))
    assert reply.status_code < 300, reply.text


def new_game(api: TestClient[Any], *seats: dict[str, Any], **body: Any) -> Any:
    """``POST /games`` of a sorry game with ``seats``: the reply."""
    body = {"ruleset": "sorry", "seats": list(seats), "seed": seed_for_test(), **body}
    return api.post("/games", json=body)


def refused(reply: Any, slug: str, pointer: str) -> str:
    """The detail of a 422 ``slug`` naming ``pointer``."""
    assert reply.status_code == 422, reply.text
    problem = reply.json()
    assert (problem["type"].rsplit("/", 1)[1], problem["pointer"]) == (slug, pointer), problem
    return str(problem["detail"])


def test_a_players_seat_is_named_for_her_handle_and_has_no_token(api: TestClient[Any]) -> None:
    register(api, "Ann")
    reply = new_game(api, {"player": "ANN"}, {"name": "Bob"})
    assert reply.status_code == 201, reply.text
    created = reply.json()
    assert created["tokens"]["seats"][0] is None and isinstance(created["tokens"]["seats"][1], str)
    game_id, referee = created["id"], created["tokens"]["referee"]
    first = api.get(f"/games/{game_id}/events", headers=auth(referee)).json()["events"][0]
    assert first["data"]["seats"] == ["Ann", "Bob"]
    assert first["data"]["players"] == [{"seat": 0, "handle": "Ann"}]
    assert [seat["name"] for seat in api.get(f"/games/{game_id}").json()["seats"]] == ["Ann", "Bob"]
    listed = api.get("/games").json()["games"]
    assert [game["seats"] for game in listed if game["id"] == game_id] == [["Ann", "Bob"]]


def test_a_free_seats_game_has_no_players_in_its_first_event(api: TestClient[Any]) -> None:
    created = new_game(api, {"name": "Ann"}, {"name": "Bob"}).json()
    first = api.get(f"/games/{created['id']}/events").json()["events"][0]
    assert "players" not in first["data"]  # older logs hash as they always did
    assert all(isinstance(token, str) for token in created["tokens"]["seats"])


def test_a_seat_names_only_a_registered_player_who_has_not_retired(api: TestClient[Any]) -> None:
    detail = refused(new_game(api, {"player": "zed"}, {}), "unknown-player", "/seats/0/player")
    assert "`zed` names no registered player" in detail
    retire(api, *register(api, "ann"))
    refused(new_game(api, {}, {"player": "ann"}), "unknown-player", "/seats/1/player")


@pytest.mark.parametrize(
    ("seats", "pointer", "says"),
    [
        ([{"player": "ann", "bot": "greedy"}, {}], "/seats/0/bot", "the player's to play"),
        ([{"player": "ann", "name": "Anne"}, {}], "/seats/0/name", "named for the player"),
        ([{"player": "ann"}, {"player": "Ann"}], "/seats/1/player", "holds seat 1 already"),
        ([{"player": "ann"}, {"name": "ANN"}], "/seats/1/name", "is the player at seat 1"),
    ],
    ids=["with-a-bot", "another-name", "twice", "a-free-name-like-hers"],
)
def test_a_players_seat_is_hers_alone(
    api: TestClient[Any], seats: list[dict[str, Any]], pointer: str, says: str
) -> None:
    register(api, "ann")
    assert says in refused(new_game(api, *seats), "bad-setup", pointer)


def test_a_players_seat_may_repeat_her_handle_as_its_name(api: TestClient[Any]) -> None:
    register(api, "ann")
    assert new_game(api, {"player": "ann", "name": "ANN"}, {}).status_code == 201


def test_a_rated_game_with_players_takes_its_chance_from_the_server(api: TestClient[Any]) -> None:
    register(api, "ann")
    external = new_game(api, {"player": "ann"}, {}, chance="external")
    assert "takes its chance from the server" in refused(external, "bad-setup", "/chance")
    unrated = new_game(api, {"player": "ann"}, {}, chance="external", rated=False)
    assert unrated.status_code == 201, unrated.text


def test_a_batch_seats_players_and_a_bad_table_creates_none(api: TestClient[Any]) -> None:
    register(api, "ann", "bob")
    table = {"ruleset": "sorry", "seats": [{"player": "ann"}, {"player": "bob"}]}
    bad = {"ruleset": "sorry", "seats": [{"player": "ann"}, {"player": "zed"}]}
    before = len(api.get("/games").json()["games"])
    reply = api.post("/games/batch", json={"games": [table, bad]})
    assert refused(reply, "unknown-player", "/games/1/seats/1/player").startswith("table 1")
    assert len(api.get("/games").json()["games"]) == before
    made = api.post("/games/batch", json={"games": [table, table]})
    assert made.status_code == 201, made.text
    assert [game["tokens"]["seats"] for game in made.json()["games"]] == [[None, None]] * 2


UNSEEDED = {"rated": False, "chance": "external"}
"""A game whose running record imports without its seed."""


def test_an_imported_record_keeps_its_players_seats(api: TestClient[Any]) -> None:
    register(api, "ann")
    created = new_game(api, {"player": "ann"}, {"name": "Bob"}, **UNSEEDED).json()
    export = api.get(f"/games/{created['id']}/export", headers=auth(created["tokens"]["referee"]))
    record = export.json()
    imported = api.post("/games/import", json=record)
    assert imported.status_code == 201, imported.text
    tokens = imported.json()["tokens"]["seats"]
    assert tokens[0] is None and isinstance(tokens[1], str)
    first = api.get(f"/games/{imported.json()['id']}/events").json()["events"][0]
    assert first["data"]["players"] == [{"seat": 0, "handle": "ann"}]


def test_a_record_seating_an_unregistered_handle_is_not_imported(api: TestClient[Any]) -> None:
    (key,) = register(api, "ann")
    created = new_game(api, {"player": "ann"}, {"name": "Bob"}, **UNSEEDED).json()
    export = api.get(f"/games/{created['id']}/export", headers=auth(created["tokens"]["referee"]))
    record = export.json()
    retire(api, key)
    reply = api.post("/games/import", json=record)
    assert reply.status_code == 422, reply.text
    problem = reply.json()
    assert problem["type"].endswith("/unknown-player") and problem["first_bad_event"] == 1


class Table:
    """A running sorry game seating Ann (seat 0, a registered player) and Bob (seat 1, a free
    seat), with Ann's key, the creator's tokens and Cid's key (a player with no seat here)."""

    def __init__(self, api: TestClient[Any], **body: Any) -> None:
        self.api = api
        self.key, self.cid = register(api, "ann", "cid")
        created = new_game(api, {"player": "ann"}, {"name": "Bob"}, **body).json()
        self.id, self.referee = created["id"], created["tokens"]["referee"]
        self.tokens = created["tokens"]["seats"]

    def post(self, path: str, token: str | None, body: Any = None) -> Any:
        headers = auth(token) if token else {}
        return self.api.post(f"/games/{self.id}{path}", json=body or {}, headers=headers)

    def others(self) -> list[tuple[str | None, int]]:
        """Every caller but Ann, with the status its write for her seat is refused with."""
        return [(self.referee, 403), (self.tokens[1], 403), (self.cid, 403), (None, 401)]


def test_nobody_without_anns_key_plays_her_seat_and_her_key_does(api: TestClient[Any]) -> None:
    table = Table(api)
    for token, status in table.others():
        reply = table.post("/moves", token, {"move": "draw", "seat": 0})
        assert reply.status_code == status, (token, reply.text)
    assert api.get(f"/games/{table.id}").json()["version"] == 1
    legal = api.get(f"/games/{table.id}/legal-moves", headers=auth(table.key)).json()
    assert [move["id"] for move in legal["moves"]] == ["draw"]  # her seat's, as its token's
    played = table.post("/moves", table.key, {"move": "draw"})
    assert played.status_code == 200, played.text
    assert [event["by"] for event in played.json()["events"]][:1] == [0]


def test_nobody_without_anns_key_hands_her_seat_over(api: TestClient[Any]) -> None:
    table = Table(api)
    path = "/seats/0/bot"
    for token, status in table.others():
        reply = table.post(path, token, {"bot": "greedy"})
        assert reply.status_code == status, (token, reply.text)
    assert "belongs to the player `ann`" in table.post(path, table.referee, {"bot": "greedy"}).text
    handed = table.post(path, table.key, {"bot": "greedy", "reason": "a call"})
    assert handed.status_code == 200, handed.text
    event = handed.json()["events"][0]
    assert (event["type"], event["by"]) == ("SeatHandedOver", 0)
    url = f"/games/{table.id}{path}"
    assert api.delete(url, headers=auth(table.referee)).status_code == 403
    assert api.delete(url, headers=auth(table.cid)).status_code == 403
    back = api.delete(url, headers=auth(table.key))
    assert back.status_code == 200, back.text
    assert back.json()["events"][0]["by"] == 0


def test_ann_hands_no_seat_but_hers_over(api: TestClient[Any]) -> None:
    table = Table(api)
    reply = table.post("/seats/1/bot", table.key, {"bot": "greedy"})
    assert reply.status_code == 403, reply.text
    assert table.post("/seats/1/bot", table.referee, {"bot": "greedy"}).status_code == 200


def test_the_referee_neither_adjudicates_nor_undoes_for_ann(api: TestClient[Any]) -> None:
    table = Table(api, allow_undo=True)
    for body in (
        {"kind": "forfeit", "reason": "gone", "seat": 0},
        {"kind": "agreement", "reason": "a draw", "winners": [1]},
        {"kind": "penalty", "reason": "slow", "seat": 0},
    ):
        reply = table.post("/adjudicate", table.referee, body)
        assert reply.status_code == 403, reply.text
    for _ in range(100):  # play until Ann has made a decision
        seat = api.get(f"/games/{table.id}").json()["to_act"][0]["seat"]
        token = table.key if seat == 0 else table.tokens[1]
        move = api.get(f"/games/{table.id}/legal-moves", headers=auth(token)).json()["moves"][0]
        events = table.post("/moves", token, {"move": move["id"]}).json()["events"]
        if any(e["type"] == "MovePlayed" and e["by"] == 0 for e in events):
            break
    refused = table.post("/undo", table.referee, {"reason": "not his"})
    assert refused.status_code == 403 and "undoes none of its decisions" in refused.text
    undone = table.post("/undo", table.key, {"reason": "mine"})  # the game allows undo
    assert undone.status_code == 200, undone.text
    assert undone.json()["events"][0]["by"] == 0


def test_a_rotated_key_is_refused_at_once_and_the_new_one_plays(api: TestClient[Any]) -> None:
    table = Table(api)
    new = rotate(api, table.key)
    old = table.post("/moves", table.key, {"move": "draw"})
    assert old.status_code == 401 and old.json()["type"].endswith("/key-refused"), old.text
    assert api.get(f"/games/{table.id}", headers=auth(table.key)).status_code == 401
    assert table.post("/moves", new, {"move": "draw"}).status_code == 200


def test_her_key_reads_her_hand_as_her_seat_does(api: TestClient[Any]) -> None:
    (key,) = register(api, "ann")
    seats = [{"player": "ann"}, {"name": "Bob"}]
    body = {"ruleset": "sorry-hand", "seats": seats, "seed": seed_for_test(), "rated": False}
    created = api.post("/games", json={**body, "allow_hints": True}).json()
    game_id = created["id"]
    hers = api.get(f"/games/{game_id}", headers=auth(key)).json()
    spectator = api.get(f"/games/{game_id}").json()
    assert hers != spectator  # her hand shows to her key, not to a spectator
    bob = api.get(f"/games/{game_id}", headers=auth(created["tokens"]["seats"][1])).json()
    assert hers != bob
    assert api.get(f"/games/{game_id}/hints", headers=auth(key)).status_code == 200
