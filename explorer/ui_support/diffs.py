"""Two outputs side by side, and text tinted by the parser rule that consumed it.

Input: probe outputs A and B with the analysis' split, or a text and parse-tree spans.
Output: HTML with the common prefix and suffix dimmed, the differing regions tinted and a
character diff (diff-match-patch) inside them; split tables; tinted spans and a legend.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from explorer.comparison import DiffOp, char_diff
from explorer.ui_support.text import DIM, _html_visible, _trailing_space_mask

# --- diffs -------------------------------------------------------------------------

LEFT_BG = "background:#ffe3e3"
RIGHT_BG = "background:#dcf5dc"
LEFT_STRONG = "background:#ff9d9d;font-weight:600"
RIGHT_STRONG = "background:#86d986;font-weight:600"



def common_prefix_len(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def common_suffix_len(a: str, b: str, prefix_len: int = 0) -> int:
    """Longest common suffix that does not overlap the first ``prefix_len`` characters."""
    n = min(len(a), len(b)) - prefix_len
    i = 0
    while i < n and a[-1 - i] == b[-1 - i]:
        i += 1
    return i


@dataclass(frozen=True)
class PairView:
    """Two outputs split into a shared prefix, differing middles and a shared suffix."""

    prefix_len: int
    suffix_len: int
    html_a: str
    html_b: str
    left: str
    right: str


def _is_valid_split(a: str, b: str, p: int, s: int) -> bool:
    return (
        0 <= p
        and 0 <= s
        and p + s <= len(a)
        and p + s <= len(b)
        and a[:p] == b[:p]
        and a[len(a) - s :] == b[len(b) - s :]
    )


def _elided(n: int) -> str:
    return f'<span style="{DIM};font-style:italic">… {n} more characters …</span>'


def _side_html(
    text: str, p: int, s: int, ops: Sequence[DiffOp], keep: int, strong: str, soft: str,
    context: int | None = None,
) -> str:
    """One side of a pair: dim prefix, the middle with its char diff, dim suffix.

    With ``context`` only that many characters of the prefix and suffix next to the
    difference are shown; the rest is elided with a count.
    """
    mask = _trailing_space_mask(text)
    end = len(text) - s
    start = 0 if context is None else max(0, p - context)
    stop = len(text) if context is None else min(len(text), end + context)
    parts = [_elided(start)] if start else []
    parts.append(f'<span style="{DIM}">{_html_visible(text[start:p], start, mask, "trailing")}</span>')
    pos = p
    for op, chunk in ops:
        if op not in (0, keep):
            continue
        style = soft if op == 0 else strong
        parts.append(f'<span style="{style}">{_html_visible(chunk, pos, mask, "all")}</span>')
        pos += len(chunk)
    if p == end:
        parts.append(f'<span style="{soft};{DIM}" title="nothing here">∅</span>')
    parts.append(f'<span style="{DIM}">{_html_visible(text[end:stop], end, mask, "trailing")}</span>')
    if stop < len(text):
        parts.append(_elided(len(text) - stop))
    return "".join(parts)


def pair_view(
    a: str, b: str, *, prefix_len: int | None = None, suffix_len: int | None = None,
    context: int | None = None,
) -> PairView:
    """Side-by-side HTML of outputs A and B.

    The common prefix and suffix are dimmed, the left (A only) and right (B only) regions
    are tinted, and inside them a character diff marks exactly what changed. When the
    analysis gives its own split (after tag-boundary fixing) pass its lengths; an
    inconsistent split falls back to the plain longest common prefix and suffix.
    ``context`` limits how much of the shared text around the difference is shown.
    """
    if prefix_len is None or suffix_len is None or not _is_valid_split(a, b, prefix_len, suffix_len):
        prefix_len = common_prefix_len(a, b)
        suffix_len = common_suffix_len(a, b, prefix_len)
    left = a[prefix_len : len(a) - suffix_len]
    right = b[prefix_len : len(b) - suffix_len]
    ops = char_diff(left, right)
    return PairView(
        prefix_len=prefix_len,
        suffix_len=suffix_len,
        html_a=_side_html(a, prefix_len, suffix_len, ops, -1, LEFT_STRONG, LEFT_BG, context),
        html_b=_side_html(b, prefix_len, suffix_len, ops, 1, RIGHT_STRONG, RIGHT_BG, context),
        left=left,
        right=right,
    )


PROBE_GROUPS = ("Reasoning", "Content", "Tools", "Turn markers")


def probe_group(name: str) -> str:
    """Which analyzer a probe belongs to, from its reference name (R1, C1.tools, T2, A1...)."""
    if name.startswith(("assistant-start", "user-start")):
        return "Turn markers"
    return {"R": "Reasoning", "C": "Content", "T": "Tools", "A": "Tools"}.get(name[:1], "Turn markers")


def split_html(prefix: str, left: str, right: str, suffix: str, *, context: int = 80) -> str:
    """A diff split (prefix | left / right | suffix) as a small table, whitespace visible.

    Only the ``context`` characters of the prefix and suffix next to the difference are
    shown (an ellipsis marks the cut); left and right are shown whole.
    """
    cell = 'style="padding:2px 8px;vertical-align:top;border-bottom:1px solid #eee"'
    count = 'style="padding:2px 8px;vertical-align:top;border-bottom:1px solid #eee;white-space:nowrap;color:#777"'

    def show(text: str, style: str = "", cut: str = "") -> str:
        ell = ""
        if cut == "head" and len(text) > context:
            text, ell = text[-context:], "…"
        elif cut == "tail" and len(text) > context:
            text, ell = text[:context], "…"
        inner = _html_visible(text, 0, [True] * len(text), "all").replace("\n", "")
        inner = inner or "∅"
        inner = (ell + inner) if cut == "head" else (inner + ell)
        return f'<code style="{style};white-space:pre-wrap;word-break:break-all">{inner}</code>'

    rows = [
        ("prefix", show(prefix, DIM, "head"), len(prefix)),
        ("left", show(left, LEFT_BG), len(left)),
        ("right", show(right, RIGHT_BG), len(right)),
        ("suffix", show(suffix, DIM, "tail"), len(suffix)),
    ]
    body = "".join(
        f"<tr><td {cell}><b>{name}</b></td><td {count}>{n} chars</td><td {cell}>{value}</td></tr>"
        for name, value, n in rows
    )
    return f'<table style="border-collapse:collapse;font-size:13px;width:100%;table-layout:auto">{body}</table>'


# --- spans coloured by the rule that consumed them ---------------------------------

SPAN_PALETTE = (
    "#cfe8ff", "#ffe0b3", "#d9f2d9", "#f2d9f2", "#fff3b0", "#d9e0ff", "#ffd6d6", "#c8f0ec",
)


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    tag: str


def spans_html(text: str, spans: Iterable[Span], *, colours: Mapping[str, str] | None = None) -> tuple[str, dict[str, str]]:
    """``text`` with each span tinted by its tag; returns (html, tag -> colour legend).

    Overlapping spans are resolved in favour of the innermost (latest-starting, shortest);
    characters no span covers stay plain.
    """
    ordered = sorted(spans, key=lambda s: (s.start, -(s.end - s.start)))
    owner: list[str | None] = [None] * len(text)
    for span in ordered:
        for i in range(max(0, span.start), min(len(text), span.end)):
            owner[i] = span.tag
    legend: dict[str, str] = dict(colours or {})
    for tag in owner:
        if tag is not None and tag not in legend:
            legend[tag] = SPAN_PALETTE[len(legend) % len(SPAN_PALETTE)]
    mask = _trailing_space_mask(text)
    parts: list[str] = []
    i = 0
    while i < len(text):
        j = i
        while j < len(text) and owner[j] == owner[i]:
            j += 1
        chunk = _html_visible(text[i:j], i, mask, "trailing")
        tag = owner[i]
        if tag is None:
            parts.append(chunk)
        else:
            title = html.escape(tag, quote=True)
            parts.append(f'<span style="background:{legend[tag]}" title="{title}">{chunk}</span>')
        i = j
    return "".join(parts), legend


def legend_html(legend: Mapping[str, str]) -> str:
    return " ".join(
        f'<span style="background:{colour};padding:1px 6px;border-radius:3px;font-size:12px">'
        f"{html.escape(tag)}</span>"
        for tag, colour in legend.items()
    )


def ast_spans(nodes: Iterable[Any], *, by: Literal["tag", "rule"] = "tag", offset: int = 0) -> list[Span]:
    """Spans of a PEG parse tree (nodes with ``tag``/``rule``/``start``/``end``/``children``).

    ``offset`` is subtracted from every position, so spans can be drawn on the model
    output alone when the parser saw the generation prompt in front of it.
    """
    spans: list[Span] = []
    stack = list(nodes)
    while stack:
        node = stack.pop()
        label = node.tag if by == "tag" else node.rule
        if label and node.end > node.start:
            spans.append(Span(node.start - offset, node.end - offset, label))
        stack.extend(node.children)
    return spans
