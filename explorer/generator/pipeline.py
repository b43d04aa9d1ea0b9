"""Template text + request options -> llama.cpp's chat params, the whole way.

Input: the template source and request options (tools, tool_choice, parallel tool calls,
thinking, reasoning format, JSON schema). Output: ``TemplateParams``: the routed handler
and the ``GeneratedParams`` llama.cpp's ``common_chat_templates_apply`` returns for a
one-message conversation. Composes routing and source patches (``explorer.routing``), the
analysis (``explorer.analysis``), the generation prompt (``explorer.apply``) and this
package's generators; those stages are imported when called.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from explorer.errors import ExplorerError
from explorer.generator.handlers import generate_for_route
from explorer.generator.params import GeneratedParams
from explorer.generator.spec import GenerationRequest, ParserSpec

DEFAULT_MESSAGES: tuple[dict[str, str], ...] = ({"role": "user", "content": "Hello"},)


@dataclass(frozen=True)
class TemplateParams:
    handler: str  # the oracle's routed.handler spelling
    params: GeneratedParams


def _stage(module: str, what: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ExplorerError(f"the {what} stage ({module}) is not available: {exc}") from None


def generate_for_template(
    text: str,
    *,
    tools: Sequence[Mapping[str, Any]] | None = None,
    tool_choice: str = "auto",
    parallel_tool_calls: bool = True,
    enable_thinking: bool = True,
    reasoning_format: str = "deepseek",
    json_schema: Mapping[str, Any] | None = None,
    messages: Sequence[Mapping[str, Any]] = DEFAULT_MESSAGES,
    chat_template_kwargs: Mapping[str, Any] | None = None,
) -> TemplateParams:
    """Route, analyse, apply and generate as llama.cpp does for this template."""
    from explorer.render import compile_template

    analysis_mod = _stage("explorer.analysis", "analysis")
    apply_mod = _stage("explorer.apply", "apply")
    routing = _stage("explorer.routing", "routing")
    source = routing.patch_source(text)
    tmpl = compile_template(source)
    caps = analysis_mod.template_caps(tmpl)
    analysis = analysis_mod.analyze_template(tmpl, caps, trace=False)
    request = apply_mod.Request(
        messages=tuple(dict(m) for m in messages),
        tools=tuple(tools) if tools is not None else None,
        tool_choice=tool_choice,
        parallel_tool_calls=parallel_tool_calls,
        enable_thinking=enable_thinking,
        reasoning_format=reasoning_format,
        json_schema=dict(json_schema) if json_schema is not None else None,
        chat_template_kwargs=dict(chat_template_kwargs or {}),
    )
    generation_prompt = apply_mod.generation_prompt(text, request, caps=caps)
    handler = routing.route(text, caps).handler
    params = generate_for_route(handler, ParserSpec.from_oracle_json(analysis), GenerationRequest(
        tools=list(tools) if tools is not None else None, tool_choice=tool_choice,
        parallel_tool_calls=parallel_tool_calls, reasoning_format=reasoning_format,
        json_schema=json_schema, generation_prompt=generation_prompt, enable_thinking=enable_thinking), source)
    return TemplateParams(handler, params)
