"""A registered player's notes: what concerns her in a game that names her, each derived from
one event of the game's log, so the notes are made again from the logs whenever asked.

The kinds (``Note.kind``):

- ``invitation``: the game's creation keeps a seat for her (``GameCreated.invites``);
  ``rematch`` when that game is the rematch of another (``rematch_of``);
- ``seek-matched``: a seek of hers sat her at the game: quick play created it complete, tagged
  ``quick-play``, in the transaction that recorded the match in the seeks' log (``seek``: the
  id of her seek there; the feed sends the note only when that log has it);
- ``game-started``: a game she sits in starts: at its creation when every seat was filled
  then, else when its table starts (``TableStarted``);
- ``your-turn``: a version at which a seat of hers must act (``pending``: what it must do):
  when she comes to act, when what she must do changes, and after each act of hers that leaves
  her to act again (not while others' acts leave hers as it was); never while a table has not
  started, while the server still has automatic play or chance to add to the same append,
  between the events one move makes together (a winning move and its ``GameFinished``: the
  rules make them as one batch, ``rest_of_batch``), for a seat a bot plays, nor for chance the
  referee posts;
- ``game-finished``: the game she sits in (or was invited to) ends: its winners, or why its
  table closed (``closed``).

A note's id is ``<at>/<game id>/<version>/<rank>``: the time the store stamped on the event it
comes from, the game, the event's version (eight digits) and the kind's rank among the notes of
one event (``RANK``). Ids compare as text in the order the events were stamped, so "the notes
after an id" is a question the logs answer.
"""

from __future__ import annotations

import re
from typing import Any, Literal

import msgspec

from domain.events import Event, GameCreated, MovePlayed, TableClosed, TableStarted, parse_event
from domain.model import CHANCE_KINDS, GameError
from domain.players.handles import player_id
from domain.replay import Replay
from domain.ruleset import RuleSet
from eventstore import StoredEvent

Kind = Literal[
    "invitation", "seek-matched", "game-started", "your-turn", "game-finished", "rematch"
]
RANK: dict[str, int] = {
    "invitation": 0,
    "rematch": 0,
    "seek-matched": 1,
    "game-started": 2,
    "your-turn": 3,
    "game-finished": 4,
}
"""The order of the notes one event makes (a game created complete starts, and its first
seat must act, at version 1)."""

QUICK_PLAY = "quick-play"
"""The tag of a table that quick play made of matched seeks (its value: the seeks' shape)."""

NOTE_ID = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z/[0-9A-Za-z_.:-]{1,100}/\d{8}/\d")
"""A note's id as ``note_id`` writes it."""


class Note(msgspec.Struct, frozen=True, omit_defaults=True):
    """Something that concerns a registered player in one game: ``kind``, the game, the
    version and time of the event it comes from, its rule set, her seat there, and per kind
    what she must do (``pending``), who won (``winners``, seats), why a table closed
    (``closed``), the game it is the rematch of (``rematch_of``: on a rematch's offer and
    start) or the seek that sat her (``seek``)."""

    id: str
    kind: Kind
    game_id: str
    version: int
    at: str
    ruleset: str
    seat: int
    pending: list[str] = []
    winners: list[int] = []
    closed: str = ""
    rematch_of: str | None = None
    seek: str | None = None


def note_id(at: str, game_id: str, version: int, kind: Kind) -> str:
    """The id of the note of ``kind`` that the event of ``game_id`` at ``version``, stamped
    ``at``, makes."""
    return f"{at}/{game_id}/{version:08d}/{RANK[kind]}"


def is_note_id(text: str) -> bool:
    """Whether ``text`` reads as a note's id."""
    return NOTE_ID.fullmatch(text) is not None


def at_of(note: str) -> str:
    """The time in a note's id."""
    return note.split("/", 1)[0]


def rest_of_batch(rules: RuleSet[Any], before: Any, event: Event) -> tuple[Event, ...]:
    """The events that come after ``event`` in the one batch the rules make with it, from
    ``before`` (the state it was played on): the rest of an automatic step (race35's winning
    throw plays itself, then ``GameFinished``) or of a move's decision (a winning move, then
    ``GameFinished``); () when it comes alone. The position between such events is not one
    anybody acts from: the referee writes the whole batch in one append."""
    if not isinstance(event, MovePlayed):
        return ()
    made = rules.automatic(before)
    if made[:1] != [event]:
        try:
            made = rules.decide(before, event.seat, event.move)
        except GameError:
            return ()
    return tuple(made[1:]) if made[:1] == [event] else ()


class GameNotes:
    """One game's notes for one player, folded from its log event by event (``take``). It
    keeps the notes that still stand (``standing``): an invitation still open, the start of a
    game still running, her turn while it lasts."""

    def __init__(self, game_id: str, handle: str) -> None:
        self.game_id, self.player = game_id, player_id(handle)
        self.replay: Replay | None = None
        self.version = 0
        self.acting: tuple[int, tuple[str, ...]] | None = None
        """Her seat that must act and what it must do, at the latest settled version."""
        self.acted = False
        """Whether a seat of hers caused an event since the latest settled version."""
        self.owed: tuple[Event, ...] = ()
        """The events the batch of the latest event makes with it and the log has not yet
        given (``rest_of_batch``)."""
        self.opened: tuple[Any, Event] | None = None
        """The latest event and the state before it, while ``owed`` is still to be found."""
        self.last: dict[str, Note] = {}
        """The latest note of each kind."""

    @property
    def finished(self) -> bool:
        """Whether the game is over (finished, or its table closed)."""
        return self.replay is not None and bool(self.replay.state.finished)

    def take(self, stored: StoredEvent) -> list[Note]:
        """The notes the next event of the log makes (an event already taken makes none)."""
        if stored.version <= self.version:
            return []
        event = parse_event(stored.type, stored.data)
        self.version = stored.version
        if isinstance(stored.by, int) and self.replay is not None and stored.by in self.seats():
            self.acted = True
        if self.replay is None:
            if not isinstance(event, GameCreated):
                raise ValueError(f"game {self.game_id} does not start with GameCreated")
            self.replay = Replay(event)
            notes = self.created(stored, event)
        else:
            invited = self.invited()
            was_over = self.finished
            before = self.replay.state
            self.replay.push(stored.version, event, stored.by)
            self.follow(before, event)
            notes = self.changed(stored, event, was_over, invited)
        if (turn := self.turn(stored)) is not None:
            notes.append(turn)
        for note in notes:
            self.last[note.kind] = note
        return notes

    def created(self, stored: StoredEvent, created: GameCreated) -> list[Note]:
        """The notes of a game's creation: her invitation, or the start of a game created
        with her seat among the filled ones."""
        notes = []
        if (seat := self.invited()) is not None:
            kind: Kind = "rematch" if self.rematch_of() else "invitation"
            notes.append(self.note(stored, kind, seat))
        seats = self.seats()
        if seats and QUICK_PLAY in created.tags:
            notes.append(self.note(stored, "seek-matched", seats[0]))
        if seats and not self.waiting():
            notes.append(self.note(stored, "game-started", seats[0]))
        return notes

    def changed(
        self, stored: StoredEvent, event: Event, was_over: bool, invited: int | None
    ) -> list[Note]:
        """The notes of an event after the creation: the table starting with her seated,
        the game ending for her seat or her invitation."""
        seats = self.seats()
        if isinstance(event, TableStarted) and seats:
            return [self.note(stored, "game-started", seats[0])]
        if self.finished and not was_over:
            seat = seats[0] if seats else invited
            if seat is None:
                return []
            closed = (event.reason or "closed") if isinstance(event, TableClosed) else ""
            return [self.note(stored, "game-finished", seat, winners=self.winners(), closed=closed)]
        return []

    def turn(self, stored: StoredEvent) -> Note | None:
        """The ``your-turn`` note at this version: a seat of hers must act, and it did not
        at the settled version before, or what it must do changed, or it has acted since
        (only at a settled version: not while others' acts leave hers as it was)."""
        if not self.settled():
            return None
        acting = self.must_act()
        came = acting is not None and (acting != self.acting or self.acted)
        self.acting, self.acted = acting, False
        if not came or acting is None:
            return None
        seat, kinds = acting
        return self.note(stored, "your-turn", seat, pending=list(kinds))

    def follow(self, before: Any, event: Event) -> None:
        """Take ``event`` (played on ``before``) as the next one its batch owes, or as one that
        opens a batch whose rest is found when asked (``owes``)."""
        if self.owed and self.owed[0] == event:
            self.owed, self.opened = self.owed[1:], None
        else:
            self.owed, self.opened = (), (before, event)

    def owes(self) -> bool:
        """Whether the batch of the latest event has more events to come (the rules say what
        it holds only when asked: a version that is otherwise settled)."""
        if self.opened is not None:
            assert self.replay is not None
            self.owed = rest_of_batch(self.replay.rules, *self.opened)
            self.opened = None
        return bool(self.owed)

    def standing(self) -> list[Note]:
        """The notes that still stand at the version taken: her open invitation, the start
        of her game while it runs, her turn while it lasts (never once the game is over)."""
        found = []
        for kind in ("invitation", "rematch"):
            if (note := self.last.get(kind)) is not None and self.invited() is not None:
                found.append(note)
        if (note := self.last.get("game-started")) is not None and not self.finished:
            found.append(note)
        turn = self.last.get("your-turn")
        if turn is not None and self.acting is not None and not self.finished:
            found.append(turn)
        return found

    def note(self, stored: StoredEvent, kind: Kind, seat: int, **fields: Any) -> Note:
        """A note of ``kind`` from ``stored`` (a rematch's offer and start say which game it
        follows)."""
        assert self.replay is not None
        at, version, ruleset = stored.at, stored.version, self.replay.created.ruleset
        made = note_id(at, self.game_id, version, kind)
        if kind in ("rematch", "game-started") and (rematch_of := self.rematch_of()):
            fields["rematch_of"] = rematch_of
        return Note(made, kind, self.game_id, version, at, ruleset, seat, **fields)

    def rematch_of(self) -> str | None:
        """The finished game this one is the rematch of, if it is one."""
        assert self.replay is not None
        return self.replay.created.rematch_of or None

    def seats(self) -> list[int]:
        """The seats that belong to her now."""
        assert self.replay is not None
        return sorted(p.seat for p in self.replay.players if player_id(p.handle) == self.player)

    def invited(self) -> int | None:
        """The seat kept for her invitation while the table gathers, if any."""
        replay = self.replay
        table = replay.table if replay is not None else None
        if table is None or table.started or table.closed:
            return None
        mine = (i.seat for i in table.invites if player_id(i.handle) == self.player)
        return next(mine, None)

    def waiting(self) -> bool:
        """Whether the game is a table that has not started (nobody acts), though its seats
        may all be taken: it starts at ``TableStarted``."""
        table = self.replay.table if self.replay is not None else None
        return table is not None and not table.started

    def winners(self) -> list[int]:
        """The winning seats of the game over."""
        assert self.replay is not None
        return list(self.replay.rules.view(self.replay.state, None).winners)

    def settled(self) -> bool:
        """Whether the server has nothing more to add by itself at this version (no automatic
        play, no chance it makes at once, no event the latest one's batch still owes) and
        seats may act: the end of an append."""
        replay = self.replay
        assert replay is not None
        rules, state, created = replay.rules, replay.state, replay.created
        if self.waiting() or state.finished or rules.automatic(state):
            return False
        server_chance = created.auto_chance and created.chance == "server"
        if server_chance and any(p.kind in CHANCE_KINDS for p in rules.to_act(state)):
            return False
        return not self.owes()

    def must_act(self) -> tuple[int, tuple[str, ...]] | None:
        """Her first seat that must act now and what it must do (a seat a bot plays does
        not; chance the referee posts is not hers to do)."""
        replay = self.replay
        assert replay is not None
        external = replay.created.chance == "external"
        mine = set(self.seats())
        for seat in sorted(mine):
            if replay.bot_of(seat) is not None:
                continue
            kinds = sorted(
                {
                    p.kind
                    for p in replay.rules.to_act(replay.state)
                    if p.seat == seat and not (external and p.kind in CHANCE_KINDS)
                }
            )
            if kinds:
                return seat, tuple(kinds)
        return None
