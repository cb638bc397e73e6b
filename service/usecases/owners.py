"""The bots' fair share: whose each game with bots is, at most so many such games running per
owner, and the pending bot decisions served owner by owner.

A game's owner is the caller that seated its bots: the client address of the request that
created it (``POST /games``, a batch, a tournament's round) or handed one of its seats to a
bot. The request runs its commit inside ``seating``, which refuses it over the owner's cap
before anything is written; the bot driver, told of the commit on the same thread, records
the game as the owner's (``seated``). A game of no known owner (resumed after a restart,
seated by a clock's take-over in a game of no owner, written by another process) is its own
owner, under no cap.

With several processes (``shared``), each game with bots holds a slot of its owner's counted
across them (renewed while its process lives), and a write seating bots holds as many slots
as games it may seat while it runs: the cap is the owner's across every process.

The driver's workers ``take`` the games due one at a time: one game of the owner whose turn
it is, that owner then to the back of the turns. So a decision due waits for at most one
decision of each other owner with decisions due, however many games those owners run.
"""

from __future__ import annotations

import threading
from collections import Counter, deque
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from service.core.refusal import Refusal, refuse
from service.usecases.budgets import SharedSlots

RETRY_SECONDS = 10
"""The Retry-After of a creation over the cap: about a bot game's minute, played fairly."""
SETTING = "TABULA_MAX_BOT_GAMES_PER_CLIENT"


class BotShare:
    """The owners of the running games with bots, and the games whose bot decision is due,
    queued per owner and served round-robin."""

    def __init__(self, per_owner: int = 0, shared: SharedSlots | None = None) -> None:
        self.per_owner = per_owner  # 0: no cap
        self.shared = shared  # the owners' games counted across processes, if several
        self.changed = threading.Condition()
        self.owner_of: dict[str, str] = {}  # game id: owner, for games seated by a known owner
        self.running: dict[str, set[str]] = {}  # owner: its games with bots
        self.reserved: Counter[str] = Counter()  # owner: games being seated now
        self.due: dict[str, deque[str]] = {}  # owner: its games with a decision due, in order
        self.turns: deque[str] = deque()  # owners with games due, whose turn first
        self.queued: set[str] = set()
        self.closed = False
        self.seating_owner = threading.local()

    @contextmanager
    def seating(self, owner: str | None, games: int) -> Iterator[None]:
        """Run a write that may seat bots in up to ``games`` games for ``owner`` (None: no
        one's): refused with 429 ``rate-limited`` if the owner's running games with bots
        would then be over the cap; the games the write seats bots in are the owner's."""
        if owner is None:
            yield
            return
        with self.changed:
            held = len(self.running.get(owner, ())) + self.reserved[owner]
            if self.per_owner and games and held + games > self.per_owner:
                raise self.over_cap(f"{held} of this address's are")
            self.reserved[owner] += games
        holder = self.reserve(owner, games)
        self.seating_owner.owner = owner
        try:
            yield
        finally:
            self.seating_owner.owner = None
            with self.changed:
                self.reserved[owner] -= games
                if self.reserved[owner] <= 0:
                    del self.reserved[owner]
            if holder is not None and self.shared is not None:
                self.shared.release(owner, holder, games)

    def reserve(self, owner: str, games: int) -> str | None:
        """With several processes, hold ``games`` slots of ``owner``'s across them while the
        write runs (each game it seats then holds one of its own): the slots' holder, or None
        when there is nothing to hold. Over the cap, 429 (and this process's reservation goes
        back)."""
        if self.shared is None or not self.per_owner or not games:
            return None
        holder = f"seating:{self.shared.holder()}"
        if self.shared.acquire(owner, holder, games) is not False:
            return holder  # None from the database: this process's count stands alone
        with self.changed:
            self.reserved[owner] -= games
            if self.reserved[owner] <= 0:
                del self.reserved[owner]
        raise self.over_cap("as many of this address's as may be, on this server and others,")

    def over_cap(self, held: str) -> Refusal:
        """The 429 of an owner with ``held`` running."""
        return refuse(
            "rate-limited",
            f"too many games with bots: {held} running and at most {self.per_owner} may "
            f"run at once ({SETTING}); retry in {RETRY_SECONDS} s, once one has finished (a "
            "forfeit or an agreement ends one)",
            retry_after=RETRY_SECONDS,
            limit=self.per_owner,
            setting=SETTING,
        )

    def seated(self, game_id: str) -> None:
        """A commit on this thread seated a bot in ``game_id``: the game is the owner's of the
        ``seating`` it runs in, if any, unless it has an owner already."""
        owner = getattr(self.seating_owner, "owner", None)
        if owner is None:
            return
        with self.changed:
            if game_id in self.owner_of:
                return
            self.owner_of[game_id] = owner
            self.running.setdefault(owner, set()).add(game_id)
        if self.shared is not None and self.per_owner:
            self.shared.hold(owner, game_id)

    def done(self, game_id: str) -> None:
        """No bot plays in ``game_id`` any more (it finished, or every bot seat was handed
        back): it counts against its owner's cap no more."""
        with self.changed:
            owner = self.owner_of.pop(game_id, None)
            games = self.running.get(owner or "")
            if games is not None:
                games.discard(game_id)
                if not games:
                    del self.running[owner or ""]
        if owner is not None and self.shared is not None and self.per_owner:
            self.shared.release(owner, game_id)

    def owned(self) -> set[str]:
        """The games of a known owner."""
        with self.changed:
            return set(self.owner_of)

    def put(self, game_id: str) -> None:
        """A decision of ``game_id`` may be due: queue the game behind its owner's others
        (once: a game queued already stays where it is)."""
        with self.changed:
            if self.closed or game_id in self.queued:
                return
            self.queued.add(game_id)
            owner = self.owner_of.get(game_id, f"game:{game_id}")
            due = self.due.get(owner)
            if due is None:
                due = self.due[owner] = deque()
                self.turns.append(owner)
            due.append(game_id)
            self.changed.notify()

    def take(self) -> str | None:
        """The next game to play a decision of, waiting for one: the first of the owner whose
        turn it is (None once closed)."""
        with self.changed:
            while not self.turns and not self.closed:
                self.changed.wait()
            if self.closed:
                return None
            owner = self.turns.popleft()
            due = self.due[owner]
            game_id = due.popleft()
            if due:
                self.turns.append(owner)
            else:
                del self.due[owner]
            self.queued.discard(game_id)
            return game_id

    def keep(self, running: Iterable[str], among: set[str]) -> None:
        """Of the games ``among`` (owned before a look at the running games began), let go of
        those the look did not find ``running`` (finished unseen, say while out of memory)."""
        for game_id in among - set(running):
            self.done(game_id)

    def close(self) -> None:
        """Wake every worker waiting in ``take``: there is nothing more to play."""
        with self.changed:
            self.closed = True
            self.changed.notify_all()
