"""Gemma 4: ``<|channel>thought...<channel|>`` reasoning, ``<|tool_call>call:NAME{k:v}<tool_call|>``.

Input: ``GenerationParams``. Output: two ``Handler`` declarations (llama.cpp's
``common/parsers/gemma4.cpp``): the current template and the outdated one, whose only
difference (``convert_tool_responses_gemma4`` on the messages) is the apply stage's.
Arguments use Gemma's own object notation (``<|"|>`` string quotes), mapped by the
``peg-gemma4`` mapper.
"""

from __future__ import annotations

from dataclasses import replace

from explorer.handlers.base import (
    PEG_GEMMA4, Handler, GenerationParams, delimiters, include_tools_or_format, lazy_unless_forced, word,
)
from explorer.handlers.peg import HandlerPeg, function_tools

Q = '<|"|>'


def _value_rules(p: HandlerPeg) -> None:
    """Gemma's object notation (the traversal of llama.cpp's gemma4_to_json)."""
    p.rule("gemma4-string-content", p.until(Q))
    p.rule("gemma4-string", p.cat(lambda: p.literal(Q), lambda: p.ref("gemma4-string-content"), lambda: p.literal(Q)))
    p.rule("gemma4-bool", p.json_bool())
    p.rule("gemma4-null", p.json_null())
    p.rule("gemma4-number", p.json_number())
    p.rule("gemma4-dict-key", p.cat(lambda: p.rule("gemma4-dict-key-name", p.chars("[^:}]", 1, -1)),
                                    lambda: p.literal(":")))
    p.rule("gemma4-dict-kv", p.cat(lambda: p.ref("gemma4-dict-key"), p.space, lambda: p.ref("gemma4-value")))

    def dict_() -> int:
        ws = p.space()
        member = p.ref("gemma4-dict-kv")
        members = p.sequence([member, p.zero_or_more(p.sequence([p.literal(","), ws, member]))])
        return p.sequence([p.literal("{"), ws, p.choice([p.literal("}"), p.sequence([members, ws, p.literal("}")])])])

    def array() -> int:
        ws = p.space()
        value = p.ref("gemma4-value")
        elements = p.sequence([value, p.zero_or_more(p.sequence([p.literal(","), ws, value]))])
        return p.sequence([p.literal("["), ws, p.choice([p.literal("]"), p.sequence([elements, ws, p.literal("]")])])])

    p.rule_fn("gemma4-dict", dict_)
    p.rule_fn("gemma4-array", array)
    p.rule_fn("gemma4-value", lambda: p.choice([
        p.ref("gemma4-string"), p.ref("gemma4-dict"), p.ref("gemma4-array"), p.ref("gemma4-number"),
        p.ref("gemma4-bool"), p.ref("gemma4-null")]))


def build(p: HandlerPeg, i: GenerationParams) -> int:
    start = p.rule("start", p.optional(p.literal("<|turn>model\n")))
    if i.extract_reasoning:
        p.rule("thought", p.cat(lambda: p.literal("<|channel>thought"), p.space,
                                lambda: p.reasoning(p.until("<channel|>")), lambda: p.literal("<channel|>")))
    else:
        p.rule("thought", p.content(p.cat(lambda: p.literal("<|channel>thought"), p.space,
                                          lambda: p.until("<channel|>"), lambda: p.literal("<channel|>"))))
    consume_empty = p.gbnf(p.zero_or_more(p.cat(lambda: p.literal("<|channel>"),
                                                lambda: p.negate(p.literal("thought")))), "")
    thought = p.alt(lambda: p.cat(lambda: p.peek(p.literal("<|channel>")), consume_empty, lambda: p.ref("thought")),
                    lambda: p.negate(p.literal("<|channel>")))
    if i.has_schema_object:
        response = p.shl(lambda: p.literal("```json"),
                         lambda: p.content(p.schema(p.json(), "response-format-schema", i.schema)),
                         lambda: p.literal("```"))
        return p.cat(start, lambda: p.optional(thought), response)
    if i.wants_tools:
        _value_rules(p)
        tool_choice = p.choice()
        for tool in function_tools(i.tools):
            name = tool["function"]["name"]
            call = p.tool(p.sequence([
                p.tool_open(p.cat(lambda: p.tool_name(p.literal(name)), lambda: p.peek(p.literal("{")))),
                p.tool_args(p.ref("gemma4-dict")),
            ]))
            tool_choice = p.choice([tool_choice, p.rule(f"tool-{name}", call)])
        tool_call = p.trigger_rule("tool-call", p.repeat(p.cat("<|tool_call>call:", tool_choice, "<tool_call|>"),
                                                         1 if i.required else 0, -1 if i.parallel_tool_calls else 1))
        if i.required:
            return p.cat(start, thought, tool_call)
        scan = p.rule("scan-to-toolcall", p.until("<|tool_call>"))
        content = p.rule("content", p.content(p.until_one_of(["<|channel>", "<channel|>", "<|tool_call>"])))
        message = p.rule("message", p.cat(thought, content))
        return p.cat(start, lambda: p.zero_or_more(message), scan, tool_call)
    # Gemma 4 may end its content with an extra empty thought or a stray <channel|>:
    # consume whole reasoning blocks, stop at the first unmatched <channel|>
    content = p.rule("content", p.content(p.until_one_of(["<|channel>", "<channel|>"])))
    message = p.rule("message", p.cat(thought, content))
    return p.cat(start, lambda: p.one_or_more(message))


HANDLER = Handler(
    name="gemma4",
    build=build,
    include=include_tools_or_format,
    lazy=lazy_unless_forced,
    triggers=(word("<|tool_call>"),),
    format=PEG_GEMMA4,
    preserved_tokens=("<|channel>", "<channel|>", "<|tool_call>", "<tool_call|>", "<|turn>"),
    thinking_start_tag="<|channel>thought",
    thinking_end_tags=("<channel|>",),
    message_delimiters=delimiters(("user", "<|turn>user"), ("assistant", "<|turn>model")),
    reference="common/parsers/gemma4.cpp",
)

HANDLERS = (HANDLER, replace(HANDLER, name="gemma4(outdated-template-workarounds)",
                             note="older template: the apply stage runs convert_tool_responses_gemma4"))
