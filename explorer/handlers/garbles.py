"""Typical slips of a handler's own call markup, as the handler class declares them.

Input: a ``GarbleInput``: the model output and the few facts of llama.cpp's parse and the
request a garble finder reads. Output: ``Garble`` data (how to find the slip, what to
say about it) and, from its finder, ``Hit`` spans. The triage
(``explorer.triage.checks_handlers``) builds this input from its facts and turns hits
into findings; the handlers never see the triage.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from explorer.vocabulary import Severity

Hit = tuple[int, int, str, str]  # span start, span end, found, expected


@dataclass(frozen=True)
class GarbleInput:
    """What a garble finder reads."""

    output: str
    generation_prompt: str
    tool_names: tuple[str, ...]  # the request's function names
    tools: tuple[object, ...]  # the request's tools, as sent
    has_calls: bool  # llama.cpp's parse read at least one tool call
    stop: int  # where the parse stopped, as an offset into the output
    parsed_all: bool  # the parse consumed generation prompt + output to the end


Finder = Callable[[GarbleInput], Iterator[Hit]]


@dataclass(frozen=True)
class Garble:
    """One typical slip of a handler's format: how to find it and what to say."""

    find: Finder
    summary: str  # {found} and {expected} are filled in
    detail: str
    fix_hint: str
    always: bool = False  # a cause even when the text survives somewhere (call lost either way)
    severity: Severity = "cause"


def regex_hits(pattern: str, expected: str, group: str = "bad") -> Finder:
    """Every match of ``pattern`` in the output; ``expected`` may name its groups."""
    rx = re.compile(pattern)

    def find(g: GarbleInput) -> Iterator[Hit]:
        for m in rx.finditer(g.output):
            yield m.start(group), m.end(group), m.group(group), expected.format(**m.groupdict())
    return find


def _properties(tool: object) -> set[str]:
    fn = tool.get("function", tool) if isinstance(tool, dict) else {}
    props = fn.get("parameters", {}).get("properties", {}) if isinstance(fn, dict) else {}
    return set(props) if isinstance(props, dict) else set()


def argument_names(g: GarbleInput) -> set[str]:
    """Every parameter name of the request's tools."""
    return {k for t in g.tools for k in _properties(t)}
