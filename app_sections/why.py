"""The Try it page's "Why this result?" section (display only).

Input: a ``Diagnosis`` (``TemplateSession.diagnose``: llama.cpp's parse and the findings
that explain it). Output: Streamlit elements: the verdict, the output with each finding's
span highlighted, and per finding its summary, the rule behind it (one sentence) above
expected vs found with whitespace visible, a "llama.cpp quirk" label, its place in every
coordinate (output character, line:column, llama.cpp's offset, older builds' pos), where a
template finding comes from, llama.cpp's side of the story, the fix hint and where the fix
belongs (``fix_where``, with the llama.cpp function or handler), and a suggestion only when
our re-parse verified it (with what that re-parse returned).
"""

from __future__ import annotations

import html

import streamlit as st

import app_state as sh
from explorer import ui_support as ui
from explorer.triage import CHECKS, Diagnosis, Finding
from explorer.triage.model import Place
from explorer.ui_support import why_view as why

TITLE = "Why this result?"
SEVERITY_STYLE = {"cause": ("#c92a2a", "#fff5f5", "cause"), "warning": ("#e67700", "#fff9db", "warning"),
                  "info": ("#1c7ed6", "#e7f5ff", "info")}
SPAN_COLOURS = {"cause": "#ffc9c9", "warning": "#ffec99", "info": "#a5d8ff"}


def _visible(text: str) -> str:
    return ui.visible_whitespace_html(text, spaces="all") or '<span style="color:#999">∅</span>'


def _finding_html(f: Finding) -> str:
    colour, background, label = SEVERITY_STYLE.get(f.severity, SEVERITY_STYLE["info"])
    quirk = (f' · <span style="background:#f3d9fa;color:#862e9c;padding:0 6px;border-radius:3px">'
             f'{html.escape(why.QUIRK_LABEL)}</span>') if f.quirk else ""
    parts = [f'<div style="border-left:4px solid {colour};background:{background};padding:6px 10px;margin:4px 0 10px 0">',
             f'<div><b style="color:{colour}">{label}</b> · <code>{html.escape(f.check)}</code>{quirk}</div>',
             f'<div style="margin:4px 0">{html.escape(f.summary)}</div>']
    if f.rule:
        parts.append(f'<div style="margin:4px 0"><b>Rule:</b> {html.escape(f.rule)}</div>')
    if f.expected or f.found:
        parts.append('<table style="border-collapse:collapse;margin:4px 0">'
                     f'<tr><td style="padding:2px 8px 2px 0;color:#555">expected</td>'
                     f'<td style="{ui.MONO}">{_visible(f.expected)}</td></tr>'
                     f'<tr><td style="padding:2px 8px 2px 0;color:#555">found</td>'
                     f'<td style="{ui.MONO}">{_visible(f.found)}</td></tr></table>')
    if f.place is not None:
        parts.append(_place_html(f.place))
    elif f.span is not None:
        parts.append(f'<div style="color:#555;font-size:90%">at output characters {f.span[0]}–{f.span[1]}</div>')
    origin = why.template_origin(f)
    if origin:
        parts.append(f'<div style="color:#555;font-size:90%">{html.escape(origin)}</div>')
    if f.detail:
        parts.append(f'<div style="color:#333;font-size:90%;margin-top:4px">{html.escape(f.detail)}</div>')
    if f.fix_hint:
        parts.append(f'<div style="margin-top:4px"><b>Fix:</b> {html.escape(f.fix_hint)}</div>')
    if f.fix_hint or f.llama_cpp:  # (an info without a fix has nowhere for one to belong)
        parts.append(f'<div style="color:#555;font-size:90%">the fix belongs to: {html.escape(why.fix_where(f))}'
                     '</div>')
    suggestion = why.verified_suggestion(f)
    if suggestion is not None:
        parts.append(_suggestion_html(suggestion))
    parts.append("</div>")
    return "".join(parts)


def _suggestion_html(s: why.ShownSuggestion) -> str:
    """A suggestion our own re-parse verified: the change, and what the re-parse returned."""
    parts = [f'<div style="margin-top:6px;border-top:1px dashed #bbb;padding-top:4px"><b>Verified suggestion:</b> '
             f'{html.escape(s.summary)}']
    if s.change:
        parts.append(f'<div>request change: <code>{html.escape(s.change)}</code></div>')
    if s.text:
        parts.append(f'<div>corrected output: <span style="{ui.MONO}">{_visible(s.text)}</span></div>')
    parts.append(f'<div style="color:#2b8a3e;font-size:90%">verified: {html.escape(s.verified)}</div></div>')
    return "".join(parts)


def _place_html(place: Place) -> str:
    """The finding's place on one line (llama-server's numbers, then the output's), every
    coordinate with how to read it folded under it (a log's offset, an older build's pos,
    the editor's line:column)."""
    rows = "".join(f'<tr><td style="padding:0 8px 0 0;color:#555;white-space:nowrap">{html.escape(name)}</td>'
                   f'<td>{html.escape(value)}</td></tr>' for name, value in place.coordinates())
    return (f'<details style="margin:4px 0;font-size:90%"><summary style="color:#555">at '
            f'{html.escape(place.where())}</summary><table style="border-collapse:collapse">{rows}</table></details>')


def _highlighted_output(d: Diagnosis) -> None:
    spans = [ui.Span(f.span[0], f.span[1], f"{f.severity}: {f.check}") for f in d.findings
             if f.span is not None and f.span[1] > f.span[0]]
    if not spans:
        return
    colours = {s.tag: SPAN_COLOURS.get(s.tag.split(":")[0], "#eee") for s in spans}
    out_html, legend = ui.spans_html(d.output, spans, colours=colours)
    st.caption("The output, with the place each finding points at highlighted:")
    st.html(ui.mono_block(out_html))
    st.html(ui.legend_html(legend))


def _checks_list() -> None:
    with st.expander(f"What the triage looks for ({len(CHECKS)} checks)"):
        sh.table([{"check": c.id, "looks for": c.looks_for} for c in CHECKS])


def render_why(d: Diagnosis) -> None:
    """The section: the headline sentence, the verdict, the highlighted output, every cause
    and warning, the notes folded one line each."""
    st.subheader(TITLE)
    st.html(f'<p style="font-weight:600;margin:4px 0 2px 0">{html.escape(d.headline)}</p>')
    st.caption(ui.md_escape(d.verdict))
    if d.is_partial:
        st.caption("Explained as llama.cpp's partial parse (is_partial): what the output is still writing is "
                   "in progress, not a cause.")
    findings(d)
    _checks_list()


def findings(d: Diagnosis) -> None:
    """The findings alone (also under a failing fixture): count, highlighted output, one card
    per cause and warning, then the notes, one line each, in an expander (each in full inside)."""
    if not d.findings:
        st.success(ui.md_escape(d.nothing_found))
        return
    if d.all_clear and d.build_error is None and d.error is None:
        st.success(ui.md_escape(d.nothing_wrong))
    causes = len(d.causes)
    st.caption(f"{len(d.findings)} finding{'s' if len(d.findings) != 1 else ''}"
               + (f", {causes} of them a cause" if causes else "")
               + ". Findings explain llama.cpp's answer; they never change it.")
    _highlighted_output(d)
    folded = set(map(id, d.folded))
    cards = "".join(_finding_html(f) for f in d.findings if id(f) not in folded)
    if cards:
        st.html(cards)
    if d.folded:
        notes = len(d.notes)
        more = len(d.folded) - notes
        label = ", ".join(x for x in (f"{notes} note{'s' if notes != 1 else ''}" if notes else "",
                                      f"{more} more about the template" if more else "") if x)
        with st.expander(label + ": " + "; ".join(f.check for f in d.folded)[:120]):
            st.html("".join(f'<details style="margin:2px 0"><summary style="font-size:90%">{why.note_html(f)}'
                            f'</summary>{_finding_html(f)}</details>' for f in d.folded))
