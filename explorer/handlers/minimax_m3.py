"""MiniMax-M3: ``]<]minimax[>[``-prefixed XML tool calls with recursively expanded values.

Input: the template source (routing) and ``GenerationParams`` (parser). Output: the
``MinimaxM3`` handler class (llama.cpp's ``common/parsers/minimax-m3.cpp``); its output
is mapped by the ``peg-minimax-m3`` mapper (objects, arrays and items as nested tags).
"""

from __future__ import annotations

from explorer.generator.chat_builder import ChatPeg, function_tools, tool_properties
from explorer.generator.spec import GenerationParams
from explorer.handlers.base import (
    Handler,
    delimiters,
    include_tools_or_format,
    lazy_unless_forced,
    word,
)
from explorer.handlers.prompting import ContinuationInputs, TaggedTurn
from explorer.peg.chat_mappers import MiniMaxM3Mapper
from explorer.schema import AnyOfSchema, ArraySchema, ObjectSchema, SchemaNode, may_be_string

NS = "]<]minimax[>["
THINK_START, THINK_END = "<mm:think>", "</mm:think>"
FC_START, FC_END = NS + "<tool_call>", NS + "</tool_call>"
INVOKE_END = NS + "</invoke>"
TOOL_ARG_OBJECT, TOOL_ARG_ARRAY, TOOL_ARG_ITEM = "tool-arg-object", "tool-arg-array", "tool-arg-item"


class _Values:
    """The template's to_xml() expansion of argument values, as parsers."""

    def __init__(self, p: ChatPeg) -> None:
        self.p = p

    def element(self, tag: str, schema: SchemaNode, rule_name: str) -> int:
        p = self.p
        close = f"{NS}</{tag}>"
        return p.rule(rule_name, p.tool_arg(p.cat(
            lambda: p.tool_arg_open(p.cat(lambda: p.literal(NS + "<"), lambda: p.tool_arg_name(p.literal(tag)),
                                          lambda: p.literal(">"))),
            lambda: self.value(schema, rule_name, close))))

    def value(self, schema: SchemaNode, rule_name: str, close: str) -> int:
        p = self.p
        close_tag = p.tool_arg_close(p.literal(close))
        if may_be_string(schema):  # a union with a string alternative is a string
            return p.ac(p.cat(lambda: p.tool_arg_string_value(p.until(close)), close_tag), close)
        if isinstance(schema, AnyOfSchema):
            choices = [self.value(alt, f"{rule_name}-{n}", close) for n, alt in enumerate(schema.children)]
            return p.choice(choices)
        if isinstance(schema, ObjectSchema) and schema.properties:
            return p.cat(lambda: p.tag(TOOL_ARG_OBJECT, self.members(schema, rule_name)), p.space, close_tag)
        if isinstance(schema, ArraySchema):
            item_close = NS + "</item>"
            item = p.rule(f"{rule_name}-item", p.tag(TOOL_ARG_ITEM, p.cat(
                lambda: p.literal(NS + "<item>"), lambda: self.value(schema.items, f"{rule_name}-item", item_close))))
            return p.cat(lambda: p.tag(TOOL_ARG_ARRAY, p.repeat(p.cat(p.space, item), 0, -1)), p.space, close_tag)
        return p.cat(lambda: p.tool_arg_value(p.schema(p.json(), f"{rule_name}-schema", schema)), close_tag)

    def members(self, obj: ObjectSchema, prefix: str) -> int:
        """Required properties in schema order, then optional ones in any order."""
        p = self.p
        required: list[int] = []
        optional: list[int] = []
        for prop in obj.properties:
            element = self.element(prop.name, prop.schema, f"{prefix}-{prop.name}")
            (required if prop.required else optional).append(element)
        return p.required_then_optional(required, optional)


def _invoke(p: ChatPeg, fn: dict) -> int:
    name = fn["name"]
    doc, _props = tool_properties(fn)
    body = p.eps()
    if isinstance(doc.root, ObjectSchema):
        body = _Values(p).members(doc.root, f"tool-{name}-arg")
    return p.tool(p.cat(
        lambda: p.tool_open(p.cat(lambda: p.literal(NS + '<invoke name="'), lambda: p.tool_name(p.literal(name)),
                                  lambda: p.literal('">'))),
        p.space, body, p.space, lambda: p.tool_close(p.literal(INVOKE_END))))


def build(p: ChatPeg, i: GenerationParams) -> int:
    generation_prompt = p.prefix(i.generation_prompt, THINK_START)
    end = p.end()
    reasoning = p.eps()
    if i.extract_reasoning:
        if i.enable_thinking:
            block = p.cat(lambda: p.literal(THINK_START), p.space, lambda: p.ac(
                p.cat(lambda: p.reasoning(p.until(THINK_END)), lambda: p.literal(THINK_END)), THINK_END))
        else:
            block = p.cat(lambda: p.literal(THINK_START), lambda: p.ac(
                p.cat(lambda: p.until(THINK_END), lambda: p.literal(THINK_END)), THINK_END))
        # a turn without reasoning starts with a bare </mm:think>
        reasoning = p.optional(p.choice([block, p.literal(THINK_END)]))
    if i.has_schema_object:
        return p.cat(generation_prompt, reasoning, p.fenced_json_response(i.schema), end)
    if not i.wants_tools:
        return p.cat(generation_prompt, reasoning, lambda: p.content(p.rest()), end)
    tool_choice = p.choice()
    for tool in function_tools(i.tools):
        tool_choice = p.choice([tool_choice, p.rule(f"tool-{tool['function']['name']}", _invoke(p, tool["function"]))])
    p.eps()  # tool_calls' initial value
    tool_calls = p.delimited_tool_calls(FC_START, FC_END, tool_choice, i.parallel_tool_calls)
    if not i.required:
        tool_calls = p.optional(tool_calls)
    content_before = p.content(p.until(FC_START))
    return p.cat(generation_prompt, reasoning, content_before, tool_calls, end)


def continue_turn(c: ContinuationInputs) -> str:
    return TaggedTurn(c.generation_prompt, THINK_START, THINK_END)(c)


class MinimaxM3(Handler):
    name = "minimax-m3"
    required = ("]<]minimax[>[", "<tool_call>", "<invoke name=")

    continuation = staticmethod(continue_turn)

    build = staticmethod(build)
    include = staticmethod(include_tools_or_format)
    lazy = staticmethod(lazy_unless_forced)
    triggers = (word(FC_START),)
    mapper = MiniMaxM3Mapper
    preserved_tokens = (NS, "<tool_call>", "</tool_call>", THINK_START, THINK_END)
    thinking_start_tag = THINK_START
    thinking_end_tags = (THINK_END,)
    message_delimiters = delimiters(("assistant", "]~b]ai"), ("user", "]~b]user"), ("tool", "]~b]tool"),
                                    ("system", "]~b]developer"), ("system", "]~b]system"))
    reference = "common/parsers/minimax-m3.cpp"
    argument_order = ""  # its parser reads tagged arguments required-first
