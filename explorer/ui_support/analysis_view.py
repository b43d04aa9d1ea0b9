"""The Analysis page's rows and tables, and the CLI's readable ``analyze``, as plain data and HTML.

Input: a ``TemplateSession`` (its analysis, provenance and ``LineFinder``: which template
line wrote each marker) or plain rows. Output:

- ``marker_rows``: every analysis field of a section with its value, the probe (or
  workaround) that set it, and for a marker the template line that writes it with the
  line's text (``MarkerRow``);
- ``html_table``: one static HTML table (inline styles) from already escaped cells;
- ``route_reason``: why this route, in words: the text that decided it (where it stands
  in the template) kept apart from the lines that write calls (``RouteReason``);
- ``analysis_text``: the readable ``analyze`` report (route, modes with their glossary
  line, markers with their template lines, generation prompts, what failed).
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum

from explorer.analysis import Provenance, TemplateAnalysis
from explorer.analysis.glossary import explain, field_line, mode_line
from explorer.analysis.lines import LineFinder, MarkerLines
from explorer.analysis.model import FIELD_NAMES, field_value
from explorer.apply import standard_request
from explorer.errors import ExplorerError
from explorer.routing import Routing
from explorer.session import TemplateSession

MODE_FIELDS = ("reasoning.mode", "content.mode", "tools.format.mode", "tools.call_id.pos")
CALL_FIELDS = ("tools.format.section_start", "tools.format.per_call_start", "tools.function.name_prefix")
LINE_TEXT_LIMIT = 160


@dataclass(frozen=True)
class WritingLine:
    """A template line that writes (part of) a marker, and the line's own text."""

    line: int
    text: str

    def describe(self) -> str:
        shown = self.text.strip()
        if len(shown) > LINE_TEXT_LIMIT:
            shown = shown[:LINE_TEXT_LIMIT - 1] + "…"
        return f"line {self.line}: {shown}"


@dataclass(frozen=True)
class MarkerRow:
    """One analysis field: its value, what set it, and the template lines that write it."""

    field: str
    value: object
    provenance: Provenance | None
    lines: tuple[WritingLine, ...] = ()
    problem: str | None = None  # why no template line is named (None: not a marker, or found)
    ties: int = 0  # other places of the probe output the same text stands as well

    @property
    def caveat(self) -> str | None:
        """Said beside the lines when the marker's text stands more than once where the
        analysis found it: the lines are those of the first such place."""
        if not self.lines or not self.ties:
            return None
        places = "place" if self.ties == 1 else "places"
        return (f"the same text stands at {self.ties} other {places} of the probe output where it was found; "
                "these are the lines of the first (the analysis does not record which one it read)")

    @property
    def meaning(self) -> str | None:
        """The glossary's line for the field's mode value, or for the marker field."""
        if isinstance(self.value, Enum):
            return mode_line(self.field, self.value)
        return field_line(self.field)


def _writing_lines(found: MarkerLines) -> tuple[WritingLine, ...]:
    seen: dict[int, str] = {}
    for s in found.sources:
        if s.line is not None and s.line not in seen:
            seen[s.line] = s.source_line or ""
    return tuple(WritingLine(n, text) for n, text in seen.items())


def marker_rows(analysis: TemplateAnalysis, finder: LineFinder | None, fields: Sequence[str] = FIELD_NAMES
                ) -> tuple[MarkerRow, ...]:
    """The rows of ``fields``; a non-empty marker set by a probe gets its template lines
    (``finder``: the session's ``LineFinder``; None leaves them out)."""
    rows = []
    for name in fields:
        value = field_value(analysis, name)
        prov = analysis.provenance.get(name)
        lines: tuple[WritingLine, ...] = ()
        problem = None
        ties = 0
        is_marker = isinstance(value, str) and not isinstance(value, Enum) and bool(value)
        if finder is not None and is_marker and prov is not None and prov.kind == "probe":
            try:
                found = finder.field(name)
            except ExplorerError as exc:
                problem = f"the probe could not be rendered again: {exc}"
            else:
                lines = _writing_lines(found)
                ties = found.ties
                problem = None if lines else (found.problem or "no template line wrote it")
        rows.append(MarkerRow(name, value, prov, lines, problem, ties))
    return tuple(rows)


CELL = 'style="padding:3px 10px;border-bottom:1px solid #eee;vertical-align:top"'


def html_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A static table; ``headers`` are plain text (escaped here), ``rows`` already HTML."""
    head = "".join(f"<th {CELL} align=left>{html.escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td {CELL}>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table style="border-collapse:collapse;font-size:13px;width:100%"><tr>{head}</tr>{body}</table>'


def lines_html(row: MarkerRow, line_href: Callable[[int], str | None] | None = None) -> str:
    """The template lines that write a marker, each with its text, escaped; ``line_href``
    links a line number (to the Template page's source with the line highlighted)."""
    if row.lines:
        def number(n: int) -> str:
            href = line_href(n) if line_href is not None else None
            label = f"line {n}"
            return f'<a href="{html.escape(href, quote=True)}" target="_self">{label}</a>' if href else label

        shown = "<br>".join(f'<span style="white-space:nowrap">{number(w.line)}</span>: <code>'
                            f"{html.escape(w.text.strip()[:LINE_TEXT_LIMIT])}</code>" for w in row.lines)
        if row.caveat:
            shown += f'<br><span style="color:#999">{html.escape(row.caveat)}</span>'
        return shown
    if row.problem:
        return f'<span style="color:#999">{html.escape(row.problem)}</span>'
    return ""


# --- an empty template ----------------------------------------------------------------------


def empty_template_note(text: str) -> str | None:
    """What llama.cpp does with this template when it is empty (or the word ``chatml``):
    ``common_chat_templates_init`` puts its built-in ChatML template in its place (or the
    model's tool_use template when it has one), so everything shown is ChatML's. None for
    any other text."""
    if text not in ("", "chatml"):
        return None
    what = "empty" if text == "" else "the word chatml"
    return (f"This template is {what}. llama.cpp does not analyse it as written: common_chat_templates_init "
            "replaces it with its built-in ChatML template (<|im_start|>role\\ncontent<|im_end|>; a model's "
            "tool_use template instead, when the model has one), so the route, analysis, parser and prompts on "
            "these pages are that ChatML template's, not a model's.")


# --- why this route ------------------------------------------------------------------------


@dataclass(frozen=True)
class RouteReason:
    """The route and the text that decided it, apart from the lines that write calls."""

    handler: str
    specialized: bool
    deciding: tuple[str, ...]  # one sentence per substring test of the winning rule
    checked: int  # how many handler rules were tested

    def headline(self) -> str:
        if not self.specialized:
            return (f"Route: the differential autoparser. None of the {self.checked} specialized handlers' "
                    "substring tests matched, so llama.cpp analyses this template by probing it.")
        return (f"Route: the specialized handler {self.handler}. llama.cpp does not use the autoparser's "
                "parser for this template.")


def route_reason(routing: Routing) -> RouteReason:
    """Why llama.cpp takes this route: each test of the winning rule, with where its text
    stands in the template. The text is a substring test: it can stand anywhere (a system
    prompt's example, a comment), so it is not the line that writes calls."""
    deciding = []
    for e in routing.evidence:
        if not e.wanted:
            deciding.append(f"the template lacks {json.dumps(e.needle, ensure_ascii=False)}")
            continue
        where = f" at template line {e.line}" if e.line else ""
        text = f" ({(e.source_line or '').strip()[:LINE_TEXT_LIMIT]})" if e.source_line else ""
        deciding.append(f"the template contains {json.dumps(e.needle, ensure_ascii=False)}{where}{text}")
    return RouteReason(routing.handler, routing.specialized, tuple(deciding), len(routing.checks))


def call_lines(session: TemplateSession) -> tuple[MarkerRow, ...]:
    """The rows of the markers that open a tool call, with the lines that write them (empty
    when the analysis found no call or did not run)."""
    try:
        analysis = session.analysis
    except ExplorerError:
        return ()
    rows = marker_rows(analysis, session.lines, CALL_FIELDS)
    return tuple(r for r in rows if r.lines)


# --- the CLI's readable analyze ------------------------------------------------------------


def _shown(value: object) -> str:
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(_shown(v) for v in value) + "]"
    return json.dumps(value) if isinstance(value, bool) else str(value)


def _set_by(prov: Provenance | None) -> str:
    if prov is None or prov.kind == "default":
        return "default"
    if prov.kind == "probe":
        return f"probe {prov.probe}" + (f" ({prov.side})" if prov.side else "")
    if prov.kind == "workaround":
        return f"workaround {prov.workaround}"
    return prov.kind


def analysis_text(session: TemplateSession, name: str) -> str:
    """``analyze``'s readable report (``--json`` gives the oracle's schema instead)."""
    reason = route_reason(session.routing)
    out = [name, reason.headline()]
    out += [f"  why this route: {d}" for d in reason.deciding]
    try:
        health = session.health
        out += [f"health [{f.severity}]: {f.summary}" for f in health.findings if f.severity != "info"]
    except ExplorerError as exc:
        out.append(f"health: not checked ({exc})")
    try:
        analysis = session.analysis
    except ExplorerError as exc:
        return "\n".join(out + ["", f"analysis: llama.cpp's analysis throws: {exc}"])
    out += ["", "modes"]
    out += [f"  {f:<18} {explain(f, field_value(analysis, f))}" for f in MODE_FIELDS]
    exhausted = session.render_budget_exhausted  # a runaway template: no more renderings for its lines
    rows = [r for r in marker_rows(analysis, None if exhausted else session.lines) if r.field not in MODE_FIELDS
            and r.value not in ("", (), False) and not (r.provenance is None or r.provenance.kind == "default")]
    out += ["", "markers and fields (value · set by · the template line that writes it)" + (
        "; template lines not traced: the template ran out of render time during the probes" if exhausted else "")]
    width = max((len(r.field) for r in rows), default=10)
    for r in rows:
        out.append(f"  {r.field:<{width}}  {_shown(r.value)} · {_set_by(r.provenance)}")
        out += [f"  {'':<{width}}    {w.describe()}" for w in r.lines]
    out += ["", "generation prompt (what the template adds for the reply; llama.cpp parses it before the output)"]
    for flag in (False, True):
        request = standard_request(flag)
        try:
            gp = session.applied(request).generation_prompt
            prefill = session.reasoning_prefill(request)
            out.append(f"  enable_thinking={str(flag).lower():<5}  {_shown(gp)} · {prefill.describe()}")
        except ExplorerError as exc:
            out.append(f"  enable_thinking={str(flag).lower():<5}  throws: {exc}")
    failures = [f"  probe {f.probe}: {f.message}" for f in analysis.failures]
    out += ["", "what failed silently: " + ("nothing" if not failures else f"{len(failures)} probe(s)")] + failures
    out += ["", "more: --json (the oracle's schema, with provenance), --json --trace (every probe's inputs, "
                "outputs and diff), the app's Probes page"]
    return "\n".join(out)


__all__ = ["CALL_FIELDS", "MODE_FIELDS", "MarkerRow", "RouteReason", "WritingLine", "analysis_text", "call_lines",
           "empty_template_note",
           "html_table", "lines_html", "marker_rows", "route_reason"]
