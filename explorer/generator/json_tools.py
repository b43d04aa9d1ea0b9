"""JSON tool-call parsers: llama.cpp's ``standard_json_tools`` and its three layouts.

Input: a ``ChatPeg`` builder, the request's tools and the JSON layout (section markers, key
names, array wrapping, function-name-as-key, id fields, key order). Output: the id of the
``tool-call`` section parser. Creation order follows llama.cpp exactly (see ``explorer.peg.builder``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from explorer.generator.chat_builder import TOOL, TOOL_ARGS, TOOL_CLOSE, TOOL_ID, TOOL_NAME, TOOL_OPEN, ChatPeg
from explorer.grammar.gbnf import tool_parameters


def _key_spec(key: str) -> tuple[str, str]:
    dot = key.find(".")
    return ("", key) if dot < 0 else (key[:dot], key[dot + 1:])


@dataclass(frozen=True)
class JsonToolLayout:
    section_start: str
    section_end: str
    parallel_tool_calls: bool
    force_tool_calls: bool
    name_key: str = ""
    args_key: str = ""
    array_wrapped: bool = False
    function_is_key: bool = False
    call_id_key: str = ""
    gen_call_id_key: str = ""
    parameters_order: tuple[str, ...] = ()
    accept_openai_wrapper: bool = False


def _functions(tools: Sequence[Mapping[str, Any]]) -> list[tuple[str, Any]]:
    """(name, parameters) of every tool with a ``function`` key (these builders' filter)."""
    return [(t["function"]["name"], tool_parameters(t["function"])) for t in tools if "function" in t]


def _id_field(p: ChatPeg, key: str) -> int:
    """``"key": "<id>"`` as one atomic parser."""
    return p.atomic(p.cat(lambda: p.literal(f'"{key}"'), lambda: p.space(), lambda: p.literal(":"), lambda: p.space(),
                          lambda: p.literal('"'), lambda: p.atomic_tag(TOOL_ID, p.string_content('"')),
                          lambda: p.literal('"')))


def _id_string_or_number(p: ChatPeg) -> int:
    return p.choice([
        p.cat(lambda: p.literal('"'), lambda: p.atomic_tag(TOOL_ID, p.string_content('"')), lambda: p.literal('"')),
        p.atomic_tag(TOOL_ID, p.json_number()),
    ])


def _id_field_any(p: ChatPeg, key: str) -> int:
    """``"key": "<id>"`` or ``"key": 123``, atomic."""
    return p.atomic(p.cat(lambda: p.literal(f'"{key}"'), lambda: p.space(), lambda: p.literal(":"),
                          lambda: p.space(), lambda: _id_string_or_number(p)))


def _tool_args(p: ChatPeg, name: str, params: Any) -> int:
    return p.tag(TOOL_ARGS, p.schema(p.json(), f"tool-{name}-schema", params))


def _function_is_key(p: ChatPeg, tools: Sequence[Mapping[str, Any]], lay: JsonToolLayout, args_key: str) -> int:
    choices = p.choice()
    for name, params in _functions(tools):
        inner_fields: list[int] = []
        if lay.call_id_key:
            id_parser = _id_field(p, lay.call_id_key)
            inner_fields.append(p.optional(p.cat(id_parser, p.space,
                                                 lambda: p.optional(p.cat(lambda: p.literal(","), p.space)))))
        if lay.gen_call_id_key:
            gen_parser = _id_field_any(p, lay.gen_call_id_key)
            inner_fields.append(p.optional(p.cat(gen_parser, p.space,
                                                 lambda: p.optional(p.cat(lambda: p.literal(","), p.space)))))
        args_parser = p.eps()
        if not lay.args_key:
            args_parser = _tool_args(p, name, params)
        else:
            args_parser = p.cat(lambda: p.literal(f'"{args_key}"'), p.space, lambda: p.literal(":"), p.space,
                                lambda: _tool_args(p, name, params))
        inner_fields.append(args_parser)
        inner = p.eps()
        if not lay.args_key and len(inner_fields) == 1:
            inner = inner_fields[0]
        else:
            inner = p.cat(lambda: p.literal("{"), p.space)
            for i, fld in enumerate(inner_fields):
                inner = p.sequence([inner, fld])
                if i < len(inner_fields) - 1:
                    inner = p.sequence([inner, p.space()])
            inner = p.cat(inner, p.space, lambda: p.literal("}"))
        body = p.cat(lambda: p.atomic_tag(TOOL_OPEN, p.literal("{")), p.space, lambda: p.literal('"'),
                     lambda: p.atomic_tag(TOOL_NAME, p.literal(name)), lambda: p.literal('"'), p.space,
                     lambda: p.literal(":"), p.space, inner, p.space,
                     lambda: p.atomic_tag(TOOL_CLOSE, p.literal("}")))
        choices = p.choice([choices, p.rule(f"tool-{name}", p.tag(TOOL, body))])
    return choices


def _quoted_name(p: ChatPeg, key: str, name: str) -> int:
    return p.cat(lambda: p.literal(f'"{key}"'), p.space, lambda: p.literal(":"), p.space,
                 lambda: p.atomic(p.cat(lambda: p.literal('"'), lambda: p.atomic_tag(TOOL_NAME, p.literal(name)),
                                        lambda: p.literal('"'))))


def _keyed_args(p: ChatPeg, key: str, name: str, params: Any) -> int:
    return p.cat(lambda: p.literal(f'"{key}"'), p.space, lambda: p.literal(":"), p.space,
                 lambda: _tool_args(p, name, params))


def _nested_keys(p: ChatPeg, tools: Sequence[Mapping[str, Any]], lay: JsonToolLayout, name_key: str,
                 args_key: str) -> int:
    choices = p.choice()
    name_spec, args_spec = _key_spec(name_key), _key_spec(args_key)
    prefix = name_spec[0] or args_spec[0]
    name_field = name_spec[1] if name_spec[0] else name_key
    args_field = args_spec[1] if args_spec[0] else args_key
    for name, params in _functions(tools):
        nested_name = _quoted_name(p, name_field, name)
        nested_args = _keyed_args(p, args_field, name, params)
        nested_object = p.cat(lambda: p.literal("{"), p.space, nested_name, p.space, lambda: p.literal(","),
                              p.space, nested_args, p.space, lambda: p.literal("}"))
        body = p.cat(lambda: p.atomic_tag(TOOL_OPEN, p.literal("{")), p.space)
        if lay.call_id_key and not _key_spec(lay.call_id_key)[0]:
            id_parser = _id_field(p, lay.call_id_key)
            body = p.cat(body, lambda: p.optional(p.cat(id_parser, p.space, lambda: p.literal(","), p.space)))
        if lay.gen_call_id_key and not _key_spec(lay.gen_call_id_key)[0]:
            gen_parser = _id_field_any(p, lay.gen_call_id_key)
            body = p.cat(body, lambda: p.optional(p.cat(gen_parser, p.space, lambda: p.literal(","), p.space)))
        nested_field = p.cat(lambda: p.literal(f'"{prefix}"'), p.space, lambda: p.literal(":"), p.space,
                             nested_object)
        body = p.cat(body, nested_field, p.space, lambda: p.atomic_tag(TOOL_CLOSE, p.literal("}")))
        choices = p.choice([choices, p.rule(f"tool-{name}", p.tag(TOOL, body))])
    return choices


def _flat_keys(p: ChatPeg, tools: Sequence[Mapping[str, Any]], lay: JsonToolLayout, name_key: str,
               args_key: str) -> int:
    choices = p.choice()
    name_key_parser = p.literal(f'"{name_key}"')
    args_key_parser = p.literal(f'"{args_key}"')
    order = list(lay.parameters_order)
    for name, params in _functions(tools):
        tool_name = p.cat(name_key_parser, p.space, lambda: p.literal(":"), p.space,
                          lambda: p.atomic(p.cat(lambda: p.literal('"'),
                                                 lambda: p.atomic_tag(TOOL_NAME, p.literal(name)),
                                                 lambda: p.literal('"'))))
        tool_args = p.cat(args_key_parser, p.space, lambda: p.literal(":"), p.space,
                          lambda: _tool_args(p, name, params))
        id_parser = p.eps()
        if lay.call_id_key:
            id_parser = _id_field_any(p, lay.call_id_key)
        gen_id_parser = p.eps()
        if lay.gen_call_id_key:
            gen_id_parser = _id_field_any(p, lay.gen_call_id_key)
        pairs = [(tool_name, name_key), (tool_args, args_key)]
        if lay.call_id_key:
            pairs.append((p.optional(id_parser), lay.call_id_key))
        if lay.gen_call_id_key:
            pairs.append((p.optional(gen_id_parser), lay.gen_call_id_key))
        # std::sort on at most four pairs is an insertion sort, hence stable
        pairs.sort(key=lambda pair: order.index(pair[1]) if pair[1] in order else len(order))
        type_field = p.eps()
        if lay.accept_openai_wrapper:
            type_field = p.optional(p.cat(lambda: p.literal('"type"'), p.space, lambda: p.literal(":"), p.space,
                                          lambda: p.literal('"function"'), p.space, lambda: p.literal(","),
                                          p.space))
        body = p.cat(lambda: p.atomic_tag(TOOL_OPEN, p.literal("{")), p.space, type_field)
        for i, (parser, _key) in enumerate(pairs):
            body = p.sequence([body, parser])
            if i < len(pairs) - 1:
                body = p.cat(body, p.space, lambda: p.literal(","), p.space)
        body = p.cat(body, p.space, lambda: p.atomic_tag(TOOL_CLOSE, p.literal("}")))
        choices = p.choice([choices, p.rule(f"tool-{name}", p.tag(TOOL, body))])
    return choices


def standard_json_tools(p: ChatPeg, tools: Sequence[Mapping[str, Any]] | None, lay: JsonToolLayout) -> int:
    """The ``tool-call`` trigger rule for JSON tool calls (optional unless forced)."""
    if not tools:
        return p.eps()
    name_key = lay.name_key or "name"
    args_key = lay.args_key or "arguments"
    choices = p.eps()
    if lay.function_is_key:
        choices = _function_is_key(p, tools, lay, args_key)
    elif _key_spec(name_key)[0] or _key_spec(args_key)[0]:
        choices = _nested_keys(p, tools, lay, name_key, args_key)
    else:
        choices = _flat_keys(p, tools, lay, name_key, args_key)
    calls = choices
    if lay.parallel_tool_calls:
        calls = p.cat(calls, lambda: p.zero_or_more(p.cat(p.space, lambda: p.literal(","), p.space, choices)))
    if lay.array_wrapped:
        calls = p.cat(lambda: p.literal("["), p.space, calls, p.space, lambda: p.literal("]"))
    section = p.trigger_rule("tool-call", p.cat(lambda: p.literal(lay.section_start), p.space, calls, p.space,
                                                lambda: p.literal(lay.section_end)))
    return section if lay.force_tool_calls else p.optional(section)
