"""Kimi K2 and Kimi K3 handlers.

Input: the request. Output: llama.cpp's params for the ``kimi-k2`` and ``kimi-k3`` routes.
"""

from __future__ import annotations

from explorer.generator.handlers.common import finish, function_tools
from explorer.generator.json_tools import (
    CONTENT, REASONING, TOOL, TOOL_ARG, TOOL_ARG_CLOSE, TOOL_ARG_NAME, TOOL_ARG_OPEN, TOOL_ARG_STRING_VALUE,
    TOOL_ARG_VALUE, TOOL_ARGS, TOOL_CLOSE, TOOL_ID, TOOL_NAME, TOOL_OPEN, ChatPeg,
)
from explorer.generator.params import GeneratedParams
from explorer.generator.spec import GenerationRequest
from explorer.grammar.gbnf import tool_parameters

K2_SECTION_BEGIN = "<|tool_calls_section_begin|>"
K2_SECTION_END = "<|tool_calls_section_end|>"
K2_CALL_BEGIN = "<|tool_call_begin|>"
K2_ARGS_BEGIN = "<|tool_call_argument_begin|>"
K2_CALL_END = "<|tool_call_end|>"
K2_PRESERVED = (K2_SECTION_BEGIN, K2_SECTION_END, K2_CALL_BEGIN, K2_ARGS_BEGIN, K2_CALL_END, "<think>", "</think>")


def kimi_k2(req: GenerationRequest, source: str) -> GeneratedParams:
    extract = req.reasoning_format != "none"
    has_calls = req.has_tools and req.tool_choice != "none"
    p = ChatPeg()
    end = p.end()
    if extract:
        reasoning = p.optional(p.cat(
            "<think>", lambda: p.tag(REASONING, p.until_one_of(["</think>", K2_SECTION_BEGIN, K2_CALL_BEGIN])),
            lambda: p.optional(p.literal("</think>"))))
    else:
        reasoning = p.eps()
    gen = p.literal("<|im_assistant|>assistant<|im_middle|>")
    if not has_calls:
        root = p.cat(gen, reasoning, lambda: p.tag(CONTENT, p.rest()), end)
    else:
        tool_choice = p.choice()
        for tool in function_tools(req):
            name = tool["function"]["name"]
            schema = tool_parameters(tool["function"])
            tool_id = p.atomic_tag(TOOL_ID, p.cat(
                lambda: p.literal("functions."), lambda: p.atomic_tag(TOOL_NAME, p.literal(name)),
                lambda: p.literal(":"), lambda: p.chars("[0-9]", 1, -1)))
            parser = p.tag(TOOL, p.cat(
                lambda: p.atomic_tag(TOOL_OPEN, p.cat(tool_id, lambda: p.literal(K2_ARGS_BEGIN))),
                lambda: p.tag(TOOL_ARGS, p.schema(p.json(), f"tool-{name}-schema", schema)),
                lambda: p.atomic_tag(TOOL_CLOSE, p.optional(p.literal(K2_CALL_END)))))
            tool_choice = p.choice([tool_choice, p.rule(f"tool-{name}", parser)])
        min_calls = 1 if req.tool_choice == "required" else 0
        max_calls = -1 if req.parallel_tool_calls else 1
        tool_calls = p.rule("tool-calls", p.cat(
            lambda: p.optional(p.literal(K2_SECTION_BEGIN)),
            lambda: p.trigger_rule("tool-call", p.cat(
                lambda: p.repeat(p.cat(K2_CALL_BEGIN, tool_choice), min_calls, max_calls),
                lambda: p.optional(p.literal(K2_SECTION_END))))))
        before = p.tag(CONTENT, p.until_one_of([K2_SECTION_BEGIN, K2_CALL_BEGIN]))
        root = p.cat(gen, reasoning, before, tool_calls, end)
    arena = p.build(root)
    return finish(req, arena, include_grammar=has_calls, lazy=req.tool_choice == "auto",
                  triggers=[("WORD", K2_CALL_BEGIN)], preserved=K2_PRESERVED,
                  thinking=("<think>", ("</think>",)))


SEP = "<|sep|>"
MSG_START = '<|open|>message role="assistant"<|sep|>'
THINK_START, THINK_END = "<|open|>think<|sep|>", "<|close|>think<|sep|>"
RESP_START, RESP_END = "<|open|>response<|sep|>", "<|close|>response<|sep|>"
TOOLS_START, TOOLS_END = "<|open|>tools<|sep|>", "<|close|>tools<|sep|>"
CALL_START, CALL_END = '<|open|>call tool="', "<|close|>call<|sep|>"
ARG_START, ARG_END = '<|open|>argument key="', "<|close|>argument<|sep|>"
MSG_END, EOM_TOKEN = "<|close|>message<|sep|>", "<|end_of_msg|>"


def _k3_args(p: ChatPeg, name: str, schema) -> int:
    args = p.eps()
    props = schema.get("properties") if isinstance(schema, dict) else None
    if isinstance(props, dict) and props:
        arg_choices = p.choice()
        for key, prop in props.items():
            kind = "string"
            if isinstance(prop, dict) and isinstance(prop.get("type"), str):
                kind = prop["type"]
            tag = TOOL_ARG_STRING_VALUE if kind == "string" else TOOL_ARG_VALUE
            value = p.tag(tag, p.until(ARG_END))
            arg = p.tag(TOOL_ARG, p.cat(
                lambda: p.atomic_tag(TOOL_ARG_OPEN, p.literal(ARG_START)),
                lambda k=key: p.atomic_tag(TOOL_ARG_NAME, p.literal(k)), lambda: p.literal('"'),
                lambda: p.until(SEP), lambda: p.literal(SEP), value,
                lambda: p.atomic_tag(TOOL_ARG_CLOSE, p.literal(ARG_END))))
            arg_choices = p.choice([arg_choices, p.rule(f"kimi-k3-arg-{name}-{key}", arg)])
        args = p.zero_or_more(arg_choices)
    return args


def kimi_k3(req: GenerationRequest, source: str) -> GeneratedParams:
    extract = req.reasoning_format != "none"
    has_calls = req.has_tools and req.tool_choice != "none"
    p = ChatPeg()
    end = p.end()
    start = p.optional(p.literal(MSG_START))
    body_tag = REASONING if extract else CONTENT
    think_body = p.tag(body_tag, p.until_one_of([THINK_END, RESP_START]))
    reasoning = p.optional(p.cat(lambda: p.optional(p.literal(THINK_START)), think_body,
                                 lambda: p.optional(p.literal(THINK_END))))
    response = p.cat(lambda: p.optional(p.literal(RESP_START)),
                     lambda: p.tag(CONTENT, p.until_one_of([RESP_END, TOOLS_START, MSG_END])),
                     lambda: p.optional(p.literal(RESP_END)))
    trailer = p.cat(lambda: p.optional(p.literal(MSG_END)), lambda: p.optional(p.literal(EOM_TOKEN)))
    if not has_calls:
        root = p.cat(start, reasoning, response, trailer, end)
    else:
        tool_choices = p.choice()
        for tool in function_tools(req):
            name = tool["function"]["name"]
            args = _k3_args(p, name, tool_parameters(tool["function"]))
            call = p.tag(TOOL, p.cat(
                lambda: p.atomic_tag(TOOL_OPEN, p.cat(
                    lambda: p.literal(CALL_START), lambda: p.atomic_tag(TOOL_NAME, p.literal(name)),
                    lambda: p.literal('"'), lambda: p.until(SEP), lambda: p.literal(SEP))),
                lambda: p.tag(TOOL_ARGS, args),
                lambda: p.atomic_tag(TOOL_CLOSE, p.literal(CALL_END))))
            tool_choices = p.choice([tool_choices, p.rule(f"kimi-k3-tool-{name}", call)])
        section = p.trigger_rule("kimi-k3-tool-call", p.cat(
            lambda: p.literal(TOOLS_START), lambda: p.one_or_more(tool_choices), lambda: p.literal(TOOLS_END),
            lambda: p.optional(p.literal(MSG_END)), lambda: p.optional(p.literal(EOM_TOKEN))))
        tools = section if req.tool_choice == "required" else p.optional(section)
        root = p.cat(start, reasoning, response, tools, trailer, end)
    arena = p.build(root)
    return finish(req, arena, include_grammar=has_calls, lazy=req.tool_choice != "required",
                  triggers=[("WORD", TOOLS_START)], preserved=("<|open|>", "<|close|>", "<|sep|>", "<|end_of_msg|>"),
                  thinking=(THINK_START, (THINK_END,)))
