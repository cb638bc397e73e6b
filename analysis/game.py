"""The analysis of a recorded game (pure): each seat's chances at every decision and chance
outcome, the luck of every outcome and the equity loss of every decision.

- **Chances** at a version: the model's prediction for the position before that event looked
  one step ahead (before a chance outcome, the average over the outcomes; before a decision,
  what the best move keeps; the model's own where seats play from hidden hands), with the
  half-width of its calibration error. A finished game ends with its result.
- **Luck** of a chance outcome (GNU Backgammon's): for each seat, its chance after the outcome
  minus its average chance over every possible outcome (dice and draws enumerated with their
  weights; deals sampled, seeded by the game and version). A position where a seat must move
  next is valued as that seat's best move leaves it, so a roll is worth the moves it allows.
- **Equity loss** of a decision: the mover's chance after its best legal move minus after the
  move it played, judged on public pieces only (never another seat's hand, so never with
  hindsight). Labels: ``inaccuracy`` from 0.03, ``mistake`` from 0.07, ``blunder`` from 0.15.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import msgspec

from analysis.model import Model, chances, half_width, load
from domain.events import CardDrawn, CardsDealt, DiceRolled, Event, GameCreated, MovePlayed
from domain.model import CHANCE_KINDS, Deal, Draw, Roll, sample
from domain.replay import Replay, settle
from domain.ruleset import RuleSet

LABELS = ((0.15, "blunder"), (0.07, "mistake"), (0.03, "inaccuracy"))
HANDS = frozenset({"partners", "sorry-hand"})
"""Rule sets whose seats play from hidden hands: there a look one step ahead would take the
best of the hand's cards by the model, an optimistic guess that scores worse than the model
of the position itself (``bench/analysis.py``), so their chances are the model's."""
DEAL_SAMPLES = 8
MEMORY = 4096

Chances = dict[int, float]
Step = tuple[int, Event, Any]
CHANCES = (DiceRolled, CardDrawn, CardsDealt)


class Point(msgspec.Struct, frozen=True, omit_defaults=True):
    """One analysed version: the chances before its event, and its luck or equity loss; or a
    finished game's result, the chances once its last event happened."""

    version: int
    kind: str
    """``chance``, ``decision`` or ``result``."""
    seat: int
    chances: list[float]
    half_width: list[float]
    luck: list[float] | None = None
    loss: float | None = None
    best: str | None = None
    label: str | None = None


class Analysis(msgspec.Struct, frozen=True):
    """A game's analysis: its points and, per seat, luck gained and chances lost to decisions."""

    ruleset: str
    seats: int
    points: list[Point]
    luck: list[float]
    lost: list[float]


def label(loss: float) -> str | None:
    """The word for an equity loss this large, if any."""
    return next((word for limit, word in LABELS if loss >= limit), None)


def after(rules: RuleSet[Any], state: Any, events: Iterable[Event]) -> Any:
    """The state once ``events`` and the automatic events after them happened."""
    for event in events:
        state = rules.apply(state, event)
    return settle(rules, state)[0]


class Valuer:
    """Values the positions of one rule set under its model. A position met again (the same
    pieces reached by moves in another order, or by another throw) is valued once, among the
    last ``MEMORY`` positions valued. ``by_view``: positions are known by their public view,
    which is all the model reads, so positions that differ only in hidden cards (the fills of
    a hint) are valued once too; otherwise by their state, which is cheaper where nothing is
    hidden."""

    def __init__(self, rules: RuleSet[Any], model: Model, by_view: bool = False) -> None:
        self.rules, self.model, self.by_view = rules, model, by_view
        self.known: dict[Any, Chances] = {}

    def chances(self, state: Any) -> Chances:
        """The model's chances of a position."""
        shown = self.rules.view(state, None) if self.by_view else None
        key = state if shown is None else msgspec.json.encode(shown)
        known = self.known.get(key)
        if known is None:
            if len(self.known) >= MEMORY:
                del self.known[next(iter(self.known))]
            known = self.known[key] = chances(self.rules, state, self.model, shown)
        return known

    def value(self, state: Any) -> Chances:
        """Chances of a position; where a seat must move, as its best move leaves them."""
        rules = self.rules
        pending = rules.to_act(state)
        if not pending or pending[0].kind in CHANCE_KINDS:
            return self.chances(state)
        seat = pending[0].seat
        options = [self.move_value(state, seat, move.id) for move in rules.legal_moves(state, seat)]
        return max(options, key=lambda found: found[seat]) if options else self.chances(state)

    def move_value(self, state: Any, seat: int, move: str) -> Chances:
        """Chances once ``seat`` played ``move``."""
        rules = self.rules
        return self.chances(after(rules, state, rules.decide(state, seat, move)))


def outcomes(
    rules: RuleSet[Any], state: Any, seat: int, rng: random.Random
) -> list[tuple[Event, float]]:
    """Every outcome of the pending chance with its weight (deals: a seeded sample)."""
    match rules.chance(state):
        case Roll(dice=count):
            faces = Counter(tuple(sorted(d)) for d in itertools.product(range(1, 7), repeat=count))
            return [(DiceRolled(seat, dice), n / 6**count) for dice, n in sorted(faces.items())]
        case Draw(pile=pile):
            kinds = Counter(pile)
            return [(CardDrawn(seat, card), n / len(pile)) for card, n in sorted(kinds.items())]
        case Deal(seats=seats) as deal:
            hands = [sample(deal, rng) for _ in range(DEAL_SAMPLES)]
            return [(CardsDealt(seat, seats, dealt), 1 / DEAL_SAMPLES) for dealt in hands]
    return []


def luck(valuer: Valuer, state: Any, event: Event, rng: random.Random) -> Chances:
    """Each seat's chance after ``event`` minus its average over all outcomes."""
    actual, mean = looked_ahead(valuer, state, event, rng)
    return {s: actual[s] - mean.get(s, 0.0) for s in actual}


def looked_ahead(
    valuer: Valuer, state: Any, event: Event, rng: random.Random
) -> tuple[Chances, Chances]:
    """Each seat's chance once the chance ``event`` happened, and its average over every
    outcome the chance could have had, each weighed by its probability: the position's value
    looked one outcome ahead."""
    seat = getattr(event, "seat", getattr(event, "dealer", 0))
    known: dict[Any, Chances] = {}

    def value_after(outcome: Event) -> Chances:
        """The value once ``outcome`` happened, once per distinct position (a throw that
        passes the turn leads where every other such throw leads)."""
        position = after(valuer.rules, state, [outcome])
        if position not in known:
            known[position] = valuer.value(position)
        return known[position]

    actual = value_after(event)
    mean: Chances = dict.fromkeys(actual, 0.0)
    for outcome, weight in outcomes(valuer.rules, state, seat, rng):
        for s, chance in value_after(outcome).items():
            mean[s] = mean.get(s, 0.0) + weight * chance
    return actual, mean


def replayed(log: Iterable[tuple[int, Event]]) -> tuple[GameCreated, RuleSet[Any], Iterator[Step]]:
    """A game's creation, its rules and, for every later event, (version, event, the state
    before it)."""
    iterator = iter(log)
    _, created = next(iterator)
    assert isinstance(created, GameCreated), "a game's log starts with GameCreated"
    replay = Replay(created)

    def steps() -> Iterator[Step]:
        for version, event in iterator:
            yield version, event, replay.state
            replay.push(version, event)

    return created, replay.rules, steps()


class Analyser:
    """An analysis folded event by event from a game's creation: after any events pushed,
    ``result()`` is ``analyse`` of the log pushed so far (a point depends only on its event and
    the state before it), so a running game's analysis goes on from its last version instead
    of starting again."""

    def __init__(self, created: GameCreated, seed: str = "") -> None:
        self.replay, self.seed = Replay(created), seed
        self.seats, self.ruleset = len(created.seats), created.ruleset
        self.valuer = Valuer(self.replay.rules, load(created.ruleset))
        self.points: list[Point] = []
        self.version = 1

    def push(self, version: int, event: Event) -> None:
        """Analyse the event at ``version`` (the next in the log) and fold it."""
        state = self.replay.state
        point = examine(self.valuer, state, version, event, random.Random(f"{self.seed}:{version}"))
        if point is not None:
            self.points.append(point)
        self.replay.push(version, event)
        self.version = version

    def result(self) -> Analysis:
        """The analysis of the log pushed so far; a finished game's ends at its result."""
        points, seats = list(self.points), self.seats
        end = ending(self.replay.rules, self.replay.state, self.version, seats)
        if end is not None:
            points.append(end)
        luck_total = [round(sum(p.luck[s] for p in points if p.luck), 4) for s in range(seats)]
        lost = [round(sum(p.loss or 0.0 for p in points if p.seat == s), 4) for s in range(seats)]
        return Analysis(self.ruleset, seats, points, luck_total, lost)

    def forget(self) -> None:
        """Drop the positions valued so far (a memory, not a result) before it is set aside."""
        self.valuer.known.clear()


def ending(rules: RuleSet[Any], state: Any, version: int, seats: int) -> Point | None:
    """The last point of a finished game, at its last ``version``: the winners share 1 (in a
    team game, the winning team's seats a half each), the others 0, known exactly; None while
    the game goes on or where it ended without a winner."""
    winners = rules.view(state, None).winners
    if not winners:
        return None
    shares = [round(1 / len(winners), 4) if s in winners else 0.0 for s in range(seats)]
    return Point(version, "result", min(winners), shares, [0.0] * seats)


def started(
    log: Iterable[tuple[int, Event]], seed: str = ""
) -> tuple[Analyser, Iterator[tuple[int, Event]]]:
    """An analyser of a game given as its (version, event) log, and the events after its
    creation."""
    iterator = iter(log)
    _, created = next(iterator)
    assert isinstance(created, GameCreated), "a game's log starts with GameCreated"
    return Analyser(created, seed), iterator


def analyse(
    log: Iterable[tuple[int, Event]], seed: str = "", progress: Callable[[int], None] | None = None
) -> Analysis:
    """The analysis of a game given as its (version, event) log; the same log and seed give the
    same analysis. ``progress`` is told each version as it is done."""
    analyser, rest = started(log, seed)
    for version, event in rest:
        analyser.push(version, event)
        if progress is not None:
            progress(version)
    return analyser.result()


def luck_totals(log: Iterable[tuple[int, Event]], seed: str = "") -> list[float]:
    """Each seat's luck summed over a game, the same as ``analyse(log, seed).luck``, without
    the chances and decisions' equity losses that ``analyse`` also computes."""
    created, rules, steps = replayed(log)
    valuer = Valuer(rules, load(created.ruleset))
    totals = [0.0] * len(created.seats)
    for version, event, state in steps:
        if isinstance(event, CHANCES):
            moved = luck(valuer, state, event, random.Random(f"{seed}:{version}"))
            totals = [total + round(moved.get(s, 0.0), 4) for s, total in enumerate(totals)]
    return [round(total, 4) for total in totals]


def examine(
    valuer: Valuer, state: Any, version: int, event: Event, rng: random.Random
) -> Point | None:
    """The point of one event, if it is a chance outcome or a decision. Its chances are the
    position's looked one step ahead: before a chance outcome, the average over every outcome
    of the chances it leads to (so an outcome's luck is what it moved the chances by); before
    a decision, the chances the mover's best move keeps. Where seats play from hidden hands
    (``HANDS``) the chances are the model's of the position itself."""
    ahead = valuer.rules.NAME not in HANDS
    if isinstance(event, CHANCES):
        seat = getattr(event, "seat", getattr(event, "dealer", 0))
        actual, mean = looked_ahead(valuer, state, event, rng)
        now = _sum_to_one(mean) if ahead else valuer.chances(state)
        gained = [round(actual[s] - mean.get(s, 0.0), 4) for s in range(len(actual))]
        return Point(version, "chance", seat, *_shown(valuer, now), luck=gained)
    if isinstance(event, MovePlayed) and not event.auto:
        seat = event.seat
        kept = {
            m.id: valuer.move_value(state, seat, m.id)
            for m in valuer.rules.legal_moves(state, seat)
        }
        values = {move: found[seat] for move, found in kept.items()}
        best = max(values, key=lambda move: values[move])
        loss = round(max(0.0, values[best] - values.get(event.move, values[best])), 4)
        return Point(
            version,
            "decision",
            seat,
            *_shown(valuer, kept[best] if ahead else valuer.chances(state)),
            loss=loss,
            best=best,
            label=label(loss),
        )
    return None


def _sum_to_one(chances: Chances) -> Chances:
    """Chances scaled to sum to one (a sum of weighed chances may be a rounding off)."""
    total = sum(chances.values()) or 1.0
    return {s: c / total for s, c in chances.items()}


def _shown(valuer: Valuer, now: Chances) -> tuple[list[float], list[float]]:
    """Chances by seat number as a point shows them, and their half-widths."""
    shown = [round(now.get(s, 0.0), 4) for s in range(max(now) + 1)]
    return shown, [round(half_width(valuer.model, c, len(now)), 4) for c in shown]
