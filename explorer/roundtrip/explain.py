"""Why a round trip lost something: plain sentences from a case's texts and its diff.

Input: a ``RoundTripCase`` (rendering, cut, strip, parse, comparison) and the request's
``ChatParams``. Output: the same case with ``explanation`` set. The reasons are read off
the texts (is the field in the rendering at all? where did the parser put it?), so they
hold for any template; when nothing explains a difference the sentence says only what
differs.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from explorer.apply.pipeline import ChatParams
from explorer.roundtrip.compare import expected_calls
from explorer.roundtrip.cut import WHITESPACE
from explorer.roundtrip.model import RoundTripCase


def _short(text: str, n: int = 60) -> str:
    return repr(text if len(text) <= n else text[: n - 1] + "…")


def _text(message: dict[str, Any], key: str) -> str:
    value = message.get(key) or ""
    if isinstance(value, str):
        return value
    return "".join(p.get("text", "") for p in value if isinstance(p, dict))


def _turn(case: RoundTripCase) -> str:
    """The rendered assistant turn: the reply cut out of the rendering (the rest of the
    rendering holds the tool list, which names every tool)."""
    return case.raw_output if case.raw_output is not None else (case.rendering or "")


def thinking_closed(params: ChatParams) -> bool | None:
    """Whether the generation prompt's last thinking block is closed (None: it has none)."""
    start, gp = params.thinking_start_tag, params.generation_prompt
    if not start or start not in gp:
        return None
    tail = gp[gp.rfind(start) + len(start):]
    return any(end and end in tail for end in params.thinking_end_tags)


def opens_thinking(params: ChatParams) -> bool:
    """The generation prompt ends inside an open thinking block."""
    return thinking_closed(params) is False


def _closes_thinking(params: ChatParams) -> bool:
    """The generation prompt holds a whole (empty) thinking block: thinking is off."""
    return thinking_closed(params) is True


def _render_notes(case: RoundTripCase) -> list[str]:
    notes = []
    if case.tool_call_ids_rewritten:
        first = (case.render_exception_first or {}).get("message", "").strip().splitlines()
        notes.append("the template rejected the tool-call ids; rendered again with ids call00001/call00002"
                     + (f" ({_short(first[-1], 90)})" if first else ""))
    cut = case.cut
    if cut and cut.rule != "prompt":
        notes.append(f"the rendered turn and the next-turn prompt part ways before the prompt ends; the reply "
                     f"was cut by rule {cut.rule} (prompt text the turn lacks: {_short(cut.prompt_unmatched)})")
    return notes


def _stop_left(case: RoundTripCase) -> str | None:
    marker = (case.end_marker.marker if case.end_marker else None) or ""
    if case.strip and case.strip.rule == "none" and marker.strip(WHITESPACE):
        tail = case.strip.text.rstrip(WHITESPACE)[-30:]
        return (f"the turn ends with {_short(tail)}, not with the plain-message end marker {_short(marker)}: "
                "a stop token is left in place for the parser")
    return None


def _reasoning_notes(case: RoundTripCase, params: ChatParams, result: dict[str, Any]) -> list[str]:
    want, got = _text(case.message, "reasoning_content"), result.get("reasoning_content", "")
    rendering = _turn(case)
    if want and want not in rendering:
        return ["the template drops reasoning_content from history turns (it is not in the rendered turn)"]
    if got and opens_thinking(params) and (not want or want not in got or got != want):
        return [f"the generation prompt opens a thinking block ({_short(params.generation_prompt[-30:])}) the "
                "rendered turn lacks, so the parser reads the reply as reasoning"]
    if want and want in (result.get("content") or "") and _closes_thinking(params):
        return [f"the generation prompt closes the thinking block ({_short(params.generation_prompt[-30:])}), so "
                "the reasoning the template renders in the turn is read as content"]
    if want and want in (result.get("content") or ""):
        return ["the reasoning is rendered but parsed as content (its thinking markers were not recognised)"]
    if want and not got:
        return ["the reasoning is rendered but the parser did not extract it"]
    return [f"reasoning_content: {_short(got)} instead of {_short(want)}"]


def _content_notes(case: RoundTripCase, result: dict[str, Any]) -> list[str]:
    want, got = _text(case.message, "content"), result.get("content", "")
    calls = expected_calls(case.message)
    rendering, text = _turn(case), case.raw_output_stripped or ""
    if want.strip(WHITESPACE) == got.strip(WHITESPACE):
        return [f"content differs only in surrounding whitespace ({_short(got)} instead of {_short(want)})"]
    if want and want not in rendering:
        return ["the template drops content" + (" next to tool calls" if calls else "") + " from history turns"]
    if want and want in (result.get("reasoning_content") or ""):
        return ["the content is parsed as reasoning"]
    if calls and any(name and name in got for name, _ in calls):
        return ["a rendered tool call is left in content: the parser did not recognise it as a call"]
    if calls and want:
        last_name = text.rfind(calls[-1][0])
        if 0 <= last_name < text.find(want):
            return ["text after a tool call is not parsed (the template puts content after the call)"]
    if want and want in got:
        extra = got.replace(want, "", 1)
        return [f"content keeps extra text {_short(extra)} around the message's content"]
    return [f"content: {_short(got)} instead of {_short(want)}"]


def _call_notes(case: RoundTripCase, report_parallel: bool, entry: str, result: dict[str, Any]) -> list[str]:
    calls = expected_calls(case.message)
    got = result.get("tool_calls") or []
    rendering = _turn(case)
    if entry.startswith("tool_calls.count"):
        if len(got) > len(calls):
            return [f"the parser found {len(got)} calls where {len(calls)} were rendered"]
        missing = [name for name, _ in calls[len(got):]]
        if any(name not in rendering for name in missing):
            return ["the template drops tool calls from history turns (a call's name is not in the rendered turn)"]
        if got and not report_parallel:
            return ["parallel tool calls are off for this template, so the parser takes only the first call"]
        lost = f"{len(calls) - len(got)} rendered tool call(s) were not parsed as calls"
        if any(name in (result.get("reasoning_content") or "") for name in missing):
            return [lost + ": they sit inside what the parser read as reasoning"]
        if any(name in (result.get("content") or "") for name in missing):
            return [lost + ": they are left in content as text"]
        return [lost]
    index = int(entry[len("tool_calls["):].split("]")[0])
    want_name, want_args = calls[index]
    call = got[index]
    if entry.endswith(".name"):
        return [f"call {index}: name {_short(call.get('name', ''))} instead of {_short(want_name)}"]
    arguments = call.get("arguments", "")
    try:
        json.loads(arguments)
    except ValueError:
        return [f"call {index}: arguments {_short(arguments)} are not valid JSON"]
    return [f"call {index}: arguments {_short(arguments)} differ from "
            f"{_short(json.dumps(want_args, ensure_ascii=False))}"]


def explain_case(case: RoundTripCase, params: ChatParams, parallel_tool_calls: bool = True,
                 engine: str | None = None) -> RoundTripCase:
    """``engine``: who rendered, when not llama.cpp (named where a render failed)."""
    notes = _render_notes(case)
    if case.render_exception is not None:
        message = case.render_exception.get("message", "")
        # the template's own words, without llama.cpp's wrapping
        said = message.split("template raised an exception: ", 1)[-1].strip().splitlines()
        refuses = f"{engine} cannot render this message" if engine else "the template refuses to render this message"
        notes.append(refuses + (f": {said[0]}" if said else ""))
        return replace(case, explanation=tuple(notes))
    if case.equal:
        kept = [n for n in notes if n.startswith("the template rejected the tool-call ids")]
        return replace(case, explanation=tuple(kept + ["round-trips exactly"]))
    stop = _stop_left(case)
    if case.result is None:
        msg = (case.exception or {}).get("message", "")
        notes.append(f"the parser rejected the reply ({msg})")
        if stop:
            notes.append(stop)
        return replace(case, explanation=tuple(notes))
    parallel = parallel_tool_calls
    for entry in case.diff or ():
        if entry == "reasoning_content":
            notes += _reasoning_notes(case, params, case.result)
        elif entry == "content":
            notes += _content_notes(case, case.result)
            content = case.result.get("content") or ""  # a parsed message's content: a string
            tail = (case.raw_output_stripped or "").rstrip(WHITESPACE)[-8:]
            if stop and stop not in notes and isinstance(content, str) and tail and tail in content:
                notes.append(stop)
        else:
            notes += _call_notes(case, parallel, entry, case.result)
    if case.equal_trimmed:
        notes.append("equal once surrounding whitespace is trimmed")
    return replace(case, explanation=tuple(dict.fromkeys(notes)))
