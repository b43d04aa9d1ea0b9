"""LFM2 and LFM2.5: ``<|tool_call_start|>[name(arg="v")]<|tool_call_end|>`` Python-style calls.

Input: the template source (routing), the messages (prompt) and ``GenerationParams``
(parser). Output: the ``Lfm2`` handler class and its ``Lfm25`` variant (llama.cpp's
``common/parsers/lfm2.cpp``, one init function with ``tool_list_tokens``): LFM2 also
preserves its tool-list markers; LFM2.5 is told apart by its plain-text tool list.
"""

from __future__ import annotations

from typing import ClassVar

from explorer.generator.chat_builder import ChatPeg
from explorer.generator.spec import GenerationParams
from explorer.handlers.base import Handler, include_tools_or_format, lazy_unless_forced, word
from explorer.handlers.prompting import TaggedTurn, reasoning_to_thinking

CALL_START, CALL_END = "<|tool_call_start|>", "<|tool_call_end|>"
LIST_START, LIST_END = "<|tool_list_start|>", "<|tool_list_end|>"
THINK_START, THINK_END = "<think>", "</think>"
GEN_PROMPT = "<|im_start|>assistant\n"


def build(p: ChatPeg, i: GenerationParams) -> int:
    generation_prompt = p.literal(GEN_PROMPT)
    end = p.end()
    reasoning = p.eps()
    # only templates that know <think> get reasoning extraction
    if i.extract_reasoning and THINK_START in i.source:
        reasoning = p.optional(p.cat(THINK_START, lambda: p.reasoning(p.until(THINK_END)), THINK_END))
    if not i.wants_tools:
        if i.has_schema_object:
            response = p.content(p.schema(p.json(), "response-format-schema", i.schema))
            return p.cat(generation_prompt, reasoning, response, end)
        return p.cat(generation_prompt, reasoning, lambda: p.content(p.rest()), end)
    tool_calls = p.rule("tool-calls", p.trigger_rule("tool-call", p.cat(
        lambda: p.literal(CALL_START),
        lambda: p.python_style_tool_calls(list(i.tools or ()), i.parallel_tool_calls, True),
        lambda: p.literal(CALL_END))))
    content = p.content(p.until(CALL_START))
    return p.cat(generation_prompt, reasoning, content, tool_calls, end)


class Lfm2(Handler):
    name = "lfm2"
    required: ClassVar[tuple[str, ...]] = (LIST_START, LIST_END)  # Lfm25 requires another

    messages_override = staticmethod(reasoning_to_thinking(drop_content_with_calls=False))
    continuation = TaggedTurn(GEN_PROMPT, THINK_START, THINK_END)

    build = staticmethod(build)
    include = staticmethod(include_tools_or_format)
    lazy = staticmethod(lazy_unless_forced)
    triggers = (word(CALL_START),)
    preserved_tokens: ClassVar[tuple[str, ...]] = (CALL_START, CALL_END, THINK_START, THINK_END, LIST_START, LIST_END)
    thinking_start_tag = THINK_START
    thinking_end_tags = (THINK_END,)
    reference = "common/parsers/lfm2.cpp"


class Lfm25(Lfm2):
    name = "lfm2.5"
    required = ("List of tools: [",)
    forbidden = (LIST_START,)

    preserved_tokens = (CALL_START, CALL_END, THINK_START, THINK_END)
