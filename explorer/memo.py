"""One bounded, thread-safe memo for results that are pure functions of a template.

Input: a key (the template's sha256, its dialect, and whatever else the result depends
on) and a function that makes the value. Output: the value, made once per key while it
stays among the newest ``size`` entries. A value the caller marks as provisional (a
capability or analysis run cut short by the render budget, which a quieter moment might
finish) is kept only for ``PROVISIONAL_SECONDS``: long enough that one request does not
run a runaway template's probes again for every step that needs them, short enough that
one slow moment on a busy server is not remembered for good.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")

PROVISIONAL_SECONDS = 60.0


class Memo(Generic[V]):
    """A least-recently-used memo; ``get`` is safe from several threads. Two threads
    asking for the same missing key may both make it (the work is pure)."""

    def __init__(self, size: int = 64) -> None:
        self._size = size
        self._values: OrderedDict[Hashable, tuple[V, float]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, make: Callable[[], V],
            provisional: Callable[[V], bool] = lambda _v: False) -> V:
        now = time.monotonic()
        with self._lock:
            held = self._values.get(key)
            if held is not None and held[1] > now:
                self._values.move_to_end(key)
                return held[0]
        value = make()
        expires = time.monotonic() + PROVISIONAL_SECONDS if provisional(value) else float("inf")
        with self._lock:
            self._values[key] = (value, expires)
            self._values.move_to_end(key)
            while len(self._values) > self._size:
                self._values.popitem(last=False)
        return value

    def peek(self, key: Hashable) -> V | None:
        """The value held for ``key`` (None when there is none or its time is up), without
        making it or counting as a use."""
        with self._lock:
            held = self._values.get(key)
        return held[0] if held is not None and held[1] > time.monotonic() else None

    def clear(self) -> None:
        with self._lock:
            self._values.clear()

    def __len__(self) -> int:
        return len(self._values)
