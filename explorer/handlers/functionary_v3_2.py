"""Functionary v3.2: ``>>>all\\n{content}`` and ``>>>NAME\\n{json args}`` recipients.

Input: ``GenerationParams``. Output: the ``Handler`` declaration (llama.cpp's
``common/parsers/functionary-v3-2.cpp``). The generation prompt ends with ``>>>``.
"""

from __future__ import annotations

from explorer.grammar.gbnf import tool_parameters
from explorer.handlers.base import Handler, GenerationParams, include_tools, lazy_auto, pattern
from explorer.handlers.peg import HandlerPeg, function_tools


def build(p: HandlerPeg, i: GenerationParams) -> int:
    until_tool = p.cat(lambda: p.literal("all\n"), lambda: p.content(p.until(">>>")))
    until_end = p.cat(lambda: p.literal("all\n"), lambda: p.content(p.rest()))
    generation_prompt = p.literal("<|start_header_id|>assistant<|end_header_id|>\n\n>>>")
    if not i.wants_tools:
        return p.cat(generation_prompt, until_end, p.end)
    tool_choice = p.choice()
    for tool in function_tools(i.tools):
        fn = tool["function"]
        name = fn["name"]
        parser = p.tool(p.cat(
            lambda: p.tool_open(p.cat(lambda: p.tool_name(p.literal(name)), lambda: p.literal("\n"))),
            lambda: p.tool_args(p.schema(p.json(), f"tool-{name}-schema", tool_parameters(fn)))))
        tool_choice = p.choice([tool_choice, p.rule(f"tool-{name}", parser)])
    tools_only = p.trigger_rule("tools", p.one_or_more(tool_choice))
    content_and_tools = p.cat(until_tool, tools_only)
    p.eps()  # ret's initial value
    if i.required:
        if i.parallel_tool_calls:
            ret = p.cat(lambda: p.choice([content_and_tools, tools_only]), p.end)
        else:
            ret = p.cat(lambda: p.choice([p.cat(until_tool, tool_choice), tools_only]), p.end)
    elif i.parallel_tool_calls:
        ret = p.cat(lambda: p.choice([content_and_tools, until_end, tools_only]), p.end)
    else:
        content_and_tool = p.cat(until_tool, tool_choice)
        ret = p.cat(lambda: p.choice([content_and_tool, until_end, tool_choice]), p.end)
    return p.cat(generation_prompt, ret)


HANDLER = Handler(
    name="functionary-v3.2",
    build=build,
    include=include_tools,
    lazy=lazy_auto,
    triggers=(pattern(">>>(?!all)"),),
    preserved_tokens=(">>>all",),
    reference="common/parsers/functionary-v3-2.cpp",
)
