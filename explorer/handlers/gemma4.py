"""Gemma 4: ``<|channel>thought...<channel|>`` reasoning, ``<|tool_call>call:NAME{k:v}<tool_call|>``.

Input: the template source (routing), the messages and rendered prompt (apply) and
``GenerationParams`` (parser). Output: the ``Gemma4`` handler class and its
``Gemma4Outdated`` variant (llama.cpp's ``common/parsers/gemma4.cpp``; one branch of
``common_chat_try_specialized_template``): an older template (no "OpenAI Chat
Completions" comment) gets its tool results folded into the assistant turn first
(``convert_tool_responses_gemma4``). Arguments use Gemma's own object notation
(``<|"|>`` string quotes), mapped by the ``peg-gemma4`` mapper.
"""

from __future__ import annotations

import copy
import json

from explorer.generator.chat_builder import ChatPeg, function_tools
from explorer.generator.spec import GenerationParams
from explorer.handlers.base import (
    Handler,
    delimiters,
    include_tools_or_format,
    lazy_unless_forced,
    word,
)
from explorer.handlers.prompting import (
    ContinuationInputs,
    Message,
    Messages,
    MessageWorkaround,
    RenderedPair,
    TaggedTurn,
)
from explorer.jsontypes import Json
from explorer.peg.chat_mappers import Gemma4Mapper

Q = '<|"|>'
CALL_MARKER = "'<|tool_call>call:'"
CURRENT_MARKER = "{#- OpenAI Chat Completions:"


def _value_rules(p: ChatPeg) -> None:
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


def build(p: ChatPeg, i: GenerationParams) -> int:
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


# --- prompt -----------------------------------------------------------------------------------


def open_model_turn(pair: RenderedPair, add_generation_prompt: bool) -> RenderedPair:
    """When the prompt ends a turn without opening the model's (content + tool call
    history), llama.cpp opens it itself."""
    if add_generation_prompt and pair.prompt.endswith("<turn|>\n"):
        gen = "<|turn>model\n"
        return RenderedPair(pair.prompt + gen, gen, "appended '<|turn>model\\n'")
    return pair


def continue_turn(c: ContinuationInputs) -> str:
    prefix = "<|turn>model\n" if c.prompt.endswith("<turn|>\n") else ""
    return TaggedTurn(prefix, "<|channel>thought\n", "<channel|>")(c)


def _has_content(msg: Message) -> bool:
    content = msg.get("content")
    return isinstance(content, (str, list)) and len(content) > 0


def _has_tool_calls(msg: Message) -> bool:
    calls = msg.get("tool_calls")
    return isinstance(calls, list) and len(calls) > 0


def _tool_response(tool_msg: Message) -> Json:
    if "content" not in tool_msg:
        return None
    content = tool_msg["content"]
    if isinstance(content, str):
        try:
            parsed: Json = json.loads(content)
            return parsed
        except ValueError:
            return content
    return content


def _model_turn(messages: Messages, pos: int) -> tuple[Message, int]:
    """Fold assistant(tool_calls) + tool* [+ assistant(content)] into one message."""
    first = messages[pos]
    tool_calls = first["tool_calls"]
    assert isinstance(tool_calls, list), "called on an assistant turn with tool calls"
    calls = list(tool_calls)
    reasoning = first.get("reasoning_content")
    pos += 1
    responses: list[Json] = []
    while pos < len(messages) and messages[pos].get("role") == "tool":
        idx = len(responses)
        name: Json = ""  # the call's function name, else the message's tool_call_id, as sent
        call = calls[idx] if idx < len(calls) else None
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):  # the parsed request's calls all have one
            name = function.get("name", "")
        if not name:
            name = messages[pos].get("tool_call_id", "")
        responses.append({"name": name, "response": _tool_response(messages[pos])})
        pos += 1
    content = None
    if pos < len(messages) and messages[pos].get("role") == "assistant":
        nxt = messages[pos]
        if not _has_tool_calls(nxt) and _has_content(nxt):
            content = nxt["content"]
            pos += 1
    turn: Message = {"role": "assistant", "tool_calls": calls}
    if responses:
        turn["tool_responses"] = responses
    if content is not None:
        turn["content"] = content
    if isinstance(reasoning, str):
        turn["reasoning_content"] = reasoning
    return turn, pos


def convert_tool_responses_gemma4(messages: Messages) -> Messages:
    """Older Gemma 4 templates read ``tool_responses`` on the assistant turn instead of
    ``role: tool`` messages; llama.cpp rewrites the conversation into that shape.

    llama.cpp quirk: the folded turn takes its content only from the answer that
    follows the tool results, so content sent alongside the tool calls is dropped."""
    src = copy.deepcopy(list(messages))
    out: Messages = []
    i = 0
    while i < len(src):
        msg = src[i]
        if msg.get("role") != "assistant" or not _has_tool_calls(msg):
            out.append(msg)
            i += 1
            continue
        turn, i = _model_turn(src, i)
        out.append(turn)
    return out


class Gemma4(Handler):
    name = "gemma4"
    required = (CALL_MARKER,)

    finish = staticmethod(open_model_turn)
    continuation = staticmethod(continue_turn)

    build = staticmethod(build)
    include = staticmethod(include_tools_or_format)
    lazy = staticmethod(lazy_unless_forced)
    triggers = (word("<|tool_call>"),)
    mapper = Gemma4Mapper
    preserved_tokens = ("<|channel>", "<channel|>", "<|tool_call>", "<tool_call|>", "<|turn>")
    thinking_start_tag = "<|channel>thought"
    thinking_end_tags = ("<channel|>",)
    message_delimiters = delimiters(("user", "<|turn>user"), ("assistant", "<|turn>model"))
    reference = "common/parsers/gemma4.cpp"


class Gemma4Outdated(Gemma4):
    """Checked before ``Gemma4``, so the registry stays a first-match list."""

    name = "gemma4(outdated-template-workarounds)"
    forbidden = (CURRENT_MARKER,)
    note = "older Gemma 4 template: convert_tool_responses_gemma4 is applied"

    message_workarounds = (MessageWorkaround(
        convert_tool_responses_gemma4,
        step="outdated Gemma 4 template",
        applies_reason=f"Gemma 4 template without {CURRENT_MARKER!r}",
        skipped_reason="only for outdated Gemma 4 templates",
    ),)

    describe_note = "older template: the apply stage runs convert_tool_responses_gemma4"
