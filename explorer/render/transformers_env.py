"""The globals and filters of transformers' chat-template environment, with our budgets.

Input: nothing (the per-render budget state is read when a function runs). Output: the
functions ``explorer.render.jinja_compat`` installs in the transformers dialect's
environment, each as ``TRANSFORMERS_RELEASE``'s ``_cached_compile_jinja_template``
defines it:

- ``tojson``: ``json.dumps(x, ensure_ascii=False, ...)``, no HTML escaping, no key sorting;
- ``raise_exception(message)``: a template error with the template's message;
- ``strftime_now(format)``: the clock's time formatted (``strftime_now_for(clock)``);
- ``dict``: a callable object (``dict(...)``, ``dict.fromkeys(...)``), not the type;
- ``namespace``: jinja2's ``Namespace`` that refuses attribute names starting with ``_``;
- ``range``: jinja2's sandbox ``safe_range`` (a ``range`` object; ``OverflowError`` past
  100,000 items; Python's own errors for other arguments), under our range cap too.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Callable

from jinja2.sandbox import SecurityError, safe_range
from jinja2.utils import Namespace

from explorer.errors import RenderLimitError
from explorer.render import jinja_compat_llama as ll
from explorer.render.jinja_compat_state import current


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
