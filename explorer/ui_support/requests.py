"""What the pages feed the library from their widgets, and how fixtures are judged.

Input: the user's tools JSON; whether the request passes enable_thinking and the date
field; the What if… section's request-change widget values (plain values: a switch, a
reasoning format, a kwargs text, a tool-order text). Output: tools lists (or
RequestError); the ``TransformersCall`` the transformers round trip renders with (or
RequestError for a date that is not ISO 8601); ``RequestChange``s (or RequestError saying
which value is wrong); and,
re-exported from ``explorer.fixtures``, fixture verdicts by canitoolcall's own checks.
"""

from __future__ import annotations

from typing import Any

from explorer.apply.request import merged_kwargs
from explorer.errors import RequestError, SourceError
from explorer.roundtrip import RequestChange, TransformersCall
from explorer.ui_support.links import parse_date_field

# --- request inputs -------------------------------------------------------------------


def transformers_call(thinking_passed: bool, date_text: str) -> TransformersCall:
    """How the app calls apply_chat_template: enable_thinking passed or not, and the date
    field (empty: the real clock)."""
    if not date_text.strip():
        return TransformersCall(thinking_passed=thinking_passed)
    try:
        date = parse_date_field(date_text)
    except SourceError as exc:
        raise RequestError(exc.message) from None
    return TransformersCall(thinking_passed=thinking_passed, date=date)


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


def request_change(*, enable_thinking: bool | None = None, reasoning_format: str | None = None,
                   parallel_tool_calls: bool | None = None, kwargs_text: str = "",
                   tool_order_text: str = "") -> RequestChange:
    """The request change the What if… widgets describe (None: unchanged). ``kwargs_text``:
    chat_template_kwargs as a JSON object (empty: none), the switch winning over a kwarg of
    the same name; ``tool_order_text``: tool names, comma-separated (empty: the request's
    order). Raises RequestError for kwargs that are not a JSON object."""
    import json

    raw = kwargs_text.strip()
    try:
        kwargs = json.loads(raw) if raw else {}
    except ValueError as exc:
        raise RequestError(f"chat_template_kwargs: not JSON ({exc})") from exc
    if not isinstance(kwargs, dict):
        raise RequestError(f"chat_template_kwargs: expected a JSON object, found {type(kwargs).__name__}")
    kwargs = merged_kwargs(kwargs, enable_thinking)  # the library's one rule: the switch wins
    body: dict[str, Any] = {"chat_template_kwargs": kwargs}
    if reasoning_format is not None:
        body["reasoning_format"] = reasoning_format
    if parallel_tool_calls is not None:
        body["parallel_tool_calls"] = parallel_tool_calls
    order = [n.strip() for n in tool_order_text.split(",") if n.strip()]
    if order:
        body["tool_order"] = order
    return RequestChange.from_json(body)


# --- conformance fixtures (canitoolcall) ---------------------------------------------
# The verdict is library code (the doctor judges fixtures too); the pages reach it here.
from explorer.fixtures import FixtureVerdict, count_scope, fixture_verdict, match_family  # noqa: E402
from explorer.fixtures import judge as judge_fixture  # noqa: E402

__all__ = ["FixtureVerdict", "count_scope", "fixture_verdict", "judge_fixture", "match_family", "parse_tools_json",
           "request_change", "transformers_call"]
