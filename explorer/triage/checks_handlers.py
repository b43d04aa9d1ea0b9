"""Slips in a routed handler's own call markup, for formats announced by regex triggers.

Input: ``Facts``. Output: findings. GPT-OSS (harmony), Functionary v3.2 and Muse Glimmer
are parsed by hand-written handlers (llama.cpp's ``common/parsers/*.cpp``) whose calls
start at a pattern, not a fixed word; each handler class declares its typical garbles
(``explorer.handlers.garbles.Garble``, with the text the handler's parser wants). Here
the facts become the garbles' ``GarbleInput`` and their hits become findings: only where
the text explains the result, once per span, never inside a JSON value.
"""

from __future__ import annotations

from explorer.handlers.garbles import GarbleInput
from explorer.handlers.registry import find_route
from explorer.triage.facts import Facts
from explorer.triage.model import Finding, shown


def garble_input(f: Facts) -> GarbleInput:
    return GarbleInput(
        output=f.output,
        generation_prompt=f.gp,
        tool_names=f.tool_names,
        tools=tuple(f.request.tools or ()),
        has_calls=bool(f.calls),
        stop=f.stop,
        parsed_all=f.parse.result.end >= len(f.parse.input),
    )


def _inside_json(f: Facts, pos: int) -> bool:
    """Markup quoted inside a JSON value (a call's argument that talks about the format)."""
    return any(o.ok and o.start < pos < o.end for o in f.objects)


def handler_format(f: Facts) -> tuple[Finding, ...]:
    if f.tool_parser_reason is not None:
        return ()
    route = find_route(f.params.handler)
    if route is None or not route.garbles:
        return ()
    given = garble_input(f)
    out: list[Finding] = []
    seen: set[tuple[int, int]] = set()
    for g in route.garbles:
        for start, end, found, expected in g.find(given):
            span = (start, max(end, start + 1) if end <= len(f.output) else end)
            if (start, end) in seen or not (g.always or f.is_cause((start, end))) or _inside_json(f, start):
                continue
            seen.add((start, end))
            severity = g.severity
            if g.severity == "warning" and f.output[end:].strip():
                severity = "cause"  # what follows the call is dropped
            out.append(Finding(
                check="handler-format", severity=severity,
                summary=g.summary.format(found=shown(found), expected=shown(expected)),
                detail=g.detail, span=(start, min(span[1], len(f.output))), expected=expected, found=found,
                fix_hint=g.fix_hint))
    return tuple(sorted(out, key=lambda x: x.span or (0, 0)))
