"""Run one call in a forked child with a hard deadline and a memory ceiling (test helper).

Input: a function and its arguments, a deadline in seconds. Output: an ``Outcome``: what
the call returned or raised (class name, message, template line), how long it took, how
much the child's resident memory grew, or ``timed_out`` when the child had to be killed.

A fork keeps everything the parent already imported (no re-import per case), and a
killed child cannot leave a runaway render behind in the test process. The child's
address space is capped (``RLIMIT_AS``), so a memory bomb that slipped past the render
caps fails with ``MemoryError`` instead of exhausting the shared machine.
"""

from __future__ import annotations

import gc
import multiprocessing as mp
import resource
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

AS_HEADROOM_BYTES = 3 << 30


@dataclass(frozen=True)
class Outcome:
    timed_out: bool
    seconds: float
    returned: Any = None  # a plain summary built by the called function
    error_class: str | None = None
    error_bases: tuple[str, ...] = ()
    message: str = ""
    line: int | None = None
    source_line: str | None = None
    rss_growth_mb: float = 0.0
    trace: str = ""

    @property
    def raised(self) -> bool:
        return self.error_class is not None


def _status_kb(field: str) -> int:
    with open("/proc/self/status", encoding="ascii") as handle:
        for row in handle:
            if row.startswith(field + ":"):
                return int(row.split()[1])
    return 0


def _child(conn: Any, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    # The child inherits the whole test process' heap (thousands of tests' objects by the
    # time these run); without this, every full collection triggered by a hostile case's
    # million allocations walks that heap and copies its pages, which more than doubled
    # the wall time of extra/sort_chain.jinja in CI. The inherited objects are never freed
    # here, so moving them out of the collector's sight changes nothing else.
    gc.freeze()
    rss0 = _status_kb("VmRSS")
    size = _status_kb("VmSize") * 1024
    resource.setrlimit(resource.RLIMIT_AS, (size + AS_HEADROOM_BYTES, size + AS_HEADROOM_BYTES))
    start = time.monotonic()
    result: dict[str, Any] = {}
    try:
        result["returned"] = fn(*args)
    except BaseException as exc:  # noqa: BLE001 - the parent judges which classes are allowed
        loc = getattr(exc, "location", None)
        result |= {
            "error_class": type(exc).__name__,
            "error_bases": tuple(c.__name__ for c in type(exc).__mro__),
            "message": str(exc),
            "line": getattr(loc, "line", None),
            "source_line": getattr(loc, "source_line", None),
            "trace": "".join(traceback.format_exception(exc))[-3000:],
        }
    result["seconds"] = time.monotonic() - start
    result["rss_growth_mb"] = (_status_kb("VmHWM") - rss0) / 1024
    try:
        conn.send(result)
    except Exception as exc:  # noqa: BLE001 - an unpicklable summary is a test bug, say so
        conn.send({"error_class": "UnpicklableResult", "message": repr(exc), "seconds": result["seconds"]})
    conn.close()


def run_bounded(fn: Callable[..., Any], *args: Any, deadline: float) -> Outcome:
    """Call ``fn(*args)`` in a forked child; kill it after ``deadline`` seconds."""
    ctx = mp.get_context("fork")
    receiver, sender = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(sender, fn, args), daemon=True)
    start = time.monotonic()
    proc.start()
    sender.close()
    try:
        if receiver.poll(deadline):
            data = receiver.recv()
        else:
            data = None
    except EOFError:  # the child died without a word (killed by the kernel?)
        data = {"error_class": "ChildDied", "message": f"exit code {proc.exitcode}",
                "seconds": time.monotonic() - start}
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join(5)
        receiver.close()
    if data is None:
        return Outcome(timed_out=True, seconds=time.monotonic() - start)
    return Outcome(timed_out=False, **data)
