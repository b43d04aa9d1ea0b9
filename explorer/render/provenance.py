"""Output provenance: which template line (and expression) wrote each character of a render.

Input: a ``CompiledTemplate`` and ``RenderInputs`` (or a ready context), with the same
budgets as ``render``. Output: ``RenderedText``: the text, byte for byte what ``render``
returns for the same inputs, and ``spans``: ``OutputSpan``s that cover it exactly, in
order, each naming the template line, the kind of piece (literal text, ``{{ }}``
expression, ``{% call %}`` or ``{% filter %}`` block) and the expression's source text.

What a span names: the piece of the template whose output wrote those characters.
Literal text is split at its newlines, so that each span names the exact line its text
stands on. A macro's (or call block's) result written unchanged keeps the lines of the
macro body that produced it, and ``via`` lists the output tags it went through
(outermost first); this holds through ``{% set x = m() %}`` and ``{% set x %}...{%
endset %}`` too. Any other string built elsewhere and output later (``{% set x = '<a>'
~ y %}`` then ``{{ x }}``, ``{{ m() | trim }}``) is attributed to the output line, with
that tag's expression: the line reported is the one whose output wrote the text.

It costs nothing when not asked for: ``render`` never compiles or runs the provenance
build (``CompiledTemplate.provenance_template``, compiled on first use here).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from explorer.jsontypes import Json
from explorer.render.provenance_codegen import (
    UNKNOWN,
    Piece,
    ProvenanceTemplate,
    RawSpan,
    spans_of,
)
from explorer.render.template import (
    CompiledTemplate,
    RenderInputs,
    RenderLimits,
    build_context,
    render_chunks,
)

SpanKind = Literal["text", "expression", "call", "filter", "unknown"]


@dataclass(frozen=True)
class OutputSpan:
    """Characters ``[start, end)`` of a render and the template piece that wrote them.

    ``line`` is 1-based (None for ``kind="unknown"``: text no tagged piece wrote, which
    the tests show does not occur); ``expression`` is the ``{{ }}``/``{% call %}``/
    ``{% filter %}`` source between the delimiters (None for literal text); ``via`` the
    output tags a macro's text went through on its way out, outermost first.
    """

    start: int
    end: int
    line: int | None
    kind: SpanKind
    expression: str | None = None
    via: tuple[Piece, ...] = ()

    def to_json(self) -> dict[str, Json]:
        out: dict[str, Json] = {"start": self.start, "end": self.end, "line": self.line, "kind": self.kind,
                                "expression": self.expression}
        if self.via:
            out["via"] = [{"line": p.line, "kind": p.kind, "expression": p.expression} for p in self.via]
        return out


@dataclass(frozen=True)
class RenderedText:
    """A render's text and the spans that cover it (character offsets)."""

    text: str
    spans: tuple[OutputSpan, ...]
    _starts: tuple[int, ...] = field(default=(), repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_starts", tuple(s.start for s in self.spans))

    def span_at(self, offset: int) -> OutputSpan:
        """The span holding character ``offset`` (IndexError outside the text)."""
        if not 0 <= offset < len(self.text):
            raise IndexError(f"offset {offset} is outside the {len(self.text)}-character text")
        return self.spans[bisect.bisect_right(self._starts, offset) - 1]

    def spans_between(self, start: int, end: int) -> tuple[OutputSpan, ...]:
        """The spans writing characters ``[start, end)``, clipped to that range."""
        if start >= end:
            return ()
        first = bisect.bisect_right(self._starts, max(start, 0)) - 1
        out: list[OutputSpan] = []
        for span in self.spans[max(first, 0):]:
            if span.start >= end:
                break
            lo, hi = max(span.start, start), min(span.end, end)
            if lo < hi:
                out.append(span if (lo, hi) == (span.start, span.end) else _clip(span, lo, hi))
        return tuple(out)

    def lines(self) -> tuple[int, ...]:
        """The template lines that wrote some output, in order of first output."""
        return tuple(dict.fromkeys(s.line for s in self.spans if s.line is not None))

    def to_json(self) -> dict[str, Json]:
        return {"text": self.text, "spans": [s.to_json() for s in self.spans]}


def _clip(span: OutputSpan, start: int, end: int) -> OutputSpan:
    return OutputSpan(start, end, span.line, span.kind, span.expression, span.via)


def render_with_provenance(
    tmpl: CompiledTemplate,
    inputs: RenderInputs,
    *,
    limits: RenderLimits = RenderLimits(),
    clock: Callable[[], datetime] | None = None,
) -> RenderedText:
    """``render`` with provenance: the same text (or the same error), plus its spans
    (``clock`` None: the dialect's default, as ``render``)."""
    ctx = build_context(inputs, tmpl.dialect, clock, copy=tmpl.may_mutate_inputs)
    return render_context_with_provenance(tmpl.provenance_template(), tmpl.source, ctx, limits=limits)


def render_context_with_provenance(
    variant: ProvenanceTemplate, source: str, ctx: dict[str, Any], *, limits: RenderLimits = RenderLimits()
) -> RenderedText:
    """``render_context`` with provenance, for a ready-made context: the same loop
    (``render_chunks``: same budgets, same output cap message, same error translation),
    the chunks then read for their spans."""
    def finish(parts: list[str]) -> RenderedText:
        text = "".join(parts)
        return RenderedText(text, _output_spans(text, parts, variant.pieces))
    return render_chunks(variant.template, source, ctx, finish, limits=limits)


def _output_spans(text: str, parts: list[str], pieces: tuple[Piece, ...]) -> tuple[OutputSpan, ...]:
    raw: list[RawSpan] = []
    offset = 0
    for part in parts:
        raw.extend((s + offset, e + offset, p, via) for s, e, p, via in spans_of(part))
        offset += len(part)
    out: list[OutputSpan] = []
    for start, end, index, via in raw:
        if start >= end:
            continue
        if index == UNKNOWN:
            out.append(OutputSpan(start, end, None, "unknown", None, tuple(pieces[i] for i in via)))
            continue
        piece = pieces[index]
        through = tuple(pieces[i] for i in via)
        if piece.kind != "text":
            out.append(OutputSpan(start, end, piece.line, piece.kind, piece.expression, through))
            continue
        # literal text: one span per template line it stands on
        line, pos = piece.line, start
        while pos < end:
            newline = text.find("\n", pos, end)
            stop = end if newline < 0 else newline + 1
            out.append(OutputSpan(pos, stop, line, "text", None, through))
            pos, line = stop, line + 1
    return tuple(out)
