"""Template health: is llama.cpp's own reading of this template broken?

Input: a ``TemplateSession``. Output: ``Health``: findings about the template rather than
about one output (the triage's ``Finding``, each naming the analysis field, the probe
that set it and, where the probe's render failed, the template line), and one
``ReplyCheck`` per kind of reply the template renders itself (plain content, a tool call,
reasoning and a call), parsed back with the parser llama.cpp builds for the request.

A finding is a cause ("every reply of kind X fails") only when the template's own reply
of that kind was parsed and failed; what the analysis shows without that proof is a
warning. On a specialised handler's route the autoparser's answer is not used, so its
misreadings are told as information, never as the template's failure.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from explorer.analysis import TemplateAnalysis
from explorer.analysis.lines import LineFinder, MarkerSource
from explorer.analysis.model import ContentMode, ToolFormat
from explorer.analysis.overrides import string_fields
from explorer.analysis.probes import (
    ARG_FIRST,
    ARG_SECOND,
    ASSISTANT_MSG,
    CALL_ID_001,
    CALL_ID_002,
    CALL_ID_999,
    FUN_FIRST,
    FUN_SECOND,
    THINKING_CONTENT,
    USER_MSG,
    USER_MSG_TWO,
)
from explorer.apply import GET_WEATHER_TOOL, Request, thinking_kwargs
from explorer.errors import AnalysisError, ExplorerError
from explorer.roundtrip.cases import REPLY_KINDS, ReplyKind
from explorer.roundtrip.compare import compare
from explorer.roundtrip.explain import opens_thinking
from explorer.routing import AUTOPARSER
from explorer.triage.health_template import EMPTY_CHECK, template_findings
from explorer.triage.model import SEVERITY_RANK, Finding, Severity, quote, shown

if TYPE_CHECKING:
    from explorer.session import TemplateSession

# The probes' own inputs: text that can only reach a marker when the diff cut in the wrong place.
SENTINELS: tuple[str, ...] = (
    FUN_FIRST, FUN_SECOND, ARG_FIRST, ARG_SECOND, CALL_ID_001, CALL_ID_002, CALL_ID_999,
    *(s.split(" ", 1)[0] for s in (USER_MSG, USER_MSG_TWO, ASSISTANT_MSG, THINKING_CONTENT)),
)
# Which kind of reply a field's marker decides.
_KIND_OF_GROUP: dict[str, ReplyKind] = {"reasoning": "reasoning+call", "content": "reply", "tools": "call"}
_SPECIAL = re.compile(r"<\|[^|<>\s]+\|>|<｜[^｜<>\s]+｜>")  # special-token shaped: <|x|>, <｜x｜>
MODEL_REASONING = "The user asks about the weather."  # what a model thinks before it answers
KIND_WORDS: dict[ReplyKind, str] = {"reply": "reply with content", "call": "reply with a tool call",
                                    "reasoning+call": "reply with reasoning"}


@dataclass(frozen=True)
class ReplyCheck:
    """The template's own reply of one kind, parsed back with the request's parser."""

    kind: ReplyKind
    enable_thinking: bool
    reply: str | None  # None: the template cannot render this turn (or the request fails)
    fails: bool  # the parse threw, or lost what the kind is about (the content, the call)
    what: str  # in words: what the parse gave
    extra: str = ""  # the content came back whole but with this text around it

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "enable_thinking": self.enable_thinking, "reply": self.reply,
                "fails": self.fails, "what": self.what, "extra": self.extra}


@dataclass(frozen=True)
class Health:
    findings: tuple[Finding, ...]
    replies: tuple[ReplyCheck, ...]

    @property
    def broken(self) -> bool:
        """Tool calls or content never parse: a cause among the findings."""
        return any(f.severity == "cause" for f in self.findings)

    def failing_kinds(self) -> tuple[ReplyKind, ...]:
        return tuple(dict.fromkeys(r.kind for r in self.replies if r.fails))

    def to_json(self) -> dict[str, object]:
        return {"broken": self.broken, "findings": [f.to_json() for f in self.findings],
                "replies": [r.to_json() for r in self.replies]}


def health_request(session: TemplateSession, enable_thinking: bool) -> Request:
    """The request the health checks parse with: the oracle's standard one (one user turn,
    get_weather), thinking as given."""
    flag = enable_thinking
    return session.request(tools=[copy.deepcopy(GET_WEATHER_TOOL)], enable_thinking=flag,
                           chat_template_kwargs=thinking_kwargs(flag))


def _reply_check(session: TemplateSession, kind: ReplyKind, thinking: bool) -> ReplyCheck:
    request = health_request(session, thinking)
    try:
        case = session.reply_case(kind, request)
    except ExplorerError as exc:
        return ReplyCheck(kind, thinking, None, False, f"the request itself fails: {exc}")
    reply = case.raw_output_stripped
    if reply is None:
        return ReplyCheck(kind, thinking, None, False, "the template does not render this turn")
    if kind != "reply" and not (session.caps.supports_tool_calls and "get_weather" in reply):
        return ReplyCheck(kind, thinking, reply, False, "the template does not render tool calls in this turn")
    what = _what_failed(kind, case.exception, case.comparison.diff_trimmed if case.comparison else None)
    if what is None:
        return ReplyCheck(kind, thinking, reply, False, "parsed back as rendered")
    # What a model writes can differ from the history turn in two ways that are the round
    # trip's, not the parser's: a model closes the thinking block the generation prompt
    # opens even when the history turn renders none, and it stops on a stop token that the
    # server never hands to the parser. The whole turn is the start: the round trip's strip
    # of the end marker can take a closing tag with it (``</answer><|end|>``).
    params = session.params(request)
    prefix, how = "", ""
    if opens_thinking(params) and params.thinking_end_tags and params.thinking_end_tags[0] not in reply:
        prefix = MODEL_REASONING + params.thinking_end_tags[0]
        how = "the model closes the thinking block the generation prompt opens (the history turn has none)"
    whole = prefix + (case.raw_output or reply)
    last_content = str((case.result or {}).get("content") or "")
    for candidate, token in [(prefix + reply, ""), *((whole[:cut], tok) for cut, tok in _stops(whole))]:
        parsed = session.parse(candidate, request)
        result = parsed.message.to_oracle_json() if parsed.message is not None else None
        if result is not None:
            last_content = str(result.get("content") or "")
        comparison = compare(case.message, result)
        if _what_failed(kind, None if result is not None else {"message": str(parsed.error)},
                        comparison.diff_trimmed) is None:
            said = [how] if how else []
            if token:
                said.append(f"the model stops on {shown(token)} (the server stops generating there and never "
                            "parses it)")
            return ReplyCheck(kind, thinking, candidate, False, "parses once " + " and ".join(said))
    wanted, got = str(case.message.get("content") or ""), last_content
    if kind == "reply" and wanted and wanted in got:
        extra = got.replace(wanted, "…", 1)
        return ReplyCheck(kind, thinking, reply, False, f"the content comes back as {shown(got)}", extra=extra)
    return ReplyCheck(kind, thinking, reply, True, what)


def _stops(reply: str) -> Iterator[tuple[int, str]]:
    """Where a model may have stopped: before each special token of the whole turn, from
    the last to the first (a model stops on its end-of-turn token; what follows it in a
    rendering never reaches the parser)."""
    for m in reversed(list(_SPECIAL.finditer(reply))):
        yield m.start(), m.group(0)


def _what_failed(kind: ReplyKind, exception: dict[str, str] | None, diff: tuple[str, ...] | None) -> str | None:
    """What the parse lost of what the kind is about (None: nothing)."""
    if exception is not None:
        return f"llama.cpp's parse throws: {exception['message']}"
    lost = [d for d in (diff or ()) if d != "reasoning_content"]
    if kind == "reasoning+call":
        lost = [d for d in lost if d.startswith("tool_calls")]
    return "lost: " + ", ".join(lost) if lost else None


def reply_checks(session: TemplateSession) -> tuple[ReplyCheck, ...]:
    settings = (False, True) if session.supports_enable_thinking else (False,)
    return tuple(_reply_check(session, kind, thinking) for thinking in settings for kind in REPLY_KINDS)


def _overlapped(analysis: TemplateAnalysis, name: str, value: str) -> list[str]:
    """The sentinels a marker cuts into: in the output of the probe that set it, every
    occurrence of the marker overlaps one (``1<name>`` out of ``call00001<name>``)."""
    probe = analysis.probe(_probe_of(analysis, name))
    if probe is None:
        return []
    found: list[str] = []
    for output in (probe.output_a, probe.output_b):
        if not output or value not in output:
            continue
        spans = [(m.start(), m.start() + len(s), s) for s in SENTINELS for m in re.finditer(re.escape(s), output)]
        starts = [m.start() for m in re.finditer(re.escape(value), output)]
        cut = [next((s for a, b, s in spans if a < at + len(value) and at < b and not (at <= a and b <= at + len(value))),
                    None) for at in starts]
        if cut and all(cut):
            found.extend(s for s in cut if s)
    return list(dict.fromkeys(found))


def _probe_of(analysis: TemplateAnalysis, name: str) -> str:
    prov = analysis.provenance.get(name.split("[", 1)[0])
    return (prov.probe or "") if prov is not None else ""


def _failing(replies: tuple[ReplyCheck, ...], kind: ReplyKind) -> ReplyCheck | None:
    return next((r for r in replies if r.kind == kind and r.fails), None)


def _consequence(routed: bool, handler: str, replies: tuple[ReplyCheck, ...], kind: ReplyKind
                 ) -> tuple[Severity, str]:
    """(severity, sentence) for a misreading that concerns replies of ``kind``."""
    if routed:
        return "info", (f"llama.cpp sends this template to its specialised '{handler}' handler, so the "
                        "autoparser's reading is not used.")
    failed = _failing(replies, kind)
    if failed is not None:
        return "cause", (f"Every {KIND_WORDS[kind]} fails: the template's own such reply "
                         f"({quote(failed.reply or '', 80)}) {failed.what}.")
    return "warning", (f"The template's own {KIND_WORDS[kind]} still parses back, but outputs that differ from "
                       "its rendering may not.")


def _writer(lines: LineFinder, name: str, sentinel: str) -> MarkerSource | None:
    """The template piece that wrote the sentinel part of a marker (else the marker's first)."""
    if name.startswith("preserved_tokens") or name.startswith("additional_stops"):
        return None
    try:
        sources = lines.field(name).sources
    except ExplorerError:
        return None
    return next((s for s in sources if sentinel in s.text or s.text in sentinel), sources[0] if sources else None)


def _sentinel_findings(analysis: TemplateAnalysis, routed: bool, handler: str,
                       replies: tuple[ReplyCheck, ...], lines: LineFinder) -> Iterator[Finding]:
    told: set[str] = set()
    for name, value in string_fields(analysis, items=True):
        hits = [s for s in SENTINELS if s in value] or _overlapped(analysis, name, value)
        if not hits or value in told:
            continue  # a preserved token repeats the marker it came from
        told.add(value)
        probe = _probe_of(analysis, name)
        group = "tools" if name.startswith("tools.") else name.split(".", 1)[0]
        kind = _KIND_OF_GROUP.get(group, "call" if name.startswith("preserved_tokens") else "reply")
        severity, consequence = _consequence(routed, handler, replies, kind)
        source = _writer(lines, name, hits[0])
        written = (f", written by template line {source.line}: {quote((source.source_line or '').strip(), 100)}"
                   if source is not None and source.line else "")
        yield Finding(
            check="template-sentinel-in-marker", severity=severity,
            summary=(f"llama.cpp's autoparser misread this template: the marker {name} = {shown(value)} holds "
                     + ("" if hits[0] in value else "part of ") + f"the probe's own text {shown(hits[0])}"
                     + (f" (set by probe {probe}{written})" if probe else "") + ". " + consequence),
            template_line=source.line if source is not None else None,
            detail=("The autoparser renders the template twice with different probe inputs and keeps what differs. "
                    "A probe input inside a marker means the diff was cut in the wrong place, so the parser "
                    "expects that literal text in the model's output."),
            fix_hint=("llama.cpp side: a workaround that sets this field for templates like this one, or a "
                      "dedicated handler; template side: render the call the way the autoparser's probes expect "
                      "(see the Probes page)."),
            fix_where="llama.cpp" if not routed else "model", quirk=not routed,
            llama_cpp="autoparser::analyze_template (chat-diff-analyzer.cpp)", field=name, probe=probe)


def _format_findings(analysis: TemplateAnalysis, routed: bool, handler: str,
                     replies: tuple[ReplyCheck, ...]) -> Iterator[Finding]:
    content = analysis.content
    if content.mode != ContentMode.PLAIN and not (content.start and content.end):
        severity, consequence = _consequence(routed, handler, replies, "reply")
        missing = "content.end" if content.start else "content.start"
        yield Finding(
            check="template-content-unmatchable", severity=severity,
            summary=(f"llama.cpp's autoparser read the content as {content.mode.value} but found no {missing}: "
                     "content has no delimiter the parser can match. " + consequence),
            detail="A wrapped content mode needs both the opening and the closing text around the answer.",
            fix_hint="llama.cpp side: a workaround that sets the content delimiters (or content.mode PLAIN).",
            fix_where="llama.cpp" if not routed else "model", quirk=not routed,
            llama_cpp="autoparser::analyze_template (content analysis, C1)", field=missing,
            probe=_probe_of(analysis, "content.mode"))
    fmt = analysis.tools.format
    if fmt.mode != ToolFormat.NONE and not (fmt.section_start or fmt.per_call_start):
        severity = "info" if routed else "warning"
        consequence = ""
        failed = None if routed else _failing(replies, "call")
        if failed is not None:
            severity, consequence = _consequence(routed, handler, replies, "call")
        yield Finding(
            check="template-no-call-opener", severity=severity,
            summary=(f"llama.cpp's autoparser found a tool-call format ({fmt.mode.value}) but no text that opens a "
                     "call (tools.format.section_start and per_call_start are empty): the lazy grammar has no "
                     "trigger, so with tool_choice auto no grammar constrains the calls."
                     + (" " + consequence if consequence else "")),
            detail=("llama.cpp builds the lazy grammar only when a call has an opening word to wake it; without one "
                    "the model's calls are parsed but never constrained."),
            fix_hint="Request side: tool_choice \"required\" builds the grammar without a trigger.",
            fix_where="request" if not routed else "model", field="tools.format.per_call_start",
            probe=_probe_of(analysis, "tools.format.mode"))


def _probe_failures(analysis: TemplateAnalysis, routed: bool, replies: tuple[ReplyCheck, ...]) -> Iterator[Finding]:
    quiet = routed or not any(r.fails for r in replies)
    for probe in analysis.probes:
        if probe.error is None:
            continue
        set_by_others = [k for k, _ in probe.fields_set]
        yield Finding(
            check="template-probe-threw", severity="info" if quiet else "warning",
            summary=(f"The template threw while rendering probe {probe.name} (side {probe.error.side}): "
                     f"{probe.error.message}. llama.cpp reads a throw as 'no difference', so the fields this probe "
                     "decides keep their defaults."),
            detail=probe.purpose + (f" (fields it still set: {', '.join(set_by_others)})" if set_by_others else ""),
            fix_hint="Template side: accept the probe's inputs (see the Probes page for what it renders).",
            fix_where="template", probe=probe.name, template_line=probe.error.line)


def _analysis_threw(exc: AnalysisError, routed: bool, handler: str) -> Finding:
    consequence = (f"llama.cpp sends this template to its '{handler}' handler, so requests still work."
                   if routed else "Every request fails: llama.cpp cannot build a parser.")
    return Finding(
        check="template-analysis-threw", severity="info" if routed else "cause",
        summary=f"llama.cpp's autoparser cannot analyse this template: {exc.message}. {consequence}",
        fix_hint="llama.cpp side: a dedicated handler or a workaround for this template.",
        fix_where="llama.cpp", quirk=not routed, llama_cpp="autoparser::analyze_template")


def template_health(session: TemplateSession) -> Health:
    """What is wrong with llama.cpp's reading of the template, worst first (an empty
    template's finding first of all; ``explorer.triage.health_template``)."""
    routed = session.handler != AUTOPARSER
    own = template_findings(session)
    try:
        analysis = session.analysis
    except AnalysisError as exc:
        return Health((*own, _analysis_threw(exc, routed, session.handler)), ())
    replies = reply_checks(session)
    findings = [*_sentinel_findings(analysis, routed, session.handler, replies, session.lines),
                *_format_findings(analysis, routed, session.handler, replies),
                *_probe_failures(analysis, routed, replies)]
    reported = {_kind_of(f) for f in findings if f.severity == "cause"}
    for kind in REPLY_KINDS:
        failed = _failing(replies, kind)
        if failed is None or kind in reported:
            continue
        findings.append(Finding(
            check="template-reply-fails",
            severity="cause" if kind != "reasoning+call" and not routed else "warning",
            summary=(f"The template's own {KIND_WORDS[kind]} does not parse back with the parser llama.cpp builds "
                     f"for it (enable_thinking {str(failed.enable_thinking).lower()}): {failed.what}."),
            detail="The reply is cut out of the template's rendering of an assistant turn, as the round trip does.",
            found=(failed.reply or "")[:200], fix_where="template" if not routed else "llama.cpp",
            llama_cpp="" if not routed else f"the '{session.handler}' handler"))
    for r in replies:
        if r.extra and not routed:
            findings.append(Finding(
                check="template-reply-extra-text", severity="warning",
                summary=(f"The template's own reply with content comes back whole but wrapped: {r.what} "
                         f"(enable_thinking {str(r.enable_thinking).lower()}), the template's markup {shown(r.extra)} "
                         "is left in the content."),
                detail="The parser llama.cpp builds for this request does not take the content's delimiters off.",
                fix_where="llama.cpp", quirk=True, llama_cpp="the autoparser's content parser (build_content)",
                field="content.start"))
            break
    empty = [f for f in own if f.check == EMPTY_CHECK]  # said first, whatever else is found
    rest = [*findings, *(f for f in own if f.check != EMPTY_CHECK)]
    return Health((*empty, *sorted(rest, key=lambda f: SEVERITY_RANK[f.severity])), replies)


def _kind_of(finding: Finding) -> ReplyKind:
    group = "tools" if finding.field.startswith("tools.") or finding.field.startswith("preserved") else \
        finding.field.split(".", 1)[0]
    return _KIND_OF_GROUP.get(group, "reply")
