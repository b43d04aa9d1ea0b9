"""Suggestions the triage shows only after our own parse of them gave the intended message.

Input: the ``Facts`` of a diagnosis, a corrected output (or a changed ``Request``), and the
message it should give: ``IntendedCall`` tuples (each call's name and the arguments the
model wrote) and optionally the content. Output: a ``Suggestion`` whose ``verified`` says
what the re-parse returned, or None when the re-parse did not give exactly that message
(an error, text left unparsed, a call missing or extra, other argument names or values,
a value that again holds the format's closing tag). A corrected output is parsed with
the same ``ChatParams``; a changed request through ``Facts.apply`` (the template's
params for that request), so a request suggestion needs the template.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from explorer.apply import Request
from explorer.apply.pipeline import ChatParams
from explorer.errors import ExplorerError
from explorer.jsonscan import JsonObject
from explorer.output.parse import OutputParse, analyse_output
from explorer.triage.calls import WrittenCall, call_formats, parsed_calls, written_calls
from explorer.triage.facts import Facts
from explorer.triage.model import Suggestion, shown

MAX_SHOWN = 160  # characters of an argument value quoted in ``verified``


@dataclass(frozen=True)
class IntendedCall:
    """A call the corrected output must give: its name and the arguments as written
    (raw text for tagged values, JSON values for JSON arguments); None: not compared."""

    name: str
    arguments: Mapping[str, object] | None = None


def from_written(calls: Sequence[WrittenCall]) -> tuple[IntendedCall, ...]:
    return tuple(IntendedCall(c.name, {a.name: a.value for a in c.args}) for c in calls)


def from_json(objects: Sequence[JsonObject]) -> tuple[IntendedCall, ...]:
    out: list[IntendedCall] = []
    for obj in objects:
        name = obj.call_name()
        value = obj.value if isinstance(obj.value, dict) else {}
        args = next((value[k] for k in ("arguments", "parameters") if isinstance(value.get(k), dict)), None)
        if name is not None:
            out.append(IntendedCall(name, args))
    return tuple(out)


def parse_with(params: ChatParams, output: str) -> OutputParse:
    return analyse_output(params.arena, output, generation_prompt=params.generation_prompt, format=params.format)


def _same_value(decoded: object, written: object) -> bool:
    if decoded == written:
        return True
    if not isinstance(written, str):
        return False
    if isinstance(decoded, str):
        return decoded.strip() == written.strip()
    try:
        return json.loads(written) == decoded
    except ValueError:
        return False


def _arguments(text: str) -> dict[str, object] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def message_matches(params: ChatParams, parse: OutputParse, intended: Sequence[IntendedCall],
                    content: str | None = None) -> str | None:
    """What ``parse`` returned, in words, when it is the intended message; else None."""
    m = parse.message
    if parse.error is not None or m is None or parse.result.fail() or parse.result.end < len(parse.input):
        return None
    parsed = parsed_calls(parse.result, len(params.generation_prompt))
    if any(pc.partial or pc.wrapper_partial for pc in parsed):
        return None  # a call the end of the text cut (the lenient parse's "need more input")
    if len(m.tool_calls) != len(intended):
        return None
    for call, want in zip(m.tool_calls, intended):
        args = _arguments(call.arguments)
        if call.name != want.name or args is None:
            return None
        if want.arguments is not None and (set(args) != set(want.arguments) or not all(
                _same_value(args[k], v) for k, v in want.arguments.items())):
            return None
    if content is not None and m.content.strip() != content.strip():
        return None
    formats = call_formats(params.arena)
    for pc in parsed:
        closes = [c.strip() for c in (formats[pc.name].arg_closes if pc.name in formats else ()) if c.strip()]
        if any(a.is_string and any(c in a.value for c in closes) for a in pc.args):
            return None  # a value that swallowed a closing tag again
    return describe(parse)


def describe(parse: OutputParse) -> str:
    m = parse.message
    assert m is not None
    calls = [f"{c.name} {_clip(c.arguments)}" for c in m.tool_calls]
    said = f"no error; {len(calls)} tool call{'s' if len(calls) != 1 else ''}"
    if calls:
        said += ": " + "; ".join(calls)
    if m.content.strip():
        said += f"; content {_clip(m.content)}"
    return said


def _clip(text: str) -> str:
    return shown(text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + "…")


def corrected_output(f: Facts, text: str, summary: str, intended: Sequence[IntendedCall],
                     content: str | None = None) -> Suggestion | None:
    """``text`` as a suggestion when the request's own parser reads it as intended."""
    if text == f.output:
        return None
    verified = message_matches(f.params, parse_with(f.params, text), intended, content)
    if verified is None:
        return None
    return Suggestion(kind="output", summary=summary, text=text,
                      verified=f"re-parsed with the same chat params: {verified}")


def changed_request(f: Facts, request: Request, change: str, summary: str, intended: Sequence[IntendedCall],
                    content: str | None = None) -> Suggestion | None:
    """A request change as a suggestion when the template's params for it read the same
    output as intended, and the template's own call (``Facts.own_call``, when the changed
    request offers tools) still parses back as a call under it. None without the template
    (``Facts.apply``)."""
    if f.apply is None:
        return None
    try:
        params = f.apply(request)
    except ExplorerError:
        return None
    verified = message_matches(params, parse_with(params, f.output), intended, content)
    if verified is None:
        return None
    own = own_call_under(f, request, params)
    if own is False:
        return None
    said = f"the same output parsed with the template's params for the changed request: {verified}"
    if own:
        said += "; the template's own call parses back as a call under it too"
    return Suggestion(kind="request", summary=summary, request_change=change, verified=said, request=request)


def own_call_under(f: Facts, request: Request, params: ChatParams) -> bool | None:
    """Whether the template's own call parses back as a call under ``request`` (None: no
    own call to try, or a request without tool calls)."""
    if f.own_call is None or not request.tools or request.tool_choice == "none":
        return None
    try:
        own = f.own_call(request)
    except ExplorerError:
        return None
    if not own:
        return None
    parse = parse_with(params, own)
    return parse.error is None and parse.message is not None and bool(parse.message.tool_calls)


def reasoning_change(f: Facts, request: Request, change: str, summary: str) -> Suggestion | None:
    """A request change (another thinking setting) as a suggestion when the template's params
    for it read the output's reasoning as reasoning: no error, all of it consumed, a
    reasoning_content, no reasoning tag left in content and no call lost; and the template's
    own call still parses back as a call under it."""
    if f.apply is None:
        return None
    try:
        params = f.apply(request)
    except ExplorerError:
        return None
    parse = parse_with(params, f.output)
    m = parse.message
    if parse.error is not None or m is None or parse.result.fail() or parse.result.end < len(parse.input):
        return None
    tags = [t.text.strip() for t in f.reasoning_starts + f.reasoning_ends if t.text.strip()]
    if not m.reasoning_content.strip() or any(t in m.content for t in tags) or len(m.tool_calls) < len(f.calls):
        return None
    if own_call_under(f, request, params) is False:
        return None
    said = (f"the same output parsed with the template's params for the changed request: no error; reasoning_content "
            f"{_clip(m.reasoning_content.strip())}" + (f"; content {_clip(m.content)}" if m.content.strip() else "")
            + (f"; {len(m.tool_calls)} tool call(s)" if m.tool_calls else ""))
    return Suggestion(kind="request", summary=summary, request_change=change, verified=said, request=request)


def calls_as_returned(f: Facts) -> tuple[IntendedCall, ...]:
    """The calls llama.cpp returned, as the message a changed request must give again."""
    out: list[IntendedCall] = []
    for c in f.calls:
        out.append(IntendedCall(c.name, _arguments(c.arguments)))
    return tuple(out)


def calls_in_output(f: Facts) -> tuple[IntendedCall, ...]:
    """The calls the output writes (tagged ones by the format, else its call-like JSON)."""
    return calls_in(f, f.output)


def calls_in(f: Facts, text: str) -> tuple[IntendedCall, ...]:
    """The calls ``text`` writes in the request's format (tagged by the format, else call-like JSON)."""
    formats = call_formats(f.arena)
    if formats and any(fm.arg_openers for fm in formats.values()):
        return from_written(written_calls(formats, text))
    from explorer.jsonscan import json_objects

    return from_json([o for o in json_objects(text) if o.looks_like_call])
