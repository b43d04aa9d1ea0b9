"""One bounded, thread-safe memo for results that are pure functions of a template.

Input: a key (the template's sha256, its dialect, and whatever else the result depends
on) and a function that makes the value. Output: the value, made once per key while it
stays among the newest ``size`` entries. A value the caller marks as provisional (a
capability or analysis run cut short by the render budget, which a quieter moment might
finish) is kept only for ``PROVISIONAL_SECONDS``: long enough that one request does not
run a runaway template's probes again for every step that needs them, short enough that
one slow moment on a busy server is not remembered for good.

Sizes are set for an app or a CLI run that holds a few templates at a time. A process
that visits many templates again and again (a test worker walks llama.cpp's 70
templates once per oracle-wide test: least-recently-used memos smaller than the corpus
would evict every template before its next visit) sets ``TEMPLATE_EXPLORER_MEMO_SCALE``
to a whole number before it imports ``explorer``: every memo then holds that many times
its size.
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")

PROVISIONAL_SECONDS = 60.0


def _scale() -> int:
    raw = os.environ.get("TEMPLATE_EXPLORER_MEMO_SCALE", "1")
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise ValueError(f"TEMPLATE_EXPLORER_MEMO_SCALE must be a whole number >= 1, found {raw!r}")
    return value


MEMO_SCALE = _scale()  # read once, when explorer is first imported


class Memo(Generic[V]):
    """A least-recently-used memo; ``get`` is safe from several threads. Two threads
    asking for the same missing key may both make it (the work is pure)."""

    def __init__(self, size: int = 64) -> None:
        self._size = size * MEMO_SCALE
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

    @property
    def size(self) -> int:
        """How many values it holds at most (its size times ``MEMO_SCALE``)."""
        return self._size
