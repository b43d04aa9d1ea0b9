"""The template doctor: one health report per template (optionally for one request).

Input: a ``TemplateSession``; optionally a ``Request`` (the template's own replies of each
kind are then also round-tripped through that request's parser), a corpus of
(name, text) templates the fix search judges a workaround's substring against, and the
fix search itself (``fixes``: True for ``explorer.doctor.fixes.search_fixes``, False for
none, or a ``FixFinder``). Output: ``DoctorReport``:

- the route and why (the handler, the substring evidence with template lines);
- the analysis health (``session.health``): findings with field, probe, template line;
- the round trip per message and thinking setting (false and true), each sentence of its
  explanation classified (``explorer.doctor.losses``) into what the template does not
  render, what llama.cpp's parser loses, and the rest, with where the fix belongs;
- the grammar engine's verdicts on those replies;
- the template's own canitoolcall fixture family, when it has one (``explorer.fixtures``);
- the verdict: ``broken`` (tool calls or content never parse: the health says so, or the
  standard request cannot be applied at all), ``losses`` (and which), or ``full``;
- the verified fixes, searched only for a template that is not ``full``, and the search's
  failure classes: those without a sound fix say why (``DoctorReport.unfixed``).

``DoctorReport.to_json()`` is the CLI's JSON line. Fixture failures are warnings, not
losses: a family's fixtures come from several models of the family, and a template is
judged by its own round trip and health.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from explorer.apply import Request
from explorer.apply.templates import falls_back
from explorer.doctor.fixes import search_fixes
from explorer.doctor.intent import DesignChoice, design_choices
from explorer.doctor.losses import (
    KIND_WORDS,
    LOSING_KINDS,
    GrammarNote,
    Loss,
    LossKind,
    TemplateLineHook,
    Where,
    case_id,
    case_losses,
    grammar_notes,
)
from explorer.doctor.model import FailureClass, Fix, FixSearch, RoundTripCount, TriedFix
from explorer.doctor.places import TurnLines, health_place
from explorer.doctor.reading import design_losses, explainable, reread
from explorer.errors import ExplorerError
from explorer.fixtures import FamilyRun, match_family, run_family
from explorer.roundtrip import ORACLE_MESSAGES, ORACLE_TOOLS, GrammarVerdict, RoundTripCase, RoundTripReport
from explorer.roundtrip.cases import REPLY_KINDS, ReplyKind
from explorer.roundtrip.explain import explain_case
from explorer.routing import AUTOPARSER, SubstringEvidence
from explorer.session import TemplateSession
from explorer.triage.blame import fix_where_of
from explorer.triage.health import Health, health_request
from explorer.triage.health_template import EMPTY_CHECK, LITERAL_CHECK, UNCLOSED_CHECK
from explorer.triage.model import SEVERITY_RANK, FixWhere, Severity

Verdict = Literal["full", "losses", "broken"]
VERDICTS: tuple[Verdict, ...] = ("full", "losses", "broken")
Source = Literal["route", "health", "request", "roundtrip", "grammar", "fixtures", "doctor"]
GrammarScope = Literal["none", "default", "both"]  # which thinking settings' replies the grammar checks
# (session, corpus paths) -> the whole search (its failure classes kept), or the verified fixes alone
FixFinder = Callable[[TemplateSession, Sequence[str]], FixSearch | tuple[Fix, ...]]
THINKING_SETTINGS = (False, True)
REQUEST_FAILS = ("template-request-fails", "request-fails")  # llama-server answers with an error
OVERRIDES_UNUSED = "overrides-unused"
FIXABLE_HEALTH = (UNCLOSED_CHECK, LITERAL_CHECK)  # health findings the fix search has edits for
LOST_WORDS = {"content": "content", "reasoning_content": "reasoning_content", "tool_calls": "tool calls",
              "reply": "the reply", "": "the reply"}


@dataclass(frozen=True)
class DoctorFinding:
    """One thing the doctor says about the template, wherever it was found."""

    check: str
    severity: Severity
    summary: str
    source: Source
    where: FixWhere | Literal[""] = ""  # where the fix belongs
    field: str = ""  # the analysis field (health) or the message field (round trip)
    probe: str = ""
    template_line: int | None = None  # 1-based, in the template as llama.cpp compiles it
    cases: tuple[str, ...] = ()  # "<message>/<thinking>" of the round trip, or fixture ids
    detail: str = ""
    fix_hint: str = ""
    source_line: str = ""  # the text of ``template_line``

    @property
    def own(self) -> bool:
        """A finding about this template itself, which ``--fail-on`` counts: not the
        family's fixtures (other models of the family), not the invocation's overrides."""
        return self.source != "fixtures" and self.check != OVERRIDES_UNUSED

    def to_json(self) -> dict[str, object]:
        return {"check": self.check, "severity": self.severity, "summary": self.summary, "source": self.source,
                "where": self.where, "field": self.field, "probe": self.probe, "template_line": self.template_line,
                "source_line": self.source_line, "cases": list(self.cases), "detail": self.detail,
                "fix_hint": self.fix_hint, "own": self.own}


@dataclass(frozen=True)
class RouteReport:
    handler: str
    specialized: bool
    why: str
    evidence: tuple[SubstringEvidence, ...]  # the winning rule's tests, with template lines
    patches: tuple[str, ...] = ()  # llama.cpp's init-time source patches that changed the text
    workarounds: tuple[str, ...] = ()  # message-level workarounds that apply to requests

    def to_json(self) -> dict[str, object]:
        return {"handler": self.handler, "specialized": self.specialized, "why": self.why,
                "evidence": [{"needle": e.needle, "wanted": e.wanted, "present": e.present, "line": e.line,
                              "source_line": e.source_line} for e in self.evidence],
                "patches": list(self.patches), "workarounds": list(self.workarounds)}


@dataclass(frozen=True)
class CaseResult:
    """One message under one thinking setting: did it come back, and what was lost."""

    message_id: str
    enable_thinking: bool
    equal: bool | None
    equal_trimmed: bool | None
    diff: tuple[str, ...]
    losses: tuple[Loss, ...]
    grammar: tuple[GrammarVerdict, ...] = ()
    grammar_notes: tuple[GrammarNote, ...] = ()
    reply: str | None = None  # the reply cut out of the rendering, as the parser got it

    @property
    def case_id(self) -> str:
        return case_id(self.message_id, self.enable_thinking)

    def to_json(self) -> dict[str, object]:
        return {"message": self.message_id, "enable_thinking": self.enable_thinking, "equal": self.equal,
                "equal_trimmed": self.equal_trimmed, "diff": list(self.diff),
                "losses": [loss.to_json() for loss in self.losses],
                "grammar": [{"label": v.label, "accepted": v.accepted, "should_accept": v.should_accept,
                             "as_expected": v.as_expected} for v in self.grammar],
                "grammar_notes": [n.to_json() for n in self.grammar_notes], "reply": self.reply}


@dataclass(frozen=True)
class RequestReply:
    """The template's own reply of one kind, through the given request's parser."""

    kind: ReplyKind
    reply: str | None
    equal_trimmed: bool | None
    losses: tuple[Loss, ...]

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "reply": self.reply, "equal_trimmed": self.equal_trimmed,
                "losses": [loss.to_json() for loss in self.losses]}


@dataclass(frozen=True)
class RequestReport:
    handler: str
    format: str
    generation_prompt: str
    replies: tuple[RequestReply, ...]
    error: str = ""  # the request cannot be applied

    def to_json(self) -> dict[str, object]:
        return {"handler": self.handler, "format": self.format, "generation_prompt": self.generation_prompt,
                "replies": [r.to_json() for r in self.replies], "error": self.error}


@dataclass(frozen=True)
class DoctorReport:
    template: str
    sha256: str
    route: RouteReport
    findings: tuple[DoctorFinding, ...]  # worst first
    cases: tuple[CaseResult, ...]
    roundtrip: RoundTripCount
    broken: bool
    health: Health | None = None
    fixtures: FamilyRun | None = None
    request: RequestReport | None = None
    fixes: tuple[Fix, ...] = ()
    # the fix search's failure classes; ``no_fix`` says why none of a class' fixes can be sound
    fix_classes: tuple[FailureClass, ...] = ()
    skipped: tuple[str, ...] = ()  # what the doctor did not run, and why
    tools: tuple[Mapping[str, object], ...] = field(default=(), repr=False)  # the round trip's tools
    seconds: float = field(default=0.0, compare=False)
    design: tuple[DesignChoice, ...] = ()  # what the template does on purpose (explorer.doctor.intent)
    withdrawn: tuple[TriedFix, ...] = ()  # fixes the acceptance standard took back, each with its failed check

    @property
    def handler(self) -> str:
        return self.route.handler

    @property
    def losses(self) -> tuple[str, ...]:
        """What the template loses, one phrase per losing finding (empty: nothing)."""
        return tuple(f.summary.split(":", 1)[0] if f.source == "roundtrip" else f.summary
                     for f in self.findings if _losing(f))

    @property
    def as_a_model_writes(self) -> tuple[str, ...]:
        """The messages that do not come back only as a model's own reply would differ (the
        thinking block its generation prompt opens, a stop token, whitespace), by case id."""
        return tuple(c.case_id for c in self.cases if not c.equal_trimmed and c.losses
                     and not any(loss.losing or loss.kind == "by-design" for loss in c.losses))

    @property
    def by_design_cases(self) -> tuple[str, ...]:
        """The messages that do not come back because the template leaves them out or changes
        them on purpose (and lose nothing else), by case id."""
        return tuple(c.case_id for c in self.cases if not c.equal_trimmed and not any(x.losing for x in c.losses)
                     and any(x.kind == "by-design" for x in c.losses))

    @property
    def verdict(self) -> Verdict:
        if self.broken:
            return "broken"
        return "losses" if self.losses else "full"

    @property
    def unfixed(self) -> tuple[FailureClass, ...]:
        """The failure classes without a sound fix, each saying why (by-design ones apart)."""
        return tuple(c for c in self.fix_classes if c.no_fix and not c.by_design)

    def by_severity(self, severity: Severity) -> tuple[DoctorFinding, ...]:
        return tuple(f for f in self.findings if f.severity == severity)

    @property
    def gate(self) -> dict[str, int]:
        """This template's own findings by severity: what ``--fail-on`` counts."""
        return {s: sum(1 for f in self.findings if f.own and f.severity == s) for s in ("cause", "warning")}

    @property
    def by_design(self) -> tuple[FailureClass, ...]:
        return tuple(c for c in self.fix_classes if c.by_design)

    def by_design_losses(self) -> list[dict[str, object]]:
        """Each failure class the template makes on purpose: its cases, the design choice and
        the lines that show it (what the verdict leaves out of its losses)."""
        return design_losses(((c.case_id, c.enable_thinking, c.losses) for c in self.cases), self.design)

    def to_json(self) -> dict[str, object]:
        return {"template": self.template, "handler": self.handler, "verdict": self.verdict,
                "losses": list(self.losses), "roundtrip": self.roundtrip.to_json(),
                "roundtrip_as_a_model_writes": len(self.as_a_model_writes),
                "roundtrip_by_design": len(self.by_design_cases),
                "findings": [f.to_json() for f in self.findings], "fixes": [f.to_json() for f in self.fixes],
                "fix_classes": [c.to_json() for c in self.fix_classes],
                "sha256": self.sha256, "route": self.route.to_json(),
                "cases": [c.to_json() for c in self.cases],
                "fixtures": self.fixtures.to_json() if self.fixtures is not None else None,
                "request": self.request.to_json() if self.request is not None else None,
                "skipped": list(self.skipped), "gate": self.gate, "design": [d.to_json() for d in self.design],
                "by_design_losses": self.by_design_losses(),
                "withdrawn": [t.to_json() for t in self.withdrawn]}


def _losing(f: DoctorFinding) -> bool:
    """A warning the verdict lists: a round-trip loss (``LOSING_KINDS``), a round trip that
    cannot run, a grammar refusing its own parser's output, the given request's losses, a
    runaway template. The analysis health's warnings are risks, not losses, and fixture
    failures come from the family's other models too."""
    return f.severity != "info" and f.source not in ("health", "fixtures")


# --- the parts ------------------------------------------------------------------------------


def route_report(session: TemplateSession) -> RouteReport:
    routing = session.routing
    if routing.specialized:
        tests = "; ".join(e.describe() for e in routing.evidence)
        why = (f"llama.cpp sends this template to its specialised '{routing.handler}' handler: its source "
               f"{tests}." + (f" {routing.note}" if routing.note else ""))
    else:
        why = ("No specialised handler's test holds for this template, so llama.cpp's differential autoparser "
               "reads the format off the template's renderings and builds the parser from that analysis.")
    return RouteReport(routing.handler, routing.specialized, why, routing.evidence,
                       tuple(f"{p.name}: {p.reason}" for p in routing.patches if p.replaced),
                       tuple(f"{w.name}: {w.reason}" for w in routing.workarounds if w.applies))


def _health_findings(session: TemplateSession, health: Health) -> list[DoctorFinding]:
    """The health's findings, each with its template line where one can be named
    (``explorer.doctor.places.health_place``), and the probe."""
    out = []
    for f in health.findings:
        line, probe = health_place(session, f, health)
        out.append(DoctorFinding(f.check, f.severity, f.summary, "health", fix_where_of(f), f.field, probe, line,
                                 detail=f.detail, fix_hint=f.fix_hint))
    return out


def _request_failures(session: TemplateSession) -> list[DoctorFinding]:
    """The standard request (one user turn, get_weather) under each thinking setting: one
    that llama.cpp cannot apply makes every request of that kind an error."""
    out = []
    for flag in THINKING_SETTINGS:
        try:
            session.params(health_request(session, flag))
        except ExplorerError as exc:
            line = exc.location.line if exc.location is not None else None
            out.append(DoctorFinding(
                "template-request-fails", "cause",
                f"llama.cpp cannot apply the standard request to this template (enable_thinking "
                f"{str(flag).lower()}): {exc}. llama-server answers such a request with an error.",
                "request", "template", template_line=line, cases=(f"standard/{str(flag).lower()}",)))
    return out


def _roundtrips(session: TemplateSession, grammar: GrammarScope) -> tuple[list[RoundTripReport], list[str],
                                                                           list[DoctorFinding]]:
    """Both thinking settings' round trips. A template that cannot render the default
    messages' tools (a nested schema) gets the oracle's own six messages and two tools.
    ``grammar``: whose replies go through the grammar engine (a third of the doctor's time
    when both settings' do): "default" checks the setting llama-server uses for the
    template (its enable_thinking default) only."""
    reports, notes, findings = [], [], []
    default = session.supports_enable_thinking
    if grammar == "default":
        notes.append(f"grammar verdicts for enable_thinking {str(default).lower()} only (llama-server's default "
                     "for this template)")
    for flag in THINKING_SETTINGS:
        checked = grammar == "both" or (grammar == "default" and flag == default)
        try:
            reports.append(session.roundtrip(flag, grammar=checked))
            continue
        except ExplorerError as first:
            reason = str(first)
        try:
            reports.append(session.roundtrip(flag, grammar=checked, messages=ORACLE_MESSAGES, tools=ORACLE_TOOLS))
            notes.append(f"round trip (enable_thinking {str(flag).lower()}) ran the oracle's messages a-f only: "
                         f"the default messages' tools fail ({reason})")
        except ExplorerError as exc:
            findings.append(DoctorFinding(
                "roundtrip-cannot-run", "warning",
                f"The round trip cannot run (enable_thinking {str(flag).lower()}): {exc}", "roundtrip", "template",
                template_line=exc.location.line if exc.location is not None else None))
    return reports, notes, findings


def _case_results(session: TemplateSession, reports: Sequence[RoundTripReport],
                  line_of: TemplateLineHook | None) -> tuple[list[CaseResult], tuple[DesignChoice, ...]]:
    """Every case of every report, its losses placed in the template (``line_of``, by
    default the provenance of the case's rendering: ``explorer.doctor.places``) and read
    again for the template's design and the server's stops (``explorer.doctor.reading``);
    and the template's design choices, read only when a loss is of a kind one explains."""
    raw = []
    for report in reports:
        hook = line_of if line_of is not None else TurnLines(session, report.tools)
        raw += [(report, case, case_losses(case, report.enable_thinking, hook)) for case in report.cases]
    choices = design_choices(session) if any(explainable(x) for _, _, losses in raw for x in losses) else ()
    out = []
    for report, case, first in raw:
        losses = reread(first, case, report.enable_thinking, session, choices)
        out.append(CaseResult(case.message_id, report.enable_thinking, case.equal, case.equal_trimmed,
                              tuple(case.diff or ()), losses, case.grammar,
                              tuple(grammar_notes(case, report.enable_thinking)), case.raw_output_stripped))
    return out, choices


def count_roundtrip(cases: Sequence[CaseResult]) -> RoundTripCount:
    """Equal (whitespace trimmed) of all the messages rendered, over both settings."""
    ids = tuple(c.case_id for c in cases if c.equal_trimmed)
    return RoundTripCount(len(ids), len(cases), ids)


def _cases_text(ids: Sequence[str]) -> str:
    by_message: dict[str, list[str]] = {}
    for i in ids:
        message, _, thinking = i.rpartition("/")
        by_message.setdefault(message, []).append(thinking)
    parts = [f"{m} ({'both' if len(t) == 2 else 'thinking ' + t[0]})" for m, t in by_message.items()]
    return "messages " + ", ".join(parts)


LEADS: dict[LossKind, str] = {
    "by-design": "The template leaves out or changes {x} on purpose (a design choice, not a defect)",
    "template-drops": "The template does not render {x} in history turns",
    "parser-loses": "llama.cpp's parser does not give back {x} the template renders",
    "thinking-prompt": ("The generation prompt opens or closes a thinking block the history turn lacks, so the "
                        "parser reads {x} differently than a model's reply would be read"),
    "stop-token": "The turn ends with the template's end-of-turn token, which the server never hands to the parser",
    "parallel-off": "Parallel tool calls are off for this template: the parser keeps one of the {x}",
    "whitespace": "Only surrounding whitespace differs",
    "note": "How the replies were rendered and cut",
    "unclassified": "The round trip changed {x} in a way the doctor has no rule for",
}


def _loss_findings(cases: Sequence[CaseResult]) -> list[DoctorFinding]:
    """One finding per (kind, what, where), naming every message it happened to."""
    groups: dict[tuple[LossKind, str, Where], list[Loss]] = {}
    for case in cases:
        for loss in case.losses:
            groups.setdefault((loss.kind, loss.lost, loss.where), []).append(loss)
    out = []
    for (kind, lost, where), losses in groups.items():
        ids = tuple(dict.fromkeys(loss.case_id for loss in losses))
        sentences = list(dict.fromkeys(loss.sentence for loss in losses))
        lead = ("The template refuses to render some history turns" if (kind, lost) == ("template-drops", "reply")
                else LEADS[kind].format(x=LOST_WORDS.get(lost, lost)))
        line = next((loss.template_line for loss in losses if loss.template_line is not None), None)
        out.append(DoctorFinding(
            f"roundtrip-{kind}", losses[0].severity,
            f"{lead}: {_cases_text(ids)}; {sentences[0]}" + (f" (and {len(sentences) - 1} more)" if len(sentences) > 1
                                                             else ""),
            "roundtrip", where, lost, template_line=line, cases=ids, detail="\n".join(sentences),
            fix_hint=KIND_WORDS[kind]))
    return out


def _grammar_findings(cases: Sequence[CaseResult]) -> list[DoctorFinding]:
    groups: dict[str, list[GrammarNote]] = {}
    for case in cases:
        for note in case.grammar_notes:
            groups.setdefault(note.kind, []).append(note)
    words = {"rejects-own-output": "The request's grammar refuses a reply its own parser gives back",
             "grammar-error": "The request's grammar cannot be loaded by the grammar engine",
             "accepts-mangled": "The request's grammar accepts a mangled call (it does not constrain what it should)",
             "checkers-disagree": "llguidance and a character-level reading of the same GBNF disagree"}
    out = []
    for kind, notes in groups.items():
        ids = tuple(dict.fromkeys(case_id(n.message_id, n.enable_thinking) for n in notes))
        out.append(DoctorFinding(f"grammar-{kind}", notes[0].severity,
                                 f"{words.get(kind, kind)}: {_cases_text(ids)}; {notes[0].message}",
                                 "grammar", "llama.cpp", cases=ids,
                                 detail="\n".join(dict.fromkeys(n.message for n in notes))))
    return out


def _fixture_findings(run: FamilyRun) -> list[DoctorFinding]:
    out = []
    for model, counts in run.per_model().items():
        failing = tuple(r.fixture_id for r in run.failures if r.model == model)
        if not failing:
            continue
        total = sum(counts.values())
        first = next(r for r in run.failures if r.model == model)
        out.append(DoctorFinding(
            "fixtures-fail", "warning",
            f"{len(failing)} of {total} canitoolcall {run.match.slug} fixtures of {model} do not parse as expected "
            f"with this template's parser (first: {first.fixture_id}: {first.verdict.detail[:160]})",
            "fixtures", "llama.cpp", cases=failing))
    return out


def _request_report(session: TemplateSession, request: Request, line_of: TemplateLineHook | None
                    ) -> RequestReport:
    try:
        params = session.params(request)
    except ExplorerError as exc:
        return RequestReport("", "", "", (), str(exc))
    if line_of is None:
        line_of = TurnLines(session, request.tools or (), lambda _flag: request)
    replies = []
    for kind in REPLY_KINDS:
        try:
            case = session.reply_case(kind, request)
        except ExplorerError:
            replies.append(RequestReply(kind, None, None, ()))
            continue
        if case.raw_output_stripped is None:
            replies.append(RequestReply(kind, None, None, ()))
            continue
        explained = explain_case(case, params, bool(request.parallel_tool_calls))
        replies.append(RequestReply(kind, case.raw_output_stripped, case.equal_trimmed,
                                    case_losses(_as_request_case(explained, kind), bool(request.enable_thinking),
                                                line_of)))
    return RequestReport(params.handler, params.format, params.generation_prompt, tuple(replies))


def _as_request_case(case: RoundTripCase, kind: ReplyKind) -> RoundTripCase:
    return replace(case, message_id=f"request:{kind}")


def default_fix_search(session: TemplateSession, corpus: Sequence[str]) -> FixSearch:
    """``explorer.doctor.fixes.search_fixes``: the failure classes and the verified fixes,
    with the workaround substring judged against the built-in examples and the ``corpus``
    files or folders."""
    return search_fixes(session, corpus)


# --- the report -----------------------------------------------------------------------------


def doctor(session: TemplateSession, *, request: Request | None = None, corpus: Sequence[str] = (),
           fixes: bool | FixFinder = True, name: str | None = None, grammar: GrammarScope = "default",
           fixtures: bool = True, line_of: TemplateLineHook | None = None) -> DoctorReport:
    """The doctor's report on one template (see the module docstring).

    ``name``: how the report names the template (default its sha256's first 12 digits).
    ``grammar``: which thinking settings' replies get grammar verdicts ("default": the one
    llama-server uses for this template; "both"; "none"). ``fixtures``: run the fixture
    family (default on).
    ``line_of``: where in the template a round-trip loss comes from (default: the
    provenance of the case's rendering, ``explorer.doctor.places.TurnLines``;
    ``explorer.doctor.losses.no_template_line`` names none)."""
    started = time.perf_counter()
    label = name if name is not None else f"sha256:{session.sha256[:12]}"
    route = route_report(session)
    findings: list[DoctorFinding] = []
    skipped: list[str] = []
    health: Health | None = None
    cases: list[CaseResult] = []
    tools: tuple[Mapping[str, object], ...] = ()
    family: FamilyRun | None = None
    choices: tuple[DesignChoice, ...] = ()
    if session.overrides and session.handler != AUTOPARSER:
        sets = ", ".join(f"--set {o.spec}" for o in session.overrides)
        findings.append(DoctorFinding(
            OVERRIDES_UNUSED, "warning", f"llama.cpp sends this template to its specialised '{session.handler}' "
            f"handler, whose parser is code and reads no analysis field: the overrides ({sets}) change nothing "
            "llama.cpp builds for it, and the report below is the handler's.", "doctor", "llama.cpp"))
    if session.render_budget_exhausted:
        # Every further rendering would wait for the render budget again; the requests are
        # still tried, since a failing request is what llama-server's users meet.
        skipped.append("health, round trip and fixtures: the template ran out of render time during llama.cpp's "
                       "probes (see the Probes page), so every further rendering would too")
        findings.append(DoctorFinding(
            "template-runaway", "warning", "The template ran out of render time while llama.cpp's autoparser "
            "probed it; the doctor skipped everything that renders it again.", "doctor", "template"))
        findings += _request_failures(session)
    else:
        health = session.health
        findings += _health_findings(session, health)
        failures = _request_failures(session)
        findings += failures
        if failures:
            skipped.append("round trip and fixtures: the standard request cannot be applied")
        else:
            reports, notes, rt_findings = _roundtrips(session, grammar)
            skipped += notes
            findings += rt_findings
            cases, choices = _case_results(session, reports, line_of)
            tools = reports[0].tools if reports else ()
            findings += _loss_findings(cases) + _grammar_findings(cases)
            match = match_family(session.text, session) if fixtures else None
            if match is not None:
                family = run_family(session, match)
                findings += _fixture_findings(family)
    request_report = _request_report(session, request, line_of) if request is not None else None
    if request_report is not None:
        findings += _request_loss_findings(request_report)
    broken = (health is not None and health.broken) or any(f.check in REQUEST_FAILS for f in findings)
    placed = (_with_source_lines(session, findings) if not falls_back(session.text) else
              [replace(f, template_line=None) for f in findings])  # ChatML's lines are no line of this file
    ordered = tuple(sorted(placed, key=lambda f: (f.check != EMPTY_CHECK, SEVERITY_RANK[f.severity])))
    report = DoctorReport(label, session.sha256, route, ordered, tuple(cases), count_roundtrip(cases), broken,
                          health, family, request_report, skipped=tuple(skipped), tools=tools, design=choices)
    search = default_fix_search if fixes is True else fixes or None
    if search is not None and _fixable(report):
        found = search(session, corpus)
        report = (replace(report, fixes=found.fixes, fix_classes=found.classes, withdrawn=found.withdrawn)
                  if isinstance(found, FixSearch) else replace(report, fixes=found))
    return replace(report, seconds=time.perf_counter() - started)


def _fixable(report: DoctorReport) -> bool:
    """Worth a fix search: something is lost, a reply ends with a stop-token artifact, or
    the template's own text has a defect the health names."""
    return report.verdict != "full" or any(f.check == "roundtrip-stop-token" or f.check in FIXABLE_HEALTH
                                           for f in report.findings)


def _with_source_lines(session: TemplateSession, findings: Sequence[DoctorFinding]) -> list[DoctorFinding]:
    """Each finding with the text of the template line it names (as compiled: the lines
    provenance counts), stripped and cut at 200 characters."""
    lines = re.split(r"\r\n|\r|\n", session.compiled.source)
    return [replace(f, source_line=lines[f.template_line - 1].strip()[:200])
            if f.template_line is not None and 0 < f.template_line <= len(lines) else f for f in findings]


def _request_loss_findings(report: RequestReport) -> list[DoctorFinding]:
    if report.error:
        return [DoctorFinding("request-fails", "cause", f"llama.cpp cannot apply the given request: {report.error}",
                              "request", "request")]
    out = []
    for reply in report.replies:
        for loss in reply.losses:
            if loss.kind in LOSING_KINDS:
                out.append(DoctorFinding(f"request-{loss.kind}", loss.severity,
                                         f"With the given request, the template's own {reply.kind} reply: "
                                         f"{loss.sentence}", "request", loss.where, loss.lost,
                                         template_line=loss.template_line, cases=(loss.message_id,)))
    return out


__all__ = [
    "VERDICTS", "CaseResult", "DoctorFinding", "DoctorReport", "FixFinder", "RequestReply",
    "RequestReport", "RouteReport", "Verdict", "count_roundtrip", "default_fix_search", "doctor", "route_report",
]
