"""Game records: export, import, audit. Finished games are public; live ones are the referee's."""

from __future__ import annotations

import msgspec

from domain.events import Event, parse_event
from domain.model import Viewer
from service import chance, tokens
from service.games import Actor, Game, Games, Secrets, new_events
from service.problems import problem
from service.verify import GameRecord, Verification, verify_record
from service.views import event_out
from service.wire import Created, EventOut, Tokens


class Audit(msgspec.Struct, frozen=True):
    """The full log with who did what when, and its verification."""

    game_id: str
    ruleset: str
    status: str
    seed_commitment: str
    seed: str | None
    events: list[EventOut]
    verification: Verification


def check_may_see_all(game: Game, viewer: Viewer) -> None:
    """The whole log is the referee's while a game runs, and everyone's once it has finished."""
    if viewer != "referee" and not game.finished:
        raise problem("forbidden", "the full log of a running game is for the referee only")


def export(game: Game, games: Games) -> GameRecord:
    """The self-contained record of a game, with the seed once it is revealed."""
    created = game.created
    return GameRecord(
        game_id=game.id,
        ruleset=created.ruleset,
        ruleset_version=game.rules.VERSION,
        options=created.options,
        seats=list(created.seats),
        chance=created.chance,
        seed_commitment=created.seed_commitment,
        events=[event_out(game, e, "referee") for e in games.store.read(game.id)],
        seed=game.secrets.seed if game.finished else None,
    )


def audit(game: Game, games: Games) -> Audit:
    """The export, verified (with the sealed seed while the game runs)."""
    record = export(game, games)
    verdict = verify_record(record, seed=game.secrets.seed)
    status = "finished" if game.finished else "active"
    return Audit(
        game.id, record.ruleset, status, record.seed_commitment, record.seed, record.events, verdict
    )


def import_record(record: GameRecord, games: Games) -> Created:
    """Replay and validate a record, then store it as a new game with fresh tokens."""
    verdict = verify_record(record)
    if not verdict.valid:
        raise problem(
            "invalid-record",
            f"event {verdict.first_bad}: {verdict.reason}",
            first_bad_event=verdict.first_bad,
        )
    if record.seed is None and record.chance == "server" and not verdict.finished:
        raise problem(
            "invalid-record",
            "a running game with server chance cannot be imported without its seed",
        )
    seed = record.seed or chance.new_seed()
    referee, seats = tokens.new_token(), [tokens.new_token() for _ in record.seats]
    secrets = Secrets(tokens.token_hash(referee), [tokens.token_hash(t) for t in seats], seed)
    game_id = games.new_id()
    batch: list[tuple[Actor, Event]] = [(e.by, parse_event(e.type, e.data)) for e in record.events]
    meta = {
        "ruleset": record.ruleset,
        "seats": record.seats,
        "tags": {"imported_from": record.game_id},
    }
    games.store.append(
        game_id, new_events(batch), 0, meta=meta, private=msgspec.to_builtins(secrets)
    )
    return Created(game_id, len(batch), record.seed_commitment, Tokens(referee, seats))
