"""Sorry! with a hand of five (rule set ``sorry-hand``): the tricky cases of
rules/sorry-hand.md section 7, then the options, hidden information and errors."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from domain import sorry, sorry_hand
from domain.events import (
    CardDrawn,
    CardsDealt,
    DeckShuffled,
    Event,
    GameFinished,
    MovePlayed,
    TurnPassed,
)
from domain.model import (
    CHANCE_KINDS,
    COLOURS,
    HIDDEN,
    BadSetup,
    Deal,
    Draw,
    Effect,
    GameOver,
    IllegalMove,
    Move,
    NotYourTurn,
    Pending,
    Viewer,
)
from domain.replay import settle

State = sorry_hand.State
Layout = dict[str, list[str]]
OTHER_HAND = ("1", "1", "1", "1", "1")


def position(
    seats: int, pawns: Layout, hand: tuple[str, ...], turn: int = 0, **options: object
) -> State:
    """A game with the listed pawns (the others in Start) where ``turn`` plays from ``hand``."""
    state = sorry_hand.setup({"first_player": turn, **options}, seats)
    locs = list(state.pawns)
    for colour, places in pawns.items():
        seat = COLOURS.index(colour)
        for number, place in enumerate(places):
            locs[seat * sorry.PAWNS + number] = sorry.CODE[place]
    own = tuple(sorted(hand, key=sorry.CARD_RANK.__getitem__))
    hands = tuple(own if seat == turn else OTHER_HAND for seat in range(seats))
    return replace(state, pawns=tuple(locs), hands=hands, phase="play")


def board(state: State) -> Layout:
    """Every colour's pawn locations, sorted (pawns of one colour are interchangeable)."""
    pieces = sorry_hand.view(state, "referee").pieces
    return {
        colour: sorted(p.at for p in pieces if p.seat == seat)
        for seat, colour in enumerate(COLOURS[: state.seats])
    }


def layout(seats: int, pawns: Layout) -> Layout:
    """The expected board: the listed pawns, the rest of each colour in Start."""
    return {
        colour: sorted(pawns.get(colour, []) + ["start"] * (4 - len(pawns.get(colour, []))))
        for colour in COLOURS[:seats]
    }


def move_ids(state: State) -> set[str]:
    """The legal move ids of the seat to act (checking there are no duplicates)."""
    ids = [move.id for move in sorry_hand.legal_moves(state, state.turn)]
    assert len(ids) == len(set(ids)), f"duplicate moves: {ids}"
    return set(ids)


def play(state: State, move_id: str) -> State:
    """Decide and apply a move, then the automatic events."""
    for event in sorry_hand.decide(state, state.turn, move_id):
        state = sorry_hand.apply(state, event)
    settled: State = settle(sorry_hand, state)[0]
    return settled


def results(state: State) -> dict[str, Layout]:
    """Each legal move's resulting board."""
    return {move_id: board(play(state, move_id)) for move_id in move_ids(state)}


def draw(state: State, card: str) -> State:
    """The pending seat draws ``card``, then the automatic events."""
    assert sorry_hand.to_act(state) == [Pending(state.turn, "draw")]
    drawn = sorry_hand.apply(state, CardDrawn(state.turn, card))
    settled: State = settle(sorry_hand, drawn)[0]
    return settled


def hand(state: State, seat: int = 0) -> list[str]:
    return list(state.hands[seat])


# --- section 7: tricky cases -------------------------------------------------------------------


def test_choosing_among_cards() -> None:
    state = position(4, {"red": ["track:10"]}, ("3", "4", "5", "11", "12"))
    assert sorry_hand.to_act(state) == [Pending(0, "move")]
    assert results(state) == {
        "3:track:10>track:13": layout(4, {"red": ["track:13"]}),
        "4:track:10>track:6": layout(4, {"red": ["track:6"]}),
        "5:track:10>track:15": layout(4, {"red": ["track:15"]}),
        "11:track:10>track:21": layout(4, {"red": ["track:21"]}),
        "12:track:10>track:22": layout(4, {"red": ["track:22"]}),
    }
    after = play(state, "5:track:10>track:15")
    assert hand(after) == ["3", "4", "11", "12"]
    assert after.discard == ("5",)
    assert sorry_hand.to_act(after) == [Pending(0, "draw")]
    assert sorry_hand.chance(after) == Draw(pile=after.pile)
    refilled = draw(after, "7")
    assert hand(refilled) == ["3", "4", "7", "11", "12"]
    assert sorry_hand.to_act(refilled) == [Pending(1, "move")]


def test_mid_slide_landing() -> None:
    # sorry-hand.md 7.2 lists "12: T7 -> T19", but by the step rules of sorry.md 3.3 (shared by
    # sorry-hand) a blue pawn reaching T17, its turn square, enters its lane: T7 + 12 = lane:2.
    state = position(4, {"blue": ["track:7"]}, ("2", "3", "4", "8", "12"), turn=1)
    assert results(state) == {
        "2:start>track:19": layout(4, {"blue": ["track:19", "track:7"]}),
        "2:track:7>track:9": layout(4, {"blue": ["track:13"]}),
        "3:track:7>track:10": layout(4, {}),
        "4:track:7>track:3": layout(4, {}),
        "8:track:7>track:15": layout(4, {"blue": ["track:15"]}),
        "12:track:7>lane:2": layout(4, {"blue": ["lane:2"]}),
    }
    three = {move.id: move for move in sorry_hand.legal_moves(state, 1)}["3:track:7>track:10"]
    assert three.effects == (
        Effect("blue-1", "track:10", "start", "landed inside the slide of red"),
    )


def test_mid_slide_landing_without_the_option() -> None:
    state = position(
        4,
        {"blue": ["track:7"]},
        ("2", "3", "4", "8", "12"),
        turn=1,
        mid_slide_landing_returns_to_start=False,
    )
    outcome = results(state)
    assert set(outcome) == {
        "2:start>track:19",
        "2:track:7>track:9",
        "3:track:7>track:10",
        "4:track:7>track:3",
        "8:track:7>track:15",
        "12:track:7>lane:2",
    }
    assert outcome["3:track:7>track:10"] == layout(4, {"blue": ["track:10"]})
    assert outcome["4:track:7>track:3"] == layout(4, {"blue": ["track:3"]})


def test_own_slide_interior_is_safe() -> None:
    state = position(2, {"red": ["track:7"]}, ("3", "3", "3", "3", "3"))
    assert results(state) == {"3:track:7>track:10": layout(2, {"red": ["track:10"]})}


def test_only_swaps_available_may_decline() -> None:
    pawns = {"red": ["track:58", "home", "home", "home"], "blue": ["track:30"]}
    state = position(2, pawns, ("11", "11", "12", "12", "12"))
    assert results(state) == {
        "11:track:58<>track:30": layout(
            2, {"red": ["track:30", "home", "home", "home"], "blue": ["track:58"]}
        ),
        "11:decline+discard:11": layout(2, pawns),
        "11:decline+discard:12": layout(2, pawns),
    }
    assert sorry_hand.to_act(state) == [Pending(0, "move")]
    events = sorry_hand.decide(state, 0, "11:decline+discard:12")
    assert events == [MovePlayed(0, "11:decline+discard:12", "12")]
    discarded = play(state, "11:decline+discard:12")
    assert board(discarded) == layout(2, pawns)
    assert hand(discarded) == ["11", "11", "12", "12"]
    assert discarded.discard == ("12",)
    assert sorry_hand.to_act(discarded) == [Pending(0, "draw")]
    assert sorry_hand.to_act(draw(discarded, "5")) == [Pending(1, "move")]


def test_declining_may_discard_an_11() -> None:
    pawns = {"red": ["track:58", "home", "home", "home"], "blue": ["track:30"]}
    state = position(2, pawns, ("11", "11", "12", "12", "12"))
    discarded = play(state, "11:decline+discard:11")
    assert hand(discarded) == ["11", "12", "12", "12"]
    assert discarded.discard == ("11",)


def test_a_decline_names_the_card_it_discards() -> None:
    pawns = {"red": ["track:58", "home", "home", "home"], "blue": ["track:30"]}
    state = position(2, pawns, ("11", "11", "12", "12", "12"))
    with pytest.raises(IllegalMove, match="a decline names the card it discards"):
        sorry_hand.decide(state, 0, "11:decline")
    with pytest.raises(IllegalMove, match="decline the swap and discard with '11:decline"):
        sorry_hand.decide(state, 0, "discard:12")
    with pytest.raises(IllegalMove, match="card '5' is not in seat 1's hand"):
        sorry_hand.decide(state, 0, "11:decline+discard:5")
    with pytest.raises(IllegalMove, match="not a move id"):
        sorry_hand.decide(state, 0, "11:decline+discard:nine")


def test_a_bare_decline_of_an_older_log_still_replays() -> None:
    # Logs written before a decline was one decision hold "11:decline" (the 11 stays in the
    # hand), then a "discard:<card>" decision.
    pawns = {"red": ["track:58", "home", "home", "home"], "blue": ["track:30"]}
    state = position(2, pawns, ("11", "11", "12", "12", "12"))
    declined = sorry_hand.apply(state, MovePlayed(0, "11:decline", "11"))
    assert hand(declined) == ["11", "11", "12", "12", "12"]
    assert sorry_hand.to_act(declined) == [Pending(0, "discard")]
    assert move_ids(declined) == {"discard:11", "discard:12"}
    with pytest.raises(IllegalMove, match="must discard a card"):
        sorry_hand.decide(declined, 0, "11:track:58<>track:30")
    discarded = play(declined, "discard:12")
    assert hand(discarded) == ["11", "11", "12", "12"]
    assert discarded.discard == ("12",)
    assert sorry_hand.to_act(draw(discarded, "5")) == [Pending(1, "move")]


def test_dead_hand() -> None:
    state = position(2, {}, ("3", "4", "5", "7", "8"))
    assert sorry_hand.automatic(state) == []
    assert sorry_hand.to_act(state) == [Pending(0, "move")]
    assert results(state) == {
        f"discard:{card}": layout(2, {}) for card in ("3", "4", "5", "7", "8")
    }
    events = sorry_hand.decide(state, 0, "discard:7")
    assert events == [MovePlayed(0, "discard:7", "7")]
    after = play(state, "discard:7")
    assert hand(after) == ["3", "4", "5", "8"]
    assert after.discard == ("7",)
    assert sorry_hand.to_act(draw(after, "1")) == [Pending(1, "move")]


def test_no_extra_play_after_a_2() -> None:
    state = position(2, {"red": ["track:6"]}, ("2", "5", "5", "8", "12"))
    assert results(state) == {
        "2:start>track:4": layout(2, {"red": ["track:4", "track:6"]}),
        "2:track:6>track:8": layout(2, {"red": ["track:8"]}),
        "5:track:6>track:11": layout(2, {"red": ["track:11"]}),
        "8:track:6>track:14": layout(2, {"red": ["track:14"]}),
        "12:track:6>track:18": layout(2, {}),
    }
    after = draw(play(state, "2:start>track:4"), "3")
    assert hand(after) == ["3", "5", "5", "8", "12"]
    assert sorry_hand.to_act(after) == [Pending(1, "move")]


def test_extra_play_after_a_2_with_two_plays_again() -> None:
    state = position(2, {"red": ["track:6"]}, ("2", "5", "5", "8", "12"), two_plays_again=True)
    extra = draw(play(state, "2:start>track:4"), "3")
    assert sorry_hand.to_act(extra) == [Pending(0, "move")]
    assert sorry_hand.view(extra, 0).extra_play is True
    assert move_ids(extra) == {
        "3:track:4>track:7",
        "3:track:6>track:9",
        "5:track:4>track:9",
        "5:track:6>track:11",
        "8:track:4>track:12",
        "8:track:6>track:14",
        "12:track:4>track:16",
        "12:track:6>track:18",
    }
    done = draw(play(extra, "5:track:6>track:11"), "4")
    assert board(done) == layout(2, {"red": ["track:4", "track:11"]})
    assert sorry_hand.to_act(done) == [Pending(1, "move")]


def test_a_2_in_the_extra_play_gives_another() -> None:
    state = position(2, {"red": ["track:6"]}, ("2", "2", "5", "8", "12"), two_plays_again=True)
    extra = draw(play(state, "2:start>track:4"), "3")
    again = draw(play(extra, "2:track:6>track:8"), "4")
    assert sorry_hand.to_act(again) == [Pending(0, "move")]
    assert again.extra


def test_extra_play_without_a_legal_move_passes_without_discard() -> None:
    pawns = {"red": ["lane:3", "home", "home", "home"]}
    state = position(2, pawns, ("2", "5", "7", "8", "12"), two_plays_again=True)
    assert move_ids(state) == {"2:lane:3>lane:5"}
    played = play(state, "2:lane:3>lane:5")
    stuck = sorry_hand.apply(played, CardDrawn(0, "12"))
    assert sorry_hand.to_act(stuck) == []
    assert sorry_hand.automatic(stuck) == [
        TurnPassed(0, "no legal move for the extra play after a 2")
    ]
    passed = settle(sorry_hand, stuck)[0]
    assert hand(passed) == ["5", "7", "8", "12", "12"]
    assert passed.discard == ("2",)
    assert sorry_hand.to_act(passed) == [Pending(1, "move")]


def test_a_discarded_2_gives_no_extra_play() -> None:
    pawns = {"red": ["lane:5", "home", "home", "home"]}
    state = position(2, pawns, ("2", "3", "5", "7", "8"), two_plays_again=True)
    assert move_ids(state) == {f"discard:{card}" for card in ("2", "3", "5", "7", "8")}
    after = draw(play(state, "discard:2"), "7")
    assert sorry_hand.to_act(after) == [Pending(1, "move")]


def test_a_2_discarded_when_declining_gives_no_extra_play() -> None:
    # The 2 cannot move: the red pawn on T1 would enter lane 1, and each lane pawn is blocked.
    pawns = {"red": ["track:1", "lane:1", "lane:3", "lane:5"], "blue": ["track:30"]}
    state = position(2, pawns, ("2", "11", "12", "12", "12"), two_plays_again=True)
    assert "11:decline+discard:2" in move_ids(state)
    after = draw(play(state, "11:decline+discard:2"), "7")
    assert sorry_hand.to_act(after) == [Pending(1, "move")]


def test_declining_in_an_extra_play_still_discards() -> None:
    pawns = {"red": ["track:57", "home", "home", "home"], "blue": ["track:30"]}
    state = position(2, pawns, ("2", "11", "12", "12", "12"), two_plays_again=True)
    extra = draw(play(state, "2:track:57>track:59"), "12")
    assert extra.extra
    assert move_ids(extra) == {
        "11:track:59<>track:30",
        "11:decline+discard:11",
        "11:decline+discard:12",
    }
    done = draw(play(extra, "11:decline+discard:12"), "3")
    assert done.discard == ("2", "12")
    assert sorry_hand.to_act(done) == [Pending(1, "move")]


def test_11_cannot_involve_the_safety_zone() -> None:
    pawns = {"red": ["lane:3", "track:38"], "blue": ["track:30"]}
    state = position(2, pawns, ("11", "11", "11", "11", "12"))
    assert results(state) == {
        "11:track:38>track:49": layout(2, {"red": ["lane:3", "track:49"], "blue": ["track:30"]}),
        "11:track:38<>track:30": layout(2, {"red": ["lane:3", "track:30"], "blue": ["track:38"]}),
        "12:track:38>track:50": layout(2, {"red": ["lane:3", "track:50"], "blue": ["track:30"]}),
    }
    with pytest.raises(IllegalMove, match="not legal"):
        sorry_hand.decide(state, 0, "11:lane:3<>track:30")


def test_split_7_with_mid_slide_landings() -> None:
    state = position(2, {"red": ["track:20", "track:30"]}, ("4", "7", "7", "7", "7"))
    sevens = {
        "7:track:20>track:27": ["track:30"],
        "7:track:30>track:37": ["track:20", "track:37"],
        "7:track:20>track:21+track:30>track:36": ["track:21", "track:36"],
        "7:track:20>track:22+track:30>track:35": ["track:22", "track:35"],
        "7:track:20>track:23+track:30>track:34": ["track:23", "track:34"],
        "7:track:20>track:24+track:30>track:33": ["track:28"],
        "7:track:20>track:25+track:30>track:32": [],
        "7:track:20>track:26+track:30>track:31": ["track:34"],
    }
    fours = {
        "4:track:20>track:16": ["track:19", "track:30"],
        "4:track:30>track:26": ["track:20"],
    }
    assert results(state) == {
        move_id: layout(2, {"red": red}) for move_id, red in {**sevens, **fours}.items()
    }
    reversed_g = sorry_hand.decide(state, 0, "7:track:30>track:32+track:20>track:25")
    assert isinstance(reversed_g[0], MovePlayed)
    assert reversed_g[0].move == "7:track:20>track:25+track:30>track:32"


def test_with_include_sorry_cards() -> None:
    state = position(
        4, {"blue": ["track:17"]}, ("sorry", "3", "3", "4", "5"), include_sorry_cards=True
    )
    assert results(state) == {"sorry:start>track:17": layout(4, {})}
    (move,) = sorry_hand.legal_moves(state, 0)
    assert move.uses == "sorry"
    assert move.effects == (
        Effect("blue-1", "track:17", "start", "sorry! by red-1"),
        Effect("red-1", "track:17", "start", "landed inside the slide of blue"),
    )


def test_reshuffle_when_the_draw_pile_is_empty_at_the_moment_of_drawing() -> None:
    """Case 10 (section 4 step 5): the pile is empty when Red must draw after playing; the
    discards, the card Red just played included, are shuffled into a new pile at the draw. Until
    then the pile shows empty and the discards all there."""
    state = position(2, {"red": ["track:10"]}, ("3", "3", "3", "3", "3"))
    state = replace(state, pile=(), discard=("5", "8"))
    played = play(state, "3:track:10>track:13")
    shown = sorry_hand.view(played, 1)
    assert (shown.draw_pile, shown.discard) == (0, ["5", "8", "3"])
    assert sorry_hand.to_act(played) == [Pending(0, "draw")]
    assert sorry_hand.legal_moves(played, 0) == [Move("draw", 0)]
    assert sorry_hand.chance(played) == Draw(pile=("3", "5", "8"), reshuffled=3)
    shuffled = sorry_hand.apply(played, DeckShuffled(cards=3))
    assert (shuffled.pile, shuffled.discard) == (("3", "5", "8"), ())
    after = draw(shuffled, "3")
    assert hand(after) == ["3", "3", "3", "3", "3"]
    assert (after.pile, after.discard) == (("5", "8"), ())


def test_a_bare_draw_from_an_empty_pile_reshuffles_first() -> None:
    """Bots and analysis apply a draw's outcome alone: it takes the card from the discards."""
    state = position(2, {"red": ["track:10"]}, ("3", "3", "3", "3", "3"))
    state = replace(state, pile=(), discard=("5", "8"))
    played = sorry_hand.apply(state, sorry_hand.decide(state, 0, "3:track:10>track:13")[0])
    assert sorry_hand.automatic(played) == []
    bare = sorry_hand.apply(played, CardDrawn(0, "8"))
    assert bare == sorry_hand.apply(sorry_hand.apply(played, DeckShuffled(3)), CardDrawn(0, "8"))
    assert (bare.pile, bare.discard, hand(bare)) == (("3", "5"), (), ["3", "3", "3", "3", "8"])


# --- setup and options -------------------------------------------------------------------------


def test_options_and_defaults_of_the_rules_file() -> None:
    assert sorry_hand.OPTIONS == {
        "include_sorry_cards": False,
        "mid_slide_landing_returns_to_start": True,
        "two_plays_again": False,
        "fast_start": False,
        "first_player": 0,
    }


def test_default_deck_has_41_cards_without_sorry() -> None:
    pile = sorry_hand.setup({}, 2).pile
    assert len(pile) == 41
    assert Counter(pile) == {"1": 5} | {
        card: 4 for card in ("2", "3", "4", "5", "7", "8", "10", "11", "12")
    }


def test_include_sorry_cards_adds_four_sorry_cards() -> None:
    pile = sorry_hand.setup({"include_sorry_cards": True}, 2).pile
    assert len(pile) == 45
    assert Counter(pile)["sorry"] == 4


def test_fast_start_puts_one_pawn_on_each_start_circle() -> None:
    state = sorry_hand.setup({"fast_start": True}, 3)
    assert board(state) == layout(
        3, {"red": ["track:4"], "blue": ["track:19"], "yellow": ["track:34"]}
    )


def test_first_player_deals_and_plays_first() -> None:
    state = sorry_hand.setup({"first_player": 2}, 3)
    assert sorry_hand.to_act(state) == [Pending(2, "deal")]
    assert [m.id for m in sorry_hand.legal_moves(state, 2)] == ["deal"]
    need = sorry_hand.chance(state)
    assert need == Deal(pile=state.pile, seats=(2, 0, 1), count=5)
    dealt = CardsDealt(
        2, (2, 0, 1), (("3", "7", "1", "12", "5"), ("1", "1", "2", "2", "3"), ("4",) * 4 + ("8",))
    )
    after = sorry_hand.apply(state, dealt)
    assert after.hands == (
        ("1", "1", "2", "2", "3"),
        ("4", "4", "4", "4", "8"),
        ("1", "3", "5", "7", "12"),
    )
    assert len(after.pile) == 41 - 15
    assert sorry_hand.to_act(after) == [Pending(2, "move")]


@pytest.mark.parametrize(
    ("options", "seats", "message"),
    [
        ({"deck": "standard45"}, 2, "unknown option 'deck'"),
        ({"include_sorry_cards": "yes"}, 2, "include_sorry_cards: expected `bool`, got `str`"),
        ({"mid_slide_landing_returns_to_start": 1}, 2, "mid_slide_landing_returns_to_start"),
        ({"two_plays_again": None}, 2, "options.two_plays_again: expected `bool`, got `null`"),
        ({"fast_start": "no"}, 2, "options.fast_start: expected `bool`"),
        ({"first_player": 2}, 2, "first_player must be a seat from 0 to 1"),
        ({"first_player": True}, 2, "options.first_player: expected `int`, got `bool`"),
        ({}, 1, "takes 2 to 4 players"),
        ({}, 5, "takes 2 to 4 players"),
    ],
)
def test_bad_setup(options: dict[str, object], seats: int, message: str) -> None:
    with pytest.raises(BadSetup, match=message):
        sorry_hand.setup(options, seats)


# --- errors ------------------------------------------------------------------------------------


def test_playing_a_card_not_in_the_hand() -> None:
    state = position(2, {"red": ["track:10"]}, ("3", "4", "5", "11", "11"))
    with pytest.raises(IllegalMove, match="card '12' is not in seat 1's hand"):
        sorry_hand.decide(state, 0, "12:track:10>track:22")


def test_discarding_with_a_legal_move() -> None:
    state = position(2, {"red": ["track:10"]}, ("3", "4", "5", "11", "11"))
    with pytest.raises(IllegalMove, match="red cannot discard: it has a legal move"):
        sorry_hand.decide(state, 0, "discard:3")


def test_declining_when_another_move_exists() -> None:
    state = position(2, {"red": ["track:10"], "blue": ["track:30"]}, ("3", "4", "5", "11", "11"))
    assert "11:track:10<>track:30" in move_ids(state)
    assert not any(move_id.startswith("11:decline") for move_id in move_ids(state))
    for declined in ("11:decline", "11:decline+discard:3"):
        with pytest.raises(IllegalMove, match="card '11' cannot be declined: red has a move"):
            sorry_hand.decide(state, 0, declined)


def test_a_dead_hand_has_no_swap_to_decline() -> None:
    state = position(2, {}, ("3", "4", "5", "11", "12"))
    with pytest.raises(IllegalMove, match="card '11' cannot be declined: red has no swap"):
        sorry_hand.decide(state, 0, "11:decline+discard:3")


def test_wrong_count_is_explained() -> None:
    state = position(2, {"red": ["track:10"]}, ("3", "4", "5", "11", "11"))
    with pytest.raises(IllegalMove, match="card '3' moves red-1 from track:10 to track:13"):
        sorry_hand.decide(state, 0, "3:track:10>track:14")
    with pytest.raises(IllegalMove, match="not a move id"):
        sorry_hand.decide(state, 0, "nonsense")


def test_turn_and_phase_errors() -> None:
    state = position(2, {"red": ["track:10"]}, ("3", "4", "5", "11", "11"))
    with pytest.raises(NotYourTurn):
        sorry_hand.decide(state, 1, "1:start>track:19")
    assert sorry_hand.legal_moves(state, 1) == []
    with pytest.raises(IllegalMove, match="must draw a card first"):
        sorry_hand.decide(play(state, "3:track:10>track:13"), 0, "4:track:13>track:9")
    with pytest.raises(IllegalMove, match="must deal first"):
        sorry_hand.decide(sorry_hand.setup({}, 2), 0, "deal")
    with pytest.raises(GameOver):
        sorry_hand.decide(replace(state, finished=True), 0, "3:track:10>track:13")


def test_last_pawn_home_wins_at_once() -> None:
    state = position(2, {"red": ["lane:3", "home", "home", "home"]}, ("3", "4", "5", "7", "8"))
    events = sorry_hand.decide(state, 0, "3:lane:3>home")
    assert events[1] == GameFinished((0,), "red has all 4 pawns home")
    after = play(state, "3:lane:3>home")
    assert after.finished and after.winners == (0,)
    assert sorry_hand.to_act(after) == []
    assert sorry_hand.automatic(after) == []
    assert sorry_hand.chance(after) is None


# --- hidden information ------------------------------------------------------------------------


def test_view_shows_own_hand_and_counts_of_others() -> None:
    state = position(3, {}, ("3", "4", "5", "7", "8"), turn=1)
    assert msgspec.to_builtins(sorry_hand.view(state, 1))["hands"] == [
        {"seat": 0, "count": 5},
        {"seat": 1, "cards": ["3", "4", "5", "7", "8"]},
        {"seat": 2, "count": 5},
    ]
    assert msgspec.to_builtins(sorry_hand.view(state, None))["hands"] == [
        {"seat": s, "count": 5} for s in range(3)
    ]
    assert msgspec.to_builtins(sorry_hand.view(state, "referee"))["hands"] == [
        {"seat": 0, "cards": list(OTHER_HAND)},
        {"seat": 1, "cards": ["3", "4", "5", "7", "8"]},
        {"seat": 2, "cards": list(OTHER_HAND)},
    ]


def test_view_never_shows_the_draw_pile() -> None:
    shown = msgspec.to_builtins(sorry_hand.view(sorry_hand.setup({}, 2), "referee"))
    assert shown["draw_pile"] == 41
    assert "pile" not in shown
    assert shown["chance"] is None


def test_hands_stay_hidden_after_the_end() -> None:
    state = position(2, {"red": ["lane:3", "home", "home", "home"]}, ("3", "4", "5", "7", "8"))
    after = play(state, "3:lane:3>home")
    assert msgspec.to_builtins(sorry_hand.view(after, 1))["hands"][0] == {"seat": 0, "count": 4}
    assert msgspec.to_builtins(sorry_hand.view(after, "referee"))["hands"][0] == {
        "seat": 0,
        "cards": ["4", "5", "7", "8"],
    }


def test_redact_hides_other_seats_dealt_and_drawn_cards() -> None:
    dealt = CardsDealt(0, (0, 1), (("1", "2", "3", "4", "5"), ("7", "8", "10", "11", "12")))
    assert sorry_hand.redact(dealt, 0) == CardsDealt(
        0, (0, 1), (("1", "2", "3", "4", "5"), (HIDDEN,) * 5)
    )
    assert sorry_hand.redact(dealt, 1) == CardsDealt(
        0, (0, 1), ((HIDDEN,) * 5, ("7", "8", "10", "11", "12"))
    )
    assert sorry_hand.redact(dealt, None) == CardsDealt(0, (0, 1), ((HIDDEN,) * 5,) * 2)
    assert sorry_hand.redact(dealt, "referee") == dealt
    drawn = CardDrawn(1, "7")
    assert sorry_hand.redact(drawn, 0) == CardDrawn(1, HIDDEN)
    assert sorry_hand.redact(drawn, None) == CardDrawn(1, HIDDEN)
    assert sorry_hand.redact(drawn, 1) == drawn
    played = MovePlayed(1, "discard:7", "7")
    assert sorry_hand.redact(played, 0) == played


SWAP_ONLY: Layout = {"red": ["track:58", "home", "home", "home"], "blue": ["track:30"]}
"""Case 4 of section 7: with {11, 11, 12, 12, 12} red's only moves are 11 swaps."""


def whole_turn(state: State, move_id: str, drawn: str) -> tuple[State, list[Event]]:
    """The seat to act decides ``move_id`` and draws ``drawn``: the state after and the log."""
    log = sorry_hand.decide(state, state.turn, move_id)
    for event in log:
        state = sorry_hand.apply(state, event)
    state, more = settle(sorry_hand, state)
    draw_event = CardDrawn(state.turn, drawn)
    state, after = settle(sorry_hand, sorry_hand.apply(state, draw_event))
    return state, [*log, *more, draw_event, *after]


PUBLIC_VIEW = ("to_act", "hands", "discard", "draw_pile", "turn", "extra_play", "status")
"""What a view shows besides the board (which differs between the two positions below)."""


def test_declined_eleven_looks_like_a_discard_to_others() -> None:
    declining = position(3, SWAP_ONLY, ("11", "11", "12", "12", "12"))
    dead = position(3, {}, ("3", "4", "5", "8", "12"))  # all in Start, no 1 or 2: dead hand
    assert "11:decline+discard:12" in move_ids(declining)
    assert move_ids(dead) == {f"discard:{card}" for card in ("3", "4", "5", "8", "12")}
    declined_state, declined = whole_turn(declining, "11:decline+discard:12", "7")
    discarded_state, discarded = whole_turn(dead, "discard:12", "7")
    for viewer in (1, 2, None):
        for key in PUBLIC_VIEW:
            assert (
                msgspec.to_builtins(sorry_hand.view(declining, viewer))[key]
                == msgspec.to_builtins(sorry_hand.view(dead, viewer))[key]
            )
            assert (
                msgspec.to_builtins(sorry_hand.view(declined_state, viewer))[key]
                == msgspec.to_builtins(sorry_hand.view(discarded_state, viewer))[key]
            )
        seen = [sorry_hand.redact(event, viewer) for event in declined]
        assert seen == [sorry_hand.redact(event, viewer) for event in discarded]
        assert seen == [MovePlayed(0, "discard:12", "12"), CardDrawn(0, HIDDEN)]
    assert sorry_hand.view(declining, None).to_act == [Pending(0, "move")]
    for viewer in (0, "referee"):
        assert [sorry_hand.redact(event, viewer) for event in declined] == declined
        assert declined == [MovePlayed(0, "11:decline+discard:12", "12"), CardDrawn(0, "7")]
        assert [sorry_hand.redact(event, viewer) for event in discarded] == discarded


def test_declining_by_discarding_the_11_shows_only_the_discarded_11() -> None:
    # The rules put the discarded card face up, so others see an 11 go: as at a table.
    declining = position(2, SWAP_ONLY, ("11", "11", "12", "12", "12"))
    (event,) = sorry_hand.decide(declining, 0, "11:decline+discard:11")
    assert sorry_hand.redact(event, 1) == MovePlayed(0, "discard:11", "11")
    assert sorry_hand.redact(event, None) == MovePlayed(0, "discard:11", "11")
    assert sorry_hand.redact(event, 0) == event


def test_a_dead_hand_and_a_swap_only_hand_both_wait_for_a_move() -> None:
    # The pending kind is in every viewer's view, so it must not depend on the hand.
    swap_only = position(2, SWAP_ONLY, ("11", "11", "12", "12", "12"))
    dead = position(2, {}, ("3", "4", "5", "8", "12"))
    playable = position(2, SWAP_ONLY, ("1", "4", "5", "8", "12"))
    assert move_ids(dead) == {f"discard:{card}" for card in ("3", "4", "5", "8", "12")}
    assert "1:track:58>track:59" in move_ids(playable)
    for state in (swap_only, dead, playable):
        assert sorry_hand.to_act(state) == [Pending(0, "move")]


HAND_CARDS = frozenset(sorry.CARDS)
TURN_PASSED_REASONS = {"no legal move for the extra play after a 2"}


def cards_named(event: Event) -> list[str]:
    """Every card an event names (hidden ones left out): in hands, ``card``, ``uses`` and the
    move id (its leading card and each ``discard:<card>`` part)."""
    match event:
        case CardsDealt(hands=hands):
            named = [card for cards in hands for card in cards]
        case CardDrawn(card=card):
            named = [card]
        case MovePlayed(move=move, uses=uses):
            named = [uses] if isinstance(uses, str) else []
            for part in move.split("+"):
                head, _, rest = part.partition(":")
                named.append(rest if head == "discard" else head)
        case TurnPassed(reason=reason):
            assert reason in TURN_PASSED_REASONS
            named = []
        case _:
            named = []
    return [card for card in named if card in HAND_CARDS]


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    seats=st.integers(2, 4),
    options=st.fixed_dictionaries(
        {
            "two_plays_again": st.booleans(),
            "include_sorry_cards": st.booleans(),
            "fast_start": st.booleans(),
        }
    ),
)
def test_redacted_events_never_name_a_hidden_card(
    seed: int, seats: int, options: dict[str, bool]
) -> None:
    """For every viewer but the acting seat (spectators included), an event names no card of a
    hand except the one it puts face up (a played or discarded card), and every decision
    without steps looks like a dead hand's discard."""
    viewers: list[Viewer] = [*range(seats), None]
    state = sorry_hand.setup(dict(options), seats)
    for _, events in random_game(seed, seats, **options):
        for event in events:
            actor = getattr(event, "seat", getattr(event, "dealer", None))
            for viewer in viewers:
                shown = sorry_hand.redact(event, viewer)
                public = Counter[str]()
                if isinstance(event, MovePlayed) and isinstance(event.uses, str):
                    public[event.uses] = 1
                if viewer is not None:
                    if isinstance(event, CardsDealt):
                        public.update(event.hands[event.seats.index(viewer)])
                    if isinstance(event, CardDrawn) and event.seat == viewer:
                        public[event.card] = 1
                named = Counter(cards_named(shown))
                if isinstance(shown, MovePlayed) and shown.seat != viewer:
                    assert set(named) <= set(public), (shown, viewer)
                    assert "decline" not in shown.move
                    if not shown.steps:
                        assert shown == MovePlayed(shown.seat, f"discard:{shown.uses}", shown.uses)
                elif viewer != actor:
                    assert not named - public, (shown, viewer)
            state = sorry_hand.apply(state, event)
        if isinstance(event, MovePlayed) and isinstance(event.uses, str) and state.discard:
            assert state.discard[-1] == event.uses  # the named card went face up
    assert state.finished


def deal_event(need: Deal, seat: int, rng: random.Random) -> CardsDealt:
    """A random deal, one card at a time to each seat in turn."""
    pile = sorted(need.pile)
    hands: list[list[str]] = [[] for _ in need.seats]
    for part in range(len(need.seats) * need.count):
        hands[part % len(need.seats)].append(pile.pop(rng.randrange(len(pile))))
    return CardsDealt(seat, need.seats, tuple(tuple(cards) for cards in hands))


def random_game(seed: int, seats: int, **options: object) -> Iterator[tuple[State, list[Event]]]:
    """(state, events) after each action of a random game, deal and draws included."""
    rng = random.Random(seed)
    state, _ = settle(sorry_hand, sorry_hand.setup(dict(options), seats))
    while pending := sorry_hand.to_act(state):
        (who,) = pending
        if who.kind in CHANCE_KINDS:
            need = sorry_hand.chance(state)
            if isinstance(need, Deal):
                batch: list[Event] = [deal_event(need, who.seat, rng)]
            else:
                assert isinstance(need, Draw)
                batch = [DeckShuffled(need.reshuffled)] if need.reshuffled else []
                batch.append(CardDrawn(who.seat, rng.choice(sorted(need.pile))))
        else:
            moves = sorry_hand.legal_moves(state, who.seat)
            assert moves
            batch = sorry_hand.decide(state, who.seat, rng.choice(moves).id)
        for event in batch:
            state = sorry_hand.apply(state, event)
        state, more = settle(sorry_hand, state)
        yield state, batch + more


@pytest.mark.parametrize(
    ("seed", "seats", "options"),
    [
        (1, 2, {}),
        (2, 3, {"two_plays_again": True, "include_sorry_cards": True}),
        (3, 4, {"mid_slide_landing_returns_to_start": False, "fast_start": True}),
    ],
)
def test_random_game_never_leaks_another_seats_cards(
    seed: int, seats: int, options: dict[str, object]
) -> None:
    total = len(sorry_hand.setup(dict(options), seats).pile)
    state = sorry_hand.setup(dict(options), seats)
    for state, events in random_game(seed, seats, **options):
        assert sum(map(len, state.hands)) + len(state.pile) + len(state.discard) == total
        for viewer in range(seats):
            shown = msgspec.to_builtins(sorry_hand.view(state, viewer))["hands"]
            for entry in shown:
                if entry["seat"] == viewer:
                    assert entry == {"seat": viewer, "cards": list(state.hands[viewer])}
                else:
                    assert entry == {
                        "seat": entry["seat"],
                        "count": len(state.hands[entry["seat"]]),
                    }
            if all(pending.seat != viewer for pending in sorry_hand.to_act(state)):
                assert sorry_hand.legal_moves(state, viewer) == []
            msgspec.json.encode(sorry_hand.view(state, viewer))
            for event in events:
                check_redacted(sorry_hand.redact(event, viewer), event, viewer)
    assert state.finished and state.winners


def check_redacted(shown: Event, event: Event, viewer: int) -> None:
    """Only the viewer's own dealt or drawn cards are visible; everything else is public."""
    match event:
        case CardsDealt(seats=seats, hands=hands):
            assert isinstance(shown, CardsDealt)
            for seat, cards, seen in zip(seats, hands, shown.hands, strict=True):
                assert seen == (cards if seat == viewer else (HIDDEN,) * len(cards))
        case CardDrawn(seat=seat, card=card):
            assert shown == CardDrawn(seat, card if seat == viewer else HIDDEN)
        case MovePlayed(seat=seat, move=move, uses=str(card)) if move.startswith("11:decline+"):
            assert shown == (event if seat == viewer else MovePlayed(seat, f"discard:{card}", card))
        case _:
            assert shown == event


def test_random_game_events_survive_encoding() -> None:
    for _, events in random_game(7, 2):
        for event in events:
            encoded = msgspec.json.encode(event)
            assert msgspec.json.decode(encoded, type=type(event)) == event
