"""Generator inputs: the autoparser analysis (oracle JSON schema) and the request.

Input: the analysis as the oracle's ``autoparser`` object (what
``TemplateAnalysis.to_oracle_json()`` also returns) and request settings. Output: frozen
dataclasses the PEG generator reads. Only the fields the generator needs are kept.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import json
from dataclasses import dataclass, field
from typing import Any

from explorer.errors import AnalysisError, RequestError

TOOL_CHOICES = ("auto", "required", "none")
REASONING_FORMATS = ("none", "auto", "deepseek", "deepseek-legacy")

_WS = " \t\n\v\f\r"


def trim_whitespace(text: str) -> str:
    """llama.cpp's trim_whitespace: ASCII whitespace only (C locale ``isspace``)."""
    return text.strip(_WS)


@dataclass(frozen=True)
class Reasoning:
    mode: str = "NONE"
    start: str = ""
    end: str = ""


@dataclass(frozen=True)
class Content:
    mode: str = "PLAIN"
    start: str = ""
    end: str = ""

    @property
    def is_always_wrapped(self) -> bool:
        return self.mode == "ALWAYS_WRAPPED" and bool(self.start) and bool(self.end)


@dataclass(frozen=True)
class ToolFormat:
    mode: str = "NONE"
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
class CallId:
    pos: str = "NONE"
    prefix: str = ""
    suffix: str = ""


@dataclass(frozen=True)
class ParserSpec:
    """The part of the autoparser analysis that decides the generated parser."""

    reasoning: Reasoning = Reasoning()
    content: Content = Content()
    format: ToolFormat = ToolFormat()
    function: ToolFunction = ToolFunction()
    arguments: ToolArguments = ToolArguments()
    call_id: CallId = CallId()
    supports_tool_calls: bool = True
    preserved_tokens: tuple[str, ...] = ()
    additional_stops: tuple[str, ...] = ()
    analysis_complete: bool = True

    @classmethod
    def from_oracle_json(cls, data: Mapping[str, Any] | Any) -> ParserSpec:
        """Build from the oracle's ``autoparser`` object (or anything with ``to_oracle_json``)."""
        if hasattr(data, "to_oracle_json"):
            data = data.to_oracle_json()
        try:
            tools = data["tools"]
            fmt = dict(tools["format"])
            fmt["parameter_order"] = tuple(fmt.get("parameter_order") or ())
            return cls(
                reasoning=_pick(Reasoning, data["reasoning"]),
                content=_pick(Content, data["content"]),
                format=_pick(ToolFormat, fmt),
                function=_pick(ToolFunction, tools["function"]),
                arguments=_pick(ToolArguments, tools["arguments"]),
                call_id=_pick(CallId, tools["call_id"]),
                supports_tool_calls=bool(data.get("jinja_caps", {}).get("supports_tool_calls", True)),
                preserved_tokens=tuple(data.get("preserved_tokens") or ()),
                additional_stops=tuple(data.get("additional_stops") or ()),
                analysis_complete=bool(data.get("analysis_complete", True)),
            )
        except (KeyError, TypeError) as exc:
            raise AnalysisError(f"analysis JSON lacks a field the generator needs: {exc}") from exc


def _pick(cls: type, values: Mapping[str, Any]) -> Any:
    names = cls.__dataclass_fields__.keys()
    return cls(**{k: v for k, v in values.items() if k in names})


def _brief(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 200 else text[:200] + "..."


def normalize_tools(tools: Any) -> list[dict[str, Any]] | None:
    """llama-server's tool round trip (common_chat_tools_parse_oaicompat, then back to
    JSON): each tool becomes ``{type, function: {name, description, parameters}}``;
    anything else is refused with llama.cpp's reason."""
    if tools is None:
        return None
    if not isinstance(tools, (list, tuple)):
        raise RequestError(f"Failed to parse tools: Expected 'tools' to be an array, got {_brief(tools)}")
    out: list[dict[str, Any]] = []
    for tool in tools:
        if not isinstance(tool, Mapping) or "type" not in tool:
            raise RequestError(f"Failed to parse tools: Missing tool type: {_brief(tool)}")
        if tool["type"] != "function":
            raise RequestError(f"Failed to parse tools: Unsupported tool type: {_brief(tool)}")
        function = tool.get("function")
        if function is None:
            raise RequestError(f"Failed to parse tools: Missing tool function: {_brief(tool)}")
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
            raise RequestError(f"Failed to parse tools: a tool function needs a string 'name': {_brief(tool)}")
        description = function.get("description", "")
        parameters = function.get("parameters", {})
        out.append({"type": "function", "function": {"name": function["name"], "description": description,
                                                     "parameters": parameters}})
    return out or None


@dataclass(frozen=True)
class GenerationRequest:
    """The request settings the autoparser generator reads (llama.cpp's generation_params)."""

    tools: Sequence[Mapping[str, Any]] | None = None
    tool_choice: str = "auto"
    parallel_tool_calls: bool = True
    reasoning_format: str = "deepseek"
    json_schema: Mapping[str, Any] | None = None
    generation_prompt: str = ""
    enable_thinking: bool = True
    # continue_final_message, resolved: "none", "reasoning" or "content". With a
    # continuation the apply stage's generation prompt is the continued one, while the
    # parser still starts from the template's own (``template_generation_prompt``).
    continuation: str = "none"
    template_generation_prompt: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.tool_choice not in TOOL_CHOICES:
            raise RequestError(f"Invalid tool_choice: {self.tool_choice!r} (expected one of {TOOL_CHOICES})")
        if self.continuation not in ("none", "reasoning", "content"):
            raise RequestError(f"continuation must be none, reasoning or content, found {self.continuation!r}")
        object.__setattr__(self, "tools", normalize_tools(self.tools))

    @property
    def parser_generation_prompt(self) -> str:
        """The generation prompt the parser is built from (the template's own)."""
        if self.template_generation_prompt is not None:
            return self.template_generation_prompt
        return self.generation_prompt

    @property
    def has_tools(self) -> bool:
        return isinstance(self.tools, (list, tuple)) and len(self.tools) > 0

    @property
    def has_response_format(self) -> bool:
        return isinstance(self.json_schema, Mapping) and len(self.json_schema) > 0
