"""Ministral 3 / Magistral Large 3: ``[THINK]`` reasoning and ``[TOOL_CALLS]name[ARGS]{json}``.

Input: ``GenerationParams``. Output: the ``Handler`` declaration (llama.cpp's
``common/parsers/ministral3.cpp``). The message rewrite into typed content blocks is the
apply stage's (``explorer.apply.handlers``).
"""

from __future__ import annotations

from explorer.grammar.gbnf import tool_parameters
from explorer.handlers.base import Handler, GenerationParams, include_tools_or_format, lazy_tools_auto, word
from explorer.handlers.peg import HandlerPeg, function_tools


def build(p: HandlerPeg, i: GenerationParams) -> int:
    generation_prompt = p.eps()
    if i.extract_reasoning:
        reasoning = p.optional(p.cat("[THINK]", lambda: p.reasoning(p.until("[/THINK]")), "[/THINK]"))
    else:
        reasoning = p.eps()
    if i.has_nonempty_schema:
        # Ministral wraps JSON answers in code fences
        return p.cat(generation_prompt, lambda: p.shl(
            reasoning, "```json", lambda: p.content(p.schema(p.json(), "response-format", i.schema)), "```"))
    if i.wants_tools:
        tool_choice = p.choice()
        for tool in function_tools(i.tools):
            fn = tool["function"]
            name = fn["name"]
            body = p.cat(lambda: p.tool_open(p.cat(lambda: p.tool_name(p.literal(name)), "[ARGS]")),
                         lambda: p.tool_args(p.schema(p.json(), f"tool-{name}-schema", tool_parameters(fn))))
            tool_choice = p.choice([tool_choice, p.rule(f"tool-{name}", body)])
        tool_calls = p.trigger_rule("tool-call", p.repeat(p.cat("[TOOL_CALLS]", tool_choice),
                                                          1 if i.required else 0, -1 if i.parallel_tool_calls else 1))
        return p.cat(generation_prompt, lambda: p.shl(
            reasoning, lambda: p.content(p.until("[TOOL_CALLS]")), tool_calls))
    return p.cat(generation_prompt, lambda: p.shl(reasoning, lambda: p.content(p.rest())))


HANDLER = Handler(
    name="ministral-3",
    build=build,
    include=include_tools_or_format,
    lazy=lazy_tools_auto,
    triggers=(word("[TOOL_CALLS]"),),
    preserved_tokens=("[THINK]", "[/THINK]", "[TOOL_CALLS]", "[ARGS]"),
    thinking_start_tag="[THINK]",
    thinking_end_tags=("[/THINK]",),
    response_format="nonempty",
    reference="common/parsers/ministral3.cpp",
)
