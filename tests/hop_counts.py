"""Count how often the costly steps of the pipeline run on one call path.

Input: a zero-argument function (one ``why``, one Try it run). Output: ``Hops``: for each
counted step (route decisions, ``apply_request`` runs, parser builds, output parses) how
many times it ran, and per distinct input how many times (a step run twice on the same
input is work the session's memo should have saved).

Every module that bound the step's function (``from x import f`` included) gets the
counting wrapper, so calls through any import path are seen; methods are wrapped on
their class. Used by ``tests/session/test_compute_once.py`` and ``benchmarks/bench_hops.py``.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

Key = Callable[[tuple[Any, ...], dict[str, Any], Any], object]  # (args, kwargs, result) -> the input's key


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _route_key(args: tuple[Any, ...], kwargs: dict[str, Any], result: Any) -> object:
    return _digest(args[0])


def _apply_key(args: tuple[Any, ...], kwargs: dict[str, Any], result: Any) -> object:
    from explorer.session import request_key
    return request_key(args[1]), kwargs.get("reasoning") is not None


def _build_key(route: str) -> Key:
    def key(args: tuple[Any, ...], kwargs: dict[str, Any], result: Any) -> object:
        from explorer.session import request_key
        return route, request_key(args[1])
    return key


SKIP = object()  # a key that says: this call is not a run of the step


def _parse_key(args: tuple[Any, ...], kwargs: dict[str, Any], result: Any) -> object:
    if kwargs.get("engine") is not None:
        return SKIP  # a stream's step (its own engine, one prefix): the stream is made once per request and output
    # one request's params hold one arena object, so the arena's identity stands for the request
    return id(args[0]), _digest(args[1]), kwargs.get("generation_prompt", ""), kwargs.get("is_partial", False)


@dataclass(frozen=True)
class Step:
    label: str
    module: str
    name: str  # "function" or "Class.method"
    key: Key


STEPS: tuple[Step, ...] = (
    Step("route decisions", "explorer.routing", "route_source", _route_key),
    Step("apply_request runs", "explorer.apply.prompt", "apply_request", _apply_key),
    Step("parser builds", "explorer.apply.pipeline", "apply_template", _build_key("routed")),
    Step("parser builds", "explorer.apply.pipeline", "apply_autoparser", _build_key("autoparser")),
    Step("output parses", "explorer.output.parse", "analyse_output", _parse_key),
)


@dataclass
class Hops:
    calls: Counter[str] = field(default_factory=Counter)
    by_input: dict[str, Counter[object]] = field(default_factory=dict)
    callers: dict[str, Counter[str]] = field(default_factory=dict)  # with trace=True: who called, by call chain

    def repeats(self, label: str) -> int:
        """The most times the step ran on one input (1: never repeated)."""
        return max(self.by_input.get(label, Counter()).values(), default=0)

    def table(self) -> str:
        labels = dict.fromkeys(s.label for s in STEPS)
        rows = [f"  {label:<20} {self.calls[label]:>5} runs, {len(self.by_input.get(label, ())):>4} distinct "
                f"inputs, at most {self.repeats(label)} on one" for label in labels]
        return "\n".join(rows)


def _chain() -> str:
    """The project's frames of the current call, outermost first (module:function)."""
    frames = []
    frame: FrameType | None = sys._getframe(2)
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if name.startswith(("explorer", "pages", "ui_")) or frame.f_code.co_filename.endswith("_page.py"):
            frames.append(f"{name.rpartition('.')[2]}:{frame.f_code.co_name}")
        frame = frame.f_back
    return " > ".join(reversed(frames))


def _patch_sites(original: object) -> list[tuple[object, str]]:
    """Every module attribute bound to ``original`` (explorer's, pages', the tests')."""
    sites: list[tuple[object, str]] = []
    for mod in list(sys.modules.values()):
        names = getattr(mod, "__dict__", None)
        if not names or not getattr(mod, "__name__", "").startswith(("explorer", "pages", "ui_", "tests")):
            continue
        sites += [(mod, n) for n, v in list(names.items()) if v is original]
    return sites


@contextmanager
def counting(steps: tuple[Step, ...] = STEPS, *, trace: bool = False) -> Iterator[Hops]:
    """Count the steps while the block runs (threads included: AppTest's script thread);
    ``trace``: also keep the project's call chain of each run (``Hops.callers``)."""
    hops = Hops()
    lock = threading.Lock()
    undo: list[tuple[object, str, object]] = []

    def wrap(step: Step, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def counted(*args: Any, **kwargs: Any) -> Any:
            result = fn(*args, **kwargs)
            try:
                key = step.key(args, kwargs, result)
            except (AttributeError, IndexError, KeyError, TypeError):  # a call the key cannot read: under None
                key = None
            if key is SKIP:
                return result
            with lock:
                hops.calls[step.label] += 1
                hops.by_input.setdefault(step.label, Counter())[key] += 1
                if trace:
                    hops.callers.setdefault(step.label, Counter())[_chain()] += 1
            return result
        return counted

    try:
        for step in steps:
            module = importlib.import_module(step.module)
            owner_name, _, attr = step.name.rpartition(".")
            if owner_name:
                owner = getattr(module, owner_name)
                original = owner.__dict__[attr]
                undo.append((owner, attr, original))
                setattr(owner, attr, wrap(step, original))
                continue
            original = getattr(module, attr)
            wrapped = wrap(step, original)
            for site, name in _patch_sites(original):
                undo.append((site, name, original))
                setattr(site, name, wrapped)
        yield hops
    finally:
        for site, name, original in reversed(undo):
            setattr(site, name, original)
