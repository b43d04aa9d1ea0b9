"""DeepSeek V3.2 / V4: DSML tool calls ``<｜DSML｜function_calls|tool_calls>``.

Input: ``GenerationParams``. Output: the ``Handler`` declaration (llama.cpp's
``common/parsers/deepseek.cpp``). V4 (no ``function_calls`` in the source) names the
block ``tool_calls`` and closes a disabled think block with a bare ``</think>``. The V4
tool-result reordering and response_format context are the apply stage's.
"""

from __future__ import annotations

from explorer.grammar.schema import may_be_string
from explorer.handlers.base import (
    Handler, GenerationParams, delimiters, include_tools_or_format, lazy_tools_unless_required, word,
)
from explorer.handlers.peg import HandlerPeg, function_tools, tool_properties

DSML = "｜DSML｜"
THINK_START, THINK_END = "<think>", "</think>"
INVOKE_START, INVOKE_END = f"<{DSML}invoke", f"</{DSML}invoke>"
PARAM_START, PARAM_END = f"<{DSML}parameter", f"</{DSML}parameter>"
GEN_PROMPT = "<｜Assistant｜>"
TC_SEPARATOR = "\n\n"


def is_v4(source: str) -> bool:
    return "function_calls" not in source


def block_markers(source: str) -> tuple[str, str]:
    block = "tool_calls" if is_v4(source) else "function_calls"
    return f"<{DSML}{block}>", f"</{DSML}{block}>"


def _arg(p: HandlerPeg, name: str, param) -> int:
    is_string = may_be_string(param.schema)
    if is_string:
        def value() -> int:
            return p.tool_arg_string_value(p.until(PARAM_END))
    else:
        def value() -> int:
            return p.tool_arg_value(p.schema(p.json(), f"tool-{name}-arg-{param.name}-schema", param.schema))
    flag = "true" if is_string else "false"
    arg = p.tool_arg(p.cat(
        lambda: p.tool_arg_open(p.cat(lambda: p.literal(PARAM_START + ' name="'),
                                      lambda: p.tool_arg_name(p.literal(param.name)),
                                      lambda: p.literal(f'" string="{flag}">'))),
        value, lambda: p.tool_arg_close(p.literal(PARAM_END))))
    return p.rule(f"tool-{name}-arg-{param.name}", arg)


def _invoke(p: HandlerPeg, fn: dict) -> int:
    name = fn["name"]
    required, optional = [], []
    _doc, props = tool_properties(fn)
    for param in props:
        (required if param.required else optional).append(_arg(p, name, param))
    args = p.required_then_optional(required, optional)
    return p.tool(p.cat(
        lambda: p.tool_open(p.cat(lambda: p.literal(INVOKE_START + ' name="'), lambda: p.tool_name(p.literal(name)),
                                  lambda: p.literal('">\n'))),
        args, p.space, lambda: p.tool_close(p.literal(INVOKE_END))))


def build(p: HandlerPeg, i: GenerationParams) -> int:
    v4 = is_v4(i.source)
    fc_start, fc_end = block_markers(i.source)
    generation_prompt = p.literal(GEN_PROMPT)
    end = p.end()
    # the tool-call section is built first: the reasoning may need it
    tool_choice = p.choice()
    if i.wants_tools:
        for tool in function_tools(i.tools):
            tool_choice = p.choice([tool_choice, p.rule(f"tool-{tool['function']['name']}",
                                                        _invoke(p, tool["function"]))])
    p.eps()  # tool_calls' initial value
    tool_calls = p.delimited_tool_calls(fc_start, fc_end, tool_choice, i.parallel_tool_calls)
    reasoning = p.eps()
    reasoning_with_tc = p.eps()
    obligatory = tool_calls
    with_tc = False
    if not i.required:
        tool_calls = p.optional(tool_calls)
    if i.extract_reasoning and i.enable_thinking:
        reasoning = p.optional(p.cat(THINK_START, lambda: p.reasoning(p.until(THINK_END)), THINK_END))
        reasoning_with_tc = p.cat(THINK_START, lambda: p.reasoning(p.until_one_of(
            [TC_SEPARATOR + fc_start, fc_start, THINK_END])), p.space, obligatory)
        with_tc = True
    elif i.extract_reasoning:
        # thinking off: the generation prompt holds <think></think> (V3.2) or </think> (V4)
        if v4:
            reasoning = p.optional(p.literal(THINK_END))
        else:
            reasoning = p.optional(p.cat(lambda: p.literal(THINK_START), lambda: p.until(THINK_END),
                                         lambda: p.literal(THINK_END)))
    if i.has_schema_object:
        return p.cat(generation_prompt, reasoning, p.fenced_json_response(i.schema), end)
    if not i.wants_tools:
        return p.cat(generation_prompt, reasoning, lambda: p.content(p.rest()), end)
    content_before = p.cat(lambda: p.negate(p.literal(THINK_START)),
                           lambda: p.content(p.until_one_of([TC_SEPARATOR + fc_start, fc_start])), p.space)
    if with_tc:
        return p.cat(generation_prompt, lambda: p.alt(reasoning_with_tc, lambda: p.cat(
            reasoning, content_before, tool_calls)), end)
    return p.cat(generation_prompt, reasoning, content_before, tool_calls, end)


def _thinking_end_tags(i: GenerationParams) -> tuple[str, ...]:
    return (THINK_END, block_markers(i.source)[0])


HANDLER = Handler(
    name="deepseek-v3.2/v4",
    build=build,
    include=include_tools_or_format,
    lazy=lazy_tools_unless_required,
    triggers=lambda i: (word(block_markers(i.source)[0]),),
    preserved_tokens=(DSML, THINK_START, THINK_END),
    thinking_start_tag=THINK_START,
    thinking_end_tags=_thinking_end_tags,
    message_delimiters=delimiters(("assistant", GEN_PROMPT), ("user", "<｜User｜>")),
    reference="common/parsers/deepseek.cpp",
)
