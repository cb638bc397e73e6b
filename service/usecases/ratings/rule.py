"""Which finished games count for ratings, and whose ratings they move.

A game counts when its log shows it was played by the people (and bots) it is kept for:

- it is rated (``GameCreated.rated``) and its chance is the server's (a physical throw or
  draw, typed in by the referee, is nobody's to check);
- every seat belongs to a registered player (``GameCreated.players``) or is played by a
  server-side bot from the start (``GameCreated.bots``): a free name (a guest) at any seat
  leaves the whole game out;
- every player's seat took part: some event of the log is ``by`` that seat, a decision
  (a move, a roll, a draw, a hand-over) made with the player's key. A player seated by
  someone else who never acts (whose clock runs out, say) is not rated by that game;
- a bot's seat stays the bot's: no event is ``by`` that seat (a person playing it) and no
  hand-over names it;
- no referee decision came after the creation (an event ``by`` the referee: a forfeit, a
  penalty, an agreement, a hand-over, an undo): in a game of registered players the referee
  is whoever created it, not a neutral party;
- nothing was undone once the seed was revealed (``SeedRevealed``, as the game finished): a
  game reopened then goes on with every card and die to come known;
- it was played here, not imported (a record's events say nothing of whose key made them);
- a table that gathered counts as if created with whoever took its seats (``SeatTaken``: a
  player's seat is hers, a guest's leaves the game out) and the bots it started with
  (``TableStarted``); joining, leaving and starting are nobody's part in the game, and a
  table closed before it started (``TableClosed``) never counts.

A player's rating is kept by handle; a bot's by ``bot:<level>``, one rating per level, which
every rated game against it anchors. ``RULE_VERSION`` names this rule in the rows folded under
it, so rows folded under an earlier rule are folded again (``fold.RulesetFold.reset``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from domain.events import (
    TABLE_EVENTS,
    GameCreated,
    MoveUndone,
    SeatHandedOver,
    SeatLeft,
    SeatTaken,
    SeedRevealed,
    TableClosed,
    TableStarted,
    parse_event,
)
from eventstore import StoredEvent, StreamInfo

RULE_VERSION = 2
"""The rule the derived rows were folded under: 1 rated every free name that played a rated
game; 2 is this module's."""
BOT = "bot:"
"""What a bot's rating key starts with (``bot:expert``); no handle holds a colon but an
app's namespaced one, and ``bot`` is reserved."""
REFEREE = "referee"
"""The ``by`` of the referee's events (and of every game's creation)."""


TABLE_NAMES = frozenset(event.__name__ for event in TABLE_EVENTS)
"""The stored types of a gathering table's events."""


def bot_key(level: str) -> str:
    """The key a bot of ``level`` is rated by."""
    return f"{BOT}{level}"


def is_bot(key: str) -> bool:
    """Whether a rating key is a bot's."""
    return key.startswith(BOT)


def candidate(document: dict[str, Any]) -> bool:
    """Whether a game's summary leaves it a chance to count (read before its log is): rated,
    and every seat a player's or a bot's. A summary kept before seats could belong to players
    has none, so the games it summarises (every seat a guest's) never count."""
    if not document.get("rated", True):
        return False
    players = document.get("players") or []
    bots = document.get("bots") or []
    seats = len(document["seats"])
    return len(players) == seats and all(
        player is not None or (seat < len(bots) and bots[seat])
        for seat, player in enumerate(players)
    )


def rating_keys(events: Sequence[StoredEvent], stream: StreamInfo | None) -> list[str] | None:
    """Per seat, the key its rating is kept by (a handle, or ``bot:<level>``) when the game
    these events record counts (see the module); None when it does not."""
    if not events or stream is None or "imported_from" in stream.meta:
        return None
    created = parse_event(events[0].type, events[0].data)
    if not isinstance(created, GameCreated) or not created.rated or created.chance != "server":
        return None
    keys: list[str | None] = [None] * len(created.seats)
    for player in created.players:
        keys[player.seat] = player.handle
    seated = [*created.bots]
    for stored in events[1:]:
        match parse_event(stored.type, stored.data) if stored.type in TABLE_NAMES else None:
            case SeatTaken(seat=seat, player=handle):
                keys[seat] = handle or None
            case SeatLeft(seat=seat):
                keys[seat] = None
            case TableStarted(bots=started):
                seated += started
            case TableClosed():
                return None
    bots = {bot.seat for bot in seated if keys[bot.seat] is None}
    for bot in seated:
        if bot.seat in bots:
            keys[bot.seat] = bot_key(bot.level)
    acted = took_part(events[1:], bots)
    if acted is None or None in keys:
        return None
    players = [seat for seat in range(len(keys)) if seat not in bots]
    return [key for key in keys if key is not None] if acted >= set(players) else None


def took_part(events: Sequence[StoredEvent], bots: set[int]) -> set[int] | None:
    """The seats some of ``events`` (those after the creation) are ``by``; None when one is
    the referee's, a bot's seat was played by a person or handed over, or something was
    undone after the seed was revealed."""
    acted: set[int] = set()
    revealed = False
    for stored in events:
        by, kind = stored.by, stored.type
        if kind in TABLE_NAMES:
            continue  # seating the table is nobody's part in the game
        if by == REFEREE or by in bots or (revealed and kind == MoveUndone.__name__):
            return None
        if kind == SeatHandedOver.__name__ and stored.data.get("seat") in bots:
            return None
        revealed = revealed or kind == SeedRevealed.__name__
        if isinstance(by, int):
            acted.add(by)
    return acted
