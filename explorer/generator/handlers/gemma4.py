"""Gemma 4 handler: ``<|channel>thought`` reasoning, ``<|tool_call>call:NAME{...}<tool_call|>``.

Input: the request. Output: llama.cpp's params for the ``gemma4`` routes (the outdated-
template variant differs only on the prompt side).
"""

from __future__ import annotations

from explorer.generator.handlers.common import finish, function_tools, has_json_schema
from explorer.generator.json_tools import CONTENT, REASONING, TOOL, TOOL_ARGS, TOOL_NAME, TOOL_OPEN, ChatPeg
from explorer.generator.params import GeneratedParams
from explorer.generator.spec import GenerationRequest

PRESERVED = ("<|channel>", "<channel|>", "<|tool_call>", "<tool_call|>", "<|turn>")
STR_QUOTE = '<|"|>'


def _value_rules(p: ChatPeg) -> None:
    p.rule("gemma4-string-content", p.until(STR_QUOTE))
    p.rule("gemma4-string", p.cat(lambda: p.literal(STR_QUOTE), lambda: p.ref("gemma4-string-content"),
                                  lambda: p.literal(STR_QUOTE)))
    p.rule("gemma4-bool", p.json_bool())
    p.rule("gemma4-null", p.json_null())
    p.rule("gemma4-number", p.json_number())
    p.rule("gemma4-dict-key", p.cat(lambda: p.rule("gemma4-dict-key-name", p.chars("[^:}]", 1, -1)),
                                    lambda: p.literal(":")))
    p.rule("gemma4-dict-kv", p.cat(lambda: p.ref("gemma4-dict-key"), p.space, lambda: p.ref("gemma4-value")))

    def container(open_: str, close: str, item: str) -> int:
        ws = p.space()
        member = p.ref(item)
        members = p.sequence([member, p.zero_or_more(p.sequence([p.literal(","), ws, member]))])
        return p.sequence([p.literal(open_), ws, p.choice([p.literal(close), p.sequence([members, ws, p.literal(close)])])])

    p.rule_fn("gemma4-dict", lambda: container("{", "}", "gemma4-dict-kv"))
    p.rule_fn("gemma4-array", lambda: container("[", "]", "gemma4-value"))
    p.rule_fn("gemma4-value", lambda: p.choice([
        p.ref("gemma4-string"), p.ref("gemma4-dict"), p.ref("gemma4-array"),
        p.ref("gemma4-number"), p.ref("gemma4-bool"), p.ref("gemma4-null"),
    ]))


def gemma4(req: GenerationRequest, source: str) -> GeneratedParams:
    has_tools = req.has_tools
    has_rf = has_json_schema(req)
    include_grammar = has_rf or (has_tools and req.tool_choice != "none")
    extract = req.reasoning_format != "none"
    p = ChatPeg()
    start = p.rule("start", p.optional(p.literal("<|turn>model\n")))
    if extract:
        p.rule("thought", p.cat(lambda: p.literal("<|channel>thought"), p.space,
                                lambda: p.tag(REASONING, p.until("<channel|>")), lambda: p.literal("<channel|>")))
    else:
        p.rule("thought", p.tag(CONTENT, p.cat(lambda: p.literal("<|channel>thought"), p.space,
                                               lambda: p.until("<channel|>"), lambda: p.literal("<channel|>"))))
    empty_channels = p.gbnf(p.zero_or_more(p.cat(lambda: p.literal("<|channel>"),
                                                 lambda: p.negate(p.literal("thought")))), "")
    thought = p.alt(lambda: p.cat(lambda: p.peek(p.literal("<|channel>")), empty_channels, lambda: p.ref("thought")),
                    lambda: p.negate(p.literal("<|channel>")))
    if has_rf:
        response = p.shl(lambda: p.literal("```json"), lambda: p.tag(CONTENT, p.schema(
            p.json(), "response-format-schema", dict(req.json_schema or {}))), lambda: p.literal("```"))
        root = p.cat(start, lambda: p.optional(thought), response)
    elif has_tools and req.tool_choice != "none":
        _value_rules(p)
        tool_choice = p.choice()
        for tool in function_tools(req):
            name = tool["function"]["name"]
            body = p.tag(TOOL, p.sequence([
                p.atomic_tag(TOOL_OPEN, p.cat(lambda: p.atomic_tag(TOOL_NAME, p.literal(name)),
                                              lambda: p.peek(p.literal("{")))),
                p.tag(TOOL_ARGS, p.ref("gemma4-dict")),
            ]))
            tool_choice = p.choice([tool_choice, p.rule(f"tool-{name}", body)])
        tool_call = p.trigger_rule("tool-call", p.repeat(
            p.cat("<|tool_call>call:", tool_choice, "<tool_call|>"),
            1 if req.tool_choice == "required" else 0, -1 if req.parallel_tool_calls else 1))
        if req.tool_choice == "required":
            root = p.cat(start, thought, tool_call)
        else:
            scan = p.rule("scan-to-toolcall", p.until("<|tool_call>"))
            content = p.rule("content", p.tag(CONTENT, p.until_one_of(["<|channel>", "<channel|>", "<|tool_call>"])))
            message = p.rule("message", p.cat(thought, content))
            root = p.cat(start, lambda: p.zero_or_more(message), scan, tool_call)
    else:
        content = p.rule("content", p.tag(CONTENT, p.until_one_of(["<|channel>", "<channel|>"])))
        message = p.rule("message", p.cat(thought, content))
        root = p.cat(start, lambda: p.one_or_more(message))
    arena = p.build(root)
    lazy = not (has_rf or (has_tools and req.tool_choice == "required"))
    return finish(req, arena, include_grammar=include_grammar, lazy=lazy, triggers=[("WORD", "<|tool_call>")],
                  preserved=PRESERVED, thinking=("<|channel>thought", ("<channel|>",)))
