"""The win-chance model, its training and the analysis of a game (pure, in process)."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest
from msgspec.structs import replace

from analysis import train
from analysis.danger import dangers
from analysis.features import NAMES, moves_of, seat_features, side_features, sides
from analysis.game import LABELS, Valuer, analyse, label, started
from analysis.model import chances, load
from analysis.selfplay import game, recorded, rollout
from bots.knowledge import fills
from domain.registry import RULESETS, find_ruleset


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_every_rule_set_has_a_committed_model_whose_chances_sum_to_one(ruleset: str) -> None:
    rules = find_ruleset(ruleset)
    model = load(ruleset)
    states = [state for state, _ in game(ruleset, 3)]
    for state in states[:-1:25]:
        found = chances(rules, state, model)
        assert sum(found.values()) == pytest.approx(1.0)
        assert all(0.0 < chance < 1.0 for chance in found.values())
    final = chances(rules, states[-1], model)
    winners = rules.view(states[-1], None).winners
    assert {seat for seat, chance in final.items() if chance > 0} == set(winners)


def test_training_is_reproducible_from_its_seed() -> None:
    first = train.train("ludo", games=3, seed=5)
    second = train.train("ludo", games=3, seed=5)
    assert msgspec.json.encode(first) == msgspec.json.encode(second)
    assert first.distances[0] == 0.0
    assert set(first.weights) == {2, 3, 4}


@pytest.mark.parametrize("ruleset", ["sorry", "parchis", "partners"])
def test_a_finished_games_analysis_is_identical_when_computed_twice(ruleset: str) -> None:
    log = recorded(ruleset, 11)[:300]
    first, second = analyse(log, "g"), analyse(log, "g")
    assert msgspec.json.encode(first) == msgspec.json.encode(second)
    assert first.points


@pytest.mark.parametrize("ruleset", ["parchis", "partners", "sorry-hand"])
def test_an_analysis_gone_on_from_a_version_equals_one_from_the_start(ruleset: str) -> None:
    """A running game's analysis goes on from the last version analysed (``Analyser``): at
    every cut it is the analysis of the log up to there computed from the start."""
    log = recorded(ruleset, 3)[:240]
    analyser, rest = started(log, "g")
    cuts = {9, 10, 57, 140, 239}
    for n, (version, event) in enumerate(rest, start=1):
        analyser.push(version, event)
        if n in cuts:
            analyser.forget()  # as a parked analysis is set aside
            whole = analyse(log[: n + 1], "g")
            assert msgspec.json.encode(analyser.result()) == msgspec.json.encode(whole), n


def test_luck_of_an_outcome_is_shared_out_between_seats() -> None:
    """Chances sum to one after every outcome, so one outcome's luck sums to zero over seats."""
    result = analyse(recorded("ludo", 2)[:300], "g")
    lucky = [point for point in result.points if point.luck is not None]
    assert lucky
    for point in lucky:
        assert sum(point.luck or []) == pytest.approx(0.0, abs=1e-3)
    assert any(abs(value) > 0.001 for point in lucky for value in point.luck or [])


def test_a_decisions_loss_is_never_negative_and_its_label_follows_the_thresholds() -> None:
    result = analyse(recorded("sorry", 4)[:400], "g")
    decisions = [point for point in result.points if point.kind == "decision"]
    assert decisions
    for point in decisions:
        assert point.loss is not None and point.loss >= 0.0
        assert point.label == label(point.loss)
    assert [word for _, word in LABELS] == ["blunder", "mistake", "inaccuracy"]
    assert label(0.0) is None and label(0.2) == "blunder" and label(0.08) == "mistake"
    seat_losses = [sum(p.loss or 0 for p in decisions if p.seat == s) for s in range(result.seats)]
    assert result.lost == pytest.approx(seat_losses, abs=1e-3)


def test_newtons_step_solves_a_small_linear_system() -> None:
    assert train.solve([[2.0, 1.0], [1.0, 3.0]], [3.0, 5.0]) == pytest.approx([0.8, 1.4])
    assert train.solve([[0.0, 1.0], [1.0, 0.0]], [2.0, 7.0]) == pytest.approx([7.0, 2.0])


@pytest.mark.parametrize("ruleset", ["sorry", "parchis", "partners"])
def test_a_seat_further_from_home_has_the_larger_relative_distance(ruleset: str) -> None:
    """The model's main feature is each seat's distance relative to the table's mean: it sums
    to zero over the seats and orders them as the plain distance to home does."""
    rules, model = find_ruleset(ruleset), load(ruleset)
    states = [state for state, _ in game(ruleset, 7)]
    for state in states[10:-1:40]:
        shown = rules.view(state, None)
        features = seat_features(ruleset, shown, model.distances, model.start)
        moves = moves_of(ruleset, shown, model.distances, model.start)
        plain: dict[int, float] = {}
        for piece in shown.pieces:
            plain[piece.seat] = plain.get(piece.seat, 0.0) + moves(piece.seat, piece.at)
        assert sum(row[0] for row in features.values()) == pytest.approx(0.0, abs=1e-9)
        by_plain = sorted(plain, key=lambda seat: plain[seat])
        relative = [features[seat][0] for seat in by_plain]
        assert relative == sorted(relative)
        assert len(next(iter(features.values()))) == len(NAMES) == len(model.weights_of(4))


def test_a_rollout_ends_the_game_with_its_winners() -> None:
    rules = find_ruleset("ludo")
    state = [state for state, _ in game("ludo", 5)][100]
    first = rollout(rules, state, random.Random(3))
    assert first == rollout(rules, state, random.Random(3))
    assert first and set(first) <= {0, 1, 2, 3}


def test_self_play_at_a_bot_level_is_seeded_and_is_not_random_play() -> None:
    first = recorded("sorry", 4, "greedy")
    assert first == recorded("sorry", 4, "greedy")
    assert first != recorded("sorry", 4)
    rules = find_ruleset("sorry")
    state = [state for state, _ in game("sorry", 4, "greedy")][-1]
    assert rules.view(state, None).winners


def test_a_greedy_rollout_from_a_position_needs_its_log_and_ends_the_game() -> None:
    rules = find_ruleset("ludo")
    log: list[Any] = []
    states = [(state, len(log)) for state, _ in game("ludo", 5, "greedy", log)]
    state, known = states[100]
    won = rollout(rules, state, random.Random(3), "greedy", log[:known])
    assert won == rollout(rules, state, random.Random(3), "greedy", log[:known])
    assert won and set(won) <= {0, 1, 2, 3}


def test_in_partners_the_model_scores_teams_and_a_teams_seats_share_its_chance() -> None:
    rules, model = find_ruleset("partners"), load("partners")
    for state in [state for state, _ in game("partners", 2)][5:-1:60]:
        found = chances(rules, state, model)
        assert found[0] == pytest.approx(found[2]) and found[1] == pytest.approx(found[3])
        assert sum(found.values()) == pytest.approx(1.0)
        shown = rules.view(state, None)
        assert sides(shown) == [(0, 2), (1, 3)]
        assert len(side_features("partners", shown, model.distances, model.start)) == 2


def test_a_piece_just_ahead_of_an_opponents_is_in_danger_and_the_hunter_is_not() -> None:
    """Ludo: red's piece 3 squares behind yellow's on the track can land on it next turn."""
    rules, model = find_ruleset("ludo"), load("ludo")
    shown = rules.view(rules.setup({}, 4), None)
    pieces = list(shown.pieces)
    yellow = next(i for i, p in enumerate(pieces) if p.seat == 0)
    red = next(i for i, p in enumerate(pieces) if p.seat == 1)
    pieces[yellow] = replace(pieces[yellow], at="track:18")
    pieces[red] = replace(pieces[red], at="track:15")
    moved = replace(shown, pieces=pieces)
    found = dangers(
        "ludo", moved, moves_of("ludo", moved, model.distances, model.start), model.start
    )
    assert found[0] > 0.0
    assert found[1] == found[2] == found[3] == 0.0
    nothing = dangers("race35", rules_view("race35"), lambda seat, at: 0.0, 1.0)
    assert nothing == {0: 0.0, 1: 0.0, 2: 0.0, 3: 0.0}


def rules_view(ruleset: str) -> Any:
    rules = find_ruleset(ruleset)
    return rules.view(rules.setup({}, 4), None)


@pytest.mark.parametrize("ruleset", ["partners", "sorry-hand"])
def test_positions_that_differ_only_in_hidden_cards_are_valued_once_and_alike(
    ruleset: str,
) -> None:
    """The model reads the public view alone: a valuer that knows positions by their view gives
    every position the chances its state gives, and the fills of one position, which differ
    in the hidden hands only, are valued once."""
    rules = find_ruleset(ruleset)
    model = load(ruleset)
    by_view, by_state = Valuer(rules, model, by_view=True), Valuer(rules, model)
    log: list[Any] = []
    filled = 0
    for index, (state, _) in enumerate(game(ruleset, 2, log=log)):
        if index % 20 or not rules.to_act(state):
            continue
        assert by_view.chances(state) == by_state.chances(state) == chances(rules, state, model)
        seat = rules.to_act(state)[0].seat
        seen = [rules.redact(event, seat) for event in log]
        folds = [r.state for r in fills(seen, seat, random.Random(index), 4)]
        hands = {msgspec.json.encode(rules.view(f, "referee")) for f in folds}
        known = len(by_view.known)
        for fold in folds:
            assert by_view.chances(fold) == by_state.chances(fold)
        assert len(by_view.known) <= known + 1
        filled += len(hands) > 1
    assert filled >= 3
