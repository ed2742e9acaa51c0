"""Prometheus metrics of one server process (``GET /metrics``, ``docs/deploy.md``).

Each app has a registry of its own, so that several apps in one process (tests) never clash.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Final

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

#: from a person's action arriving to its new state sent to this process's clients
LATENCY_BUCKETS: Final = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class Metrics:
    """The counters the hub updates, and gauges read when Prometheus scrapes."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.steps = Counter(
            "marsdice_steps",
            "Steps stored by this process, by who made them (human, bot, stand-in, chance)",
            ["actor"],
            registry=self.registry,
        )
        self.action_seconds = Histogram(
            "marsdice_action_seconds",
            "A person's action: from its arrival to its new state sent to this process's clients",
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self._readings = _Readings()
        self.registry.register(self._readings)
        self._steps_by: dict[str, Any] = {}

    def step_stored(self, actor: str) -> None:
        """One more step of ``actor`` stored (its counter looked up once per actor)."""
        counter = self._steps_by.get(actor)
        if counter is None:
            counter = self._steps_by[actor] = self.steps.labels(actor=actor)
        counter.inc()

    def read(
        self,
        *,
        tables: Callable[[], dict[str, int]],
        clients: Callable[[], int],
        cached: Callable[[], int],
        leases: Callable[[], int],
        takeovers: Callable[[], int],
        commits: Callable[[], tuple[int, int]] = lambda: (0, 0),
    ) -> None:
        """Where the scrape-time values come from (``commits``: the step transactions
        committed and the writes they stored)."""
        self._readings.sources = (tables, clients, cached, leases, takeovers, commits)


class _Readings(Collector):
    def __init__(self) -> None:
        self.sources: (
            tuple[
                Callable[[], dict[str, int]],
                Callable[[], int],
                Callable[[], int],
                Callable[[], int],
                Callable[[], int],
                Callable[[], tuple[int, int]],
            ]
            | None
        ) = None

    def collect(self) -> Iterator[Metric]:
        if self.sources is None:
            return
        tables, clients, cached, leases, takeovers, commits = self.sources
        by_status = GaugeMetricFamily(
            "marsdice_tables", "Tables in the database, by status", labels=["status"]
        )
        for status, count in tables().items():
            by_status.add_metric([status], count)
        yield by_status
        yield GaugeMetricFamily(
            "marsdice_connections", "WebSocket connections to this process", value=clients()
        )
        yield GaugeMetricFamily(
            "marsdice_tables_in_memory", "Tables this process holds in memory", value=cached()
        )
        yield GaugeMetricFamily(
            "marsdice_leases",
            "Table leases this process holds (its server-side work)",
            value=leases(),
        )
        yield CounterMetricFamily(
            "marsdice_lease_takeovers",
            "Leases this process took over from a process that died or handed them over",
            value=takeovers(),
        )
        committed, written = commits()
        yield CounterMetricFamily(
            "marsdice_step_commits",
            "Transactions that stored steps (one holds the writes of every table that stored "
            "steps while the last was committed)",
            value=committed,
        )
        yield CounterMetricFamily(
            "marsdice_step_writes",
            "Tables' writes of steps stored (a person's move and the dice after it: one write)",
            value=written,
        )
