"""GigaChat V3 and Functionary v3.2 handlers (JSON arguments after a name marker).

Input: the request. Output: llama.cpp's params for the ``gigachat-v3`` and
``functionary-v3.2`` routes.
"""

from __future__ import annotations

from explorer.generator.handlers.common import finish, function_tools
from explorer.generator.json_tools import CONTENT, TOOL, TOOL_ARGS, TOOL_NAME, TOOL_OPEN, ChatPeg
from explorer.generator.params import GeneratedParams
from explorer.generator.spec import GenerationRequest
from explorer.grammar.gbnf import tool_parameters

GIGACHAT_CALL_PREFIX = "<|message_sep|>\n\nfunction call<|role_sep|>\n"


def json_member(p: ChatPeg, key: str, value: int) -> int:
    ws = p.space()
    return p.sequence([p.literal(f'"{key}"'), ws, p.literal(":"), ws, value])


def gigachat_v3(req: GenerationRequest, source: str) -> GeneratedParams:
    include_grammar = req.has_tools and req.tool_choice != "none"
    p = ChatPeg()
    ret = p.eps()
    if include_grammar:
        tool_choice = p.choice()
        for tool in req.tools or []:
            name = tool["function"]["name"]
            schema = tool_parameters(tool["function"])
            tool_name = json_member(p, "name", p.cat('"', lambda: p.atomic_tag(TOOL_NAME, p.literal(name)), '"'))
            tool_args = json_member(p, "arguments", p.tag(TOOL_ARGS, p.schema(p.json(), f"tool-{name}-schema", schema)))
            tool_open = p.atomic_tag(TOOL_OPEN, p.shl(lambda: p.literal("{"), tool_name))
            tool_choice = p.choice([tool_choice, p.rule(f"tool-{name}", p.shl(tool_open, ",", tool_args, "}"))])
        min_calls = 1 if req.tool_choice == "required" else 0
        tool_call = p.rule("tool-call", p.cat(lambda: p.literal(GIGACHAT_CALL_PREFIX), tool_choice))
        tool_calls = p.trigger_rule("tool-call-root", p.repeat(tool_call, min_calls, 1))
        ret = p.shl(lambda: p.tag(CONTENT, p.until("<|message_sep|>\n\n")), tool_calls)
    else:
        ret = p.tag(CONTENT, p.rest())
    root = p.cat(lambda: p.literal("assistant<|role_sep|>\n"), ret)
    arena = p.build(root)
    return finish(req, arena, include_grammar=include_grammar, lazy=req.has_tools and req.tool_choice == "auto",
                  triggers=[("WORD", GIGACHAT_CALL_PREFIX)], preserved=("<|message_sep|>\n\n", "<|role_sep|>\n"))


def functionary_v3_2(req: GenerationRequest, source: str) -> GeneratedParams:
    has_calls = req.has_tools and req.tool_choice != "none"
    p = ChatPeg()
    until_tool = p.cat(lambda: p.literal("all\n"), lambda: p.tag(CONTENT, p.until(">>>")))
    until_end = p.cat(lambda: p.literal("all\n"), lambda: p.tag(CONTENT, p.rest()))
    gen = p.literal("<|start_header_id|>assistant<|end_header_id|>\n\n>>>")
    if not has_calls:
        root = p.cat(gen, until_end, p.end)
    else:
        tool_choice = p.choice()
        for tool in function_tools(req):
            name = tool["function"]["name"]
            schema = tool_parameters(tool["function"])
            parser = p.tag(TOOL, p.cat(
                lambda: p.atomic_tag(TOOL_OPEN, p.cat(lambda: p.atomic_tag(TOOL_NAME, p.literal(name)),
                                                      lambda: p.literal("\n"))),
                lambda: p.tag(TOOL_ARGS, p.schema(p.json(), f"tool-{name}-schema", schema))))
            tool_choice = p.choice([tool_choice, p.rule(f"tool-{name}", parser)])
        tools_only = p.trigger_rule("tools", p.one_or_more(tool_choice))
        content_and_tools = p.sequence([until_tool, tools_only])
        p.eps()  # ret's initial value
        if req.tool_choice == "required":
            if req.parallel_tool_calls:
                ret = p.cat(lambda: p.choice([content_and_tools, tools_only]), p.end)
            else:
                ret = p.cat(lambda: p.choice([p.sequence([until_tool, tool_choice]), tools_only]), p.end)
        elif req.parallel_tool_calls:
            ret = p.cat(lambda: p.choice([content_and_tools, until_end, tools_only]), p.end)
        else:
            content_and_tool = p.sequence([until_tool, tool_choice])
            ret = p.cat(lambda: p.choice([content_and_tool, until_end, tool_choice]), p.end)
        root = p.sequence([gen, ret])
    arena = p.build(root)
    return finish(req, arena, include_grammar=has_calls, lazy=req.tool_choice == "auto",
                  triggers=[("PATTERN", ">>>(?!all)")], preserved=(">>>all",))
