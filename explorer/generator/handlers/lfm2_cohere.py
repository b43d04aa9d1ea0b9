"""LFM2 / LFM2.5 (Python-style calls) and Cohere2 MoE (JSON actions) handlers.

Input: the request and the template source. Output: llama.cpp's params for the ``lfm2``,
``lfm2.5`` and ``cohere2moe`` routes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from explorer.generator.handlers.common import finish, has_json_schema
from explorer.generator.json_tools import (
    CONTENT, REASONING, TOOL, TOOL_ARG, TOOL_ARG_CLOSE, TOOL_ARG_NAME, TOOL_ARG_OPEN, TOOL_ARG_VALUE, TOOL_ARGS,
    TOOL_CLOSE, TOOL_NAME, TOOL_OPEN, ChatPeg, JsonToolLayout, standard_json_tools,
)
from explorer.generator.params import GeneratedParams
from explorer.generator.spec import GenerationRequest
from explorer.grammar.gbnf import tool_parameters


def _quoted(p: ChatPeg, name: str, quote: str) -> int:
    return p.rule_fn(name, lambda: p.sequence([p.literal(quote), p.string_content(quote), p.literal(quote)]))


def python_string(p: ChatPeg) -> int:
    return p.rule_fn("python-string", lambda: p.choice([
        _quoted(p, "double-quoted-string", '"'), _quoted(p, "single-quoted-string", "'")]))


def python_or_json_value(p: ChatPeg) -> int:
    def build() -> int:
        ws = p.space()
        value = python_or_json_value(p)
        member = p.sequence([python_string(p), ws, p.literal(":"), ws, value])
        members = p.sequence([member, p.zero_or_more(p.sequence([ws, p.literal(","), ws, member]))])
        dict_ = p.rule_fn("python-or-json-dict", lambda: p.sequence([
            p.literal("{"), ws, p.choice([p.literal("}"), p.sequence([members, ws, p.literal("}")])]), ws]))
        elements = p.sequence([value, p.zero_or_more(p.sequence([p.literal(","), ws, value]))])
        array = p.rule_fn("python-or-json-array", lambda: p.sequence([
            p.literal("["), ws, p.choice([p.literal("]"), p.sequence([elements, ws, p.literal("]")])]), ws]))
        return p.choice([
            dict_, array, python_string(p), p.json_number(),
            p.rule_fn("python-bool", lambda: p.choice([p.literal("True"), p.literal("False")])),
            p.rule_fn("python-none", lambda: p.literal("None")),
            p.json_bool(), p.json_null(),
        ])
    return p.rule_fn("python-or-json-value", build)


def python_style_tool_calls(p: ChatPeg, tools: Sequence[Mapping[str, Any]] | None, parallel: bool) -> int:
    """``[name(arg="value", n=1), ...]`` with JSON literals allowed (the only use, LFM2)."""
    if not tools:
        return p.eps()
    choices = p.choice()
    for tool in tools:
        if "function" not in tool:
            continue
        name = tool["function"]["name"]
        params = tool_parameters(tool["function"])
        args = p.eps()
        props = params.get("properties") if isinstance(params, dict) else None
        if isinstance(props, dict) and props:
            arg_choice = p.choice()
            for prop_name, prop_def in props.items():
                is_string = isinstance(prop_def, dict) and prop_def.get("type") == "string"
                name_parser = p.literal(prop_name)
                p.eps()  # arg_value_parser's initial value
                string_value = p.tag(TOOL_ARG_VALUE, p.choice([
                    p.cat(lambda: p.literal('"'), lambda: p.string_content('"'), lambda: p.literal('"')),
                    p.cat(lambda: p.literal("'"), lambda: p.string_content("'"), lambda: p.literal("'")),
                ]))
                value = string_value if is_string else p.tag(TOOL_ARG_VALUE, python_or_json_value(p))
                arg = p.tag(TOOL_ARG, p.cat(
                    lambda n=name_parser: p.atomic_tag(TOOL_ARG_OPEN, p.cat(lambda: p.atomic_tag(TOOL_ARG_NAME, n),
                                                                             lambda: p.literal("="))),
                    value, lambda: p.atomic_tag(TOOL_ARG_CLOSE, p.eps())))
                arg_choice = p.choice([arg_choice, arg])
            args = p.cat(arg_choice, lambda: p.zero_or_more(p.cat(",", p.space, arg_choice)))
        parser = p.tag(TOOL, p.cat(
            lambda: p.atomic_tag(TOOL_OPEN, p.cat(lambda: p.atomic_tag(TOOL_NAME, p.literal(name)),
                                                  lambda: p.literal("("))),
            p.space, lambda: p.tag(TOOL_ARGS, args), p.space, lambda: p.atomic_tag(TOOL_CLOSE, p.literal(")"))))
        choices = p.choice([choices, p.rule(f"tool-{name}", parser)])
    if parallel:
        return p.cat("[", p.space, choices, lambda: p.zero_or_more(p.cat(",", p.space, choices)), p.space, "]")
    return p.cat("[", p.space, choices, p.space, "]")


def _lfm2(req: GenerationRequest, source: str, tool_list_tokens: bool) -> GeneratedParams:
    tcs, tce = "<|tool_call_start|>", "<|tool_call_end|>"
    preserved = [tcs, tce, "<think>", "</think>"] + (["<|tool_list_start|>", "<|tool_list_end|>"]
                                                     if tool_list_tokens else [])
    has_tools = req.has_tools
    has_rf = has_json_schema(req)
    extract = req.reasoning_format != "none" and "<think>" in source
    include_grammar = has_rf or (has_tools and req.tool_choice != "none")
    p = ChatPeg()
    gen = p.literal("<|im_start|>assistant\n")
    end = p.end()
    reasoning = p.eps()
    if extract:
        reasoning = p.optional(p.cat("<think>", lambda: p.tag(REASONING, p.until("</think>")), "</think>"))
    if not has_tools or req.tool_choice == "none":
        if has_rf:
            response = p.tag(CONTENT, p.schema(p.json(), "response-format-schema", dict(req.json_schema or {})))
            root = p.cat(gen, reasoning, response, end)
        else:
            root = p.cat(gen, reasoning, lambda: p.tag(CONTENT, p.rest()), end)
    else:
        tool_calls = p.rule("tool-calls", p.trigger_rule("tool-call", p.cat(
            lambda: p.literal(tcs), lambda: python_style_tool_calls(p, req.tools, req.parallel_tool_calls),
            lambda: p.literal(tce))))
        content = p.tag(CONTENT, p.until(tcs))
        root = p.cat(gen, reasoning, content, tool_calls, end)
    arena = p.build(root)
    lazy = not (has_rf or (has_tools and req.tool_choice == "required"))
    return finish(req, arena, include_grammar=include_grammar, lazy=lazy, triggers=[("WORD", tcs)],
                  preserved=preserved, thinking=("<think>", ("</think>",)))


def lfm2(req: GenerationRequest, source: str) -> GeneratedParams:
    return _lfm2(req, source, True)


def lfm2_5(req: GenerationRequest, source: str) -> GeneratedParams:
    return _lfm2(req, source, False)


COHERE = {
    "turn_start": "<|START_OF_TURN_TOKEN|>", "turn_end": "<|END_OF_TURN_TOKEN|>", "chatbot": "<|CHATBOT_TOKEN|>",
    "user": "<|USER_TOKEN|>", "system": "<|SYSTEM_TOKEN|>", "think_start": "<|START_THINKING|>",
    "think_end": "<|END_THINKING|>", "text_start": "<|START_TEXT|>", "text_end": "<|END_TEXT|>",
    "action_start": "<|START_ACTION|>", "action_end": "<|END_ACTION|>", "result_start": "<|START_TOOL_RESULT|>",
    "result_end": "<|END_TOOL_RESULT|>",
}


def cohere2moe(req: GenerationRequest, source: str) -> GeneratedParams:
    c = COHERE
    has_tools = req.has_tools
    has_rf = req.has_response_format
    extract = req.reasoning_format != "none"
    include_grammar = has_rf or (has_tools and req.tool_choice != "none")
    stops = [c["think_end"], c["text_start"], c["action_start"]]
    p = ChatPeg()
    gen = p.literal(c["turn_start"] + c["chatbot"])
    end = p.end()
    reasoning = p.eps()
    if extract:
        reasoning = p.optional(p.cat(lambda: p.literal(c["think_start"]),
                                     lambda: p.tag(REASONING, p.until_one_of(stops)),
                                     lambda: p.optional(p.literal(c["think_end"]))))
    else:
        reasoning = p.optional(p.tag(CONTENT, p.cat(lambda: p.literal(c["think_start"]),
                                                    lambda: p.until_one_of(stops),
                                                    lambda: p.optional(p.literal(c["think_end"])))))
    if has_rf:
        text = p.cat(lambda: p.literal(c["text_start"]),
                     lambda: p.tag(CONTENT, p.schema(p.json(), "response-format-schema", dict(req.json_schema or {}))),
                     lambda: p.optional(p.literal(c["text_end"])))
    else:
        text = p.cat(lambda: p.literal(c["text_start"]), lambda: p.tag(CONTENT, p.until(c["text_end"])),
                     lambda: p.optional(p.literal(c["text_end"])))
    if not has_tools or req.tool_choice == "none":
        root = p.cat(gen, reasoning, text, lambda: p.optional(p.literal(c["turn_end"])), end)
    else:
        calls = standard_json_tools(p, req.tools, JsonToolLayout(
            c["action_start"], c["action_end"], req.parallel_tool_calls, True, "tool_name", "parameters", True,
            False, "", "tool_call_id", ("tool_call_id", "tool_name", "parameters")))
        body = calls if req.tool_choice == "required" else p.choice([calls, text])
        root = p.cat(gen, reasoning, body, lambda: p.optional(p.literal(c["turn_end"])), end)
    arena = p.build(root)
    return finish(req, arena, include_grammar=include_grammar, lazy=not has_rf and req.tool_choice == "auto",
                  triggers=[("WORD", c["action_start"])],
                  preserved=[c[k] for k in ("turn_start", "turn_end", "chatbot", "user", "system", "think_start",
                                            "think_end", "text_start", "text_end", "action_start", "action_end",
                                            "result_start", "result_end")],
                  thinking=(c["think_start"], (c["think_end"],)))
