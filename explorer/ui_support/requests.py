"""What the Try-it, Fixtures and Compare pages feed the library, and how they judge it.

Input: the user's tools JSON, renderings of a conversation, canitoolcall fixtures and
parses, two analyses. Output: tools lists (or RequestError), model replies cut out of a
rendering, fixture verdicts by canitoolcall's own checks, field-by-field comparisons.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from explorer.errors import RequestError


# --- request inputs -------------------------------------------------------------------


def parse_tools_json(text: str) -> list[dict[str, Any]] | None:
    """The request's tools from the user's JSON (empty text: no tools).

    Accepts a list of OpenAI tool objects, or one object; raises RequestError saying where
    the JSON is wrong.
    """
    import json

    if not text.strip():
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RequestError(f"tools: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from exc
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(t, dict) for t in value):
        raise RequestError(f"tools: expected a JSON list of tool objects, found {type(value).__name__}")
    for i, tool in enumerate(value):
        fn = tool.get("function", tool)
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            raise RequestError(f"tools[{i}]: expected {{'type': 'function', 'function': {{'name': ...}}}}")
    return value


def continuation_after(prompt: str, rendered: str) -> str | None:
    """What a model would have generated: ``rendered`` after the next-turn ``prompt``.

    None when the prompt is not a prefix of the rendered conversation (the template
    renders history turns differently from the generation prompt).
    """
    if not rendered.startswith(prompt):
        return None
    return rendered[len(prompt):]


def end_marker_from_probes(rendered_x: str, rendered_xy: str) -> str | None:
    """The text a template appends after an assistant message.

    ``rendered_x`` and ``rendered_xy`` render the same conversation ending in an assistant
    message "X" and "XY". If the second is the first with "Y" inserted right after "X",
    what follows that "X" is the end marker; otherwise None (ambiguous).
    """
    cut = rendered_x.rfind("X")
    while cut >= 0:
        head, tail = rendered_x[: cut + 1], rendered_x[cut + 1 :]
        if rendered_xy == head + "Y" + tail:
            return tail
        cut = rendered_x.rfind("X", 0, cut)
    return None


def strip_end_marker(text: str, marker: str | None) -> str:
    """Remove a trailing end marker: exactly, or (trimmed) before trailing whitespace."""
    if not marker:
        return text
    if text.endswith(marker):
        return text[: len(text) - len(marker)]
    core = marker.strip()
    body = text.rstrip()
    if core and body.endswith(core):
        return body[: len(body) - len(core)]
    return text


# --- comparing two templates -------------------------------------------------------------


def flatten_json(value: Any, prefix: str = "") -> dict[str, Any]:
    """Nested dicts as dotted keys (lists stay values), in the input's order."""
    if not isinstance(value, Mapping):
        return {prefix: value}
    out: dict[str, Any] = {}
    for key, inner in value.items():
        name = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(inner, Mapping) and inner:
            out.update(flatten_json(inner, name))
        else:
            out[name] = inner
    return out


@dataclass(frozen=True)
class FieldChange:
    field: str
    a: Any
    b: Any

    @property
    def same(self) -> bool:
        return self.a == self.b


def compare_fields(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[FieldChange]:
    """Field-by-field comparison of two nested JSON objects (keys of A first, then B's extra)."""
    fa, fb = flatten_json(a), flatten_json(b)
    keys = list(fa) + [k for k in fb if k not in fa]
    return [FieldChange(k, fa.get(k), fb.get(k)) for k in keys]


# --- conformance fixtures (canitoolcall) ---------------------------------------------


@dataclass(frozen=True)
class FixtureVerdict:
    """How our parse of one fixture compares with what the fixture expects."""

    status: str  # canitoolcall's Status value: pass, soft_pass, fail
    detail: str
    got: dict[str, Any]  # the parse in canitoolcall's ParseResult.to_dict() shape


def fixture_verdict(fixture: Any, family: Any, message: Any | None, exception: str | None) -> FixtureVerdict:
    """Judge one parse (a ChatMessage, or the parser's exception) by canitoolcall's own checks.

    ``expected`` fixtures use ``compare`` (strict, then whitespace-soft); ``expected_error``
    fixtures use ``check_expected_error`` on the non-streaming parse.
    """
    from canitoolcall import checks
    from canitoolcall.results import Observation, ParsedToolCall, ParseResult, Status

    if message is None:
        got = ParseResult(exception=exception or "error")
    else:
        got = ParseResult(
            content=message.content, reasoning_content=message.reasoning_content,
            tool_calls=tuple(ParsedToolCall(c.name, c.arguments) for c in message.tool_calls),
        )
    if fixture.expected is not None:
        want = checks.expected_as_result(fixture.expected)
        status = checks.compare(want, got)
        detail = "" if status is Status.PASS else checks.describe_difference(want, got)
        return FixtureVerdict(status.value, detail, got.to_dict())
    rows = checks.check_expected_error(fixture, family, Observation(nonstream=got, streams={}))
    if not rows:
        return FixtureVerdict(Status.PASS.value, "nothing to check", got.to_dict())
    worst = checks.case_status(rows)
    detail = "; ".join(r.detail for r in rows if r.detail) or f"accepted: {fixture.expected_error.reason}"
    return FixtureVerdict(worst.value, detail, got.to_dict())
