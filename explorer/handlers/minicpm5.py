"""MiniCPM5: ``<think>`` reasoning and ``<function name="f"><param name="p">v</param></function>``.

Input: the template source (routing) and ``GenerationParams`` (parser). Output: the
``MiniCpm5`` handler class (llama.cpp's ``common/parsers/minicpm5.cpp``). String values
may be wrapped in CDATA.
"""

from __future__ import annotations

from explorer.generator.chat_builder import ChatPeg, function_tools
from explorer.generator.spec import GenerationParams
from explorer.handlers.base import (
    Handler,
    delimiters,
    include_tools_or_format,
    lazy_unless_forced,
    word,
)
from explorer.handlers.prompting import TaggedTurn


def _string_value(p: ChatPeg) -> int:
    # CDATA lets a value hold </param>; only the inner text is captured
    return p.choice([
        p.cat(lambda: p.literal("<![CDATA["),
              lambda: p.ac(p.cat(lambda: p.tool_arg_string_value(p.until("]]>")), lambda: p.literal("]]>")), "]]>"),
              lambda: p.tool_arg_close(p.literal("</param>"))),
        p.cat(lambda: p.negate(p.literal("<![CDATA[")),
              lambda: p.ac(p.cat(lambda: p.tool_arg_string_value(p.until("</param>")),
                                 lambda: p.tool_arg_close(p.literal("</param>"))), "</param>")),
    ])


def _function(p: ChatPeg, fn: dict, string_value: int) -> int:
    name = fn["name"]
    args = p.named_params(fn, string_value, '<param name="', "</param>")
    return p.tool(p.shl(
        lambda: p.tool_open(p.cat(lambda: p.literal('<function name="'), lambda: p.tool_name(p.literal(name)),
                                  lambda: p.literal('">'))),
        lambda: p.tool_args(args), lambda: p.tool_close(p.literal("</function>"))))


def build(p: ChatPeg, i: GenerationParams) -> int:
    generation_prompt = p.literal("<|im_start|>assistant\n")
    reasoning = p.eps()
    if i.extract_reasoning:
        reasoning = p.cat(lambda: p.shl("<think>", lambda: p.reasoning(p.until("</think>")), "</think>"), p.space)
    if i.has_nonempty_schema:
        return p.cat(generation_prompt, reasoning,
                     lambda: p.content(p.schema(p.json(), "response-format", i.schema)))
    if i.wants_tools:
        string_value = _string_value(p)
        tool_choice = p.choice()
        for tool in function_tools(i.tools):
            tool_choice = p.choice([tool_choice, p.rule(f"tool-{tool['function']['name']}",
                                                        _function(p, tool["function"], string_value))])
        tool_calls = p.trigger_rule("tool-call", p.repeat(p.cat(tool_choice, p.space), 1,
                                                          -1 if i.parallel_tool_calls else 1))
        content = p.content(p.until("<function"))
        return p.cat(generation_prompt, reasoning, content, tool_calls, p.end)
    return p.cat(generation_prompt, reasoning, lambda: p.content(p.rest()), p.end)


class MiniCpm5(Handler):
    name = "minicpm5"
    required = ("Tool usage guidelines:", '<function name="', '<param name="')

    continuation = TaggedTurn("<|im_start|>assistant\n", "<think>\n", "\n</think>\n\n")

    build = staticmethod(build)
    include = staticmethod(include_tools_or_format)
    lazy = staticmethod(lazy_unless_forced)
    triggers = (word("<function"),)
    preserved_tokens = ("<function", "<param", "</function>", "</param>", "<think>", "</think>")
    thinking_start_tag = "<think>"
    thinking_end_tags = ("</think>",)
    message_delimiters = delimiters(("assistant", "<|im_start|>assistant"),
                                    ("tool", "<|im_start|>user\n<tool_response>"),
                                    ("user", "<|im_start|>user"), ("system", "<|im_start|>system"))
    response_format = "nonempty"
    reference = "common/parsers/minicpm5.cpp"
