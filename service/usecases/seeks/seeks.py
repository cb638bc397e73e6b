"""``Seeks``: quick play. A player (her key) or a guest (no credential: she is given a secret)
posts a seek for a table of a shape; seeks of one shape are matched into complete games
(``domain.seeks.matching``) by whichever process appends the seek that completes a table,
which creates the game and records the match in one transaction, at the version of the
shape's stream it read: a conflict (another process wrote first) reads again and judges
again, so no seek is seated twice and none is lost. The same happens when a seek's time runs
out or its bots are due: each append sets the shape's stream's deadline to the next such
moment, and the clocks' sweeper (``enforce_due``) settles the shapes whose deadline came.

A seek expires ``seek_seconds`` after it was posted unless matched; ``renew`` (the player's
feed, while it is connected) gives a player's waiting seeks that long again.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from contextlib import suppress
from datetime import datetime, timedelta

import structlog

from domain.seeks.book import Book, Closed, Seek, step
from domain.seeks.events import SeekCancelled, SeekEvent, SeekPosted, SeeksOpened, SeeksRenewed
from domain.seeks.matching import next_due
from eventstore import iso_timestamp
from service.core.actor import Bearer, Player
from service.core.names import normal
from service.core.refusal import Refusal, refuse
from service.core.seating import seated as bot_level
from service.usecases import tokens
from service.usecases.games.creation import Creation, Now
from service.usecases.seeks.log import Held, SeekLog
from service.usecases.seeks.seating import apply, settle
from service.usecases.seeks.shapes import PREFIX, Shape, not_found, shape_of, stream_of
from service.usecases.seeks.wire import NewSeek, PostSeek, SeekView
from service.usecases.tokens import Keyed
from service.usecases.writer import Conflict

SEEK_SECONDS = 120.0
WRITE_ATTEMPTS = 20  # tries at a write while other processes append to the shape too
SERVER = "server"  # who the sweeper's appends are by
Ordinal = Callable[[str, str], float]
"""A registered player's rating in a rule set (its openskill ordinal): (ruleset, handle)."""
Change = Callable[[Book], list[SeekEvent]]


class Seeks:
    """Seeks posted, read, cancelled, renewed, and settled when their time comes."""

    def __init__(
        self,
        log: SeekLog,
        creation: Creation,
        ordinal: Ordinal,
        now: Now,
        seek_seconds: float = SEEK_SECONDS,
    ) -> None:
        self.log, self.creation, self.ordinal = log, creation, ordinal
        self.now, self.seek_seconds = now, seek_seconds

    def post(self, player: Player | None, body: PostSeek, key: Keyed | None = None) -> NewSeek:
        """Post a seek (a player's, or a guest's with a new secret, shown only in the
        reply); it is matched at once when it completes a table. With ``key`` (an
        Idempotency-Key as stored) the seek's id and secret are derived from it and the
        shape's append carries it: a retry gets the first reply and appends nothing."""
        shape = shape_of(body, self.creation)
        if key is not None and (first := self.again(shape.stream, key)) is not None:
            return first
        posted, secret = self.posting(player, body, shape, key)

        def change(book: Book) -> list[SeekEvent]:
            waiting = book.of(posted.handle)
            if waiting:
                why = f"`{posted.handle}` has a seek of this shape waiting already: {waiting[0].id}"
                raise refuse("already-seeking", why, seek=waiting[0].id)
            return [posted]

        self.write(shape.stream, change, posted.handle or "guest", shape.opened(), key)
        return NewSeek(posted.seek, secret)  # with a key, what a replay derives again too

    def again(self, stream: str, key: Keyed) -> NewSeek | None:
        """The reply to the seek posted with ``key`` (None: the key is new): its id, and a
        guest's secret derived again (409 ``idempotency-secrets-lost`` when it no longer
        matches the digest kept)."""
        earlier = self.log.writer.replayed(stream, key.scoped, key.fingerprint)
        if earlier is None:
            return None
        posted = next(event.data for event in earlier if event.type == "SeekPosted")
        if not posted.get("digest"):
            return NewSeek(str(posted["seek"]))
        secret = self.creation.minter.token(key.scoped, "seek")
        if tokens.token_hash(secret) != posted["digest"]:
            why = "this Idempotency-Key posted the seek already, but its secret cannot be "
            why += "given again (the service's key changed since: set cursor_key alike)"
            raise refuse("idempotency-secrets-lost", why, seek=posted["seek"])
        return NewSeek(str(posted["seek"]), secret)

    def posting(
        self, player: Player | None, body: PostSeek, shape: Shape, key: Keyed | None = None
    ) -> tuple[SeekPosted, str | None]:
        """The ``SeekPosted`` of a seek (checked: a rated seek is a player's, a player's seat
        has no other name, the bots' level plays the rule set) and a guest's secret."""
        name = normal(body.name, ("name",))
        if player is not None and name:
            why = "a player's seat is named for her handle: give no name with a key"
            raise refuse("bad-setup", why, pointer="/name")
        if body.rated and player is None:
            why = "a rated seek is a registered player's: post it with your key, or rated: false"
            raise refuse("bad-setup", why, pointer="/rated")
        bots = body.bots_after
        if bots is not None:
            bot_level(("bots_after", "level"), bots.level, shape.ruleset)
        handle = player.handle if player is not None else ""
        secret = None
        if player is None:
            secret = (
                tokens.new_token()
                if key is None
                else self.creation.minter.token(key.scoped, "seek")
            )
        now = self.now()
        posted = SeekPosted(
            shape.new_seek_id() if key is None else f"{shape.key}-{tokens.keyed_id(key.scoped)}",
            iso_timestamp(now),
            iso_timestamp(now + timedelta(seconds=self.seek_seconds)),
            handle,
            tokens.token_hash(secret) if secret else "",
            name,
            self.ordinal(shape.ruleset, handle) if body.rated else 0.0,
            bots.seconds if bots is not None else None,
            bots.level if bots is not None else "",
        )
        return posted, secret

    def view(self, seek_id: str, caller: Bearer) -> SeekView:
        """The seek as its owner sees it (401 without a credential, 403 for another's)."""
        held = self.log.held(stream_of(seek_id))
        seek, closed = found(held, seek_id)
        check_owner(seek, caller)
        assert held.book is not None  # found says so
        return view_of(held.book, seek, closed)

    def cancel(self, seek_id: str, caller: Bearer) -> SeekView:
        """Cancel a waiting seek (its owner; again: the same answer); 409
        ``seek-not-waiting`` once it was matched or expired."""

        def change(book: Book) -> list[SeekEvent]:
            seek = book.find(seek_id)
            if seek is None:
                return []
            check_owner(seek, caller)
            return [SeekCancelled(seek_id)]

        stream = stream_of(seek_id)
        held = self.write(stream, change, who(caller))
        seek, closed = found(held, seek_id)
        check_owner(seek, caller)
        assert held.book is not None and closed is not None  # nothing waits after the change
        if closed.status != "cancelled":
            why = f"the seek is {closed.status} already" + (
                f": its table is {closed.game_id}" if closed.game_id else ""
            )
            extra = {"game_id": closed.game_id} if closed.game_id else {}
            raise refuse("seek-not-waiting", why, seek_status=closed.status, **extra)
        return view_of(held.book, seek, closed)

    def renew(self, handle: str) -> int:
        """Give the player's waiting seeks ``seek_seconds`` again, from now (those with less
        than half of it left: a feed may call it as often as it likes); how many were."""
        return sum(self.renew_in(stream, handle) for stream in self.log.shapes())

    def renew_in(self, stream: str, handle: str) -> int:
        """``renew`` in one shape."""
        book = self.log.held(stream).book
        if book is None or not self.renewable(book, handle, self.now()):
            return 0
        renewed: list[SeekEvent] = []

        def change(book: Book) -> list[SeekEvent]:
            renewed[:] = self.renewal(book, handle)
            return list(renewed)

        self.write(stream, change, handle)
        return sum(len(event.seeks) for event in renewed if isinstance(event, SeeksRenewed))

    def renewable(self, book: Book, handle: str, now: datetime) -> list[Seek]:
        """The player's waiting seeks with less than half their time left at ``now``."""
        half = timedelta(seconds=self.seek_seconds / 2)
        return [seek for seek in book.of(handle) if seek.expires - now < half]

    def renewal(self, book: Book, handle: str) -> list[SeekEvent]:
        """The ``SeeksRenewed`` of the player's seeks due for it, if any."""
        now = self.now()
        ids = tuple(seek.id for seek in self.renewable(book, handle, now))
        until = iso_timestamp(now + timedelta(seconds=self.seek_seconds))
        return [SeeksRenewed(ids, until)] if ids else []

    def enforce_due(self) -> int:
        """Settle every shape whose deadline came (seeks expired, seated with bots, rated
        seeks whose window widened enough); how many shapes were."""
        settled = 0
        for stream, _ in self.log.store.due(iso_timestamp(self.now())):
            if not stream.startswith(PREFIX):
                continue
            try:
                self.write(stream, lambda book: [], SERVER)
            except Refusal as refusal:  # logged; the next sweep tries again
                structlog.get_logger().warning(
                    "seeks not settled", stream=stream, error=refusal.detail
                )
                continue
            settled += 1
        return settled

    def write(
        self,
        stream: str,
        change: Change,
        by: str,
        opened: SeeksOpened | None = None,
        key: Keyed | None = None,
    ) -> Held:
        """``change`` on the shape's book as it is now (``opened`` begins a new shape's
        stream), the seeks settled at once, committed; again on a fresh read when another
        process wrote between. The fold it leaves."""
        for _ in range(WRITE_ATTEMPTS):
            with suppress(Conflict), self.log.locked(stream):
                return self.attempt(stream, change, by, opened, key)
        raise refuse("version-conflict", "the seeks of this shape kept changing; try again")

    def attempt(
        self,
        stream: str,
        change: Change,
        by: str,
        opened: SeeksOpened | None,
        key: Keyed | None = None,
    ) -> Held:
        """One try at ``write``: read, change, settle, commit (nothing when nothing
        changed)."""
        held = self.log.held(stream)
        book, first = held.book, list[SeekEvent]()
        if book is None:
            if opened is None:
                raise refuse("seek-not-found", "no seek of this shape was ever posted")
            first, (book, _) = [opened], step(None, opened)
        events = [*first, *change(book)]
        book = apply(book, events[len(first) :])
        settled, games = settle(
            book, self.now(), self.creation, self.creation.roster, stream.removeprefix(PREFIX)
        )
        events += settled
        if not events:
            return held
        due = next_due(apply(book, settled))
        deadline = iso_timestamp(due) if due is not None else None
        return self.log.commit(stream, held, events, by, deadline, games, key)


def found(held: Held, seek_id: str) -> tuple[Seek, Closed | None]:
    """The seek (waiting, or how it ended); 404 when the shape never had it."""
    if held.book is not None:
        waiting = held.book.find(seek_id)
        if waiting is not None:
            return waiting, None
        closed = held.closed.get(seek_id)
        if closed is not None:
            return closed.seek, closed
    raise not_found(seek_id)


def check_owner(seek: Seek, caller: Bearer) -> None:
    """The caller owns the seek: the player whose it is (her key), or the guest (her
    secret); 401 without a credential, 403 with another's."""
    if caller is None:
        raise refuse("unauthorized", "a seek is its owner's: give the player's key or the secret")
    if isinstance(caller, Player):
        mine = bool(seek.handle) and caller.handle == seek.handle
    else:
        digest = tokens.token_hash(caller) if isinstance(caller, str) else ""
        mine = bool(seek.digest) and hmac.compare_digest(digest, seek.digest)
    if not mine:
        raise refuse("forbidden", "this seek is someone else's")


def who(caller: Bearer) -> str:
    """Whom an owner's append is by: the player's handle, or a guest."""
    return caller.handle if isinstance(caller, Player) else "guest"


def view_of(book: Book, seek: Seek, closed: Closed | None) -> SeekView:
    """A seek as its owner reads it."""
    if closed is None:
        expires = iso_timestamp(seek.expires)
        return SeekView(
            seek.id, "waiting", book.ruleset, book.players, book.rated, None, None, expires
        )
    matched = closed.status == "matched"
    return SeekView(
        seek.id,
        closed.status,
        book.ruleset,
        book.players,
        book.rated,
        closed.game_id if matched else None,
        closed.seat if matched else None,
    )
