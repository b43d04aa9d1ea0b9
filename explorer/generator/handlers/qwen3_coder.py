"""Qwen3-Coder / Qwen3.5 handler: XML ``<function=...><parameter=...>`` tool calls.

Input: the request and the template source. Output: llama.cpp's params for this handler.
"""

from __future__ import annotations

from explorer.generator.builder import Arena
from explorer.generator.handlers.common import finish, function_tools, parameters
from explorer.generator.json_tools import (
    CONTENT, REASONING, TOOL, TOOL_ARG, TOOL_ARG_CLOSE, TOOL_ARG_NAME, TOOL_ARG_OPEN, TOOL_ARG_STRING_VALUE,
    TOOL_ARG_VALUE, TOOL_ARGS, TOOL_CLOSE, TOOL_NAME, TOOL_OPEN, ChatPeg,
)
from explorer.generator.params import GeneratedParams
from explorer.generator.spec import GenerationRequest
from explorer.grammar.schema import value_types

GEN_PREFIX = "<|im_start|>assistant\n"
ARG_END = "\n</parameter>\n"
MAX_PERMUTE = 6


def permute(p: ChatPeg, prefix: str, parsers: list[int]) -> int:
    """Every parser exactly once, in any order (one rule per remaining subset)."""
    if not parsers:
        return p.eps()
    if len(parsers) == 1 or len(parsers) > MAX_PERMUTE:
        return p.sequence(parsers)
    cache: dict[int, int] = {}

    def remaining_of(remaining: int) -> int:
        if remaining == 0:
            return p.eps()
        if remaining in cache:
            return cache[remaining]
        alternatives = p.choice()
        for i, parser in enumerate(parsers):
            bit = 1 << i
            if remaining & bit:
                rest = remaining_of(remaining & ~bit)
                alternatives = p.choice([alternatives, p.sequence([parser, rest])])
        cache[remaining] = p.rule(f"{prefix}-{remaining}", alternatives)
        return cache[remaining]

    return remaining_of((1 << len(parsers)) - 1)


def _arg_value(p: ChatPeg, rule_name: str, schema, arg_close: int, arg_string: int) -> int:
    types = value_types(schema)
    if "string" not in types:
        return p.cat(lambda: p.tag(TOOL_ARG_VALUE, p.schema(p.json(), f"{rule_name}-schema", schema)), arg_close)
    if types == {"string"}:
        return arg_string
    json_value = p.choice()
    for kind, make in (("object", p.json_object), ("array", p.json_array)):
        if kind in types:
            json_value = p.choice([json_value, make()])
    if "number" in types or "integer" in types:
        json_value = p.choice([json_value, p.json_number()])
    if "boolean" in types:
        json_value = p.choice([json_value, p.json_bool()])
    if "null" in types:
        json_value = p.choice([json_value, p.json_null()])
    # the string alternative accepts any text, so the grammar keeps only the raw string rule
    return p.gbnf(p.alt(lambda: p.atomic(p.cat(lambda: p.tag(TOOL_ARG_VALUE, json_value), arg_close)), arg_string),
                  "xml-arg-string")


def _tool_calls(p: ChatPeg, req: GenerationRequest, is_qwen3_coder: bool) -> int:
    arg_close = p.atomic_tag(TOOL_ARG_CLOSE, p.literal(ARG_END))
    arg_string = p.rule("xml-arg-string", p.ac(p.cat(lambda: p.tag(TOOL_ARG_STRING_VALUE, p.until(ARG_END)),
                                                     arg_close), ARG_END))
    tool_choice = p.choice()
    for tool in function_tools(req):
        name = tool["function"]["name"]
        required: list[int] = []
        optional: list[int] = []
        for param in parameters(tool["function"]):
            rule_name = f"tool-{name}-arg-{param.name}"
            arg_open = p.atomic_tag(TOOL_ARG_OPEN, p.cat(
                "<parameter=", lambda: p.atomic_tag(TOOL_ARG_NAME, p.literal(param.name)), ">\n"))
            p.eps()  # arg_value's initial value
            value = _arg_value(p, rule_name, param.schema, arg_close, arg_string)
            arg_rule = p.rule(rule_name, p.tag(TOOL_ARG, p.sequence([arg_open, value])))
            (required if param.required else optional).append(arg_rule)
        args = permute(p, f"tool-{name}-args", required)
        if optional:
            args = p.cat(args, lambda: p.zero_or_more(p.choice(optional)))
        func = p.tag(TOOL, p.cat(
            lambda: p.atomic_tag(TOOL_OPEN, p.cat("<function=", lambda: p.atomic_tag(TOOL_NAME, p.literal(name)),
                                                  ">\n")),
            lambda: p.tag(TOOL_ARGS, args),
            lambda: p.atomic_tag(TOOL_CLOSE, p.literal("</function>\n"))))
        tool_choice = p.choice([tool_choice, p.rule(f"tool-{name}", func)])
    min_calls = 1 if req.tool_choice == "required" else 0
    body = p.cat(tool_choice, "</tool_call>", p.space)
    tool_call = p.rule("tool-call", p.cat("<tool_call>\n", body))
    first = tool_call
    if is_qwen3_coder:
        first = p.rule("tool-call-first", p.cat(lambda: p.optional(p.literal("<tool_call>\n")), body))
    calls = p.cat(first, lambda: p.zero_or_more(tool_call)) if req.parallel_tool_calls else first
    return p.trigger_rule("tool-call-root", p.repeat(calls, min_calls, 1))


def qwen3_coder(req: GenerationRequest, source: str) -> GeneratedParams:
    supports_reasoning = "<think>" in source
    preserved = ["<tool_call>", "</tool_call>"] + (["<think>", "</think>"] if supports_reasoning else [])
    is_qwen3_coder = not supports_reasoning
    has_tools = req.has_tools
    has_rf = req.has_response_format
    extract = req.reasoning_format != "none"
    include_grammar = has_rf or (has_tools and req.tool_choice != "none")
    starts = ["<tool_call>"]
    if is_qwen3_coder:
        starts += [f"<function={t['function']['name']}>" for t in function_tools(req)]
    p = ChatPeg()
    gen = p.literal(GEN_PREFIX)
    reasoning = p.eps()
    if supports_reasoning and extract:
        reasoning = p.optional(p.cat(
            "<think>", p.space, lambda: p.tag(REASONING, p.until_one_of(["</think>", "<tool_call>"])),
            lambda: p.alt(lambda: p.literal("</think>"), lambda: p.peek(p.literal("<tool_call>")))))
    if has_rf:
        root = p.cat(gen, lambda: p.shl(reasoning, lambda: p.tag(CONTENT, p.schema(
            p.json(), "response-format", dict(req.json_schema or {})))))
    elif has_tools and req.tool_choice != "none":
        calls = _tool_calls(p, req, is_qwen3_coder)
        root = p.cat(gen, lambda: p.shl(reasoning, lambda: p.tag(CONTENT, p.until_one_of(starts)), calls))
    else:
        root = p.cat(gen, lambda: p.shl(reasoning, lambda: p.tag(CONTENT, p.rest())))
    arena: Arena = p.build(root)
    lazy = has_tools and req.tool_choice == "auto"
    return finish(req, arena, include_grammar=include_grammar, lazy=lazy,
                  triggers=[("WORD", s) for s in starts] if lazy else (), preserved=preserved,
                  thinking=("<think>", ("\n</think>", "</think>", "<tool_call>")) if supports_reasoning else None)
