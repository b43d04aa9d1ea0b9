"""DeepSeek V3.2 / V4 handler: DSML ``<｜DSML｜invoke name="...">`` tool calls.

Input: the request (its enable_thinking matters here) and the template source (V4 has no
``function_calls``). Output: llama.cpp's params for this handler.
"""

from __future__ import annotations

from explorer.generator.handlers.common import finish, function_tools, has_json_schema, parameters
from explorer.generator.json_tools import (
    CONTENT, REASONING, TOOL, TOOL_ARG, TOOL_ARG_CLOSE, TOOL_ARG_NAME, TOOL_ARG_OPEN, TOOL_ARG_STRING_VALUE,
    TOOL_ARG_VALUE, TOOL_CLOSE, TOOL_NAME, TOOL_OPEN, ChatPeg,
)
from explorer.generator.params import GeneratedParams
from explorer.generator.spec import GenerationRequest
from explorer.grammar.schema import may_be_string

DSML = "｜DSML｜"
THINK_START, THINK_END = "<think>", "</think>"
GEN_PROMPT = "<｜Assistant｜>"
TC_SEPARATOR = "\n\n"


def _tool(p: ChatPeg, name: str, function) -> int:
    param_start, param_end = f"<{DSML}parameter", f"</{DSML}parameter>"
    required: list[int] = []
    optional: list[int] = []
    for param in parameters(function):
        is_string = may_be_string(param.schema)

        def value(param=param, is_string=is_string) -> int:
            if is_string:
                return p.tag(TOOL_ARG_STRING_VALUE, p.until(param_end))
            return p.tag(TOOL_ARG_VALUE, p.schema(p.json(), f"tool-{name}-arg-{param.name}-schema", param.schema))

        arg = p.tag(TOOL_ARG, p.cat(
            lambda: p.atomic_tag(TOOL_ARG_OPEN, p.cat(
                lambda: p.literal(param_start + ' name="'),
                lambda: p.atomic_tag(TOOL_ARG_NAME, p.literal(param.name)),
                lambda: p.literal('" string="' + ("true" if is_string else "false") + '">'))),
            value,
            lambda: p.atomic_tag(TOOL_ARG_CLOSE, p.literal(param_end))))
        named = p.rule(f"tool-{name}-arg-{param.name}", arg)
        (required if param.required else optional).append(named)
    args_seq = p.eps()
    for i, req in enumerate(required):
        if i > 0:
            args_seq = p.cat(args_seq, p.space)
        args_seq = p.sequence([args_seq, req])
    if optional:
        any_opt = p.choice()
        for opt in optional:
            any_opt = p.choice([any_opt, opt])
        args_seq = p.cat(args_seq, lambda: p.repeat(p.cat(p.space, any_opt), 0, -1))
    return p.tag(TOOL, p.cat(
        lambda: p.atomic_tag(TOOL_OPEN, p.cat(lambda: p.literal(f'<{DSML}invoke name="'),
                                              lambda: p.atomic_tag(TOOL_NAME, p.literal(name)),
                                              lambda: p.literal('">\n'))),
        args_seq, p.space, lambda: p.atomic_tag(TOOL_CLOSE, p.literal(f"</{DSML}invoke>"))))


def deepseek_v3_2(req: GenerationRequest, source: str) -> GeneratedParams:
    is_v4 = "function_calls" not in source
    has_tools = req.has_tools
    has_rf = has_json_schema(req)
    extract = req.reasoning_format != "none"
    include_grammar = has_rf or (has_tools and req.tool_choice != "none")
    block = "tool_calls" if is_v4 else "function_calls"
    fc_start, fc_end = f"<{DSML}{block}>", f"</{DSML}{block}>"
    require_tools = req.tool_choice == "required"
    has_calls = has_tools and req.tool_choice != "none"
    p = ChatPeg()
    gen = p.literal(GEN_PROMPT)
    end = p.end()
    tool_choice = p.choice()
    if has_calls:
        for tool in function_tools(req):
            name = tool["function"]["name"]
            func = _tool(p, name, tool["function"])
            tool_choice = p.choice([tool_choice, p.rule(f"tool-{name}", func)])
    p.eps()  # tool_calls' initial value
    if req.parallel_tool_calls:
        tool_calls = p.trigger_rule("tool-call", p.cat(
            lambda: p.literal(fc_start), p.space, tool_choice, lambda: p.zero_or_more(p.cat(p.space, tool_choice)),
            p.space, lambda: p.literal(fc_end)))
    else:
        tool_calls = p.trigger_rule("tool-call", p.cat(lambda: p.literal(fc_start), p.space, tool_choice, p.space,
                                                       lambda: p.literal(fc_end)))
    reasoning = p.eps()
    reasoning_with_tc = p.eps()
    obligatory = tool_calls
    allow_reasoning_with_tc = False
    if not require_tools:
        tool_calls = p.optional(tool_calls)
    if extract and req.enable_thinking:
        reasoning = p.optional(p.cat(THINK_START, lambda: p.tag(REASONING, p.until(THINK_END)), THINK_END))
        reasoning_with_tc = p.cat(
            THINK_START, lambda: p.tag(REASONING, p.until_one_of([TC_SEPARATOR + fc_start, fc_start, THINK_END])),
            p.space, obligatory)
        allow_reasoning_with_tc = True
    elif extract:
        # thinking off: the generation prompt's empty <think></think> (V3.2) or bare </think> (V4)
        if is_v4:
            reasoning = p.optional(p.literal(THINK_END))
        else:
            reasoning = p.optional(p.cat(lambda: p.literal(THINK_START), lambda: p.until(THINK_END),
                                         lambda: p.literal(THINK_END)))
    if has_rf:
        response = p.rule("response-format", p.cat(
            lambda: p.literal("```json"), p.space,
            lambda: p.tag(CONTENT, p.schema(p.json(), "response-format-schema", dict(req.json_schema or {}))),
            p.space, lambda: p.literal("```")))
        root = p.cat(gen, reasoning, response, end)
    elif not has_calls:
        root = p.cat(gen, reasoning, lambda: p.tag(CONTENT, p.rest()), end)
    else:
        before = p.cat(lambda: p.negate(p.literal(THINK_START)),
                       lambda: p.tag(CONTENT, p.until_one_of([TC_SEPARATOR + fc_start, fc_start])), p.space)
        if allow_reasoning_with_tc:
            root = p.cat(gen, lambda: p.alt(reasoning_with_tc, lambda: p.cat(reasoning, before, tool_calls)), end)
        else:
            root = p.cat(gen, reasoning, before, tool_calls, end)
    arena = p.build(root)
    return finish(req, arena, include_grammar=include_grammar, lazy=has_tools and not require_tools,
                  triggers=[("WORD", fc_start)], preserved=(DSML, THINK_START, THINK_END),
                  thinking=(THINK_START, (THINK_END, fc_start)))
