"""Version 1 of sorry, kept for the games recorded under it: the discards are shuffled back as
soon as the draw pile is empty and no card is held, with the move that used the last card."""

from __future__ import annotations

from msgspec.structs import replace

from domain import sorry, sorry_v1
from domain.events import CardDrawn, DeckShuffled, TurnPassed
from domain.model import Draw, Pending
from domain.registry import find_ruleset
from domain.replay import settle


def test_registry_finds_both_versions() -> None:
    assert find_ruleset("sorry") is sorry and sorry.VERSION == 2
    assert find_ruleset("sorry", 1) is sorry_v1


def test_version_1_reshuffles_with_the_move_that_used_the_last_card() -> None:
    full = sorry.setup({}, 2).pile
    five = full.index("5")
    state = replace(sorry.setup({}, 2), pile=("5",), discard=full[:five] + full[five + 1 :])
    state = sorry_v1.apply(state, CardDrawn(0, "5"))
    state, passed = settle(sorry_v1, state)
    assert passed == [TurnPassed(0, "no legal move for card '5'"), DeckShuffled(cards=45)]
    assert (state.pile, state.discard) == (full, ())
    assert sorry_v1.to_act(state) == [Pending(1, "draw")]
    assert sorry_v1.chance(state) == Draw(pile=full)


def test_version_1_waits_for_the_reshuffle_before_a_draw() -> None:
    state = replace(sorry.setup({}, 2), pile=(), discard=sorry.setup({}, 2).pile)
    assert sorry_v1.to_act(state) == []
    assert sorry_v1.legal_moves(state, 0) == []
    assert sorry_v1.chance(state) is None
    assert sorry_v1.view(state, None).to_act == []
    assert sorry_v1.automatic(state) == [DeckShuffled(cards=45)]
