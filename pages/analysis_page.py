"""Analysis page: the modes and markers the autoparser settled on, each with its origin.

Input: the chosen template's ``TemplateSession`` (its analysis with provenance, and the
prompts it renders for the oracle's standard request; with a what-if, the modified
session). Output: the four modes, every marker field with the probe (or override) that
set it (linked to the Probes page), the preserved tokens, the "What if…" section
(``app_sections.whatif``: overrides, the template edited in place, what changed, the
workaround lambda and the patch), the generation prompt and reasoning prefill per
thinking setting, what failed silently, and the analysis as llama.cpp reports it.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from enum import Enum

import streamlit as st

import app_state as sh
from app_sections import whatif as whatif
from explorer import ui_support as ui
from explorer.analysis import Provenance, TemplateAnalysis
from explorer.analysis.glossary import mode_line
from explorer.analysis.lines import LineFinder
from explorer.analysis.model import FIELD_NAMES, field_value
from explorer.apply import standard_request
from explorer.session import TemplateSession
from explorer.ui_support.analysis_view import MODE_FIELDS, MarkerRow, html_table, lines_html, marker_rows

SECTIONS = (
    ("Reasoning", "reasoning."),
    ("Content", "content."),
    ("Tool-call format", "tools.format."),
    ("Function", "tools.function."),
    ("Arguments", "tools.arguments."),
    ("Call id", "tools.call_id."),
    ("Turns", ""),
)
TURN_FIELDS = ("user_start", "assistant_start", "preserved_tokens", "additional_stops")


def _show_value(value: object, field: str = "") -> str:
    if isinstance(value, Enum):
        meaning = mode_line(field, value)
        tip = f' title="{html.escape(meaning, quote=True)}"' if meaning else ""
        return f"<b{tip}>{html.escape(str(value.value))}</b>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return ui.marker_html(value)
    if isinstance(value, (tuple, list)):
        return " ".join(ui.marker_html(v) if isinstance(v, str) else html.escape(str(v)) for v in value) or "∅"
    return html.escape(str(value))


def _page_hrefs(text: str, page: str = "probes") -> Callable[[str], str | None]:
    """Links to a page focused on something: the Probes page on a probe, the Template page
    on a line ("L12"); None when the view has no permalink.

    The template part of the link is encoded once: compressing and quoting a 10 KB pasted
    template for each of the dozen fields a probe set cost ~50 ms per page run.
    """
    link = ui.permalink_for(sh.current_request(), text, page)
    if link is None:
        return lambda focus: None
    rest = {k: v for k, v in ui.encode_permalink(link).items() if k != "page"}
    quoted_rest = ui.query_string(rest)

    def href(focus: str) -> str:
        # the parameters in encode_permalink's order: page, focus, then the source
        head = ui.query_string({"page": page, "focus": focus})
        return f"{page}?{head}&{quoted_rest}" if quoted_rest else f"{page}?{head}"

    return href


def _origin(prov: Provenance | None, probe_href: Callable[[str], str | None]) -> str:
    if prov is None or prov.kind == "default":
        return '<span style="color:#999">default (never set)</span>'
    if prov.kind == "probe":
        side = f" · {html.escape(prov.side)}" if prov.side else ""
        name = f"<b>{html.escape(prov.probe or '?')}</b>"
        href = probe_href(prov.probe) if prov.probe else None
        if href:
            name = f'<a href="{html.escape(href, quote=True)}">{name}</a>'
        return f"probe {name}{side}" + (
            f" <i>{html.escape(prov.note)}</i>" if prov.note else "")
    if prov.kind == "workaround":
        return f'<span style="color:#a15c00">workaround <b>{html.escape(prov.workaround or "?")}</b></span>'
    return f"{html.escape(prov.kind)}" + (f" <i>{html.escape(prov.note)}</i>" if prov.note else "")


HEADERS = ("field", "value (whitespace visible)", "set by", "the template line that writes it")


def _row_html(row: MarkerRow, probe_href: Callable[[str], str | None],
              line_href: Callable[[int], str | None]) -> list[str]:
    meaning = row.meaning
    name = f"<code>{html.escape(row.field)}</code>"
    if meaning and not isinstance(row.value, Enum):
        name += f'<div style="color:#777;font-size:11px">{html.escape(meaning)}</div>'
    value = _show_value(row.value, row.field)  # a mode's meaning is its tooltip here (said above the table)
    return [name, value, _origin(row.provenance, probe_href), lines_html(row, line_href)]


def _markers(session: TemplateSession, analysis: TemplateAnalysis, text: str) -> None:
    names = FIELD_NAMES
    probes_used: list[str] = []
    probe_href = _page_hrefs(text, "probes")
    template_href = _page_hrefs(text, "template")
    line_href: Callable[[int], str | None] = lambda n: template_href(f"L{n}")  # noqa: E731
    finder: LineFinder | None = None
    if not session.render_budget_exhausted:
        finder = sh.guarded(lambda: session.lines, text, context="tracing the template lines")
    st.caption("Each marker with the probe that set it and the template line that writes it (the probe rendered "
               "again with provenance: the line's own text, as in the Probes page's \"Which template line wrote "
               "each span\").")
    for title, prefix in SECTIONS:
        fields = [n for n in names if (n.startswith(prefix) if prefix else n in TURN_FIELDS)]
        if not fields:
            continue
        rows = marker_rows(analysis, finder, fields)
        for row in rows:
            prov = row.provenance
            if prov is not None and prov.kind == "probe" and prov.probe and prov.probe not in probes_used:
                probes_used.append(prov.probe)
        st.markdown(f"**{title}**")
        st.html(html_table(HEADERS, [_row_html(r, probe_href, line_href) for r in rows]))
    if probes_used:
        st.markdown("Open the probe behind a field:")
        cols = st.columns(min(4, len(probes_used)))
        for i, probe in enumerate(probes_used):
            cols[i % len(cols)].page_link("pages/probes_page.py", label=f"Probe {probe}", icon=":material/compare:",
                                          query_params={"focus": probe})


MODE_LABELS = ("Reasoning", "Content", "Tool calls", "Call id")


def _modes(analysis: TemplateAnalysis) -> None:
    cols = st.columns(4)
    for col, label, name in zip(cols, MODE_LABELS, MODE_FIELDS, strict=True):
        value = field_value(analysis, name)
        meaning = mode_line(name, value) or ""
        col.metric(label, str(value.value), help=f"{name} = {value.value}: {meaning}")
        col.caption(ui.md_escape(meaning))


def _generation_prompts(session: TemplateSession) -> None:
    st.subheader("Generation prompt and reasoning prefill")
    cols = st.columns(2)
    for col, thinking in zip(cols, (False, True)):
        with col:
            st.markdown(f"**enable_thinking = {str(thinking).lower()}**")
            request = standard_request(thinking)
            applied = sh.guarded(lambda: session.applied(request), session.text,
                                 context="applying the standard request")
            if applied is None:
                continue
            st.html(ui.mono_block(ui.visible_whitespace_html(applied.generation_prompt, spaces="all")
                                  or '<span style="color:#999">∅ (empty)</span>'))
            prefill = session.reasoning_prefill(request)
            st.markdown(f"Prefill outcome **{prefill.outcome.value}**: {ui.md_escape(prefill.describe())}.")
            if prefill.parser_prefix:
                st.html("Literal the parser expects before the output: " + ui.marker_html(prefill.parser_prefix))
            if applied.supports_thinking is not None:
                st.caption(f"supports_thinking: {str(applied.supports_thinking).lower()} · route {applied.handler}")


def _silent_failures(analysis: TemplateAnalysis) -> None:
    st.subheader("What failed silently")
    failures = list(analysis.failures)
    threw = [p for p in analysis.probes if p.error is not None]
    if not failures and not threw:
        st.success("Every probe rendered; nothing was skipped.")
    for f in failures:
        st.warning(f"Probe **{ui.md_escape(f.probe)}**: {ui.md_escape(f.message)}")
    known = {f.probe for f in failures}
    for p in threw:
        if p.name not in known:
            st.warning(f"Probe **{ui.md_escape(p.name)}** threw ({ui.md_escape(p.error.kind)}): "
                       f"{ui.md_escape(p.error.message)}")
    if threw:
        st.caption("llama.cpp logs these at debug level only and keeps the defaults, so the "
                   "parser it builds may silently ignore reasoning or tool calls.")
    if not analysis.analysis_complete:
        st.info("analysis_complete is false: llama.cpp's analysis did not finish every analyzer.")
    applied = list(analysis.workarounds_applied)
    if applied:
        st.markdown("Workarounds llama.cpp applied after the probes: " + ", ".join(f"`{w}`" for w in applied))


def main() -> None:
    session = sh.page_session()
    if session is None:
        return
    analysis = sh.guarded(lambda: session.analysis, session.text, context="analysing the template")
    if analysis is None:
        whatif.section(sh.active())  # an edit or override that broke the analysis can still be changed here
        return
    sh.health_banner(session)
    if session.routing.specialized:
        st.warning(f"llama.cpp routes this template to the specialized handler `{session.handler}`; "
                   "this analysis is computed (as llama.cpp computes it) but does not build its parser.")
    _modes(analysis)
    st.subheader("Markers")
    _markers(session, analysis, session.text)
    st.subheader("Preserved tokens")
    tokens = list(analysis.preserved_tokens)
    st.html(" ".join(ui.marker_html(t) for t in tokens) if tokens else "<i>none</i>")
    whatif.section(sh.active())
    if session.render_budget_exhausted:
        st.warning("Generation prompts are skipped: this template ran out of render time during the probes.")
    else:
        _generation_prompts(session)
    _silent_failures(analysis)
    with st.expander("The analysis as llama.cpp reports it (JSON)"):
        data = analysis.to_oracle_json()
        st.json(data, expanded=False)
        st.download_button("Download analysis.json", json.dumps(data, indent=2, ensure_ascii=False),
                           file_name="analysis.json", mime="application/json")


sh.require_app()
main()
