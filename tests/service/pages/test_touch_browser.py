"""The play page on a phone, by touch (Chromium at 390 x 844 with a touch screen, issue 48):
pieces sharing a square each take the tap on their centre, at every zoom and while a two-dice
throw's first part is drawn where it goes; the pieces that can move are marked (a ring and a
badge, never colour alone), exactly they, and a tap on a piece that cannot move says why in
the account and sends nothing; the card or dice and the prompt stay in view beside the board
while the seat chooses. Screenshots of every rule set's page while choosing, in English and
Spanish, are saved as ``tests/artifacts/play-choosing-<ruleset>-<lang>-390.png``.

Positions are found by playing seeded games through the API; one server and one browser for
the module. With ``-s`` each test prints what it measured."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from domain.registry import RULESETS
from tests.service.browser import PHONE, Browser, Page, browser, url  # noqa: F401 (fixtures)
from tests.service.pages.test_on_the_board_browser import CHANCE, TARGET_PX, Game, shows

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).parents[2] / "artifacts"
STATIC = Path(__file__).parents[3] / "service" / "static"
LOCALES = {"en": "en-GB", "es": "es-ES"}
State = dict[str, Any]
Moves = list[dict[str, Any]]


class Phone:
    """A person's phone: a page at 390 x 844 with a touch screen, in a language; every move
    it sends (over the socket or posted) is kept in ``sent``."""

    def __init__(self, browser: Browser, address: str, lang: str) -> None:
        self.context = browser.new_context(
            viewport=PHONE,  # type: ignore[arg-type]
            has_touch=True,
            is_mobile=True,
            locale=LOCALES[lang],
        )
        self.errors: list[str] = []
        self.sent: list[str] = []
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("websocket", lambda socket: socket.on("framesent", self.frame))
        self.page.on("request", self.request)
        self.page.goto(address)

    def frame(self, payload: str | bytes) -> None:
        if isinstance(payload, str) and '"play"' in payload:
            self.sent.append(payload)

    def request(self, request: Any) -> None:
        if request.method == "POST" and request.url.endswith("/moves"):
            self.sent.append(request.url)


@pytest.fixture
def phone(browser: Browser) -> Iterator[Callable[..., Page]]:
    """Opens a game's play page for a seat on a phone (``lang`` its language); no page may
    throw."""
    phones: list[Phone] = []

    def open_page(game: Game, seat: int, lang: str = "en") -> Page:
        address = f"{game.url}/games/{game.id}/play#token={game.tokens[seat]}&seat={seat}"
        made = Phone(browser, address, lang)
        phones.append(made)
        shows(made.page, game.state()["version"])
        made.page.evaluate(RECORD_CHOSEN)
        made.page.sent = made.sent  # type: ignore[attr-defined]
        return made.page

    yield open_page
    for made in phones:
        made.context.close()
    assert not [e for made in phones for e in made.errors]


RECORD_CHOSEN = """() => {
  window.chosenPieces = [];
  document.addEventListener("chosen", (e) => window.chosenPieces.push(e.detail.piece), true);
}"""
"""Keep every piece the board selects (its `chosen` event), in order."""


def drawn_on(piece: dict[str, Any]) -> str:
    """The square a piece stands on as drawn: the track is shared, other places are a colour's."""
    at = str(piece["at"])
    if at.startswith("track:"):
        return at
    return f"{at}@{piece['id'].rsplit('-', 1)[0]}"


def one_piece(move: dict[str, Any]) -> str | None:
    """The piece a move moves when it moves one piece only (not a draw or a roll)."""
    pieces = {s["piece"] for s in move["steps"] or []}
    return pieces.pop() if move["id"] not in CHANCE and len(pieces) == 1 else None


def movable(moves: Moves, two_dice: bool = False) -> set[str]:
    """The pieces the board lets a person move: those of one-piece moves (with two dice, every
    piece a part of a move moves, since a die is picked first)."""
    if two_dice:
        return {s["piece"] for m in moves if m["id"] not in CHANCE for s in m["steps"] or []}
    return {p for m in moves if (p := one_piece(m))}


def sharing(state: State, moves: Moves, mixed: bool) -> list[str]:
    """The movable pieces that share their square with another piece (of another seat, when
    ``mixed``)."""
    can = movable(moves, two_dice=state["ruleset"] == "parchis-2dice")
    by_square: dict[str, list[dict[str, Any]]] = {}
    for piece in state["pieces"]:
        by_square.setdefault(drawn_on(piece), []).append(piece)
    found = []
    for here in by_square.values():
        seats = {p["seat"] for p in here}
        if len(here) > 1 and (len(seats) > 1 or not mixed):
            found += [p["id"] for p in here if p["id"] in can]
    return sorted(found)


def find(game: Game, rng: random.Random, wanted: Callable[[State, Moves], bool]) -> int:
    """Play random moves until the pending seat's position is ``wanted``: that seat."""
    for _ in range(600):
        state = game.state()
        assert state["status"] == "active", "the game ended first"
        seat = int(rng.choice(state["to_act"])["seat"])
        moves = game.moves(seat)
        if wanted(state, moves):
            return seat
        game.play(seat, rng.choice(moves)["id"])
    raise AssertionError("no such position in 600 decisions")


CENTRE = """piece => {
  const disc = document.querySelector(`#board .piece[data-piece="${piece}"] circle`);
  const box = disc.getBoundingClientRect();
  return [box.left + box.width / 2, box.top + box.height / 2];
}"""

HIT = """([x, y]) => {
  const found = document.elementFromPoint(x, y);
  const piece = found && found.closest(".piece");
  if (piece) return piece.dataset.piece;
  return found ? `${found.tagName}.${found.getAttribute("class")}` : null;
}"""

CLEAR = """() => document.querySelector("#board svg")
  .dispatchEvent(new MouseEvent("click", { bubbles: true, clientX: -100, clientY: -100 }))"""
"""A click on the board away from every piece and square: nothing chosen any more."""


def in_view(page: Page, piece: str) -> tuple[float, float]:
    """The centre of a piece's disc, scrolled into the board's box and the window first."""
    page.eval_on_selector(
        f'#board .piece[data-piece="{piece}"] circle',
        "e => e.scrollIntoView({ block: 'center', inline: 'center' })",
    )
    x, y = page.evaluate(CENTRE, piece)
    return float(x), float(y)


def tap_hits(page: Page, pieces: list[str]) -> list[tuple[str, str, str]]:
    """Tap the centre of each piece: per piece, what the centre's element is and which piece
    the board then selects."""
    found = []
    for piece in pieces:
        page.evaluate(CLEAR)
        point = in_view(page, piece)
        under = str(page.evaluate(HIT, list(point)))
        page.touchscreen.tap(*point)
        chosen = page.evaluate("window.chosenPieces.at(-1) || ''")
        found.append((piece, under, str(chosen)))
        page.evaluate("window.chosenPieces.length = 0")
    return found


SHARED = [
    ("sorry", False),
    ("sorry-hand", False),
    ("partners", False),
    ("ludo", False),
    ("parchis", True),
    ("parchis-2dice", True),
    ("parchis", False),
]


@pytest.mark.parametrize(("ruleset", "mixed"), SHARED)
def test_a_tap_on_the_centre_of_a_piece_sharing_its_square_selects_that_piece_at_every_zoom(
    url: str, phone: Any, ruleset: str, mixed: bool
) -> None:
    players = 4 if mixed else max(2, RULESETS[ruleset].MIN_PLAYERS)  # more meet with four
    game = Game(url, ruleset, f"shared-{ruleset}-{mixed}", players)
    seat = find(game, random.Random(ruleset), lambda s, m: bool(sharing(s, m, mixed)))
    pieces = sharing(game.state(), game.moves(seat), mixed)
    page = phone(game, seat)
    discs = page.eval_on_selector_all(
        "#board .piece.movable > circle", "els => els.map(e => e.getBoundingClientRect().width)"
    )
    assert min(discs) >= TARGET_PX, discs  # zoomed: every movable piece big enough to tap
    zoomed = tap_hits(page, pieces)
    print(
        ruleset, "mixed" if mixed else "one seat", page.get_attribute("#board", "data-zoom"), zoomed
    )
    assert [(p, p, p) for p in pieces] == zoomed
    if page.is_visible("#board-zoom"):  # the whole board too
        page.tap("#board-zoom")
        whole = tap_hits(page, pieces)
        print("whole board", whole)
        assert [(p, p, p) for p in pieces] == whole
    assert page.sent == []


def joining(state: State, moves: Moves, mixed: bool) -> list[dict[str, Any]]:
    """The two-part moves whose first part ends where another piece (another seat's, when
    ``mixed``) stands."""
    standing = {drawn_on(p): p for p in state["pieces"]}
    found = []
    for move in moves:
        steps = move["steps"] or []
        if len(str(move["id"]).split(",")) != 2 or len(steps) != 2 or move["id"] in CHANCE:
            continue
        first = steps[0]
        other = standing.get(drawn_on({"at": first["to"], "id": first["piece"]}))
        if other and other["id"] != first["piece"] and (other["seat"] != move["seat"] or not mixed):
            found.append(move)
    return found


@pytest.mark.parametrize("mixed", [True, False], ids=["beside-another-seat", "beside-its-own"])
def test_a_two_dice_part_placed_on_an_occupied_square_stands_beside_the_piece_there(
    url: str, phone: Any, mixed: bool
) -> None:
    game = Game(url, "parchis-2dice", f"joining-{mixed}", 4 if mixed else 2)
    seat = find(game, random.Random(11), lambda s, m: bool(joining(s, m, mixed)))
    move = joining(game.state(), game.moves(seat), mixed)[0]
    first, second = move["steps"]
    die = move["id"].split(",")[0].split(":")[0]
    version = game.state()["version"]
    page = phone(game, seat)
    page.tap(f'#dice-picker .die-button[data-die="{die}"]')
    page.touchscreen.tap(*in_view(page, first["piece"]))
    if page.locator("#board .target").count():  # several squares for that die: the one
        page.tap(f'#board .target[data-key="{first["to"]}"]', force=True)
    end = drawn_on({"at": first["to"], "id": first["piece"]})
    here = [p["id"] for p in game.state()["pieces"] if drawn_on(p) == end]
    hits = {p: str(page.evaluate(HIT, list(in_view(page, p)))) for p in [first["piece"], *here]}
    print("placed", first, "beside", here, hits)
    assert hits == {p: p for p in hits}
    if page.is_visible("#board-zoom"):  # the whole board too, and back
        page.tap("#board-zoom")
        whole = {p: str(page.evaluate(HIT, list(in_view(page, p)))) for p in hits}
        print("whole board", whole)
        assert whole == hits
        page.tap("#board-zoom")
    page.evaluate("window.chosenPieces.length = 0")
    page.touchscreen.tap(*in_view(page, second["piece"]))
    shows(page, version + 1)
    assert page.evaluate("window.chosenPieces")[:1] == [second["piece"]]


SHOWN_CUES = """() => [...document.querySelectorAll("#board .piece")].map(p => {
  const disc = getComputedStyle(p.querySelector(":scope > circle"));
  const cue = p.querySelector(".movable-cue");
  const ring = cue && cue.querySelector(".ring");
  const shown = Boolean(cue) && getComputedStyle(cue).display !== "none";
  return {
    piece: p.dataset.piece,
    button: p.getAttribute("role") === "button",
    look: [disc.stroke, disc.strokeWidth, disc.filter, getComputedStyle(p).outlineStyle].join(" "),
    shapes: shown ? cue.querySelectorAll("circle, path").length : 0,
    dashed: shown && ring ? getComputedStyle(ring).strokeDasharray !== "none" : false,
  };
})"""
"""Per piece: whether it is a button, its disc's look, and the shapes of its movable mark."""


def on_board(moves: Moves) -> bool:
    return any(m["id"] not in CHANCE and m["steps"] for m in moves)


def choosing(game: Game, rng: random.Random, seat: int = 0) -> None:
    """Play random moves until ``seat`` has pieces to move on the board."""
    find(game, rng, lambda state, moves: game.pending() == seat and on_board(game.moves(seat)))


MARKED = ["sorry", "sorry-hand", "partners", "ludo", "parchis", "parchis-2dice"]


@pytest.mark.parametrize("ruleset", MARKED)
def test_the_pieces_marked_movable_are_exactly_those_the_legal_moves_move(
    url: str, phone: Any, ruleset: str
) -> None:
    players = max(2, RULESETS[ruleset].MIN_PLAYERS)
    game = Game(url, ruleset, f"marked-{ruleset}", players)
    rng = random.Random(ruleset)
    for _ in range(10):  # some way into the game, so some pieces can move and some cannot
        game.play(game.pending(), rng.choice(game.moves(game.pending()))["id"])
    choosing(game, rng)
    expected = movable(game.moves(0), two_dice=ruleset == "parchis-2dice")
    page = phone(game, 0)
    cues = page.evaluate(SHOWN_CUES)
    marked = {c["piece"] for c in cues if c["shapes"]}
    still = [c for c in cues if c["piece"] not in expected]
    print(ruleset, "movable", sorted(expected), "marked", sorted(marked))
    print("  looks of movable", {c["look"] for c in cues if c["piece"] in expected})
    print("  looks of the others", {c["look"] for c in still})
    assert marked == expected
    assert all(c["dashed"] and c["shapes"] >= 3 for c in cues if c["piece"] in expected)
    assert page.get_attribute("#board svg", "data-movable") == " ".join(sorted(expected))


def piece_words(lang: str, piece: str) -> str:
    """A piece's name as the page says it in ``lang`` (the catalogue's `piece.name`)."""
    catalogue = json.loads((STATIC / "i18n" / f"{lang}.json").read_text())
    colour, number = piece.rsplit("-", 1)
    template = catalogue["piece.name"]
    chosen = re.search(rf"\b{colour} \{{([^}}]*)\}}", template)
    named = re.sub(
        r"\{colour, select,.*?other \{\{colour\}\}\}",
        chosen.group(1) if chosen else colour,
        template,
    )
    return named.replace("{number}", number)


CANNOT = {"en": "cannot move", "es": "no puede moverse"}
NOT_YOURS = {"en": "is Bob's", "es": "es de Bob"}


WHY = [
    ("sorry", "en"),
    ("parchis", "es"),
    ("ludo", "en"),
    ("parchis-2dice", "es"),
    ("partners", "en"),
]


@pytest.mark.parametrize(("ruleset", "lang"), WHY)
def test_a_tap_on_a_piece_that_cannot_move_says_why_in_the_account_and_sends_no_move(
    url: str, phone: Any, ruleset: str, lang: str
) -> None:
    game = Game(url, ruleset, f"why-{ruleset}", max(2, RULESETS[ruleset].MIN_PLAYERS))
    rng = random.Random(f"why-{ruleset}")

    def stuck(state: State, moves: Moves) -> list[str]:
        """Seat 0's pieces that cannot move, none of its movable pieces beside them."""
        can = movable(moves, two_dice=ruleset == "parchis-2dice")
        beside = {p["at"] for p in state["pieces"] if p["id"] in can}
        mine = [p for p in state["pieces"] if p["seat"] == 0 and p["at"] != "home"]
        return [p["id"] for p in mine if p["id"] not in can and p["at"] not in beside]

    two_dice = ruleset == "parchis-2dice"
    find(game, rng, lambda s, m: game.pending() == 0 and bool(movable(m, two_dice) and stuck(s, m)))
    state = game.state()
    mine = stuck(state, game.moves(0))[0]
    theirs = next(p["id"] for p in state["pieces"] if p["seat"] == 1)
    page = phone(game, 0, lang)
    page.wait_for_function("() => document.querySelectorAll('#account li').length > 0")
    for piece, words in [(mine, CANNOT[lang]), (theirs, NOT_YOURS[lang])]:
        lines = page.locator("#account li").count()
        page.touchscreen.tap(*in_view(page, piece))
        page.wait_for_function(
            "n => document.querySelectorAll('#account li').length > n", arg=lines, timeout=3000
        )
        said = page.inner_text("#account li:first-child")
        print(ruleset, lang, piece, "->", said)
        assert page.get_attribute("#account li:first-child", "class") == "note why"
        assert piece_words(lang, piece).lower() in said.lower() and words in said
    assert page.sent == []
    assert game.state()["version"] == state["version"]


BOXES = """() => {
  const box = (e) => {
    const b = e.getBoundingClientRect();
    return [b.top, b.bottom, b.left, b.right];
  };
  const first = (s) => document.querySelector(s);
  const chance = first("#dice-picker:not([hidden]) .dice-row")
    || first("#chance .card, #chance .dice") || first("#hands .hand") || first("#actions button");
  return { height: innerHeight, width: innerWidth, scrolled: scrollY, chance: chance && box(chance),
    turn: box(first("#turn")), hint: first("#hint").textContent ? box(first("#hint")) : null };
}"""
"""Where the card or dice (or the hand, or the roll button), the turn's line and the hint
are, against the window."""

TAPPABLE = """() => {
  const pieces = document.querySelectorAll("#board .piece.movable, #board .piece[role=button]");
  for (const piece of pieces) {
    const b = piece.querySelector(":scope > circle").getBoundingClientRect();
    const [x, y] = [b.left + b.width / 2, b.top + b.height / 2];
    if (x < 0 || y < 0 || x > innerWidth || y > innerHeight) continue;
    const hit = document.elementFromPoint(x, y);
    if (hit && hit.closest(".piece") === piece) return piece.dataset.piece;
  }
  return null;
}"""
"""A movable piece whose centre is in the window and takes a tap there, if any."""


def roll_on_the_page(game: Game, phone: Any, lang: str, rng: random.Random) -> Page:
    """Seat 0's page once it has drawn or rolled (by a tap on the page's button) and has
    pieces to move; or, where nothing is drawn before a move, once it has pieces to move."""
    page = None
    for _ in range(600):
        state = game.state()
        assert state["status"] == "active", "the game ended first"
        seat = game.pending()
        moves = game.moves(seat)
        if seat == 0 and on_board(moves):
            found: Page = page or phone(game, 0, lang)
            return found
        if seat == 0 and {m["id"] for m in moves} <= {"draw", "roll"}:
            page = page or phone(game, 0, lang)
            shows(page, state["version"])
            page.tap("#actions button.primary")  # in view: the bar holds it
            shows(page, state["version"] + 1)
            continue
        game.play(seat, rng.choice(moves)["id"])
    raise AssertionError("seat 0 never had a piece to move")


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_at_390_px_the_card_or_dice_and_the_prompt_stay_in_view_beside_a_piece_to_tap(
    url: str, phone: Any, ruleset: str, lang: str
) -> None:
    players = max(2, RULESETS[ruleset].MIN_PLAYERS)
    game = Game(url, ruleset, f"bar-{ruleset}-{lang}", players)
    rng = random.Random(f"bar-{ruleset}")
    for _ in range(8):  # some way into the game
        game.play(game.pending(), rng.choice(game.moves(game.pending()))["id"])
    if ruleset == "race35":  # the roll plays the move: choosing is rolling
        find(game, rng, lambda state, moves: game.pending() == 0)
        page = phone(game, 0, lang)
    else:
        page = roll_on_the_page(game, phone, lang, rng)
    boxes = page.evaluate(BOXES)
    tappable = page.evaluate(TAPPABLE)
    print(ruleset, lang, boxes, "tappable:", tappable)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"play-choosing-{ruleset}-{lang}-390.png"))
    height = boxes["height"]
    for name in ("chance", "turn", "hint"):
        if boxes[name] is not None:
            top, bottom, *_ = boxes[name]
            assert top >= 0 and bottom <= height, (name, boxes[name], height)
    assert boxes["chance"] is not None
    if ruleset != "race35":
        assert tappable
