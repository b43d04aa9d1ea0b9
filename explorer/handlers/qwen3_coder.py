"""Qwen3-Coder XML calls (also Qwen3.5, Nemotron Nano 3, StepFun 3.5 Flash).

``<tool_call>\\n<function=NAME>\\n<parameter=P>\\nVALUE\\n</parameter>\\n</function>\\n</tool_call>``.
Input: the template source (routing, thinking support) and ``GenerationParams``
(parser). Output: the ``Qwen3Coder`` handler class (llama.cpp's
``common/parsers/qwen3-coder.cpp``). Templates with ``<think>`` reason; Qwen3-Coder itself
(no ``<think>``) may omit the opening ``<tool_call>``, so ``<function=NAME>`` also triggers.
"""

from __future__ import annotations

from explorer.generator.chat_builder import (
    T_ARRAY,
    T_BOOLEAN,
    T_INTEGER,
    T_NULL,
    T_NUMBER,
    T_OBJECT,
    ChatPeg,
    function_tools,
    tool_properties,
)
from explorer.generator.params import GrammarTrigger
from explorer.generator.spec import GenerationParams
from explorer.handlers.base import (
    Handler,
    delimiters,
    include_tools_or_format,
    lazy_tools_auto,
    word,
)
from explorer.handlers.prompting import ContinuationInputs, render_content

GEN_PREFIX = "<|im_start|>assistant\n"
ARG_END = "\n</parameter>\n"


def supports_reasoning(i: GenerationParams) -> bool:
    return "<think>" in i.source


def tool_call_starts(i: GenerationParams) -> list[str]:
    starts = ["<tool_call>"]
    if not supports_reasoning(i):
        # the full opener: "<function" alone also starts valid content (#include <functional>)
        starts += [f"<function={t['function']['name']}>" for t in function_tools(i.tools)]
    return starts


def _mixed_value(p: ChatPeg, types: frozenset[str], arg_close: int, arg_string: int) -> int:
    """JSON first to type the value; the grammar keeps only the raw string rule."""
    json_value = p.choice()
    for wanted, make in ((T_OBJECT in types, p.json_object), (T_ARRAY in types, p.json_array),
                         (T_NUMBER in types or T_INTEGER in types, p.json_number),
                         (T_BOOLEAN in types, p.json_bool), (T_NULL in types, p.json_null)):
        if wanted:
            json_value = p.choice([json_value, make()])
    return p.gbnf(p.alt(lambda: p.atomic(p.cat(lambda: p.tool_arg_value(json_value), arg_close)), arg_string),
                  "xml-arg-string")


def _function(p: ChatPeg, fn: dict, arg_close: int, arg_string: int) -> int:
    name = fn["name"]
    required: list[int] = []
    optional: list[int] = []
    _doc, props = tool_properties(fn)
    for param in props:
        rule_name = f"tool-{name}-arg-{param.name}"
        arg_open = p.tool_arg_open(p.cat("<parameter=", lambda: p.tool_arg_name(p.literal(param.name)), ">\n"))
        value = p.typed_arg_value(rule_name, param.schema, arg_close, arg_string,
                                  lambda types: _mixed_value(p, types, arg_close, arg_string))
        rule = p.rule(rule_name, p.tool_arg(p.cat(arg_open, value)))
        (required if param.required else optional).append(rule)
    # required arguments in any order: Qwen does not always keep the schema's order
    args = p.permute(f"tool-{name}-args", required)
    if optional:
        args = p.cat(args, lambda: p.zero_or_more(p.choice(optional)))
    return p.tool(p.cat(
        lambda: p.tool_open(p.cat("<function=", lambda: p.tool_name(p.literal(name)), ">\n")),
        lambda: p.tool_args(args), lambda: p.tool_close(p.literal("</function>\n"))))


def build(p: ChatPeg, i: GenerationParams) -> int:
    thinks = supports_reasoning(i)
    generation_prompt = p.literal(GEN_PREFIX)
    reasoning = p.eps()
    if thinks and i.extract_reasoning:
        reasoning = p.optional(p.cat(
            "<think>", p.space, lambda: p.reasoning(p.until_one_of(["</think>", "<tool_call>"])),
            lambda: p.alt(lambda: p.literal("</think>"), lambda: p.peek(p.literal("<tool_call>")))))
    if i.has_nonempty_schema:
        return p.cat(generation_prompt, lambda: p.shl(
            reasoning, lambda: p.content(p.schema(p.json(), "response-format", i.schema))))
    if i.wants_tools:
        arg_close = p.tool_arg_close(p.literal(ARG_END))
        arg_string = p.rule("xml-arg-string", p.ac(
            p.cat(lambda: p.tool_arg_string_value(p.until(ARG_END)), arg_close), ARG_END))
        tool_choice = p.choice()
        for tool in function_tools(i.tools):
            func = _function(p, tool["function"], arg_close, arg_string)
            tool_choice = p.choice([tool_choice, p.rule(f"tool-{tool['function']['name']}", func)])
        body = p.cat(tool_choice, "</tool_call>", p.space)
        tool_call = p.rule("tool-call", p.cat("<tool_call>\n", body))
        if not thinks:  # Qwen3-Coder sometimes omits <tool_call>
            first = p.rule("tool-call-first", p.cat(lambda: p.optional(p.literal("<tool_call>\n")), body))
        else:
            first = tool_call
        calls = p.cat(first, lambda: p.zero_or_more(tool_call)) if i.parallel_tool_calls else first
        tool_calls = p.trigger_rule("tool-call-root", p.repeat(calls, 1 if i.required else 0, 1))
        return p.cat(generation_prompt, lambda: p.shl(
            reasoning, lambda: p.content(p.until_one_of(tool_call_starts(i))), tool_calls))
    return p.cat(generation_prompt, lambda: p.shl(reasoning, lambda: p.content(p.rest())))


def continue_turn(c: ContinuationInputs) -> str:
    gen = "<|im_start|>assistant\n"
    if "<think>" in c.source:
        gen += "<think>\n" + c.msg.reasoning_content
        if c.mode == "content":
            gen += "\n</think>\n\n"
    if c.mode == "content":
        gen += render_content(c.msg)
    return gen


class Qwen3Coder(Handler):
    name = "qwen3-coder"
    required = ("<tool_call>", "<function=", "<parameter=")
    forbidden = ("'<tool_call><function=' ~ tool_call.name ~ '>'",)
    note = ("also Nemotron Nano 3, Qwen3.5, StepFun-3.5-Flash; excludes templates "
            "without newlines between the tags")

    continuation = staticmethod(continue_turn)

    build = staticmethod(build)
    include = staticmethod(include_tools_or_format)
    lazy = staticmethod(lazy_tools_auto)
    triggers_when_lazy_only = True
    message_delimiters = delimiters(("assistant", "<|im_start|>assistant"),
                                    ("tool", "<|im_start|>user\n<tool_response>"),
                                    ("tool", "<|im_start|>tool_response"),
                                    ("user", "<|im_start|>user"), ("system", "<|im_start|>system"))
    response_format = "nonempty"
    reference = "common/parsers/qwen3-coder.cpp"
    argument_order = ""  # its parser reads tagged arguments required-first

    @classmethod
    def thinking_supported(cls, source: str) -> bool:
        # Qwen3-Coder itself does not think; Qwen3.5, Nemotron Nano 3 and StepFun do
        return "<think>" in source

    @classmethod
    def triggers_for(cls, inputs: GenerationParams) -> tuple[GrammarTrigger, ...]:
        return tuple(word(s) for s in tool_call_starts(inputs))

    @classmethod
    def preserved_tokens_for(cls, inputs: GenerationParams) -> tuple[str, ...]:
        return ("<tool_call>", "</tool_call>") + (("<think>", "</think>") if supports_reasoning(inputs) else ())

    @classmethod
    def thinking_start_tag_for(cls, inputs: GenerationParams) -> str:
        return "<think>" if supports_reasoning(inputs) else ""

    @classmethod
    def thinking_end_tags_for(cls, inputs: GenerationParams) -> tuple[str, ...]:
        # the newline variant first, so a forced end includes it; <tool_call> also ends reasoning
        return ("\n</think>", "</think>", "<tool_call>") if supports_reasoning(inputs) else ()
