"""Sorry! (rule set ``sorry``): the tricky cases of rules/sorry.md section 7, then the rules."""

from __future__ import annotations

from collections import Counter

import msgspec
import pytest
from msgspec.structs import replace

from domain import sorry
from domain.events import CardDrawn, DeckShuffled, GameFinished, MovePlayed, TurnPassed
from domain.model import (
    COLOURS,
    BadSetup,
    Draw,
    Effect,
    GameOver,
    IllegalMove,
    Move,
    NotYourTurn,
    Pending,
    Step,
)
from domain.replay import settle

Layout = dict[str, list[str]]


def position(seats: int, pawns: Layout, card: str | None = None, turn: int = 0) -> sorry.State:
    """A game with the listed pawns (the others in Start) and ``card`` drawn by ``turn``."""
    state = sorry.setup({"first_player": turn}, seats)
    locs = list(state.pawns)
    for colour, places in pawns.items():
        seat = COLOURS.index(colour)
        for number, place in enumerate(places):
            locs[seat * sorry.PAWNS + number] = sorry.CODE[place]
    state = replace(state, pawns=tuple(locs))
    return state if card is None else sorry.apply(state, CardDrawn(turn, card))


def board(state: sorry.State) -> Layout:
    """Every colour's pawn locations, sorted (pawns of one colour are interchangeable)."""
    pieces = sorry.view(state, None).pieces
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


def move_ids(state: sorry.State) -> set[str]:
    """The legal move ids of the seat to act (checking there are no duplicates)."""
    moves = sorry.legal_moves(state, state.turn)
    ids = [move.id for move in moves]
    assert len(ids) == len(set(ids)), f"duplicate moves: {ids}"
    return set(ids)


def play(state: sorry.State, move_id: str) -> sorry.State:
    """Decide and apply a move, then the automatic events."""
    for event in sorry.decide(state, state.turn, move_id):
        state = sorry.apply(state, event)
    settled: sorry.State = settle(sorry, state)[0]
    return settled


def results(state: sorry.State) -> dict[str, Layout]:
    """Each legal move's resulting board."""
    return {move_id: board(play(state, move_id)) for move_id in move_ids(state)}


def forfeits(state: sorry.State, reason: str) -> None:
    """The card has no legal move: nobody is asked, the card is discarded automatically."""
    assert sorry.legal_moves(state, state.turn) == []
    assert sorry.to_act(state) == []
    assert sorry.automatic(state) == [TurnPassed(state.turn, reason)]


# --- section 7: tricky cases ------------------------------------------------------------------


def test_case_01_start_onto_an_occupied_start_circle_bumps() -> None:
    state = position(2, {"blue": ["track:4"]}, "1")
    assert results(state) == {
        "1:start>track:4": layout(2, {"red": ["track:4"]}),
    }
    (move,) = sorry.legal_moves(state, 0)
    assert move.steps == (Step("red-1", "start", "track:4"),)
    assert move.effects == (Effect("blue-1", "track:4", "start", "bumped by red-1"),)


def test_case_02_two_with_start_circle_blocked_by_own_pawn() -> None:
    state = position(2, {"red": ["track:4"]}, "2")
    assert results(state) == {"2:track:4>track:6": layout(2, {"red": ["track:6"]})}
    after = play(state, "2:track:4>track:6")
    assert sorry.to_act(after) == [Pending(0, "draw")], "a 2 draws again"


def test_case_03_two_without_any_legal_move_still_draws_again() -> None:
    state = position(2, {"red": ["lane:5", "home", "home", "home"]}, "2")
    forfeits(state, "no legal move for card '2'; red draws again")
    after, _ = settle(sorry, state)
    assert after.discard == ("2",)
    assert board(after) == board(state)
    assert sorry.to_act(after) == [Pending(0, "draw")]


def test_case_04_landing_on_a_foreign_slide_sweeps_it_own_pawns_included() -> None:
    pawns = {"green": ["track:6", "track:11"], "blue": ["track:10"], "red": ["track:12"]}
    state = position(4, pawns, "3", turn=3)
    assert results(state) == {
        "3:track:6>track:9": layout(4, {"green": ["track:13"]}),
        "3:track:11>track:14": layout(
            4, {"green": ["track:14", "track:6"], "blue": ["track:10"], "red": ["track:12"]}
        ),
    }
    slide = next(m for m in sorry.legal_moves(state, 3) if m.id == "3:track:6>track:9")
    assert [(e.piece, e.to) for e in slide.effects] == [
        ("green-1", "track:13"),
        ("blue-1", "start"),
        ("green-2", "start"),
        ("red-1", "start"),
    ]


def test_case_05_own_colour_slide_is_not_used() -> None:
    state = position(2, {"red": ["track:6"]}, "3")
    assert results(state) == {"3:track:6>track:9": layout(2, {"red": ["track:9"]})}


def test_case_06_turning_into_the_safety_zone_ten_both_ways() -> None:
    state = position(2, {"red": ["track:58"]}, "10")
    assert results(state) == {
        "10:track:58>home": layout(2, {"red": ["home"]}),
        "10:track:58>track:57": layout(2, {"red": ["track:57"]}),
    }
    for card in ("11", "12"):
        forfeits(position(2, {"red": ["track:58"]}, card), f"no legal move for card '{card}'")


def test_case_07_backward_shortcut() -> None:
    state = position(2, {"red": ["track:4"]}, "4")
    assert results(state) == {"4:track:4>track:0": layout(2, {"red": ["track:0"]})}
    three = position(2, {"red": ["track:0"]}, "3")
    assert results(three) == {"3:track:0>lane:1": layout(2, {"red": ["lane:1"]})}
    one = position(2, {"red": ["track:0"]}, "1")
    assert results(one) == {
        "1:track:0>track:1": layout(2, {"red": ["track:1"]}),
        "1:start>track:4": layout(2, {"red": ["track:0", "track:4"]}),
    }


def test_case_08_backward_move_ending_on_a_foreign_triangle_slides() -> None:
    # Seats are colours in order, so yellow needs 3 seats; blue has no pawn on the board,
    # which is what "blue not playing" means for the slide (see also the 2-player mirror below).
    state = position(3, {"red": ["track:28"], "yellow": ["track:26"]}, "4")
    assert results(state) == {"4:track:28>track:24": layout(3, {"red": ["track:28"]})}


def test_case_09_split_seven_with_a_pawn_in_the_safety_zone() -> None:
    state = position(2, {"red": ["track:20", "lane:2"]}, "7")
    assert results(state) == {
        "7:track:20>track:27": layout(2, {"red": ["track:27", "lane:2"]}),
        "7:track:20>track:26+lane:2>lane:3": layout(2, {"red": ["track:26", "lane:3"]}),
        "7:track:20>track:25+lane:2>lane:4": layout(2, {"red": ["track:25", "lane:4"]}),
        "7:track:20>track:24+lane:2>lane:5": layout(2, {"red": ["track:28", "lane:5"]}),
        "7:track:20>track:23+lane:2>home": layout(2, {"red": ["track:23", "home"]}),
    }


def test_case_10_split_seven_where_the_order_of_the_parts_matters() -> None:
    state = position(2, {"red": ["track:20", "track:22"]}, "7")  # P = red-1, Q = red-2

    def red(p: str, q: str) -> Layout:
        return layout(2, {"red": [at for at in (p, q) if at != "start"]})

    assert results(state) == {
        "7:track:20>track:27": red("track:27", "track:22"),  # (a)
        "7:track:22>track:29": red("track:20", "track:29"),  # (b)
        "7:track:20>track:21+track:22>track:28": red("track:21", "track:28"),  # (c)
        "7:track:22>track:27+track:20>track:22": red("track:22", "track:27"),  # (d) Q first
        "7:track:20>track:23+track:22>track:26": red("track:23", "track:26"),  # (e)
        "7:track:20>track:24+track:22>track:25": red("track:28", "track:25"),  # (f)
        "7:track:22>track:25+track:20>track:24": red("track:28", "start"),  # (g)
        "7:track:20>track:25+track:22>track:24": red("start", "track:28"),  # (h)
        "7:track:22>track:24+track:20>track:25": red("track:25", "track:28"),  # (i)
        "7:track:20>track:26+track:22>track:23": red("track:26", "track:23"),  # (j)
    }
    (h,) = (
        m for m in sorry.legal_moves(state, 0) if m.id == "7:track:20>track:25+track:22>track:24"
    )
    assert h.steps == (
        Step("red-1", "track:20", "track:25"),
        Step("red-2", "track:22", "track:24"),
    )
    assert h.effects == (
        Effect("red-2", "track:24", "track:28", "slide of blue"),
        Effect("red-1", "track:25", "start", "swept by the slide of red-2"),
    )


def test_case_11_eleven_when_forward_is_impossible_swap_is_optional() -> None:
    state = position(2, {"red": ["track:58", "home", "home", "home"], "blue": ["track:30"]}, "11")
    assert results(state) == {
        "11:track:58<>track:30": layout(
            2, {"red": ["track:30", "home", "home", "home"], "blue": ["track:58"]}
        ),
        "decline": board(state),
    }
    declined = play(state, "decline")
    assert declined.discard == ("11",)
    assert sorry.to_act(declined) == [Pending(1, "draw")]


def test_case_12_eleven_when_forward_is_possible_a_move_is_compulsory() -> None:
    state = position(3, {"red": ["track:5"], "yellow": ["track:46", "track:48"]}, "11")
    assert results(state) == {
        "11:track:5>track:16": layout(3, {"red": ["track:19"], "yellow": ["track:46", "track:48"]}),
        "11:track:5<>track:46": layout(3, {"red": ["track:49"], "yellow": ["track:5"]}),
        "11:track:5<>track:48": layout(3, {"red": ["track:48"], "yellow": ["track:46", "track:5"]}),
    }
    with pytest.raises(IllegalMove, match="cannot be declined: a forward 11 is possible"):
        sorry.decide(state, 0, "decline")


def test_case_13_sorry_onto_a_triangle_slides() -> None:
    pawns = {"blue": ["track:16"], "yellow": ["lane:2"], "green": ["track:46"]}
    state = position(4, pawns, "sorry")
    assert results(state) == {
        "sorry:start>track:16": layout(
            4, {"red": ["track:19"], "yellow": ["lane:2"], "green": ["track:46"]}
        ),
        "sorry:start>track:46": layout(
            4, {"red": ["track:49"], "blue": ["track:16"], "yellow": ["lane:2"]}
        ),
    }


def test_case_14_sorry_without_a_pawn_in_start_or_without_a_target() -> None:
    no_pawn = {"red": ["track:10", "track:30", "home", "home"], "blue": ["track:20"]}
    forfeits(position(2, no_pawn, "sorry"), "no legal move for card 'sorry'")
    no_target = {"blue": ["lane:1"], "yellow": ["home"]}
    forfeits(position(4, no_target, "sorry"), "no legal move for card 'sorry'")
    state = position(2, {"blue": ["track:16"]}, "sorry")
    with pytest.raises(IllegalMove, match="needs an opponent pawn on the track at track:17"):
        sorry.decide(state, 0, "sorry:start>track:17")


def test_case_15_leaving_the_safety_zone_backward() -> None:
    pawns = {"red": ["lane:1", "home", "home", "home"]}
    assert results(position(2, pawns, "10")) == {
        "10:lane:1>track:2": layout(2, {"red": ["track:2", "home", "home", "home"]}),
    }
    assert results(position(2, pawns, "4")) == {
        "4:lane:1>track:59": layout(2, {"red": ["track:59", "home", "home", "home"]}),
    }


def test_case_16_own_pawn_blocks_a_destination() -> None:
    state = position(2, {"red": ["track:10", "track:13", "home", "home"]}, "3")
    assert results(state) == {
        "3:track:13>track:16": layout(2, {"red": ["track:10", "track:19", "home", "home"]}),
    }
    with pytest.raises(IllegalMove, match="cannot move red-1 to track:13: an own pawn is there"):
        sorry.decide(state, 0, "3:track:10>track:13")


# --- further rules ----------------------------------------------------------------------------


def test_setup_puts_every_pawn_in_start_and_the_full_deck_to_draw() -> None:
    state = sorry.setup({}, 3)
    assert board(state) == layout(3, {})
    assert Counter(state.pile) == Counter({**dict.fromkeys(sorry.CARDS, 4), "1": 5})
    assert sorry.to_act(state) == [Pending(0, "draw")]
    assert sorry.legal_moves(state, 0) == [Move("draw", 0)]
    assert sorry.legal_moves(state, 1) == []
    assert sorry.chance(state) == Draw(pile=state.pile)


def test_options_classic_deck_fast_start_and_first_player() -> None:
    state = sorry.setup({"deck": "classic44", "fast_start": True, "first_player": 2}, 4)
    assert len(state.pile) == 44
    assert board(state) == layout(
        4,
        {
            "red": ["track:4"],
            "blue": ["track:19"],
            "yellow": ["track:34"],
            "green": ["track:49"],
        },
    )
    assert sorry.to_act(state) == [Pending(2, "draw")]


@pytest.mark.parametrize(
    ("options", "seats", "message"),
    [
        ({"deck": "full"}, 2, "options.deck: invalid value 'full'; sorry allows one of"),
        ({"fast_start": "yes"}, 2, "fast_start: expected `bool`, got `str`; sorry allows true"),
        ({"first_player": 2}, 2, "first_player must be a seat from 0 to 1"),
        ({"first_player": True}, 2, "options.first_player: expected `int`, got `bool`"),
        ({"jokers": 2}, 2, "unknown option 'jokers'"),
        ({}, 5, "takes 2 to 4 players"),
        ({}, 1, "takes 2 to 4 players"),
    ],
)
def test_bad_setup_is_refused(options: dict[str, object], seats: int, message: str) -> None:
    with pytest.raises(BadSetup, match=message):
        sorry.setup(options, seats)


@pytest.mark.parametrize("card", ["3", "4", "5", "7", "8", "10", "11", "12"])
def test_only_one_two_and_sorry_start_a_pawn(card: str) -> None:
    forfeits(position(2, {"blue": ["track:10"]}, card), f"no legal move for card '{card}'")


def test_two_plays_then_draws_again_and_other_cards_pass_the_turn() -> None:
    after_two = play(position(2, {}, "2"), "2:start>track:4")
    assert (after_two.turn, after_two.discard) == (0, ("2",))
    after_one = play(position(2, {}, "1"), "1:start>track:4")
    assert sorry.to_act(after_one) == [Pending(1, "draw")]


def test_four_moves_backward_across_track_zero_without_entering_the_lane() -> None:
    alone = position(2, {"red": ["track:5"]}, "4")
    assert results(alone) == {"4:track:5>track:1": layout(2, {"red": ["track:1"]})}
    state = position(2, {"red": ["track:5", "track:1"]}, "4")
    assert results(state) == {
        "4:track:1>track:57": layout(2, {"red": ["track:5", "track:57"]}),
    }, "track:5 cannot go back to track:1, which holds an own pawn"


def test_seven_never_starts_a_pawn_and_must_be_used_whole() -> None:
    assert move_ids(position(2, {"red": ["track:10"]}, "7")) == {"7:track:10>track:17"}
    forfeits(position(2, {"red": ["lane:3"]}, "7"), "no legal move for card '7'")


def test_split_in_the_other_order_is_the_same_move_when_the_result_is_the_same() -> None:
    state = position(2, {"red": ["track:20", "lane:2"]}, "7")
    (played,) = sorry.decide(state, 0, "7:lane:2>lane:3+track:20>track:26")
    assert isinstance(played, MovePlayed)
    assert played.move == "7:track:20>track:26+lane:2>lane:3"


def test_ten_goes_forward_ten_or_back_one_for_any_pawn() -> None:
    state = position(2, {"red": ["track:30", "lane:2"]}, "10")
    assert move_ids(state) == {"10:track:30>track:40", "10:track:30>track:29", "10:lane:2>lane:1"}


def test_eleven_without_forward_and_without_opponents_on_the_track_forfeits() -> None:
    state = position(2, {"red": ["track:58", "home", "home", "home"], "blue": ["lane:3"]}, "11")
    forfeits(state, "no legal move for card '11'")


def test_swap_onto_a_foreign_triangle_slides_but_the_swapped_opponent_never_does() -> None:
    state = position(2, {"red": ["track:31"], "blue": ["track:46"]}, "11")
    swap = next(m for m in sorry.legal_moves(state, 0) if m.id == "11:track:31<>track:46")
    assert swap.steps == (Step("red-1", "track:31", "track:46"),)
    assert swap.effects == (
        Effect("blue-1", "track:46", "track:31", "swapped with red-1"),
        Effect("red-1", "track:46", "track:49", "slide of green"),
    )
    assert board(play(state, swap.id)) == layout(2, {"red": ["track:49"], "blue": ["track:31"]})


def test_swap_onto_an_own_triangle_does_not_slide() -> None:
    state = position(2, {"red": ["track:31"], "blue": ["track:9"]}, "11")
    assert board(play(state, "11:track:31<>track:9")) == layout(
        2, {"red": ["track:9"], "blue": ["track:31"]}
    )


def test_backward_landing_on_an_unused_colours_triangle_slides() -> None:
    state = position(2, {"red": ["track:43"], "blue": ["track:41"]}, "4")
    assert results(state) == {"4:track:43>track:39": layout(2, {"red": ["track:43"]})}


def test_passing_over_a_triangle_does_nothing() -> None:
    state = position(2, {"red": ["track:15"], "blue": ["track:18"]}, "3")
    assert results(state) == {
        "3:track:15>track:18": layout(2, {"red": ["track:18"]}),
    }


def test_exact_count_needed_for_home_and_the_last_pawn_home_wins() -> None:
    pawns = {"red": ["lane:3", "home", "home", "home"]}
    forfeits(position(2, pawns, "5"), "no legal move for card '5'")
    state = position(2, pawns, "3")
    events = sorry.decide(state, 0, "3:lane:3>home")
    assert events[1:] == [GameFinished((0,), "red has all 4 pawns home")]
    for event in events:
        state = sorry.apply(state, event)
    assert (state.finished, state.winners) == (True, (0,))
    assert sorry.to_act(state) == []
    assert sorry.automatic(state) == []
    assert sorry.view(state, None).status == "finished"
    with pytest.raises(GameOver):
        sorry.decide(state, 0, "draw")


def test_winning_with_a_two_ends_the_game_without_another_draw() -> None:
    state = position(2, {"red": ["lane:4", "home", "home", "home"]}, "2")
    events = sorry.decide(state, 0, "2:lane:4>home")
    for event in events:
        state = sorry.apply(state, event)
    assert state.finished
    assert sorry.to_act(state) == []
    assert sorry.chance(state) is None


def test_rule_4_1_discards_reshuffled_at_the_next_draw_that_finds_the_pile_empty() -> None:
    full = sorry.setup({}, 2).pile
    five = full.index("5")
    state = replace(sorry.setup({}, 2), pile=("5",), discard=full[:five] + full[five + 1 :])
    state = sorry.apply(state, CardDrawn(0, "5"))
    state, passed = settle(sorry, state)
    assert passed == [TurnPassed(0, "no legal move for card '5'")]
    shown = sorry.view(state, None)
    assert (shown.draw_pile, len(shown.discard)) == (0, 45)
    assert sorry.to_act(state) == [Pending(1, "draw")]
    assert sorry.chance(state) == Draw(pile=full, reshuffled=45)
    state = sorry.apply(state, DeckShuffled(cards=45))
    assert (state.pile, state.discard) == (full, ())
    state = sorry.apply(state, CardDrawn(1, "7"))
    assert len(state.pile) == 44 and state.card == "7"


def test_a_bare_draw_from_an_empty_pile_reshuffles_first() -> None:
    """Bots and analysis apply a draw's outcome alone: it takes the card from the discards."""
    full = sorry.setup({}, 2).pile
    state = replace(sorry.setup({}, 2), pile=(), discard=full)
    assert sorry.automatic(state) == []
    drawn = sorry.apply(state, CardDrawn(0, "sorry"))
    assert drawn == sorry.apply(sorry.apply(state, DeckShuffled(cards=45)), CardDrawn(0, "sorry"))
    assert (len(drawn.pile), drawn.discard, drawn.card) == (44, (), "sorry")


def test_decide_refuses_with_reasons() -> None:
    state = position(2, {"red": ["track:20", "lane:2"]}, "7")
    with pytest.raises(NotYourTurn, match="it is seat 1's turn, not seat 2's"):
        sorry.decide(state, 1, "7:track:20>track:27")
    with pytest.raises(IllegalMove, match="card '7' cannot move red-2 7 squares: it would pass"):
        sorry.decide(state, 0, "7:lane:2>home")
    with pytest.raises(IllegalMove, match="uses card '3', but the card drawn is '7'"):
        sorry.decide(state, 0, "3:track:20>track:23")
    with pytest.raises(IllegalMove, match="card '7' cannot move a pawn out of start"):
        sorry.decide(state, 0, "7:start>track:4+track:20>track:26")
    with pytest.raises(IllegalMove, match="no red pawn is there"):
        sorry.decide(state, 0, "7:track:21>track:28")
    with pytest.raises(IllegalMove, match="must move forward 7 squares in all"):
        sorry.decide(state, 0, "7:track:20>track:22+lane:2>lane:3")
    with pytest.raises(IllegalMove, match="is not a move id"):
        sorry.decide(state, 0, "7:somewhere")
    with pytest.raises(IllegalMove, match="only an 11 swap can be declined"):
        sorry.decide(state, 0, "decline")
    drawing = position(2, {})
    with pytest.raises(IllegalMove, match="red must draw a card first"):
        sorry.decide(drawing, 0, "1:start>track:4")


def test_view_shows_the_card_the_piles_and_the_pieces() -> None:
    state = position(2, {"red": ["track:4"]}, "2")
    shown = msgspec.to_builtins(sorry.view(state, 1))
    assert shown["status"] == "active"
    assert shown["chance"] == {"card": "2"}
    assert shown["to_act"] == [{"seat": 0, "kind": "move"}]
    assert shown["draw_pile"] == 44
    assert shown["discard"] == []
    assert shown["winners"] == []
    assert [(p["id"], p["at"]) for p in shown["pieces"]][:2] == [
        ("red-1", "track:4"),
        ("red-2", "start"),
    ]
