"""JSON objects in model output, decoded where they start.

Input: a text and an offset (or the whole text). Output: ``JsonObject``: where a ``{``
decodes to (or where decoding failed, and why), the value, and whether it looks like a
tool call. The triage scans output with it, and so do the typical garbles that
handler classes declare (``explorer.handlers``), which is why it sits below both.
"""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass(frozen=True)
class JsonObject:
    """A ``{`` in the text and what decoding from there gave."""

    start: int
    end: int  # end of the decoded value, or where decoding failed
    value: object | None
    error: str = ""  # the decoder's message when it failed

    @property
    def ok(self) -> bool:
        return not self.error

    def call_name(self, name_keys: tuple[str, ...] = ("name",)) -> str | None:
        if isinstance(self.value, dict):
            for key in name_keys:
                if isinstance(self.value.get(key), str):
                    return self.value[key]
            fn = self.value.get("function")
            if isinstance(fn, dict) and isinstance(fn.get("name"), str):
                return fn["name"]
        return None

    @property
    def looks_like_call(self) -> bool:
        if not isinstance(self.value, dict) or self.call_name(("name", "tool_name", "function_name")) is None:
            return False
        keys = set(self.value) | set(self.value.get("function", {}) if isinstance(self.value.get("function"), dict) else ())
        return bool(keys & {"arguments", "parameters", "args", "input"})


_DECODER = json.JSONDecoder()


def json_object_at(text: str, start: int) -> JsonObject:
    try:
        value, end = _DECODER.raw_decode(text, start)
        return JsonObject(start, end, value)
    except json.JSONDecodeError as exc:
        return JsonObject(start, exc.pos, None, exc.msg)


def json_objects(text: str, limit: int = 200) -> tuple[JsonObject, ...]:
    """Top-level JSON objects: each ``{`` not inside an object already decoded."""
    out: list[JsonObject] = []
    pos = 0
    while len(out) < limit:
        start = text.find("{", pos)
        if start < 0:
            break
        obj = json_object_at(text, start)
        out.append(obj)
        pos = obj.end if obj.ok else start + 1
    return tuple(out)
