"""Token buckets by key (an address, a writer at a table), kept per server on
``app.state``: so many at once, then one every so many seconds; the least recently used
key is forgotten first, so that memory stays bounded whoever knocks."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any, Final

#: keys a set of buckets remembers at most
REMEMBERED: Final = 10_000


class Buckets:
    """``burst`` at once, then one every ``every`` seconds, per key."""

    def __init__(self, burst: int, every: float, size: int = REMEMBERED) -> None:
        self.burst, self.every, self.size = float(burst), every, size
        self.buckets: OrderedDict[Hashable, tuple[float, float]] = OrderedDict()

    def wait(self, key: Hashable, cost: int = 1) -> float:
        """0 when ``key`` may go on (and ``cost`` is counted), else seconds to wait."""
        now = time.monotonic()
        tokens, at = self.buckets.pop(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - at) / self.every)
        if tokens < cost:
            self.buckets[key] = (tokens, now)
            return (cost - tokens) * self.every
        self.buckets[key] = (tokens - cost, now)
        while len(self.buckets) > self.size:
            self.buckets.popitem(last=False)
        return 0.0


def app_buckets(state: Any, name: str, burst: int, every: float) -> Buckets:
    """The application's buckets called ``name`` (made at their first use)."""
    found: Buckets | None = getattr(state, name, None)
    if found is None:
        found = Buckets(burst, every)
        setattr(state, name, found)
    return found
