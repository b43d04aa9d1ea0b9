"""Analysis + request -> PEG arena, as llama.cpp's autoparser ``build_parser`` builds it.

Input: a ``TemplateAnalysis`` and a ``GenerationParams``. Output: the built
``Arena``: reasoning, content and tool-call parsers composed in llama.cpp's order, with
the generation prompt's text before the reasoning start marker as a leading literal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from explorer.analysis.diff import trim_whitespace
from explorer.analysis.model import TemplateAnalysis
from explorer.errors import AnalysisError
from explorer.generator.chat_builder import (
    CONTENT,
    REASONING,
    TOOL_ARG,
    TOOL_ARG_CLOSE,
    TOOL_ARG_NAME,
    TOOL_ARG_OPEN,
    TOOL_ARG_STRING_VALUE,
    TOOL_ARG_VALUE,
    TOOL_ARGS,
    TOOL_CLOSE,
    TOOL_ID,
    TOOL_NAME,
    TOOL_OPEN,
    ChatPeg,
    function_tools,
)
from explorer.generator.json_tools import JsonToolLayout, standard_json_tools
from explorer.generator.spec import GenerationParams
from explorer.grammar.gbnf import tool_parameters
from explorer.peg.arena import Arena
from explorer.schema import ObjectSchema, may_be_string, schema_from_json


@dataclass
class _Context:
    p: ChatPeg
    spec: TemplateAnalysis
    req: GenerationParams
    reasoning_parser: int
    extracting_reasoning: bool = False


def build_reasoning(ctx: _Context) -> int:
    p, r = ctx.p, ctx.spec.reasoning
    if not ctx.extracting_reasoning:
        return p.eps()
    if r.mode in ("TAG_BASED", "TOOLS_ONLY") and r.end:
        end = trim_whitespace(r.end)
        if r.start:
            return p.optional(p.cat(lambda: p.optspace(r.start), lambda: p.tag(REASONING, p.until(end)),
                                    lambda: p.optspace(r.end)))
        return p.optional(p.cat(lambda: p.tag(REASONING, p.until(end)), lambda: p.optspace(r.end)))
    return p.eps()


def build_content(ctx: _Context) -> int:
    p, c = ctx.p, ctx.spec.content
    if c.is_always_wrapped:
        if ctx.extracting_reasoning:
            return p.cat(ctx.reasoning_parser, c.start, lambda: p.tag(CONTENT, p.until(c.end)), c.end, p.end)
        return p.cat(lambda: p.tag(CONTENT, p.until(c.start)), c.start, lambda: p.tag(CONTENT, p.until(c.end)),
                     c.end, p.end)
    return p.cat(ctx.reasoning_parser, lambda: p.tag(CONTENT, p.rest()), p.end)


def build_optional_wrapped(ctx: _Context) -> int:
    p, c = ctx.p, ctx.spec.content
    if c.is_always_wrapped:
        return p.optional(p.cat(c.start, lambda: p.tag(CONTENT, p.until(c.end)), c.end))
    return p.eps()


def build_tools_json_native(ctx: _Context) -> int:
    p, fmt, req = ctx.p, ctx.spec.tools.format, ctx.req
    name_field, args_field = fmt.name_field, fmt.args_field
    if fmt.function_field and fmt.function_field != "function" and "." not in name_field:
        name_field = f"{fmt.function_field}.{name_field}"
        args_field = f"{fmt.function_field}.{args_field}"

    def layout(start: str, end: str) -> JsonToolLayout:
        return JsonToolLayout(
            start, end, req.parallel_tool_calls, req.tool_choice == "required", name_field, args_field,
            fmt.tools_array_wrapped, fmt.fun_name_is_key, fmt.id_field, fmt.gen_id_field,
            tuple(fmt.parameter_order), fmt.openai_wrapper_trigger,
        )

    tools_parser = p.eps()
    if not fmt.section_start and fmt.per_call_start:
        single = standard_json_tools(p, req.tools, layout(fmt.per_call_start, fmt.per_call_end))
        tools_parser = p.trigger_rule("tool-calls", p.one_or_more(p.cat(single, p.space)))
    else:
        tools_parser = standard_json_tools(p, req.tools, layout(fmt.section_start, fmt.section_end))
    if ctx.spec.content.is_always_wrapped:
        wrapped = build_optional_wrapped(ctx)
        return p.cat(ctx.reasoning_parser, wrapped, tools_parser, p.end)
    tool_start = fmt.section_start or fmt.per_call_start or "{"
    return p.cat(ctx.reasoning_parser, lambda: p.optional(p.tag(CONTENT, p.until(tool_start))), tools_parser, p.end)


def build_func_parser(ctx: _Context, name: str, call_id_section: int, have_call_id: bool, args: int,
                      atomic_peek: int | None) -> int:
    p, fn, fmt = ctx.p, ctx.spec.tools.function, ctx.spec.tools.format
    open_ = p.atomic_tag(TOOL_OPEN, p.cat(fn.name_prefix, lambda: p.atomic_tag(TOOL_NAME, p.literal(name)),
                                          fn.name_suffix))
    matched_atomic = False
    p.eps()  # func_parser's initial value, created as in llama.cpp
    if fn.args_separator:
        open_ = p.cat(open_, p.space, lambda: p.literal(fn.args_separator))
    if fn.name_suffix:
        func = p.cat(open_, call_id_section, p.space, args)
        matched_atomic = True
    elif have_call_id:
        func = p.cat(lambda: p.atomic(p.cat(open_, call_id_section)), p.space, args)
        matched_atomic = True
    elif atomic_peek is not None:
        func = p.cat(lambda: p.atomic(p.cat(open_, call_id_section, p.space, atomic_peek)), args)
        matched_atomic = True
    else:
        func = p.cat(open_, call_id_section, p.space, args)
    if fn.close:
        func = p.cat(func, p.space, lambda: p.atomic_tag(TOOL_CLOSE, p.literal(fn.close)))
    elif fmt.per_call_end:
        if ctx.spec.tools.arguments.tolerate_intertag_whitespace:
            close_peek = p.peek(p.cat(p.space, lambda: p.literal(fmt.per_call_end)))
        else:
            close_peek = p.peek(p.literal(fmt.per_call_end))
        func = p.cat(func, lambda: p.atomic_tag(TOOL_CLOSE, close_peek))
    else:
        func = p.cat(func, lambda: p.atomic_tag(TOOL_CLOSE, p.space()))
    return func if matched_atomic else p.atomic(func)


def _call_id_applies(ctx: _Context) -> bool:
    cid, args = ctx.spec.tools.call_id, ctx.spec.tools.arguments
    return cid.pos == "BETWEEN_FUNC_AND_ARGS" and bool(cid.prefix) and bool(cid.suffix or args.start)


def _tools_tail(ctx: _Context, tool_calls: int) -> int:
    """Optional unless required; content before the trigger marker; then the end."""
    p, fmt = ctx.p, ctx.spec.tools.format
    if ctx.req.tool_choice != "required":
        tool_calls = p.optional(tool_calls)
    marker = fmt.section_start or fmt.per_call_start
    before = p.eps() if not marker else p.until(marker)
    return p.cat(ctx.reasoning_parser, lambda: p.optional(p.tag(CONTENT, before)), tool_calls, p.end)


def build_tools_tag_json(ctx: _Context) -> int:
    p, fmt, args, cid = ctx.p, ctx.spec.tools.format, ctx.spec.tools.arguments, ctx.spec.tools.call_id
    tool_choice = p.choice()
    for tool in function_tools(ctx.req.tools):
        func = tool["function"]
        name = func["name"]
        schema = tool_parameters(func)
        have_call_id = False
        call_id_section = p.eps()
        if _call_id_applies(ctx):
            if cid.suffix:
                call_id_section = p.cat(lambda: p.optional(p.cat(
                    cid.prefix, lambda: p.atomic_tag(TOOL_ID, p.until(cid.suffix)))), cid.suffix)
            else:
                call_id_section = p.optional(p.cat(cid.prefix, lambda: p.atomic_tag(TOOL_ID, p.until(args.start))))
            have_call_id = True
        args_parser = p.tag(TOOL_ARGS, p.schema(p.json(), f"tool-{name}-schema", schema))
        if args.start:
            args_parser = p.cat(lambda: p.literal(args.start), args_parser)
        if args.end:
            args_parser = p.cat(args_parser, lambda: p.literal(args.end))
        peek = p.peek(p.literal(args.start)) if args.start else None
        func_parser = build_func_parser(ctx, name, call_id_section, have_call_id, args_parser, peek)
        tool_choice = p.choice([tool_choice, p.rule(f"tool-{name}", func_parser)])
    tool_calls = p.eps()
    if fmt.per_call_start:
        wrapped = p.cat(fmt.per_call_start, tool_choice, fmt.per_call_end)
        if ctx.req.parallel_tool_calls:
            tool_calls = p.trigger_rule("tool-call", p.cat(wrapped, lambda: p.zero_or_more(p.cat(p.space, wrapped))))
        else:
            tool_calls = p.trigger_rule("tool-call", wrapped)
        if fmt.section_start:
            tool_calls = p.trigger_rule("tool-calls", p.cat(
                lambda: p.literal(fmt.section_start), p.space, tool_calls, p.space,
                (p.end if not fmt.section_end else lambda: p.literal(fmt.section_end))))
    elif ctx.req.parallel_tool_calls:
        tool_calls = p.trigger_rule("tool-call", p.cat(
            fmt.section_start, tool_choice, lambda: p.zero_or_more(p.cat(", ", tool_choice)), fmt.section_end))
    else:
        tool_calls = p.trigger_rule("tool-call", p.cat(fmt.section_start, tool_choice, fmt.section_end))
    return _tools_tail(ctx, tool_calls)


def _tagged_arg(ctx: _Context, name: str, until_suffix: int, param: Any) -> int:
    p, a = ctx.p, ctx.spec.tools.arguments
    if may_be_string(param.schema):
        def value() -> int:
            return p.ac(p.cat(lambda: p.tag(TOOL_ARG_STRING_VALUE, until_suffix),
                              lambda: p.atomic_tag(TOOL_ARG_CLOSE, p.literal(a.value_suffix))), a.value_suffix)
    else:
        def value() -> int:
            return p.cat(
                lambda: p.tag(TOOL_ARG_VALUE, p.schema(p.json(), f"tool-{name}-arg-{param.name}-schema", param.schema)),
                lambda: p.atomic_tag(TOOL_ARG_CLOSE, p.literal(a.value_suffix)))
    opener = lambda: p.atomic_tag(TOOL_ARG_OPEN, p.cat(  # noqa: E731
        a.name_prefix, lambda: p.atomic_tag(TOOL_ARG_NAME, p.literal(param.name)), a.name_suffix))
    return p.tag(TOOL_ARG, p.cat(opener, a.value_prefix, value))


def build_tools_tag_tagged(ctx: _Context) -> int:
    p, fmt, a, cid = ctx.p, ctx.spec.tools.format, ctx.spec.tools.arguments, ctx.spec.tools.call_id
    until_suffix = p.rule("until-suffix", p.until(a.value_suffix))
    tool_choice = p.choice()
    for tool in function_tools(ctx.req.tools):
        func = tool["function"]
        name = func["name"]
        required: list[int] = []
        optional: list[int] = []
        root = schema_from_json(tool_parameters(func)).root
        for param in root.properties if isinstance(root, ObjectSchema) else ():
            named = p.rule(f"tool-{name}-arg-{param.name}", _tagged_arg(ctx, name, until_suffix, param))
            (required if param.required else optional).append(named)
        args_seq = p.required_then_optional(required, optional)
        if a.start:
            args_seq = p.cat(lambda: p.literal(a.start), args_seq)
        if a.end:
            args_seq = p.cat(args_seq, lambda: p.literal(a.end))
        call_id_section = p.eps()
        have_call_id = False
        if _call_id_applies(ctx):
            have_call_id = True
            if cid.suffix:
                call_id_section = p.optional(p.cat(cid.prefix, lambda: p.atomic_tag(TOOL_ID, p.until(cid.suffix)),
                                                   cid.suffix))
            else:
                call_id_section = p.optional(p.cat(cid.prefix, lambda: p.atomic_tag(TOOL_ID, p.until(a.start))))
        peek = p.peek(p.literal(a.name_prefix)) if a.name_prefix and required else None
        func_parser = build_func_parser(ctx, name, call_id_section, have_call_id, args_seq, peek)
        tool_choice = p.choice([tool_choice, p.rule(f"tool-{name}", func_parser)])
    tool_calls = p.eps()
    if fmt.per_call_start:
        wrapped = p.cat(fmt.per_call_start, p.space, tool_choice, p.space, fmt.per_call_end)
        if ctx.req.parallel_tool_calls:
            tool_calls = p.trigger_rule("tool-call", p.cat(
                wrapped, lambda: p.zero_or_more(p.cat(p.space, wrapped)), p.space))
        else:
            tool_calls = p.trigger_rule("tool-call", p.cat(wrapped, p.space))
        if fmt.section_start:
            closing = p.end if not fmt.section_end else (lambda: p.cat(lambda: p.literal(fmt.section_end), p.space))
            tool_calls = p.trigger_rule("tool-calls", p.cat(
                lambda: p.literal(fmt.section_start), p.space, tool_calls, p.space, closing))
    elif ctx.req.parallel_tool_calls:
        tool_calls = p.trigger_rule("tool-call", p.cat(
            fmt.section_start, p.space, tool_choice, lambda: p.zero_or_more(p.cat(", ", tool_choice)), p.space,
            fmt.section_end))
    else:
        tool_calls = p.trigger_rule("tool-call", p.cat(fmt.section_start, p.space, tool_choice, p.space,
                                                       fmt.section_end))
    return _tools_tail(ctx, tool_calls)


_TOOL_BUILDERS = {
    "JSON_NATIVE": build_tools_json_native,
    "TAG_WITH_JSON": build_tools_tag_json,
    "TAG_WITH_TAGGED": build_tools_tag_tagged,
}


def build_tools(ctx: _Context) -> int:
    builder = _TOOL_BUILDERS.get(ctx.spec.tools.format.mode)
    # llama.cpp only logs an error for an undetected format and parses nothing
    return builder(ctx) if builder else ctx.p.eps()


def build_parser(spec: TemplateAnalysis, req: GenerationParams) -> Arena:
    """The PEG arena llama.cpp's autoparser builds for this analysis and request."""
    if not spec.analysis_complete:
        raise AnalysisError("Cannot build a parser from an incomplete analysis")
    p = ChatPeg()
    ctx = _Context(p, spec, req, p.eps())
    ctx.extracting_reasoning = req.reasoning_format != "none" and spec.reasoning.mode != "NONE"
    ctx.reasoning_parser = build_reasoning(ctx)
    parser = p.eps()
    pure_content = spec.reasoning.mode == "NONE"
    if req.has_response_format:
        response = p.rule("response-format", p.tag(CONTENT, p.schema(p.json(), "response-format-schema",
                                                                     dict(req.json_schema or {}))))
        parser = p.cat(ctx.reasoning_parser, p.space, lambda: p.choice([
            p.cat(lambda: p.literal("```json"), p.space, response, p.space, lambda: p.literal("```")),
            p.cat(p.space, response, p.space),
        ]), p.end)
        pure_content = False
    elif req.has_tools and req.tool_choice != "none" and spec.jinja_caps.supports_tool_calls:
        parser = build_tools(ctx)
        pure_content = False
    else:
        parser = build_content(ctx)
    start = trim_whitespace(spec.reasoning.start)
    lead = p.prefix(req.parser_generation_prompt, start)
    root = p.sequence([lead, parser]) if pure_content else p.then_space(lead, parser)
    return p.build(root)
