"""Comparing a parsed reply with the assistant message that was rendered.

Input: the input message (OpenAI shape, arguments as objects or JSON strings) and the
parse (the oracle's ``result`` shape, or None when the parse threw). Output:
``Comparison``: ``equal``, ``equal_trimmed`` and the ``diff`` entries exactly as the
oracle names them (``content``, ``reasoning_content``, ``tool_calls.count(N->M)``,
``tool_calls[i].name``, ``tool_calls[i].arguments``, ``no_result``). Ids are ignored.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from explorer.analysis.diff import WHITESPACE


@dataclass(frozen=True)
class Comparison:
    equal: bool | None
    equal_trimmed: bool | None
    diff: tuple[str, ...] | None
    diff_trimmed: tuple[str, ...] | None = None  # what differs once surrounding whitespace is trimmed


def expected_calls(message: dict[str, Any]) -> list[tuple[str, Any]]:
    calls = []
    for call in message.get("tool_calls") or []:
        fn = call.get("function", call)
        args = fn.get("arguments")
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except ValueError:
                pass
        calls.append((fn.get("name", ""), args))
    return calls


def arguments_equal(parsed: str, wanted: Any) -> bool:
    try:
        value = json.loads(parsed)
    except ValueError:
        return False
    return _same_json(value, wanted)


def _same_json(a: Any, b: Any) -> bool:
    """JSON equality: 1 and 1.0 are equal numbers, but true is not 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same_json(x, y) for x, y in zip(a, b))
    numbers = (int, float)
    if isinstance(a, numbers) and isinstance(b, numbers):
        return a == b
    return type(a) is type(b) and a == b


def _diff(message: dict[str, Any], result: dict[str, Any], trim: bool) -> list[str]:
    out = []
    for key in ("content", "reasoning_content"):
        want, got = message.get(key) or "", result.get(key) or ""
        if not isinstance(want, str):
            want = "".join(p.get("text", "") for p in want if isinstance(p, dict))
        if trim:
            want, got = want.strip(WHITESPACE), got.strip(WHITESPACE)
        if want != got:
            out.append(key)
    wanted, got_calls = expected_calls(message), result.get("tool_calls") or []
    if len(wanted) != len(got_calls):
        out.append(f"tool_calls.count({len(wanted)}->{len(got_calls)})")
        return out
    for i, ((name, args), call) in enumerate(zip(wanted, got_calls)):
        if call.get("name") != name:
            out.append(f"tool_calls[{i}].name")
        if not arguments_equal(call.get("arguments", ""), args):
            out.append(f"tool_calls[{i}].arguments")
    return out


def compare(message: dict[str, Any], result: dict[str, Any] | None) -> Comparison:
    if result is None:
        return Comparison(False, False, ("no_result",), ("no_result",))
    diff, trimmed = _diff(message, result, trim=False), _diff(message, result, trim=True)
    return Comparison(not diff, not trimmed, tuple(diff), tuple(trimmed))
