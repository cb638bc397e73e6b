"""The play page's board in headless Chromium: die faces and card names (never a card's
internal id), pieces that move along their path unless reduced motion is asked for, a phone's
targets of at least 24 x 24 CSS px (WCAG 2.2) on every rule set's board, and a two-dice throw
split between two pieces by clicks (a die, then a piece, twice).

Positions are found by playing seeded games through the API; one server and one browser for
the module."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from domain.registry import RULESETS
from tests.service.browser import PHONE, WIDE, Browser, Page, browser, person, url  # noqa: F401 (fixtures)
from tests.service.pages.test_play_browser import serious

pytestmark = pytest.mark.browser


ARTIFACTS = Path(__file__).parents[2] / "artifacts"
CHANCE = {"draw", "roll", "deal"}
TARGET_PX = 24  # WCAG 2.2, 2.5.8 target size (minimum)
LEGIBLE_PX = 10  # a square's number on a zoomed board
INTERNAL_CARD = re.compile(r"\b(N\d+|START(_\d+)?|BACK_4|ONE_14|SEVEN|SWAP)\b")


class Game:
    """A game played through the API: its id, seats' tokens, state and legal moves."""

    def __init__(self, url: str, ruleset: str, seed: str, players: int = 2) -> None:
        self.http = httpx.Client(base_url=url, timeout=10)
        names = ["Ann", "Bob", "Cat", "Dan"][:players]
        body = {"ruleset": ruleset, "seats": [{"name": n} for n in names], "seed": seed}
        created = self.http.post("/games", json=body).json()
        self.id, self.tokens = created["id"], created["tokens"]["seats"]
        self.url = url

    def state(self) -> dict[str, Any]:
        state: dict[str, Any] = self.http.get(f"/games/{self.id}").json()
        return state

    def moves(self, seat: int) -> list[dict[str, Any]]:
        auth = {"Authorization": f"Bearer {self.tokens[seat]}"}
        reply = self.http.get(f"/games/{self.id}/legal-moves", headers=auth)
        moves: list[dict[str, Any]] = reply.json()["moves"]
        return moves

    def play(self, seat: int, move: str) -> dict[str, Any]:
        auth = {"Authorization": f"Bearer {self.tokens[seat]}"}
        reply = self.http.post(f"/games/{self.id}/moves", json={"move": move}, headers=auth)
        assert reply.status_code in (200, 201), reply.text
        played: dict[str, Any] = reply.json()
        return played

    def pending(self) -> int:
        return int(self.state()["to_act"][0]["seat"])

    def advance_to(self, wanted: Any, rng: random.Random, limit: int = 400) -> int:
        """Play random moves until the pending seat's moves satisfy ``wanted``: that seat."""
        for _ in range(limit):
            state = self.state()
            assert state["status"] == "active", "the game ended first"
            seat = int(rng.choice(state["to_act"])["seat"])
            moves = self.moves(seat)
            if wanted(moves):
                return seat
            self.play(seat, rng.choice(moves)["id"])
        raise AssertionError(f"no such position in {limit} decisions")

    def page(self, person: Any, seat: int, viewport: dict[str, int] = WIDE) -> Page:
        page: Page = person(
            f"{self.url}/games/{self.id}/play#token={self.tokens[seat]}&seat={seat}", viewport
        )
        shows(page, self.state()["version"])
        return page


def shows(page: Page, version: int) -> None:
    page.wait_for_function(
        "v => Number(document.body.dataset.version || 0) >= v", arg=version, timeout=10_000
    )


def on_board(moves: list[dict[str, Any]]) -> bool:
    """Whether some move is a piece's (not a draw, roll or deal)."""
    return any(m["id"] not in CHANCE and m["steps"] for m in moves)


def small(page: Page, selector: str) -> list[str]:
    """The elements of ``selector`` drawn smaller than the target size, with their size."""
    found: list[str] = page.eval_on_selector_all(
        selector,
        """(els, least) => els.map(e => [e, e.getBoundingClientRect()])
            .filter(([e, b]) => b.width < least || b.height < least)
            .map(([e, b]) => [e.dataset.piece || e.dataset.key, b.width, b.height])
            .map(([name, w, h]) => `${name} ${w.toFixed(1)}x${h.toFixed(1)}`)""",
        TARGET_PX,
    )
    return found


def smallest_number(page: Page) -> float:
    """The smallest square number's font size on the page, in CSS px."""
    size: float = page.eval_on_selector(
        "#board svg",
        """svg => {
          const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
          const sizes = [...svg.querySelectorAll("text.label")]
            .map(t => Number(t.getAttribute("font-size")) * scale);
          return Math.min(...sizes);
        }""",
    )
    return size


OVERLAPPING = """svg => {
  const discs = [...svg.querySelectorAll(".piece")].map(p => {
    const c = p.querySelector("circle");
    const [x, y, r] = [c.cx, c.cy, c.r].map(length => length.baseVal.value);
    return { id: p.dataset.piece, x, y, r };
  });
  const out = [];
  for (const [i, a] of discs.entries()) {
    for (const b of discs.slice(i + 1)) {
      if (Math.hypot(a.x - b.x, a.y - b.y) < a.r + b.r - 0.5) out.push(`${a.id} ${b.id}`);
    }
  }
  return out;
}"""
"""Pairs of pieces drawn over each other (pieces sharing a square stand side by side)."""


def targets_of_every_piece(page: Page) -> list[str]:
    """Click each playable piece in turn; the destinations it marks that are too small."""
    too_small = []
    pieces = page.eval_on_selector_all(
        '#board .piece[role="button"]', "els => els.map(e => e.dataset.piece)"
    )
    assert pieces, "no piece to play on the board"
    for piece in pieces:
        page.click(f'#board .piece[role="button"][data-piece="{piece}"]')
        assert page.locator("#board .target").count() > 0, piece
        too_small += [f"{piece} -> {s}" for s in small(page, "#board .target")]
        page.keyboard.press("Escape")
    return too_small


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_at_390_px_every_piece_in_play_and_every_destination_is_at_least_24_px(
    url: str, person: Any, ruleset: str
) -> None:
    players = max(2, RULESETS[ruleset].MIN_PLAYERS)
    game = Game(url, ruleset, f"phone-{ruleset}", players)
    rng = random.Random(ruleset)
    for _ in range(12):  # some way into the game, so pieces are out and some share a square
        seat = game.pending()
        game.play(seat, rng.choice(game.moves(seat))["id"])
    if ruleset == "race35":  # the roll plays the move: the roll button is all there is to tap
        page = game.page(person, game.pending(), PHONE)
        assert small(page, "#actions button") == []
        assert page.locator("#board .piece").count() > 0
        return
    seat = game.advance_to(on_board, rng)
    page = game.page(person, seat, PHONE)
    assert small(page, '#board .piece[role="button"]') == []
    assert targets_of_every_piece(page) == []
    assert smallest_number(page) >= LEGIBLE_PX
    assert page.eval_on_selector("#board svg", OVERLAPPING) == []
    zoom = page.locator("#board").get_attribute("data-zoom")
    print(f"{ruleset}: zoom {zoom}, smallest number {smallest_number(page):.1f} px")  # with -s
    page.click("#board-zoom")  # the whole board, then zoomed again
    assert page.locator("#board").get_attribute("data-zoom") == "1.00"
    assert page.locator("#board-zoom").get_attribute("aria-pressed") == "true"
    page.click("#board-zoom")
    assert page.locator("#board").get_attribute("data-zoom") == zoom
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"board-390-{ruleset}.png"))  # the window, as seen


def split_between_two_pieces(moves: list[dict[str, Any]]) -> bool:
    return any(len({s["piece"] for s in m["steps"]}) == 2 for m in moves)


def test_a_two_dice_throw_is_split_between_two_pieces_by_clicks(url: str, person: Any) -> None:
    game = Game(url, "parchis-2dice", "split-1")
    seat = game.advance_to(split_between_two_pieces, random.Random(2))
    move = next(m for m in game.moves(seat) if split_between_two_pieces([m]))
    first, second = move["id"].split(",")
    version = game.state()["version"]
    page = game.page(person, seat, PHONE)
    assert page.locator("#dice-picker .die-button").count() >= 2
    assert not serious(page), serious(page)
    page.click(f'#dice-picker .die-button[data-die="{first.split(":")[0]}"]')
    page.click(f'#board .piece[role="button"][data-piece="{move["steps"][0]["piece"]}"]')
    die = second.split(":")[0]
    assert not serious(page), serious(page)  # the first part placed, the other die picked
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "board-390-dice-split.png"))  # the window, as seen
    assert page.locator(f'#dice-picker .die-button[data-die="{die}"][aria-pressed="true"]').count()
    page.click(f'#board .piece[role="button"][data-piece="{move["steps"][1]["piece"]}"]')
    shows(page, version + 1)
    events = game.http.get(f"/games/{game.id}/events?after={version}").json()["events"]
    assert events[0]["type"] == "MovePlayed"
    assert events[0]["data"]["move"] == move["id"]
    assert not page.inner_text("#message")


def press_until(page: Page, key: str, selector: str, limit: int = 60) -> None:
    """Press ``key`` until the focused element matches ``selector``."""
    for _ in range(limit):
        if page.evaluate("s => document.activeElement.matches(s)", selector):
            return
        page.keyboard.press(key)
    raise AssertionError(f"{key} never reached {selector}")


def test_a_two_dice_throw_is_split_between_two_pieces_with_the_keyboard(
    url: str, person: Any
) -> None:
    game = Game(url, "parchis-2dice", "split-1")
    seat = game.advance_to(split_between_two_pieces, random.Random(2))
    move = next(m for m in game.moves(seat) if split_between_two_pieces([m]))
    first, second = (part.split(":")[0] for part in move["id"].split(","))
    one, other = (step["piece"] for step in move["steps"])
    version = game.state()["version"]
    page = game.page(person, seat, PHONE)
    press_until(page, "Tab", f'#dice-picker .die-button[data-die="{first}"]')
    page.keyboard.press("Enter")
    picked = f'#dice-picker .die-button[data-die="{first}"][aria-pressed="true"]'
    assert page.evaluate("s => document.activeElement.matches(s)", picked)
    press_until(page, "Shift+Tab", f'#board .piece[role="button"][data-piece="{one}"]')
    page.keyboard.press("Enter")  # the die's one destination: placed at once
    assert page.locator(f'#dice-picker .die-button[data-die="{second}"]').count()
    press_until(page, "ArrowRight", f'#board .piece[role="button"][data-piece="{other}"]')
    page.keyboard.press("Enter")
    shows(page, version + 1)
    events = game.http.get(f"/games/{game.id}/events?after={version}").json()["events"]
    assert events[0]["data"]["move"] == move["id"]


def test_both_dice_played_by_one_piece_as_their_sum_by_clicks(url: str, person: Any) -> None:
    def summed(moves: list[dict[str, Any]]) -> bool:
        return any(one_piece_both_dice(m) for m in moves)

    game = Game(url, "parchis-2dice", "sum-1")
    seat = game.advance_to(summed, random.Random(5))
    moves = [m for m in game.moves(seat) if one_piece_both_dice(m)]
    piece, end = moves[0]["steps"][0]["piece"], moves[0]["steps"][-1]["to"]
    version = game.state()["version"]
    page = game.page(person, seat, PHONE)
    page.click("#dice-picker .die-button.sum")
    page.click(f'#board .piece[role="button"][data-piece="{piece}"]')
    if page.locator("#moves button.choice").count():  # several plays end there: the list
        page.locator("#moves button.choice").first.click()
    shows(page, version + 1)
    after = {p["id"]: p["at"] for p in game.state()["pieces"]}
    assert after[piece] == end or any(after[piece] == m["steps"][-1]["to"] for m in moves)


def one_piece_both_dice(move: dict[str, Any]) -> bool:
    return len(move["uses"] or []) == 2 and len({s["piece"] for s in move["steps"]}) == 1


def track_walk(move: dict[str, Any]) -> int:
    """How many track squares a one-step move along the track walks (0 for another move)."""
    steps = move["steps"]
    if move["id"] in CHANCE or len(steps) != 1 or move["effects"]:
        return 0
    ends = [steps[0]["from"], steps[0]["to"]]
    if not all(at.startswith("track:") for at in ends):
        return 0
    start, end = (int(at.split(":")[1]) for at in ends)
    return (end - start) % 68  # Parchís' track


def walks(moves: list[dict[str, Any]]) -> bool:
    return any(track_walk(m) for m in moves)


WALKED = """piece => {
  const found = document.querySelector(`#board .piece[data-piece="${piece}"]`).getAnimations();
  return found.length ? found[0].effect.getKeyframes().length : 0;
}"""
"""How many places the animation of a piece passes through (its start and end included)."""


def play_a_walk(page: Page, game: Game, seat: int) -> tuple[dict[str, Any], int, int, int]:
    """Play a move along the track on the page: the move, how many pieces the board says it
    animated, how many animations ran just after and how many places the piece's went through."""
    version = int(page.evaluate("document.body.dataset.version"))
    move = next(m for m in game.moves(seat) if track_walk(m))
    (step,) = move["steps"]
    page.click(f'#board .piece[role="button"][data-piece="{step["piece"]}"]')
    page.click(f'#board .target[data-key="{step["to"]}"]', force=True)
    if page.locator("#moves button.choice").count():
        page.click(f'#moves button.choice[data-move="{move["id"]}"]')
    shows(page, version + 1)
    running = int(page.evaluate("document.getAnimations().length"))
    places = int(page.evaluate(WALKED, step["piece"]))
    assert page.locator("#board").get_attribute("data-moved") == step["piece"]
    return move, int(page.locator("#board").get_attribute("data-animated") or 0), running, places


@pytest.mark.parametrize("reduced", [False, True], ids=["motion", "reduced-motion"])
def test_a_piece_walks_along_the_track_unless_reduced_motion_is_asked_for(
    url: str, browser: Browser, reduced: bool
) -> None:
    game = Game(url, "parchis", f"motion-{reduced}")
    seat = game.advance_to(walks, random.Random(7))
    motion = "reduce" if reduced else "no-preference"
    context = browser.new_context(viewport=WIDE, reduced_motion=motion)  # type: ignore[arg-type]
    try:
        page = context.new_page()
        page.goto(f"{url}/games/{game.id}/play#token={game.tokens[seat]}&seat={seat}")
        shows(page, game.state()["version"])
        move, animated, running, places = play_a_walk(page, game, seat)
    finally:
        context.close()
    if reduced:
        assert (animated, running, places) == (0, 0, 0)
    else:  # square by square: where it stood, each square passed, where it stops
        assert animated == 1 and running >= 1
        assert places == track_walk(move) + 1


def visible_words(page: Page) -> str:
    """The page's text and every attribute a person or a screen reader meets (not data-*)."""
    said: list[str] = page.eval_on_selector_all(
        "body *",
        """els => els.flatMap(e => [...e.attributes]
            .filter(a => !a.name.startsWith("data-"))
            .filter(a => !["id", "class", "href", "style"].includes(a.name))
            .map(a => a.value))""",
    )
    return "\n".join([page.inner_text("body"), *said])


def test_dice_show_their_faces_and_cards_their_names_never_an_internal_id(
    url: str, person: Any
) -> None:
    parchis = Game(url, "parchis", "faces-1")
    rolled = parchis.play(0, "roll")["events"][0]["data"]["dice"]
    page = parchis.page(person, parchis.pending() if parchis.state()["to_act"] else 0)
    faces = page.eval_on_selector_all(
        "#chance .die",
        "els => els.map(e => [Number(e.dataset.value), e.querySelectorAll('.pip').length])",
    )
    assert faces == [[die, die] for die in rolled]  # a 5 drawn as five pips
    page.wait_for_selector("#account .die")
    assert (
        page.locator("#account .die").first.get_attribute("aria-label")
        == f"a die showing {rolled[0]}"
    )
    partners = Game(url, "partners", "faces-2", 4)
    partners.play(partners.pending(), "deal")
    page = partners.page(person, 0)
    hand = partners.http.get(
        f"/games/{partners.id}", headers={"Authorization": f"Bearer {partners.tokens[0]}"}
    ).json()["hands"][0]["cards"]
    shown = page.eval_on_selector_all(
        '.hand[data-seat="0"] .card', "els => els.map(e => [e.dataset.card, e.innerText])"
    )
    assert sorted(card for card, _ in shown) == sorted(hand)
    for card, name in shown:
        assert name and not INTERNAL_CARD.search(name), (card, name)
    said = visible_words(page)
    assert not INTERNAL_CARD.search(said), INTERNAL_CARD.findall(said)
