"""Cohere2 MoE ("North Code"): marker-wrapped thinking, text, and JSON actions.

Input: the template source (routing) and ``GenerationParams`` (parser). Output: the
``Cohere2Moe`` handler class (llama.cpp's ``common/parsers/cohere2moe.cpp``). Content
and tool calls exclude each other; calls are a JSON array inside
``<|START_ACTION|>...<|END_ACTION|>``.
"""

from __future__ import annotations

from explorer.generator.chat_builder import ChatPeg
from explorer.generator.json_tools import JsonToolLayout, standard_json_tools
from explorer.generator.spec import GenerationParams
from explorer.handlers.base import (
    Handler,
    delimiters,
    include_tools_or_format,
    lazy_auto_without_format,
    word,
)
from explorer.handlers.prompting import TaggedTurn

TURN_START, TURN_END = "<|START_OF_TURN_TOKEN|>", "<|END_OF_TURN_TOKEN|>"
CHATBOT, USER, SYSTEM = "<|CHATBOT_TOKEN|>", "<|USER_TOKEN|>", "<|SYSTEM_TOKEN|>"
THINK_START, THINK_END = "<|START_THINKING|>", "<|END_THINKING|>"
TEXT_START, TEXT_END = "<|START_TEXT|>", "<|END_TEXT|>"
ACTION_START, ACTION_END = "<|START_ACTION|>", "<|END_ACTION|>"
RESULT_START, RESULT_END = "<|START_TOOL_RESULT|>", "<|END_TOOL_RESULT|>"
GEN_PREFIX = TURN_START + CHATBOT


def build(p: ChatPeg, i: GenerationParams) -> int:
    generation_prompt = p.literal(GEN_PREFIX)
    end = p.end()
    p.eps()  # reasoning's initial value
    stops = [THINK_END, TEXT_START, ACTION_START]
    if i.extract_reasoning:
        reasoning = p.optional(p.cat(lambda: p.literal(THINK_START), lambda: p.reasoning(p.until_one_of(stops)),
                                     lambda: p.optional(p.literal(THINK_END))))
    else:
        reasoning = p.optional(p.content(p.cat(lambda: p.literal(THINK_START), lambda: p.until_one_of(stops),
                                               lambda: p.optional(p.literal(THINK_END)))))
    if i.has_nonempty_schema:
        text = p.cat(lambda: p.literal(TEXT_START),
                     lambda: p.content(p.schema(p.json(), "response-format-schema", i.schema)),
                     lambda: p.optional(p.literal(TEXT_END)))
    else:
        text = p.cat(lambda: p.literal(TEXT_START), lambda: p.content(p.until(TEXT_END)),
                     lambda: p.optional(p.literal(TEXT_END)))
    if not i.wants_tools:
        return p.cat(generation_prompt, reasoning, text, lambda: p.optional(p.literal(TURN_END)), end)
    tool_calls = standard_json_tools(p, list(i.tools or ()), JsonToolLayout(
        ACTION_START, ACTION_END, i.parallel_tool_calls, True, "tool_name", "parameters", True, False, "",
        "tool_call_id", ("tool_call_id", "tool_name", "parameters")))
    body = tool_calls if i.required else p.choice([tool_calls, text])
    return p.cat(generation_prompt, reasoning, body, lambda: p.optional(p.literal(TURN_END)), end)


class Cohere2Moe(Handler):
    name = "cohere2moe"
    required = ("<|START_TEXT|>", "<|START_ACTION|>")

    continuation = TaggedTurn("<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>", "<|START_THINKING|>",
                              "<|END_THINKING|>", "<|START_TEXT|>")

    build = staticmethod(build)
    include = staticmethod(include_tools_or_format)
    lazy = staticmethod(lazy_auto_without_format)
    triggers = (word(ACTION_START),)
    preserved_tokens = (TURN_START, TURN_END, CHATBOT, USER, SYSTEM, THINK_START, THINK_END, TEXT_START, TEXT_END,
                        ACTION_START, ACTION_END, RESULT_START, RESULT_END)
    thinking_start_tag = THINK_START
    thinking_end_tags = (THINK_END,)
    message_delimiters = delimiters(("assistant", GEN_PREFIX), ("user", TURN_START + USER),
                                    ("tool", TURN_START + SYSTEM + RESULT_START), ("system", TURN_START + SYSTEM))
    response_format = "nonempty"
    reference = "common/parsers/cohere2moe.cpp"
