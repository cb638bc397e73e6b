"""The meeting place in the browser, in headless Chromium: two people, each in a browser of
their own and a language of their own, find each other in the lobby and play a game to the
end. One leaves a seat open when she creates a table; the other sees it among the lobby's open
tables and joins it with one click; each play page says who is at the table and who is still
awaited, and whether each seat's person is here. Or both press "play now" for the same kind of
game and are seated together. An invited player finds her invitations in her open lobby and
accepts or declines each. At the end, both ask for the rematch and meet at the
next table."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.service.browser import Browser, Page, browser, url  # noqa: F401 (fixtures)
from tests.service.pages.test_lobby_browser import lobby
from tests.service.pages.test_players_browser import Device, devices, pick_handle  # noqa: F401

pytestmark = pytest.mark.browser


def game_of(page: Page) -> str:
    """The id of the game whose play page ``page`` shows, once it shows it."""
    page.wait_for_selector("body[data-version]")
    return page.url.split("/games/")[1].split("/")[0]


def open_table(page: Page, name: str) -> str:
    """From the lobby: race35 for two, seat 0 the person at this browser under ``name``, seat
    1 left open; the table's id once its play page is open."""
    lobby(page)
    page.select_option("#ruleset", "race35")
    page.select_option("#players", "2")
    page.fill("#seat-0", name)
    page.select_option("#seat-1-bot", ":open")
    with page.expect_navigation():
        page.click("#create-game")  # one person here, the other to come: to the table
    return game_of(page)


def click_a_move(page: Page) -> None:
    """The seat's next decision on its page: its chance button, else its first move."""
    if page.locator("#actions button").count():
        page.locator("#actions button").first.click()
        return
    if not page.locator("#all-moves").evaluate("d => d.open"):
        page.click("#all-moves-summary")
    page.locator("#moves button").first.click()


def rematches(url: str) -> bool:
    """Whether the service offers rematches (``POST /games/{id}/rematch`` in its document)."""
    paths = httpx.get(f"{url}/schema/openapi.json").json()["paths"]
    return any(path.endswith("/rematch") for path in paths)


def play_to_the_end(url: str, game: str, pages: dict[int, Page]) -> dict[str, Any]:
    """Each seat plays its turns on its own page (``pages`` by seat) until the game is over;
    the finished game's state."""
    with httpx.Client(base_url=url, timeout=10) as http:
        for _ in range(800):
            state: dict[str, Any] = http.get(f"/games/{game}").json()
            if state["status"] == "finished":
                return state
            page = pages[state["to_act"][0]["seat"]]
            page.wait_for_function(
                "v => Number(document.body.dataset.version || 0) >= v", arg=state["version"]
            )
            click_a_move(page)
            page.wait_for_function(
                "v => Number(document.body.dataset.version) > v", arg=state["version"]
            )
            assert not page.inner_text("#message"), page.inner_text("#message")
    raise AssertionError("no winner after 800 decisions")


def test_a_table_opened_in_english_is_joined_from_the_spanish_lobby_and_played_to_the_end(
    url: str, devices: Any
) -> None:
    ann = devices(locale="en")
    beto = devices(locale="es")
    game = open_table(ann.open(url), "Ann")
    ann.page.wait_for_selector("body[data-status='gathering']")
    assert "Waiting for 1 more player" in ann.page.inner_text("#turn")
    assert "open seat" in ann.page.inner_text("#seats .seat[data-seat='1']")

    page = beto.open(url)
    lobby(page)
    join = f"button[data-join='{game}']"
    page.wait_for_selector(join)
    assert page.inner_text(join) == "Unirse"
    assert "Ann" in page.inner_text(f"#tables-list li[data-table='{game}']")
    page.fill("#guest-name", "Beto")
    with page.expect_navigation():
        page.click(join)  # one click: to her seat, with its token
    assert game_of(page) == game
    assert "#token=" not in page.url  # taken out of the address bar, kept for the tab

    # The table started with her; each page says who sits where, and that the other is here.
    for seen in (ann.page, page):
        seen.wait_for_selector("body[data-status='active']")
    ann.page.wait_for_selector("#seats .seat[data-seat='1'][data-present='true']")
    assert "Beto" in ann.page.inner_text("#seats .seat[data-seat='1']")
    page.wait_for_selector("#seats .seat[data-seat='0'][data-present='true']")
    assert "presente" in page.inner_text("#seats .seat[data-seat='0']")
    page.wait_for_selector("#account li:has-text('Beto se sienta a la mesa.')")
    ann.page.wait_for_selector("#account li:has-text('Everyone is at the table: the game starts.')")

    finished = play_to_the_end(url, game, {0: ann.page, 1: page})
    assert finished["winners"]
    for seen in (ann.page, page):
        seen.wait_for_selector("#end:not([hidden]) #play-again")
    assert page.inner_text("#end h2") != ann.page.inner_text("#end h2")  # each in her language
    if rematches(url):  # both ask for the rematch: one table, the first player turned
        assert page.inner_text("#rematch") == "Revancha"
        for seen in (ann.page, page):
            with seen.expect_navigation():
                seen.click("#rematch")
        again = game_of(ann.page)
        assert again != game and game_of(page) == again
        page.wait_for_selector("body[data-status='active'] #seats .seat[data-seat='0'] .you")
        ann.page.wait_for_selector("body[data-status='active'] #seats .seat[data-seat='1'] .you")
    else:  # until then, the banner's "play again" is all it offers
        assert not ann.page.locator("#rematch").count()
    ann.never_showed("tabula_pk_")
    beto.never_showed("tabula_pk_")


def test_a_player_and_a_guest_who_both_press_play_now_sit_at_one_table(
    url: str, devices: Any
) -> None:
    cleo = devices(locale="en")
    dario = devices(locale="es")
    key = pick_handle(cleo.open(url), "cleo")
    dario_page = dario.open(url)
    lobby(dario_page)
    for page in (cleo.page, dario_page):
        page.select_option("#seek-ruleset", "race35")
        page.select_option("#seek-players", "2")
    dario_page.fill("#guest-name", "Darío")
    cleo.page.click("#play-now")
    cleo.page.wait_for_selector("#seek-cancel:not([hidden])")
    assert cleo.page.inner_text("#seek-status").startswith("Looking for a table of")
    with cleo.page.expect_navigation(), dario_page.expect_navigation():
        dario_page.click("#play-now")  # the second seek completes the table: both go to it
    game = game_of(cleo.page)
    assert game_of(dario_page) == game
    state = httpx.get(f"{url}/games/{game}").json()
    assert sorted(s["name"] for s in state["seats"]) == ["Darío", "cleo"]
    # Cleo plays her seat with the key kept in her browser; the link carries no secret.
    assert "token=" not in cleo.page.url
    cleo.page.wait_for_selector("#seats .seat .you")
    cleo.never_showed(key)


def test_an_invited_player_sees_her_invitations_in_her_lobby_declines_one_and_accepts_one(
    url: str, devices: Any
) -> None:
    host = devices(locale="en")
    guest = devices(locale="es")
    key = pick_handle(guest.open(url), "dora")
    page = host.open(url)
    lobby(page)
    page.select_option("#ruleset", "race35")
    page.select_option("#players", "2")
    page.fill("#seat-0", "Host")
    page.select_option("#seat-1-bot", ":invite")
    page.fill("#seat-1", "dora")
    with page.expect_navigation():
        page.click("#create-game")  # the host to her seat, the other kept for dora
    game = game_of(page)
    assert "dora" in page.inner_text("#seats .seat[data-seat='1']")
    other = httpx.post(
        f"{url}/games",
        json={"ruleset": "race35", "seats": [{"name": "Ivo"}, {"invite": "dora"}]},
    ).json()["id"]

    # Her lobby, open since she picked her handle, reads them again (GET /me's invitations).
    decline = f"button[data-decline='{other}']"
    guest.page.wait_for_selector(decline)
    assert guest.page.inner_text(decline) == "Rechazar"
    guest.page.click(decline)  # the seat turns open: the table is in the lobby's open tables
    guest.page.wait_for_selector(decline, state="detached")
    guest.page.wait_for_selector(f"button[data-join='{other}']")
    accept = f"button[data-accept='{game}']"
    assert guest.page.inner_text(accept) == "Aceptar"
    with guest.page.expect_navigation():
        guest.page.click(accept)
    assert game_of(guest.page) == game
    guest.page.wait_for_selector("body[data-status='active'] #seats .seat[data-seat='1'] .you")
    page.wait_for_selector("body[data-status='active']")
    guest.never_showed(key)
