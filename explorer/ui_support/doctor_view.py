"""What the Doctor page shows, as plain data (no streamlit import).

Input: a ``DoctorReport`` (``explorer.doctor.report``), the page's ``SourceRequest`` and
template text (for links). Output: the verdict's banner (kind and Markdown), table rows
for the route evidence, the findings, the round trip per message and the fixture family,
links into the Probes, Analysis, Fixtures and Try it pages (relative URLs carrying the
template, as the other pages' permalinks do), and per fix what the page offers: the round
trip before and after, the text to show (the ``--set`` lines and the workaround lambda,
the diff, or the request change) and the files to download; the failure classes without a
sound fix, with why; the bug report, with the fix the user chose.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from explorer.doctor.acceptance import TITLES
from explorer.doctor.model import ROUNDTRIP_UNIT, CheckResult, Fix
from explorer.doctor.report import CaseResult, DoctorFinding, DoctorReport
from explorer.triage.model import SEVERITIES
from explorer.ui_support.links import (
    CHOSEN_FIX_STATE,
    RequestInputs,
    SourceRequest,
    bug_report_markdown,
    encode_permalink,
    permalink_for,
    query_string,
)
from explorer.ui_support.text import md_escape
from explorer.whatif import WhatIf

BannerKind = Literal["success", "warning", "error"]


@dataclass(frozen=True)
class Banner:
    kind: BannerKind
    text: str  # Markdown


def banner(report: DoctorReport) -> Banner:
    rt = f"{report.roundtrip.equal}/{report.roundtrip.total} messages come back"
    if report.verdict == "broken":
        causes = md_escape("; ".join(f.summary for f in report.by_severity("cause")))
        return Banner("error", f"**Broken**: tool calls or content never parse ({rt}). {causes}")
    if report.verdict == "losses":
        listed = "\n".join(f"- {md_escape(loss)}" for loss in report.losses)
        return Banner("warning", f"**Losses** ({rt}):\n\n{listed}")
    extra = (f"; {len(report.as_a_model_writes)} more differ only as a model's own reply would"
             if report.as_a_model_writes else "") + (
        f"; {len(report.by_design_cases)} more differ by the template's design" if report.by_design_cases else "")
    return Banner("success", f"**Full**: nothing is lost ({rt}{extra}).")


def page_href(request: SourceRequest | None, text: str | None, page: str, focus: str | None = None,
              output: str | None = None, inputs: RequestInputs | None = None) -> str | None:
    """A relative link to another page of the app with this template (None: the template
    is too long to put in a URL)."""
    link = permalink_for(request, text, page, focus, output, inputs or RequestInputs())
    if link is None:
        return None
    return f"{page}?{query_string(encode_permalink(link))}"


def evidence_rows(report: DoctorReport) -> list[dict[str, object]]:
    return [{"test": ("contains " if e.wanted else "lacks ") + repr(e.needle),
             "holds": "yes" if e.satisfied else "no",
             "template line": str(e.line) if e.line else "-",
             "source": (e.source_line or "").strip()[:120]} for e in report.route.evidence]


def _where(f: DoctorFinding) -> str:
    return f.where or "-"


def finding_rows(findings: Sequence[DoctorFinding]) -> list[dict[str, object]]:
    return [{"severity": f.severity, "check": f.check, "summary": f.summary, "fix in": _where(f),
             "field": f.field or "-", "probe": f.probe or "-",
             "template line": str(f.template_line) if f.template_line else "-",
             "line's source": f.source_line[:120] or "-"} for f in findings]


def health_findings(report: DoctorReport) -> tuple[DoctorFinding, ...]:
    return tuple(f for f in report.findings if f.source in ("health", "request", "doctor"))


def roundtrip_findings(report: DoctorReport) -> tuple[DoctorFinding, ...]:
    return tuple(f for f in report.findings if f.source == "roundtrip")


def grammar_findings(report: DoctorReport) -> tuple[DoctorFinding, ...]:
    return tuple(f for f in report.findings if f.source == "grammar")


def _losses_cell(case: CaseResult) -> str:
    return "; ".join(f"{x.kind} ({x.where}{f', line {x.template_line}' if x.template_line else ''}): {x.sentence}"
                     for x in case.losses) or "-"


def case_rows(report: DoctorReport) -> list[dict[str, object]]:
    """One row per message and thinking setting."""
    return [{"message": c.message_id, "enable_thinking": str(c.enable_thinking).lower(),
             "back": "yes" if c.equal_trimmed else "no", "what differs": ", ".join(c.diff) or "-",
             "lost, and where": _losses_cell(c)} for c in report.cases]


def losing_cases(report: DoctorReport) -> tuple[CaseResult, ...]:
    """The messages that lose something (the ones worth opening in Try it)."""
    return tuple(c for c in report.cases if any(x.losing for x in c.losses) and c.reply)


def try_href(report: DoctorReport, request: SourceRequest | None, text: str | None,
             case: CaseResult) -> str | None:
    """Try it with the case's reply, its thinking setting and the round trip's tools."""
    tools = json.dumps(list(report.tools), indent=2, ensure_ascii=False) if report.tools else None
    return page_href(request, text, "try", output=case.reply,
                     inputs=RequestInputs(thinking=case.enable_thinking, tools_json=tools))


def fixture_rows(report: DoctorReport) -> list[dict[str, object]]:
    run = report.fixtures
    if run is None:
        return []
    counts = run.per_model()
    scores = {m.model: m for m in run.match.models}
    return [{"reference model": model, "marker share": f"{scores[model].score:.2f}" if model in scores else "-",
             **{k: str(v) for k, v in c.items()}} for model, c in counts.items()]


def fixture_failure_rows(report: DoctorReport, limit: int = 50) -> list[dict[str, object]]:
    run = report.fixtures
    return [] if run is None else [{"fixture": r.fixture_id, "model": r.model, "status": r.verdict.status,
                                    "difference": r.verdict.detail[:200]} for r in run.failures[:limit]]


@dataclass(frozen=True)
class Download:
    label: str
    data: str
    file_name: str
    mime: str


@dataclass(frozen=True)
class FixView:
    title: str
    before_after: str
    body: str  # what to show as code
    language: str  # how to highlight ``body``
    downloads: tuple[Download, ...]
    notes: tuple[str, ...]


def _stem(name: str) -> str:
    base = name.rsplit("/", 1)[-1]
    for suffix in (".jinja", ".json"):
        base = base.removesuffix(suffix)
    return "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in base) or "template"


def fix_view(fix: Fix, template_name: str) -> FixView:
    before, after = fix.roundtrip_before, fix.roundtrip_after
    change = (f"round trip {before.equal}/{before.total} before, {after.equal}/{after.total} after "
              f"({after.equal - before.equal:+d} messages back; {ROUNDTRIP_UNIT}); passed all "
              f"{sum(1 for c in fix.checks if c.passed)} checks of the acceptance standard")
    stem = _stem(template_name)
    notes = tuple(fix.notes)
    if fix.kind == "analysis-override":
        sets = "\n".join(f"--set {s.spec}" for s in fix.overrides)
        body = sets + ("\n\n" + fix.workaround_cpp if fix.workaround_cpp else "")
        downloads: tuple[Download, ...] = (Download("Download the workaround lambda", fix.workaround_cpp,
                                                    f"{stem}-workaround.cpp", "text/x-c++src"),) \
            if fix.workaround_cpp else ()
        if fix.substring:
            notes += (f"keys on the substring {fix.substring!r}: {fix.uniqueness}",)
        return FixView(f"Analysis override: {fix.summary}", change, body, "cpp", downloads, notes)
    if fix.kind == "template-edit":
        downloads = tuple(d for d in (
            Download("Download the patched template", fix.patched_template, f"{stem}-patched.jinja", "text/plain")
            if fix.patched_template else None,
            Download("Download the diff", fix.diff, f"{stem}.diff", "text/x-diff") if fix.diff else None) if d)
        return FixView(f"Template edit: {fix.summary}", change, fix.diff, "diff", downloads, notes)
    body = json.dumps(fix.request_change.to_json() if fix.request_change else {}, indent=2, ensure_ascii=False)
    return FixView(f"Request change: {fix.summary}", change, body, "json", (), notes)


def check_rows(checks: Sequence[CheckResult]) -> list[dict[str, object]]:
    """One row per check of the acceptance standard: what it checks, its result, why."""
    return [{"check": c.check, "what it checks": TITLES.get(c.check, c.check), "result": c.status,
             "detail": c.detail or "-"} for c in checks]


def withdrawn_rows(report: DoctorReport) -> list[dict[str, object]]:
    """The fixes the acceptance standard took back, each with the check it failed."""
    return [{"fix": f"{t.kind}: {t.summary}", "classes": ", ".join(t.classes) or "-",
             "failed": "changes the model's format" if t.changes_format else t.check, "why": t.why}
            for t in report.withdrawn]


def design_rows(report: DoctorReport) -> list[dict[str, object]]:
    """What the template does on purpose, with the lines that show it."""
    return [{"design choice": d.key, "what": d.summary, "lines": ", ".join(map(str, d.lines)) or "-",
             "source": " | ".join(d.source_lines)[:200] or "-"} for d in report.design]


def fix_whatif(fix: Fix, base_text: str, current: WhatIf) -> WhatIf:
    """The what-if that applies ``fix`` on top of the current one: its patched text, its
    overrides and its request change (what every page then shows)."""
    out = current
    if fix.patched_template:
        out = out.with_text(fix.patched_template, base_text)
    for setting in fix.overrides:
        out = out.with_setting(setting)
    if fix.request_change is not None:
        out = out.with_change(fix.request_change)
    return out


@dataclass(frozen=True)
class AppliedFix:
    """A Doctor fix applied as the What-if: the template it is for, the what-if it made,
    and its summary and checks (shown beside the what-if)."""

    sha256: str
    whatif: WhatIf
    summary: str
    checks: tuple[CheckResult, ...]

    def shown_for(self, sha256: str, whatif: WhatIf) -> bool:
        """It is the what-if now active for that template."""
        return self.sha256 == sha256 and self.whatif == whatif


def unfixed_rows(report: DoctorReport) -> list[dict[str, object]]:
    """One row per failure class the fix search found no sound fix for, with why."""
    return [{"class": c.key, "what": c.title, "messages": ", ".join(c.cases) or "-",
             "why no fix is sound": c.no_fix} for c in report.unfixed]


def probe_links(report: DoctorReport, request: SourceRequest | None, text: str | None) -> list[tuple[str, str]]:
    """(probe, href) for every probe a finding names, once each."""
    out: list[tuple[str, str]] = []
    for f in report.findings:
        if f.probe and f.probe not in [p for p, _ in out]:
            href = page_href(request, text, "probes", focus=f.probe)
            if href is not None:
                out.append((f.probe, href))
    return out


def json_download(report: DoctorReport) -> Download:
    return Download("Download the report (JSON)", json.dumps(report.to_json(), indent=2, ensure_ascii=False),
                    f"{_stem(report.template)}-doctor.json", "application/json")


def bug_report(report: DoctorReport, *, source_name: str, source_origin: str, template_text: str,
               fix: Fix | None = None, permalink: str | None = None, template_label: str | None = None,
               reproduce: Sequence[str] = ()) -> str:
    """The bug-report Markdown of the doctor's report: the verdict and round trip, the
    findings that are not notes (with their template lines), and ``fix`` when one is chosen
    (kind, summary, round trip before and after, the --set lines and lambda, the diff or the
    request change)."""
    rt = f"{report.roundtrip.equal}/{report.roundtrip.total}"
    unfixed = "".join(f"\n- no sound fix for `{c.key}`: {c.no_fix}" for c in report.unfixed)
    return bug_report_markdown(
        title=f"Chat template {source_name}: doctor verdict {report.verdict}", source_name=source_name,
        source_origin=source_origin, sha256=report.sha256, template_text=template_text, handler=report.handler,
        permalink=permalink, findings=[f for f in report.findings if f.severity != "info"],
        findings_title="What Template Explorer's doctor found",
        expected=(f"Every assistant message comes back through llama.cpp's parser (round trip now {rt})."
                  + unfixed) if report.verdict != "full" else None,
        fix=fix, template_label=template_label, reproduce=reproduce)


def fix_choices(report: DoctorReport) -> list[str]:
    """The bug report's fix choices: none, then each fix's title (``fix_view``'s)."""
    return ["no fix", *(f"{i + 1}. {fix_view(f, report.template).title}" for i, f in enumerate(report.fixes))]


def chosen_fix(report: DoctorReport, choice: str | None) -> Fix | None:
    choices = fix_choices(report)
    return report.fixes[choices.index(choice) - 1] if choice in choices[1:] else None


def counts(report: DoctorReport) -> Mapping[str, int]:
    return {s: len(report.by_severity(s)) for s in SEVERITIES}


APPLIED_FIX_STATE = "doctor_applied_fix"  # the AppliedFix the What-if shows the checks of

__all__ = [
    "APPLIED_FIX_STATE", "AppliedFix", "check_rows", "design_rows", "fix_whatif", "withdrawn_rows",
    "CHOSEN_FIX_STATE", "Banner", "Download", "FixView", "banner", "bug_report", "case_rows", "chosen_fix",
    "counts", "evidence_rows", "finding_rows", "fix_choices", "fix_view", "fixture_failure_rows", "fixture_rows",
    "grammar_findings", "health_findings", "json_download", "losing_cases",
    "page_href", "probe_links", "roundtrip_findings", "try_href", "unfixed_rows",
]
