"""Ministral 3 / Magistral handler: ``[THINK]`` reasoning, ``[TOOL_CALLS]name[ARGS]{...}``.

Input: the request. Output: llama.cpp's params for this handler.
"""

from __future__ import annotations

from explorer.generator.handlers.common import finish, function_tools
from explorer.generator.json_tools import CONTENT, REASONING, TOOL_ARGS, TOOL_NAME, TOOL_OPEN, ChatPeg
from explorer.generator.params import GeneratedParams
from explorer.generator.spec import GenerationRequest
from explorer.grammar.gbnf import tool_parameters

PRESERVED = ("[THINK]", "[/THINK]", "[TOOL_CALLS]", "[ARGS]")


def ministral3(req: GenerationRequest, source: str) -> GeneratedParams:
    has_tools = req.has_tools
    extract = req.reasoning_format != "none"
    include_grammar = True
    p = ChatPeg()
    gen = p.eps()
    if extract:
        reasoning = p.optional(p.cat("[THINK]", lambda: p.tag(REASONING, p.until("[/THINK]")), "[/THINK]"))
    else:
        reasoning = p.eps()
    if req.has_response_format:
        root = p.cat(gen, lambda: p.shl(reasoning, "```json", lambda: p.tag(CONTENT, p.schema(
            p.json(), "response-format", dict(req.json_schema or {}))), "```"))
    elif has_tools and req.tool_choice != "none":
        tool_choice = p.choice()
        for tool in function_tools(req):
            name = tool["function"]["name"]
            schema = tool_parameters(tool["function"])
            body = p.cat(
                lambda: p.atomic_tag(TOOL_OPEN, p.cat(lambda: p.atomic_tag(TOOL_NAME, p.literal(name)), "[ARGS]")),
                lambda: p.tag(TOOL_ARGS, p.schema(p.json(), f"tool-{name}-schema", schema)))
            tool_choice = p.choice([tool_choice, p.rule(f"tool-{name}", body)])
        min_calls = 1 if req.tool_choice == "required" else 0
        max_calls = -1 if req.parallel_tool_calls else 1
        calls = p.trigger_rule("tool-call", p.repeat(p.cat("[TOOL_CALLS]", tool_choice), min_calls, max_calls))
        root = p.cat(gen, lambda: p.shl(reasoning, lambda: p.tag(CONTENT, p.until("[TOOL_CALLS]")), calls))
    else:
        include_grammar = False
        root = p.cat(gen, lambda: p.shl(reasoning, lambda: p.tag(CONTENT, p.rest())))
    arena = p.build(root)
    lazy = has_tools and req.tool_choice == "auto"
    return finish(req, arena, include_grammar=include_grammar, lazy=lazy, triggers=[("WORD", "[TOOL_CALLS]")],
                  preserved=PRESERVED, thinking=("[THINK]", ("[/THINK]",)))
