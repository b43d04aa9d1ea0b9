"""GPT-OSS (harmony): ``<|start|>assistant<|channel|>analysis|commentary|final<|message|>``.

Input: the template source (routing), the messages and rendered prompt (apply),
``GenerationParams`` (parser) and a ``GarbleInput`` (triage). Output: the ``GptOss``
handler class (llama.cpp's ``common/parsers/gpt-oss.cpp``). Tool calls name their
recipient either in the role header or in the channel header; grammar triggers are
regex patterns. Its garbles are read off the handler source: a call wants
``<|channel|>commentary|analysis`` and `` to=functions.NAME`` (either order), an
optional constraint, ``<|message|>``, JSON, and the parser reads one call.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from explorer.generator.chat_builder import ChatPeg, function_tools
from explorer.generator.spec import GenerationParams
from explorer.grammar.gbnf import tool_parameters
from explorer.handlers.base import (
    Handler,
    delimiters,
    include_tools_or_format,
    lazy_unless_forced,
    pattern,
)
from explorer.handlers.garbles import Garble, GarbleInput, Hit, argument_names, regex_hits
from explorer.handlers.prompting import RenderedPair, TaggedTurn, reasoning_to_thinking
from explorer.jsonscan import json_object_at


def return_to_end(pair: RenderedPair, add_generation_prompt: bool) -> RenderedPair:
    """Without a generation prompt (inference), the last ``<|return|>`` becomes
    ``<|end|>`` (llama.cpp issue 15417)."""
    if add_generation_prompt:
        return pair
    pos = pair.prompt.rfind("<|return|>")
    if pos < 0:
        return pair
    prompt = pair.prompt[:pos] + "<|end|>" + pair.prompt[pos + len("<|return|>") :]
    return RenderedPair(prompt, pair.generation_prompt, "last '<|return|>' -> '<|end|>'")


def build(p: ChatPeg, i: GenerationParams) -> int:
    start = p.rule("start", p.literal("<|start|>assistant"))
    end = p.rule("end", p.literal("<|end|>"))
    content = p.rule("message-content", p.until("<|end|>"))
    channel = p.cat(lambda: p.literal("<|channel|>"),
                    lambda: p.alt(lambda: p.literal("commentary"), lambda: p.literal("analysis")))
    constrain_type = p.chars("[A-Za-z0-9_-]", 1, -1)
    # gpt-oss-20b sometimes puts a stray commentary channel first
    stray = p.optional(p.cat(lambda: p.literal("<|channel|>commentary"),
                             lambda: p.optional(p.literal(" to=assistant"))))
    start_analysis = p.cat(stray, lambda: p.literal("<|channel|>analysis<|message|>"))
    if i.extract_reasoning:
        p.rule("analysis", p.cat(start_analysis, lambda: p.reasoning(content), end))
    else:
        p.rule("analysis", p.content(p.cat(start_analysis, content, end)))
    analysis = p.ref("analysis")
    preamble = p.rule("preamble", p.cat(lambda: p.literal("<|channel|>commentary<|message|>"),
                                        lambda: p.content(content), end))
    final_msg = p.rule("final", p.cat(stray, lambda: p.literal("<|channel|>final<|message|>"),
                                      lambda: p.content(content)))
    unsolicited = p.rule("unsolicited", p.atomic(p.cat(lambda: p.optional(channel), lambda: p.literal(" to="),
                                                       content, end)))
    any_ = p.rule("any", p.alt(preamble, analysis))

    def constraint() -> int:
        return p.optional(p.cat(p.space, lambda: p.optional(p.literal("<|constrain|>")), constrain_type))

    if i.has_schema_object:
        cons = constraint()
        response_format = p.rule("response-format", p.cat(
            lambda: p.literal("<|channel|>final"), cons, lambda: p.literal("<|message|>"),
            lambda: p.content(p.schema(p.json(), "response-format-schema", i.schema))))
        return p.cat(lambda: p.zero_or_more(p.cat(start, analysis)), start, response_format)
    if i.wants_tools:
        tool_choice = p.choice()
        for tool in function_tools(i.tools):
            fn = tool["function"]
            name = fn["name"]
            func_name = p.cat(lambda: p.literal(" to=functions."), lambda: p.tool_name(p.literal(name)))
            cons = constraint()
            args = p.tool_args(p.schema(p.json(), f"tool-{name}-schema", tool_parameters(fn)))
            in_role = p.tool(p.cat(lambda: p.tool_open(p.cat(func_name, channel, cons,
                                                             lambda: p.literal("<|message|>"))), args))
            in_channel = p.tool(p.cat(lambda: p.tool_open(p.cat(channel, func_name, cons,
                                                                lambda: p.literal("<|message|>"))), args))
            tool_choice = p.choice([tool_choice, p.rule(f"tool-{name}", p.alt(in_role, in_channel))])
        tool_call = p.trigger_rule("tool-call", tool_choice)
        if i.required:
            return p.cat(lambda: p.zero_or_more(p.cat(start, any_)), start, tool_call)
        return p.cat(lambda: p.zero_or_more(p.cat(start, any_)), start, lambda: p.alt(tool_call, final_msg))
    return p.cat(lambda: p.zero_or_more(p.cat(start, any_)), start, lambda: p.alt(final_msg, unsolicited))


# --- garbles -----------------------------------------------------------------------------------

_HEADER = r"(?:^|<\|start\|>assistant|<\|channel\|>(?:commentary|analysis))[ \t]*"


def _recipient(g: GarbleInput) -> Iterator[Hit]:
    rx = re.compile(_HEADER + r"(?P<bad>to=(?!functions\.)(?!assistant\b)(?P<name>[\w.\-]+))")
    for m in rx.finditer(g.output):
        name = m.group("name")
        if name in g.tool_names or name.split(".")[-1] in g.tool_names:
            yield m.start("bad"), m.end("bad"), m.group("bad"), "to=functions." + name.split(".")[-1]


def _not_a_function(g: GarbleInput) -> Iterator[Hit]:
    rx = re.compile(_HEADER + r"(?P<bad>to=(?!functions\.)(?!assistant\b)(?P<name>[\w.\-]+))")
    for m in rx.finditer(g.output):
        name = m.group("name")
        if name not in g.tool_names and name.split(".")[-1] not in g.tool_names:
            yield m.start("bad"), m.end("bad"), m.group("bad"), "to=functions.NAME (one of the request's tools)"


_CONSTRAINT = r"(?:[ \t]*(?:<\|constrain\|>)?[A-Za-z0-9_-]+)?"
_CALL_HEADER = (r"(?:<\|channel\|>(?:commentary|analysis)[ \t]*to=functions\.[\w.\-]+" + _CONSTRAINT
                + r"|to=functions\.[\w.\-]+<\|channel\|>(?:commentary|analysis)" + _CONSTRAINT + ")")


# llama.cpp quirk: llama-vocab drops <|end|> from the end-of-generation tokens of a harmony vocabulary, so a
# call closed with <|end|> does not stop llama-server; the gpt-oss parser drops what the model writes next.
def _end_instead_of_call(g: GarbleInput) -> Iterator[Hit]:
    rx = re.compile(_CALL_HEADER + r"<\|message\|>")
    for m in rx.finditer(g.output):
        obj = json_object_at(g.output, m.end())
        if not obj.ok:
            continue
        after = g.output[obj.end:]
        lead = len(after) - len(after.lstrip())
        if after.lstrip().startswith("<|end|>"):
            at = obj.end + lead
            yield at, at + len("<|end|>"), "<|end|>", "<|call|>"


def _body_call(g: GarbleInput) -> Iterator[Hit]:
    """A call written as a message body, with no recipient in the header."""
    if g.has_calls:
        return
    wanted = argument_names(g)
    # not the final channel: JSON there is most often the answer itself (a user asked for it)
    rx = re.compile(r"<\|channel\|>(?P<ch>analysis|commentary)<\|message\|>\s*(?=\{)")
    for m in rx.finditer(g.output):
        obj = json_object_at(g.output, m.end())
        keys = set(obj.value) if isinstance(obj.value, dict) else set()
        if obj.looks_like_call or (keys and wanted and keys <= wanted):
            yield m.start(), obj.end, g.output[m.start():min(obj.end, m.start() + 60)], \
                f"<|channel|>commentary to=functions.NAME<|message|> (here: the {m.group('ch')} channel, no recipient)"


def _second_message(g: GarbleInput) -> Iterator[Hit]:
    """More after a call that llama.cpp read: its parser reads one call, as the last message."""
    if not g.has_calls or g.parsed_all:
        return
    rest = g.output[g.stop:]
    at = rest.find("<|start|>assistant")
    if at >= 0 and rest[:at].strip() in ("", "<|call|>", "<|end|>"):
        start = g.stop + at
        yield start, len(g.output), g.output[start:start + 60], "the end of the output"


SOURCE = "llama.cpp's gpt-oss handler (common/parsers/gpt-oss.cpp)"

GARBLES: tuple[Garble, ...] = (
    Garble(_recipient,
           "The call's recipient is {found}; llama.cpp's gpt-oss parser reads a function call only as "
           "{expected} (the \"functions.\" namespace is part of the recipient), so the call is not recognised.",
           f"{SOURCE} builds each call as \" to=functions.\" + the tool's name, in the role header "
           "(\" to=functions.NAME<|channel|>commentary\") or after the channel (\"<|channel|>commentary "
           "to=functions.NAME\"); the template renders the first.",
           "Model side: address tools as to=functions.NAME, as the template's prompt shows them."),
    Garble(_not_a_function,
           "The output addresses {found}, which is not one of the request's functions; with tools in the "
           "request llama.cpp's gpt-oss parser reads only \"to=functions.NAME\" for the offered tools.",
           f"{SOURCE}: its \"unsolicited\" branch (a builtin recipient such as python or browser, "
           "kept as empty content) exists only when the request has no tools; with tools a call to any other "
           "recipient matches nothing.",
           "Request side: offer the tool (or send no tools when builtin tools are used). Model side: call one "
           "of the offered functions."),
    Garble(regex_hits(r"<\|channel\|>(?P<bad>(?!commentary\b|analysis\b)\w+)[ \t]*to=functions\.", "commentary"),
           "The call goes out on the {found} channel; llama.cpp's gpt-oss parser takes calls only on the "
           "commentary (or analysis) channel.",
           f"{SOURCE} spells the call's channel as \"<|channel|>\" + (\"commentary\" | \"analysis\").",
           "Model side: send tool calls on the commentary channel, as the template renders them."),
    Garble(regex_hits(r"to=functions\.[\w.\-]+<\|channel\|>(?P<bad>(?!commentary|analysis)\w+)", "commentary"),
           "The call goes out on the {found} channel; llama.cpp's gpt-oss parser takes calls only on the "
           "commentary (or analysis) channel.",
           f"{SOURCE} spells the call's channel as \"<|channel|>\" + (\"commentary\" | \"analysis\").",
           "Model side: send tool calls on the commentary channel, as the template renders them."),
    Garble(regex_hits("(?P<bad>" + _CALL_HEADER + r")\s*(?=\{)", "{bad}<|message|>"),
           "The call's header {found} runs straight into the arguments: llama.cpp's gpt-oss parser needs "
           "\"<|message|>\" between them.",
           f"{SOURCE}: a call is header + optional constraint (\" json\", \" <|constrain|>json\") + "
           "\"<|message|>\" + JSON arguments; \"<|message|>\" is a preserved token the model emits as one token.",
           "Model side: end the call header with <|message|>, as the template renders it."),
    Garble(_end_instead_of_call,
           "The call ends with {found}, where the template ends a call with {expected}: llama.cpp reads the call, "
           "but a real server does not stop generating there.",
           "llama.cpp quirk: for a harmony vocabulary (it has <|return|> and <|call|>) llama-vocab takes <|end|> "
           "off the end-of-generation tokens, so after \"<|end|>\" the model keeps writing; "
           f"{SOURCE} reads one call and drops whatever follows it.",
           "Model side: end a tool call with <|call|> (an end-of-generation token), as the template renders it.",
           always=True, severity="warning"),
    Garble(regex_hits(r"<\|channel\|>(?P<bad>(?!(?:commentary|analysis|final)(?=<|[ \t]|$))[^<\n]{0,30})",
                      "analysis, commentary, final"),
           "The channel {found} is none of harmony's channels: llama.cpp's gpt-oss parser knows analysis, commentary "
           "and final only, so the output does not match.",
           f"{SOURCE} spells each message as \"<|channel|>\" + analysis | commentary | final, then "
           "\"<|message|>\" (or a recipient and constraint first).",
           "Model side: this is a garbled channel name (often a sampling or quantisation problem); the model must "
           "write one of the three channels."),
    Garble(regex_hits(r"<\|channel\|>final(?P<bad>[ \t]*)\{", "<|message|>"),
           "The final message has no {expected} after \"<|channel|>final\": llama.cpp's gpt-oss parser needs it "
           "before the answer.",
           f"{SOURCE}: the answer is \"<|channel|>final<|message|>\" + content.",
           "Model side: write <|channel|>final<|message|> before the answer."),
    Garble(_second_message,
           "After the tool call the output goes on with another message ({found}…); llama.cpp's gpt-oss parser "
           "reads one tool call, as the last message, and drops the rest.",
           "In llama-server <|call|> ends generation (an end-of-generation token of the harmony vocabulary), so "
           f"nothing follows a call; {SOURCE} ends its parser with one tool call (no repetition).",
           "Model side: stop at <|call|> and send the tool result before the next message; a client that joins "
           "several turns must parse them one by one.", always=True),
    Garble(_body_call,
           "A call is written as the message body of {found}…, with no recipient in the header: llama.cpp keeps "
           "it as text (reasoning on the analysis channel, content otherwise), not as a tool call.",
           f"{SOURCE} reads a call only when the header names the recipient (\"to=functions.NAME\"); "
           "the body of an analysis or commentary message is reasoning or content.",
           "Model side: put the recipient in the header: <|channel|>commentary to=functions.NAME <|constrain|>json"
           "<|message|>{…}.", always=True),
)


class GptOss(Handler):
    name = "gpt-oss"
    required = ("<|channel|>",)

    messages_override = staticmethod(reasoning_to_thinking(drop_content_with_calls=True))
    finish = staticmethod(return_to_end)
    continuation = TaggedTurn("<|start|>assistant", "<|channel|>analysis<|message|>",
                              "<|end|><|start|>assistant<|channel|>final<|message|>")

    build = staticmethod(build)
    include = staticmethod(include_tools_or_format)
    lazy = staticmethod(lazy_unless_forced)
    triggers = (
        pattern("^\\s+to$"),
        pattern("^<\\|channel\\|>(?:commentary|analysis)\\s+to=functions$"),
        pattern("<\\|start\\|>assistant(\\s+to)"),
        pattern("<\\|start\\|>assistant(<\\|channel\\|>(?:commentary|analysis)\\s+to)"),
    )
    preserved_tokens = ("<|channel|>", "<|constrain|>", "<|message|>", "<|start|>", "<|end|>")
    thinking_start_tag = "<|channel|>analysis<|message|>"
    thinking_end_tags = ("<|end|>",)
    message_delimiters = delimiters(("assistant", "<|start|>assistant"), ("user", "<|start|>user"),
                                    ("system", "<|start|>developer"), ("system", "<|start|>system"),
                                    ("tool", "<|start|>functions"))
    reference = "common/parsers/gpt-oss.cpp"

    garbles = GARBLES
    # llama-server keeps generating after <|end|>: the parse stopping there is not "the server stopped"
    not_end_of_generation = ("<|end|>",)
