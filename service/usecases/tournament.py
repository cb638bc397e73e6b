"""Tournament reads: the games listed with their results, standings, archives."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec

from eventstore import StreamInfo
from service.usecases.records import GameRecord, streamed_record
from service.usecases.replies import GameSummary
from service.usecases.repository import Repository

ARCHIVE_FORMAT = "tabula-archive"
NDJSON = "application/x-ndjson"


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


def listed(
    games: Repository, status: str | None = None, ruleset: str | None = None, tag: str | None = None
) -> list[dict[str, Any]]:
    """Game summaries, oldest first, filtered by status, rule set and tag (``key:value``)."""
    summaries = [summary(info) for info in games.store.streams()]
    return [
        g
        for g in summaries
        if (status is None or g["status"] == status)
        and (ruleset is None or g["ruleset"] == ruleset)
        and (tag is None or has_tag(g["tags"], tag))
    ]


def summary(info: StreamInfo) -> dict[str, Any]:
    """A stream's summary as a game's."""
    return {
        "id": info.stream_id,
        "ruleset": info.meta.get("ruleset", ""),
        "status": "finished" if info.last_type == "SeedRevealed" else "active",
        "version": info.version,
        "seats": info.meta.get("seats", []),
        "created_at": info.created_at,
        "tags": info.meta.get("tags", {}),
    }


def has_tag(tags: dict[str, str], wanted: str) -> bool:
    """Whether ``tags`` has ``key:value`` (or just the key, or just the value)."""
    key, sep, value = wanted.partition(":")
    if sep:
        return tags.get(key) == value
    return wanted in tags or wanted in tags.values()


def results(games: Repository, selected: list[dict[str, Any]]) -> Iterator[GameSummary]:
    """The outcome of each selected game (winners by name, pieces home per name)."""
    for summary in selected:
        with games.glance(summary["id"]) as game:
            state, names = game.replay.state, list(game.created.seats)
            finished, winners = game.rules.finished(state), game.rules.view(state, None).winners
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


def archive(games: Repository, selected: list[dict[str, Any]]) -> Iterator[bytes]:
    """The records of the selected finished games as one ``Archive`` document in pieces, a
    page of one game's events at a time (each record ends at the version it had when its
    turn came)."""
    yield b'{"records":['
    separator = b""
    for summary in selected:
        with games.glance(summary["id"]) as game:
            if not game.finished:
                continue
            pieces = streamed_record(game, games.store)
        for piece in pieces:
            yield separator + piece
            separator = b""
        separator = b","
    yield b"]," + msgspec.json.encode(ArchiveTail())[1:]


class ArchiveTail(msgspec.Struct, frozen=True):
    """An archive's fields after its records (in ``Archive``'s order)."""

    format: str = ARCHIVE_FORMAT
    format_version: int = 1


def ndjson(rows: list[GameSummary]) -> bytes:
    """One JSON document per line."""
    return b"".join(msgspec.json.encode(row) + b"\n" for row in rows)
