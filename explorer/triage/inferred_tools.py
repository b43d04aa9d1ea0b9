"""The tools a request did not give, inferred from the calls written in the output.

Input: the model output and, optionally, how the template writes a call (its own reply
with one call to ``PROBE_TOOL``, whose one argument is ``PROBE_ARG``). Output:
``InferredTools``: OpenAI tool objects, one per function name the output calls (with the
argument keys it writes, typed as written: JSON values by their type, tagged values as
strings), and ``note``, the sentence that says so. Looked for: the name and argument key
where the template's own call puts them (the text just before and after each), call-like
JSON objects (a name and an arguments/parameters object), and Python-style calls
(``name(key=...)``). A misspelt opener or closer does not hide a call: the name's own
markup still stands beside it. Pure.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from explorer.jsonscan import json_objects

PROBE_TOOL = "probe_tool_name"
PROBE_ARG = "city"  # the argument the template's own call is rendered with (session._sample)
PROBE_TOOL_JSON: dict[str, Any] = {"type": "function", "function": {
    "name": PROBE_TOOL, "parameters": {"type": "object", "properties": {PROBE_ARG: {"type": "string"}},
                                       "required": [PROBE_ARG]}}}
MAX_TOOLS = 16
_IDENT = re.compile(r"[A-Za-z_][\w.\-]*")
_PYTHONIC = re.compile(r"\b([A-Za-z_]\w*)\(\s*([A-Za-z_]\w*)\s*=")
_AFFIX_CHARS = 12


@dataclass(frozen=True)
class InferredTools:
    tools: tuple[dict[str, Any], ...]
    note: str

    @property
    def short(self) -> str:
        return ", ".join(f"{t['function']['name']}({', '.join(t['function']['parameters']['properties'])})"
                         for t in self.tools)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(str(t["function"]["name"]) for t in self.tools)


def _affixes(shape: str, word: str) -> tuple[str, str] | None:
    """The text just before ``word`` in the template's call (back to the line start, at most
    ``_AFFIX_CHARS``) and the first character after it."""
    at = shape.find(word)
    if at < 0:
        return None
    line_start = shape.rfind("\n", 0, at) + 1
    before = shape[max(line_start, at - _AFFIX_CHARS):at]
    after = shape[at + len(word):at + len(word) + 1]
    return (before, after) if before.strip() else None


def _named_after(output: str, affixes: tuple[str, str] | None) -> list[tuple[int, str]]:
    if affixes is None:
        return []
    before, _after = affixes
    out: list[tuple[int, str]] = []
    at = output.find(before)
    while at >= 0:
        m = _IDENT.match(output, at + len(before))
        if m is not None:
            out.append((m.start(), m.group(0).rstrip(".-")))
        at = output.find(before, at + 1)
    return out


def _json_type(value: object) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    kinds: dict[type, str] = {dict: "object", list: "array"}
    return kinds.get(type(value), "string")


def infer_tools(output: str, call_shape: str | None = None) -> InferredTools:
    """The tools the output calls (see the module docstring); none found: an empty tuple."""
    found: dict[str, dict[str, str]] = {}
    for obj in json_objects(output):
        name = obj.call_name() if obj.looks_like_call else None
        value = obj.value if isinstance(obj.value, dict) else {}
        args = next((value[k] for k in ("arguments", "parameters") if isinstance(value.get(k), dict)), None)
        if name and _IDENT.fullmatch(name):
            keys = found.setdefault(name, {})
            for k, v in (args or {}).items():
                keys.setdefault(str(k), _json_type(v))
    if call_shape:
        names = _named_after(output, _affixes(call_shape, PROBE_TOOL))
        for i, (at, name) in enumerate(names):
            end = names[i + 1][0] if i + 1 < len(names) else len(output)
            keys = found.setdefault(name, {})
            # where the template puts an argument key, with this call's own name in front
            keys_at = _named_after(output[max(0, at - 2 * _AFFIX_CHARS):end],
                                   _affixes(call_shape.replace(PROBE_TOOL, name), PROBE_ARG))
            keys_at += _named_after(output[at:end], _affixes(call_shape.replace(PROBE_TOOL, ""), PROBE_ARG))
            for _kat, key in keys_at:
                if key != name:
                    keys.setdefault(key, "string")
    for m in _PYTHONIC.finditer(output):
        if m.group(1) not in found and not found:
            found.setdefault(m.group(1), {}).setdefault(m.group(2), "string")
    tools = tuple(_tool(name, keys) for name, keys in list(found.items())[:MAX_TOOLS])
    if not tools:
        return InferredTools((), "")
    said = ", ".join(f"{t['function']['name']}({', '.join(t['function']['parameters']['properties'])})"
                     for t in tools)
    note = (f"No tools were given, so the request offers the tools the output calls: {said} (inferred from the "
            "output's own calls, names and argument keys; give --tools, or the app's Tools box, for the real ones).")
    return InferredTools(tools, note)


def _tool(name: str, keys: dict[str, str]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": {
        "type": "object", "properties": {k: {"type": t} for k, t in keys.items()}, "required": list(keys)}}}


def tools_json(tools: tuple[dict[str, Any], ...]) -> str:
    return json.dumps(list(tools), indent=2)
