"""Slips in a routed handler's own call markup, for formats announced by regex triggers.

Input: ``Facts``. Output: findings. GPT-OSS (harmony), Functionary v3.2 and Muse Glimmer
are parsed by hand-written handlers (llama.cpp's ``common/parsers/*.cpp``) whose calls
start at a pattern, not a fixed word; the typical garbles of each are declared here as
data (``Garble``), with the text the handler's parser wants. Everything a garble says is
read off the handler source: GPT-OSS wants ``<|channel|>commentary|analysis`` and
`` to=functions.NAME`` (either order), optional constraint, ``<|message|>``, JSON, and reads
one call; Functionary v3.2 wants ``NAME\\n{json}`` right after the prompt's ``>>>``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from explorer.triage.checks_tools import is_cause
from explorer.triage.facts import Facts
from explorer.triage.model import Finding, shown
from explorer.triage.textscan import json_object_at

Hit = tuple[int, int, str, str]  # span start, span end, found, expected


@dataclass(frozen=True)
class Garble:
    """One typical slip of a handler's format: how to find it and what to say."""

    handler: str
    find: Callable[[Facts], Iterator[Hit]]
    summary: str  # {found} and {expected} are filled in
    detail: str
    fix_hint: str
    always: bool = False  # a cause even when the text survives somewhere (call lost either way)
    severity: str = "cause"


def _regex_hits(pattern: str, expected: str, group: str = "bad") -> Callable[[Facts], Iterator[Hit]]:
    rx = re.compile(pattern)

    def find(f: Facts) -> Iterator[Hit]:
        for m in rx.finditer(f.output):
            yield m.start(group), m.end(group), m.group(group), expected.format(**m.groupdict())
    return find


# --- GPT-OSS ---------------------------------------------------------------------------------

_HEADER = r"(?:^|<\|start\|>assistant|<\|channel\|>(?:commentary|analysis))[ \t]*"


def _gpt_oss_recipient(f: Facts) -> Iterator[Hit]:
    rx = re.compile(_HEADER + r"(?P<bad>to=(?!functions\.)(?!assistant\b)(?P<name>[\w.\-]+))")
    for m in rx.finditer(f.output):
        name = m.group("name")
        if name in f.tool_names or name.split(".")[-1] in f.tool_names:
            yield m.start("bad"), m.end("bad"), m.group("bad"), "to=functions." + name.split(".")[-1]


def _gpt_oss_not_a_function(f: Facts) -> Iterator[Hit]:
    rx = re.compile(_HEADER + r"(?P<bad>to=(?!functions\.)(?!assistant\b)(?P<name>[\w.\-]+))")
    for m in rx.finditer(f.output):
        name = m.group("name")
        if name not in f.tool_names and name.split(".")[-1] not in f.tool_names:
            yield m.start("bad"), m.end("bad"), m.group("bad"), "to=functions.NAME (one of the request's tools)"


_CONSTRAINT = r"(?:[ \t]*(?:<\|constrain\|>)?[A-Za-z0-9_-]+)?"
_CALL_HEADER = (r"(?:<\|channel\|>(?:commentary|analysis)[ \t]*to=functions\.[\w.\-]+" + _CONSTRAINT
                + r"|to=functions\.[\w.\-]+<\|channel\|>(?:commentary|analysis)" + _CONSTRAINT + ")")


# llama.cpp quirk: llama-vocab drops <|end|> from the end-of-generation tokens of a harmony vocabulary, so a
# call closed with <|end|> does not stop llama-server; the gpt-oss parser drops what the model writes next.
def _gpt_oss_end_instead_of_call(f: Facts) -> Iterator[Hit]:
    rx = re.compile(_CALL_HEADER + r"<\|message\|>")
    for m in rx.finditer(f.output):
        obj = json_object_at(f.output, m.end())
        if not obj.ok:
            continue
        after = f.output[obj.end:]
        lead = len(after) - len(after.lstrip())
        if after.lstrip().startswith("<|end|>"):
            at = obj.end + lead
            yield at, at + len("<|end|>"), "<|end|>", "<|call|>"


def _gpt_oss_body_call(f: Facts) -> Iterator[Hit]:
    """A call written as a message body, with no recipient in the header."""
    if f.calls:
        return
    wanted = {k for t in f.request.tools or () for k in _properties(t)}
    # not the final channel: JSON there is most often the answer itself (a user asked for it)
    rx = re.compile(r"<\|channel\|>(?P<ch>analysis|commentary)<\|message\|>\s*(?=\{)")
    for m in rx.finditer(f.output):
        obj = json_object_at(f.output, m.end())
        keys = set(obj.value) if isinstance(obj.value, dict) else set()
        if obj.looks_like_call or (keys and wanted and keys <= wanted):
            yield m.start(), obj.end, f.output[m.start():min(obj.end, m.start() + 60)], \
                f"<|channel|>commentary to=functions.NAME<|message|> (here: the {m.group('ch')} channel, no recipient)"


def _gpt_oss_second_message(f: Facts) -> Iterator[Hit]:
    """More after a call that llama.cpp read: its parser reads one call, as the last message."""
    if not f.calls or f.parse.result.end >= len(f.parse.input):
        return
    rest = f.output[f.stop:]
    at = rest.find("<|start|>assistant")
    if at >= 0 and rest[:at].strip() in ("", "<|call|>", "<|end|>"):
        start = f.stop + at
        yield start, len(f.output), f.output[start:start + 60], "the end of the output"


def _properties(tool: object) -> set[str]:
    fn = tool.get("function", tool) if isinstance(tool, dict) else {}
    props = fn.get("parameters", {}).get("properties", {}) if isinstance(fn, dict) else {}
    return set(props) if isinstance(props, dict) else set()


GPT_OSS_SOURCE = "llama.cpp's gpt-oss handler (common/parsers/gpt-oss.cpp)"

# --- Functionary v3.2 ------------------------------------------------------------------------

FUNCTIONARY_SOURCE = "llama.cpp's functionary-v3.2 handler (common/parsers/functionary-v3-2.cpp)"


def _slots(f: Facts) -> Iterator[int]:
    """Where a recipient is due: the output's start (the generation prompt ends with ">>>")
    and after every ">>>" in the output."""
    if f.gp.endswith(">>>"):
        yield 0
    for m in re.finditer(">>>", f.output):
        yield m.end()


def _functionary_space(f: Facts) -> Iterator[Hit]:
    for at in _slots(f):
        m = re.compile(r"[ \t]+(?P<name>[A-Za-z_][\w.\-]*)").match(f.output, at)
        if m and (m.group("name") in f.tool_names or m.group("name") == "all"):
            start = at - 3 if at else at  # the output's own ">>>" is part of what was found
            yield start, m.end(), f.output[start:m.end()], ">>>" + m.group("name")


def _functionary_repeated(f: Facts) -> Iterator[Hit]:
    if f.gp.endswith(">>>") and f.output.startswith(">>>"):
        m = re.compile(r">>>(?P<name>[A-Za-z_][\w.\-]*)?").match(f.output)
        assert m is not None
        yield 0, 3, ">>>", m.group("name") or "all"


def _functionary_no_newline(f: Facts) -> Iterator[Hit]:
    for at in _slots(f):
        m = re.compile(r"(?P<name>[A-Za-z_][\w.\-]*)(?P<bad>[^\n\w.\-])").match(f.output, at)
        if m and m.group("name") in f.tool_names:
            yield at, m.end(), m.group(0), m.group("name") + "\n"


# llama.cpp quirk: functionary-v3-2.cpp's content stops before ">>>" but no rule reads ">>>", so content
# followed by a call, or two calls, never parse as written (the call ends up in content or the parse fails).
def _functionary_after_first(f: Facts) -> Iterator[Hit]:
    """A ">>>NAME" after content or after a call (the parser never reads that ">>>")."""
    for m in re.finditer(r">>>(?P<name>[A-Za-z_][\w.\-]*)\n", f.output):
        if m.group("name") in f.tool_names and m.start() > 0:
            yield m.start(), m.end(), m.group(0).rstrip("\n"), m.group("name") + "\n…"


# Tokens that end a message but not generation, per handler: llama-server keeps generating
# after them, so the parse stopping there is not "the server stopped" (handler-format says it).
NOT_END_OF_GENERATION: dict[str, tuple[str, ...]] = {"gpt-oss": ("<|end|>",)}

def _functionary_call_as_content(f: Facts) -> Iterator[Hit]:
    """A call written under the ``all`` recipient (content) instead of its own."""
    if f.calls or not f.output.startswith("all\n"):
        return
    body = len("all\n") + len(f.output[4:]) - len(f.output[4:].lstrip())
    m = re.compile(r"(?P<name>[A-Za-z_][\w.\-]*)\n\s*\{").match(f.output, body)
    if m and m.group("name") in f.tool_names:
        yield 0, m.end("name"), f.output[:m.end("name")], m.group("name")
        return
    if f.output.startswith("{", body):
        obj = json_object_at(f.output, body)
        wanted = {k for t in f.request.tools or () for k in _properties(t)}
        keys = set(obj.value) if isinstance(obj.value, dict) else set()
        if obj.looks_like_call or (keys and wanted and keys <= wanted):
            yield 0, obj.end, f.output[:min(obj.end, 40)], "NAME (the tool's name instead of all)"


# --- Muse Glimmer ----------------------------------------------------------------------------

MUSE_SOURCE = "llama.cpp's muse-glimmer handler (common/parsers/muse-glimmer.cpp)"


GARBLES: tuple[Garble, ...] = (
    Garble("gpt-oss", _gpt_oss_recipient,
           "The call's recipient is {found}; llama.cpp's gpt-oss parser reads a function call only as "
           "{expected} (the \"functions.\" namespace is part of the recipient), so the call is not recognised.",
           f"{GPT_OSS_SOURCE} builds each call as \" to=functions.\" + the tool's name, in the role header "
           "(\" to=functions.NAME<|channel|>commentary\") or after the channel (\"<|channel|>commentary "
           "to=functions.NAME\"); the template renders the first.",
           "Model side: address tools as to=functions.NAME, as the template's prompt shows them."),
    Garble("gpt-oss", _gpt_oss_not_a_function,
           "The output addresses {found}, which is not one of the request's functions; with tools in the "
           "request llama.cpp's gpt-oss parser reads only \"to=functions.NAME\" for the offered tools.",
           f"{GPT_OSS_SOURCE}: its \"unsolicited\" branch (a builtin recipient such as python or browser, "
           "kept as empty content) exists only when the request has no tools; with tools a call to any other "
           "recipient matches nothing.",
           "Request side: offer the tool (or send no tools when builtin tools are used). Model side: call one "
           "of the offered functions."),
    Garble("gpt-oss", _regex_hits(r"<\|channel\|>(?P<bad>(?!commentary\b|analysis\b)\w+)[ \t]*to=functions\.",
                                  "commentary"),
           "The call goes out on the {found} channel; llama.cpp's gpt-oss parser takes calls only on the "
           "commentary (or analysis) channel.",
           f"{GPT_OSS_SOURCE} spells the call's channel as \"<|channel|>\" + (\"commentary\" | \"analysis\").",
           "Model side: send tool calls on the commentary channel, as the template renders them."),
    Garble("gpt-oss", _regex_hits(r"to=functions\.[\w.\-]+<\|channel\|>(?P<bad>(?!commentary|analysis)\w+)",
                                  "commentary"),
           "The call goes out on the {found} channel; llama.cpp's gpt-oss parser takes calls only on the "
           "commentary (or analysis) channel.",
           f"{GPT_OSS_SOURCE} spells the call's channel as \"<|channel|>\" + (\"commentary\" | \"analysis\").",
           "Model side: send tool calls on the commentary channel, as the template renders them."),
    Garble("gpt-oss", _regex_hits("(?P<bad>" + _CALL_HEADER + r")\s*(?=\{)", "{bad}<|message|>"),
           "The call's header {found} runs straight into the arguments: llama.cpp's gpt-oss parser needs "
           "\"<|message|>\" between them.",
           f"{GPT_OSS_SOURCE}: a call is header + optional constraint (\" json\", \" <|constrain|>json\") + "
           "\"<|message|>\" + JSON arguments; \"<|message|>\" is a preserved token the model emits as one token.",
           "Model side: end the call header with <|message|>, as the template renders it."),
    Garble("gpt-oss", _gpt_oss_end_instead_of_call,
           "The call ends with {found}, where the template ends a call with {expected}: llama.cpp reads the call, "
           "but a real server does not stop generating there.",
           "llama.cpp quirk: for a harmony vocabulary (it has <|return|> and <|call|>) llama-vocab takes <|end|> "
           "off the end-of-generation tokens, so after \"<|end|>\" the model keeps writing; "
           f"{GPT_OSS_SOURCE} reads one call and drops whatever follows it.",
           "Model side: end a tool call with <|call|> (an end-of-generation token), as the template renders it.",
           always=True, severity="warning"),
    Garble("gpt-oss", _regex_hits(r"<\|channel\|>(?P<bad>(?!(?:commentary|analysis|final)(?=<|[ \t]|$))[^<\n]{0,30})",
                                  "analysis, commentary, final"),
           "The channel {found} is none of harmony's channels: llama.cpp's gpt-oss parser knows analysis, commentary "
           "and final only, so the output does not match.",
           f"{GPT_OSS_SOURCE} spells each message as \"<|channel|>\" + analysis | commentary | final, then "
           "\"<|message|>\" (or a recipient and constraint first).",
           "Model side: this is a garbled channel name (often a sampling or quantisation problem); the model must "
           "write one of the three channels."),
    Garble("gpt-oss", _regex_hits(r"<\|channel\|>final(?P<bad>[ \t]*)\{", "<|message|>"),
           "The final message has no {expected} after \"<|channel|>final\": llama.cpp's gpt-oss parser needs it "
           "before the answer.",
           f"{GPT_OSS_SOURCE}: the answer is \"<|channel|>final<|message|>\" + content.",
           "Model side: write <|channel|>final<|message|> before the answer."),
    Garble("gpt-oss", _gpt_oss_second_message,
           "After the tool call the output goes on with another message ({found}…); llama.cpp's gpt-oss parser "
           "reads one tool call, as the last message, and drops the rest.",
           "In llama-server <|call|> ends generation (an end-of-generation token of the harmony vocabulary), so "
           f"nothing follows a call; {GPT_OSS_SOURCE} ends its parser with one tool call (no repetition).",
           "Model side: stop at <|call|> and send the tool result before the next message; a client that joins "
           "several turns must parse them one by one.", always=True),
    Garble("gpt-oss", _gpt_oss_body_call,
           "A call is written as the message body of {found}…, with no recipient in the header: llama.cpp keeps "
           "it as text (reasoning on the analysis channel, content otherwise), not as a tool call.",
           f"{GPT_OSS_SOURCE} reads a call only when the header names the recipient (\"to=functions.NAME\"); "
           "the body of an analysis or commentary message is reasoning or content.",
           "Model side: put the recipient in the header: <|channel|>commentary to=functions.NAME <|constrain|>json"
           "<|message|>{…}.", always=True),
    Garble("functionary-v3.2", _functionary_space,
           "The recipient is written {found}, with whitespace after \">>>\": llama.cpp's functionary-v3.2 parser "
           "needs {expected} right after it.",
           f"{FUNCTIONARY_SOURCE}: a call is the tool's name as a literal right after \">>>\" (the generation "
           "prompt ends with it), then \"\\n\" and the JSON arguments; content is \"all\\n\" there.",
           "Model side: write >>>NAME (no space), as the template renders recipients."),
    Garble("functionary-v3.2", _functionary_repeated,
           "The output starts with \">>>\" again: the generation prompt already ends with \">>>\", so llama.cpp's "
           "functionary-v3.2 parser wants the recipient ({expected}) first.",
           f"{FUNCTIONARY_SOURCE} parses the generation prompt (ending \">>>\") in front of the output, then "
           "\"all\\n\" or a tool's name.",
           "Model side: continue after the prompt's >>> with the recipient (all or a tool name)."),
    Garble("functionary-v3.2", _functionary_no_newline,
           "The recipient {found} is not followed by a newline: llama.cpp's functionary-v3.2 parser needs "
           "{expected} before the JSON arguments.",
           f"{FUNCTIONARY_SOURCE}: a call is NAME + \"\\n\" + JSON arguments.",
           "Model side: write >>>NAME, a newline, then the arguments."),
    Garble("functionary-v3.2", _functionary_after_first,
           "A call {found} follows content or another call; llama.cpp's functionary-v3.2 parser does not read that "
           "\">>>\", so the call is not recognised (it stays in content, or the output is rejected).",
           f"llama.cpp quirk: in {FUNCTIONARY_SOURCE} content after \">>>all\\n\" stops at \">>>\", but the tool "
           "rule that follows starts with the tool's name, not \">>>\"; calls in a row are NAME\\n{json}NAME\\n"
           "{json} with nothing between them. Only a call right after the generation prompt's \">>>\" is read.",
           "Model side: with llama.cpp, make the call the whole reply (>>>NAME\\n{…} right after the prompt); "
           "content before a call, or a second call, cannot be read."),
    Garble("functionary-v3.2", _functionary_call_as_content,
           "The call is written under the recipient \"all\" ({found}…), which is content: llama.cpp's "
           "functionary-v3.2 parser returns it as text, not as a tool call; the recipient must be {expected}.",
           f"{FUNCTIONARY_SOURCE}: after the prompt's \">>>\" the recipient says what follows: \"all\\n\" is "
           "content, a tool's name + \"\\n\" is that tool's JSON arguments.",
           "Model side: write the tool's name as the recipient (>>>NAME, a newline, the arguments).", always=True),
    Garble("muse-glimmer", _regex_hits(r" to=[^<\n]*<\|message\|>(?P<bad>\s*)<atem:invoke", "<atem:function_calls>"),
           "The tool turn's message starts with <atem:invoke …> without the {expected} wrapper, which llama.cpp's "
           "muse-glimmer parser needs first.",
           f"{MUSE_SOURCE}: a call is \" to=RECIPIENT<|message|><atem:function_calls>\", then "
           "\"<atem:invoke name=\\\"NAME\\\">\".",
           "Model side: wrap calls in <atem:function_calls> … </atem:function_calls>, as the template renders them."),
)


def _inside_json(f: Facts, pos: int) -> bool:
    """Markup quoted inside a JSON value (a call's argument that talks about the format)."""
    return any(o.ok and o.start < pos < o.end for o in f.objects)


def handler_format(f: Facts) -> tuple[Finding, ...]:
    if f.tool_parser_reason is not None:
        return ()
    out: list[Finding] = []
    seen: set[tuple[int, int]] = set()
    for g in GARBLES:
        if g.handler != f.params.handler:
            continue
        for start, end, found, expected in g.find(f):
            span = (start, max(end, start + 1) if end <= len(f.output) else end)
            if (start, end) in seen or not (g.always or is_cause(f, (start, end))) or _inside_json(f, start):
                continue
            seen.add((start, end))
            severity = g.severity
            if g.severity == "warning" and f.output[end:].strip():
                severity = "cause"  # what follows the call is dropped
            out.append(Finding(
                check="handler-format", severity=severity,  # type: ignore[arg-type]
                summary=g.summary.format(found=shown(found), expected=shown(expected)),
                detail=g.detail, span=(start, min(span[1], len(f.output))), expected=expected, found=found,
                fix_hint=g.fix_hint))
    return tuple(sorted(out, key=lambda x: x.span or (0, 0)))
