"""A fixture's expected message next to the parse, field by field, as the Fixtures page diffs them.

Input: two canitoolcall ``ParseResult`` values (the fixture's ``expected`` as a result,
and our parse). Output: one ``DiffRow`` per field that differs under canitoolcall's own
strict comparison (``checks.canonical``), saying whether the difference is whitespace only
(what canitoolcall's soft comparison forgives), with both sides as display text.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from explorer.ui_support.diffs import LEFT_BG, RIGHT_BG
from explorer.ui_support.text import mono_block, visible_whitespace_html


@dataclass(frozen=True)
class DiffRow:
    field: str  # content, reasoning_content, exception, tool_calls[i].name, tool_calls[i].arguments
    expected: str
    parsed: str
    whitespace_only: bool = False


def _shown(value: Any) -> str:
    if value is None:
        return "(absent)"
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _arguments_text(raw: str | None) -> str:
    """Arguments as compact JSON when they decode, else the raw text as returned."""
    if raw is None:
        return "(none)"
    try:
        return json.dumps(json.loads(raw), ensure_ascii=False, sort_keys=True)
    except ValueError:
        return f"{raw} (not JSON)"


def _call_text(call: Any) -> str:
    return "(no call)" if call is None else f"{call.name}({_arguments_text(call.arguments_raw)})"


def diff_rows(want: Any, got: Any) -> list[DiffRow]:
    """The fields where ``got`` differs from ``want`` (canitoolcall's strict canonical form)."""
    from canitoolcall.checks import canonical

    strict_w, strict_g = canonical(want, soft=False), canonical(got, soft=False)
    soft_w, soft_g = canonical(want, soft=True), canonical(got, soft=True)
    rows = []
    if strict_w["exception"] != strict_g["exception"]:  # compared by type; shown in full
        rows.append(DiffRow("exception", _shown(want.exception), _shown(got.exception)))
    for name in ("content", "reasoning_content"):
        if strict_w[name] != strict_g[name]:
            rows.append(DiffRow(name, _shown(strict_w[name]), _shown(strict_g[name]),
                                whitespace_only=soft_w[name] == soft_g[name]))
    calls_w, calls_g = strict_w["tool_calls"], strict_g["tool_calls"]
    for i in range(max(len(calls_w), len(calls_g))):
        w = want.tool_calls[i] if i < len(calls_w) else None
        g = got.tool_calls[i] if i < len(calls_g) else None
        if w is None or g is None:  # one side has more calls
            rows.append(DiffRow(f"tool_calls[{i}]", _call_text(w), _call_text(g)))
            continue
        if calls_w[i][0] != calls_g[i][0]:
            rows.append(DiffRow(f"tool_calls[{i}].name", w.name, g.name))
        if calls_w[i][1] != calls_g[i][1]:
            rows.append(DiffRow(f"tool_calls[{i}].arguments", _arguments_text(w.arguments_raw),
                                _arguments_text(g.arguments_raw)))
    return rows


def diff_html(rows: Sequence[DiffRow]) -> str:
    """The rows as a three-column table: field, expected (red tint), parsed here (green tint)."""
    body = []
    for r in rows:
        note = " <i>(whitespace only)</i>" if r.whitespace_only else ""
        expected, parsed = (mono_block(visible_whitespace_html(t)) for t in (r.expected, r.parsed))
        body.append(f'<tr><td style="vertical-align:top"><b>{html.escape(r.field)}</b>{note}</td>'
                    f'<td style="{LEFT_BG};vertical-align:top">{expected}</td>'
                    f'<td style="{RIGHT_BG};vertical-align:top">{parsed}</td></tr>')
    return ('<table style="width:100%;border-collapse:collapse"><tr><th>field</th><th>expected</th>'
            "<th>parsed here</th></tr>" + "".join(body) + "</table>")
