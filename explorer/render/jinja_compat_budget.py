"""The render budgets both dialects' sandboxes enforce, cooperatively.

Input: the per-render ``RenderState`` (``explorer.render.jinja_compat_state``), read when a
hook runs. Output: ``Budgeted`` (the call, loop and binary-operator hooks both sandboxes
share), the guarded iterators a loop runs through, the pre-checks of sizes a C call would
allocate at once (widths in format strings and padding arguments, repetition, integer
size) and ``runtime_only`` (a filter jinja2 never folds at compile time). Exceeding a
budget raises ``RenderLimitError``.
"""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import jinja2
from jinja2.utils import _PassArg

from explorer.errors import RenderLimitError
from explorer.render.jinja_compat_state import current

# A list this long is iterated through a generator that re-checks the deadline.
GUARDED_LOOP_LEN = 10_000

class Budgeted:
    """Hooks shared by both dialects: deadlines, call depth and size caps."""

    intercepted_binops = frozenset({"+", "*", "**"})

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
        state = current()
        state.check_time()
        state.depth += 1
        if state.depth > state.max_depth:
            raise RenderLimitError(f"call depth over the {state.max_depth} limit (runaway recursion?)")
        try:
            return super().call(__context, __obj, *args, **kwargs)  # type: ignore[misc]  # a mixin: the sandbox after it in the MRO defines call
        finally:
            state.depth -= 1

    def jx_loop(self, iterable: Any, pairs: bool = False) -> Iterable[Any]:
        current().check_time()
        try:
            size = len(iterable)
        except TypeError:
            return guarded(iterable)
        return TimedSequence(iterable) if size <= GUARDED_LOOP_LEN else guarded(iterable)

    def check_binop(self, operator: str, left: Any, right: Any) -> None:
        state = current()
        if operator == "*":
            for seq, n in ((left, right), (right, left)):
                if isinstance(seq, (str, list, tuple)) and isinstance(n, int):
                    state.check_size(len(seq) * max(n, 0), "repetition result")
            if isinstance(left, int) and isinstance(right, int):
                check_bits(abs(left).bit_length() + abs(right).bit_length(), left, "*", right)
        elif operator == "+":
            if isinstance(left, (str, list, tuple)) and isinstance(right, (str, list, tuple)):
                state.check_size(len(left) + len(right), "concatenation result")
        elif operator == "**":
            if isinstance(left, int) and isinstance(right, int) and abs(left) > 1 and right > 0:
                check_bits(abs(left).bit_length() * right, left, "**", right)


# Python integers are exact: one multiplication or power of huge numbers is a long C call.
MAX_INT_BITS = 1_000_000


def check_bits(bits: int, left: int, op: str, right: int) -> None:
    if bits > MAX_INT_BITS:
        shown = [x if abs(x) < 10**12 else f"<{abs(x).bit_length()}-bit integer>" for x in (left, right)]
        raise RenderLimitError(f"{shown[0]} {op} {shown[1]} is too large to compute (about {bits:,} bits)")


class TimedSequence:
    """A short loop's items, re-checking the deadline before each one: the body of a short
    loop can itself be slow (a filter over a huge list), so counting items is not enough.
    Keeps ``len`` so that ``loop.length`` does not have to drain the iterator."""

    __slots__ = ("_items",)

    def __init__(self, items: Any) -> None:
        self._items = items

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Any]:
        state = current()
        clock, deadline = time.monotonic, state.deadline
        for item in self._items:
            if clock() > deadline:
                state.check_time()
            yield item


def guarded(iterable: Iterable[Any]) -> Iterator[Any]:
    state = current()
    for n, item in enumerate(iterable):
        if not n & 1023:
            state.check_time()
        yield item


# A width/precision of 7+ digits inside a format field: str.format ("{:>N}") or printf ("%N").
FORMAT_WIDTH = re.compile(r"\{[^{}]*?(\d{7,})[^{}]*\}|%[-+ #0]*(\d{7,})|%[-+ #0]*\d*\.(\d{7,})")
# Python string methods and jinja2 filters whose numeric arguments size their result.
PADDING_METHODS = frozenset({"center", "ljust", "rjust", "zfill", "expandtabs"})
SIZED_FILTERS = frozenset({"center", "indent", "wordwrap", "truncate", "format", "batch", "slice"})


def check_numbers(fmt: str, args: Any, kwargs: dict[str, Any]) -> None:
    """Refuse widths/counts beyond the size cap before Python allocates the result."""
    state = current()
    for value in (*args, *kwargs.values()):
        if isinstance(value, int) and not isinstance(value, bool):
            state.check_size(value, "requested width")
    for groups in FORMAT_WIDTH.findall(fmt):
        for digits in groups:
            if digits:
                state.check_size(int(digits), "requested width")


def checked_result(value: Any, what: str) -> Any:
    if isinstance(value, str):
        current().check_size(len(value), what)
    return value


def runtime_only(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The filter, marked so that jinja2 never runs it at compile time.

    jinja2 folds filters on constants while compiling, outside any render budget; a
    context-taking filter is never folded. The original pass_* argument is forwarded.
    """
    kind = _PassArg.from_obj(fn)

    def wrapped(context: Any, *args: Any, **kwargs: Any) -> Any:
        if kind is _PassArg.context:
            return fn(context, *args, **kwargs)
        if kind is _PassArg.eval_context:
            return fn(context.eval_ctx, *args, **kwargs)
        if kind is _PassArg.environment:
            return fn(context.environment, *args, **kwargs)
        return fn(*args, **kwargs)

    functools.update_wrapper(wrapped, fn)
    return jinja2.pass_context(wrapped)
