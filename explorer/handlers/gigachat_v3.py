"""GigaChat v3: ``<|message_sep|>\\n\\nfunction call<|role_sep|>\\n{"name": ..., "arguments": ...}``.

Input: the template source (routing) and ``GenerationParams`` (parser). Output: the
``GigachatV3`` handler class (llama.cpp's ``common/parsers/gigachat-v3.cpp``). One call
at most; no reasoning.
"""

from __future__ import annotations

from explorer.generator.chat_builder import ChatPeg
from explorer.generator.spec import GenerationParams
from explorer.grammar.gbnf import tool_parameters
from explorer.handlers.base import Handler, include_tools, lazy_tools_auto, word
from explorer.handlers.prompting import ContentOnlyTurn

CALL_PREFIX = "<|message_sep|>\n\nfunction call<|role_sep|>\n"


def build(p: ChatPeg, i: GenerationParams) -> int:
    p.eps()  # ret's initial value
    if i.wants_tools:
        tool_choice = p.choice()
        for tool in i.tools or ():  # every tool, no function filter (as llama.cpp)
            fn = tool["function"]
            name = fn["name"]
            tool_name = p.json_member("name", p.cat('"', lambda: p.tool_name(p.literal(name)), '"'))
            tool_args = p.json_member("arguments", p.tool_args(
                p.schema(p.json(), f"tool-{name}-schema", tool_parameters(fn))))
            tool_open = p.tool_open(p.shl(lambda: p.literal("{"), tool_name))
            tool_choice = p.choice([tool_choice, p.rule(f"tool-{name}", p.shl(tool_open, ",", tool_args, "}"))])
        tool_call = p.rule("tool-call", p.cat(lambda: p.literal(CALL_PREFIX), tool_choice))
        # parallel tool calls are not supported
        tool_calls = p.trigger_rule("tool-call-root", p.repeat(tool_call, 1 if i.required else 0, 1))
        ret = p.shl(lambda: p.content(p.until("<|message_sep|>\n\n")), tool_calls)
    else:
        ret = p.content(p.rest())
    return p.cat(lambda: p.literal("assistant<|role_sep|>\n"), ret)


class GigachatV3(Handler):
    name = "gigachat-v3"
    required = ("<|role_sep|>", "<|message_sep|>")
    forbidden = ("<|function_call|>",)

    supports_thinking = False
    continuation = ContentOnlyTurn("assistant<|role_sep|>\n")

    build = staticmethod(build)
    include = staticmethod(include_tools)
    lazy = staticmethod(lazy_tools_auto)
    triggers = (word(CALL_PREFIX),)
    preserved_tokens = ("<|message_sep|>\n\n", "<|role_sep|>\n")
    reference = "common/parsers/gigachat-v3.cpp"
