"""Command line: ``python -m tabula_client play --ruleset race35 --players 3 --url URL`` (with
``--bot 1=expert`` a server bot plays seat 1), ``python -m tabula_client watch GAME_ID --url
URL`` to follow a game live, ``python -m tabula_client bots`` to list the bot levels."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

import httpx

from tabula_client.bots import play_game, seat_names
from tabula_client.client import Client
from tabula_client.errors import TabulaError
from tabula_client.models import GameView, StoredEvent
from tabula_client.routes import DEFAULT_URL
from tabula_client.wire import (
    CardExchangedEvent,
    GameCreatedEvent,
    GameFinishedEvent,
    MovePlayedData,
    MovePlayedEvent,
    MoveUndoneEvent,
    SeedRevealedEvent,
    TurnPassedEvent,
)


def build_parser() -> argparse.ArgumentParser:
    """The ``tabula_client`` argument parser."""
    parser = argparse.ArgumentParser(
        prog="python -m tabula_client", description="Play Tabula games from the command line."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    play = commands.add_parser("play", help="let random bots play a whole game")
    play.add_argument("--url", default=DEFAULT_URL, help=f"server URL (default {DEFAULT_URL})")
    play.add_argument("--ruleset", required=True, help="rule set name, e.g. race35")
    play.add_argument("--players", type=int, help="number of players (default: as many as names)")
    play.add_argument("--names", help="comma-separated seat names, e.g. Ann,Bob,Cat")
    play.add_argument("--seed", help="chance seed and bot seed, for a reproducible game")
    play.add_argument(
        "--bot",
        action="append",
        default=[],
        metavar="SEAT=LEVEL",
        help="the server's bot of LEVEL plays SEAT (see `bots`), e.g. --bot 1=expert",
    )
    play.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=JSON",
        help="a rule set option, e.g. --option red_square_effect='\"restart_player\"'",
    )
    watch = commands.add_parser("watch", help="follow a game live, one line per event")
    watch.add_argument("game_id", metavar="GAME_ID", help="the game to follow")
    watch.add_argument("--url", default=DEFAULT_URL, help=f"server URL (default {DEFAULT_URL})")
    watch.add_argument("--token", help="a seat's or the referee's token (to see its hand)")
    watch.add_argument(
        "--after", type=int, default=0, metavar="N", help="start after event N (default 0)"
    )
    rulesets = commands.add_parser("rulesets", help="list the server's rule sets")
    rulesets.add_argument("--url", default=DEFAULT_URL, help=f"server URL (default {DEFAULT_URL})")
    levels = commands.add_parser("bots", help="list the server's bot levels")
    levels.add_argument("--url", default=DEFAULT_URL, help=f"server URL (default {DEFAULT_URL})")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; the exit status."""
    args = build_parser().parse_args(argv)
    command: Callable[[argparse.Namespace], int] = COMMANDS[args.command]
    try:
        return command(args)
    except TabulaError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except httpx.HTTPError as error:
        print(f"error: cannot reach {args.url}: {error}", file=sys.stderr)
        return 2
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


class UsageError(ValueError):
    """Arguments that do not fit together."""


def run_play(args: argparse.Namespace) -> int:
    """Play a game with random bots, one line per move, then the winners."""
    names = player_names(args.players, args.names)
    printer = EventPrinter(names)
    with Client(args.url) as client:
        final = play_game(
            client,
            args.ruleset,
            names,
            options=parse_options(args.option),
            server_bots=parse_bots(args.bot, len(names)),
            seed=args.seed,
            on_event=printer,
        )
    print(describe_winners(final))
    return 0


def run_watch(args: argparse.Namespace) -> int:
    """Follow a game live, one line per move, until it has finished; then the winners."""
    if args.after < 0:
        raise UsageError(f"--after must be 0 or more, not {args.after}")
    with Client(args.url, token=args.token) as client:
        view = client.game(args.game_id)
        printer = EventPrinter([seat.name for seat in view.seats])
        for event in client.follow(args.game_id, after=args.after):
            printer(event)
        print(describe_winners(client.game(args.game_id)))
    return 0


def run_rulesets(args: argparse.Namespace) -> int:
    """List the rule sets with their player counts and options."""
    with Client(args.url) as client:
        for info in client.rulesets():
            players = f"{info.min_players}-{info.max_players} players"
            print(f"{info.name} (v{info.version}, {players}) options: {json.dumps(info.options)}")
    return 0


def run_bots(args: argparse.Namespace) -> int:
    """List the bot levels, weakest first, with the rule sets each plays."""
    with Client(args.url) as client:
        for level in client.bots():
            print(f"{level.name} (v{level.version}): {level.description}")
            print(f"    plays {', '.join(level.rulesets)}")
    return 0


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "play": run_play,
    "watch": run_watch,
    "rulesets": run_rulesets,
    "bots": run_bots,
}


def parse_bots(pairs: Sequence[str], seats: int) -> dict[int, str]:
    """``{seat: level}`` from ``SEAT=LEVEL`` pairs."""
    levels: dict[int, str] = {}
    for pair in pairs:
        seat, sep, level = pair.partition("=")
        if not sep or not seat.isdigit() or not level:
            raise UsageError(f"--bot {pair!r} is not SEAT=LEVEL (e.g. 1=expert)")
        if int(seat) >= seats:
            raise UsageError(f"--bot {pair!r}: seats are numbered 0 to {seats - 1}")
        levels[int(seat)] = level
    return levels


def player_names(players: int | None, names: str | None) -> list[str]:
    """Seat names from ``--players`` and ``--names``."""
    given = [name.strip() for name in names.split(",") if name.strip()] if names else []
    if players is None and not given:
        raise UsageError("give --players or --names")
    if players is not None and given and players != len(given):
        raise UsageError(f"--players {players} but {len(given)} names in --names")
    return given or seat_names(players or 0)


def parse_options(pairs: Sequence[str]) -> dict[str, Any]:
    """``{"name": value}`` from ``name=JSON`` pairs (a value that is not JSON is a string)."""
    options: dict[str, Any] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise UsageError(f"option {pair!r} is not NAME=VALUE")
        try:
            options[name] = json.loads(value)
        except json.JSONDecodeError:
            options[name] = value
    return options


class EventPrinter:
    """Prints one line per move (and per passed turn) as the game's events come in."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)

    def __call__(self, event: StoredEvent) -> None:
        line = describe_event(event, self.names)
        if line is not None:
            print(line, flush=True)


def who(seat: int, names: Sequence[str]) -> str:
    """``Ann (seat 0)``, or ``seat N`` when the name is not known."""
    if 0 <= seat < len(names):
        return f"{names[seat]} (seat {seat})"
    return f"seat {seat}"


def describe_event(event: StoredEvent, names: Sequence[str]) -> str | None:
    """A line for an event worth showing, ``None`` for the others (chance outcomes show in the
    move that uses them)."""
    prefix = f"#{event.version:<4}"
    match event:
        case GameCreatedEvent(data=created):
            return f"{prefix} {created.ruleset} game {event.game_id}: {', '.join(names)}"
        case MovePlayedEvent(data=move):
            return f"{prefix} {who(move.seat, names)}: {describe_move(move)}"
        case CardExchangedEvent(data=exchange):
            giver, taker = who(exchange.seat, names), who(exchange.to, names)
            return f"{prefix} {giver} gives {exchange.card} to {taker}"
        case TurnPassedEvent(data=passed):
            return f"{prefix} {who(passed.seat, names)} passes: {passed.reason}"
        case MoveUndoneEvent(data=undone):
            return f"{prefix} undone back to #{undone.reverts}: {undone.reason}"
        case GameFinishedEvent(data=finished):
            return f"{prefix} game over: {finished.reason or 'finished'}"
        case SeedRevealedEvent(data=revealed):
            return f"{prefix} seed revealed: {revealed.seed}"
    return None


def describe_move(move: MovePlayedData) -> str:
    """``throw:4 uses 4: red-1 track:1->track:5; bumps blue-1 track:5->track:1 (why)``."""
    used = " ".join(map(str, move.uses)) if isinstance(move.uses, list) else move.uses
    text = move.move
    if used is not None:
        text += f" uses {used}"
    if move.steps:
        text += ": " + ", ".join(f"{s.piece} {s.from_}->{s.to}" for s in move.steps)
    for effect in move.effects:
        text += f"; {effect.piece} {effect.from_}->{effect.to} ({effect.why})"
    return text


def describe_winners(view: GameView) -> str:
    """``winner: Ann (seat 0)``."""
    winners = [f"{view.seat_name(seat)} (seat {seat})" for seat in view.winners]
    if not winners:
        return f"game {view.game_id} {view.status} with no winner"
    label = "winner" if len(winners) == 1 else "winners"
    return f"{label}: {', '.join(winners)}"
