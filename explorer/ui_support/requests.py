"""What the Try-it and Fixtures pages feed the library, and how they judge it.

Input: the user's tools JSON. Output: tools lists (or RequestError); and, re-exported from
``explorer.fixtures``, fixture verdicts by canitoolcall's own checks.
"""

from __future__ import annotations

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
# The verdict is library code (the doctor judges fixtures too); the pages reach it here.
from explorer.fixtures import FixtureVerdict, count_scope, fixture_verdict, match_family  # noqa: E402
from explorer.fixtures import judge as judge_fixture  # noqa: E402

__all__ = ["FixtureVerdict", "count_scope", "fixture_verdict", "judge_fixture", "match_family", "parse_tools_json"]
