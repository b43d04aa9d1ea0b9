"""The chat PEG builder (llama.cpp's ``common_chat_peg_builder``), in its evaluation order.

Input: builder calls as the autoparser (``explorer.generator.autoparser``) and the
specialised handlers (llama.cpp's ``common/parsers/*.cpp``) make them. Output: parser ids
in an arena whose serialization is byte-identical to llama.cpp's.

``ChatPeg`` is the one PEG builder (``explorer.peg.builder.Builder``: primitives, the
``cat``/``alt``/``shl`` chains, llama.cpp's JSON and Python value rules) plus the chat
layer: the chat tags and their helpers under llama.cpp's names, ``prefix``, ``optspace``,
the tool-argument layouts, ``permute`` and the Python-style tool calls.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from explorer.grammar.gbnf import tool_parameters
from explorer.peg.builder import Builder
from explorer.schema import ObjectSchema, SchemaDocument, SchemaProperty, may_be_string, schema_from_json, value_types


def parser_prefix(generation_prompt: str, reasoning_start: str) -> str:
    """``common_chat_peg_builder::prefix``: up to the first delimiter, or all of it."""
    if not generation_prompt or not reasoning_start:
        return generation_prompt
    pos = generation_prompt.find(reasoning_start)
    return generation_prompt if pos < 0 else generation_prompt[:pos]


TOOL = "tool"
TOOL_OPEN = "tool-open"
TOOL_CLOSE = "tool-close"
TOOL_ID = "tool-id"
TOOL_NAME = "tool-name"
TOOL_ARGS = "tool-args"
TOOL_ARG = "tool-arg"
TOOL_ARG_OPEN = "tool-arg-open"
TOOL_ARG_CLOSE = "tool-arg-close"
TOOL_ARG_NAME = "tool-arg-name"
TOOL_ARG_VALUE = "tool-arg-value"
TOOL_ARG_STRING_VALUE = "tool-arg-string-value"
CONTENT = "content"
REASONING = "reasoning"

MAX_PERMUTE = 6  # llama.cpp's COMMON_CHAT_MAX_PERMUTE

# JSON value types, as llama.cpp's common_chat_schema::value_type (``value_types`` gives them)
T_NULL, T_BOOLEAN, T_NUMBER, T_INTEGER, T_STRING, T_ARRAY, T_OBJECT = (
    "null", "boolean", "number", "integer", "string", "array", "object")


def function_tools(tools: Sequence[Mapping[str, Any]] | None) -> list[Mapping[str, Any]]:
    """llama.cpp's ``foreach_function``: tools of type function that carry a function."""
    return [t for t in tools or () if t.get("type") == "function" and "function" in t]


def tool_properties(function: Mapping[str, Any]) -> tuple[SchemaDocument, tuple[SchemaProperty, ...]]:
    """llama.cpp's ``foreach_parameter``: the parsed parameters document and its properties."""
    doc = schema_from_json(tool_parameters(function))
    props = doc.root.properties if isinstance(doc.root, ObjectSchema) else ()
    return doc, props


class ChatPeg(Builder):
    """llama.cpp's ``common_chat_peg_builder``: the PEG builder with the chat helpers."""

    def atomic_tag(self, tag: str, pid: int) -> int:
        return self.atomic(self.tag(tag, pid))

    def prefix(self, text: str, delimiter: str = "") -> int:
        return self.literal(parser_prefix(text, delimiter)) if text else self.eps()

    def optspace(self, tag: str) -> int:
        """``tag`` with its leading and trailing whitespace characters each optional."""
        ws = " \t\n\v\f\r"
        parser = self.eps()
        lead = len(tag) - len(tag.lstrip(ws)) if tag.strip(ws) else len(tag)
        trail_start = len(tag.rstrip(ws)) if tag.strip(ws) else len(tag)
        for ch in tag[:lead]:
            opt = self.optional(self.literal(ch))
            parser = self.sequence([parser, opt])
        parser = self.sequence([parser, self.literal(tag[lead:trail_start])])
        for ch in tag[trail_start:]:
            opt = self.optional(self.literal(ch))
            parser = self.sequence([parser, opt])
        return parser

    def required_then_optional(self, required: Sequence[int], optional: Sequence[int]) -> int:
        """Tool arguments as llama.cpp lays them out: the required ones in schema order,
        space-separated, then any of the optional ones, any number of times."""
        args = self.eps()
        for n, pid in enumerate(required):
            if n > 0:
                args = self.cat(args, self.space)
            args = self.sequence([args, pid])
        if optional:
            any_optional = self.choice()
            for pid in optional:
                any_optional = self.choice([any_optional, pid])
            args = self.cat(args, lambda: self.repeat(self.cat(self.space, any_optional), 0, -1))
        return args

    # --- tag helpers (llama.cpp's names) -------------------------------------------------

    def reasoning(self, pid: int) -> int:
        return self.tag(REASONING, pid)

    def content(self, pid: int) -> int:
        return self.tag(CONTENT, pid)

    def tool(self, pid: int) -> int:
        return self.tag(TOOL, pid)

    def tool_open(self, pid: int) -> int:
        return self.atomic_tag(TOOL_OPEN, pid)

    def tool_close(self, pid: int) -> int:
        return self.atomic_tag(TOOL_CLOSE, pid)

    def tool_id(self, pid: int) -> int:
        return self.atomic_tag(TOOL_ID, pid)

    def tool_name(self, pid: int) -> int:
        return self.atomic_tag(TOOL_NAME, pid)

    def tool_args(self, pid: int) -> int:
        return self.tag(TOOL_ARGS, pid)

    def tool_arg(self, pid: int) -> int:
        return self.tag(TOOL_ARG, pid)

    def tool_arg_open(self, pid: int) -> int:
        return self.atomic_tag(TOOL_ARG_OPEN, pid)

    def tool_arg_close(self, pid: int) -> int:
        return self.atomic_tag(TOOL_ARG_CLOSE, pid)

    def tool_arg_name(self, pid: int) -> int:
        return self.atomic_tag(TOOL_ARG_NAME, pid)

    def tool_arg_value(self, pid: int) -> int:
        return self.tag(TOOL_ARG_VALUE, pid)

    def tool_arg_string_value(self, pid: int) -> int:
        return self.tag(TOOL_ARG_STRING_VALUE, pid)

    # --- composite helpers -------------------------------------------------------------

    def permute(self, prefix: str, parsers: Sequence[int]) -> int:
        """Every order of ``parsers``, as rules ``prefix-<bitmask of the remaining>``."""
        if not parsers:
            return self.eps()
        if len(parsers) == 1 or len(parsers) > MAX_PERMUTE:
            return self.sequence(list(parsers))
        cache: dict[int, int] = {}

        def remaining_of(remaining: int) -> int:
            if remaining == 0:
                return self.eps()
            if remaining in cache:
                return cache[remaining]
            alternatives = self.choice()
            for i, parser in enumerate(parsers):
                bit = 1 << i
                if remaining & bit:
                    rest = remaining & ~bit
                    alternatives = self.choice([alternatives, self.cat(parser, lambda: remaining_of(rest))])
            cache[remaining] = self.rule(f"{prefix}-{remaining}", alternatives)
            return cache[remaining]

        return remaining_of((1 << len(parsers)) - 1)

    def named_params(self, function: Mapping[str, Any], string_value: int, param_open: str, param_close: str) -> int:
        """Any number of ``<param_open>NAME">value<param_close>`` arguments in any order
        (MiniCPM5 and Muse Glimmer): strings through ``string_value``, which closes the
        argument itself, and other values as JSON of the parameter's schema."""
        name = function["name"]
        _doc, props = tool_properties(function)
        arg_rules = []
        for prop in props:
            self.eps()  # value_parser's initial value
            if may_be_string(prop.schema):
                value = string_value
            else:
                value = self.cat(lambda: self.tool_arg_value(
                    self.schema(self.json(), f"tool-{name}-arg-{prop.name}-schema", prop.schema)),
                    lambda: self.tool_arg_close(self.literal(param_close)))
            arg_rules.append(self.tool_arg(self.cat(lambda: self.tool_arg_open(self.cat(
                lambda: self.literal(param_open), lambda: self.tool_arg_name(self.literal(prop.name)),
                lambda: self.literal('">'))), value)))
        args = self.eps()
        if arg_rules:
            args = self.zero_or_more(self.cat(lambda: self.choice(arg_rules), self.space))
        return args

    def python_or_json_value(self) -> int:
        """Python literals that also accept JSON's true/false/null (LFM2)."""
        def build() -> int:
            ws = self.space()
            value = self.python_or_json_value()
            members = self.members(self.python_string, lambda: value, ws)
            dict_ = self.rule_fn("python-or-json-dict", lambda: self.bracketed("{", "}", members, ws, True))
            elements = self.elements(lambda: value, ws, tight=True)
            array = self.rule_fn("python-or-json-array", lambda: self.bracketed("[", "]", elements, ws, True))
            return self.choice([dict_, array, self.python_string(), self.json_number(), self.python_bool(),
                                self.python_null(), self.json_bool(), self.json_null()])
        return self.rule_fn("python-or-json-value", build)

    def fenced_json_response(self, schema: Mapping[str, Any]) -> int:
        """The ``response-format`` rule: the schema's JSON as content inside a ```json fence."""
        return self.rule("response-format", self.cat(
            lambda: self.literal("```json"), self.space,
            lambda: self.content(self.schema(self.json(), "response-format-schema", schema)), self.space,
            lambda: self.literal("```")))

    def delimited_tool_calls(self, start: str, end: str, tool_choice: int, parallel: bool) -> int:
        """The ``tool-call`` trigger rule: ``start``, one call (or several, space between)
        and ``end``, optional space around the calls."""
        if parallel:
            return self.trigger_rule("tool-call", self.cat(
                lambda: self.literal(start), self.space, tool_choice,
                lambda: self.zero_or_more(self.cat(self.space, tool_choice)), self.space, lambda: self.literal(end)))
        return self.trigger_rule("tool-call", self.cat(
            lambda: self.literal(start), self.space, tool_choice, self.space, lambda: self.literal(end)))

    def typed_arg_value(self, rule_name: str, schema: Any, arg_close: int, arg_string: int,
                        mixed: Callable[[frozenset[str]], int]) -> int:
        """An XML-style argument's value by its schema's types: JSON (then ``arg_close``)
        when it cannot be a string, ``arg_string`` when it can only be one, else ``mixed(types)``."""
        types = value_types(schema)
        self.eps()  # arg_value's initial value, created as in llama.cpp
        if T_STRING not in types:
            return self.cat(lambda: self.tool_arg_value(self.schema(self.json(), f"{rule_name}-schema", schema)),
                            arg_close)
        if types == {T_STRING}:
            return arg_string
        return mixed(types)

    def _quoted_text(self, quote: str) -> int:
        return self.cat(lambda: self.literal(quote), lambda: self.string_content(quote), lambda: self.literal(quote))

    def python_style_tool_calls(self, tools: Sequence[Mapping[str, Any]] | None, parallel: bool,
                                allow_json_literals: bool) -> int:
        """``[name(arg="v", n=1), ...]`` calls (LFM2)."""
        if not tools:
            return self.eps()
        choices = self.choice()
        for tool in tools:
            if "function" not in tool:
                continue
            function = tool["function"]
            name = function["name"]
            params = tool_parameters(function)
            args = self.eps()
            props = params.get("properties") if isinstance(params, Mapping) else None
            if props:
                arg_choice = self.choice()
                for prop_name, prop_def in props.items():
                    is_string = isinstance(prop_def, Mapping) and prop_def.get("type") == "string"
                    name_parser = self.literal(prop_name)
                    self.eps()  # arg_value_parser's initial value, created as in llama.cpp
                    string_value = self.tool_arg_value(self.choice([self._quoted_text('"'), self._quoted_text("'")]))
                    if is_string:
                        value = string_value
                    else:
                        value = self.tool_arg_value(
                            self.python_or_json_value() if allow_json_literals else self.python_value())
                    arg = self.tool_arg(self.cat(
                        lambda: self.tool_arg_open(self.cat(lambda: self.tool_arg_name(name_parser),
                                                            lambda: self.literal("="))),
                        value, lambda: self.tool_arg_close(self.eps())))
                    arg_choice = self.choice([arg_choice, arg])
                args = self.cat(arg_choice, lambda: self.zero_or_more(self.cat(",", self.space, arg_choice)))
            tool_parser = self.tool(self.cat(
                lambda: self.tool_open(self.cat(lambda: self.tool_name(self.literal(name)), lambda: self.literal("("))),
                self.space, lambda: self.tool_args(args), self.space,
                lambda: self.tool_close(self.literal(")"))))
            choices = self.choice([choices, self.rule(f"tool-{name}", tool_parser)])
        if parallel:
            return self.cat("[", self.space, choices,
                            lambda: self.zero_or_more(self.cat(",", self.space, choices)), self.space, "]")
        return self.cat("[", self.space, choices, self.space, "]")
