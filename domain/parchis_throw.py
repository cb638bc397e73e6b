"""A two-dice throw decided as one unit (``parchis-2dice`` from version 2, rules/parchis.md
§8.1): ``WholeThrow``, the variant of ``parchis.Parchis`` that plays it.

Every complete play of the throw is enumerated from the position where the dice fell: exits
first (§8.1.2), then the remaining dice as forward moves in either order (§8.1.3), each bonus
count resolved as soon as it is earned and before the next die (§8.1.6, §5.6: compulsory when
some piece can make it, else lost). The plays kept are those using the most dice (§8.1.4), then
the most exits, then, on doubles with a barrier, those whose die moves open one (§8.1.5). A
play is offered a decision at a time: its die moves up to one that earns a bonus, then each
bonus count on its own, then the rest of that same play. ``State.played`` holds the decisions
already made in the throw and ``State.origin`` the position the throw started from, so the
plays are enumerated once per throw (memoised) and filtered by what was played.

Readings where the rules file is silent:

- Exits are made only before any die moves forward: a 5 left after a forward move (and its
  bonus) is a forward move of 5, even if a piece could now leave jail. A bonus earned by an
  exit's capture is resolved before the next exit.
- Where exits compete with dice (a bonus between two exits decides whether the second exit is
  possible), the plays using the most dice are kept first, then those with the most exits.
- The barrier duty arises from the barriers the seat owns once its exits are made (as in
  version 1), before the bonus an exit's capture earns is played (from version 3; version 2
  judged it after that bonus, so a bonus that opened the barrier lifted the duty), and is met
  by a die move, not a bonus count, that leaves an own barrier.
- A win ends the play; it counts only the dice it used, so a one-die win competes with
  another one-die play (issue 21, position 1).
- Plays of one decision that end in the same position (own pieces, pieces captured, dice used)
  are one choice; the first found is listed.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple

from msgspec.structs import replace

from domain.events import MovePlayed
from domain.parchis import (
    BOARD,
    EXIT_DIE,
    GOAL,
    Occupancy,
    Parchis,
    Play,
    Rules,
    Spot,
    State,
    Sub,
    distance,
    do,
    forward,
    has_won,
    is_repeat,
    leave_jail,
    make_play,
    movers,
    occupancy,
    owns_barrier,
    without,
)
from domain.parchis_board import PIECES, START


class WholeThrow(Parchis):
    """``parchis.Parchis`` deciding each two-dice throw as one unit; ``exits_set_duty``: the
    barrier duty is judged right after the exits, before an exit's bonus (version 3), else once
    the die moves begin (version 2)."""

    def __init__(self, exits_set_duty: bool) -> None:
        self.exits_set_duty = exits_set_duty

    def plays(self, state: State) -> tuple[Play, ...]:
        """The next decisions of the throw's best plays (parts a time before the throw)."""
        if state.origin is None:
            return super().plays(state)
        return tuple(throw_choices(state, self.exits_set_duty))

    def ignoring_duty(self, state: State) -> list[str]:
        """The next decisions there would be without the barrier duty."""
        if state.origin is None:
            return super().ignoring_duty(state)
        return [play.move.id for play in throw_choices(state, self.exits_set_duty, duty=False)]

    def rolled(self, state: State, dice: tuple[int, ...]) -> State:
        """The throw, and the position it starts from."""
        return replace(
            super().rolled(state, dice), origin=Spot(state.pos, state.stamp, state.clock)
        )

    def recorded(self, after: State, event: MovePlayed) -> State:
        """The decision joins those made in the throw."""
        return replace(after, played=(*after.played, event.move))


class Throw(NamedTuple):
    """What a throw's plays depend on: the rules, the seats, who threw what, and where, and
    when the barrier duty is judged (``WholeThrow.exits_set_duty``)."""

    rules: Rules
    colours: tuple[int, ...]
    turn: int
    dice: tuple[int, ...]
    origin: Spot
    exits_set_duty: bool


class Line(NamedTuple):
    """One complete play: its sub-moves with the position after each, whether the barrier
    duty bound it and whether one of its die moves opened a barrier."""

    steps: tuple[tuple[Sub, Spot], ...]
    duty: bool
    opened: bool


class Decision(NamedTuple):
    """One decision of a play: its sub-moves, the position after them, whether it is a bonus
    count."""

    subs: tuple[Sub, ...]
    end: Spot
    bonus: bool


def throw_choices(state: State, exits_set_duty: bool, duty: bool = True) -> list[Play]:
    """The next decisions of the throw's best plays that extend what was already played."""
    assert state.origin is not None
    throw = Throw(state.rules, state.colours, state.turn, state.throw, state.origin, exits_set_duty)
    depth, seen, plays = len(state.played), set(), []
    for decisions in best_plays(throw, duty):
        if len(decisions) <= depth or decisions[depth].bonus != bool(state.bonus):
            continue
        if depth and decision_ids(throw, decisions[:depth]) != state.played:
            continue
        decision = decisions[depth]
        key = same_position(throw, decision)
        if key not in seen:
            seen.add(key)
            plays.append(make_play(state, decision.subs, decision.end))
    return plays


@lru_cache(maxsize=256)
def best_plays(throw: Throw, duty: bool) -> tuple[tuple[Decision, ...], ...]:
    """The throw's best plays, each cut into its decisions (memoised per throw)."""
    lines: list[Line] = []
    explore(throw, throw.origin, throw.dice, (), True, None, False, (), lines)
    if not lines:
        return ()
    ranks = [rank(line) for line in lines]
    top = max(ranks)
    lines = [line for line, ranked in zip(lines, ranks, strict=True) if ranked == top]
    if duty:
        lines = [line for line in lines if line.opened or not line.duty] or lines
    return tuple(decisions(throw, line) for line in lines)


def rank(line: Line) -> tuple[int, int]:
    """Dice used, then exits."""
    used = exits = 0
    for sub, _ in line.steps:
        used += len(sub.uses)
        exits += sub.origin == START
    return used, exits


def explore(
    throw: Throw,
    spot: Spot,
    dice: tuple[int, ...],
    owed: tuple[int, ...],
    exiting: bool,
    duty: bool | None,
    opened: bool,
    steps: tuple[tuple[Sub, Spot], ...],
    found: list[Line],
) -> None:
    """Add to ``found`` every complete play from ``spot`` with ``dice`` left and bonus counts
    ``owed`` (``duty`` is None until the die moves begin)."""
    seat, rules = throw.turn, throw.rules
    if steps and steps[-1][0].target == GOAL and has_won(spot.pos, seat):
        found.append(Line(steps, bool(duty), opened))
        return
    if owed:
        subs = bonus_moves(throw, spot, owed[0])
        if not subs:
            explore(throw, spot, dice, owed[1:], exiting, duty, opened, steps, found)
        for sub in subs:
            end = do(spot, sub)
            more = earned(rules, sub) + owed[1:]
            explore(throw, end, dice, more, exiting, duty, opened, (*steps, (sub, end)), found)
        return
    if exiting and (out := exit_move(throw, spot, dice)) is not None:
        end, rest = do(spot, out), dice
        for die in out.uses:
            rest = without(rest, die)
        if throw.exits_set_duty:
            duty = duty_of(throw, end, rest)
        owe = earned(rules, out)
        explore(throw, end, rest, owe, True, duty, opened, (*steps, (out, end)), found)
        return
    if duty is None:
        duty = duty_of(throw, spot, dice)
    before = len(found)
    if dice:
        occ, pieces = occupancy(throw.colours, spot), movers(spot, seat)
        for i, die in enumerate(dice):
            if die in dice[:i]:
                continue
            rest = dice[:i] + dice[i + 1 :]
            for sub in die_moves(throw, spot, occ, pieces, die):
                end = do(spot, sub)
                owe, opens = earned(rules, sub), opened or sub.opens
                explore(throw, end, rest, owe, False, duty, opens, (*steps, (sub, end)), found)
    if len(found) == before:
        found.append(Line(steps, duty, opened))


def duty_of(throw: Throw, spot: Spot, dice: tuple[int, ...]) -> bool:
    """Whether the die moves left must open a barrier, if some play can (§8.1.5)."""
    return bool(dice) and is_repeat(throw.dice) and owns_barrier(throw.colours, spot, throw.turn)


def exit_move(throw: Throw, spot: Spot, dice: tuple[int, ...]) -> Sub | None:
    """The compulsory exit now: on a 5, or on both dice adding up to 5 (§8.1.2)."""
    uses: tuple[int, ...] = (EXIT_DIE,)
    if EXIT_DIE in dice:
        label = str(EXIT_DIE)
    elif len(dice) == 2 and sum(dice) == EXIT_DIE:
        label, uses = f"{dice[0]}+{dice[1]}", dice
    else:
        return None
    sub = leave_jail(throw.colours, spot, occupancy(throw.colours, spot), throw.turn)
    return None if sub is None else sub._replace(label=label, uses=uses)


def die_moves(throw: Throw, spot: Spot, occ: Occupancy, pieces: list[int], die: int) -> list[Sub]:
    """The forward move by ``die`` (§5.1) of each of ``pieces``."""
    n = distance(throw.rules, throw.turn, spot, die)
    subs, label, uses = [], str(die), (die,)
    for piece in pieces:
        sub = forward(throw.colours, spot, occ, piece, n)
        if sub is not None:
            subs.append(Sub(*sub[:5], label, uses))
    return subs


def bonus_moves(throw: Throw, spot: Spot, count: int) -> list[Sub]:
    """Each piece's move by a bonus count (§5.6; no barrier duty)."""
    occ, label = occupancy(throw.colours, spot), f"bonus{count}"
    subs = []
    for piece in movers(spot, throw.turn):
        sub = forward(throw.colours, spot, occ, piece, count)
        if sub is not None:
            subs.append(Sub(*sub[:5], label))
    return subs


def earned(rules: Rules, sub: Sub) -> tuple[int, ...]:
    """The bonus count a sub-move earns, if any (as ``parchis.earned_bonus`` counts them)."""
    if sub.captured >= 0 and rules.capture_bonus > 0:
        return (rules.capture_bonus,)
    if sub.target == GOAL and rules.home_bonus > 0:
        return (rules.home_bonus,)
    return ()


def decisions(throw: Throw, line: Line) -> tuple[Decision, ...]:
    """A play cut after each sub-move that earns a bonus, each bonus count a decision alone."""
    cut: list[Decision] = []
    chunk: list[Sub] = []
    last = len(line.steps) - 1
    for i, (sub, end) in enumerate(line.steps):
        chunk.append(sub)
        if not sub.uses or earned(throw.rules, sub) or i == last:
            cut.append(Decision(tuple(chunk), end, not chunk[0].uses))
            chunk = []
    return tuple(cut)


def decision_ids(throw: Throw, decisions: tuple[Decision, ...]) -> tuple[str, ...]:
    """The move ids of ``decisions`` (as ``make_play`` spells them)."""
    place = BOARD.names[throw.colours[throw.turn]]
    return tuple(
        ",".join(f"{sub.label}:{place[sub.origin + 1]}>{place[sub.target + 1]}" for sub in d.subs)
        for d in decisions
    )


def same_position(throw: Throw, decision: Decision) -> tuple[Any, ...]:
    """What makes two decisions one (§8.1): own pieces after, pieces captured, dice used."""
    subs, end = decision.subs, decision.end
    mine = tuple(sorted(end.pos[throw.turn * PIECES : (throw.turn + 1) * PIECES]))
    captured = tuple(sorted(sub.captured for sub in subs if sub.captured >= 0))
    return mine, captured, tuple(sorted(u for sub in subs for u in sub.uses))
