"""Ling 3.0 / Bailing V3: ``<role>ASSISTANT</role>`` turns, ``<arg_key>``/``<arg_value>`` calls.

Input: the template source (routing) and ``GenerationParams`` (parser). Output: the
``Ling3`` handler class (llama.cpp's ``common/parsers/ling3.cpp``). Whether the think
block is open comes from the generation prompt (or the continuation mode).
"""

from __future__ import annotations

from explorer.generator.chat_builder import ChatPeg, function_tools, tool_properties
from explorer.generator.spec import GenerationParams
from explorer.handlers.base import (
    Handler,
    delimiters,
    include_tools,
    lazy_unless_required,
    word,
)
from explorer.handlers.prompting import TaggedTurn

ROLE = "<role>ASSISTANT</role>"
THINK_START, THINK_END = "<think>", "</think>"
CALL_START, CALL_END = "<tool_call>", "</tool_call>"
ARG_KEY, ARG_KEY_END = "<arg_key>", "</arg_key>"
ARG_VAL, ARG_VAL_END = "<arg_value>", "</arg_value>"
ROLE_END = "<|role_end|>"


def think_open(i: GenerationParams) -> bool:
    if i.continuation != "none":
        return i.continuation != "content"
    last_open = i.generation_prompt.rfind(THINK_START)
    last_close = i.generation_prompt.rfind(THINK_END)
    return last_open >= 0 and (last_close < 0 or last_open > last_close)


def _arg(p: ChatPeg, name: str, param, arg_close: int, arg_string: int) -> int:
    rule_name = f"ling3-arg-{name}-{param.name}"

    def mixed(_types: frozenset[str]) -> int:
        # the parser tries JSON first to type the value; the grammar keeps the raw string
        return p.gbnf(p.alt(lambda: p.atomic(p.cat(lambda: p.tool_arg_value(
            p.schema(p.json(), f"{rule_name}-schema", param.schema)), arg_close)), arg_string), "ling3-arg-string")

    value = p.typed_arg_value(rule_name, param.schema, arg_close, arg_string, mixed)
    return p.rule(rule_name, p.cat(lambda: p.optional(p.space()), lambda: p.tool_arg(p.cat(
        lambda: p.tool_arg_open(p.cat(lambda: p.literal(ARG_KEY), lambda: p.tool_arg_name(p.literal(param.name)),
                                      lambda: p.literal(ARG_KEY_END))),
        lambda: p.optional(p.space()), lambda: p.literal(ARG_VAL), value))))


def _call(p: ChatPeg, fn: dict, arg_close: int, arg_string: int) -> int:
    name = fn["name"]
    required: list[int] = []
    optional: list[int] = []
    _doc, props = tool_properties(fn)
    for param in props:
        (required if param.required else optional).append(_arg(p, name, param, arg_close, arg_string))
    args = p.permute(f"ling3-{name}-args", required)
    if optional:
        args = p.cat(args, lambda: p.zero_or_more(p.choice(optional)))
    return p.tool(p.cat(
        lambda: p.tool_open(p.cat(lambda: p.literal(CALL_START), lambda: p.tool_name(p.literal(name)),
                                  lambda: p.optional(p.space()))),
        lambda: p.tool_args(args),
        lambda: p.tool_close(p.cat(lambda: p.optional(p.space()), lambda: p.literal(CALL_END)))))


def build(p: ChatPeg, i: GenerationParams) -> int:
    end = p.end()
    opener = p.optional(p.cat(lambda: p.literal(ROLE), lambda: p.optional(p.space())))
    body_end = p.until_one_of([THINK_END, CALL_START] if think_open(i) else [THINK_END])
    think_body = p.reasoning(body_end) if i.extract_reasoning else p.content(body_end)
    reasoning = p.optional(p.cat(lambda: p.optional(p.literal(THINK_START)), think_body,
                                 lambda: p.optional(p.literal(THINK_END))))
    content = p.optional(p.content(p.until_one_of([CALL_START])))
    tail = p.cat(lambda: p.optional(p.content(p.until(ROLE_END))), lambda: p.optional(p.literal(ROLE_END)))
    if not i.wants_tools:
        return p.cat(opener, reasoning, tail, end)
    tool_choices = p.choice()
    arg_close = p.tool_arg_close(p.literal(ARG_VAL_END))
    arg_string = p.rule("ling3-arg-string", p.cat(lambda: p.tool_arg_string_value(p.until(ARG_VAL_END)), arg_close))
    for tool in function_tools(i.tools):
        call = _call(p, tool["function"], arg_close, arg_string)
        tool_choices = p.choice([tool_choices, p.rule(f"ling3-tool-{tool['function']['name']}", call)])
    if i.parallel_tool_calls:
        calls = p.cat(tool_choices, lambda: p.zero_or_more(p.cat(p.space, tool_choices)))
    else:
        calls = tool_choices
    section = p.trigger_rule("ling3-tool-call", p.cat(
        calls, p.space, lambda: p.optional(p.content(p.until(ROLE_END))), lambda: p.optional(p.literal(ROLE_END))))
    tools = section if i.required else p.optional(section)
    return p.cat(opener, reasoning, content, tools, tail, end)


class Ling3(Handler):
    name = "ling3"
    required = ("<role>ASSISTANT</role>", "<arg_key>")

    continuation = TaggedTurn("<role>ASSISTANT</role>\n", "<think>", "</think>")

    build = staticmethod(build)
    include = staticmethod(include_tools)
    lazy = staticmethod(lazy_unless_required)
    triggers = (word(CALL_START),)
    preserved_tokens = (THINK_START, THINK_END, CALL_START, CALL_END, ARG_KEY, ARG_KEY_END, ARG_VAL, ARG_VAL_END,
                        ROLE_END)
    thinking_start_tag = THINK_START
    thinking_end_tags = (THINK_END, CALL_START)
    # the model may spell the end-of-turn token out as text, which does not stop it
    additional_stops = (ROLE_END,)
    message_delimiters = delimiters(("assistant", ROLE), ("user", "<role>HUMAN</role>"),
                                    ("tool", "<role>OBSERVATION</role>"), ("system", "<role>SYSTEM</role>"))
    reference = "common/parsers/ling3.cpp"
    argument_order = ""  # its parser reads tagged arguments required-first
