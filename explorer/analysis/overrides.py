"""Analysis overrides: what a llama.cpp workaround lambda does, from the outside.

Input: a ``TemplateAnalysis`` and field settings, each ``FIELD=VALUE`` with FIELD one of
the oracle's dotted names (``tools.format.per_call_start``) and VALUE read as JSON when it
parses as JSON (``'"<tool_call>\\n"'``, ``true``, ``["a"]``) and as a raw string otherwise.
Output: the analysis with those fields set (provenance ``override``), or an
``OverrideError`` that lists the valid names or says which type the field takes; and the
C++ workaround lambda that makes llama.cpp's ``analyze_template`` do the same for
templates holding a given substring.

Setting a field to the value it has changes nothing, provenance included.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from enum import Enum
from types import MappingProxyType
from typing import Any

from explorer.analysis.model import (
    FIELD_NAMES,
    CallIdPosition,
    Content,
    ContentMode,
    Provenance,
    Reasoning,
    ReasoningMode,
    TemplateAnalysis,
    ToolArguments,
    ToolCallId,
    ToolFormat,
    ToolFormatAnalysis,
    ToolFunction,
    field_value,
)
from explorer.analysis.probes import FieldValue
from explorer.errors import OverrideError

# The dataclass behind each dotted group, and llama.cpp's C++ spelling of each enum.
_GROUPS: dict[str, type] = {
    "reasoning": Reasoning, "content": Content, "tools.format": ToolFormatAnalysis,
    "tools.function": ToolFunction, "tools.arguments": ToolArguments, "tools.call_id": ToolCallId,
}
_CPP_ENUMS: dict[type[Enum], str] = {
    ReasoningMode: "reasoning_mode", ContentMode: "content_mode", ToolFormat: "tool_format",
    CallIdPosition: "call_id_position",
}
_TOP_LEVEL: dict[str, type] = {"user_start": str, "assistant_start": str, "preserved_tokens": tuple,
                               "additional_stops": tuple}


@dataclass(frozen=True)
class FieldSetting:
    """One ``--set``: a field and the value it takes (already of the field's type)."""

    field: str
    value: FieldValue

    def to_json(self) -> dict[str, object]:
        value = self.value.value if isinstance(self.value, Enum) else self.value
        return {"field": self.field, "value": list(value) if isinstance(value, tuple) else value}

    @property
    def spec(self) -> str:
        """The ``FIELD=VALUE`` that gives this setting back."""
        value = self.to_json()["value"]
        return f"{self.field}={json.dumps(value, ensure_ascii=False)}"


def _field_type(name: str) -> type:
    if name in _TOP_LEVEL:
        return _TOP_LEVEL[name]
    group, _, leaf = name.rpartition(".")
    cls = _GROUPS[group]
    default = getattr(cls(), leaf)
    return type(default)


def _valid_names() -> str:
    return ", ".join(FIELD_NAMES)


def read_value(name: str, value: object) -> FieldValue:
    """``value`` (decoded JSON, or a raw string) as the field's type, or an OverrideError."""
    kind = _field_type(name)
    if issubclass(kind, Enum):
        allowed = [m.value for m in kind]
        if not isinstance(value, str) or value not in allowed:
            raise OverrideError(f"--set {name}: expected one of {', '.join(allowed)}, found {value!r}", field=name)
        return kind(value)
    if kind is bool:
        if not isinstance(value, bool):
            raise OverrideError(f"--set {name}: expected true or false, found {value!r}", field=name)
        return value
    if kind is tuple:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise OverrideError(f"--set {name}: expected a JSON list of strings, found {value!r}", field=name)
        return tuple(value)
    if not isinstance(value, str):
        raise OverrideError(f"--set {name}: expected a string (JSON \"...\" or raw text), found {value!r}", field=name)
    return value


def parse_setting(spec: str) -> FieldSetting:
    """``FIELD=VALUE`` (VALUE as JSON when it parses, raw text otherwise)."""
    name, sep, raw = spec.partition("=")
    name = name.strip()
    if not sep:
        raise OverrideError(f"--set: expected FIELD=VALUE, found {spec!r}; fields: {_valid_names()}", field=name)
    if name not in FIELD_NAMES:
        raise OverrideError(f"--set: unknown analysis field {name!r}; fields: {_valid_names()}", field=name)
    try:
        value: object = json.loads(raw)
    except ValueError:
        value = raw
    return FieldSetting(name, read_value(name, value))


def string_fields(analysis: TemplateAnalysis, *, items: bool = False) -> Iterator[tuple[str, str]]:
    """(dotted name, value) of every non-empty string field, in ``FIELD_NAMES`` order (modes
    too, as the oracle spells them); with ``items`` each non-empty string of a list field as
    ``name[i]``."""
    data = analysis.to_oracle_json()
    for name in FIELD_NAMES:
        value: object = data
        for part in name.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        if isinstance(value, str) and value:
            yield name, value
        elif items and isinstance(value, list):
            yield from ((f"{name}[{i}]", v) for i, v in enumerate(value) if isinstance(v, str) and v)


def _with(analysis: TemplateAnalysis, name: str, value: FieldValue) -> TemplateAnalysis:
    if name in _TOP_LEVEL:
        # the field is named at run time: its value's type was checked by read_value
        top: dict[str, Any] = {name: value}
        return replace(analysis, **top)
    group, _, leaf = name.rpartition(".")
    if group.startswith("tools."):
        section = group.split(".", 1)[1]
        tools = analysis.tools
        return replace(analysis, tools=replace(tools, **{section: replace(getattr(tools, section), **{leaf: value})}))
    return replace(analysis, **{group: replace(getattr(analysis, group), **{leaf: value})})


def apply_overrides(analysis: TemplateAnalysis, settings: Iterable[FieldSetting]) -> TemplateAnalysis:
    """The analysis with each setting applied in order, as a workaround lambda would."""
    provenance = dict(analysis.provenance)
    out = analysis
    applied: list[str] = []
    for setting in settings:
        if field_value(out, setting.field) == setting.value:
            continue
        out = _with(out, setting.field, setting.value)
        provenance[setting.field] = Provenance("override", note=f"--set {setting.spec}")
        applied.append(setting.field)
    if not applied:
        return analysis
    return replace(out, provenance=MappingProxyType(provenance))


def settings_from(specs: Iterable[str] | Mapping[str, object]) -> tuple[FieldSetting, ...]:
    """``--set`` strings, or a mapping of field names to decoded JSON values."""
    if isinstance(specs, Mapping):
        out = []
        for name, value in specs.items():
            if name not in FIELD_NAMES:
                raise OverrideError(f"unknown analysis field {name!r}; fields: {_valid_names()}", field=name)
            out.append(FieldSetting(name, read_value(name, value)))
        return tuple(out)
    return tuple(parse_setting(s) for s in specs)


# --- the C++ a llama.cpp contributor would add ---------------------------------------------


def cpp_string(text: str) -> str:
    """A C++ string literal (UTF-8 kept, escapes for quotes, backslashes and controls)."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 0x20:
            out.append(f"\\x{ord(ch):02x}\"\"")  # the empty literal stops the hex escape
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _cpp_value(value: FieldValue) -> str:
    if isinstance(value, Enum):
        return f"{_CPP_ENUMS[type(value)]}::{value.value}"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return "{" + ", ".join(cpp_string(v) for v in value) + "}"
    return cpp_string(value)


def workaround_lambda(settings: Iterable[FieldSetting], substring: str, name: str) -> str:
    """The lambda for the ``workarounds`` vector of llama.cpp's common/chat-diff-analyzer.cpp
    that sets these fields for templates whose source holds ``substring``."""
    lines = [f"      // {name}",
             "      [](const common_chat_template & tmpl, autoparser & analysis) -> void {",
             f"          if (tmpl.src.find({cpp_string(substring)}) != std::string::npos) {{"]
    for s in settings:
        lines.append(f"              analysis.{s.field} = {_cpp_value(s.value)};")
    lines += [f'              LOG_DBG(ANSI_ORANGE "[Patch: {name}]\\n" ANSI_RESET);', "          }", "      },"]
    return "\n".join(lines)


def field_names() -> tuple[str, ...]:
    return FIELD_NAMES


__all__ = [
    "FieldSetting", "apply_overrides", "cpp_string", "field_names", "parse_setting", "read_value", "settings_from",
    "workaround_lambda",
]
