"""The analysis while it is being built: field values plus where each came from.

Input: ``set`` calls from the analyzers and workarounds. Output: the frozen
``TemplateAnalysis`` (``freeze``). Field names are dotted paths in the oracle's
layout (``reasoning.start``, ``tools.format.section_end``, ``user_start``...).
"""

from __future__ import annotations

from dataclasses import fields
from types import MappingProxyType
from typing import Any

from explorer.analysis.model import (
    DEFAULT,
    FIELD_NAMES,
    CallIdPosition,
    Content,
    ContentMode,
    ProbeFailureSummary,
    Provenance,
    Reasoning,
    ReasoningMode,
    TemplateAnalysis,
    ToolArguments,
    ToolCallId,
    ToolFormat,
    ToolFormatAnalysis,
    ToolFunction,
    Tools,
)
from explorer.analysis.session import ProbeSession, from_bytes
from explorer.caps import Caps

_GROUPS: dict[str, type] = {
    "reasoning": Reasoning,
    "content": Content,
    "tools.format": ToolFormatAnalysis,
    "tools.function": ToolFunction,
    "tools.arguments": ToolArguments,
    "tools.call_id": ToolCallId,
}

_DEFAULTS: dict[str, Any] = {
    f"{prefix}.{f.name}": getattr(cls(), f.name) for prefix, cls in _GROUPS.items() for f in fields(cls)
}
_DEFAULTS.update(user_start="", assistant_start="", preserved_tokens=(), additional_stops=())


class Draft:
    """Mutable field values with provenance; strings are byte strings until ``decode``."""

    def __init__(self, session: ProbeSession) -> None:
        self.session = session
        self.values: dict[str, Any] = dict(_DEFAULTS)
        self.provenance: dict[str, Provenance] = {}
        self.workarounds: list[str] = []
        self.decoded = False

    def __getitem__(self, name: str) -> Any:
        return self.values[name]

    def set(self, name: str, value: Any, probe: str | None = None, side: str | None = None,
            note: str = "") -> None:
        """A value extracted from a probe (``probe`` and the part of it, ``side``)."""
        if name not in self.values:
            raise KeyError(name)
        self.values[name] = value
        self.provenance[name] = Provenance("probe" if probe else "derived", probe, side, note=note)
        if probe:
            self.session.record(probe, name, value)

    def set_by_workaround(self, name: str, value: Any, workaround: str) -> None:
        self.values[name] = value
        self.provenance[name] = Provenance("workaround", workaround=workaround)

    def decode(self) -> None:
        """Turn byte strings back into text (before workarounds, which work on text)."""
        if self.decoded:
            return
        for name, value in self.values.items():
            if isinstance(value, str) and not isinstance(value, (ReasoningMode, ContentMode, ToolFormat,
                                                                  CallIdPosition)):
                self.values[name] = from_bytes(value)
            elif isinstance(value, tuple):
                self.values[name] = tuple(from_bytes(v) for v in value)
        self.decoded = True

    def freeze(self, caps: Caps, complete: bool) -> TemplateAnalysis:
        groups = {
            prefix: cls(**{f.name: self.values[f"{prefix}.{f.name}"] for f in fields(cls)})
            for prefix, cls in _GROUPS.items()
        }
        probes = self.session.probes()
        failures = tuple(
            ProbeFailureSummary(p.name, f"side {p.error.side}: {p.error.kind}: {p.error.message}"
                                + (f" (line {p.error.line})" if p.error.line else ""))
            for p in probes if p.error is not None
        )
        return TemplateAnalysis(
            jinja_caps=caps,
            reasoning=groups["reasoning"],
            content=groups["content"],
            tools=Tools(
                format=groups["tools.format"],
                function=groups["tools.function"],
                arguments=groups["tools.arguments"],
                call_id=groups["tools.call_id"],
            ),
            user_start=self.values["user_start"],
            assistant_start=self.values["assistant_start"],
            preserved_tokens=tuple(self.values["preserved_tokens"]),
            additional_stops=tuple(self.values["additional_stops"]),
            analysis_complete=complete,
            probes=probes,
            provenance=MappingProxyType({name: self.provenance.get(name, DEFAULT) for name in FIELD_NAMES}),
            workarounds_applied=tuple(self.workarounds),
            failures=failures,
            cut_short=self.session.cut_short,
        )

