"""Tournament refereeing: rounds of tables created at once, results, standings, archives."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec

from domain.model import GameError
from service.games import Games
from service.problems import ServiceError, problem, translate
from service.records import export
from service.verify import GameRecord
from service.wire import Created, CreateGame, GameSummary

ARCHIVE_FORMAT = "tabula-archive"
NDJSON = "application/x-ndjson"


class Batch(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``POST /games/batch``: the tables of a round."""

    games: list[CreateGame]


class BatchCreated(msgspec.Struct, frozen=True):
    games: list[Created]


class Standing(msgspec.Struct, frozen=True):
    name: str
    games: int
    wins: int
    pieces_home: int


class Standings(msgspec.Struct, frozen=True):
    tag: str | None
    standings: list[Standing]


class Archive(msgspec.Struct, frozen=True):
    """Every finished game of a selection, as records ``python -m service verify`` accepts."""

    records: list[GameRecord]
    format: str = ARCHIVE_FORMAT
    format_version: int = 1


def create_batch(games: Games, batch: Batch) -> BatchCreated:
    """Create every table, after checking them all: a bad table creates none."""
    if not batch.games:
        raise problem("validation-failed", "a batch needs at least one game")
    for index, command in enumerate(batch.games):
        try:
            games.check(command)
        except (ServiceError, GameError) as error:
            known = translate(error)
            raise problem(known.slug, f"table {index}: {known.detail}") from None
    return BatchCreated([games.create(command) for command in batch.games])


def results(games: Games, selected: list[dict[str, Any]]) -> Iterator[GameSummary]:
    """The outcome of each selected game (winners by name, pieces home per name)."""
    for summary in selected:
        with games.glance(summary["id"]) as game:
            state, names = game.replay.state, list(game.created.seats)
            finished, winners = game.rules.finished(state), game.rules.view(state, None)["winners"]
        home = dict.fromkeys(names, 0)
        for seat, count in finished.items():
            home[names[seat]] += count
        yield GameSummary(**summary, winners=[names[s] for s in winners], pieces_home=home)


def standings(tag: str | None, finished: list[GameSummary]) -> Standings:
    """Wins per player name, ties broken by pieces home, then by name."""
    table: dict[str, list[int]] = {}
    for result in finished:
        for name in result.seats:
            row = table.setdefault(name, [0, 0, 0])
            row[0] += 1
            row[1] += name in result.winners
            row[2] += result.pieces_home.get(name, 0)
    rows = [Standing(name, g, w, h) for name, (g, w, h) in table.items()]
    rows.sort(key=lambda s: (-s.wins, -s.pieces_home, s.name))
    return Standings(tag, rows)


def archive(games: Games, selected: list[dict[str, Any]]) -> Archive:
    """The records of the selected finished games."""
    records = []
    for summary in selected:
        with games.glance(summary["id"]) as game:
            if game.finished:
                records.append(export(game, games))
    return Archive(records)


def ndjson(rows: list[GameSummary]) -> bytes:
    """One JSON document per line."""
    return b"".join(msgspec.json.encode(row) + b"\n" for row in rows)
