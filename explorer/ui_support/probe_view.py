"""A probe in words for the Probes page: which output is which, and its fields as steps.

Input: a ``Probe`` (``explorer.analysis.probes``: its inputs A and B and the fields it set,
in order) and the final ``TemplateAnalysis``. Output: ``probe_sides`` (what A and B
render, in words, and what differs between them), ``probe_title`` (the probe's question
with A and B named: "R2 · What does enable_thinking=true add…? — A: enable_thinking=false,
B: enable_thinking=true") and ``field_steps`` (every assignment the probe made, numbered in
the order the analyzer made them; a field set twice says which step it replaces, and
whether the analysis kept the value).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from explorer.analysis import TemplateAnalysis
from explorer.analysis.model import field_value
from explorer.analysis.probes import Probe, ProbeInputs
from explorer.errors import ExplorerError
from explorer.ui_support.text import marker_text


def _call(call: Mapping[str, Any]) -> str:
    fn = call.get("function", call)
    args = fn.get("arguments", {})
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            args = {"": args}
    shown = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in args.items()) \
        if isinstance(args, Mapping) else str(args)
    ident = f" id {call['id']}" if call.get("id") else ""
    return f"{fn.get('name', '?')}({shown}){ident}"


def describe_message(message: Mapping[str, Any]) -> str:
    """One message in words: its role and what it carries."""
    parts = []
    if message.get("content"):
        parts.append("content")
    if message.get("reasoning_content"):
        parts.append("reasoning_content")
    calls = message.get("tool_calls") or []
    if calls:
        parts.append(f"{len(calls)} tool call{'s' if len(calls) != 1 else ''}: " + ", ".join(_call(c) for c in calls))
    role = str(message.get("role", "?"))
    return f"{role} ({' + '.join(parts)})" if parts else f"{role} (empty)"


def _messages(inputs: ProbeInputs, start: int) -> str:
    msgs = list(inputs.messages)
    if not msgs:
        return "no messages"
    shared = [str(m.get("role", "?")) for m in msgs[:start]]  # the same in A and B: roles only
    shown = [describe_message(m) for m in msgs[start:]] or ["(nothing more)"]
    return " → ".join(shared + shown)


@dataclass(frozen=True)
class ProbeSides:
    """What outputs A and B are renderings of, and which input differs."""

    a: str
    b: str
    varies: str  # "messages", "enable_thinking", "add_generation_prompt", "tools" (joined by ", ")


def probe_sides(probe: Probe) -> ProbeSides:
    a, b = probe.inputs_a, probe.inputs_b
    flags: list[tuple[str, str, str]] = []
    if a.enable_thinking != b.enable_thinking:
        flags.append(("enable_thinking", f"enable_thinking={str(a.enable_thinking).lower()}",
                      f"enable_thinking={str(b.enable_thinking).lower()}"))
    if a.add_generation_prompt != b.add_generation_prompt:
        flags.append(("add_generation_prompt", f"add_generation_prompt={str(a.add_generation_prompt).lower()}",
                      f"add_generation_prompt={str(b.add_generation_prompt).lower()}"))
    if a.tools != b.tools:
        flags.append(("tools", "tools" if a.tools else "no tools", "tools" if b.tools else "no tools"))
    varies = [name for name, _, _ in flags]
    side_a = [x for _, x, _ in flags]
    side_b = [y for _, _, y in flags]
    if a.messages != b.messages:
        shared = 0
        while shared < min(len(a.messages), len(b.messages)) and a.messages[shared] == b.messages[shared]:
            shared += 1
        varies.insert(0, "messages")
        side_a.insert(0, _messages(a, shared))
        side_b.insert(0, _messages(b, shared))
    if not varies:
        same = _messages(a, 0)
        return ProbeSides(same, same, "nothing")
    return ProbeSides("; ".join(side_a), "; ".join(side_b), ", ".join(varies))


def probe_title(probe: Probe) -> str:
    """The probe's question with its outputs named: A is rendered from ..., B from ..."""
    sides = probe_sides(probe)
    return f"{probe.name} · {probe.purpose} — A: {sides.a} | B: {sides.b}"


# --- the fields a probe set, as steps ------------------------------------------------------


def _value_text(value: object) -> str:
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, str):
        return marker_text(value)
    if isinstance(value, (tuple, list)):
        return ", ".join(_value_text(v) for v in value) or "∅"
    return str(value).lower() if isinstance(value, bool) else str(value)


def field_steps(probe: Probe, analysis: TemplateAnalysis | None) -> list[dict[str, str]]:
    """The probe's assignments as numbered steps; a field set again says which step it
    replaces, and the last assignment of each field says whether the analysis kept it."""
    rows: list[dict[str, str]] = []
    seen: dict[str, int] = {}
    last = {name: i for i, (name, _) in enumerate(probe.fields_set)}
    for i, (name, value) in enumerate(probe.fields_set):
        notes = []
        if name in seen:
            notes.append(f"set again: replaces step {seen[name]}")
        seen[name] = i + 1
        if last[name] == i and analysis is not None:
            try:
                kept = field_value(analysis, name) == value
            except ExplorerError:
                kept = None
            if kept is not None:
                notes.append("the analysis keeps this value" if kept
                             else "a later step (another probe or a workaround) changes it")
        rows.append({"step": str(i + 1), "field": name, "value": _value_text(value), "note": "; ".join(notes)})
    return rows


def repeated_fields(probe: Probe) -> Sequence[str]:
    """Fields the probe set more than once (its table then reads as steps)."""
    names = [name for name, _ in probe.fields_set]
    return tuple(dict.fromkeys(n for n in names if names.count(n) > 1))


__all__ = ["ProbeSides", "describe_message", "field_steps", "probe_sides", "probe_title", "repeated_fields"]
