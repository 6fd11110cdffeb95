"""What `/metrics` reports, in Prometheus text (prometheus_client, one registry per app).

Rules:
1. Counters: requests by endpoint and outcome (`compacted`, `forwarded` as sent,
   `passthrough` for paths we do not compact, `failed` when compaction failed and the
   request went as sent), compactions, tokens saved, recall rounds, upstream status codes.
2. Added latency: the seconds the proxy spends on a request before it goes upstream (and
   between recall rounds), a histogram with sub-millisecond buckets.
3. Gauges: live sessions in this process.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)

_BUCKETS: Final = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)


class Metrics:
    """The proxy's counters (rules 1-3)."""

    def __init__(self, live_sessions: Callable[[], int]) -> None:
        disable_created_metrics()  # type: ignore[no-untyped-call] # the `_created` samples say nothing useful here
        self.registry: CollectorRegistry = CollectorRegistry()
        r = self.registry
        self.requests = Counter(
            "contextfold_requests",
            "Requests by endpoint and outcome",
            ["endpoint", "outcome"],
            registry=r,
        )
        self.compactions = Counter("contextfold_compactions", "Compactions", registry=r)
        self.saved = Counter(
            "contextfold_tokens_saved", "Prompt tokens compaction saved", registry=r
        )
        self.recall_rounds = Counter(
            "contextfold_recall_rounds", "Recall rounds answered in the proxy", registry=r
        )
        self.upstream = Counter(
            "contextfold_upstream_responses", "Upstream answers by status", ["status"], registry=r
        )
        self.added = Histogram(
            "contextfold_added_latency_seconds",
            "Seconds spent in the proxy before a request goes upstream",
            buckets=_BUCKETS,
            registry=r,
        )
        sessions = Gauge("contextfold_live_sessions", "Sessions held in memory", registry=r)
        sessions.set_function(lambda: float(live_sessions()))

    def text(self) -> bytes:
        """The Prometheus exposition."""
        return generate_latest(self.registry)
