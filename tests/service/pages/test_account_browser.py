"""The play page's account of the game in headless Chromium: every event of the log told in
words, the latest first, in a polite live region; a passed turn names the card that left no
move; what others play is told one line at a time, at a pace a person can follow, which
catches up when lines wait (never a line told more than a few seconds after the board showed
its event), and the end banner shows once the account has told the game's end."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import httpx
import pytest

from tests.service.browser import Page, browser, person, url  # noqa: F401 (fixtures)
from tests.waiting import wait_until

pytestmark = pytest.mark.browser


SEATS = [{"name": "Ann"}, {"name": "Bob"}]
PACE_MS = 700  # account.js: between two lines told


def events_of(url: str, game: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = httpx.get(f"{url}/games/{game}/events").json()["events"]
    return found


def told(page: Page, version: int) -> None:
    """Wait until the account has told the game up to ``version``."""
    page.wait_for_function(
        "v => Number(document.getElementById('account').dataset.version || 0) >= v",
        arg=version,
        timeout=20_000,
    )


def lines(page: Page) -> list[dict[str, str]]:
    found: list[dict[str, str]] = page.eval_on_selector_all(
        "#account li",
        "els => els.map(e => ({version: e.dataset.version, type: e.dataset.type,"
        " kind: e.dataset.kind, text: e.textContent,"
        " card: e.querySelector('.card')?.dataset.card}))",
    )
    return found


def sorry_game_whose_first_draw_passes(url: str) -> tuple[dict[str, Any], str]:
    """A sorry game (no fast start) whose first card leaves Ann no move, and that card."""
    with httpx.Client(base_url=url, timeout=10) as http:
        for attempt in range(40):
            body = {"ruleset": "sorry", "seats": SEATS, "seed": f"pass-{attempt}"}
            trial = http.post("/games", json=body).json()
            token = {"Authorization": f"Bearer {trial['tokens']['seats'][0]}"}
            drawn = http.post(f"/games/{trial['id']}/moves", json={"move": "draw"}, headers=token)
            types = [e["type"] for e in drawn.json()["events"]]
            if types == ["CardDrawn", "TurnPassed"]:
                card = drawn.json()["events"][0]["data"]["card"]
                created: dict[str, Any] = http.post("/games", json=body).json()
                return created, card
    raise AssertionError("no seed passes on the first draw")


def test_a_passed_turn_names_the_card_that_left_no_move(url: str, person: Any) -> None:
    created, card = sorry_game_whose_first_draw_passes(url)
    game, token = created["id"], created["tokens"]["seats"][0]
    ann = person(f"{url}/games/{game}/play#token={token}&seat=0")
    told(ann, 1)
    assert ann.get_attribute("#account", "aria-live") == "polite"
    ann.click('#actions button[data-move="draw"]')
    told(ann, 3)
    latest, drawn = lines(ann)[:2]
    assert latest["type"] == "TurnPassed" and latest["kind"] == "pass"
    assert latest["card"] == card  # the card shown as a card on the line of the pass
    assert f"Ann cannot move with card {card}" in latest["text"]
    assert "The turn passes." in latest["text"]
    assert drawn["type"] == "CardDrawn" and f"Ann draws card {card}" in drawn["text"]


def test_the_account_tells_every_event_latest_first_and_others_moves_one_by_one(
    url: str, person: Any
) -> None:
    body = {"ruleset": "race35", "seats": SEATS, "seed": "race35-16"}
    created = httpx.post(f"{url}/games", json=body).json()
    game, tokens = created["id"], created["tokens"]["seats"]
    bob = person(f"{url}/games/{game}/play#token={tokens[1]}&seat=1")
    told(bob, 1)
    bob.evaluate(
        """() => { window.__told = [];
        new MutationObserver((changes) => changes.forEach((c) => c.addedNodes.forEach(
          (n) => window.__told.push([Number(n.dataset.version), performance.now()]))))
          .observe(document.getElementById('account'), { childList: true }); }"""
    )
    with httpx.Client(base_url=url, timeout=10) as http:  # both seats play at API speed
        for _ in range(3):  # a few lines waiting: each takes its turn at the pace chosen
            state = http.get(f"/games/{game}").json()
            seat = state["to_act"][0]["seat"]
            auth = {"Authorization": f"Bearer {tokens[seat]}"}
            moves = http.get(f"/games/{game}/legal-moves", headers=auth).json()["moves"]
            http.post(f"/games/{game}/moves", json={"move": moves[0]["id"]}, headers=auth)
    log = events_of(url, game)
    told(bob, log[-1]["version"])
    shown = lines(bob)
    assert [int(line["version"]) for line in shown] == [e["version"] for e in reversed(log)]
    assert [line["type"] for line in shown] == [e["type"] for e in reversed(log)]
    rolls = [e for e in log if e["type"] == "DiceRolled"]
    by_version = {int(line["version"]): line["text"] for line in shown}
    for roll in rolls:
        name = SEATS[roll["data"]["seat"]]["name"]
        assert f"{name} rolls {roll['data']['dice'][0]}" in by_version[roll["version"]]
    times = [at for _, at in bob.evaluate("window.__told")]
    gaps = [later - earlier for earlier, later in pairwise(times)]
    assert len(times) == len(log) - 1  # each new event told once
    assert min(gaps) >= PACE_MS * 0.8, gaps  # one at a time, not all at once


LATE_MS = 4000  # the most a line may be told after the board shows its event (account.js: 3 s)
MOST_BEHIND = 10  # events the account may be behind the board at any moment
WATCH = """() => {
  const seen = { shown: {}, told: {}, polls: [], banner: null };
  const account = document.getElementById('account');
  const version = (element) => Number(element.dataset.version || 0);
  let board = version(document.body); // what was shown before is not timed
  const look = () => {
    const now = performance.now();
    for (; board < version(document.body); board += 1) seen.shown[board + 1] = now;
    seen.polls.push([board, version(account)]);
  };
  setInterval(look, 50);
  new MutationObserver((changes) => changes.forEach((c) => c.addedNodes.forEach((n) => {
    seen.told[n.dataset.version] ??= performance.now();
  }))).observe(account, { childList: true });
  new MutationObserver(() => {
    const shown = !document.getElementById('end').hidden;
    if (shown && seen.banner === null) seen.banner = version(account);
  }).observe(document.getElementById('end'), { attributes: true });
  window.__seen = seen;
}"""


def play_to_the_end(
    page: Page | None, url: str, game: str, token: str, seat: int
) -> list[dict[str, Any]]:
    """Play ``seat``'s first legal move as soon as ``page`` shows that it is to act (a person
    quick on the draw against bots, who play at once), or as soon as the API says so without
    ``page``, until the game is over; the log."""
    auth = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=url, timeout=10) as http:

        def my_turn_or_over() -> dict[str, Any] | None:
            state: dict[str, Any] = http.get(f"/games/{game}").json()
            mine = any(p["seat"] == seat for p in state["to_act"])
            return state if state["status"] == "finished" or mine else None

        while (state := wait_until(my_turn_or_over, message="no turn came")) is not None:
            if state["status"] != "active":
                break
            if page is not None:
                page.wait_for_function(
                    "v => +document.body.dataset.version >= v", arg=state["version"]
                )
            moves = http.get(f"/games/{game}/legal-moves", headers=auth).json()["moves"]
            http.post(f"/games/{game}/moves", json={"move": moves[0]["id"]}, headers=auth)
    return events_of(url, game)


def lags(seen: dict[str, Any]) -> tuple[int, float]:
    """The most events the account was behind the board at a poll, and the longest a line was
    told after the board showed its event (ms; a line not told yet, until now)."""
    behind = max(board - told for board, told in seen["polls"])
    late = [seen["told"].get(v, seen["now"]) - at for v, at in seen["shown"].items()]
    return behind, max(late, default=0.0)


@pytest.mark.parametrize("person_plays", [True, False], ids=["as-shown", "at-api-speed"])
def test_the_account_catches_up_and_has_told_the_last_move_when_the_end_banner_shows(
    url: str, person: Any, person_plays: bool
) -> None:
    """A person quick on the draw (her move as soon as her turn shows) against three bots,
    and a whole game played at the API's speed (449 events in a few seconds): the account, at
    its slowest pace, tells every line within LATE_MS of the board showing its event. With the
    person, the board never runs more than MOST_BEHIND events ahead of the account; at the
    API's speed the board, read afresh after each push, runs ahead of the pushes themselves."""
    seats = [{"name": "Ann"}] + [{"name": n, "bot": "greedy"} for n in ("Bob", "Cy", "Di")]
    body = {"ruleset": "race35", "seats": seats, "seed": "catch-up"}
    created = httpx.post(f"{url}/games", json=body).json()
    game, token = created["id"], created["tokens"]["seats"][0]
    ann = person(f"{url}/games/{game}/play#token={token}&seat=0")
    assert ann.input_value("#pace") == "steady"  # "one by one", the slowest pace
    told(ann, 1)
    ann.wait_for_function(
        "() => document.getElementById('account').dataset.version === document.body.dataset.version"
    )
    ann.evaluate(WATCH)
    log = play_to_the_end(ann if person_plays else None, url, game, token, 0)
    ann.wait_for_selector("#end:not([hidden])", timeout=20_000)
    seen = ann.evaluate("({ ...window.__seen, now: performance.now() })")
    behind, late = lags(seen)
    finish = next(e["version"] for e in log if e["type"] == "GameFinished")
    assert seen["banner"] is not None and seen["banner"] >= finish, "the banner came first"
    assert late <= LATE_MS, f"a line was told {late:.0f} ms after the board showed it"
    if person_plays:
        assert behind <= MOST_BEHIND, f"the account fell {behind} events behind the board"
