"""The analysis result: frozen dataclasses named and spelled as llama.cpp's autoparser.

Input: the values the analyzers settled on (a ``Draft``). Output: ``TemplateAnalysis``
with ``to_oracle_json()`` giving the oracle's ``autoparser`` object, key for key, and
``provenance`` saying which probe (or workaround) set each field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from enum import Enum
from typing import Any

from explorer.analysis.probes import FieldValue, Probe
from explorer.caps import CAPS_FIELDS, Caps  # noqa: F401 (CAPS_FIELDS re-exported)
from explorer.errors import AnalysisError, OverrideError
from explorer.jsontypes import JsonObject


class ReasoningMode(str, Enum):
    NONE = "NONE"
    TAG_BASED = "TAG_BASED"
    TOOLS_ONLY = "TOOLS_ONLY"


class ContentMode(str, Enum):
    PLAIN = "PLAIN"
    ALWAYS_WRAPPED = "ALWAYS_WRAPPED"
    WRAPPED_WITH_REASONING = "WRAPPED_WITH_REASONING"


class ToolFormat(str, Enum):
    NONE = "NONE"
    JSON_NATIVE = "JSON_NATIVE"
    TAG_WITH_JSON = "TAG_WITH_JSON"
    TAG_WITH_TAGGED = "TAG_WITH_TAGGED"


class CallIdPosition(str, Enum):
    NONE = "NONE"
    PRE_FUNC_NAME = "PRE_FUNC_NAME"
    BETWEEN_FUNC_AND_ARGS = "BETWEEN_FUNC_AND_ARGS"
    POST_ARGS = "POST_ARGS"


@dataclass(frozen=True)
class Provenance:
    """Where a field's value came from.

    kind: "default" (never set), "probe" (extracted from a probe's output or diff),
    "derived" (computed from other fields, e.g. preserved_tokens), or "workaround".
    """

    kind: str
    probe: str | None = None
    side: str | None = None  # which part of the probe: "A", "B", "diff.left", ...
    workaround: str | None = None
    note: str = ""

    def to_json(self) -> JsonObject:
        out: JsonObject = {"kind": self.kind}
        for key in ("probe", "side", "workaround"):
            if getattr(self, key):
                out[key] = getattr(self, key)
        if self.note:
            out["note"] = self.note
        return out


DEFAULT = Provenance("default")


@dataclass(frozen=True)
class Reasoning:
    mode: ReasoningMode = ReasoningMode.NONE
    start: str = ""
    end: str = ""


@dataclass(frozen=True)
class Content:
    mode: ContentMode = ContentMode.PLAIN
    start: str = ""
    end: str = ""
    requires_nonnull_content: bool = False

    @property
    def is_always_wrapped(self) -> bool:
        return self.mode == ContentMode.ALWAYS_WRAPPED and bool(self.start) and bool(self.end)


@dataclass(frozen=True)
class ToolFormatAnalysis:
    mode: ToolFormat = ToolFormat.NONE
    section_start: str = ""
    section_end: str = ""
    per_call_start: str = ""
    per_call_end: str = ""
    fun_name_is_key: bool = False
    tools_array_wrapped: bool = False
    openai_wrapper_trigger: bool = False
    function_field: str = "function"
    name_field: str = "name"
    args_field: str = "arguments"
    id_field: str = ""
    gen_id_field: str = ""
    parameter_order: tuple[str, ...] = ()


@dataclass(frozen=True)
class ToolFunction:
    name_prefix: str = ""
    name_suffix: str = ""
    args_separator: str = ""
    close: str = ""


@dataclass(frozen=True)
class ToolArguments:
    start: str = ""
    end: str = ""
    name_prefix: str = ""
    name_suffix: str = ""
    value_prefix: str = ""
    value_suffix: str = ""
    separator: str = ""
    tolerate_intertag_whitespace: bool = False


@dataclass(frozen=True)
class ToolCallId:
    pos: CallIdPosition = CallIdPosition.NONE
    prefix: str = ""
    suffix: str = ""


@dataclass(frozen=True)
class Tools:
    format: ToolFormatAnalysis = ToolFormatAnalysis()
    function: ToolFunction = ToolFunction()
    arguments: ToolArguments = ToolArguments()
    call_id: ToolCallId = ToolCallId()


@dataclass(frozen=True)
class ProbeFailureSummary:
    """A place where the reference gave up silently, made visible."""

    probe: str
    message: str

    def to_json(self) -> dict[str, str]:
        return {"probe": self.probe, "message": self.message}


@dataclass(frozen=True)
class TemplateAnalysis:
    jinja_caps: Caps
    reasoning: Reasoning = Reasoning()
    content: Content = Content()
    tools: Tools = Tools()
    user_start: str = ""
    assistant_start: str = ""
    preserved_tokens: tuple[str, ...] = ()
    additional_stops: tuple[str, ...] = ()
    analysis_complete: bool = False
    probes: tuple[Probe, ...] = ()
    provenance: Mapping[str, Provenance] = field(default_factory=dict)  # read-only view
    workarounds_applied: tuple[str, ...] = ()
    failures: tuple[ProbeFailureSummary, ...] = ()
    cut_short: bool = False  # the render budget stopped some probe (a quieter run may differ)

    @classmethod
    def from_oracle_json(cls, data: Mapping[str, Any] | Any) -> TemplateAnalysis:
        """The oracle's ``autoparser`` object read back (no trace or provenance); an
        analysis (anything with ``to_oracle_json``) is taken as it is.

        Keys missing inside a section take their defaults; a missing ``jinja_caps`` or
        ``analysis_complete`` counts as llama.cpp's default caps and a complete analysis
        (hand-written analyses for the generator leave them out).
        """
        if isinstance(data, TemplateAnalysis):
            return data
        if hasattr(data, "to_oracle_json"):
            data = data.to_oracle_json()
        try:
            tools = data["tools"]
            return cls(
                jinja_caps=Caps.coerce(data.get("jinja_caps") or {}),
                reasoning=_read(Reasoning, data["reasoning"]),
                content=_read(Content, data["content"]),
                tools=Tools(
                    format=_read(ToolFormatAnalysis, tools["format"]),
                    function=_read(ToolFunction, tools["function"]),
                    arguments=_read(ToolArguments, tools["arguments"]),
                    call_id=_read(ToolCallId, tools["call_id"]),
                ),
                user_start=data.get("user_start", ""),
                assistant_start=data.get("assistant_start", ""),
                preserved_tokens=tuple(data.get("preserved_tokens") or ()),
                additional_stops=tuple(data.get("additional_stops") or ()),
                analysis_complete=bool(data.get("analysis_complete", True)),
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise AnalysisError(f"analysis JSON lacks a field the generator needs: {exc}") from exc
        except ValueError as exc:
            raise AnalysisError(f"analysis JSON has a value the analysis does not know: {exc}") from exc

    def to_oracle_json(self) -> JsonObject:
        """The oracle's ``autoparser`` object: same keys, order and enum spellings."""
        return {
            "jinja_caps": self.jinja_caps.to_json(),
            "reasoning": _plain(self.reasoning),
            "content": _plain(self.content),
            "tools": {
                "format": _plain(self.tools.format),
                "function": _plain(self.tools.function),
                "arguments": _plain(self.tools.arguments),
                "call_id": _plain(self.tools.call_id),
            },
            "user_start": self.user_start,
            "assistant_start": self.assistant_start,
            "preserved_tokens": list(self.preserved_tokens),
            "additional_stops": list(self.additional_stops),
            "analysis_complete": self.analysis_complete,
        }

    def probe(self, name: str) -> Probe | None:
        """The trace of one probe by its reference name ("R1", "T3", "user-start"...)."""
        return next((p for p in self.probes if p.name == name), None)

    def probes_setting(self, field_name: str) -> tuple[str, ...]:
        """Every probe that wrote ``field_name`` (dotted), in order; the last one won."""
        return tuple(p.name for p in self.probes if any(k == field_name for k, _ in p.fields_set))

    def provenance_json(self) -> JsonObject:
        return {name: p.to_json() for name, p in self.provenance.items()}


def _plain(obj: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in fields(obj):
        value = getattr(obj, f.name)
        if isinstance(value, Enum):
            value = value.value
        elif isinstance(value, tuple):
            value = list(value)
        out[f.name] = value
    return out


def _read(cls: type, values: Mapping[str, Any]) -> Any:
    """One section of the oracle JSON as ``cls``: enum spellings to enums, lists to tuples."""
    defaults = cls()
    known: dict[str, Any] = {}
    for f in fields(cls):
        if f.name not in values:
            continue
        value, default = values[f.name], getattr(defaults, f.name)
        if isinstance(default, Enum):
            value = type(default)(value)
        elif isinstance(default, tuple):
            value = tuple(value or ())
        known[f.name] = value
    return cls(**known)


# Dotted field names of every analysis field, in the oracle's order.
FIELD_NAMES: tuple[str, ...] = (
    tuple(f"reasoning.{f.name}" for f in fields(Reasoning))
    + tuple(f"content.{f.name}" for f in fields(Content))
    + tuple(f"tools.format.{f.name}" for f in fields(ToolFormatAnalysis))
    + tuple(f"tools.function.{f.name}" for f in fields(ToolFunction))
    + tuple(f"tools.arguments.{f.name}" for f in fields(ToolArguments))
    + tuple(f"tools.call_id.{f.name}" for f in fields(ToolCallId))
    + ("user_start", "assistant_start", "preserved_tokens", "additional_stops")
)


def field_value(analysis: TemplateAnalysis, name: str) -> FieldValue:
    """The value of one dotted field (``tools.format.per_call_start``), as the model holds it
    (modes as their enums, lists as tuples)."""
    if name not in FIELD_NAMES:
        raise OverrideError(f"unknown analysis field {name!r}; fields: {', '.join(FIELD_NAMES)}", field=name)
    node: Any = analysis  # the field is named at run time: FIELD_NAMES are the model's fields
    for part in name.split("."):
        node = getattr(node, part)
    value: FieldValue = node
    return value
