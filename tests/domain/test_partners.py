"""Partners (rules/partners.md): the tricky cases of section 7, options, deals, exchange,
hidden information, and random games (the shared playout cannot deal cards yet)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import msgspec
import pytest
from msgspec.structs import replace

from domain import partners
from domain.events import (
    CardExchanged,
    CardsDealt,
    DeckShuffled,
    Event,
    GameFinished,
    MovePlayed,
    TurnPassed,
    event_data,
    event_type,
    parse_event,
)
from domain.model import (
    CHANCE_KINDS,
    HIDDEN,
    BadSetup,
    Deal,
    GameOver,
    IllegalMove,
    Move,
    NotYourTurn,
    Pending,
    Viewer,
)
from domain.partners import State
from domain.replay import settle

SEAT = {"Y": 0, "R": 1, "B": 2, "G": 3}


def position(
    spec: str, hands: dict[int, str] | None = None, turn: int = 0, **options: Any
) -> State:
    """A play-phase state from the notation of partners.md section 7 (``Y@P10``, ``B@L2``);
    pawns not mentioned are in their circles; ``hands`` are space-separated card ids."""
    state = partners.setup(options, 4)
    geo = partners.geometry(state.length)
    pawns = [geo.circle] * 16
    placed = [0] * 4
    for token in spec.split():
        letter, _, at = token.partition("@")
        seat = SEAT[letter]
        loc = int(at[1:]) if at[0] == "P" else geo.track + int(at[1:]) - 1
        pawns[seat * 4 + placed[seat]] = loc
        placed[seat] += 1
    given = hands or {}
    dealt = tuple(
        tuple(sorted(given.get(s, "").split(), key=partners.CARD_RANK.__getitem__))
        for s in range(4)
    )
    return replace(state, pawns=tuple(pawns), hands=dealt, phase="play", turn=turn, deals=1)


def notation(state: State) -> str:
    """The pawns outside their circles, in section 7's notation, sorted."""
    geo = partners.geometry(state.length)
    tokens = []
    for pawn, loc in enumerate(state.pawns):
        if loc == geo.circle:
            continue
        where = f"P{loc}" if loc < geo.track else f"L{loc - geo.track + 1}"
        tokens.append(f"{'YRBG'[pawn // 4]}@{where}")
    return " ".join(sorted(tokens))


def norm(spec: str) -> str:
    return " ".join(sorted(spec.split()))


def play(state: State, seat: int, move_id: str) -> State:
    for event in partners.decide(state, seat, move_id):
        state = partners.apply(state, event)
    return state


def outcomes(state: State, seat: int | None = None) -> dict[str, str]:
    """Every legal move of the seat to play and the position it leads to."""
    who = state.turn if seat is None else seat
    return {
        move.id: notation(play(state, who, move.id)) for move in partners.legal_moves(state, who)
    }


def expect(state: State, expected: dict[str, str], seat: int | None = None) -> None:
    assert outcomes(state, seat) == {move: norm(spec) for move, spec in expected.items()}


def move_of(state: State, move_id: str) -> Move:
    return next(m for m in partners.legal_moves(state, state.turn) if m.id == move_id)


# --- section 7: tricky cases --------------------------------------------------------------------


def test_start_with_capture() -> None:
    state = position("R@P0", {0: "START"})
    expect(state, {"START:start>track:0": "Y@P0"})
    effects = move_of(state, "START:start>track:0").effects
    assert [(e.piece, e.from_, e.to) for e in effects] == [("red-1", "track:0", "start")]


def test_start_with_capture_refused_by_a_stack() -> None:
    state = position("R@P0 R@P0", {0: "START"})
    expect(state, {})
    assert partners.automatic(state) == [
        TurnPassed(0, "no card has a legal move: yellow lays down START")
    ]


def test_blocked_start_space() -> None:
    green = position("Y@P0 G@P57 B@P58", {3: "N2 N3 N5"}, turn=3)
    expect(green, {"N2:track:57>track:59": "Y@P0 G@P59 B@P58"})
    blue = position("Y@P0 G@P57 B@P58", {2: "N3 ONE_14"}, turn=2)
    expect(blue, {"ONE_14:track:58>track:59": "Y@P0 G@P57 B@P59"})


def test_opponent_stack() -> None:
    state = position("R@P20 R@P20 Y@P17", {0: "N3 N5 SWAP"})
    expect(
        state,
        {
            "N3:track:17>track:20": "R@P20 R@P20",
            "N5:track:17>track:22": "R@P20 R@P20 Y@P22",
        },
    )
    effects = move_of(state, "N3:track:17>track:20").effects
    assert [(e.piece, e.from_, e.to) for e in effects] == [("yellow-1", "track:20", "start")]


def test_lane_bounce() -> None:
    hand = "N2 N3 N5 N6 N9 N10 N12 ONE_14 START_8 BACK_4 SEVEN"
    state = position("Y@L4 Y@L3 Y@P57", {0: hand})
    lane = "Y@L3 Y@L4 "
    expect(
        state,
        {
            "N2:track:57>track:59": lane + "Y@P59",
            "N3:track:57>lane:1": lane + "Y@L1",
            "N5:track:57>lane:1": lane + "Y@L1",
            "N6:track:57>track:59": lane + "Y@P59",
            "N9:track:57>track:56": lane + "Y@P56",
            "N10:track:57>track:55": lane + "Y@P55",
            "N12:track:57>track:53": lane + "Y@P53",
            "START_8:start>track:0": lane + "Y@P0 Y@P57",
            "START_8:track:57>track:57": lane + "Y@P57",
            "BACK_4:track:57>track:53": lane + "Y@P53",
            "ONE_14:track:57>track:58": lane + "Y@P58",
            "ONE_14:track:57>track:51": lane + "Y@P51",
            "SEVEN:track:57>track:58": lane + "Y@P58",
        },
    )


def test_no_turnaround_before_entering_the_lane() -> None:
    state = position("Y@L1 Y@P58", {0: "N2 N3 N5 N9 ONE_14"})
    expect(
        state,
        {
            # The pawn on P58 may only go 1; the pawn on L1 may go anywhere but off the lane.
            "N2:lane:1>lane:3": "Y@L3 Y@P58",
            "N3:lane:1>lane:4": "Y@L4 Y@P58",
            "N5:lane:1>lane:2": "Y@L2 Y@P58",
            "N9:lane:1>track:57": "Y@P57 Y@P58",
            "ONE_14:track:58>track:59": "Y@L1 Y@P59",
            "ONE_14:lane:1>lane:2": "Y@L2 Y@P58",
            "ONE_14:lane:1>track:52": "Y@P52 Y@P58",
        },
    )
    with pytest.raises(IllegalMove, match="next lane square is occupied"):
        partners.decide(state, 0, "N2:track:58>lane:2")


def test_seven_finishing_the_player_rest_to_the_partner() -> None:
    state = position("Y@L4 Y@L3 Y@L2 Y@P58 B@P40", {0: "SEVEN"})
    done = "Y@L1 Y@L2 Y@L3 Y@L4"
    expect(
        state,
        {
            "SEVEN:track:58>track:55": "Y@L2 Y@L3 Y@L4 Y@P55 B@P40",
            "SEVEN:track:58>lane:1+blue@track:40>track:45": done + " B@P45",
        },
    )
    blocked = position("Y@L4 Y@L3 Y@L2 Y@P58 B@P40 G@P45", {0: "SEVEN"})
    expect(blocked, {"SEVEN:track:58>track:55": "Y@L2 Y@L3 Y@L4 Y@P55 B@P40 G@P45"})


def test_swap_eligibility() -> None:
    state = position("Y@P0 Y@P10 R@P20 R@P20 R@P25 B@L2 B@P33 G@P30", {0: "SWAP"})
    rest = "Y@P0 R@P20 R@P20 B@L2 G@P30 "
    expect(
        state,
        {
            "SWAP:track:10<>track:25": rest + "Y@P25 R@P10 B@P33",
            "SWAP:track:10<>track:33": rest + "Y@P33 R@P25 B@P10",
            "SWAP:track:25<>track:33": rest + "Y@P10 R@P33 B@P25",
        },
    )
    with pytest.raises(IllegalMove, match=r"stack on track:20 is safe"):
        partners.decide(state, 0, "SWAP:track:10<>track:20")


def test_fold_and_a_swap_that_prevents_folding() -> None:
    state = position("R@P20", {0: "N2 N5 N9 BACK_4", 1: "N2"})
    expect(state, {})
    assert partners.to_act(state) == []
    state, events = settle(partners, state)
    assert events == [
        TurnPassed(0, "no card has a legal move: yellow lays down N2, N5, N9, BACK_4")
    ]
    assert state.hands[0] == ()
    assert Counter(state.discard) == Counter(["N2", "N5", "N9", "BACK_4"])
    assert partners.to_act(state) == [Pending(1, "move")]
    state = play(state, 1, "N2:track:20>track:22")
    assert state.phase == "deal", "yellow is skipped for the rest of the deal"

    swap = position("R@P20 B@P33", {0: "N2 N5 N9 SWAP"})
    expect(swap, {"SWAP:track:20<>track:33": "R@P33 B@P20"})


def test_four_backward_from_the_start_space() -> None:
    expect(position("Y@P0", {0: "BACK_4"}), {"BACK_4:track:0>track:56": "Y@P56"})
    expect(position("Y@P56", {0: "N5"}), {"N5:track:56>lane:2": "Y@L2"})
    expect(position("Y@P2", {0: "BACK_4"}), {"BACK_4:track:2>track:58": "Y@P58"})


def test_start_or_13_with_a_blocked_path() -> None:
    state = position("Y@P5 R@P15", {0: "START_13"})
    expect(state, {"START_13:start>track:0": "Y@P0 Y@P5 R@P15"})
    with pytest.raises(IllegalMove, match="start space track:15 is blocked"):
        partners.decide(state, 0, "START_13:track:5>track:18")
    free = position("Y@P5", {0: "START_13"})
    expect(free, {"START_13:start>track:0": "Y@P0 Y@P5", "START_13:track:5>track:18": "Y@P18"})


def test_seven_split_with_a_capture() -> None:
    state = position("Y@L4 Y@L3 Y@P55 Y@P5 R@P8", {0: "SEVEN"})
    lane = "Y@L3 Y@L4 "
    expect(
        state,
        {
            "SEVEN:track:55>lane:1": lane + "Y@L1 Y@P5 R@P8",
            "SEVEN:track:5>track:12": lane + "Y@P55 Y@P12 R@P8",
            "SEVEN:track:5>track:11+track:55>track:56": lane + "Y@P56 Y@P11 R@P8",
            "SEVEN:track:5>track:10+track:55>track:57": lane + "Y@P57 Y@P10 R@P8",
            "SEVEN:track:5>track:9+track:55>track:58": lane + "Y@P58 Y@P9 R@P8",
            "SEVEN:track:5>track:8+track:55>track:59": lane + "Y@P59 Y@P8",
            "SEVEN:track:5>track:7+track:55>lane:1": lane + "Y@L1 Y@P7 R@P8",
            "SEVEN:track:5>track:6+track:55>lane:2": lane + "Y@L2 Y@P6 R@P8",
        },
    )
    capture = move_of(state, "SEVEN:track:5>track:8+track:55>track:59")
    assert [(s.from_, s.to) for s in capture.steps] == [
        ("track:5", "track:8"),
        ("track:55", "track:59"),
    ]
    assert [(e.piece, e.to) for e in capture.effects] == [("red-1", "start")]


def test_team_win_in_the_middle_of_a_deal() -> None:
    state = position(
        "B@L1 B@L2 B@L3 B@L4 Y@L2 Y@L3 Y@L4 Y@P58", {0: "N2 N3", 1: "N2", 2: "N2", 3: "N2"}
    )
    events = partners.decide(state, 0, "N2:track:58>lane:1")
    assert events[1] == GameFinished((0, 2), "yellow and blue have all 8 pawns in their lanes")
    for event in events:
        state = partners.apply(state, event)
    assert state.finished and state.winners == (0, 2)
    assert partners.to_act(state) == []
    assert partners.view(state, None).status == "finished"
    with pytest.raises(GameOver, match="'N2:track:59>lane:1'"):
        partners.decide(state, 1, "N2:track:59>lane:1")


def test_a_done_player_plays_for_the_partner() -> None:
    state = position("Y@L1 Y@L2 Y@L3 Y@L4 B@P31 B@P40", {0: "START BACK_4 N3"})
    done = "Y@L1 Y@L2 Y@L3 Y@L4 "
    expect(
        state,
        {
            "START:blue@start>track:30": done + "B@P30 B@P31 B@P40",
            "BACK_4:blue@track:31>track:27": done + "B@P27 B@P40",
            "BACK_4:blue@track:40>track:36": done + "B@P31 B@P36",
            "N3:blue@track:31>track:34": done + "B@P34 B@P40",
            "N3:blue@track:40>track:43": done + "B@P31 B@P43",
        },
    )
    assert move_of(state, "START:blue@start>track:30").steps[0].piece == "blue-3"


def test_backward_capture() -> None:
    state = position("Y@P24 R@P20", {0: "BACK_4"})
    expect(state, {"BACK_4:track:24>track:20": "Y@P20"})


# --- more rules ---------------------------------------------------------------------------------


def test_bounce_may_not_jump_a_lane_pawn_backward() -> None:
    # partners.md 5.2: own pawns on L1 and L2; the L2 pawn moving 5 would come back over L1.
    state = position("Y@L1 Y@L2", {0: "N5"})
    expect(state, {})
    with pytest.raises(IllegalMove):
        partners.decide(state, 0, "N5:lane:2>lane:1")


def test_finished_pawns_never_move_and_a_full_lane_is_done() -> None:
    state = position("Y@L3 Y@L4 R@P30", {0: "N2 ONE_14 BACK_4 SEVEN SWAP"})
    expect(state, {})
    with pytest.raises(IllegalMove, match="yellow-1 on lane:3 cannot move forward"):
        partners.decide(state, 0, "ONE_14:lane:3>lane:4")


def test_finished_pawns_are_those_filling_the_lane_from_the_innermost_square() -> None:
    # partners.md, finished pawn: on Lane(c,k) with every deeper square occupied. Yellow's L4
    # and L3 are finished, its L1 is not (L2 is free); blue's L2 is not (L4 and L3 are free);
    # red's full lane is four.
    state = position("Y@L4 Y@L3 Y@L1 B@L2 R@L4 R@L3 R@L2 R@L1")
    assert partners.finished(state) == {0: 2, 1: 4}


def test_a_stack_on_the_own_start_space_is_allowed() -> None:
    state = position("Y@P0 Y@P0", {0: "START"})
    expect(state, {"START:start>track:0": "Y@P0 Y@P0 Y@P0"})


# --- options ------------------------------------------------------------------------------------


def test_default_options() -> None:
    state = partners.setup({}, 4)
    assert len(state.pile) == 56 and Counter(state.pile) == Counter(
        dict.fromkeys(partners.CARDS, 4)
    )
    assert (state.length, state.reshuffle, state.partner_capture, state.first_dealer) == (
        15,
        "every_deal",
        True,
        0,
    )


def test_deck_counts_is_the_whole_composition() -> None:
    state = partners.setup({"deck_counts": {"N2": 10, "START": 6}}, 4)
    assert Counter(state.pile) == Counter({"N2": 10, "START": 6})
    assert partners.chance(state) == Deal(state.pile, (1, 2, 3, 0), 4)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"deck_counts": {"N2": 15}}, "15 cards are too few"),
        ({"deck_counts": {"N2": 40}, "reshuffle": "per_dealer"}, "needs 48"),
        ({"deck_counts": {"N11": 20}}, "invalid value 'N11' \\(a key\\)"),
        ({"deck_counts": {"N2": -1, "N3": 20}}, "deck_counts: expected `int` >= 0"),
        ({"deck_counts": ["N2"]}, "deck_counts: expected `object`, got `array`"),
        ({"section_length": 1}, "section_length"),
        ({"section_length": "15"}, "section_length"),
        ({"reshuffle": "never"}, "reshuffle"),
        ({"partner_capture": "yes"}, "partner_capture"),
        ({"first_dealer": 4}, "first_dealer"),
        ({"first_dealer": True}, "first_dealer"),
        ({"dice": 2}, "unknown option 'dice'"),
    ],
)
def test_bad_options_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(BadSetup, match=message):
        partners.setup(options, 4)


@pytest.mark.parametrize("seats", [2, 3, 5])
def test_partners_takes_exactly_four_players(seats: int) -> None:
    with pytest.raises(BadSetup, match="4 to 4 players"):
        partners.setup({}, seats)


def test_section_length_sets_the_board() -> None:
    # L = 10: 40 squares, start spaces P0, P10, P20, P30; lane entries P39, P9, P19, P29.
    state = position("Y@P38 R@P8", {0: "N3 BACK_4"}, section_length=10)
    assert partners.geometry(10).starts == (0, 10, 20, 30)
    expect(
        state,
        {
            "N3:track:38>lane:2": "Y@L2 R@P8",
            "BACK_4:track:38>track:34": "Y@P34 R@P8",
        },
    )
    red = position("Y@P0 R@P8", {1: "N3"}, turn=1, section_length=10)
    expect(red, {"N3:track:8>lane:2": "Y@P0 R@L2"})
    blocked = position("Y@P8 R@P10", {0: "N2 N3 ONE_14"}, section_length=10)
    expect(blocked, {"ONE_14:track:8>track:9": "Y@P9 R@P10"})


def test_partner_capture_true_treats_the_partner_like_an_opponent() -> None:
    single = position("Y@P10 B@P13 B@P0", {0: "N3 START"})
    expect(
        single,
        {
            "N3:track:10>track:13": "Y@P13 B@P0",
            "START:start>track:0": "Y@P0 Y@P10 B@P13",
        },
    )
    stack = position("Y@P10 B@P13 B@P13", {0: "N3"})
    expect(stack, {"N3:track:10>track:13": "B@P13 B@P13"})


def test_partner_capture_false_forbids_ending_on_the_partner() -> None:
    state = position("Y@P10 B@P13 B@P0", {0: "N3 N5 START"}, partner_capture=False)
    expect(state, {"N5:track:10>track:15": "Y@P15 B@P13 B@P0"})
    with pytest.raises(IllegalMove, match="holds a pawn of the partner's colour"):
        partners.decide(state, 0, "N3:track:10>track:13")
    with pytest.raises(IllegalMove, match="holds a pawn of the partner's colour"):
        partners.decide(state, 0, "START:start>track:0")


def test_first_dealer_deals_and_the_seat_to_the_left_plays_first() -> None:
    state = partners.setup({"first_dealer": 2}, 4)
    assert partners.to_act(state) == [Pending(2, "deal")]
    assert partners.legal_moves(state, 2) == [Move("deal", 2)]
    need = partners.chance(state)
    assert isinstance(need, Deal) and need.seats == (3, 0, 1, 2) and need.count == 4
    state = exchange_all(partners.apply(state, first_cards(state)))
    assert state.phase == "play" and state.turn == 3


# --- deals and exchange -------------------------------------------------------------------------


def first_cards(state: State) -> CardsDealt:
    """A deal of the first cards of the sorted pile, one at a time round the table."""
    need = partners.chance(state)
    assert isinstance(need, Deal)
    pile = sorted(need.pile, key=partners.CARD_RANK.__getitem__)
    hands = tuple(tuple(pile[i :: len(need.seats)][: need.count]) for i in range(4))
    return CardsDealt(need.seats[-1], need.seats, hands)


def exchange_all(state: State) -> State:
    for seat in range(4):
        state = play(state, seat, partners.legal_moves(state, seat)[0].id)
    return state


def test_dealer_deals_three_times_then_the_left_neighbour() -> None:
    # No start card in the deck: every hand folds at once, so deals follow each other.
    state = partners.setup({"deck_counts": {"N2": 20, "N3": 20, "N5": 20}}, 4)
    dealers, after_deals = [], []
    for _ in range(7):
        (pending,) = partners.to_act(state)
        dealers.append(pending.seat)
        state = exchange_all(partners.apply(state, first_cards(state)))
        first = (pending.seat + 1) % 4
        state, events = settle(partners, state)
        assert [(type(e), getattr(e, "seat", None)) for e in events[:4]] == [
            (TurnPassed, (first + k) % 4) for k in range(4)
        ]
        after_deals.append(events[4:])
        assert state.phase == "deal" and state.hands == ((),) * 4
    assert dealers == [0, 0, 0, 1, 1, 1, 2]
    assert all(events == [DeckShuffled(60)] for events in after_deals)


def test_per_dealer_reshuffles_only_before_a_dealers_first_deal() -> None:
    options = {"deck_counts": {"N2": 20, "N3": 20, "N5": 20}, "reshuffle": "per_dealer"}
    state = partners.setup(options, 4)
    piles, shuffles = [], []
    for _ in range(4):
        need = partners.chance(state)
        assert isinstance(need, Deal)
        piles.append(len(need.pile))
        state = exchange_all(partners.apply(state, first_cards(state)))
        state, events = settle(partners, state)
        shuffles.append([e for e in events if isinstance(e, DeckShuffled)])
    assert piles == [60, 44, 28, 60]
    assert shuffles == [[], [], [DeckShuffled(60)], []]


def test_exchange_is_simultaneous_and_gives_the_card_to_the_partner() -> None:
    state = partners.setup({}, 4)
    dealt = CardsDealt(
        0,
        (1, 2, 3, 0),
        (("N2", "N3", "N3", "N5"), ("SEVEN", "SWAP", "N9", "N9"), ("START",) * 4, ("N6",) * 4),
    )
    state = partners.apply(state, dealt)
    assert state.hands[0] == ("N6",) * 4 and state.hands[1] == ("N2", "N3", "N3", "N5")
    assert partners.to_act(state) == [Pending(seat, "exchange") for seat in range(4)]
    assert [m.id for m in partners.legal_moves(state, 1)] == [
        "exchange:N2",
        "exchange:N3",
        "exchange:N5",
    ]
    assert partners.decide(state, 1, "exchange:N3") == [CardExchanged(1, "N3", 3)]
    state = play(state, 1, "exchange:N3")
    assert [p.seat for p in partners.to_act(state)] == [0, 2, 3]
    with pytest.raises(NotYourTurn, match="'exchange:N2'"):
        partners.decide(state, 1, "exchange:N2")
    with pytest.raises(IllegalMove, match="card 'SEVEN' is not in the hand"):
        partners.decide(state, 0, "exchange:SEVEN")
    with pytest.raises(IllegalMove, match="not an exchange"):
        partners.decide(state, 0, "N6:start>track:0")
    for seat, card in ((0, "N6"), (2, "SWAP"), (3, "START")):
        state = play(state, seat, f"exchange:{card}")
    assert state.phase == "play" and state.turn == 1
    assert state.hands == (
        ("N6", "N6", "N6", "SWAP"),
        ("N2", "N3", "N5", "START"),
        ("N6", "N9", "N9", "SEVEN"),
        ("N3", "START", "START", "START"),
    )


def test_exchange_also_happens_when_one_partner_is_done() -> None:
    state = position("Y@L1 Y@L2 Y@L3 Y@L4")
    state = replace(state, phase="deal", turn=-1, hands=((),) * 4)
    state = partners.apply(state, first_cards(state))
    assert Pending(0, "exchange") in partners.to_act(state)


# --- hidden information -------------------------------------------------------------------------


def dealt_state() -> tuple[State, CardsDealt]:
    state = partners.setup({}, 4)
    dealt = first_cards(state)
    return partners.apply(state, dealt), dealt


def test_view_shows_only_the_own_hand() -> None:
    state, _ = dealt_state()
    mine = msgspec.to_builtins(partners.view(state, 1))["hands"]
    assert mine[1] == {"seat": 1, "cards": list(state.hands[1])}
    assert [h for h in mine if h["seat"] != 1] == [{"seat": s, "count": 4} for s in (0, 2, 3)]
    assert msgspec.to_builtins(partners.view(state, None))["hands"] == [
        {"seat": s, "count": 4} for s in range(4)
    ]
    assert msgspec.to_builtins(partners.view(state, "referee"))["hands"] == [
        {"seat": s, "cards": list(state.hands[s])} for s in range(4)
    ]
    shown = msgspec.to_builtins(partners.view(state, 1))
    assert shown["draw_pile"] == 40 and "pile" not in shown


def test_exchanged_card_in_flight_is_seen_by_the_two_partners_only() -> None:
    state, _ = dealt_state()
    card = state.hands[0][0]
    state = play(state, 0, f"exchange:{card}")
    cases: list[tuple[Viewer, str]] = [
        (0, card),
        (2, card),
        ("referee", card),
        (1, HIDDEN),
        (None, HIDDEN),
    ]
    for viewer, seen in cases:
        flight = msgspec.to_builtins(partners.view(state, viewer))["exchange"]
        assert flight[0] == {"seat": 0, "to": 2, "card": seen}
        assert flight[1] == {"seat": 1, "to": 3, "card": None}


def test_redact_hides_other_hands_and_exchanged_cards() -> None:
    _, dealt = dealt_state()
    seen = partners.redact(dealt, 2)
    assert isinstance(seen, CardsDealt)
    for seat, hand, shown in zip(dealt.seats, dealt.hands, seen.hands, strict=True):
        assert shown == (hand if seat == 2 else (HIDDEN,) * 4)
    assert partners.redact(dealt, "referee") == dealt
    anonymous = partners.redact(dealt, None)
    assert isinstance(anonymous, CardsDealt)
    assert all(hand == (HIDDEN,) * 4 for hand in anonymous.hands)
    given = CardExchanged(1, "SEVEN", 3)
    assert partners.redact(given, 1) == given and partners.redact(given, 3) == given
    assert partners.redact(given, 0) == CardExchanged(1, HIDDEN, 3)
    assert partners.redact(given, None) == CardExchanged(1, HIDDEN, 3)
    played = MovePlayed(0, "N2:track:3>track:5", "N2")
    assert partners.redact(played, 1) == played


def test_folded_hands_and_played_cards_are_public() -> None:
    state = position("R@P20", {0: "N2 N5 N9 BACK_4", 1: "N2"})
    state, events = settle(partners, state)
    assert partners.redact(events[0], 2) == events[0]
    state = play(state, 1, "N2:track:20>track:22")
    assert Counter(partners.view(state, 3).discard) == Counter(["N2", "N5", "N9", "BACK_4", "N2"])


# --- errors -------------------------------------------------------------------------------------


def test_errors_quote_the_move_and_say_why() -> None:
    state = position("Y@P0 G@P57", {3: "N2 N3 N5"}, turn=3)
    with pytest.raises(NotYourTurn, match=r"'N3:track:1>track:4'.*seat 4 \(move\)"):
        partners.decide(state, 0, "N3:track:1>track:4")
    with pytest.raises(IllegalMove, match=r"'N3:track:57>track:0'.*track:0 is blocked"):
        partners.decide(state, 3, "N3:track:57>track:0")
    with pytest.raises(IllegalMove, match=r"card 'N9' is not in the hand"):
        partners.decide(state, 3, "N9:track:57>track:6")
    with pytest.raises(IllegalMove, match="not a move id"):
        partners.decide(state, 3, "seven")
    with pytest.raises(IllegalMove, match="cannot start a pawn"):
        partners.decide(state, 3, "N3:start>track:45")
    with pytest.raises(IllegalMove, match="no green pawn stands on track:3"):
        partners.decide(state, 3, "N3:track:3>track:6")


def test_the_deal_is_a_chance_step() -> None:
    state = partners.setup({}, 4)
    with pytest.raises(IllegalMove, match="chance step"):
        partners.decide(state, 0, "deal")


# --- random games -------------------------------------------------------------------------------


def random_deal(state: State, seat: int, rng: random.Random) -> CardsDealt:
    """What the service's chance does: cards one at a time from the dealer's left."""
    need = partners.chance(state)
    assert isinstance(need, Deal)
    pile = sorted(need.pile)
    hands: list[list[str]] = [[] for _ in need.seats]
    for part in range(len(need.seats) * need.count):
        hands[part % len(hands)].append(pile.pop(rng.randrange(len(pile))))
    return CardsDealt(seat, need.seats, tuple(tuple(hand) for hand in hands))


def random_game(seed: int, options: dict[str, Any]) -> tuple[State, list[Event]]:
    rng = random.Random(seed)
    state, log = settle(partners, partners.setup(options, 4))
    deck = Counter(state.pile)
    for _ in range(20_000):
        pending = partners.to_act(state)
        if not pending:
            return state, log
        who = rng.choice(pending)
        moves = partners.legal_moves(state, who.seat)
        assert moves, "a pending seat always has a move"
        if who.kind in CHANCE_KINDS:
            batch: list[Event] = [random_deal(state, who.seat, rng)]
        else:
            batch = partners.decide(state, who.seat, rng.choice(moves).id)
        for event in batch:
            state = partners.apply(state, event)
        state, more = settle(partners, state)
        log += batch + more
        pieces = partners.view(state, "referee").pieces
        assert Counter(p.seat for p in pieces) == Counter(dict.fromkeys(range(4), 4))
        held = [card for hand in state.hands for card in hand]
        flight = [card for card in state.given if card]
        assert Counter([*state.pile, *state.discard, *held, *flight]) == deck
    raise AssertionError("the game did not end")


@pytest.mark.parametrize(
    ("seed", "options"),
    [
        (1, {}),
        (2, {}),
        (3, {"reshuffle": "per_dealer", "first_dealer": 3}),
        (4, {"partner_capture": False, "section_length": 8}),
        (5, {"deck_counts": {"START": 4, "SEVEN": 8, "SWAP": 2, "N5": 2}}),
    ],
)
def test_random_games_end_with_a_team_and_replay_exactly(
    seed: int, options: dict[str, Any]
) -> None:
    state, log = random_game(seed, options)
    assert state.finished and state.winners in ((0, 2), (1, 3))
    assert partners.view(state, None).status == "finished"
    stored = [
        parse_event(event_type(e), msgspec.json.decode(msgspec.json.encode(event_data(e))))
        for e in log
    ]
    assert stored == log
    replayed = partners.setup(options, 4)
    for event in stored:
        replayed = partners.apply(replayed, event)
    assert replayed == state


def test_a_hand_is_laid_down_exactly_when_none_of_its_cards_has_a_legal_move() -> None:
    """Rule 4.4 (fold): the quick check that lays a hand down (each card asked until one can
    be played, the 7's splits last) agrees with listing every legal move, at every state of
    random games, the states just before a hand is laid down among them."""
    stuck = checked = 0
    for seed in (6, 7):
        _, log = random_game(seed, {})
        state = partners.setup({}, 4)
        for event in log:
            state = partners.apply(state, event)
            if state.phase == "play" and not state.finished:
                assert partners._stuck(state) == (not partners._plays(state))
                stuck += partners._stuck(state)
                checked += 1
    assert checked >= 300 and stuck >= 5
