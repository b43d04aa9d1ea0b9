"""Candidate fixes, per failure class: what might make the round trip give more back.

Input: a ``TemplateSession``, its ``Baseline`` round trip and its ``FailureClass`` es.
Output: ``Candidate`` s, none verified (``explorer.doctor.fixes`` re-runs the round trip
with each): analysis overrides (autoparser route only: a specialised handler does not read
the analysis), template edits (``explorer.doctor.edits``) and request changes.

Where an override comes from: a marker holding a probe's text loses that text (or becomes
the call-id fields); wrapped content without a delimiter becomes plain content or gets
the delimiter the template's own reply shows; a parser that rejects a reply gets the
field its furthest failure expected (``explorer.peg.expectations`` names the literal)
set to what the reply has there, and an unparsed stop token at the end of a turn becomes
an additional stop.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from explorer.analysis import TemplateAnalysis
from explorer.analysis.model import CallIdPosition, ContentMode, ReasoningMode, ToolFormat
from explorer.analysis.overrides import FieldSetting, string_fields
from explorer.analysis.probes import CALL_ID_001, CALL_ID_002, CALL_ID_999
from explorer.apply import Request
from explorer.doctor.artifacts import next_turn_params
from explorer.doctor.classes import Baseline
from explorer.doctor.closing import closing_edits, literal_edits
from explorer.doctor.edits import BlockMode, attribute_items_edit, content_edits, reasoning_edits
from explorer.doctor.model import Claim, FailureClass, FixKind
from explorer.doctor.turns import ALL_VARIANTS, ASSISTANT_VARIANTS, CONVERSATIONS, REASONING_VARIANTS, session_renders
from explorer.errors import ExplorerError
from explorer.peg.expectations import END_OF_INPUT, furthest_failure
from explorer.roundtrip import DEFAULT_TOOLS, RequestChange
from explorer.roundtrip.run import USER, LlamaSetting
from explorer.routing import AUTOPARSER
from explorer.session import TemplateSession
from explorer.triage.health import SENTINELS, health_request

CALL_IDS = (CALL_ID_001, CALL_ID_002, CALL_ID_999)
# Template kwargs some templates read as their thinking switch, with the value that opens thinking.
THINKING_SWITCHES: tuple[tuple[str, str | bool], ...] = (("reasoning_effort", "high"), ("enable_reasoning", True))
# A stop token is special-token shaped: <|eom_id|>, <｜end▁of▁sentence｜>, [/INST], </s>.
_OPENING_TAG = re.compile(r"<[\w:.-]+>|<\|[\w:.-]+\|>")
_TAG = re.compile(r"</[\w:.|-]+>|<\|/?[\w:.-]+\|>")  # a closing tag: </tc>, <|/call|>
_STOP_TOKEN = re.compile(r"<\|[^|<>\s]+\|>|<｜[^｜<>\s]+｜>|\[/?[A-Z][A-Z_]*\]|</?[a-z_]+>")


@dataclass(frozen=True)
class Candidate:
    """One change to try. Exactly one of ``overrides``, ``patched``, ``change`` is set.

    What the acceptance standard holds it to (``explorer.doctor.acceptance``): ``names``,
    the turns (``explorer.doctor.turns`` variants) it may change; ``fields``, the analysis
    fields it may change (default: the overrides' own); ``claim``, what its summary says
    (default: by kind); ``format_change``, non-empty when it changes what the model was
    trained to read or write (then it is never a verified fix)."""

    kind: FixKind
    summary: str
    classes: tuple[str, ...]
    overrides: tuple[FieldSetting, ...] = ()
    patched: str = ""
    change: RequestChange | None = None
    notes: tuple[str, ...] = ()
    depth: int = 0  # overrides: how many repairs of the parser's furthest failure this one chains
    names: tuple[str, ...] = ()
    named_fields: tuple[str, ...] = ()
    said: Claim | None = None
    format_change: str = ""

    @property
    def identity(self) -> object:
        return (self.kind, tuple(s.spec for s in self.overrides), self.patched, self.change)

    @property
    def fields(self) -> tuple[str, ...]:
        return self.named_fields or tuple(dict.fromkeys(s.field for s in self.overrides))

    @property
    def claim(self) -> Claim:
        if self.said is not None:
            return self.said
        if self.kind == "request-change":
            return Claim("request")
        if self.kind == "analysis-override":
            stops = [s for s in self.overrides if s.field == "additional_stops"]
            if len(stops) == len(self.overrides) == 1 and isinstance(stops[0].value, tuple) and stops[0].value:
                return Claim("stop", text=str(stops[0].value[-1]))
            return Claim("fields")
        return Claim("runs")


def thinking_markers(session: TemplateSession) -> tuple[str, str] | None:
    """The thinking block's (start, end) as llama.cpp reads them: the analysis on the
    autoparser route, the handler's thinking tags on another."""
    if session.handler == AUTOPARSER:
        if session.analysis_error is not None:
            return None
        reasoning = session.analysis.reasoning
        if reasoning.mode != ReasoningMode.NONE and reasoning.end:
            return reasoning.start, reasoning.end
        return None
    params = next_turn_params(session, True)
    if params is not None and params.thinking_start_tag and params.thinking_end_tags:
        return params.thinking_start_tag, params.thinking_end_tags[0]
    return None


def candidates(session: TemplateSession, baseline: Baseline, classes: tuple[FailureClass, ...]
               ) -> tuple[Candidate, ...]:
    keys = {c.key for c in classes}
    made: dict[object, Candidate] = {}
    for cand in (*_edit_candidates(session, keys), *_request_candidates(session, keys, baseline),
                 *_override_candidates(session, keys, baseline, classes)):
        made.setdefault(cand.identity, cand)
    return tuple(made.values())


# --- template edits -------------------------------------------------------------------------


def _edit_candidates(session: TemplateSession, keys: set[str]) -> Iterator[Candidate]:
    text = session.text
    header = session.analysis.assistant_start if session.analysis_error is None else ""
    if "roundtrip-failed" in keys:
        edit = attribute_items_edit(text)
        if edit is not None:
            yield Candidate("template-edit", edit.summary, ("roundtrip-failed",), patched=edit.patched,
                            names=("preamble", "system", "user"), named_fields=_threw_fields(session))
    markers = thinking_markers(session) if keys & {"reasoning-dropped", "thinking-opened"} else None
    if markers is not None:
        written = _writes_in_history(session, markers[0].strip())
        for mode, for_classes in _block_modes(keys):
            for edit in reasoning_edits(text, session.caps, *markers, header, mode=mode):
                yield Candidate("template-edit", edit.summary, for_classes, patched=edit.patched, notes=(
                    "Templates that drop earlier reasoning do so by design (the model was trained on histories "
                    "without it); render it when you want reasoning kept across turns (interleaved thinking) "
                    "or a history that round-trips.",), names=ASSISTANT_VARIANTS,
                    said=Claim("renders", REASONING_VARIANTS, "reasoning_content"),
                    format_change="" if written else (
                        f"writes the thinking markers {markers[0].strip()!r}…{markers[1].strip()!r} into history "
                        "turns, where the template never writes them"))
    if "content-dropped" in keys:
        for edit in content_edits(text, session.caps, header):
            glued = "after a newline" not in edit.summary
            yield Candidate("template-edit", edit.summary, ("content-dropped",), patched=edit.patched, notes=(
                "The template drops this content by design; rendering it shows the model its own words "
                "before its calls, as OpenAI-style clients send them.",), names=("assistant+content+calls",),
                said=Claim("renders", ("assistant+content+calls",), "content"),
                format_change=("writes a turn's content glued to its call with no separator" if glued else
                               "writes a turn's content before its call, separated by a newline") +
                ", a layout the template never renders (its call turns carry no content)")
    for small in (*closing_edits(session, keys), *literal_edits(session, keys)):
        yield Candidate("template-edit", small.summary, small.classes, patched=small.patched, names=small.names,
                        named_fields=small.named_fields, said=small.claim)


def _renders_by_thinking(session: TemplateSession) -> bool:
    """The template renders some conversation of the message set differently with thinking on."""
    renders = session_renders(session)
    wholes = [(name, len(turns), False) for name, turns in CONVERSATIONS]
    return any(renders[("llama.cpp", False)].get(k) != renders[("llama.cpp", True)].get(k) for k in wholes)


def _threw_fields(session: TemplateSession) -> tuple[str, ...]:
    """The analysis fields that the probes which threw decide (an edit that makes them
    render sets them)."""
    if session.analysis_error is not None:
        return ()
    analysis = session.analysis
    threw = {p.name for p in analysis.probes if p.error is not None}
    return tuple(name for name, prov in analysis.provenance.items() if prov.probe in threw)


def _writes_in_history(session: TemplateSession, marker: str) -> bool:
    """The template writes ``marker`` in some history turn of the message set."""
    renders = session_renders(session)
    for thinking in (False, True):
        for name, turns in CONVERSATIONS:
            whole = renders[("llama.cpp", thinking)].get((name, len(turns), False)) or ""
            if marker and marker in whole:
                return True
    return False


def _block_modes(keys: set[str]) -> Iterator[tuple[BlockMode, tuple[str, ...]]]:
    """The thinking-block edits to try, the one that answers more classes first."""
    dropped, opened = "reasoning-dropped" in keys, "thinking-opened" in keys
    if opened:
        yield ("always", ("reasoning-dropped", "thinking-opened")) if dropped else ("empty", ("thinking-opened",))
    if dropped:
        yield "present", ("reasoning-dropped",)


# --- request changes ------------------------------------------------------------------------


def _request_candidates(session: TemplateSession, keys: set[str], baseline: Baseline) -> Iterator[Candidate]:
    thinking = len(baseline.settings) > 1
    if "thinking-opened" in keys:
        yield Candidate("request-change", 'send reasoning_format "none": the reply is not split into reasoning',
                        ("thinking-opened",), change=RequestChange(reasoning_format="none"), notes=(
                            "Reasoning then stays in content, markers and all.",))
        if thinking:
            yield Candidate("request-change", "send enable_thinking false", ("thinking-opened",),
                            change=RequestChange(enable_thinking=False), notes=("The model then does not think.",),
                            names=ALL_VARIANTS)
    thinking_off = ("thinking-closed", "reasoning-dropped", "reasoning-not-extracted")  # losses of thinking off
    if thinking and keys & set(thinking_off):
        for_classes = tuple(k for k in thinking_off if k in keys)
        why = ("With thinking off the template renders the conversation differently (it closes or drops the "
               "thinking block), so reasoning in the history is lost" if _renders_by_thinking(session) else
               "The template renders the conversation alike with thinking off and on; llama.cpp's parser takes "
               "the reasoning out of a reply only with thinking on")
        yield Candidate("request-change", "send enable_thinking true when the conversation holds reasoning",
                        for_classes, change=RequestChange(enable_thinking=True), notes=(
                            why + "; a model asked to think writes reasoning, which costs tokens.",),
                        names=ALL_VARIANTS)
    if "thinking-closed" in keys:
        for name, value in THINKING_SWITCHES:
            if name in session.text:
                yield Candidate("request-change", f"send chat_template_kwargs {name}={json.dumps(value)} (the "
                                "template's own thinking switch)", ("thinking-closed",),
                                change=RequestChange(chat_template_kwargs=((name, value),)), names=ALL_VARIANTS)
    if "parallel-off" in keys:
        yield Candidate("request-change", "send parallel_tool_calls true", ("parallel-off",),
                        change=RequestChange(parallel_tool_calls=True), notes=(
                            "The template does not say it renders several calls; check that it does.",))


# --- analysis overrides ---------------------------------------------------------------------


@dataclass(frozen=True)
class Rejected:
    """A reply the parser rejected, and the request it was parsed for."""

    reply: str
    request: Request


def _override_candidates(session: TemplateSession, keys: set[str], baseline: Baseline,
                         classes: tuple[FailureClass, ...]) -> Iterator[Candidate]:
    if session.handler != AUTOPARSER or session.analysis_error is not None:
        return
    analysis = session.analysis
    if "sentinel-in-marker" in keys:
        yield from _sentinel_candidates(session, analysis)
    if "marker-is-role" in keys:
        for f in session.health.findings:
            if f.check == "template-marker-is-role" and f.field:
                yield Candidate("analysis-override", f"{f.field} = '' (the role header is no such marker)",
                                ("marker-is-role",), overrides=(FieldSetting(f.field, ""),))
    if "content-unmatchable" in keys:
        yield from _content_candidates(analysis, baseline)
    rejected = tuple(sorted(keys & REJECTION_CLASSES))
    if rejected:
        for reply in rejected_replies(session, baseline, "reply-fails" in keys):
            yield from failure_candidates(session, reply, rejected)


REJECTION_CLASSES = frozenset({"parser-rejected", "stop-token-left", "reply-fails", "sentinel-in-marker",
                               "stop-token-artifact"})


def rejected_replies(session: TemplateSession, baseline: Baseline, health: bool) -> tuple[Rejected, ...]:
    """The replies the parser rejected: one per thinking setting and kind of turn, from the
    round trip and (``health``) the template's own replies."""
    out: list[Rejected] = []
    seen: set[tuple[bool, str]] = set()
    for thinking, report in zip(baseline.settings, baseline.reports):
        request = LlamaSetting(session.templates, tuple(DEFAULT_TOOLS), session.caps, thinking).request((USER,), True)
        for case in report.cases if report is not None else ():
            kind = "call" if case.message.get("tool_calls") else "reply"
            if case.result is None and case.raw_output_stripped is not None and (thinking, kind) not in seen:
                seen.add((thinking, kind))
                out.append(Rejected(case.raw_output_stripped, request))
    for reply in session.health.replies if health else ():
        if reply.fails and reply.reply is not None:
            out.append(Rejected(reply.reply, health_request(session, reply.enable_thinking)))
    return tuple(out)


def failure_offset(session: TemplateSession, rejected: Rejected) -> int | None:
    """How far the session's parser gets into the reply before it fails (None: it parses;
    -1: the request fails)."""
    try:
        params = session.params(rejected.request)
    except ExplorerError:
        return -1
    failure = furthest_failure(params.arena, params.generation_prompt + rejected.reply)
    return None if failure is None else failure.offset


def failure_candidates(session: TemplateSession, rejected: Rejected, classes: tuple[str, ...],
                       base: Candidate | None = None) -> Iterator[Candidate]:
    """Overrides for the field the parser's furthest failure on the reply points at (on top
    of ``base``'s overrides, whose session ``session`` is)."""
    try:
        params = session.params(rejected.request)
    except ExplorerError:
        return
    text = params.generation_prompt + rejected.reply
    failure = furthest_failure(params.arena, text)
    if failure is None:
        return
    analysis, rest = session.analysis, text[failure.offset:]
    made: list[Candidate] = []
    for expected in failure.expected:
        if expected == END_OF_INPUT:
            made += _stop_candidates(analysis, rest, classes)
            made += _empty_end_candidates(analysis, rest, classes)
        elif expected.startswith('"'):
            literal = json.loads(expected)
            for name, value in string_fields(analysis):
                if value == literal or value.strip() == literal.strip():
                    made += _field_values(analysis, name, value, rest, classes, literal)
    if not any(e == END_OF_INPUT for e in failure.expected):
        made += _empty_end_candidates(analysis, rest, classes)
    if '"{"' in failure.expected:
        made += _arguments_start_candidates(analysis, rest, classes)
    for cand in made:
        if base is None:
            yield cand
        else:
            yield replace(cand, summary=f"{base.summary}; then {cand.summary}", classes=base.classes,
                          overrides=base.overrides + cand.overrides, depth=base.depth + 1)


def _empty_end_candidates(analysis: TemplateAnalysis, rest: str, classes: tuple[str, ...]) -> Iterator[Candidate]:
    """A closing tag the reply has where the analysis has no closing marker."""
    tag = _TAG.match(rest)
    if tag is None or analysis.tools.format.mode == ToolFormat.NONE:
        return
    for name, value in (("tools.function.close", analysis.tools.function.close),
                        ("tools.format.per_call_end", analysis.tools.format.per_call_end),
                        ("tools.format.section_end", analysis.tools.format.section_end)):
        if not value:
            yield Candidate("analysis-override", f"{name} = {tag.group(0)!r} (the closing tag the reply has there)",
                            classes, overrides=(FieldSetting(name, tag.group(0)),))


def _without_sentinels(value: str) -> str:
    """``value`` without the probe texts it holds or cuts into (``1<n>`` of ``call00001<n>``)."""
    for s in SENTINELS:
        value = value.replace(s, "")
    for s in SENTINELS:
        for k in range(len(s) - 1, 0, -1):
            if value.startswith(s[-k:]):
                value = value[k:]
                break
            if value.endswith(s[:k]):
                value = value[:-k]
                break
    return value


def _sentinel_candidates(session: TemplateSession, analysis: TemplateAnalysis) -> Iterator[Candidate]:
    named = {f.field for f in session.health.findings if f.check == "template-sentinel-in-marker"}
    for name, value in string_fields(analysis):
        if name not in named:
            continue
        clean = _without_sentinels(value)
        if clean != value:
            yield Candidate("analysis-override", f"{name} without the probe's text: {clean!r}",
                            ("sentinel-in-marker",), overrides=(FieldSetting(name, clean),))
        ids = [i for i in CALL_IDS if i in value]
        if ids and name in ("tools.function.name_suffix", "tools.function.args_separator"):
            before, _, after = value.partition(ids[0])
            if before and after:
                yield Candidate("analysis-override", f"read the call id between {before!r} and {after!r} "
                                f"(call_id BETWEEN_FUNC_AND_ARGS) instead of {name} = {value!r}",
                                ("sentinel-in-marker",), overrides=(
                                    FieldSetting(name, ""),
                                    FieldSetting("tools.call_id.pos", CallIdPosition.BETWEEN_FUNC_AND_ARGS),
                                    FieldSetting("tools.call_id.prefix", before),
                                    FieldSetting("tools.call_id.suffix", after)))


def _content_candidates(analysis: TemplateAnalysis, baseline: Baseline) -> Iterator[Candidate]:
    content = analysis.content
    yield Candidate("analysis-override", "content.mode PLAIN: content is not wrapped", ("content-unmatchable",),
                    overrides=(FieldSetting("content.mode", ContentMode.PLAIN), FieldSetting("content.start", ""),
                               FieldSetting("content.end", "")))
    # The template's own plain turn, before its end of turn is cut off: the delimiter the
    # analysis missed is the tag right after (or right before) the content.
    turn = next(((c.raw_output, str(c.message.get("content"))) for _, c in baseline.cases()
                 if c.raw_output and not c.message.get("tool_calls") and not c.message.get("reasoning_content")
                 and str(c.message.get("content")) in c.raw_output), None)
    if turn is None:
        return
    raw, said = turn
    before, after = raw[:raw.find(said)], raw[raw.find(said) + len(said):]
    closing = _TAG.match(after)
    if content.start and not content.end and closing:
        yield Candidate("analysis-override", f"content.end = {closing.group(0)!r}, the tag after the content in the "
                        "template's own turn", ("content-unmatchable",),
                        overrides=(FieldSetting("content.end", closing.group(0)),))
    opening = re.search(r"(<[\w:.-]+>|<\|[\w:.-]+\|>)\s*$", before)
    if content.end and not content.start and opening:
        yield Candidate("analysis-override", f"content.start = {opening.group(1)!r}, the tag before the content in "
                        "the template's own turn", ("content-unmatchable",),
                        overrides=(FieldSetting("content.start", opening.group(1)),))


def _stop_candidates(analysis: TemplateAnalysis, rest: str, classes: tuple[str, ...]) -> list[Candidate]:
    """The unparsed end of a turn: an additional stop for its first token, when that token
    ends the turn (a stop only ever removes the end of the text)."""
    first = _STOP_TOKEN.match(rest.strip())
    if first is None:
        return []
    token = first.group(0)
    return [Candidate("analysis-override", f"additional stop {token!r}: the end-of-turn token the template writes "
                    "after the reply; llama.cpp's parser then never sees it", classes,
                    overrides=(FieldSetting("additional_stops", (*analysis.additional_stops, token)),), notes=(
                        f"If the model's vocabulary marks {token!r} as end of generation, llama-server already stops "
                        "there and never hands it to the parser: then nothing needs fixing, and the loss is only the "
                        "round trip's (a history turn keeps the token a model's reply never has).",))]


def _arguments_start_candidates(analysis: TemplateAnalysis, rest: str, classes: tuple[str, ...]
                                ) -> Iterator[Candidate]:
    """An opening tag the reply has where the parser wanted the arguments' JSON."""
    tag = _OPENING_TAG.match(rest)
    if tag is not None and not analysis.tools.arguments.start:
        yield Candidate("analysis-override", f"tools.arguments.start = {tag.group(0)!r} (the tag the reply opens "
                        "its arguments with)", classes,
                        overrides=(FieldSetting("tools.arguments.start", tag.group(0)),))


def _field_values(analysis: TemplateAnalysis, name: str, value: str, rest: str, classes: tuple[str, ...],
                  literal: str) -> Iterator[Candidate]:
    """Values of the field the parser wanted that fit what the reply has at that point."""
    options: list[tuple[str, str]] = []
    prefix = analysis.tools.call_id.prefix
    if name == "tools.function.name_suffix" and prefix and rest.find(prefix) > 0:
        options.append((rest[:rest.find(prefix)], "the text before the call id"))
    clean = _without_sentinels(value)
    if clean != value:
        options.append((clean, "without the probe's text"))
    for k in range(1, len(value)):
        tail = value[k:]
        if value[k - 1] in ">]}): \n" and len(tail.strip()) > 1 and tail in rest[:len(value) + 40]:
            options.append((tail, "the part the reply has"))
            break
    common = 0
    while common < min(len(value), len(rest)) and value[common] == rest[common]:
        common += 1
    if 0 < common < len(value):
        options.append((value[:common], "as far as the reply has it"))
    if value.strip() != value:
        options.append((value.strip(), "without the surrounding whitespace"))
    options.append(("", "dropped"))
    seen: set[str] = set()
    for new, why in options:
        if new in seen:
            continue
        seen.add(new)
        yield Candidate("analysis-override", f"{name} = {new!r} ({why}; the parser wanted {literal!r} and found "
                        f"{rest[:30]!r})", classes, overrides=(FieldSetting(name, new),))
    if name.startswith("content."):
        yield Candidate("analysis-override", "content.mode PLAIN: content is not wrapped", classes, overrides=(
            FieldSetting("content.mode", ContentMode.PLAIN), FieldSetting("content.start", ""),
            FieldSetting("content.end", "")))


__all__ = ["CALL_IDS", "REJECTION_CLASSES", "THINKING_SWITCHES", "Candidate", "Rejected", "candidates",
           "failure_candidates", "failure_offset", "next_turn_params", "rejected_replies", "thinking_markers"]
