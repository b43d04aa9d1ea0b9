"""Muse Glimmer: ``<|start|>assistant to=RECIPIENT<|message|>...<|eom|>|<|eot|>`` turns.

Input: the template source (routing), ``GenerationParams`` (parser) and a ``GarbleInput``
(triage). Output: the ``MuseGlimmer`` handler class (llama.cpp's
``common/parsers/muse-glimmer.cpp``). Reasoning goes ``to=self``, the answer ``to=user``,
tool calls to a tool recipient with ATEM markup; the generation prompt is fixed.
"""

from __future__ import annotations

from explorer.generator.chat_builder import ChatPeg, function_tools
from explorer.generator.spec import GenerationParams
from explorer.handlers.base import (
    Handler,
    delimiters,
    include_tools_or_format,
    lazy_unless_forced,
    pattern,
)
from explorer.handlers.garbles import Garble, regex_hits
from explorer.handlers.prompting import TaggedTurn

PARAM_END = "</atem:parameter>"


def _tool(p: ChatPeg, fn: dict, string_value: int) -> int:
    name = fn["name"]
    args = p.named_params(fn, string_value, '<atem:parameter name="', PARAM_END)
    return p.tool(p.shl(
        lambda: p.tool_open(p.cat(
            lambda: p.literal(" to="), lambda: p.until("<|message|>"),
            lambda: p.literal("<|message|><atem:function_calls>"), p.space,
            lambda: p.literal('<atem:invoke name="'), lambda: p.tool_name(p.literal(name)),
            lambda: p.literal('">'), p.space)),
        lambda: p.tool_args(args),
        lambda: p.tool_close(p.cat(lambda: p.literal("</atem:invoke>"), p.space,
                                   lambda: p.literal("</atem:function_calls>")))))


def build(p: ChatPeg, i: GenerationParams) -> int:
    include_grammar = i.has_schema_object or i.wants_tools
    start = p.rule("start", p.literal("<|start|>assistant"))
    if not i.extract_reasoning and not include_grammar:
        return p.cat(start, lambda: p.content(p.rest()))
    if i.extract_reasoning:
        p.rule("analysis", p.cat(lambda: p.literal(" to=self<|message|>"), lambda: p.reasoning(p.until("<|eom|>")),
                                 lambda: p.literal("<|eom|>")))
    else:
        p.rule("analysis", p.cat(lambda: p.literal(" to=self<|message|>"), lambda: p.content(p.until("<|eom|>")),
                                 lambda: p.literal("<|eom|>")))
    analysis = p.ref("analysis")
    recipient = p.optional(p.literal(" to=user"))
    final_msg = p.rule("final", p.cat(recipient, lambda: p.literal("<|message|>"),
                                      lambda: p.content(p.until_one_of(["<|eot|>", "<|eom|>"]))))

    def lead() -> int:
        return p.zero_or_more(p.cat(start, analysis))

    if i.has_schema_object:
        response_json = p.content(p.schema(p.json(), "response-format-schema", i.schema))
        response_format = p.rule("response-format", p.cat(
            recipient, lambda: p.literal("<|message|>"),
            lambda: p.alt(lambda: p.cat(lambda: p.literal("```json"), p.space, response_json, p.space,
                                        lambda: p.literal("```")), response_json)))
        return p.cat(lead, start, response_format)
    if i.wants_tools:
        string_value = p.ac(p.cat(lambda: p.tool_arg_string_value(p.until(PARAM_END)),
                                  lambda: p.tool_arg_close(p.literal(PARAM_END))), PARAM_END)
        tool_choice = p.choice()
        for tool in function_tools(i.tools):
            tool_choice = p.choice([tool_choice, p.rule(f"tool-{tool['function']['name']}",
                                                        _tool(p, tool["function"], string_value))])
        if i.parallel_tool_calls:
            tool_calls = p.trigger_rule("tool-call", p.cat(tool_choice, lambda: p.zero_or_more(
                p.cat(lambda: p.literal("<|eom|>"), start, tool_choice))))
        else:
            tool_calls = p.trigger_rule("tool-call", tool_choice)
        if i.required:
            return p.cat(lead, start, tool_calls)
        trailing = p.optional(p.cat(lambda: p.literal("<|eom|>"), start, tool_calls))
        return p.cat(lead, start, lambda: p.alt(tool_calls, lambda: p.cat(final_msg, trailing)))
    return p.cat(lead, start, final_msg)


SOURCE = "llama.cpp's muse-glimmer handler (common/parsers/muse-glimmer.cpp)"

GARBLES: tuple[Garble, ...] = (
    Garble(regex_hits(r" to=[^<\n]*<\|message\|>(?P<bad>\s*)<atem:invoke", "<atem:function_calls>"),
           "The tool turn's message starts with <atem:invoke …> without the {expected} wrapper, which llama.cpp's "
           "muse-glimmer parser needs first.",
           f"{SOURCE}: a call is \" to=RECIPIENT<|message|><atem:function_calls>\", then "
           "\"<atem:invoke name=\\\"NAME\\\">\".",
           "Model side: wrap calls in <atem:function_calls> … </atem:function_calls>, as the template renders them."),
)


class MuseGlimmer(Handler):
    name = "muse-glimmer"
    required = ("<atem:function_calls>", "<|eom|>")

    fixed_generation_prompt = "<|start|>assistant"
    continuation = TaggedTurn("<|start|>assistant", " to=self<|message|>",
                              "<|eom|><|start|>assistant to=user<|message|>")

    build = staticmethod(build)
    include = staticmethod(include_tools_or_format)
    lazy = staticmethod(lazy_unless_forced)
    triggers = (pattern(
        "(?:^|<\\|start\\|>assistant)( to=(?!self<\\|message\\|>)(?!user<\\|message\\|>)[^<]*?<\\|message\\|>)"),)
    preserved_tokens = ("<|start|>", "<|message|>", "<|eom|>", "<|eot|>", "<atem:function_calls>", "<atem:invoke",
                        "<atem:parameter", "</atem:parameter>", "</atem:invoke>", "</atem:function_calls>")
    message_delimiters = delimiters(("assistant", "<|start|>assistant"), ("user", "<|start|>user"),
                                    ("system", "<|start|>system"), ("tool", "<|start|>tool"))
    reference = "common/parsers/muse-glimmer.cpp"

    garbles = GARBLES
