"""The failure classes of a template: how its round trip loses messages, how llama.cpp misreads it.

Input: a ``TemplateSession``. Output: ``RoundTripCount`` s (``measure``: the round trip's
default messages and tools, over both thinking settings where the template supports
thinking, optionally under a ``RequestChange``) and the template's ``FailureClass`` es
(``failure_classes``): each lost case is classed by the round trip's own explanation
sentences (``explorer.roundtrip.explain``), a consequence folded into its cause (calls read
as reasoning are the opened thinking block's loss), and each health finding that is not
information (``explorer.triage.health``) is a class of its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from explorer.doctor.model import FailureClass, RoundTripCount
from explorer.errors import ExplorerError
from explorer.roundtrip import DEFAULT_MESSAGES, RequestChange, RoundTripCase, RoundTripReport
from explorer.routing import AUTOPARSER
from explorer.session import TemplateSession

CLASS_TITLES: dict[str, str] = {
    # round-trip losses, as the explanation sentences name them
    "roundtrip-failed": "the round trip's next-turn request itself fails",
    "render-refused": "the template refuses to render a message",
    "reasoning-dropped": "the template drops reasoning_content from history turns",
    "content-dropped": "the template drops content (next to tool calls) from history turns",
    "calls-dropped": "the template drops tool calls from history turns",
    "thinking-opened": "the generation prompt opens a thinking block the rendered turn lacks",
    "thinking-closed": "the generation prompt closes the thinking block, so rendered reasoning is read as content",
    "stop-token-left": "a stop token is left in place for the parser",
    "parser-rejected": "the parser rejects the reply",
    "parallel-off": "parallel tool calls are off, so only the first call is parsed",
    "call-in-content": "a rendered tool call is left in content",
    "content-as-reasoning": "content is parsed as reasoning",
    "content-after-call": "text after a tool call is not parsed",
    "arguments-invalid": "a call's arguments are not valid JSON",
    "arguments-differ": "a call's arguments differ",
    "name-differs": "a call's name differs",
    "calls-extra": "the parser finds more calls than were rendered",
    "reasoning-not-extracted": "the reasoning is rendered but not extracted",
    "extra-content": "content keeps extra text",
    "other": "a difference the explanation does not classify",
    # health findings (explorer.triage.health), when llama.cpp uses the autoparser's reading
    "sentinel-in-marker": "a marker holds or cuts into a probe's own text",
    "content-unmatchable": "wrapped content without a delimiter the parser can match",
    "no-call-opener": "no text opens a tool call, so no lazy grammar constrains calls",
    "probe-threw": "the template threw while rendering an analysis probe",
    "analysis-threw": "llama.cpp's autoparser cannot analyse the template",
    "reply-fails": "the template's own reply of a kind does not parse back",
}
_HEALTH_CLASS: dict[str, str] = {
    "template-sentinel-in-marker": "sentinel-in-marker", "template-content-unmatchable": "content-unmatchable",
    "template-no-call-opener": "no-call-opener", "template-probe-threw": "probe-threw",
    "template-analysis-threw": "analysis-threw", "template-reply-fails": "reply-fails",
}
# (sentence fragment, class): the first fragment a sentence holds names its class.
_SENTENCES: tuple[tuple[str, str], ...] = (
    ("refuses to render this message", "render-refused"), ("cannot render this message", "render-refused"),
    ("drops reasoning_content from history", "reasoning-dropped"), ("drops content", "content-dropped"),
    ("drops tool calls from history", "calls-dropped"), ("opens a thinking block", "thinking-opened"),
    ("closes the thinking block", "thinking-closed"), ("a stop token is left in place", "stop-token-left"),
    ("the parser rejected the reply", "parser-rejected"), ("parallel tool calls are off", "parallel-off"),
    ("sit inside what the parser read as reasoning", "calls-in-reasoning"),
    ("left in content", "call-in-content"), ("content is parsed as reasoning", "content-as-reasoning"),
    ("text after a tool call is not parsed", "content-after-call"), ("are not valid JSON", "arguments-invalid"),
    ("differ from", "arguments-differ"), (": name ", "name-differs"), ("the parser found", "calls-extra"),
    ("reasoning is rendered but", "reasoning-not-extracted"), ("keeps extra text", "extra-content"),
    ("not parsed as calls", "other"), ("instead of", "other"),
)
_NOT_LOSSES = ("the template rejected the tool-call ids", "the rendered turn and the next-turn prompt part ways",
               "round-trips exactly", "equal once surrounding whitespace", "differs only in surrounding whitespace")
# A cause and the losses it brings along: the loss is the cause's, not a class of its own.
_CONSEQUENCES: dict[str, frozenset[str]] = {
    "thinking-opened": frozenset({"content-as-reasoning", "calls-in-reasoning", "other"}),
    "thinking-closed": frozenset({"extra-content", "call-in-content", "reasoning-not-extracted", "other"}),
    "reasoning-dropped": frozenset({"other"}),
}


@dataclass(frozen=True)
class Baseline:
    """The template's round trip for every thinking setting it has, and what it lost.
    ``lost_early``: the measure stopped after a setting that lost a message it was told
    must stay (the count then covers the settings run so far)."""

    settings: tuple[bool, ...]
    reports: tuple[RoundTripReport | None, ...]  # None: the round trip itself failed (see errors)
    errors: tuple[str, ...]
    count: RoundTripCount
    lost_early: tuple[str, ...] = ()

    def cases(self) -> Iterable[tuple[str, RoundTripCase]]:
        for thinking, report in zip(self.settings, self.reports):
            for case in report.cases if report is not None else ():
                yield case_id(case.message_id, thinking), case


def case_id(message_id: str, thinking: bool) -> str:
    return f"{message_id}/{'true' if thinking else 'false'}"


def thinking_settings(session: TemplateSession) -> tuple[bool, ...]:
    """Both thinking settings where the template supports thinking, else thinking off."""
    try:
        return (False, True) if session.supports_enable_thinking else (False,)
    except ExplorerError:
        return (False,)


def measure(session: TemplateSession, settings: Sequence[bool], change: RequestChange | None = None,
            *, explain: bool = False, keep: RoundTripCount | None = None) -> Baseline:
    """The round trip (default messages and tools, no grammar verdicts) per setting.
    ``keep``: stop after the first setting that loses a message this count has back (a
    candidate fix that loses one is no fix, whatever the other setting gives)."""
    reports: list[RoundTripReport | None] = []
    errors: list[str] = []
    ids: list[str] = []
    lost: tuple[str, ...] = ()
    for thinking in settings:
        try:
            report = session.roundtrip(thinking, grammar=False, explain=explain, change=change)
        except ExplorerError as exc:
            report = None
            errors.append(f"enable_thinking {str(thinking).lower()}: {exc}")
        reports.append(report)
        back = [case_id(c.message_id, thinking) for c in report.cases if c.equal_trimmed] if report else []
        ids += back
        if keep is not None:
            suffix = "/" + ("true" if thinking else "false")
            lost = tuple(i for i in keep.equal_ids if i.endswith(suffix) and i not in back)
            if lost:
                break
    total = sum(len(r.cases) if r is not None else len(DEFAULT_MESSAGES) for r in reports)
    return Baseline(tuple(settings[:len(reports)]), tuple(reports), tuple(errors),
                    RoundTripCount(len(ids), total, tuple(ids)), lost)


def classify_case(case: RoundTripCase) -> tuple[str, ...]:
    """The failure classes of one lost case, read off its explanation (causes only)."""
    found: list[str] = []
    for sentence in case.explanation:
        if any(n in sentence for n in _NOT_LOSSES):
            continue
        found.append(next((k for fragment, k in _SENTENCES if fragment in sentence), "other"))
    if not found:
        found.append("parser-rejected" if case.result is None and case.rendering is not None else "other")
    causes = set(found)
    for cause, consequences in _CONSEQUENCES.items():
        if cause in causes:
            causes -= consequences
    if "calls-in-reasoning" in causes:  # calls read as reasoning without an opened block: a reading of markers
        causes.discard("calls-in-reasoning")
        causes.add("content-as-reasoning")
    return tuple(k for k in dict.fromkeys(found) if k in causes)


def failure_classes(session: TemplateSession, baseline: Baseline) -> tuple[FailureClass, ...]:
    """The template's failure classes: round-trip losses first (most cases first), then
    the health findings llama.cpp's route makes real."""
    by_class: dict[str, list[str]] = {}
    if baseline.errors:
        by_class["roundtrip-failed"] = [case_id(mid, t) for t, r in zip(baseline.settings, baseline.reports)
                                        if r is None for mid, _ in DEFAULT_MESSAGES]
    lost = [(cid, classify_case(case)) for cid, case in baseline.cases() if not case.equal_trimmed]
    # Content read as reasoning where the same setting's generation prompt opens a thinking
    # block is that block's loss (the sentence that says so goes to the case's first loss).
    opened = {cid.rsplit("/", 1)[1] for cid, keys in lost if "thinking-opened" in keys}
    for cid, keys in lost:
        if cid.rsplit("/", 1)[1] in opened:
            keys = tuple(dict.fromkeys("thinking-opened" if k == "content-as-reasoning" else k for k in keys))
        for key in keys:
            by_class.setdefault(key, []).append(cid)
    out = [FailureClass(k, CLASS_TITLES[k], tuple(v))
           for k, v in sorted(by_class.items(), key=lambda kv: (-len(kv[1]), kv[0]))]
    if session.handler == AUTOPARSER:
        checks: dict[str, list[str]] = {}
        for finding in session.health.findings:
            health_key = _HEALTH_CLASS.get(finding.check)
            if health_key is not None and finding.severity != "info":
                checks.setdefault(health_key, []).append(finding.check + (f" ({finding.field})" if finding.field else ""))
        out += [FailureClass(k, CLASS_TITLES[k], (), tuple(dict.fromkeys(v))) for k, v in checks.items()]
    return tuple(out)


__all__ = ["Baseline", "CLASS_TITLES", "case_id", "classify_case", "failure_classes", "measure",
           "thinking_settings"]
