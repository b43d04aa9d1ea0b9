"""The real llama.cpp's answer beside the port's, for the app's Try it and Doctor pages.

Input: the configured driver (``TEMPLATE_EXPLORER_LLAMA_CPP_DRIVER``, or the app's
``--llama-cpp DRIVER`` setting, ``explorer.ui_support.app_options``), the page's session and
request, the output (Try it) or the doctor report (Doctor). Output: a ``Beside``: one
headline sentence, whether the build agrees, the rows of every field that differs (field,
the port's value, the build's value, each shortened for a table cell), the build's parsed
message, and notes; or the driver's failure in words. Pure: the pages only draw it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from explorer.apply import Request
from explorer.doctor.llama_cpp_check import LlamaCppSection, llama_cpp_section
from explorer.errors import ExplorerError, LlamaCppError
from explorer.jsontypes import Json
from explorer.llama_cpp.compare import Agreement, Difference, compare_apply, compare_parse
from explorer.llama_cpp.driver import LlamaCppDriver, driver_at
from explorer.session import TemplateSession

CELL = 120  # characters of a value shown in a table cell


@dataclass(frozen=True)
class Beside:
    """What a page shows of the real build next to the port."""

    headline: str
    agrees: bool
    rows: tuple[dict[str, str], ...] = ()  # field, port, llama.cpp
    message: Mapping[str, Json] | None = None  # the build's parsed message (Try it)
    notes: tuple[str, ...] = field(default=())
    error: str = ""  # the driver failed: nothing was compared


def configured(path: str | None) -> LlamaCppDriver | None:
    """The driver the app compares with (``AppOptions.llama_cpp``: its setting, else the
    environment's), or None."""
    return driver_at(path) if path else None


def _cell(value: Json) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= CELL else text[:CELL - 1] + "…"


def rows_of(differences: tuple[Difference, ...], prefix: str = "") -> tuple[dict[str, str], ...]:
    return tuple({"field": prefix + d.field, "port": _cell(d.port), "llama.cpp": _cell(d.llama_cpp)}
                 for d in differences)


def _failed(driver: LlamaCppDriver, exc: ExplorerError) -> Beside:
    return Beside(f"The llama.cpp build at {driver.path} could not answer", False, error=str(exc))


def try_it(session: TemplateSession, request: Request, output: str, partial: bool, driver: LlamaCppDriver) -> Beside:
    """Try it: the build's apply of the request and its parse of the output."""
    try:
        applied = compare_apply(session, request, driver)
        parsed = compare_parse(session, output, request, driver, partial=partial)
    except LlamaCppError as exc:
        return _failed(driver, exc)
    both: tuple[Agreement, ...] = (applied, parsed)
    if all(a.agrees for a in both):
        headline = f"llama.cpp (build {driver.info.label}) agrees: the same chat params and the same {parsed.what}."
    else:
        parts = [a.what for a in both if not a.agrees]
        headline = f"llama.cpp (build {driver.info.label}) differs from the port on the {' and the '.join(parts)}."
    message = parsed.llama_cpp if isinstance(parsed.llama_cpp, Mapping) else None
    rows = rows_of(applied.differences, "params.") + rows_of(parsed.differences, "message.")
    notes = tuple(n for a in both for n in a.notes) + tuple(f"{a.what}: {a.skipped}" for a in both if a.skipped)
    return Beside(headline, all(a.agrees for a in both), rows, message, notes)


def doctor(session: TemplateSession, report: Mapping[str, Json], driver: LlamaCppDriver) -> Beside:
    """Doctor: the build's reading of the template, and each template-edit / request-change
    fix's round trip re-run on it."""
    fixes = report.get("fixes")
    try:
        section: LlamaCppSection = llama_cpp_section(
            session, [f for f in fixes if isinstance(f, Mapping)] if isinstance(fixes, list) else [], driver)
    except LlamaCppError as exc:
        return _failed(driver, exc)
    rows: list[dict[str, str]] = []
    for agreement in section.template:
        rows += rows_of(agreement.differences, f"{agreement.what}: ")
    notes = []
    for fix in section.fixes:
        state = "holds on this build" if fix.holds else (f"not re-checked: {fix.error}" if fix.error
                                                          else "does not hold on this build")
        notes.append(f"Fix ({fix.kind}) {fix.summary}: {state}.")
        for check in fix.checks:
            rows += rows_of(check.differences, f"fix {fix.summary[:40]}: {check.what}: ")
    return Beside(section.headline() + ".", section.agrees, tuple(rows), None, tuple(notes))
