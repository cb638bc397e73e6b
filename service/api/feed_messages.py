"""The messages of ``GET /me/socket``, a registered player's feed: JSON text frames, told apart
by ``type``.

The client says ``hello`` first (her key, and the id of the last note she has seen, or null),
then may ``ping``; the server says ``welcome`` (her handle), then pushes each ``note`` as it
comes, answers each ping with ``pong`` and any other message with ``refused``.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from service.api.socket_messages import Ping, Pong, Refused
from service.usecases.live.notes import Note

NoteId = Annotated[
    str,
    msgspec.Meta(
        max_length=200,
        description="a note's id, as the feed sent it (`<at>/<game id>/<version>/<rank>`)",
    ),
]


class FeedHello(msgspec.Struct, tag="hello", forbid_unknown_fields=True):
    """The first message: the player's key, and the id of the last note she has seen (null:
    the notes that stand now, then whatever comes)."""

    token: str | None = None
    after: NoteId | None = None


class FeedWelcome(msgspec.Struct, tag="welcome"):
    """The answer to ``hello``: whose feed this is."""

    handle: str


class NoteMessage(msgspec.Struct, tag="note"):
    """Something that concerns the player (``Note``), pushed once, in id order."""

    note: Note


FeedClientMessage = FeedHello | Ping
FeedServerMessage = FeedWelcome | NoteMessage | Pong | Refused
