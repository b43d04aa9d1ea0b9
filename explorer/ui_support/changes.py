"""Two versions of a template field by field, as an HTML table (Compare, and the what-if).

Input: ``FieldChange`` s (``explorer.comparison``: a dotted field name, A's value, B's
value) and the two columns' labels. Output: an HTML table with whitespace made visible
in string values and the rows that differ tinted; "no differences" when none is shown.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable

from explorer.comparison import FieldChange
from explorer.ui_support.text import marker_html

CHANGED_BG = "#fff4d6"


def change_cell_html(value: object) -> str:
    """One side's value: strings as markers (whitespace visible), lists item by item."""
    if isinstance(value, str):
        return marker_html(value)
    if isinstance(value, list):
        return " ".join(change_cell_html(v) for v in value) or "∅"
    return html.escape(json.dumps(value, ensure_ascii=False))


def changes_table_html(changes: Iterable[FieldChange], only_changed: bool, labels: tuple[str, str] = ("A", "B")) -> str:
    cell = 'style="padding:3px 8px;border-bottom:1px solid #eee;vertical-align:top"'
    rows = []
    for c in changes:
        if only_changed and c.same:
            continue
        mark = "" if c.same else f' style="background:{CHANGED_BG}"'
        rows.append(f"<tr{mark}><td {cell}><code>{html.escape(c.field)}</code></td>"
                    f"<td {cell}>{change_cell_html(c.a)}</td><td {cell}>{change_cell_html(c.b)}</td></tr>")
    if not rows:
        return "<i>no differences</i>"
    head = "".join(f"<th {cell} align=left>{html.escape(h)}</th>" for h in ("field", *labels))
    return f'<table style="border-collapse:collapse;font-size:13px;width:100%"><tr>{head}</tr>{"".join(rows)}</table>'


__all__ = ["CHANGED_BG", "change_cell_html", "changes_table_html"]
