"""A probe's outputs beside the template lines that wrote them (HTML, no script).

Input: a probe's ``ProbeLines`` (both outputs with provenance, from
``explorer.analysis.lines``) and the markers it set with their template lines. Output:
one HTML block: outputs A and B with each span tagged by its template line (the line and
expression in a tooltip), the markers, and the source lines used. Hovering a span or a
marker highlights its line in the source view, and clicking one jumps to it; both are
CSS (``:has`` and ``:target``), so the block works in ``st.html``, which runs no script.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass

from explorer.analysis.lines import ProbeLines
from explorer.render.provenance import RenderedText
from explorer.ui_support.text import MONO, visible_whitespace_html

HIGHLIGHT = "background:#ffe08a;outline:1px solid #e0b000"


@dataclass(frozen=True)
class MarkerLine:
    """A field the probe set, its text, and the template line that wrote it (None: unknown)."""

    field: str
    text: str
    line: int | None


def _uid(name: str) -> str:
    return "pv-" + re.sub(r"[^A-Za-z0-9_-]", "_", name)


def _output_html(rendered: RenderedText, uid: str, diff: tuple[int, int] | None) -> str:
    parts = []
    for span in rendered.spans:
        text = rendered.text[span.start:span.end]
        inner = visible_whitespace_html(text, spaces="all")
        if diff is not None and span.start < diff[1] and diff[0] < span.end:
            inner = f'<b>{inner}</b>'
        if span.line is None:
            parts.append(inner)
            continue
        tip = f"template line {span.line}" + (f": {{{{ {span.expression} }}}}" if span.expression else " (literal text)")
        parts.append(f'<a class="pv l{span.line}" href="#{uid}-L{span.line}" title="{html.escape(tip)}" '
                     f'style="color:inherit;text-decoration:none">{inner}</a>')
    return "".join(parts)


def provenance_html(lines: ProbeLines, markers: Sequence[MarkerLine] = ()) -> str:
    """Outputs A and B of one probe, the markers it set and the source lines, linked."""
    uid = _uid(lines.probe)
    used = sorted(lines.source_lines)
    css = [f".{uid} .src{{display:block;white-space:pre-wrap}}",
           f".{uid} .src:target{{{HIGHLIGHT}}}",
           f".{uid} a.pv:hover{{{HIGHLIGHT}}}"]
    css += [f".{uid}:has(.l{n}:hover) #{uid}-L{n}{{{HIGHLIGHT}}}" for n in used]
    panes = []
    for label, rendered, diff in (("A", lines.a, lines.diff_a), ("B", lines.b, lines.diff_b)):
        body = (_output_html(rendered, uid, diff) if rendered is not None
                else f'<i>{html.escape(lines.errors.get(label, "not rendered"))}</i>')
        panes.append(f'<div style="flex:1;min-width:0"><b>Output {label}</b>'
                     f'<div style="{MONO};border:1px solid #ddd;padding:6px;border-radius:4px">{body}</div></div>')
    marker_html = "".join(
        (f'<a class="pv l{m.line}" href="#{uid}-L{m.line}" title="template line {m.line}" '
         f'style="color:inherit;text-decoration:none;margin-right:12px"><code>{html.escape(m.field)}</code> '
         f'{visible_whitespace_html(m.text, spaces="all")} → line {m.line}</a>') if m.line is not None else
        f'<span style="margin-right:12px"><code>{html.escape(m.field)}</code> (line unknown)</span>'
        for m in markers)
    source = "".join(f'<span class="src" id="{uid}-L{n}"><span style="color:#999">{n:>4} </span>'
                     f'{html.escape(lines.source_lines[n])}</span>' for n in used)
    return (f'<div class="{uid}"><style>{"".join(css)}</style>'
            f'<div style="display:flex;gap:8px">{"".join(panes)}</div>'
            + (f'<div style="margin:6px 0"><b>Markers</b>: {marker_html}</div>' if markers else "")
            + f'<div><b>Template lines that wrote them</b> (hover or click a span)</div>'
              f'<div style="{MONO};border:1px solid #ddd;padding:6px;border-radius:4px;max-height:360px;'
              f'overflow:auto">{source}</div></div>')
