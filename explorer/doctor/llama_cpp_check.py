"""The doctor's report beside a real llama.cpp build: the template's reading, and each fix.

Input: a ``TemplateSession``, the fixes of its doctor report (``Fix.to_json()`` objects)
and a ``LlamaCppDriver``. Output: ``LlamaCppSection``: what the real build reads off the
template (caps, route, analysis, thinking support) and applies for the standard request
beside the port's, and for each template-edit and request-change fix whether the fix's
round trip holds there too (every llama.cpp step of it asked of the real build:
``explorer.llama_cpp.roundtrip_check``). Self-contained: the doctor's fix search is not
touched; the CLI's ``doctor --llama-cpp`` and the app's Doctor page call ``llama_cpp_section``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from explorer.apply import standard_request
from explorer.doctor.classes import thinking_settings
from explorer.errors import ExplorerError
from explorer.jsontypes import JsonObject
from explorer.llama_cpp.compare import Agreement, compare_analysis, compare_apply
from explorer.llama_cpp.driver import LlamaCppDriver
from explorer.llama_cpp.roundtrip_check import check_roundtrip
from explorer.roundtrip.run import RequestChange
from explorer.session import TemplateSession, open_session

CHECKED_KINDS = ("template-edit", "request-change")


@dataclass(frozen=True)
class FixCheck:
    """One fix, re-checked on the real build."""

    kind: str
    summary: str
    checks: tuple[Agreement, ...]
    error: str = ""  # the fix could not be re-checked (its patched template does not compile, ...)

    @property
    def holds(self) -> bool:
        return not self.error and all(c.agrees for c in self.checks)

    def to_json(self) -> JsonObject:
        return {"kind": self.kind, "summary": self.summary, "holds": self.holds, "error": self.error,
                "checks": [c.to_json() for c in self.checks]}


@dataclass(frozen=True)
class LlamaCppSection:
    build: str
    template: tuple[Agreement, ...]
    fixes: tuple[FixCheck, ...]

    @property
    def agrees(self) -> bool:
        return all(a.agrees or a.skipped for a in self.template) and all(f.holds for f in self.fixes)

    def headline(self) -> str:
        who = f"llama.cpp (build {self.build})"
        parts = []
        parts.append("reads and applies the template as the port does" if all(a.agrees for a in self.template)
                     else "reads or applies the template differently")
        if self.fixes:
            held = sum(1 for f in self.fixes if f.holds)
            parts.append(f"{held} of {len(self.fixes)} re-checked fixes hold there")
        return f"{who}: " + "; ".join(parts)

    def to_text(self) -> str:
        lines = [self.headline()]
        lines += ["  " + line for a in self.template if not a.agrees for line in a.to_text().splitlines()]
        for fix in self.fixes:
            state = "holds" if fix.holds else ("not re-checked: " + fix.error if fix.error else "does not hold")
            lines.append(f"  fix ({fix.kind}) {fix.summary}: {state}")
            lines += ["    " + line for c in fix.checks if not c.agrees for line in c.to_text().splitlines()]
        return "\n".join(lines)

    def to_json(self) -> JsonObject:
        return {"build": self.build, "agrees": self.agrees, "headline": self.headline(),
                "template": [a.to_json() for a in self.template], "fixes": [f.to_json() for f in self.fixes]}


def _recheck(session: TemplateSession, fix: Mapping[str, object], settings: tuple[bool, ...],
             driver: LlamaCppDriver) -> FixCheck:
    kind, summary = str(fix.get("kind", "")), str(fix.get("summary", ""))
    try:
        if kind == "template-edit":
            patched = fix.get("patched_template")
            if not isinstance(patched, str):
                return FixCheck(kind, summary, (), "the fix carries no patched template")
            target = open_session(patched)
            checks = [compare_analysis(target, driver)]
            checks += [check_roundtrip(target, thinking, driver) for thinking in settings]
        else:
            change = RequestChange.from_json(fix.get("request_change", {}))
            checks = [check_roundtrip(session, thinking, driver, change=change) for thinking in settings]
    except ExplorerError as exc:
        return FixCheck(kind, summary, (), str(exc))
    return FixCheck(kind, summary, tuple(checks))


def llama_cpp_section(session: TemplateSession, fixes: Sequence[Mapping[str, object]],
                      driver: LlamaCppDriver) -> LlamaCppSection:
    """The template and its template-edit / request-change fixes, on the real build."""
    template = [compare_analysis(session, driver)]
    template += [compare_apply(session, standard_request(thinking), driver) for thinking in (False, True)]
    settings = thinking_settings(session)
    checked = tuple(_recheck(session, f, settings, driver) for f in fixes if f.get("kind") in CHECKED_KINDS)
    return LlamaCppSection(driver.info.label, tuple(template), checked)


def fixes_of(line: Mapping[str, object]) -> list[Mapping[str, object]]:
    """The fixes of a doctor report line (``DoctorReport.to_json()``)."""
    found = line.get("fixes")
    return [f for f in found if isinstance(f, Mapping)] if isinstance(found, list) else []
