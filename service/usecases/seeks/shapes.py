"""A seek's shape: the table it asks for (rule set, players, rated, options), checked as a
game's creation checks it, and named: each shape is one stream, ``seeks-<ruleset>-<players>-
<rated|unrated>-<options digest>``, and a seek's id is its shape's name and 32 hex digits, so
the id says which stream holds the seek. The list of shapes is the stream ``seek-shapes``."""

from __future__ import annotations

import hashlib
import re
import uuid
from typing import Any

import msgspec

from domain.model import GameError
from domain.seeks.events import SeeksOpened
from service.core.commands import CreateGame, SeatSpec
from service.core.refusal import Refusal, refuse
from service.usecases.games.creation import Creation
from service.usecases.seeks.wire import PostSeek

PREFIX = "seeks-"
"""Every shape's stream's id begins so (and no game's: a game's id is 32 hex digits)."""
SHAPES = "seek-shapes"
"""The stream that lists the shapes' streams."""
SEEK_ID = re.compile(r"[a-z0-9_-]{1,40}-[0-9]{1,2}-(?:rated|unrated)-[0-9a-f]{12}-[0-9a-f]{32}")


class Shape(msgspec.Struct, frozen=True):
    """The table a seek asks for: its rule set, seats, whether it is rated, every option."""

    ruleset: str
    players: int
    rated: bool
    options: dict[str, Any]

    @property
    def key(self) -> str:
        """The shape's name: ``<ruleset>-<players>-<rated|unrated>-<options digest>``."""
        rated = "rated" if self.rated else "unrated"
        return f"{self.ruleset}-{self.players}-{rated}-{options_digest(self.options)}"

    @property
    def stream(self) -> str:
        """The id of the shape's stream."""
        return PREFIX + self.key

    def opened(self) -> SeeksOpened:
        """The first event of the shape's stream."""
        return SeeksOpened(self.ruleset, self.players, self.rated, dict(self.options))

    def new_seek_id(self) -> str:
        """A fresh id of a seek of this shape."""
        return f"{self.key}-{uuid.uuid4().hex}"


def options_digest(options: dict[str, Any]) -> str:
    """12 hex digits of the sha256 of the options as canonical JSON (keys sorted)."""
    return hashlib.sha256(msgspec.json.encode(options, order="sorted")).hexdigest()[:12]


def stream_of(seek_id: str) -> str:
    """The stream that holds the seek ``seek_id``; 404 ``seek-not-found`` for an id no seek
    could have."""
    if not SEEK_ID.fullmatch(seek_id):
        raise not_found(seek_id)
    return PREFIX + seek_id.rsplit("-", 1)[0]


def not_found(seek_id: str) -> Refusal:
    """404 ``seek-not-found``."""
    return refuse("seek-not-found", f"no seek with id {seek_id!r}")


def shape_of(body: PostSeek, creation: Creation) -> Shape:
    """The shape a seek asks for, checked as ``POST /games`` checks a game with that many
    seats (unknown rule set, players out of its range, bad options: the same refusals);
    its options with every default filled in, so that seeks asking for the same table in
    other words share a shape."""
    seats = [SeatSpec(name=f"Seat {n + 1}") for n in range(body.players)]
    trial = CreateGame(body.ruleset, seats, options=dict(body.options), rated=body.rated)
    try:
        created = creation.setup(trial, "")
    except GameError as error:
        raise refuse("bad-setup", str(error)) from None
    options = dict(created.options)
    options |= {"auto_chance": created.auto_chance, "allow_undo": created.allow_undo}
    return Shape(created.ruleset, body.players, body.rated, options)
