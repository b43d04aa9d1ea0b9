"""Kimi K3: XTML sections ``<|open|>TAG attrs<|sep|> ... <|close|>TAG<|sep|>``.

Input: the template source (routing) and ``GenerationParams`` (parser). Output: the
``KimiK3`` handler class (llama.cpp's ``common/parsers/kimi-k3.cpp``). Argument types
come from the tool schema's ``type``.
"""

from __future__ import annotations

from collections.abc import Mapping

from explorer.generator.chat_builder import ChatPeg, function_tools
from explorer.generator.spec import GenerationParams
from explorer.grammar.gbnf import tool_parameters
from explorer.handlers.base import (
    Handler,
    delimiters,
    include_tools,
    lazy_unless_required,
    word,
)
from explorer.handlers.prompting import TaggedTurn

SEP = "<|sep|>"
MSG_START = '<|open|>message role="assistant"<|sep|>'
THINK_START, THINK_END = "<|open|>think<|sep|>", "<|close|>think<|sep|>"
RESP_START, RESP_END = "<|open|>response<|sep|>", "<|close|>response<|sep|>"
TOOLS_START, TOOLS_END = "<|open|>tools<|sep|>", "<|close|>tools<|sep|>"
CALL_START, CALL_END = '<|open|>call tool="', "<|close|>call<|sep|>"
ARG_START, ARG_END = '<|open|>argument key="', "<|close|>argument<|sep|>"
MSG_END = "<|close|>message<|sep|>"
EOM = "<|end_of_msg|>"


def _arg_type(value: object) -> str:
    if isinstance(value, Mapping) and isinstance(value.get("type"), str):
        return value["type"]
    return "string"


def _call(p: ChatPeg, fn: Mapping) -> int:
    name = fn["name"]
    schema = tool_parameters(fn)
    args = p.eps()
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    if props:
        arg_choices = p.choice()
        for key, value in props.items():
            if _arg_type(value) == "string":
                val = p.tool_arg_string_value(p.until(ARG_END))
            else:
                val = p.tool_arg_value(p.until(ARG_END))
            # the trailing type="..." attribute is skipped up to <|sep|>
            arg = p.tool_arg(p.cat(lambda: p.tool_arg_open(p.literal(ARG_START)),
                                   lambda: p.tool_arg_name(p.literal(key)), lambda: p.literal('"'),
                                   lambda: p.until(SEP), lambda: p.literal(SEP), val,
                                   lambda: p.tool_arg_close(p.literal(ARG_END))))
            arg_choices = p.choice([arg_choices, p.rule(f"kimi-k3-arg-{name}-{key}", arg)])
        args = p.zero_or_more(arg_choices)
    return p.tool(p.cat(
        lambda: p.tool_open(p.cat(lambda: p.literal(CALL_START), lambda: p.tool_name(p.literal(name)),
                                  lambda: p.literal('"'), lambda: p.until(SEP), lambda: p.literal(SEP))),
        lambda: p.tool_args(args), lambda: p.tool_close(p.literal(CALL_END))))


def build(p: ChatPeg, i: GenerationParams) -> int:
    end = p.end()
    start = p.optional(p.literal(MSG_START))
    body = p.until_one_of([THINK_END, RESP_START])
    think_body = p.reasoning(body) if i.extract_reasoning else p.content(body)
    reasoning = p.optional(p.cat(lambda: p.optional(p.literal(THINK_START)), think_body,
                                 lambda: p.optional(p.literal(THINK_END))))
    response = p.cat(lambda: p.optional(p.literal(RESP_START)),
                     lambda: p.content(p.until_one_of([RESP_END, TOOLS_START, MSG_END])),
                     lambda: p.optional(p.literal(RESP_END)))
    trailer = p.cat(lambda: p.optional(p.literal(MSG_END)), lambda: p.optional(p.literal(EOM)))
    if not i.wants_tools:
        return p.cat(start, reasoning, response, trailer, end)
    tool_choices = p.choice()
    for tool in function_tools(i.tools):
        call = _call(p, tool["function"])
        tool_choices = p.choice([tool_choices, p.rule(f"kimi-k3-tool-{tool['function']['name']}", call)])
    # the message closer belongs to the trigger rule, or the lazy grammar would reject it
    section = p.trigger_rule("kimi-k3-tool-call", p.cat(
        lambda: p.literal(TOOLS_START), lambda: p.one_or_more(tool_choices), lambda: p.literal(TOOLS_END),
        lambda: p.optional(p.literal(MSG_END)), lambda: p.optional(p.literal(EOM))))
    tools = section if i.required else p.optional(section)
    return p.cat(start, reasoning, response, tools, trailer, end)


class KimiK3(Handler):
    name = "kimi-k3"
    required = ("<|open|>", "<|close|>", "<|end_of_msg|>")

    continuation = TaggedTurn('<|open|>message role="assistant"<|sep|>', "<|open|>think<|sep|>",
                              "<|close|>think<|sep|>", "<|open|>response<|sep|>")

    build = staticmethod(build)
    include = staticmethod(include_tools)
    lazy = staticmethod(lazy_unless_required)
    triggers = (word(TOOLS_START),)
    preserved_tokens = ("<|open|>", "<|close|>", SEP, EOM)
    thinking_start_tag = THINK_START
    thinking_end_tags = (THINK_END,)
    message_delimiters = delimiters(("assistant", MSG_START), ("user", '<|open|>message role="user"<|sep|>'),
                                    ("tool", '<|open|>message role="tool"'),
                                    ("system", '<|open|>message role="system"'))
    reference = "common/parsers/kimi-k3.cpp"
