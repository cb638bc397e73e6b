"""The bots: their levels, that they play legal moves in every rule set, that they choose the
same way for the same inputs, and that they see only what their seat may see."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import msgspec
import pytest

import bots
from bots import knowledge, pins
from domain.events import DeckShuffled, Event, GameCreated
from domain.model import CHANCE_KINDS, COLOURS
from domain.registry import RULESETS, find_ruleset
from domain.replay import settle
from tests.domain.playout import chance_events, random_events


def test_levels_are_listed_weakest_first_and_each_plays_every_rule_set() -> None:
    assert [level.name for level in bots.LEVELS] == ["random", "greedy", "expert"]
    for level in bots.LEVELS:
        assert set(level.rulesets) == set(RULESETS)
        assert level.description and "\n" not in level.description
        assert level.version >= 1
        assert bots.find_level(level.name) is level


def test_an_unknown_level_is_refused_with_the_known_names() -> None:
    with pytest.raises(KeyError, match=r"random.*greedy.*expert"):
        bots.find_level("grandmaster")


def play_with_bots(
    ruleset: str, players: int, levels: list[str], seed: int, decisions: int
) -> list[Event]:
    """A game where every decision is a bot's (``levels[seat]``), chance from ``seed``; stops
    after ``decisions`` decisions. Each choice must be one of the seat's legal moves."""
    rules = find_ruleset(ruleset)
    rng = random.Random(seed)
    names = tuple(COLOURS[:players])
    log: list[Event] = [GameCreated(ruleset, {}, names, ruleset_version=rules.VERSION)]
    state, events = settle(rules, rules.setup({}, players))
    log += events
    made = 0
    while made < decisions and (pending := rules.to_act(state)):
        who = pending[0]
        if who.kind in CHANCE_KINDS:
            batch = chance_events(rules, state, who.seat, rng)
        else:
            moves = rules.legal_moves(state, who.seat)
            seen = [rules.redact(event, who.seat) for event in log]
            choice = bots.choose(
                levels[who.seat], ruleset, rules.VERSION, who.seat, seen, moves, seed + made
            )
            assert choice in {move.id for move in moves}
            batch = rules.decide(state, who.seat, choice)
            made += 1
        for event in batch:
            state = rules.apply(state, event)
        state, more = settle(rules, state)
        log += batch + more
    return log


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_every_level_plays_only_legal_moves(ruleset: str) -> None:
    players = 4 if ruleset == "partners" else 3
    levels = ["expert", "greedy", "random", "expert"][:players]
    play_with_bots(ruleset, players, levels, seed=7, decisions=40)


def test_a_whole_game_of_experts_against_greedy_ends() -> None:
    log = play_with_bots("ludo", 2, ["expert", "greedy"], seed=3, decisions=10_000)
    state = knowledge.rebuild(log, 0, random.Random(0)).state
    assert not find_ruleset("ludo").to_act(state)


def positions(
    ruleset: str,
    players: int,
    seed: int,
    version: int | None = None,
    kinds: tuple[str, ...] = ("move",),
) -> list[tuple[Any, list[Event]]]:
    """(state, log) before each decision (or each action of ``kinds``) of a random game under
    ``version`` of the rule set (the current one when None)."""
    rules = find_ruleset(ruleset, version)
    names = tuple(COLOURS[:players])
    log: list[Event] = [GameCreated(ruleset, {}, names, ruleset_version=rules.VERSION)]
    found = []
    state = rules.setup({}, players)
    for after, batch in random_events(rules, state, random.Random(seed)):
        pending = rules.to_act(after)
        log += batch
        if pending and pending[0].kind in kinds:
            found.append((after, list(log)))
    return found


@pytest.mark.parametrize("level", ["greedy", "expert"])
def test_the_same_inputs_give_the_same_choice(level: str) -> None:
    rules = RULESETS["sorry"]
    for state, log in positions("sorry", 4, seed=5)[::9]:
        seat = rules.to_act(state)[0].seat
        moves = rules.legal_moves(state, seat)
        seen = [rules.redact(event, seat) for event in log]
        first = bots.choose(level, "sorry", rules.VERSION, seat, seen, moves, 42)
        assert bots.choose(level, "sorry", rules.VERSION, seat, list(seen), moves, 42) == first


@pytest.mark.parametrize("ruleset", ["sorry", "ludo", "parchis-2dice"])
def test_a_public_log_rebuilds_the_seats_view_exactly(ruleset: str) -> None:
    rules = RULESETS[ruleset]
    for state, log in positions(ruleset, 4, seed=2)[::13]:
        seat = rules.to_act(state)[0].seat
        seen = [rules.redact(event, seat) for event in log]
        rebuilt = knowledge.rebuild(seen, seat, random.Random(1)).state
        assert msgspec.to_builtins(rules.view(rebuilt, seat)) == msgspec.to_builtins(
            rules.view(state, seat)
        )


def test_a_determinization_keeps_what_the_seat_has_seen_and_hides_nothing_it_needs() -> None:
    """Hidden hands are filled in; the seat's own hand, the board and the redacted log are
    exactly the real game's."""
    rules = RULESETS["sorry-hand"]
    checked = 0
    for state, log in positions("sorry-hand", 4, seed=4)[:40:3]:
        seat = rules.to_act(state)[0].seat
        seen = [rules.redact(event, seat) for event in log]
        try:
            replay = knowledge.rebuild(seen, seat, random.Random(9))
        except knowledge.Inconsistent:
            continue
        mine, real = rules.view(replay.state, seat), rules.view(state, seat)
        assert mine.pieces == real.pieces
        assert mine.hands == real.hands  # own cards, and only counts of the others'
        checked += 1
    assert checked >= 5


@pytest.mark.parametrize(
    ("ruleset", "version", "players", "seed"),
    [("partners", None, 4, 1), ("partners", None, 4, 2)]
    + [("sorry-hand", None, 2, 3), ("sorry-hand", None, 3, 5)]
    + [("sorry-hand", None, 4, seed) for seed in (0, 2)]
    + [("sorry-hand", 1, 2, 3), ("sorry-hand", 1, 4, 0)],
)
def test_every_decision_of_a_hand_game_gets_a_deal_consistent_with_what_the_seat_saw(
    ruleset: str, version: int | None, players: int, seed: int
) -> None:
    """Cards pass between partners at the same time (neither passes on what it receives), a
    card a seat plays was in its hand, and a refilled pile holds only the cards played since
    the refill before: every determinization of these games' first 600 events folds, and it
    redacts back to exactly what the seat saw, with the seat's view unchanged."""
    rules = find_ruleset(ruleset, version)
    checked = 0
    for state, log in positions(ruleset, players, seed, version)[::4]:
        if len(log) > 600:
            break
        seat = rules.to_act(state)[0].seat
        seen = [rules.redact(event, seat) for event in log]
        filled, replay = knowledge.determinize(seen, seat, random.Random(seed))
        assert [rules.redact(event, seat) for event in filled] == seen
        assert msgspec.to_builtins(rules.view(replay.state, seat)) == msgspec.to_builtins(
            rules.view(state, seat)
        )
        checked += 1
    assert checked >= 20


@pytest.mark.parametrize("version", [1, 2])
def test_a_sorry_hand_seat_rebuilds_its_view_around_each_reshuffle(version: int) -> None:
    """Case 10 of sorry-hand.md: the pile is empty when a seat must draw after playing, and
    the discards, the card just played included, make the new pile. Version 2 shuffles them at
    that draw (the seat's view shows the empty pile and every discard until then), version 1
    with the play. Either way the bot of the drawing seat, and of the seats that decide next,
    fills the hidden hands in consistently with its redacted log, ``DeckShuffled`` where its
    version records it, and its view of the game is the real one."""
    rules = find_ruleset("sorry-hand", version)
    near, empty = 0, 0
    for state, log in positions("sorry-hand", 2, 3, version, kinds=("move", "draw")):
        pending = rules.to_act(state)[0]
        window = pending.kind == "draw" and not state.pile
        if not window and not any(isinstance(event, DeckShuffled) for event in log[-3:]):
            continue
        seen = [rules.redact(event, pending.seat) for event in log]
        filled, replay = knowledge.determinize(seen, pending.seat, random.Random(near))
        assert [rules.redact(event, pending.seat) for event in filled] == seen
        mine = msgspec.to_builtins(rules.view(replay.state, pending.seat))
        assert mine == msgspec.to_builtins(rules.view(state, pending.seat))
        if window:
            assert mine["draw_pile"] == 0 and mine["discard"], mine
            assert rules.chance(replay.state).reshuffled == len(mine["discard"])
        near += 1
        empty += window
    assert near >= 6
    assert empty >= 2 if version == 2 else empty == 0


def other_deal(seen: list[Event], seat: int, seed: int) -> list[Event] | None:
    """A whole log the seat could not tell from the real one: the same redacted events, other
    cards in the hidden hands (a determinization); None if none was found."""
    pinned, travels = pins.follow(
        seen, seat, random.Random(seed), oldest=True, deck=knowledge._deck(seen[0])
    )
    try:
        filled = knowledge._fill(seen[0], seen, pinned, travels, random.Random(seed))
        knowledge._fold(seen[0], filled)
    except (KeyError, ValueError, IndexError):
        return None
    return filled


def test_the_expert_chooses_as_the_honest_seat_would_whatever_the_hidden_cards() -> None:
    """Positions where seeing the other hands would change the expert's choice: given only
    its seat's view, it chooses the same move for the real deal and for another deal that
    looks the same to the seat."""
    rules = RULESETS["sorry-hand"]
    peeking_matters = 0
    for state, log in positions("sorry-hand", 2, seed=11)[:60]:
        seat = rules.to_act(state)[0].seat
        moves = rules.legal_moves(state, seat)
        if len(moves) < 2:
            continue
        seen = [rules.redact(event, seat) for event in log]
        other = other_deal(seen, seat, seed=len(log))
        if other is None or other == log:
            continue
        assert [rules.redact(event, seat) for event in other] == seen
        peeked_real = bots.choose("expert", "sorry-hand", rules.VERSION, seat, log, moves, 1)
        peeked_other = bots.choose("expert", "sorry-hand", rules.VERSION, seat, other, moves, 1)
        if peeked_real == peeked_other:
            continue
        peeking_matters += 1
        honest_real = bots.choose("expert", "sorry-hand", rules.VERSION, seat, seen, moves, 1)
        redacted_other = [rules.redact(event, seat) for event in other]
        assert bots.choose(
            "expert", "sorry-hand", rules.VERSION, seat, redacted_other, moves, 1
        ) == (honest_real)
    assert peeking_matters >= 1


@pytest.mark.parametrize(("ruleset", "players", "seed"), [("partners", 4, 3), ("sorry-hand", 3, 6)])
def test_the_fills_of_one_position_each_keep_what_the_seat_saw_and_deal_the_rest_afresh(
    ruleset: str, players: int, seed: int
) -> None:
    """The fills a hint averages over fold alike up to the first hidden card no later play
    pins and deal afresh from there: each keeps the seat's view exactly, and the hidden
    hands differ between fills of one position."""
    rules = RULESETS[ruleset]
    differed = 0
    for state, log in positions(ruleset, players, seed)[10:300:25]:
        seat = rules.to_act(state)[0].seat
        seen = [rules.redact(event, seat) for event in log]
        folds = list(knowledge.fills(seen, seat, random.Random(seed), 6))
        assert folds, "no fill folded"
        for replay in folds:
            assert replay.version == len(seen)
            assert msgspec.to_builtins(rules.view(replay.state, seat)) == msgspec.to_builtins(
                rules.view(state, seat)
            )
        hands = {str(msgspec.to_builtins(rules.view(r.state, "referee").hands)) for r in folds}
        differed += len(hands) > 1
    assert differed >= 5


@pytest.mark.parametrize(
    ("ruleset", "players", "seed", "searches_go_on"),
    [("partners", 4, 5, True), ("sorry-hand", 2, 4, False)],  # sorry-hand draws every turn
)
def test_fills_that_go_on_from_the_last_position_kept_are_the_fills_made_afresh(
    ruleset: str, players: int, seed: int, searches_go_on: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A seat asked again later in a game goes on from what was kept of its last position:
    the search for pins from where it ended, where the log since adds no draw, deal or
    refill, and the fold from its first fill, where the log and pins before that fill's first
    free hidden card are unchanged. The fills (and a bot's determinization) are exactly those
    made from nothing, position after position, and both are used."""
    rules = RULESETS[ruleset]
    used: Counter[str] = Counter()  # of the second pass over each position
    replay, pinner = knowledge._replay, pins.Pinner

    def noted(*given: Any) -> Any:
        if used["again"] == 1:  # the first fill of the second pass
            used["fold"] += given[-1] is not None
        used["again"] += bool(used["again"])
        return replay(*given)

    def counted(*given: Any) -> Any:
        used["search"] += bool(used["again"])  # a search from the start
        return pinner(*given)

    monkeypatch.setattr(knowledge, "_replay", noted)
    monkeypatch.setattr(pins, "Pinner", counted)
    caches = (knowledge.FILLS, pins.FOLLOWS)
    for cache in caches:
        cache.clear()
    searches = 0
    for state, log in positions(ruleset, players, seed)[:400:3]:
        seat = rules.to_act(state)[0].seat
        seen = [rules.redact(event, seat) for event in log]
        kept = [dict(cache) for cache in caches]
        for cache in caches:
            cache.clear()
        used["again"] = 0
        fresh = [r.state for r in knowledge.fills(seen, seat, random.Random(len(log)), 3)]
        dealt = knowledge.determinize(seen, seat, random.Random(seed))[0]
        for cache, entries in zip(caches, kept, strict=True):
            cache.clear()
            cache.update(entries)
        used["again"] = 1
        again = [r.state for r in knowledge.fills(seen, seat, random.Random(len(log)), 3)]
        assert again == fresh
        assert knowledge.determinize(seen, seat, random.Random(seed))[0] == dealt
        searches += 1
    print(f"{searches} positions: {used['fold']} first fills folded on, {used['search']} searches")
    assert used["fold"] >= searches * 9 // 10
    assert (used["search"] <= searches * 9 // 10) == searches_go_on
