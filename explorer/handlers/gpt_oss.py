"""GPT-OSS (harmony): ``<|start|>assistant<|channel|>analysis|commentary|final<|message|>``.

Input: ``GenerationParams``. Output: the ``Handler`` declaration (llama.cpp's
``common/parsers/gpt-oss.cpp``). Tool calls name their recipient either in the role
header or in the channel header; grammar triggers are regex patterns.
"""

from __future__ import annotations

from explorer.grammar.gbnf import tool_parameters
from explorer.handlers.base import (
    Handler, GenerationParams, delimiters, include_tools_or_format, lazy_unless_forced, pattern,
)
from explorer.handlers.peg import HandlerPeg, function_tools


def build(p: HandlerPeg, i: GenerationParams) -> int:
    start = p.rule("start", p.literal("<|start|>assistant"))
    end = p.rule("end", p.literal("<|end|>"))
    content = p.rule("message-content", p.until("<|end|>"))
    channel = p.cat(lambda: p.literal("<|channel|>"),
                    lambda: p.alt(lambda: p.literal("commentary"), lambda: p.literal("analysis")))
    constrain_type = p.chars("[A-Za-z0-9_-]", 1, -1)
    # gpt-oss-20b sometimes puts a stray commentary channel first
    stray = p.optional(p.cat(lambda: p.literal("<|channel|>commentary"),
                             lambda: p.optional(p.literal(" to=assistant"))))
    start_analysis = p.cat(stray, lambda: p.literal("<|channel|>analysis<|message|>"))
    if i.extract_reasoning:
        p.rule("analysis", p.cat(start_analysis, lambda: p.reasoning(content), end))
    else:
        p.rule("analysis", p.content(p.cat(start_analysis, content, end)))
    analysis = p.ref("analysis")
    preamble = p.rule("preamble", p.cat(lambda: p.literal("<|channel|>commentary<|message|>"),
                                        lambda: p.content(content), end))
    final_msg = p.rule("final", p.cat(stray, lambda: p.literal("<|channel|>final<|message|>"),
                                      lambda: p.content(content)))
    unsolicited = p.rule("unsolicited", p.atomic(p.cat(lambda: p.optional(channel), lambda: p.literal(" to="),
                                                       content, end)))
    any_ = p.rule("any", p.alt(preamble, analysis))

    def constraint() -> int:
        return p.optional(p.cat(p.space, lambda: p.optional(p.literal("<|constrain|>")), constrain_type))

    if i.has_schema_object:
        cons = constraint()
        response_format = p.rule("response-format", p.cat(
            lambda: p.literal("<|channel|>final"), cons, lambda: p.literal("<|message|>"),
            lambda: p.content(p.schema(p.json(), "response-format-schema", i.schema))))
        return p.cat(lambda: p.zero_or_more(p.cat(start, analysis)), start, response_format)
    if i.wants_tools:
        tool_choice = p.choice()
        for tool in function_tools(i.tools):
            fn = tool["function"]
            name = fn["name"]
            func_name = p.cat(lambda: p.literal(" to=functions."), lambda: p.tool_name(p.literal(name)))
            cons = constraint()
            args = p.tool_args(p.schema(p.json(), f"tool-{name}-schema", tool_parameters(fn)))
            in_role = p.tool(p.cat(lambda: p.tool_open(p.cat(func_name, channel, cons,
                                                             lambda: p.literal("<|message|>"))), args))
            in_channel = p.tool(p.cat(lambda: p.tool_open(p.cat(channel, func_name, cons,
                                                                lambda: p.literal("<|message|>"))), args))
            tool_choice = p.choice([tool_choice, p.rule(f"tool-{name}", p.alt(in_role, in_channel))])
        tool_call = p.trigger_rule("tool-call", tool_choice)
        if i.required:
            return p.cat(lambda: p.zero_or_more(p.cat(start, any_)), start, tool_call)
        return p.cat(lambda: p.zero_or_more(p.cat(start, any_)), start, lambda: p.alt(tool_call, final_msg))
    return p.cat(lambda: p.zero_or_more(p.cat(start, any_)), start, lambda: p.alt(final_msg, unsolicited))


HANDLER = Handler(
    name="gpt-oss",
    build=build,
    include=include_tools_or_format,
    lazy=lazy_unless_forced,
    triggers=(
        pattern("^\\s+to$"),
        pattern("^<\\|channel\\|>(?:commentary|analysis)\\s+to=functions$"),
        pattern("<\\|start\\|>assistant(\\s+to)"),
        pattern("<\\|start\\|>assistant(<\\|channel\\|>(?:commentary|analysis)\\s+to)"),
    ),
    preserved_tokens=("<|channel|>", "<|constrain|>", "<|message|>", "<|start|>", "<|end|>"),
    thinking_start_tag="<|channel|>analysis<|message|>",
    thinking_end_tags=("<|end|>",),
    message_delimiters=delimiters(("assistant", "<|start|>assistant"), ("user", "<|start|>user"),
                                  ("system", "<|start|>developer"), ("system", "<|start|>system"),
                                  ("tool", "<|start|>functions")),
    reference="common/parsers/gpt-oss.cpp",
)
