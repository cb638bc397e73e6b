"""The sync client against the real app served by uvicorn: wire models stay honest."""

from __future__ import annotations

import secrets
from collections import Counter

import httpx
import pytest
from tabula_client import (
    BadRequest,
    Client,
    Conflict,
    CreatedGame,
    NotFound,
    RandomBot,
    Rating,
    StoredEvent,
    Unauthorized,
    Unprocessable,
    next_cursor,
    play_game,
    play_table_flow,
    player_seat,
)
from tabula_client.wire import Race35View

from tests.clients.logs import whole_log
from tests.waiting import wait_until


def new_game(client: Client, *names: str, **tags: str) -> CreatedGame:
    return client.create_game("race35", list(names or ("Ann", "Bob")), tags=tags)


def test_health_and_rulesets(client: Client) -> None:
    assert client.health().status == "ok"
    race35 = {info.name: info for info in client.rulesets()}["race35"]
    assert (race35.min_players, race35.max_players) == (2, 6)
    assert race35.options["red_square_effect"] == "restart_game"


def test_created_game_reads_back_with_seats_pieces_and_pending_roll(client: Client) -> None:
    created = new_game(client, "Ann", "Bob", "Cat")
    assert (created.version, len(created.tokens.seats)) == (1, 3)
    view = client.game(created.id)
    assert (view.game_id, view.ruleset, view.status) == (created.id, "race35", "active")
    assert [seat.name for seat in view.seats] == ["Ann", "Bob", "Cat"]
    assert [piece.at for piece in view.pieces] == ["track:1"] * 3
    assert [(p.seat, p.kind) for p in view.to_act] == [(0, "roll")]
    assert view.seed_commitment == created.seed_commitment
    assert view.seed is None
    assert isinstance(view, Race35View)
    assert [(s.seat, s.skip_turns, s.waiting) for s in view.statuses] == [
        (0, 0, False),
        (1, 0, False),
        (2, 0, False),
    ]


def test_seat_plays_roll_and_log_replays(client: Client) -> None:
    created = new_game(client)
    ann = client.with_token(created.tokens.seats[0])
    legal = ann.legal_moves(created.id)
    assert [(m.id, m.seat) for m in legal.moves] == [("roll", 0)]
    result = ann.play(created.id, legal.moves[0], expected_version=legal.version)
    assert [e.type for e in result.events][:2] == ["DiceRolled", "MovePlayed"]
    assert result.state.version == result.version
    page = client.events(created.id)
    assert [e.version for e in page.events] == list(range(1, result.version + 1))
    assert page.events[1].prev_hash == page.events[0].hash
    before = client.state(created.id, 1)
    assert (before.version, [p.kind for p in before.to_act]) == (1, ["roll"])


def test_list_games_filters_by_tag(client: Client) -> None:
    created = new_game(client, cup="list-test")
    found = client.list_games(tag="cup:list-test", ruleset="race35")
    assert [game.id for game in found] == [created.id]
    assert found[0].seats == ["Ann", "Bob"] and found[0].tags == {"cup": "list-test"}


def test_unknown_game_raises_not_found_with_detail(client: Client) -> None:
    with pytest.raises(NotFound) as raised:
        client.game("no-such-game")
    assert raised.value.problem.slug == "game-not-found"
    assert "no-such-game" in raised.value.detail


def test_bad_setup_and_unknown_ruleset(client: Client) -> None:
    with pytest.raises(Unprocessable) as raised:
        client.create_game("race35", ["Solo"])
    assert raised.value.problem.slug == "bad-setup"
    assert "2 to 6 players" in raised.value.detail
    with pytest.raises(BadRequest) as unknown:
        client.create_game("chess", ["A", "B"])
    assert unknown.value.problem.slug == "unknown-ruleset"


def test_writes_need_a_token(client: Client) -> None:
    created = new_game(client)
    with pytest.raises(Unauthorized):
        client.play(created.id, "roll")


def test_not_your_turn_and_version_conflict_are_conflicts(client: Client) -> None:
    created = new_game(client)
    bob = client.with_token(created.tokens.seats[1])
    with pytest.raises(Conflict) as turn:
        bob.play(created.id, "roll")
    assert turn.value.problem.slug == "not-your-turn"
    ann = client.with_token(created.tokens.seats[0])
    ann.play(created.id, "roll", expected_version=1)
    with pytest.raises(Conflict) as stale:
        ann.play(created.id, "roll", expected_version=1)
    assert stale.value.problem.slug == "version-conflict"


def test_illegal_move_is_unprocessable(client: Client) -> None:
    created = new_game(client)
    with pytest.raises(Unprocessable) as raised:
        client.with_token(created.tokens.seats[0]).play(created.id, "fly")
    assert raised.value.problem.slug == "illegal-move"
    assert "'fly'" in raised.value.detail


def test_idempotent_retry_returns_the_first_result_and_appends_nothing(client: Client) -> None:
    created = new_game(client)
    ann = client.with_token(created.tokens.seats[0])
    first = ann.play(created.id, "roll", expected_version=1, idempotency_key="retry-1")
    again = ann.play(created.id, "roll", expected_version=1, idempotency_key="retry-1")
    assert again.version == first.version
    assert [e.hash for e in again.events] == [e.hash for e in first.events]
    assert client.events(created.id).version == first.version


def test_random_bots_play_race35_to_a_winner(client: Client) -> None:
    seen: list[StoredEvent] = []
    final = play_game(client, "race35", ["Ann", "Bob", "Cat"], seed=5, on_event=seen.append)
    assert final.status == "finished"
    assert len(final.winners) == 1
    winner = final.winners[0]
    assert [p.at for p in final.pieces if p.seat == winner] == ["home"]
    assert [e.version for e in seen] == list(range(1, final.version + 1))
    assert seen[0].type == "GameCreated"
    assert {"GameFinished", "SeedRevealed"} <= {e.type for e in seen}
    assert final.seed is not None


def test_same_seed_replays_the_same_game(client: Client) -> None:
    first = play_game(client, "race35", 2, seed="replay")
    second = play_game(client, "race35", 2, seed="replay", bots=[RandomBot(), RandomBot()])
    assert (first.winners, first.version) == (second.winners, second.version)
    assert first.seed_commitment == second.seed_commitment


class CountingTransport(httpx.HTTPTransport):
    """Counts requests by method and last path segment."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: Counter[str] = Counter()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.sent[f"{request.method} {request.url.path.rsplit('/', 1)[-1]}"] += 1
        return super().handle_request(request)


def test_bots_play_on_from_their_own_move_replies(server_url: str) -> None:
    counting = CountingTransport()
    with Client(server_url, transport=counting) as client:
        final = play_game(client, "sorry", 2, seed="counted")
        played = Counter(counting.sent)
        draws = sum(e.type == "CardDrawn" for e in whole_log(client, final.game_id))
    assert final.status == "finished"
    # A Sorry! turn is a draw, then the decision the card allows, by the same seat: the
    # decision is chosen from the draw's reply, so at most the draws read their moves first.
    assert played["GET legal-moves"] <= draws < played["POST moves"], played


def test_games_page_by_page(client: Client) -> None:
    made = [new_game(client, cup="pages").id for _ in range(5)]
    seen: list[str] = []
    cursor = None
    while True:
        page = client.games_page(tag="cup:pages", limit=2, cursor=cursor)
        seen += [game.id for game in page.games]
        if (cursor := next_cursor(page)) is None:
            break
    assert seen == made
    assert [g.id for g in client.list_games(tag="cup:pages", limit=3)] == made[:3]


def test_ratings_and_a_players_history_through_the_client(client: Client) -> None:
    # the server is shared by the session's tests: handles of this test's own; only games
    # between registered players, played with their keys, are rated
    suffix = secrets.token_hex(4)
    ann, bob = f"ann-{suffix}", f"bob-{suffix}"
    keys = [client.register_player(handle).key for handle in (ann, bob)]
    seats = [player_seat(ann), player_seat(bob)]
    options: dict[str, object] = {"special_squares": {}}
    rated = [client.create_game("race35", seats, options=options) for _ in range(2)]
    unrated = client.create_game("race35", seats, options=options, rated=False)
    for game in (*rated, unrated):
        referee = client.routes.with_token(game.tokens.referee)
        client.run(play_table_flow(referee, game.id, keys))

    def board() -> dict[str, Rating]:
        found: dict[str, Rating] = {}
        cursor = None
        while True:
            page = client.ratings("race35", limit=3, cursor=cursor)
            found |= {rating.name: rating for rating in page.ratings}
            if (cursor := next_cursor(page)) is None:
                return found

    def rated_both() -> dict[str, Rating]:
        found = board()
        counted = ann in found and bob in found and found[ann].games == found[bob].games == 2
        return found if counted else {}

    both = wait_until(rated_both, message="the two rated games never reached the leaderboard")
    assert both[ann].games == both[bob].games == 2
    assert both[ann].wins + both[bob].wins == 2
    player = client.player(ann)
    (race35,) = player.rulesets
    assert race35.ruleset == "race35" and race35.rating == both[ann]
    assert [game.game_id for game in race35.history] == [game.id for game in rated]
    with pytest.raises(NotFound) as missing:
        client.player(f"nobody-{suffix}")
    assert missing.value.problem.slug == "player-not-found"
    with pytest.raises(BadRequest) as unknown:
        client.ratings("chess")
    assert unknown.value.problem.slug == "unknown-ruleset"


def test_tournaments_page_by_page(client: Client) -> None:
    made = [client.create_tournament(f"Cup {i}", "race35", ["Ann", "Bob"]).id for i in range(3)]
    seen: list[str] = []
    cursor = None
    while True:
        page = client.tournaments(status="registering", limit=2, cursor=cursor)
        seen += [t.id for t in page.tournaments if t.id in made]
        if (cursor := next_cursor(page)) is None:
            break
    assert seen == made
    with pytest.raises(BadRequest):
        client.tournaments(cursor="not-one")
