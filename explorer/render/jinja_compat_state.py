"""Per-render state shared by the sandbox hooks: budgets and llama.cpp usage statistics.

Input: the limits of one render (set by ``explorer.render`` before rendering). Output:
cheap checks the hooks call while the template runs (deadline, output and string size,
call depth) that raise ``RenderLimitError``, and the usage marks (``stats``) that
llama.cpp's capability detection reads.

The state lives in a ``ContextVar`` so that concurrent renders (Streamlit sessions run in
threads) never see each other's budgets.
"""

from __future__ import annotations

import time
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from explorer.errors import RenderLimitError


@dataclass
class RenderState:
    """Mutable bookkeeping of one render (internal; never escapes a render call)."""

    deadline: float
    wall_seconds: float
    max_chars: int
    max_depth: int
    max_range: int
    max_allocated: int = 100_000_000
    depth: int = 0
    allocated: int = 0
    scopes: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def check_time(self) -> None:
        if time.monotonic() > self.deadline:
            raise RenderLimitError(
                f"render took longer than the {self.wall_seconds:g} s budget "
                "(an endless loop or runaway recursion?)"
            )

    def check_size(self, size: int, what: str) -> None:
        """Before (or right after) building a string or list of ``size`` items."""
        if size > self.max_chars:
            raise RenderLimitError(
                f"{what} would be {size:,} characters, over the {self.max_chars:,} character cap"
            )
        # Many medium strings kept in a list are a memory bomb too: cap the total built.
        self.allocated += size
        if self.allocated > self.max_allocated:
            raise RenderLimitError(
                f"the template built {self.allocated:,} characters of strings in total, over the "
                f"{self.max_allocated:,} cap"
            )


_STATE: ContextVar[RenderState | None] = ContextVar("explorer_render_state", default=None)

# Budgets used when a hook runs outside ``render`` (e.g. a test calling a filter directly).
_FALLBACK = RenderState(deadline=float("inf"), wall_seconds=float("inf"), max_chars=50_000_000,
                        max_depth=400, max_range=1_000_000)


def current() -> RenderState:
    state = _STATE.get()
    return _FALLBACK if state is None else state


def activate(state: RenderState) -> Any:
    return _STATE.set(state)


def deactivate(token: Any) -> None:
    _STATE.reset(token)


# --- llama.cpp usage statistics (jinja::value_t::stats) ----------------------------------
#
# llama.cpp detects capabilities by watching which input values a template touches. We
# wrap the probe inputs in these subclasses; the stats environment's hooks mark them.


class TrackedStr(str):
    """A probe input string that records whether (and how) the template used it."""

    jx_used: bool
    jx_ops: set[str]

    def __new__(cls, value: str) -> TrackedStr:
        obj = super().__new__(cls, value)
        obj.jx_used = False
        obj.jx_ops = set()
        return obj


class TrackedList(list):
    """A probe input list that records whether (and how) the template used it."""

    __slots__ = ("jx_used", "jx_ops")

    def __init__(self, items: Any = ()) -> None:
        super().__init__(items)
        self.jx_used = False
        self.jx_ops: set[str] = set()


class TrackedDict(dict):
    """A probe input object that records whether (and how) the template used it."""

    __slots__ = ("jx_used", "jx_ops")

    def __init__(self, items: Any = ()) -> None:
        super().__init__(items)
        self.jx_used = False
        self.jx_ops: set[str] = set()


TRACKED = (TrackedStr, TrackedList, TrackedDict)


def track(value: Any) -> Any:
    """Deep-copy JSON-like input into tracked values (llama.cpp's global_from_json)."""
    if isinstance(value, str):
        return TrackedStr(value)
    if isinstance(value, dict):
        return TrackedDict((k, track(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return TrackedList(track(v) for v in value)
    return value


def mark(value: Any, op: str | None = None) -> None:
    if isinstance(value, TRACKED):
        value.jx_used = True
        if op is not None:
            value.jx_ops.add(op)


def mark_deep(value: Any) -> None:
    if isinstance(value, TRACKED):
        value.jx_used = True
    if isinstance(value, dict):
        for k, v in value.items():
            mark(k)
            mark_deep(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            mark_deep(v)


def is_used(value: Any) -> bool:
    return bool(getattr(value, "jx_used", False))


def has_op(value: Any, op: str) -> bool:
    return op in getattr(value, "jx_ops", ())
