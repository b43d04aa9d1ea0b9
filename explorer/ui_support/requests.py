"""What the Try-it and Fixtures pages feed the library, and how they judge it.

Input: the user's tools JSON, canitoolcall fixtures and parses. Output: tools lists (or
RequestError), fixture verdicts by canitoolcall's own checks.
"""

from __future__ import annotations

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
