"""Generator inputs: the autoparser analysis and the request.

Input: the analysis (``explorer.analysis.model.TemplateAnalysis``, read from the oracle's
``autoparser`` object with ``TemplateAnalysis.from_oracle_json`` when it comes as JSON) and
request settings. Output: the frozen ``GenerationParams`` (llama.cpp's ``generation_params``) that the PEG
generator and the specialised handlers read.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from explorer.errors import RequestError
from explorer.vocabulary import TOOL_CHOICES


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
class GenerationParams:
    """llama.cpp's ``autoparser::generation_params``: what a parser builder reads, the
    autoparser's generator and every specialised handler alike.

    ``source`` is the template text the route was chosen on (llama.cpp hands the
    template beside the inputs; a few handlers read it). ``generation_prompt`` is the
    apply stage's; with a continuation the parser still starts from the template's own
    (``template_generation_prompt``). ``tools`` are normalised as llama-server does.
    """

    tools: tuple[Mapping[str, Any], ...] | None = None
    tool_choice: str = "auto"
    parallel_tool_calls: bool = True
    reasoning_format: str = "deepseek"
    json_schema: Mapping[str, Any] | None = None
    generation_prompt: str = ""
    enable_thinking: bool = True
    # continue_final_message, resolved: "none", "reasoning" or "content"
    continuation: str = "none"
    template_generation_prompt: str | None = None
    source: str = ""

    def __post_init__(self) -> None:
        if self.tool_choice not in TOOL_CHOICES:
            raise RequestError(f"Invalid tool_choice: {self.tool_choice!r} (expected one of {TOOL_CHOICES})")
        if self.continuation not in ("none", "reasoning", "content"):
            raise RequestError(f"continuation must be none, reasoning or content, found {self.continuation!r}")
        tools = normalize_tools(self.tools)
        object.__setattr__(self, "tools", tuple(tools) if tools else None)

    @property
    def parser_generation_prompt(self) -> str:
        """The generation prompt the parser is built from (the template's own)."""
        if self.template_generation_prompt is not None:
            return self.template_generation_prompt
        return self.generation_prompt

    @property
    def has_tools(self) -> bool:
        return bool(self.tools)

    @property
    def wants_tools(self) -> bool:
        return self.has_tools and self.tool_choice != "none"

    @property
    def required(self) -> bool:
        return self.tool_choice == "required"

    @property
    def has_response_format(self) -> bool:
        """``json_schema.is_object() && !json_schema.empty()``."""
        return isinstance(self.json_schema, Mapping) and len(self.json_schema) > 0

    has_nonempty_schema = has_response_format

    @property
    def has_schema_object(self) -> bool:
        """``!json_schema.is_null() && json_schema.is_object()`` (an empty object counts)."""
        return isinstance(self.json_schema, Mapping)

    @property
    def extract_reasoning(self) -> bool:
        return self.reasoning_format != "none"

    @property
    def schema(self) -> dict[str, Any]:
        return dict(self.json_schema or {})
