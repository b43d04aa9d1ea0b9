"""transformers' chat-template environment, with our budgets: the transformers dialect.

Input: jinja2's environment options (``explorer.render.jinja_compat.environment``; the
per-render budget state is read when a hook runs). Output: ``transformers_environment``:
``TransformersSandbox`` (jinja2's ``ImmutableSandboxedEnvironment`` whose call, ``+``,
loop and ``~`` hooks and built-in filters check the budgets, each in one frame so that a
render costs no more than transformers' own: benchmarks/bench_render.py
--against-transformers), with the globals and filters ``TRANSFORMERS_RELEASE``'s
``_cached_compile_jinja_template`` defines:

- ``tojson``: ``json.dumps(x, ensure_ascii=False, ...)``, no HTML escaping, no key sorting;
- ``raise_exception(message)``: a template error with the template's message;
- ``strftime_now(format)``: the clock's time formatted (``strftime_now_for(clock)``);
- ``dict``: a callable object (``dict(...)``, ``dict.fromkeys(...)``), not the type;
- ``namespace``: jinja2's ``Namespace`` that refuses attribute names starting with ``_``;
- ``range``: jinja2's sandbox ``safe_range`` (a ``range`` object; ``OverflowError`` past
  100,000 items; Python's own errors for other arguments), under our range cap too.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable, Iterable
from datetime import datetime
from types import BuiltinMethodType
from typing import Any

import jinja2
from jinja2.runtime import Macro
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError, safe_range
from jinja2.utils import Namespace, _PassArg

from explorer.errors import RenderLimitError
from explorer.render import jinja_compat_llama as ll
from explorer.render.jinja_compat_budget import (
    GUARDED_LOOP_LEN,
    PADDING_METHODS,
    SIZED_FILTERS,
    Budgeted,
    TimedSequence,
    check_numbers,
    checked_result,
    guarded,
    runtime_only,
)
from explorer.render.jinja_compat_state import _FALLBACK, _STATE, current


def tojson(x: Any, ensure_ascii: bool = False, indent: Any = None, separators: Any = None,
           sort_keys: bool = False) -> str:
    if isinstance(indent, int) and indent > 0:
        nodes, depth = ll.json_shape(x)
        current().check_size(nodes * depth * indent, "tojson output")
    elif isinstance(indent, str):
        nodes, depth = ll.json_shape(x)
        current().check_size(nodes * depth * len(indent), "tojson output")
    out = json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)
    current().check_size(len(out), "tojson output")
    return out


def strftime_now_for(clock: Callable[[], datetime]) -> Callable[[Any], str]:
    def strftime_now(format: Any) -> str:  # noqa: A002 - transformers' parameter name
        return clock().strftime(format)

    return strftime_now


class TemplateDict:
    """transformers' ``dict`` global: builds dicts, and offers ``fromkeys``, with nothing of
    the type itself for a template to reach through."""

    def __call__(self, *args: Any, **kwargs: Any) -> dict[Any, Any]:
        return dict(*args, **kwargs)

    def fromkeys(self, *args: Any, **kwargs: Any) -> dict[Any, Any]:
        return dict.fromkeys(*args, **kwargs)


class TemplateNamespace(Namespace):
    """transformers' ``namespace``: attribute names starting with an underscore are refused
    (``SecurityError``), at creation and on ``set``."""

    def __init__(*args: Any, **kwargs: Any) -> None:  # noqa: N805 - Namespace's own signature trick
        self, args = args[0], args[1:]
        attrs = dict(*args, **kwargs)
        for name in attrs:
            TemplateNamespace._check_name(name)
        Namespace.__init__(self, attrs)

    def __setitem__(self, name: str, value: Any) -> None:
        TemplateNamespace._check_name(name)
        Namespace.__setitem__(self, name, value)

    @staticmethod
    def _check_name(name: Any) -> None:
        if isinstance(name, str) and name.startswith("_"):
            raise SecurityError(
                f"Chat templates cannot store underscore-prefixed attributes on a namespace, but got {name!r}. "
                "Please rename the attribute.")


def budgeted_range(*args: Any) -> range:
    """jinja2's ``safe_range``, and our range cap when it is the lower."""
    rng = safe_range(*args)
    state = current()
    if len(rng) > state.max_range:
        raise RenderLimitError(f"range of {len(rng):,} items is over the {state.max_range:,} item cap")
    return rng


# --- the sandbox ----------------------------------------------------------------------


class TransformersSandbox(Budgeted, ImmutableSandboxedEnvironment):
    """transformers' environment: plain jinja2 semantics, budgets added.

    Python's string methods, filters and ``%`` formatting allocate their result in one C
    call, so sizes are checked before the call (numbers in the arguments or the format
    string) as well as after it.
    """

    intercepted_binops = frozenset({"+", "*", "**", "%"})

    # The hooks below run for every call and '+' a template makes: each is one frame, with
    # the common case (a str result, a str + str) checked first (the render-time ratio
    # against transformers, benchmarks/bench_render.py --against-transformers).

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        if operator == "+" and left.__class__ is str and right.__class__ is str:
            state = _STATE.get() or _FALLBACK
            size = len(left) + len(right)
            if size > state.max_chars or state.allocated + size > state.max_allocated:
                state.check_size(size, "concatenation result")  # raises
            state.allocated += size
            return left + right
        self.check_binop(operator, left, right)
        if operator == "%" and isinstance(left, str):
            values = right if isinstance(right, tuple) else (right,)
            check_numbers(left, values if "*" in left else (), {})  # '%*s' takes its width from the values
            return checked_result(super().call_binop(context, operator, left, right), "'%' result")
        return super().call_binop(context, operator, left, right)

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
        # jinja2's SandboxedEnvironment.call inlined (is_safe_callable, then context.call)
        state = _STATE.get() or _FALLBACK
        if _monotonic() > state.deadline:
            state.check_time()
        cls = __obj.__class__
        if cls is BuiltinMethodType:  # a Python method: it cannot call back into the template
            owner = __obj.__self__
            if isinstance(owner, str):
                _check_str_method(state, owner, __obj.__name__, args, kwargs)
            result = __context.call(__obj, *args, **kwargs)
        else:
            if cls is not Macro:
                owner = getattr(getattr(__obj, "__wrapped__", __obj), "__self__", None)
                if isinstance(owner, str):
                    _check_str_method(state, owner, __obj.__name__, args, kwargs)
            if getattr(__obj, "unsafe_callable", False) or getattr(__obj, "alters_data", False):
                raise SecurityError(f"{__obj!r} is not safely callable")
            state.depth += 1
            if state.depth > state.max_depth:
                state.depth -= 1
                raise RenderLimitError(f"call depth over the {state.max_depth} limit (runaway recursion?)")
            try:
                result = __context.call(__obj, *args, **kwargs)
            finally:
                state.depth -= 1
        if result.__class__ is str:
            size = len(result)
            if size > state.max_chars or state.allocated + size > state.max_allocated:
                state.check_size(size, "call result")  # raises
            state.allocated += size
        elif isinstance(result, str):
            state.check_size(len(result), "call result")
        return result

    def jx_concat(self, *values: Any) -> str:
        out = "".join(map(str, values))
        current().check_size(len(out), "'~' result")
        return out


_monotonic = time.monotonic


@jinja2.pass_context
def _loop_filter(context: Any, iterable: Any, pairs: bool = False) -> Iterable[Any]:
    """The transformers dialect's loop hook (a filter: see ``_hook_filter``)."""
    state = _STATE.get() or _FALLBACK
    if _monotonic() > state.deadline:
        state.check_time()
    try:
        size = len(iterable)
    except TypeError:
        return guarded(iterable)
    if size <= _SHORT_LOOP_LEN:  # messages, tools, properties: each iteration starts checked code
        return iterable
    return TimedSequence(iterable) if size <= GUARDED_LOOP_LEN else guarded(iterable)


@jinja2.pass_context
def _concat_filter(context: Any, *values: Any) -> str:
    """The transformers dialect's ``~`` (a filter: see ``_hook_filter``)."""
    out = "".join(map(str, values))
    current().check_size(len(out), "'~' result")
    return out

# A loop this short is iterated as it is (the transformers dialect): the deadline is checked
# when it starts, and its body's calls, filters, inner loops and '+' check it again.
_SHORT_LOOP_LEN = 16


def _check_str_method(state: Any, owner: str, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Python string methods that allocate their result in one C call: sized beforehand."""
    if name in ("format", "format_map"):
        check_numbers(owner, (), {})
    elif name in PADDING_METHODS:
        check_numbers("", args, kwargs)
    if name == "replace" and len(args) >= 2 and isinstance(args[0], str):
        hits = len(owner) + 1 if not args[0] else owner.count(args[0])
        state.check_size(len(owner) + hits * len(str(args[1])), "replace() result")


# Built-in filters whose time and result are bounded by values the budget already checked
# (no sizing argument, no sort or join over a sequence): left as jinja2 has them.
_BOUNDED_FILTERS = frozenset({"abs", "capitalize", "count", "d", "default", "e", "escape", "first", "float", "int",
                              "items", "last", "length", "lower", "safe", "string", "title", "trim", "upper"})


def _budgeted_filter(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """A jinja2 built-in filter with its result size (and sizing arguments) checked; like
    ``runtime_only``, one context-taking function, so jinja2 never runs it while compiling."""
    if name in _BOUNDED_FILTERS:
        return fn
    kind = _PassArg.from_obj(fn)
    sized = name in SIZED_FILTERS
    what = f"'{fn.__name__}' result"

    def budgeted(context: Any, *args: Any, **kwargs: Any) -> Any:
        # Filters are called directly (not through ``call``), and one can be a long C call
        # (sorting a million items), so a chain of them re-checks the deadline at each link.
        state = _STATE.get() or _FALLBACK
        if _monotonic() > state.deadline:
            state.check_time()
        if sized:
            check_numbers("", args[1:], kwargs)
        if kind is None:
            result = fn(*args, **kwargs)
        elif kind is _PassArg.context:
            result = fn(context, *args, **kwargs)
        elif kind is _PassArg.eval_context:
            result = fn(context.eval_ctx, *args, **kwargs)
        else:
            result = fn(context.environment, *args, **kwargs)
        if isinstance(result, str):
            state.check_size(len(result), what)
        return result

    functools.update_wrapper(budgeted, fn)
    return jinja2.pass_context(budgeted)


def transformers_environment(options: dict[str, Any], raise_exception: Callable[..., Any]) -> jinja2.Environment:
    """The transformers dialect's (shared, thread-safe) environment."""
    env = TransformersSandbox(**options)
    for name, fn in list(env.filters.items()):
        env.filters[name] = _budgeted_filter(name, fn)
    env.filters["tojson"] = runtime_only(tojson)
    env.filters["jx_loop"] = _loop_filter
    env.filters["jx_concat"] = _concat_filter
    env.globals["raise_exception"] = raise_exception
    env.globals["range"] = budgeted_range
    env.globals["dict"] = TemplateDict()
    env.globals["namespace"] = TemplateNamespace
    return env
