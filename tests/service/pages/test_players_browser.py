"""Registered players in the browser, in headless Chromium: a person picks a handle in the
lobby (the key kept in the browser's localStorage), creates a game where their seat is
``{"player": handle}``, plays it with the key from storage (the seat's link carries no
secret), shows the key once more, signs out and signs in on another device with the copied
key, and plays on there; the key is never in an address nor on the console. She enters a
tournament from the lobby by handle and plays her table with the key. A guest still
plays with the seat token in the link, exactly as before. A taken or refused handle is said in
plain words, a handle is retired only once confirmed, and the signed-in lobby has no English
left in any language."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from tests.service.browser import PHONE, WIDE, Browser, Page, browser, url  # noqa: F401 (fixtures)
from tests.service.pages.test_lobby_browser import (
    LANGUAGES,
    english_fragments,
    lobby,
    serious,
    wider_than,
)

pytestmark = pytest.mark.browser

KEPT = "tabula:player"  # player.js: where the lobby keeps the handle and the key


@dataclass
class Device:
    """A browser of a person's (a context: its own localStorage), with every address it asked
    for, what its pages wrote on the console and any error they threw."""

    browser: Browser
    viewport: dict[str, int] = field(default_factory=lambda: dict(WIDE))
    locale: str = "en"
    addresses: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        size: Any = self.viewport  # Playwright's ViewportSize
        self.context = self.browser.new_context(viewport=size, locale=self.locale)
        self.context.on("request", lambda request: self.addresses.append(request.url))
        self.page = self.context.new_page()
        self.page.on("console", lambda message: self.console.append(message.text))
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))

    def open(self, address: str) -> Page:
        self.page.goto(address)
        return self.page

    def kept(self) -> Any:
        return self.page.evaluate(f"JSON.parse(localStorage.getItem('{KEPT}') || 'null')")

    def never_showed(self, key: str) -> None:
        """The key went in no address and on no console line; no page threw."""
        assert not [a for a in self.addresses if key in a], "a key in an address"
        assert not [line for line in self.console if key in line], "a key on the console"
        assert not self.errors, self.errors


@pytest.fixture
def devices(browser: Browser) -> Iterator[Any]:
    """Opens devices (browser contexts), closed after the test."""
    opened: list[Device] = []

    def device(**settings: Any) -> Device:
        opened.append(Device(browser, **settings))
        return opened[-1]

    yield device
    for each in opened:
        each.context.close()


def pick_handle(page: Page, handle: str) -> str:
    """Register ``handle`` in the lobby; the key it shows at once."""
    lobby(page)
    page.fill("#handle", handle)
    page.click("#register")
    page.wait_for_selector("#signed-in")
    assert page.is_visible("#key-shown")  # shown at once, to copy somewhere safe
    return page.input_value("#key-shown")


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def token_in(page: Page, link: str) -> dict[str, str]:
    """The Authorization header of the token in the fragment of the link ``link``."""
    fragment = urlsplit(page.get_attribute(link, "href") or "").fragment
    return bearer(parse_qs(fragment)["token"][0])


def events_of(url: str, game: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = httpx.get(f"{url}/games/{game}/events").json()["events"]
    return found


def decided_by(url: str, game: str, seat: int) -> list[dict[str, Any]]:
    """The events of ``game`` the seat decided (made with its caller's key or token)."""
    return [e for e in events_of(url, game)[1:] if e["by"] == seat]


def take_turn(page: Page, url: str, game: str, key: str) -> None:
    """The seat's next decision by a click on its page (a roll, else its first move), once the
    page shows the game as it stands."""
    auth = {"Authorization": f"Bearer {key}"}
    with httpx.Client(base_url=url, timeout=10) as http:
        legal = http.get(f"/games/{game}/legal-moves", headers=auth).json()
    assert legal["moves"], "not the seat's turn"
    page.wait_for_function(
        "v => Number(document.body.dataset.version || 0) >= v", arg=legal["version"]
    )
    move = legal["moves"][0]["id"]
    if move in {"roll", "draw", "deal"}:
        page.click(f'#actions button[data-move="{move}"]')
    else:
        if not page.locator("#all-moves").evaluate("d => d.open"):
            page.click("#all-moves-summary")
        page.click(f'#moves button[data-move="{move}"]')
    page.wait_for_function("v => Number(document.body.dataset.version) > v", arg=legal["version"])
    assert not page.inner_text("#message"), page.inner_text("#message")


def create_against_the_computer(page: Page, seed: str) -> str:
    """From the lobby: race35, seat 1 the random computer, seat 0 as the form has it; the
    game's id once its play page is open."""
    lobby(page)
    page.select_option("#ruleset", "race35")
    page.select_option("#players", "2")
    page.select_option("#seat-1-bot", "random")
    page.fill("#seed", seed)
    with page.expect_navigation():
        page.click("#create-game")  # one person against the computer: straight to the table
    page.wait_for_selector("body[data-version]")
    return page.url.split("/games/")[1].split("/")[0]


def test_a_player_picks_a_handle_plays_with_the_key_kept_and_signs_in_again_elsewhere(
    url: str, devices: Any
) -> None:
    laptop = devices()
    page = laptop.open(url)
    key = pick_handle(page, "Ann.Lee")
    assert key.startswith("tabula_pk_")
    assert laptop.kept() == {"handle": "Ann.Lee", "key": key}
    assert page.input_value("#seat-0-bot") == ":me"  # her own seat, by handle
    assert page.input_value("#seat-0") == "Ann.Lee"
    assert page.get_attribute("#seat-0", "readonly") is not None
    game = create_against_the_computer(page, "players-browser")
    assert page.url.endswith(f"/games/{game}/play#seat=0")  # the link holds no secret
    created = events_of(url, game)[0]["data"]
    assert created["players"] == [{"seat": 0, "handle": "Ann.Lee"}]
    assert page.inner_text("#title") == "The 35-square race: Ann.Lee"
    take_turn(page, url, game, key)  # with the key from storage
    assert decided_by(url, game, 0)
    laptop.never_showed(key)

    page = laptop.open(url)  # back in the lobby: still her, her game listed
    page.wait_for_selector(f'#my-games a[href="/games/{game}/play"]')
    assert page.inner_text("#signed-in") == "Signed in as Ann.Lee"
    assert not page.is_visible("#key-box")
    page.click("#show-key")  # shown once more on request, to copy it to another device
    copied = page.input_value("#key-shown")
    assert copied == key
    page.click("#sign-out")
    page.wait_for_selector("#guest")
    assert laptop.kept() is None
    assert page.inner_text("#player-message").startswith("Signed out")
    assert page.input_value("#seat-0-bot") == ""  # a person's seat again, by name
    assert not page.locator('#seat-0-bot option[value=":me"]').count()
    page = laptop.open(f"{url}/games/{game}/play#seat=0")  # signed out: her seat is hers only
    page.wait_for_selector("body[data-version]")
    assert "sign in as Ann.Lee" in page.inner_text("#message")
    assert not page.locator("#actions button, #moves button").count()

    phone = devices(viewport=PHONE)
    page = phone.open(url)
    lobby(page)
    page.click("#sign-in-box summary")
    page.fill("#key-in", copied)
    page.click("#sign-in")
    page.wait_for_selector("#signed-in")
    assert phone.kept() == {"handle": "Ann.Lee", "key": key}
    page.wait_for_selector(f'#my-games a[href="/games/{game}/play"]')
    before = len(decided_by(url, game, 0))
    page.click(f'#my-games a[href="/games/{game}/play"]')  # no seat in the link: the key finds it
    page.wait_for_selector("body[data-version]")
    take_turn(page, url, game, key)
    assert len(decided_by(url, game, 0)) > before
    phone.never_showed(key)
    laptop.never_showed(key)


def test_a_guest_still_plays_with_the_seat_token_in_the_link(url: str, devices: Any) -> None:
    guest = devices()
    page = guest.open(url)
    lobby(page)
    assert page.is_visible("#guest")
    assert not page.locator('#seat-0-bot option[value=":me"]').count()
    game = create_against_the_computer(page, "guest-browser")
    assert "players" not in events_of(url, game)[0]["data"]
    token = page.evaluate(f"JSON.parse(sessionStorage.getItem('tabula:{game}')).token")
    assert page.inner_text("#title") == "The 35-square race: Ann"
    take_turn(page, url, game, token)
    assert decided_by(url, game, 0)
    assert guest.kept() is None
    assert not guest.errors, guest.errors


def test_a_players_link_carries_no_key_and_each_guests_link_its_token(
    url: str, devices: Any
) -> None:
    host = devices()
    page = host.open(url)
    key = pick_handle(page, "Host")
    page.select_option("#ruleset", "race35")
    page.select_option("#players", "2")
    page.select_option("#seat-1-bot", ":me")  # she moves to seat 2: seat 1 is a person's again
    assert page.input_value("#seat-0-bot") == "" and page.input_value("#seat-0") == "Ann"
    page.click("#create-game")
    page.wait_for_selector("#links")
    mine = page.get_attribute("#link-seat-1", "href") or ""
    theirs = page.get_attribute("#link-seat-0", "href") or ""
    assert mine.endswith("/play#seat=1") and key not in mine
    assert "#token=" in theirs and page.inner_text("#link-seat-1") == "Play as Host"
    game = mine.split("/games/")[1].split("/")[0]
    seats = httpx.get(f"{url}/games/{game}").json()["seats"]
    assert [s["name"] for s in seats] == ["Ann", "Host"]
    host.never_showed(key)


def test_a_taken_or_refused_handle_is_said_in_plain_words(url: str, devices: Any) -> None:
    httpx.post(f"{url}/players", json={"handle": "Zed"}).raise_for_status()
    page = devices().open(url)
    lobby(page)
    for wanted, said in [
        ("zed", "That handle is taken: choose another"),  # regardless of case
        ("admin", "That handle is not allowed"),
        ("a b", "That handle is not allowed"),
    ]:
        page.fill("#handle", wanted)
        page.click("#register")
        page.wait_for_function(
            "s => document.getElementById('player-message').textContent === s", arg=said
        )
        assert page.get_attribute("#handle", "aria-invalid") == "true"
    page.click("#sign-in-box summary")
    page.fill("#key-in", "not-a-key")
    page.click("#sign-in")
    assert page.inner_text("#player-message").startswith("That is not a player's key")
    page.fill("#key-in", "tabula_pk_0123456789abcdef01234567_nothing")
    page.click("#sign-in")
    page.wait_for_function(
        "() => document.getElementById('player-message').textContent.startsWith('That key')"
    )
    assert page.locator("#guest").count()


def test_a_handle_is_retired_only_once_confirmed(url: str, devices: Any) -> None:
    device = devices()
    page = device.open(url)
    key = pick_handle(page, "Short.Lived")
    page.click("#retire")
    assert page.is_visible("#retire-confirm")
    page.click("#retire-no")  # kept
    assert not page.is_visible("#retire-confirm")
    me = httpx.get(f"{url}/me", headers={"Authorization": f"Bearer {key}"})
    assert me.status_code == 200
    page.click("#retire")
    page.click("#retire-yes")
    page.wait_for_selector("#guest")
    assert page.inner_text("#player-message") == "Short.Lived is retired."
    assert device.kept() is None
    me = httpx.get(f"{url}/me", headers={"Authorization": f"Bearer {key}"})
    assert me.status_code == 401
    again = httpx.post(f"{url}/players", json={"handle": "short.lived"})
    assert again.status_code == 409
    device.never_showed(key)


def test_a_key_that_no_longer_works_is_forgotten_with_a_word_why(url: str, devices: Any) -> None:
    device = devices()
    page = device.open(url)
    key = pick_handle(page, "Rotated")
    auth = {"Authorization": f"Bearer {key}"}
    httpx.post(f"{url}/me/keys", headers=auth, json={}).raise_for_status()  # on another device
    page = device.open(url)
    page.wait_for_selector("#guest")
    assert page.inner_text("#player-message").startswith("The key kept in this browser")
    assert device.kept() is None


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_signed_in_lobby_fits_a_phone_in_every_language_with_no_english_left(
    url: str, devices: Any, lang: str
) -> None:
    device = devices(viewport=PHONE, locale=lang)
    page = device.open(url)
    lobby(page)
    page.fill("#handle", f"Lang_{lang}")
    page.click("#register")
    page.wait_for_selector("#my-games li")
    page.click("#retire")  # the confirmation's words too
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert not wider_than(page, PHONE["width"]), wider_than(page, PHONE["width"])
    if lang != "en":
        text = page.inner_text("#player")
        left = sorted(f for f in english_fragments() if f in text)
        assert not left, left
    assert not serious(page), serious(page)
    assert not device.errors, device.errors


def test_a_player_enters_a_tournament_from_the_lobby_and_plays_her_table_with_the_key(
    url: str, devices: Any
) -> None:
    device = devices()
    page = device.open(url)
    key = pick_handle(page, "Tess")
    page.select_option("#t-ruleset", "race35")
    page.fill("#t-seats", "2")
    page.fill("#t-players", "Bob")
    assert page.is_checked("#t-me")  # she enters it by handle
    page.click("#create-tournament")
    page.wait_for_selector("#tournament-links")
    hers = page.get_attribute("#tournament-player-0", "href") or ""
    assert page.inner_text("#tournament-player-0") == "Player Tess"
    assert hers.endswith("/view")  # her link carries no token: her key is in her browser
    tournament = hers.split("/tournaments/")[1].split("/")[0]
    view = httpx.get(f"{url}/tournaments/{tournament}").json()
    assert [(p["name"], p["player"]) for p in view["players"]] == [("Tess", True), ("Bob", False)]
    director, bob = (token_in(page, f"#tournament-{who}") for who in ("director", "player-1"))
    with httpx.Client(base_url=url, timeout=10) as http:
        pairing = http.post(f"/tournaments/{tournament}/rounds", json={}, headers=director)
        assert pairing.status_code == 201, pairing.text
        page = device.open(hers)  # her page finds her table with the key
        page.wait_for_selector("#my-table-link")
        link = page.get_attribute("#my-table-link", "href") or ""
        assert "token" not in link and key not in link
        game, seat = link.split("/games/")[1].split("/")[0], int(link.rsplit("seat=", 1)[1])
        for _ in range(20):  # Bob, with his link's token, until it is her turn
            if http.get(f"/games/{game}/legal-moves", headers=bearer(key)).json()["moves"]:
                break
            moves = http.get(f"/games/{game}/legal-moves", headers=bob).json()["moves"]
            http.post(f"/games/{game}/moves", json={"move": moves[0]["id"]}, headers=bob)
    page.click("#my-table-link")
    page.wait_for_selector("body[data-version]")
    take_turn(page, url, game, key)
    assert decided_by(url, game, seat)
    device.never_showed(key)
