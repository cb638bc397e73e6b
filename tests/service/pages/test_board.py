"""The board as SVG: well formed for every rule set, pieces where the state says, special
squares drawn, the last move outlined."""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from litestar.testing import TestClient

from domain.registry import RULESETS
from tests.service.conftest import auth, create

Api = TestClient[Any]


def play_randomly(api: Api, created: dict[str, Any], steps: int, rng: random.Random) -> int:
    """Random legal moves of pending seats, ``steps`` times or until the end; the version."""
    game, seats = created["id"], created["tokens"]["seats"]
    for _ in range(steps):
        state = api.get(f"/games/{game}").json()
        if state["status"] == "finished":
            break
        seat = rng.choice(state["to_act"])["seat"]
        moves = api.get(f"/games/{game}/legal-moves", headers=auth(seats[seat])).json()
        body = {"move": rng.choice(moves["moves"])["id"]}
        assert api.post(f"/games/{game}/moves", json=body, headers=auth(seats[seat])).is_success
    version: int = api.get(f"/games/{game}").json()["version"]
    return version


def board(api: Api, game: str, at: int | None = None) -> ET.Element:
    """The parsed SVG of a game's board."""
    reply = api.get(f"/games/{game}/board.svg", params={} if at is None else {"at": at})
    assert reply.status_code == 200, reply.text
    assert reply.headers["content-type"].startswith("image/svg+xml")
    return ET.fromstring(reply.text)


def with_class(svg: ET.Element, name: str) -> list[ET.Element]:
    """Elements whose class list has ``name``."""
    return [e for e in svg.iter() if name in e.get("class", "").split()]


def drawn_pieces(svg: ET.Element) -> dict[str, str]:
    """Each drawn piece's position, by id."""
    return {e.attrib["data-piece"]: e.attrib["data-at"] for e in with_class(svg, "piece")}


def outlined(svg: ET.Element) -> set[tuple[str, str, str]]:
    """(role, piece, position) of every outlined square of the last move."""
    roles = ("last-from", "last-to")
    return {
        (r, e.attrib["data-piece"], e.attrib["data-at"]) for r in roles for e in with_class(svg, r)
    }


def expected_outline(event: dict[str, Any]) -> set[tuple[str, str, str]]:
    """What a MovePlayed event's steps and effects should outline."""
    moved = [*event["data"]["steps"], *event["data"]["effects"]]
    return {("last-from", m["piece"], m["from"]) for m in moved} | {
        ("last-to", m["piece"], m["to"]) for m in moved
    }


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_board_shows_every_piece_where_the_state_says_at_several_versions(
    api: Api, ruleset: str
) -> None:
    rng = random.Random(ruleset)
    created = create(api, ruleset, RULESETS[ruleset].MAX_PLAYERS, auto_chance=True)
    last = play_randomly(api, created, 60, rng)
    for at in sorted({1, 2, last // 3, last // 2, last - 1, last} - {0}):
        state = api.get(f"/games/{created['id']}/state", params={"at": at}).json()
        svg = board(api, created["id"], at)
        assert svg.tag == "{http://www.w3.org/2000/svg}svg"
        assert drawn_pieces(svg) == {p["id"]: p["at"] for p in state["pieces"]}
    assert drawn_pieces(board(api, created["id"])) == drawn_pieces(board(api, created["id"], last))


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_board_outlines_the_squares_of_the_last_move(api: Api, ruleset: str) -> None:
    rng = random.Random(ruleset)
    created = create(api, ruleset, RULESETS[ruleset].MIN_PLAYERS, auto_chance=True)
    play_randomly(api, created, 40, rng)
    events = api.get(f"/games/{created['id']}/events").json()["events"]
    played = [e for e in events if e["type"] == "MovePlayed"]
    assert played, "the random game played no move"
    assert not outlined(board(api, created["id"], 1))
    for event in played[:5] + played[-3:]:
        svg = board(api, created["id"], event["version"])
        assert outlined(svg) == expected_outline(event)
        following = events[event["version"] : event["version"] + 1]  # the event after it
        if following and following[0]["type"] not in ("MovePlayed", "MoveUndone"):
            after = board(api, created["id"], event["version"] + 1)
            assert outlined(after) == expected_outline(event)


def test_an_undone_move_is_no_longer_outlined(api: Api) -> None:
    created = create(api, "sorry", 2, auto_chance=True)
    game, referee = created["id"], created["tokens"]["referee"]
    play_randomly(api, created, 6, random.Random(3))
    before = outlined(board(api, game))
    reply = api.post(f"/games/{game}/undo", json={"reason": "test"}, headers=auth(referee))
    assert reply.status_code == 200, reply.text
    events = api.get(f"/games/{game}/events").json()["events"]
    undone = events[-1]["data"]["reverts"] if events[-1]["type"] == "MoveUndone" else None
    still = [
        e for e in events if e["type"] == "MovePlayed" and (undone is None or e["version"] < undone)
    ]
    now = outlined(board(api, game))
    assert now == (expected_outline(still[-1]) if still else set())
    assert before != now or not still


def square_kinds(svg: ET.Element) -> dict[str, set[str]]:
    """The classes of each square, by key."""
    return {e.attrib["data-key"]: set(e.attrib["class"].split()) for e in with_class(svg, "square")}


def test_race35_coloured_squares_follow_the_default_layout(api: Api) -> None:
    kinds = square_kinds(board(api, create(api, "race35", 2)["id"]))
    assert {k for k, v in kinds.items() if "red" in v} == {"track:14", "track:32"}
    assert {k for k, v in kinds.items() if "blue" in v} == {"track:21"}
    assert {k for k, v in kinds.items() if "green" in v} == {"track:9", "track:18", "track:27"}
    tricolour = {"track:5", "track:12", "track:24", "track:29"}
    assert {k for k, v in kinds.items() if "tricolour" in v} == tricolour
    assert "home" in kinds and len(kinds) == 35


def test_race35_coloured_squares_follow_custom_special_squares(api: Api) -> None:
    special = {"7": "red", "8": "tricolour", "30": "blue"}
    created = create(api, "race35", 2, options={"special_squares": special})
    kinds = square_kinds(board(api, created["id"]))
    assert {k for k, v in kinds.items() if v & {"red", "blue", "green", "tricolour"}} == {
        "track:7",
        "track:8",
        "track:30",
    }
    assert "red" in kinds["track:7"] and "tricolour" in kinds["track:8"]


@pytest.mark.parametrize(
    ("ruleset", "options", "slides", "safe"),
    [
        ("sorry", {}, 8, 0),
        ("sorry-hand", {}, 8, 0),
        ("parchis", {}, 0, 12),
        ("parchis-2dice", {}, 0, 12),
        ("ludo", {}, 0, 0),
        ("ludo", {"safe_squares": "starts_and_stars"}, 0, 8),
    ],
)
def test_slides_and_safe_squares_are_drawn(
    api: Api, ruleset: str, options: dict[str, Any], slides: int, safe: int
) -> None:
    svg = board(api, create(api, ruleset, 2, options=options)["id"])
    assert len(with_class(svg, "slide")) == slides
    if slides:
        starts = {e.attrib["data-key"] for e in with_class(svg, "slide-start")}
        assert starts == {f"track:{15 * side + rel}" for side in range(4) for rel in (1, 9)}
    assert len(with_class(svg, "safe")) == safe


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_every_colour_has_its_lane_and_start_drawn(api: Api, ruleset: str) -> None:
    created = create(api, ruleset, RULESETS[ruleset].MAX_PLAYERS)
    state = api.get(f"/games/{created['id']}").json()
    keys = square_kinds(board(api, created["id"]))
    for seat in state["seats"]:
        if ruleset != "race35":
            assert f"start:{seat['colour']}" in keys
            assert f"lane:{seat['colour']}:1" in keys


def test_partners_board_follows_section_length(api: Api) -> None:
    created = create(api, "partners", 4, options={"section_length": 12})
    keys = square_kinds(board(api, created["id"]))
    assert {k for k in keys if k.startswith("track:")} == {f"track:{n}" for n in range(48)}
    assert "start" in keys["track:12"]


def test_board_at_out_of_range_is_a_400_problem(api: Api) -> None:
    created = create(api, "race35", 2)
    for at in (0, created["version"] + 1):
        reply = api.get(f"/games/{created['id']}/board.svg", params={"at": at})
        assert reply.status_code == 400
        assert reply.json()["type"].endswith("/out-of-range")


def test_board_and_viewer_of_an_unknown_game_are_404(api: Api) -> None:
    for route in ("board.svg", "view"):
        reply = api.get(f"/games/nope/{route}")
        assert reply.status_code == 404
        assert reply.json()["type"].endswith("/game-not-found")


def test_viewer_page_is_html_that_draws_the_board_and_follows_the_stream(api: Api) -> None:
    reply = api.get(f"/games/{create(api, 'race35', 2)['id']}/view")
    assert reply.status_code == 200
    assert reply.headers["content-type"].startswith("text/html")
    # The page and the modules it loads (/static/viewer.js and what that imports).
    text, scripts = reply.text, re.findall(r'src="(/static/[^"]+\.js)"', reply.text)
    while scripts:
        script = api.get(scripts.pop()).text
        text += script
        scripts += [f"/static/{name}" for name in re.findall(r'from "\./([^"]+\.js)"', script)]
    for needed in ("board.svg", "?at=", "/events?after=", "EventSource", 'type="range"'):
        assert needed in text
