"""``GET /metrics``: what operators watch, in the Prometheus text format (prometheus-client).

Served only when ``Settings.metrics_token`` is set, and then only to ``Authorization: Bearer
<that token>`` (401 otherwise); without a token there is no route and no timing at all.

Per request the only work is ``observe``, called by the request logger (``logs.log_requests``,
which times each request anyway): one histogram observation by route template
(``/games/{game_id}/moves``, never the path, so no game id reaches a label; ``unmatched`` for
paths of no route). Everything else is read when Prometheus scrapes
(``Figures``, the stream slots), so it costs the requests nothing.
"""

from __future__ import annotations

import hmac
import re

from litestar import Response, get
from litestar.handlers import HTTPRouteHandler
from litestar.types import HTTPScope
from prometheus_client import CollectorRegistry, Histogram, generate_latest
from prometheus_client.metrics_core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)

from domain.registry import RULESETS
from service.api.deps import AnyRequest
from service.api.identity import bearer
from service.api.streams import StreamSlots
from service.core.refusal import refuse
from service.usecases.games.figures import Figures

LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
CONVERTER = re.compile(r"\{(\w+):\w+\}")
UNMATCHED = "unmatched"
TEXT_FORMAT = "text/plain; version=0.0.4"


class Metrics:
    """One app's metrics, in a registry of their own (not prometheus-client's global one)."""

    def __init__(self, figures: Figures, streams: StreamSlots) -> None:
        self.registry = CollectorRegistry()
        self.latency = Histogram(
            "tabula_request_duration_seconds",
            "Time from a request's arrival to the end of its reply, by route template",
            ["method", "route", "status"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.registry.register(Scraped(figures, streams))
        self._series: dict[tuple[str, str | None, int], Histogram] = {}

    def observe(self, scope: HTTPScope, status: int, seconds: float) -> None:
        """Observe one HTTP request's duration (``logs.log_requests`` calls it as each ends)."""
        method = scope["method"]
        key = (method if method in METHODS else "other", scope.get("path_template"), status // 100)
        series = self._series.get(key) or self._new_series(key)
        series.observe(seconds)

    def _new_series(self, key: tuple[str, str | None, int]) -> Histogram:
        """The histogram child of a method, route template and status class (kept)."""
        method, template, status = key
        route = UNMATCHED if template is None else CONVERTER.sub(r"{\1}", template)
        series = self.latency.labels(method, route, f"{status}xx")
        self._series[key] = series
        return series

    def text(self) -> bytes:
        """Every metric in the Prometheus text format."""
        return generate_latest(self.registry)


class Scraped:
    """The figures read at each scrape (a prometheus-client custom collector)."""

    def __init__(self, figures: Figures, streams: StreamSlots) -> None:
        self.figures, self.streams = figures, streams

    def collect(self) -> list[Metric]:
        moves = CounterMetricFamily(
            "tabula_moves", "Moves played (POST /games/{id}/moves appended)", labels=["ruleset"]
        )
        counts = self.figures.moves.counts()
        for name in sorted(RULESETS.keys() | counts.keys()):
            moves.add_metric([name], counts.get(name, 0))
        sizes = self.figures.commit_sizes()
        buckets, below = [], 0
        for bound, count in zip(sizes.bounds, sizes.counts, strict=False):
            below += count
            buckets.append((str(bound), below))
        buckets.append(("+Inf", sum(sizes.counts)))
        commits = HistogramMetricFamily(
            "tabula_store_commit_events",
            "Events appended per commit of the event store (group commit batches)",
            buckets=buckets,
            sum_value=sizes.events,
        )
        faults = CounterMetricFamily(
            "tabula_store_faults",
            "Operations the event store refused because of a fault of its database, by kind",
            labels=["kind"],
        )
        for kind, count in sorted(self.figures.store_faults().items()):
            faults.add_metric([kind], count)
        return [
            moves,
            commits,
            faults,
            GaugeMetricFamily(
                "tabula_games_in_memory",
                "Games held in memory",
                value=self.figures.games_in_memory(),
            ),
            GaugeMetricFamily(
                "tabula_streams_open", "Event streams open", value=self.streams.count()
            ),
            GaugeMetricFamily(
                "tabula_sweeper_lag_seconds",
                "How long the earliest clock deadline not yet enforced is past (0: none)",
                value=self.figures.sweep_lag(),
            ),
        ]


def metrics_route(token: str) -> HTTPRouteHandler:
    """The ``GET /metrics`` handler, for callers with ``token`` only."""
    expected = token.encode()

    @get("/metrics", include_in_schema=False, sync_to_thread=True)
    def metrics(request: AnyRequest) -> Response[bytes]:
        """Every metric, for an operator's scraper."""
        given = bearer(request)
        if given is None or not hmac.compare_digest(given.encode(), expected):
            raise refuse("unauthorized", "the metrics need the metrics token (Bearer)")
        text = request.app.state.metrics.text()
        return Response(text, media_type=TEXT_FORMAT)  # Litestar adds the charset

    return metrics
