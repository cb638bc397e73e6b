"""Creations made with an Idempotency-Key: the ids and secrets they give out, and their
replies when the key was used already.

A keyed creation's stream id comes from its scoped key alone (``tokens.keyed_id``), so a retry
names the same stream on any process and the store, which keeps keys by stream, finds the
first creation's key there: the same body replays it, another body is 422
``idempotency-key-reused``. Its tokens are derived from the scoped key with the service's key
(``tokens.Minter``), so the replay shows the same tokens while the store keeps only their
hashes; a replay whose derived tokens do not match the stored hashes (the service's key
changed: no ``cursor_key`` set and another process, or a restart) is 409
``idempotency-secrets-lost``. A key used longer ago than the store keeps keys still names
its stream, which exists: that creation is 422 ``idempotency-key-reused`` too.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from eventstore import AppendResult
from service.core.refusal import refuse
from service.usecases import tokens
from service.usecases.games.repository import NewGame, Repository
from service.usecases.replies import Created
from service.usecases.writer import Conflict

EXPIRED = (
    "this Idempotency-Key made a game longer ago than keys are kept (a day by default): "
    "a new creation needs a new key"
)
LOST = (
    "this Idempotency-Key made the game already, but its tokens cannot be given again (the "
    "service's key changed since: set cursor_key alike on every process); GET /games/{id} "
    "shows the game"
)


def stored(
    games: Repository, now: datetime, made: Sequence[NewGame], replies: Sequence[Created]
) -> list[Created]:
    """Store new games in one transaction and answer each: a replayed creation with what
    its first creation stored (its version, its seed's commitment) and the same tokens."""
    try:
        results = games.commit_new(made, now)
    except Conflict:
        if not any(game.key for game in made):
            raise
        raise refuse("idempotency-key-reused", EXPIRED) from None
    return [
        again(games, result, reply) if result.replayed else reply
        for result, reply in zip(results, replies, strict=True)
    ]


def again(games: Repository, result: AppendResult, reply: Created) -> Created:
    """The reply to a replayed creation: the stored game's version and commitment, and the
    tokens derived again once they are checked against the stored hashes."""
    private = games.store.private(reply.id) or {}
    derived = [reply.tokens.referee, *reply.tokens.seats]
    hashes = [private.get("referee"), *private.get("seats", [])]
    for token, stored_hash in zip(derived, hashes, strict=False):
        if token and tokens.token_hash(token) != stored_hash:
            raise refuse("idempotency-secrets-lost", LOST.replace("{id}", reply.id))
    commitment = str(result.events[0].data.get("seed_commitment", ""))
    return Created(reply.id, result.events[-1].version, commitment, reply.tokens)
