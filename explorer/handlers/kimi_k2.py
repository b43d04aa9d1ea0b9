"""Kimi K2: ``<think>`` reasoning and ``<|tool_call_begin|>functions.NAME:N<|tool_call_argument_begin|>{json}``.

Input: the template source (routing) and ``GenerationParams`` (parser). Output: the
``KimiK2`` handler class (llama.cpp's ``common/parsers/kimi-k2.cpp``). The call id
``functions.NAME:N`` is captured whole.
"""

from __future__ import annotations

from explorer.generator.chat_builder import ChatPeg, function_tools
from explorer.generator.spec import GenerationParams
from explorer.grammar.gbnf import tool_parameters
from explorer.handlers.base import Handler, include_tools, lazy_auto, word
from explorer.handlers.prompting import TaggedTurn

SECTION_BEGIN = "<|tool_calls_section_begin|>"
SECTION_END = "<|tool_calls_section_end|>"
CALL_BEGIN = "<|tool_call_begin|>"
ARGS_BEGIN = "<|tool_call_argument_begin|>"
CALL_END = "<|tool_call_end|>"
THINK_START, THINK_END = "<think>", "</think>"
GEN_PROMPT = "<|im_assistant|>assistant<|im_middle|>"


def build(p: ChatPeg, i: GenerationParams) -> int:
    end = p.end()
    if i.extract_reasoning:
        # the model may call tools at the end of its reasoning without closing it
        reasoning = p.optional(p.cat(
            THINK_START, lambda: p.reasoning(p.until_one_of([THINK_END, SECTION_BEGIN, CALL_BEGIN])),
            lambda: p.optional(p.literal(THINK_END))))
    else:
        reasoning = p.eps()
    generation_prompt = p.literal(GEN_PROMPT)
    if not i.wants_tools:
        return p.cat(generation_prompt, reasoning, lambda: p.content(p.rest()), end)
    tool_choice = p.choice()
    for tool in function_tools(i.tools):
        fn = tool["function"]
        name = fn["name"]
        tool_id = p.tool_id(p.cat(lambda: p.literal("functions."), lambda: p.tool_name(p.literal(name)),
                                  lambda: p.literal(":"), lambda: p.chars("[0-9]", 1, -1)))
        parser = p.tool(p.cat(
            lambda: p.tool_open(p.cat(tool_id, lambda: p.literal(ARGS_BEGIN))),
            lambda: p.tool_args(p.schema(p.json(), f"tool-{name}-schema", tool_parameters(fn))),
            lambda: p.tool_close(p.optional(p.literal(CALL_END)))))
        tool_choice = p.choice([tool_choice, p.rule(f"tool-{name}", parser)])
    lo, hi = (1 if i.required else 0), (-1 if i.parallel_tool_calls else 1)
    tool_calls = p.rule("tool-calls", p.cat(
        lambda: p.optional(p.literal(SECTION_BEGIN)),
        lambda: p.trigger_rule("tool-call", p.cat(lambda: p.repeat(p.cat(CALL_BEGIN, tool_choice), lo, hi),
                                                  lambda: p.optional(p.literal(SECTION_END))))))
    content_before = p.content(p.until_one_of([SECTION_BEGIN, CALL_BEGIN]))
    return p.cat(generation_prompt, reasoning, content_before, tool_calls, end)


class KimiK2(Handler):
    name = "kimi-k2"
    required = ("<|tool_calls_section_begin|>", "<|tool_call_begin|>")

    continuation = TaggedTurn("<|im_assistant|>assistant<|im_middle|>", "<think>", "</think>")

    build = staticmethod(build)
    include = staticmethod(include_tools)
    lazy = staticmethod(lazy_auto)
    triggers = (word(CALL_BEGIN),)
    preserved_tokens = (SECTION_BEGIN, SECTION_END, CALL_BEGIN, ARGS_BEGIN, CALL_END, THINK_START, THINK_END)
    thinking_start_tag = THINK_START
    thinking_end_tags = (THINK_END,)
    reference = "common/parsers/kimi-k2.cpp"
