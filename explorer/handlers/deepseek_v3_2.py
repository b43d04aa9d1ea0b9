"""DeepSeek V3.2 / V4: DSML tool calls ``<｜DSML｜function_calls|tool_calls>``.

Input: the template source (routing), the messages and json_schema (prompt) and
``GenerationParams`` (parser). Output: the ``DeepseekV32`` handler class (llama.cpp's
``common/parsers/deepseek.cpp``). V4 (no ``function_calls`` in the source) names the
block ``tool_calls``, closes a disabled think block with a bare ``</think>``, renders
tool results in call order and gets the response format as template context.
"""

from __future__ import annotations

import copy

from explorer.generator.chat_builder import ChatPeg, function_tools, tool_properties
from explorer.generator.params import GrammarTrigger
from explorer.generator.spec import GenerationParams
from explorer.handlers.base import (
    Handler,
    delimiters,
    include_tools_or_format,
    lazy_tools_unless_required,
    word,
)
from explorer.handlers.prompting import ContinuationInputs, JsonSchema, Messages, TaggedTurn, render_content
from explorer.jsontypes import JsonObject
from explorer.schema import may_be_string

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


def _arg(p: ChatPeg, name: str, param) -> int:
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


def _invoke(p: ChatPeg, fn: dict) -> int:
    name = fn["name"]
    required: list[int] = []
    optional: list[int] = []
    _doc, props = tool_properties(fn)
    for param in props:
        (required if param.required else optional).append(_arg(p, name, param))
    args = p.required_then_optional(required, optional)
    return p.tool(p.cat(
        lambda: p.tool_open(p.cat(lambda: p.literal(INVOKE_START + ' name="'), lambda: p.tool_name(p.literal(name)),
                                  lambda: p.literal('">\n'))),
        args, p.space, lambda: p.tool_close(p.literal(INVOKE_END))))


def build(p: ChatPeg, i: GenerationParams) -> int:
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


# --- prompt -----------------------------------------------------------------------------------


def sort_tool_results(messages: Messages, source: str, json_schema: JsonSchema) -> Messages | None:
    """V4 renders a run of tool results in the order of the calls that asked for them
    (matched by id). V3.2 renders them as given (no override)."""
    if not is_v4(source):
        return None
    adjusted = copy.deepcopy(messages)
    call_order: dict[object, int] = {}
    i = 0
    while i < len(adjusted):
        role = adjusted[i].get("role", "")
        calls = adjusted[i].get("tool_calls")
        if role == "assistant" and isinstance(calls, list) and calls:
            # (the parsed request's calls are all objects)
            call_order = {c.get("id", ""): k for k, c in enumerate(calls) if isinstance(c, dict) and c.get("id", "")}
            i += 1
            continue
        if role not in ("user", "tool"):
            i += 1
            continue
        run_end = i
        tool_positions = []
        while run_end < len(adjusted):
            r = adjusted[run_end].get("role", "")
            if r == "tool":
                tool_positions.append(run_end)
            elif r != "user":
                break
            run_end += 1
        if len(tool_positions) > 1 and call_order:
            results = [adjusted[p] for p in tool_positions]
            # unknown ids sort as position 0, as in llama.cpp (stable sort)
            results.sort(key=lambda m: call_order.get(m.get("tool_call_id", ""), 0))
            for p, m in zip(tool_positions, results):
                adjusted[p] = m
        i = run_end
    return adjusted


def response_format_context(source: str, json_schema: JsonSchema) -> JsonObject | None:
    if is_v4(source) and isinstance(json_schema, dict):
        return {"response_format": json_schema}
    return None


def continue_turn(c: ContinuationInputs) -> str:
    if is_v4(c.source) and not c.msg.reasoning_content:
        gen = "<｜Assistant｜></think>"
        return gen + render_content(c.msg) if c.mode == "content" else gen
    return TaggedTurn("<｜Assistant｜>", "<think>", "</think>")(c)


class DeepseekV32(Handler):
    name = "deepseek-v3.2/v4"
    required = ("dsml_token", "DSML")
    any_of = (("function_calls", "tool_calls"),)
    note = "V3.2 names the block function_calls, V4 tool_calls"

    messages_override = staticmethod(sort_tool_results)
    additional_context = staticmethod(response_format_context)
    continuation = staticmethod(continue_turn)

    build = staticmethod(build)
    include = staticmethod(include_tools_or_format)
    lazy = staticmethod(lazy_tools_unless_required)
    preserved_tokens = (DSML, THINK_START, THINK_END)
    thinking_start_tag = THINK_START
    message_delimiters = delimiters(("assistant", GEN_PROMPT), ("user", "<｜User｜>"))
    reference = "common/parsers/deepseek.cpp"
    argument_order = ""  # its parser reads tagged arguments required-first

    @classmethod
    def triggers_for(cls, inputs: GenerationParams) -> tuple[GrammarTrigger, ...]:
        return (word(block_markers(inputs.source)[0]),)

    @classmethod
    def thinking_end_tags_for(cls, inputs: GenerationParams) -> tuple[str, ...]:
        return (THINK_END, block_markers(inputs.source)[0])
