"""The lobby as a front door, in headless Chromium: Ann plays a whole Sorry! game against the
expert computer opponent by clicks, from the lobby to the end banner's "play again"; the seat
list offers exactly the bot levels that play the chosen rule set; an unknown game's play and
view pages are a page (status 404), not problem JSON; empty names are refused; refusals read
in plain words; the lobby fits a 390 px phone in every language with no English left and no
serious accessibility violation, and fills a 1280 px screen. Screenshots go to
``tests/artifacts/``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from bots import find_level
from domain.registry import RULESETS
from tests.service.browser import PHONE, WIDE, Axe, Browser, Page, browser, person, url  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser


ARTIFACTS = Path(__file__).parents[2] / "artifacts"
STATIC = Path(__file__).parents[3] / "service" / "static"
LANGUAGES = ("en", "es", "nl", "da", "de", "fr")
ENGLISH: dict[str, str] = json.loads((STATIC / "i18n" / "en.json").read_text())
SORRY_OFFSETS = {"red": 0, "blue": 15, "yellow": 30, "green": 45}


def lobby(page: Page) -> None:
    """Wait until the lobby has its rule sets, bots and form."""
    page.wait_for_selector("body[data-ready='true'] #create-form #seats input")


def progress(piece: str, at: str) -> int:
    """How far a Sorry! pawn has come (start 0 .. home 65)."""
    if at == "start":
        return 0
    if at == "home":
        return 65
    kind, number = at.split(":")
    if kind == "lane":
        return 59 + int(number)
    return (int(number) - SORRY_OFFSETS[piece.split("-")[0]] - 4) % 60 + 1


def gain(move: dict[str, Any], colour: str) -> int:
    """A move's worth to a greedy player: own pawns' progress, opponents' loss."""
    worth = 0
    for change in [*move["steps"], *move["effects"]]:
        delta = progress(change["piece"], change["to"] or "start")
        delta -= progress(change["piece"], change["from"])
        worth += delta if change["piece"].startswith(colour) else -delta
    return worth


def click_move(page: Page, move: dict[str, Any]) -> None:
    """Play ``move`` by clicks: its piece then its square, or its entry in the list."""
    pieces = {step["piece"] for step in move["steps"]}
    if len(pieces) == 1:
        (piece,) = pieces
        end = move["steps"][-1]["to"]
        kind, _, rest = end.partition(":")
        keys = {end, ":".join(filter(None, [kind, piece.rsplit("-", 1)[0], rest]))}
        page.click(f'#board .piece[role="button"][data-piece="{piece}"]')
        page.locator(", ".join(f'#board .target[data-key="{k}"]' for k in keys)).first.click(
            force=True
        )
        if page.locator("#moves button.choice").count():
            page.click(f'#moves button.choice[data-move="{move["id"]}"]')
        return
    if not page.locator("#all-moves").evaluate("d => d.open"):
        page.click("#all-moves-summary")
    page.click(f'#moves button[data-move="{move["id"]}"]')


def ann_plays_to_the_end(http: httpx.Client, page: Page, game: str, token: str) -> None:
    """Ann (seat 0) plays each of her turns on her page by clicks (the greediest move) while
    the bot plays its own in the service, until the game ends."""
    auth = {"Authorization": f"Bearer {token}"}
    for _ in range(600):
        state = http.get(f"/games/{game}", headers=auth).json()
        if state["status"] == "finished":
            return
        if state["to_act"][0]["seat"] != 0:  # the bot's turn: it plays at once
            page.wait_for_timeout(50)
            continue
        page.wait_for_function(
            "v => Number(document.body.dataset.version || 0) >= v", arg=state["version"]
        )
        moves = http.get(f"/games/{game}/legal-moves", headers=auth).json()["moves"]
        if moves[0]["id"] == "draw":
            page.click('#actions button[data-move="draw"]')
        else:
            click_move(page, max(moves, key=lambda m: gain(m, state["seats"][0]["colour"])))
        page.wait_for_function(
            "v => Number(document.body.dataset.version) > v", arg=state["version"]
        )
        assert not page.inner_text("#message"), page.inner_text("#message")
    raise AssertionError("no winner after 600 turns")


def account_lines(page: Page) -> list[dict[str, str]]:
    found: list[dict[str, str]] = page.eval_on_selector_all(
        "#account li",
        "els => els.map(e => ({version: e.dataset.version, type: e.dataset.type,"
        " text: e.textContent}))",
    )
    return found


@pytest.mark.slow
def test_ann_plays_a_whole_sorry_game_against_the_expert_bot_from_the_lobby_by_clicks(
    url: str, person: Any
) -> None:
    page = person(url)
    lobby(page)
    page.click('button[data-choose="sorry"]')
    page.select_option("#players", "2")
    page.fill("#seat-0", "Ann")
    page.fill("#seat-1", "Robin")
    page.select_option("#seat-1-bot", "expert")
    page.check("#option-fast_start")  # a shorter game
    page.fill("#seed", "lobby-bot")
    with page.expect_navigation():
        page.click("#create-game")  # one person against the computer: straight to the table
    assert "/play" in page.url
    page.wait_for_selector("body[data-version]")
    page.select_option("#pace", "instant")  # the bot's moves told at once, not one by one
    game = page.url.split("/games/")[1].split("/")[0]
    with httpx.Client(base_url=url, timeout=10) as http:
        created = http.get(f"/games/{game}/events").json()["events"][0]["data"]
        expert = {"seat": 1, "level": "expert", "version": find_level("expert").version}
        assert created["bots"] == [expert]
        token = page.evaluate(f"JSON.parse(sessionStorage.getItem('tabula:{game}')).token")
        ann_plays_to_the_end(http, page, game, token)
        events = http.get(f"/games/{game}/events").json()["events"]
    last = events[-1]["version"]
    page.wait_for_function(  # told at once: one by one, this game's would take minutes
        "v => Number(document.getElementById('account').dataset.version || 0) >= v",
        arg=last,
        timeout=30_000,
    )
    shown = account_lines(page)
    newest = list(reversed(events))[: len(shown)]
    assert [int(line["version"]) for line in shown] == [e["version"] for e in newest]
    assert [line["type"] for line in shown] == [e["type"] for e in newest]
    bot_moves = [e for e in newest if e["type"] == "MovePlayed" and e["data"]["seat"] == 1]
    by_version = {int(line["version"]): line["text"] for line in shown}
    assert bot_moves and all(by_version[e["version"]].startswith("Robin") for e in bot_moves)
    final = httpx.get(f"{url}/games/{game}").json()
    drawn = page.eval_on_selector_all(
        "#board g.piece", "els => Object.fromEntries(els.map(e => [e.dataset.piece, e.dataset.at]))"
    )
    assert drawn == {p["id"]: p["at"] for p in final["pieces"]}  # the board after the bot's last
    assert page.is_visible("#end") and page.is_visible("#play-again")
    assert page.get_attribute("#rules-link", "href") == "/#rules-sorry"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "play-against-bot-end.png"), full_page=True)
    with page.expect_navigation():
        page.click("#play-again")  # the same seats, a new game: Ann goes straight to it
    page.wait_for_selector("body[data-version]")
    again = page.url.split("/games/")[1].split("/")[0]
    assert again != game
    seats = httpx.get(f"{url}/games/{again}").json()["seats"]
    assert [(s["name"], s["bot"]) for s in seats] == [("Ann", None), ("Robin", "expert")]
    assert page.input_value("#pace") == "instant"  # the pace chosen is this browser's


def test_the_seat_list_offers_the_bot_levels_that_play_the_rule_set(url: str, person: Any) -> None:
    bots = httpx.get(f"{url}/bots").json()["bots"]
    page = person(url)
    lobby(page)
    for name in RULESETS:
        page.select_option("#ruleset", name)
        offered = page.eval_on_selector_all(
            "#seat-0-bot option", "els => els.map(e => [e.value, e.textContent])"
        )
        playing = [b["name"] for b in bots if name in b["rulesets"]]
        # Then the seats left to people who are to come (an open one, one kept for an
        # invited player).
        assert [value for value, _ in offered] == ["", *playing, ":open", ":invite"], name
        assert offered[0][1] == "a person"
        assert all(text.startswith("the computer, level ") for _, text in offered[1:-2])
    page.select_option("#seat-0-bot", "greedy")
    assert (
        page.inner_text("#seat-0-meaning")
        == "Plays the move that looks best at a glance: progress, captures, safety."
    )


@pytest.mark.parametrize("path", ["play", "view"])
def test_an_unknown_or_mistyped_game_is_a_page_with_a_way_back_status_404(
    url: str, person: Any, path: str
) -> None:
    for game in ("no-such-game", "a%20b%3Cc"):
        page = person(f"{url}/games/{game}/{path}")
        reply = page.request.get(f"{url}/games/{game}/{path}", headers={"Accept": "text/html"})
        assert reply.status == 404
        assert reply.headers["content-type"].startswith("text/html")
        page.wait_for_function("() => document.getElementById('language')")
        assert page.inner_text("h1") == "There is no such game"
        assert page.get_attribute("#back-to-lobby", "href") == "/"
        assert "game-not-found" not in page.inner_text("body")
    problem = httpx.get(f"{url}/games/no-such-game/{path}")  # an API caller keeps the problem
    assert problem.status_code == 404
    assert problem.json()["type"].endswith("/game-not-found")


def test_an_empty_name_is_refused_before_anything_is_created(url: str, person: Any) -> None:
    before = len(httpx.get(f"{url}/games").json()["games"])
    page = person(url)
    lobby(page)
    page.select_option("#ruleset", "ludo")
    page.select_option("#players", "3")
    page.fill("#seat-1", "   ")
    page.click("#create-game")
    assert page.inner_text("#create-message") == "Seat 2 has no name: give each player a name."
    assert page.get_attribute("#seat-1", "aria-invalid") == "true"
    assert page.evaluate("document.activeElement.id") == "seat-1"
    assert not page.locator("#links").count()
    assert len(httpx.get(f"{url}/games").json()["games"]) == before


def test_a_refusal_reads_in_plain_words_naming_the_option(url: str, person: Any) -> None:
    page = person(url)
    lobby(page)
    page.select_option("#ruleset", "parchis")
    page.fill("#option-capture_bonus", "500")  # the server allows 0 to 100
    page.click("#create-game")
    page.wait_for_function("() => document.getElementById('create-message').textContent")
    said = page.inner_text("#create-message")
    assert said == "Something in the request is not right: check the option “Bonus for a capture”."
    assert "`" not in said and "options." not in said and "capture_bonus" not in said


def english_fragments() -> set[str]:
    """Each run of literal text of 10 characters or more of the English catalogue."""
    fragments: set[str] = set()
    for message in ENGLISH.values():
        literal = message
        while "{" in literal:
            literal = re.sub(r"\{[^{}]*\}", "\0", literal)
        fragments |= {part.strip() for part in literal.split("\0") if len(part.strip()) >= 10}
    return fragments


def serious(page: Page) -> list[str]:
    results = Axe().run(page)
    return [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:3]}"
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def wider_than(page: Page, width: int) -> list[str]:
    """The elements that reach past ``width`` CSS px (the page scrolling sideways)."""
    found: list[str] = page.evaluate(
        """w => [...document.querySelectorAll('body *')].filter(e => {
             const box = e.getBoundingClientRect();
             return box.width > 0 && box.right > w + 0.5 && !e.closest('details:not([open]) > div');
           }).map(e => e.tagName + '#' + e.id + '.' + e.className)""",
        width,
    )
    return found


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_lobby_fits_a_phone_in_every_language_with_no_english_left(
    url: str, browser: Browser, lang: str
) -> None:
    context = browser.new_context(locale=lang, viewport=PHONE)  # type: ignore[arg-type]
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    lobby(page)
    page.wait_for_function("() => [...document.images].every(i => i.complete)")
    assert page.evaluate("document.documentElement.lang") == lang
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert not wider_than(page, PHONE["width"]), wider_than(page, PHONE["width"])
    if lang != "en":
        text = "\n".join([page.inner_text("body"), page.title()])
        left = sorted(f for f in english_fragments() if f in text)
        assert not left, left
    assert not serious(page), serious(page)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"lobby-{lang}-390.png"), full_page=True)
    context.close()
    assert not errors, errors


def test_the_lobby_fills_a_wide_screen_rule_sets_first_then_the_form_beside_the_games(
    url: str, person: Any
) -> None:
    page = person(url, WIDE)
    lobby(page)
    box = {
        part: page.locator(f"#{part}").bounding_box() for part in ("rulesets", "create", "games")
    }
    assert all(box.values()), box
    assert box["rulesets"]["y"] < box["create"]["y"]  # what each game is, before the form
    assert box["games"]["x"] > WIDE["width"] / 2  # the form and the games side by side
    cards = page.locator(".ruleset").evaluate_all(
        "els => els.map(e => e.getBoundingClientRect().top)"
    )
    assert cards.count(cards[0]) >= 3  # several rule sets a row, each with its board
    assert page.locator(".ruleset img").count() == len(RULESETS)
    for name in RULESETS:
        svg = httpx.get(f"{url}/rulesets/{name}/board.svg")
        assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    assert httpx.get(f"{url}/rulesets/nope/board.svg").status_code == 404
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "lobby-en-1280.png"), full_page=True)


def test_play_again_with_two_people_lists_each_persons_link_to_the_new_game(
    url: str, person: Any
) -> None:
    body = {"ruleset": "race35", "seats": [{"name": "Ann"}, {"name": "Bob"}], "seed": "again"}
    with httpx.Client(base_url=url, timeout=10) as http:
        created = http.post("/games", json=body).json()
        game, tokens = created["id"], created["tokens"]["seats"]
        for _ in range(2000):
            state = http.get(f"/games/{game}").json()
            if state["status"] == "finished":
                break
            seat = state["to_act"][0]["seat"]
            auth = {"Authorization": f"Bearer {tokens[seat]}"}
            moves = http.get(f"/games/{game}/legal-moves", headers=auth).json()["moves"]
            http.post(f"/games/{game}/moves", json={"move": moves[0]["id"]}, headers=auth)
        assert state["status"] == "finished"
    page = person(f"{url}/games/{game}/play#token={tokens[1]}&seat=1")
    page.wait_for_selector("#play-again")
    assert page.inner_text("#end h2") == "The game is over"
    page.click("#play-again")
    page.wait_for_selector("#again-links")
    links = [page.get_attribute(f"#again-seat-{i}", "href") or "" for i in (0, 1)]
    again = {link.split("/games/")[1].split("/")[0] for link in links}
    assert len(again) == 1 and game not in again
    (new,) = again
    seats = httpx.get(f"{url}/games/{new}").json()["seats"]
    assert [(s["name"], s["bot"]) for s in seats] == [("Ann", None), ("Bob", None)]
    assert page.inner_text("#again-seat-0") == "Play as Ann"
    assert "#token=" in links[1] and links[1].endswith("&seat=1")
