"""Ministral 3 / Magistral Large 3: ``[THINK]`` reasoning and ``[TOOL_CALLS]name[ARGS]{json}``.

Input: the template source (routing), the messages (prompt) and ``GenerationParams``
(parser). Output: the ``Ministral3`` handler class (llama.cpp's
``common/parsers/ministral3.cpp``): its routing rule, the rewrite of system and
assistant messages into typed content blocks, its continuation turn and its parser.
"""

from __future__ import annotations

import copy

from explorer.generator.chat_builder import ChatPeg, function_tools
from explorer.generator.spec import GenerationParams
from explorer.grammar.gbnf import tool_parameters
from explorer.handlers.base import Handler, include_tools_or_format, lazy_tools_auto, word
from explorer.handlers.prompting import JsonSchema, Messages, TaggedTurn
from explorer.jsontypes import Json


def content_blocks(messages: Messages, source: str, json_schema: JsonSchema) -> Messages:
    """System and assistant messages get typed content: a ``thinking`` block from
    reasoning_content, then the text (or the given blocks)."""
    out = []
    for msg in messages:
        if msg.get("role") not in ("system", "assistant"):
            out.append(copy.deepcopy(msg))
            continue
        blocks: list[Json] = []
        if isinstance(msg.get("reasoning_content"), str):
            blocks.append({"type": "thinking", "thinking": msg["reasoning_content"]})
        if "content" in msg:
            if isinstance(msg["content"], str):
                blocks.append({"type": "text", "text": msg["content"]})
            elif isinstance(msg["content"], list):
                blocks.extend(copy.deepcopy(msg["content"]))
        adjusted = copy.deepcopy(msg)
        adjusted["content"] = blocks
        adjusted.pop("reasoning_content", None)
        out.append(adjusted)
    return out


def build(p: ChatPeg, i: GenerationParams) -> int:
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


class Ministral3(Handler):
    name = "ministral-3"
    required = ("[SYSTEM_PROMPT]", "[TOOL_CALLS]", "[ARGS]")
    forbidden = ("[CALL_ID]",)
    note = "Mistral Small 3.2 has [CALL_ID], Ministral/Magistral Large 3 do not"

    messages_override = staticmethod(content_blocks)
    continuation = TaggedTurn("", "[THINK]", "[/THINK]")

    build = staticmethod(build)
    include = staticmethod(include_tools_or_format)
    lazy = staticmethod(lazy_tools_auto)
    triggers = (word("[TOOL_CALLS]"),)
    preserved_tokens = ("[THINK]", "[/THINK]", "[TOOL_CALLS]", "[ARGS]")
    thinking_start_tag = "[THINK]"
    thinking_end_tags = ("[/THINK]",)
    response_format = "nonempty"
    reference = "common/parsers/ministral3.cpp"
