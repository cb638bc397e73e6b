"""Which finished games count for ratings, read from their logs (``rule.rating_keys``) and
summaries (``rule.candidate``): each clause of the rule leaves a game out on its own."""

from __future__ import annotations

from typing import Any

from eventstore import StoredEvent, StreamInfo
from service.usecases.ratings.rule import candidate, rating_keys

Act = tuple[int | str, str, dict[str, Any]]
STREAM = StreamInfo("g", 9, "t0", {"ruleset": "race35"}, "SeedRevealed")


def act(by: int | str, event: str, **data: Any) -> Act:
    """One event of a log: by whom, its type, its data."""
    return by, event, data


def log(created: dict[str, Any], *acts: Act) -> list[StoredEvent]:
    """A game's log: its creation (race35 between two seats, with ``created``'s fields) and
    ``acts``."""
    first = {"ruleset": "race35", "options": {}, "seats": ["ann", "bob"], **created}
    events = [act("referee", "GameCreated", **first), *acts]
    return [
        StoredEvent("g", version, kind, data, by, "t", "", "")
        for version, (by, kind, data) in enumerate(events, start=1)
    ]


ANN_AND_BOB = {"players": [{"seat": 0, "handle": "ann"}, {"seat": 1, "handle": "bob"}]}
ANN_AND_A_BOT = {
    "players": [{"seat": 0, "handle": "ann"}],
    "bots": [{"seat": 1, "level": "greedy", "version": 1}],
}
ANN_ROLLS, BOB_ROLLS, THE_BOT_ROLLS = (
    act(0, "DiceRolled"),
    act(1, "DiceRolled"),
    act("bot", "DiceRolled"),
)
REVEALED = act("server", "SeedRevealed")
BOTH_PLAY = (ANN_ROLLS, BOB_ROLLS, act("server", "MovePlayed"), REVEALED)


def test_a_game_of_players_who_each_acted_counts_by_their_handles() -> None:
    assert rating_keys(log(ANN_AND_BOB, *BOTH_PLAY), STREAM) == ["ann", "bob"]


def test_a_bot_from_the_start_is_rated_by_its_level() -> None:
    played = log(ANN_AND_A_BOT, ANN_ROLLS, THE_BOT_ROLLS, REVEALED)
    assert rating_keys(played, STREAM) == ["ann", "bot:greedy"]


def test_a_guest_at_any_seat_leaves_the_game_out() -> None:
    guest = {"players": [{"seat": 0, "handle": "ann"}]}  # seat 1, "bob", is a free name
    assert rating_keys(log(guest, *BOTH_PLAY), STREAM) is None
    assert rating_keys(log({}, *BOTH_PLAY), STREAM) is None


def test_a_player_who_never_acted_leaves_the_game_out() -> None:
    expired = act("server", "TimeExpired", seat=1, consequence="forfeit")
    timed_out = log(ANN_AND_BOB, ANN_ROLLS, expired, act("server", "GameFinished"), REVEALED)
    assert rating_keys(timed_out, STREAM) is None
    handed_by_the_clock = act("server", "SeatHandedOver", seat=1, bot="random")
    played_by_a_bot = log(ANN_AND_BOB, ANN_ROLLS, handed_by_the_clock, THE_BOT_ROLLS)
    assert rating_keys(played_by_a_bot, STREAM) is None


def test_unrated_and_external_chance_games_never_count() -> None:
    assert rating_keys(log({**ANN_AND_BOB, "rated": False}, *BOTH_PLAY), STREAM) is None
    assert rating_keys(log({**ANN_AND_BOB, "chance": "external"}, *BOTH_PLAY), STREAM) is None


def test_a_referee_decision_after_the_creation_leaves_the_game_out() -> None:
    forfeit = act("referee", "Adjudicated", kind="forfeit", reason="", seat=1)
    assert rating_keys(log(ANN_AND_BOB, ANN_ROLLS, BOB_ROLLS, forfeit), STREAM) is None
    handed = act("referee", "SeatHandedOver", seat=1, bot="greedy")
    assert rating_keys(log(ANN_AND_BOB, ANN_ROLLS, BOB_ROLLS, handed), STREAM) is None


def test_a_bot_seat_played_by_a_person_or_handed_over_leaves_the_game_out() -> None:
    assert rating_keys(log(ANN_AND_A_BOT, ANN_ROLLS, BOB_ROLLS), STREAM) is None
    back = act("server", "SeatHandedOver", seat=1, bot="")
    assert rating_keys(log(ANN_AND_A_BOT, ANN_ROLLS, back), STREAM) is None


def test_a_player_s_own_hand_over_to_a_bot_keeps_the_game() -> None:
    handed = act(1, "SeatHandedOver", seat=1, bot="random")
    played = log(ANN_AND_BOB, ANN_ROLLS, handed, THE_BOT_ROLLS, REVEALED)
    assert rating_keys(played, STREAM) == ["ann", "bob"]


def test_an_undo_after_the_seed_was_revealed_leaves_the_game_out() -> None:
    undone = act(1, "MoveUndone", reverts=3)
    during = log(ANN_AND_BOB, ANN_ROLLS, BOB_ROLLS, undone, *BOTH_PLAY)
    assert rating_keys(during, STREAM) == ["ann", "bob"]  # an undo during the game is play
    assert rating_keys(log(ANN_AND_BOB, *BOTH_PLAY, undone), STREAM) is None


def test_an_imported_game_never_counts() -> None:
    imported = StreamInfo("g", 9, "t0", {"imported_from": "h"}, "SeedRevealed")
    assert rating_keys(log(ANN_AND_BOB, *BOTH_PLAY), imported) is None


def test_a_summary_says_whether_its_game_may_count() -> None:
    seats = {"seats": ["ann", "bob"]}
    assert candidate({**seats, "players": ["ann", "bob"]})
    assert candidate({**seats, "players": ["ann", None], "bots": ["", "greedy"]})
    assert not candidate({**seats, "players": ["ann", None]})
    assert not candidate({**seats, "players": ["ann", "bob"], "rated": False})
    assert not candidate(seats)  # kept before seats could belong to players: guests
