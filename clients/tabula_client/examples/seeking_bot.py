"""A bot that seeks games and plays them, the way Lichess bots run: it takes a player's key
(or registers a handle, or seeks as a guest), posts a seek (``POST /seeks``), waits until the
seek is matched, plays its own seat with the key (or, as a guest, with the seek's secret, which
is the seat's token) until the game ends, then seeks again, ``--games`` times in all. A
player's bot waits on her feed (``GET /me/socket``: the ``seek-matched`` note names the table,
and the open feed keeps the seek alive); a guest's reads ``GET /seeks/{id}`` until it is
matched.

    python -m tabula_client.examples.seeking_bot http://127.0.0.1:8000 --handle robo \\
        --ruleset race35 --players 2 --games 3 --bot greedy

It waits for the others' moves on the game's socket (pushed events, no polling) and reads the
game's state after each batch. It prints one line per seek matched and per game finished:

    matched seek s_... at game g_... seat 1 (told by the feed)
    finished game g_... at version 57: winners [1] (won)

Exits 1 when a seek expires or is cancelled before it is matched.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

from tabula_client import Bot, Client, Conflict, GameView, GreedyBot, RandomBot
from tabula_client.bots import pending_seats
from tabula_client.wire import SeekView

WAIT_SECONDS = 0.25
"""How long the bot waits between two reads of a seek that is still waiting."""
QUIET_SECONDS = 30.0
"""How long the bot waits on the game's socket for an event before it reads the state again."""


@dataclass(frozen=True)
class Seat:
    """A matched seek's seat: its game, its number, and the client that plays it (the
    player's key, or the guest's secret)."""

    game_id: str
    seat: int
    client: Client


def seek_and_wait(client: Client, args: argparse.Namespace) -> Seat:
    """Post a seek and wait until it is matched (on the player's feed, if she is one); the
    seat it sat the bot at."""
    if client.token:
        with client.feed() as feed:  # open before the seek: its match comes live
            new = client.post_seek(args.ruleset, args.players, rated=args.rated)
            while True:
                for note in feed.notes(timeout=QUIET_SECONDS):
                    if note.kind == "seek-matched" and (note.seek or new.id) == new.id:
                        told = f"at game {note.game_id} seat {note.seat} (told by the feed)"
                        print(f"matched seek {new.id} {told}", flush=True)
                        return Seat(note.game_id, note.seat, client)
                if client.seek(new.id).status != "waiting":  # a long silence: look
                    return matched(client, new.id)
    new = client.post_seek(args.ruleset, args.players, name=args.guest)
    assert new.secret is not None  # a guest's seek: its secret is her seat's token
    return matched(client.with_token(new.secret), new.id)


def matched(owner: Client, seek_id: str) -> Seat:
    """Read the seek until it is no longer waiting; its seat, once matched."""
    seek: SeekView = owner.seek(seek_id)
    while seek.status == "waiting":
        time.sleep(WAIT_SECONDS)
        seek = owner.seek(seek_id)
    if seek.status != "matched" or seek.game_id is None or seek.seat is None:
        raise SystemExit(f"seek {seek_id} was {seek.status} before it was matched")
    print(f"matched seek {seek_id} at game {seek.game_id} seat {seek.seat}", flush=True)
    return Seat(seek.game_id, seek.seat, owner)


def play_seat(seat: Seat, bot: Bot) -> GameView:
    """Play ``seat`` with ``bot`` until the game ends; the final state."""
    client, game_id = seat.client, seat.game_id
    with client.socket(game_id) as live:
        view = client.game(game_id)
        while not view.is_finished:
            if seat.seat not in pending_seats(view):
                next(live.events(timeout=QUIET_SECONDS), None)  # the others act: wait
                view = client.game(game_id)
                continue
            legal = client.legal_moves(game_id)
            if not legal.moves:
                view = client.game(game_id)
                continue
            move = bot.choose(view, legal.moves)
            try:
                played = client.play(game_id, move, expected_version=legal.version)
            except Conflict:  # something came between the read and the move: read again
                view = client.game(game_id)
                continue
            view = played.state if played.state is not None else client.game(game_id)
    return view


def signed_in(client: Client, args: argparse.Namespace) -> Client:
    """The client the bot seeks with: a player's key given or registered, or a guest."""
    if args.key:
        return client.with_token(args.key)
    if args.handle:
        registered = client.register_player(args.handle)
        print(f"registered {registered.handle}", flush=True)
        return client.with_token(registered.key)
    return client


def options(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url", nargs="?", default="http://127.0.0.1:8000")
    who = parser.add_mutually_exclusive_group()
    who.add_argument("--key", help="a registered player's key (tabula_pk_...)")
    who.add_argument("--handle", help="register this handle and seek with its key")
    parser.add_argument("--guest", default="Robot", help="the guest's name (no key or handle)")
    parser.add_argument("--ruleset", default="race35")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--rated", action="store_true", help="rated seeks (players only)")
    parser.add_argument("--games", type=int, default=1, help="how many games to seek and play")
    parser.add_argument("--bot", choices=("random", "greedy"), default="random")
    parser.add_argument("--seed", default=None, help="the bot's seed (reproducible choices)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = options(argv)
    bot: Bot = GreedyBot(args.seed) if args.bot == "greedy" else RandomBot(args.seed)
    with Client(args.url) as anonymous:
        client = signed_in(anonymous, args)
        for _ in range(args.games):
            seat = seek_and_wait(client, args)
            final = play_seat(seat, bot)
            result = "won" if seat.seat in final.winners else "lost"
            winners = list(final.winners)
            print(
                f"finished game {seat.game_id} at version {final.version}: "
                f"winners {winners} ({result})",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
