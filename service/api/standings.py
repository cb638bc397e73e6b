"""HTTP controller of the reads over the finished games of a tag: standings and the archive
of their records."""

from __future__ import annotations

from litestar import Controller, get
from litestar.params import FromQuery
from litestar.response import Stream

from service.api.apidoc import problems
from service.api.deps import QueriesDep
from service.api.documents import document, json_stream
from service.usecases.games import listings


class StandingsController(Controller):
    """Standings and archives of the finished games with a tag."""

    @get("/standings", operation_id="standings", sync_to_thread=True, responses=problems(400))
    def standings(
        self, queries: QueriesDep, tag: FromQuery[str | None] = None
    ) -> listings.Standings:
        """Wins per player name over the finished games with ``tag``, ties by pieces home."""
        return queries.standings(tag)

    @get(
        "/archive",
        operation_id="archive",
        sync_to_thread=True,
        responses=document(listings.Archive) | problems(400),
    )
    def archive(self, queries: QueriesDep, tag: FromQuery[str | None] = None) -> Stream:
        """The records of the finished games with ``tag``, verifiable offline as one file;
        streamed."""
        return json_stream(queries.archive(tag))
