"""gpt-oss (Harmony) handler: channels, ``to=functions.NAME`` recipients.

Input: the request. Output: llama.cpp's params for this handler.
"""

from __future__ import annotations

from explorer.generator.handlers.common import finish, function_tools, has_json_schema
from explorer.generator.json_tools import CONTENT, REASONING, TOOL, TOOL_ARGS, TOOL_NAME, TOOL_OPEN, ChatPeg
from explorer.generator.params import GeneratedParams
from explorer.generator.spec import GenerationRequest
from explorer.grammar.gbnf import tool_parameters

PRESERVED = ("<|channel|>", "<|constrain|>", "<|message|>", "<|start|>", "<|end|>")
TRIGGERS = (
    ("PATTERN", "^\\s+to$"),
    ("PATTERN", "^<\\|channel\\|>(?:commentary|analysis)\\s+to=functions$"),
    ("PATTERN", "<\\|start\\|>assistant(\\s+to)"),
    ("PATTERN", "<\\|start\\|>assistant(<\\|channel\\|>(?:commentary|analysis)\\s+to)"),
)


def gpt_oss(req: GenerationRequest, source: str) -> GeneratedParams:
    has_tools = req.has_tools
    has_rf = has_json_schema(req)
    include_grammar = has_rf or (has_tools and req.tool_choice != "none")
    extract = req.reasoning_format != "none"
    p = ChatPeg()
    start = p.rule("start", p.literal("<|start|>assistant"))
    end = p.rule("end", p.literal("<|end|>"))
    content = p.rule("message-content", p.until("<|end|>"))
    channel = p.cat(lambda: p.literal("<|channel|>"),
                    lambda: p.alt(lambda: p.literal("commentary"), lambda: p.literal("analysis")))
    constrain_type = p.chars("[A-Za-z0-9_-]", 1, -1)
    stray = p.optional(p.cat(lambda: p.literal("<|channel|>commentary"),
                             lambda: p.optional(p.literal(" to=assistant"))))
    start_analysis = p.cat(stray, lambda: p.literal("<|channel|>analysis<|message|>"))
    if extract:
        p.rule("analysis", p.cat(start_analysis, lambda: p.tag(REASONING, content), end))
    else:
        p.rule("analysis", p.tag(CONTENT, p.cat(start_analysis, content, end)))
    analysis = p.ref("analysis")
    preamble = p.rule("preamble", p.cat(lambda: p.literal("<|channel|>commentary<|message|>"),
                                        lambda: p.tag(CONTENT, content), end))
    final_msg = p.rule("final", p.cat(stray, lambda: p.literal("<|channel|>final<|message|>"),
                                      lambda: p.tag(CONTENT, content)))
    unsolicited = p.rule("unsolicited", p.atomic(p.cat(lambda: p.optional(channel), lambda: p.literal(" to="),
                                                       content, end)))
    any_ = p.rule("any", p.alt(preamble, analysis))

    def constraint() -> int:
        return p.optional(p.cat(p.space, lambda: p.optional(p.literal("<|constrain|>")), constrain_type))

    if has_rf:
        c = constraint()
        response = p.rule("response-format", p.cat(
            lambda: p.literal("<|channel|>final"), c, lambda: p.literal("<|message|>"),
            lambda: p.tag(CONTENT, p.schema(p.json(), "response-format-schema", dict(req.json_schema or {})))))
        root = p.cat(lambda: p.zero_or_more(p.cat(start, analysis)), start, response)
    elif has_tools and req.tool_choice != "none":
        tool_choice = p.choice()
        for tool in function_tools(req):
            name = tool["function"]["name"]
            params = tool_parameters(tool["function"])
            func_name = p.cat(lambda: p.literal(" to=functions."), lambda: p.atomic_tag(TOOL_NAME, p.literal(name)))
            c = constraint()
            args = p.tag(TOOL_ARGS, p.schema(p.json(), f"tool-{name}-schema", params))
            in_role = p.tag(TOOL, p.cat(lambda: p.atomic_tag(TOOL_OPEN, p.cat(
                func_name, channel, c, lambda: p.literal("<|message|>"))), args))
            in_channel = p.tag(TOOL, p.cat(lambda: p.atomic_tag(TOOL_OPEN, p.cat(
                channel, func_name, c, lambda: p.literal("<|message|>"))), args))
            tool_choice = p.choice([tool_choice, p.rule(f"tool-{name}", p.alt(in_role, in_channel))])
        tool_call = p.trigger_rule("tool-call", tool_choice)
        if req.tool_choice == "required":
            root = p.cat(lambda: p.zero_or_more(p.cat(start, any_)), start, tool_call)
        else:
            root = p.cat(lambda: p.zero_or_more(p.cat(start, any_)), start, lambda: p.alt(tool_call, final_msg))
    else:
        root = p.cat(lambda: p.zero_or_more(p.cat(start, any_)), start, lambda: p.alt(final_msg, unsolicited))
    arena = p.build(root)
    lazy = not (has_rf or (has_tools and req.tool_choice == "required"))
    return finish(req, arena, include_grammar=include_grammar, lazy=lazy, triggers=TRIGGERS, preserved=PRESERVED,
                  thinking=("<|channel|>analysis<|message|>", ("<|end|>",)))
