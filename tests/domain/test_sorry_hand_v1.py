"""Version 1 of sorry-hand, kept for the games recorded under it: the discards are shuffled back
as soon as the seat that played is to draw from an empty pile, with the play."""

from __future__ import annotations

from msgspec.structs import replace

from domain import sorry_hand, sorry_hand_v1
from domain.events import CardDrawn, DeckShuffled
from domain.model import Draw, Pending
from domain.registry import find_ruleset
from domain.replay import settle
from tests.domain.test_sorry_hand import position


def test_registry_finds_both_versions() -> None:
    assert find_ruleset("sorry-hand") is sorry_hand and sorry_hand.VERSION == 2
    assert find_ruleset("sorry-hand", 1) is sorry_hand_v1


def test_version_1_reshuffles_with_the_play_that_finds_the_pile_empty() -> None:
    state = position(2, {"red": ["track:10"]}, ("3", "3", "3", "3", "3"))
    state = replace(state, pile=(), discard=("5", "8"))
    played = sorry_hand_v1.apply(state, sorry_hand_v1.decide(state, 0, "3:track:10>track:13")[0])
    assert sorry_hand_v1.to_act(played) == []
    assert sorry_hand_v1.legal_moves(played, 0) == []
    assert sorry_hand_v1.chance(played) is None
    assert sorry_hand_v1.view(played, None).to_act == []
    shuffled, events = settle(sorry_hand_v1, played)
    assert events == [DeckShuffled(cards=3)]
    shown = sorry_hand_v1.view(shuffled, None)
    assert (shown.draw_pile, shown.discard, shown.to_act) == (3, [], [Pending(0, "draw")])
    assert sorry_hand_v1.chance(shuffled) == Draw(pile=("3", "5", "8"))
    after = sorry_hand_v1.apply(shuffled, CardDrawn(0, "3"))
    assert (after.pile, after.hands[0]) == (("5", "8"), ("3",) * 5)
