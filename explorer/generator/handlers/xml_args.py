"""Handlers with XML-ish tagged arguments: Ling 3, MiniCPM5, Muse Glimmer, MiniMax-M3.

Input: the request (and for Ling 3 its generation prompt). Output: llama.cpp's params for
the ``ling3``, ``minicpm5``, ``muse-glimmer`` and ``minimax-m3`` routes.
"""

from __future__ import annotations

from collections.abc import Callable

from explorer.generator.handlers.common import finish, function_tools, has_json_schema, parameters
from explorer.generator.handlers.qwen3_coder import permute
from explorer.generator.json_tools import (
    CONTENT, REASONING, TOOL, TOOL_ARG, TOOL_ARG_CLOSE, TOOL_ARG_NAME, TOOL_ARG_OPEN, TOOL_ARG_STRING_VALUE,
    TOOL_ARG_VALUE, TOOL_ARGS, TOOL_CLOSE, TOOL_NAME, TOOL_OPEN, ChatPeg,
)
from explorer.generator.params import GeneratedParams
from explorer.generator.spec import GenerationRequest
from explorer.grammar.gbnf import tool_parameters
from explorer.grammar.schema import (
    AnyOfSchema, ArraySchema, ObjectSchema, SchemaNode, may_be_string, schema_from_json, value_types,
)

LING3 = {"role": "<role>ASSISTANT</role>", "think_start": "<think>", "think_end": "</think>",
         "call_start": "<tool_call>", "call_end": "</tool_call>", "arg_key": "<arg_key>", "arg_key_end": "</arg_key>",
         "arg_val": "<arg_value>", "role_end": "<|role_end|>", "arg_val_end": "</arg_value>"}


def _sequence_args(p: ChatPeg, required: list[int], optional: list[int]) -> int:
    """Required elements in order, then any optional ones, space separated."""
    members = p.eps()
    for i, element in enumerate(required):
        if i > 0:
            members = p.cat(members, p.space)
        members = p.sequence([members, element])
    if optional:
        any_opt = p.choice()
        for element in optional:
            any_opt = p.choice([any_opt, element])
        members = p.cat(members, lambda: p.repeat(p.cat(p.space, any_opt), 0, -1))
    return members


def _ling3_tool(p: ChatPeg, name: str, function, arg_close: int, arg_string: int) -> int:
    L = LING3
    required: list[int] = []
    optional: list[int] = []
    for param in parameters(function):
        rule_name = f"ling3-arg-{name}-{param.name}"
        types = value_types(param.schema)
        value = p.eps()
        if "string" not in types:
            value = p.cat(lambda: p.tag(TOOL_ARG_VALUE, p.schema(p.json(), f"{rule_name}-schema", param.schema)),
                          arg_close)
        elif types == {"string"}:
            value = arg_string
        else:
            value = p.gbnf(p.alt(lambda: p.atomic(p.cat(lambda: p.tag(TOOL_ARG_VALUE, p.schema(
                p.json(), f"{rule_name}-schema", param.schema)), arg_close)), arg_string), "ling3-arg-string")
        arg = p.rule(rule_name, p.cat(lambda: p.optional(p.space()), lambda: p.tag(TOOL_ARG, p.cat(
            lambda: p.atomic_tag(TOOL_ARG_OPEN, p.cat(lambda: p.literal(L["arg_key"]),
                                                      lambda: p.atomic_tag(TOOL_ARG_NAME, p.literal(param.name)),
                                                      lambda: p.literal(L["arg_key_end"]))),
            lambda: p.optional(p.space()), lambda: p.literal(L["arg_val"]), value))))
        (required if param.required else optional).append(arg)
    args = permute(p, f"ling3-{name}-args", required)
    if optional:
        args = p.cat(args, lambda: p.zero_or_more(p.choice(optional)))
    return p.tag(TOOL, p.cat(
        lambda: p.atomic_tag(TOOL_OPEN, p.cat(lambda: p.literal(L["call_start"]),
                                              lambda: p.atomic_tag(TOOL_NAME, p.literal(name)),
                                              lambda: p.optional(p.space()))),
        lambda: p.tag(TOOL_ARGS, args),
        lambda: p.atomic_tag(TOOL_CLOSE, p.cat(lambda: p.optional(p.space()), lambda: p.literal(L["call_end"])))))


def ling3(req: GenerationRequest, source: str) -> GeneratedParams:
    L = LING3
    if req.continuation != "none":
        think_open = req.continuation != "content"
    else:
        gen = req.generation_prompt
        last_open, last_close = gen.rfind(L["think_start"]), gen.rfind(L["think_end"])
        think_open = last_open >= 0 and (last_close < 0 or last_open > last_close)
    extract = req.reasoning_format != "none"
    has_calls = req.has_tools and req.tool_choice != "none"
    p = ChatPeg()
    end = p.end()
    opener = p.optional(p.cat(lambda: p.literal(L["role"]), lambda: p.optional(p.space())))
    body_end = p.until_one_of([L["think_end"], L["call_start"]] if think_open else [L["think_end"]])
    think_body = p.tag(REASONING if extract else CONTENT, body_end)
    reasoning = p.optional(p.cat(lambda: p.optional(p.literal(L["think_start"])), think_body,
                                 lambda: p.optional(p.literal(L["think_end"]))))
    content = p.optional(p.tag(CONTENT, p.until_one_of([L["call_start"]])))
    tail = p.cat(lambda: p.optional(p.tag(CONTENT, p.until(L["role_end"]))),
                 lambda: p.optional(p.literal(L["role_end"])))
    if not has_calls:
        root = p.cat(opener, reasoning, tail, end)
    else:
        tool_choices = p.choice()
        arg_close = p.atomic_tag(TOOL_ARG_CLOSE, p.literal(L["arg_val_end"]))
        arg_string = p.rule("ling3-arg-string", p.cat(
            lambda: p.tag(TOOL_ARG_STRING_VALUE, p.until(L["arg_val_end"])), arg_close))
        for tool in function_tools(req):
            name = tool["function"]["name"]
            call = _ling3_tool(p, name, tool["function"], arg_close, arg_string)
            tool_choices = p.choice([tool_choices, p.rule(f"ling3-tool-{name}", call)])
        if req.parallel_tool_calls:
            calls = p.cat(tool_choices, lambda: p.zero_or_more(p.cat(p.space, tool_choices)))
        else:
            calls = tool_choices
        section = p.trigger_rule("ling3-tool-call", p.cat(
            calls, p.space, lambda: p.optional(p.tag(CONTENT, p.until(L["role_end"]))),
            lambda: p.optional(p.literal(L["role_end"]))))
        tools = section if req.tool_choice == "required" else p.optional(section)
        root = p.cat(opener, reasoning, content, tools, tail, end)
    arena = p.build(root)
    preserved = [L[k] for k in ("think_start", "think_end", "call_start", "call_end", "arg_key", "arg_key_end",
                                "arg_val", "arg_val_end", "role_end")]
    return finish(req, arena, include_grammar=has_calls, lazy=req.tool_choice != "required",
                  triggers=[("WORD", L["call_start"])], preserved=preserved, stops=[L["role_end"]],
                  thinking=(L["think_start"], (L["think_end"], L["call_start"])))


def _tagged_params(p: ChatPeg, name: str, function, string_value: int, close: str, open_prefix: str) -> list[int]:
    """One ``tool_arg`` per parameter: string-like values share ``string_value``."""
    rules: list[int] = []
    for prop in parameters(function):
        value = p.eps()
        if may_be_string(prop.schema):
            value = string_value
        else:
            value = p.cat(lambda: p.tag(TOOL_ARG_VALUE, p.schema(p.json(), f"tool-{name}-arg-{prop.name}-schema",
                                                                 prop.schema)),
                          lambda: p.atomic_tag(TOOL_ARG_CLOSE, p.literal(close)))
        rules.append(p.tag(TOOL_ARG, p.cat(
            lambda: p.atomic_tag(TOOL_ARG_OPEN, p.cat(lambda: p.literal(open_prefix),
                                                      lambda: p.atomic_tag(TOOL_ARG_NAME, p.literal(prop.name)),
                                                      lambda: p.literal('">'))),
            value)))
    return rules


def minicpm5(req: GenerationRequest, source: str) -> GeneratedParams:
    has_tools = req.has_tools
    has_rf = req.has_response_format
    extract = req.reasoning_format != "none"
    include_grammar = has_rf or (has_tools and req.tool_choice != "none")
    p = ChatPeg()
    gen = p.literal("<|im_start|>assistant\n")
    reasoning = p.eps()
    if extract:
        reasoning = p.cat(lambda: p.shl("<think>", lambda: p.tag(REASONING, p.until("</think>")), "</think>"),
                          p.space)
    if has_rf:
        root = p.cat(gen, reasoning, lambda: p.tag(CONTENT, p.schema(p.json(), "response-format",
                                                                     dict(req.json_schema or {}))))
    elif has_tools and req.tool_choice != "none":
        string_value = p.choice([
            p.cat(lambda: p.literal("<![CDATA["),
                  lambda: p.ac(p.cat(lambda: p.tag(TOOL_ARG_STRING_VALUE, p.until("]]>")), lambda: p.literal("]]>")),
                               "]]>"),
                  lambda: p.atomic_tag(TOOL_ARG_CLOSE, p.literal("</param>"))),
            p.cat(lambda: p.negate(p.literal("<![CDATA[")),
                  lambda: p.ac(p.cat(lambda: p.tag(TOOL_ARG_STRING_VALUE, p.until("</param>")),
                                     lambda: p.atomic_tag(TOOL_ARG_CLOSE, p.literal("</param>"))), "</param>")),
        ])
        tool_choice = p.choice()
        for tool in function_tools(req):
            name = tool["function"]["name"]
            arg_rules = _tagged_params(p, name, tool["function"], string_value, "</param>", '<param name="')
            args = p.eps()
            if arg_rules:
                args = p.zero_or_more(p.cat(lambda: p.choice(arg_rules), p.space))
            parser = p.tag(TOOL, p.shl(
                lambda: p.atomic_tag(TOOL_OPEN, p.cat(lambda: p.literal('<function name="'),
                                                      lambda: p.atomic_tag(TOOL_NAME, p.literal(name)),
                                                      lambda: p.literal('">'))),
                lambda: p.tag(TOOL_ARGS, args),
                lambda: p.atomic_tag(TOOL_CLOSE, p.literal("</function>"))))
            tool_choice = p.choice([tool_choice, p.rule(f"tool-{name}", parser)])
        max_calls = -1 if req.parallel_tool_calls else 1
        calls = p.trigger_rule("tool-call", p.repeat(p.cat(tool_choice, p.space), 1, max_calls))
        content = p.tag(CONTENT, p.until("<function"))
        root = p.cat(gen, reasoning, content, calls, p.end)
    else:
        root = p.cat(gen, reasoning, lambda: p.tag(CONTENT, p.rest()), p.end)
    arena = p.build(root)
    lazy = not (has_rf or (has_tools and req.tool_choice == "required"))
    return finish(req, arena, include_grammar=include_grammar, lazy=lazy, triggers=[("WORD", "<function")],
                  preserved=("<function", "<param", "</function>", "</param>", "<think>", "</think>"),
                  thinking=("<think>", ("</think>",)))


MUSE_TRIGGER = "(?:^|<\\|start\\|>assistant)( to=(?!self<\\|message\\|>)(?!user<\\|message\\|>)[^<]*?<\\|message\\|>)"
MUSE_PRESERVED = ("<|start|>", "<|message|>", "<|eom|>", "<|eot|>", "<atem:function_calls>", "<atem:invoke",
                  "<atem:parameter", "</atem:parameter>", "</atem:invoke>", "</atem:function_calls>")


def _muse_tools(p: ChatPeg, req: GenerationRequest, start: int) -> int:
    param_end = "</atem:parameter>"
    string_value = p.ac(p.cat(lambda: p.tag(TOOL_ARG_STRING_VALUE, p.until(param_end)),
                              lambda: p.atomic_tag(TOOL_ARG_CLOSE, p.literal(param_end))), param_end)
    tool_choice = p.choice()
    for tool in function_tools(req):
        name = tool["function"]["name"]
        arg_rules = _tagged_params(p, name, tool["function"], string_value, param_end, '<atem:parameter name="')
        args = p.eps()
        if arg_rules:
            args = p.zero_or_more(p.cat(lambda: p.choice(arg_rules), p.space))
        parser = p.tag(TOOL, p.shl(
            lambda: p.atomic_tag(TOOL_OPEN, p.cat(
                lambda: p.literal(" to="), lambda: p.until("<|message|>"),
                lambda: p.literal("<|message|><atem:function_calls>"), p.space,
                lambda: p.literal('<atem:invoke name="'), lambda: p.atomic_tag(TOOL_NAME, p.literal(name)),
                lambda: p.literal('">'), p.space)),
            lambda: p.tag(TOOL_ARGS, args),
            lambda: p.atomic_tag(TOOL_CLOSE, p.cat(lambda: p.literal("</atem:invoke>"), p.space,
                                                   lambda: p.literal("</atem:function_calls>")))))
        tool_choice = p.choice([tool_choice, p.rule(f"tool-{name}", parser)])
    if req.parallel_tool_calls:
        return p.trigger_rule("tool-call", p.cat(tool_choice, lambda: p.zero_or_more(
            p.cat(lambda: p.literal("<|eom|>"), start, tool_choice))))
    return p.trigger_rule("tool-call", tool_choice)


def muse_glimmer(req: GenerationRequest, source: str) -> GeneratedParams:
    extract = req.reasoning_format != "none"
    has_tools = req.has_tools
    has_rf = has_json_schema(req)
    include_grammar = has_rf or (has_tools and req.tool_choice != "none")
    p = ChatPeg()
    start = p.rule("start", p.literal("<|start|>assistant"))
    if not extract and not include_grammar:
        root = p.cat(start, lambda: p.tag(CONTENT, p.rest()))
    else:
        tag = REASONING if extract else CONTENT
        p.rule("analysis", p.cat(lambda: p.literal(" to=self<|message|>"), lambda: p.tag(tag, p.until("<|eom|>")),
                                 lambda: p.literal("<|eom|>")))
        analysis = p.ref("analysis")
        recipient = p.optional(p.literal(" to=user"))
        final_msg = p.rule("final", p.cat(recipient, lambda: p.literal("<|message|>"),
                                          lambda: p.tag(CONTENT, p.until_one_of(["<|eot|>", "<|eom|>"]))))
        history = lambda: p.zero_or_more(p.cat(start, analysis))  # noqa: E731
        if has_rf:
            response_json = p.tag(CONTENT, p.schema(p.json(), "response-format-schema", dict(req.json_schema or {})))
            response = p.rule("response-format", p.cat(recipient, lambda: p.literal("<|message|>"), lambda: p.alt(
                lambda: p.cat(lambda: p.literal("```json"), p.space, response_json, p.space,
                              lambda: p.literal("```")),
                response_json)))
            root = p.cat(history, start, response)
        elif has_tools and req.tool_choice != "none":
            calls = _muse_tools(p, req, start)
            if req.tool_choice == "required":
                root = p.cat(history, start, calls)
            else:
                trailing = p.optional(p.cat(lambda: p.literal("<|eom|>"), start, calls))
                root = p.cat(history, start, lambda: p.alt(calls, lambda: p.cat(final_msg, trailing)))
        else:
            root = p.cat(history, start, final_msg)
    arena = p.build(root)
    lazy = not (has_rf or (has_tools and req.tool_choice == "required"))
    return finish(req, arena, include_grammar=include_grammar, lazy=lazy, triggers=[("PATTERN", MUSE_TRIGGER)],
                  preserved=MUSE_PRESERVED, generation_prompt="<|start|>assistant", supports_thinking=True)


MM_NS = "]<]minimax[>["
MM_THINK_START, MM_THINK_END = "<mm:think>", "</mm:think>"
TOOL_ARG_OBJECT, TOOL_ARG_ARRAY, TOOL_ARG_ITEM = "tool-arg-object", "tool-arg-array", "tool-arg-item"


class _MinimaxArgs:
    """The recursive element/value builders of the MiniMax-M3 handler."""

    def __init__(self, p: ChatPeg) -> None:
        self.p = p

    def element(self, tag: str, schema: SchemaNode, rule_name: str) -> int:
        p = self.p
        close = f"{MM_NS}</{tag}>"
        return p.rule(rule_name, p.tag(TOOL_ARG, p.cat(
            lambda: p.atomic_tag(TOOL_ARG_OPEN, p.cat(lambda: p.literal(MM_NS + "<"),
                                                      lambda: p.atomic_tag(TOOL_ARG_NAME, p.literal(tag)),
                                                      lambda: p.literal(">"))),
            lambda: self.value(schema, rule_name, close))))

    def value(self, schema: SchemaNode, rule_name: str, close: str) -> int:
        p = self.p
        close_tag = p.atomic_tag(TOOL_ARG_CLOSE, p.literal(close))
        if may_be_string(schema):
            return p.ac(p.cat(lambda: p.tag(TOOL_ARG_STRING_VALUE, p.until(close)), close_tag), close)
        if isinstance(schema, AnyOfSchema):
            return p.choice([self.value(alt, f"{rule_name}-{i}", close) for i, alt in enumerate(schema.children)])
        if isinstance(schema, ObjectSchema) and schema.properties:
            return p.cat(lambda: p.tag(TOOL_ARG_OBJECT, self.members(schema, rule_name)), p.space, close_tag)
        if isinstance(schema, ArraySchema):
            item_close = MM_NS + "</item>"
            item = p.rule(f"{rule_name}-item", p.tag(TOOL_ARG_ITEM, p.cat(
                lambda: p.literal(MM_NS + "<item>"),
                lambda: self.value(schema.items, f"{rule_name}-item", item_close))))
            return p.cat(lambda: p.tag(TOOL_ARG_ARRAY, p.repeat(p.cat(p.space, item), 0, -1)), p.space, close_tag)
        return p.cat(lambda: p.tag(TOOL_ARG_VALUE, p.schema(p.json(), f"{rule_name}-schema", schema)), close_tag)

    def members(self, obj: ObjectSchema, prefix: str) -> int:
        required: list[int] = []
        optional: list[int] = []
        for prop in obj.properties:
            element = self.element(prop.name, prop.schema, f"{prefix}-{prop.name}")
            (required if prop.required else optional).append(element)
        return _sequence_args(self.p, required, optional)


def minimax_m3(req: GenerationRequest, source: str) -> GeneratedParams:
    has_tools = req.has_tools
    has_rf = has_json_schema(req)
    extract = req.reasoning_format != "none"
    include_grammar = has_rf or (has_tools and req.tool_choice != "none")
    fc_start, fc_end, invoke_end = MM_NS + "<tool_call>", MM_NS + "</tool_call>", MM_NS + "</invoke>"
    p = ChatPeg()
    gen = p.prefix(req.parser_generation_prompt, MM_THINK_START)
    end = p.end()
    reasoning = p.eps()
    if extract:
        if req.enable_thinking:
            block = p.cat(lambda: p.literal(MM_THINK_START), p.space, lambda: p.ac(p.cat(
                lambda: p.tag(REASONING, p.until(MM_THINK_END)), lambda: p.literal(MM_THINK_END)), MM_THINK_END))
        else:
            block = p.cat(lambda: p.literal(MM_THINK_START), lambda: p.ac(p.cat(
                lambda: p.until(MM_THINK_END), lambda: p.literal(MM_THINK_END)), MM_THINK_END))
        reasoning = p.optional(p.choice([block, p.literal(MM_THINK_END)]))
    if has_rf:
        response = p.rule("response-format", p.cat(
            lambda: p.literal("```json"), p.space,
            lambda: p.tag(CONTENT, p.schema(p.json(), "response-format-schema", dict(req.json_schema or {}))),
            p.space, lambda: p.literal("```")))
        root = p.cat(gen, reasoning, response, end)
    elif not has_tools or req.tool_choice == "none":
        root = p.cat(gen, reasoning, lambda: p.tag(CONTENT, p.rest()), end)
    else:
        builder = _MinimaxArgs(p)
        tool_choice = p.choice()
        for tool in function_tools(req):
            name = tool["function"]["name"]
            root_schema = schema_from_json(tool_parameters(tool["function"])).root
            body = p.eps()
            if isinstance(root_schema, ObjectSchema):
                body = builder.members(root_schema, f"tool-{name}-arg")
            func = p.tag(TOOL, p.cat(
                lambda: p.atomic_tag(TOOL_OPEN, p.cat(lambda: p.literal(MM_NS + '<invoke name="'),
                                                      lambda: p.atomic_tag(TOOL_NAME, p.literal(name)),
                                                      lambda: p.literal('">'))),
                p.space, body, p.space, lambda: p.atomic_tag(TOOL_CLOSE, p.literal(invoke_end))))
            tool_choice = p.choice([tool_choice, p.rule(f"tool-{name}", func)])
        p.eps()  # tool_calls' initial value
        if req.parallel_tool_calls:
            calls = p.trigger_rule("tool-call", p.cat(
                lambda: p.literal(fc_start), p.space, tool_choice,
                lambda: p.zero_or_more(p.cat(p.space, tool_choice)), p.space, lambda: p.literal(fc_end)))
        else:
            calls = p.trigger_rule("tool-call", p.cat(lambda: p.literal(fc_start), p.space, tool_choice, p.space,
                                                      lambda: p.literal(fc_end)))
        if req.tool_choice != "required":
            calls = p.optional(calls)
        before = p.tag(CONTENT, p.until(fc_start))
        root = p.cat(gen, reasoning, before, calls, end)
    arena = p.build(root)
    lazy = not (has_rf or (has_tools and req.tool_choice == "required"))
    return finish(req, arena, include_grammar=include_grammar, lazy=lazy, triggers=[("WORD", fc_start)],
                  preserved=(MM_NS, "<tool_call>", "</tool_call>", MM_THINK_START, MM_THINK_END),
                  thinking=(MM_THINK_START, (MM_THINK_END,)))


HANDLERS: dict[str, Callable[[GenerationRequest, str], GeneratedParams]] = {
    "ling3": ling3, "minicpm5": minicpm5, "muse-glimmer": muse_glimmer, "minimax-m3": minimax_m3,
}
