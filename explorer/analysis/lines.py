"""Which template lines wrote an analysis' markers and probe outputs.

Input: a ``CompiledTemplate`` and its ``TemplateAnalysis`` (with the probe records, as
``analyze_template`` or ``template_analysis`` return it), and a field name or a probe
name. Output: for a field, ``MarkerLines``: where the field's text stands in the probe
output its provenance names, and one ``MarkerSource`` per template piece that wrote part
of it (line, the line's source text, the expression, the characters it wrote); for a
probe, ``ProbeLines``: both outputs with their spans and the diff regions, JSON-ready
(``to_json``) for a page that highlights the template line of a hovered span.

The probe side is rendered again with provenance (``explorer.render.provenance``), with
the inputs the analysis rendered it with (``probe_render_inputs``); the result is
checked against the recorded output. The marker is then looked up in that output: the
provenance side names a part of the probe ("diff.left" is the middle of output A,
"diff.prefix" the start they share, "B" output B, its differing middle first...), and of
the marker's occurrences the one overlapping that part most (then the nearest to it) is
taken. Where the same text occurs several times in that part, the first is taken: the
analysis does not record positions, so this can name another occurrence of the same
text than the analyzer looked at; ``MarkerLines.ties`` counts the other occurrences that
fit as well, so a page can say the choice was not decided. A preserved token goes through the marker field it was
trimmed from; one that came from a workaround is looked up in every probe output.

"Holds" (``MarkerSource.level``): "literal" when the characters the piece wrote (less a
final newline) appear in the source text of its line, or in a string constant of its
tag (escapes undone: the constant ``'\\n'`` holds a newline); "expression" when they do
not, but the piece's expression starts on that line (the text came from a value: a
variable set elsewhere, or the inputs); None otherwise. A marker (``MarkerLines.level``)
is "literal" when every piece is, "expression" when every piece holds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Literal

import jinja2

from explorer.analysis.diff import calculate_diff_split, trim_whitespace
from explorer.analysis.model import FIELD_NAMES, TemplateAnalysis, field_value
from explorer.analysis.probes import Probe
from explorer.analysis.roles import PRESERVED_TOKEN_FIELDS
from explorer.analysis.session import PROBE_CLOCK, from_bytes, probe_render_inputs, to_bytes
from explorer.errors import ExplorerError
from explorer.jsontypes import Json
from explorer.render import (
    CompiledTemplate,
    OutputSpan,
    RenderedText,
    render_with_provenance,
)
from explorer.render.jinja_compat import environment
from explorer.render.provenance import SpanKind

Side = Literal["A", "B"]
Level = Literal["literal", "expression"]

_NEWLINES = re.compile(r"\r\n|\r|\n")  # jinja2's line breaks, so line numbers agree


@dataclass(frozen=True)
class MarkerSource:
    """One template piece that wrote ``text``, characters ``span`` of the probe output.

    ``level`` says how the line holds the text (see the module docstring); when it is
    "expression", ``literal_lines`` are the template lines that hold the text literally
    elsewhere (literal text or a string constant: where a variable may have got it), a
    hint only, at most five.
    """

    line: int | None
    source_line: str | None
    expression: str | None
    kind: SpanKind
    text: str
    span: OutputSpan
    level: Level | None = None
    literal_lines: tuple[int, ...] = ()

    def to_json(self) -> dict[str, Json]:
        return {"line": self.line, "source_line": self.source_line, "expression": self.expression,
                "kind": self.kind, "text": self.text, "start": self.span.start, "end": self.span.end,
                "level": self.level, "literal_lines": list(self.literal_lines)}


@dataclass(frozen=True)
class MarkerLines:
    """Where one field's text was written: ``sources`` in order, or the ``problem``."""

    field: str
    marker: str
    probe: str | None
    side: str | None  # the provenance side ("diff.left", "B"...)
    output: Side | None = None  # the output the marker was found in
    start: int | None = None
    end: int | None = None
    sources: tuple[MarkerSource, ...] = ()
    problem: str | None = None
    ties: int = 0  # other occurrences of the text that fit the provenance part as well

    @property
    def level(self) -> Level | None:
        """"literal" if every piece is literal on its line, "expression" if every piece
        holds, None if some piece does not (or nothing was found)."""
        levels = {s.level for s in self.sources}
        if not self.sources or None in levels:
            return None
        return "literal" if levels == {"literal"} else "expression"

    @property
    def lines(self) -> tuple[int, ...]:
        return tuple(dict.fromkeys(s.line for s in self.sources if s.line is not None))

    def to_json(self) -> dict[str, Json]:
        return {"field": self.field, "marker": self.marker, "probe": self.probe, "side": self.side,
                "output": self.output, "start": self.start, "end": self.end, "level": self.level,
                "problem": self.problem, "ties": self.ties, "sources": [s.to_json() for s in self.sources]}


@dataclass(frozen=True)
class ProbeLines:
    """A probe's two outputs with provenance; ``diff_a``/``diff_b`` the differing middle
    of each (character offsets), ``errors`` per side that did not render."""

    probe: str
    a: RenderedText | None
    b: RenderedText | None
    diff_a: tuple[int, int] | None
    diff_b: tuple[int, int] | None
    source_lines: dict[int, str]
    errors: dict[str, str]

    def to_json(self) -> dict[str, Json]:
        return {
            "probe": self.probe,
            "a": self.a.to_json() if self.a else None,
            "b": self.b.to_json() if self.b else None,
            "diff_a": list(self.diff_a) if self.diff_a else None,
            "diff_b": list(self.diff_b) if self.diff_b else None,
            "source_lines": {str(n): text for n, text in sorted(self.source_lines.items())},
            "errors": dict(self.errors),
        }


class LineFinder:
    """Re-renders probe sides with provenance for one template and analysis (each side
    once) and attributes markers to template lines."""

    def __init__(self, tmpl: CompiledTemplate, analysis: TemplateAnalysis, *, bos_token: str = "",
                 eos_token: str = "") -> None:
        self.tmpl = tmpl
        self.analysis = analysis
        self.bos_token = bos_token
        self.eos_token = eos_token
        self.lines = _NEWLINES.split(tmpl.source)
        self._renders: dict[tuple[str, Side], RenderedText | str] = {}
        self._env = environment(tmpl.dialect)
        self._tag_constants: dict[str, tuple[str, ...]] = {}
        self._literals: list[tuple[int, str]] | None = None

    def source_line(self, line: int | None) -> str | None:
        return self.lines[line - 1] if line is not None and 0 < line <= len(self.lines) else None

    def render(self, probe: Probe, side: Side) -> RenderedText | str:
        """The side rendered with provenance, or why it could not be (a message)."""
        key = (probe.name, side)
        if key not in self._renders:
            self._renders[key] = self._render(probe, side)
        return self._renders[key]

    def _render(self, probe: Probe, side: Side) -> RenderedText | str:
        recorded = probe.output_a if side == "A" else probe.output_b
        inputs = probe_render_inputs(probe.inputs_a if side == "A" else probe.inputs_b, self.analysis.jinja_caps,
                                     bos_token=self.bos_token, eos_token=self.eos_token)
        try:
            out = render_with_provenance(self.tmpl, inputs, clock=PROBE_CLOCK)
        except ExplorerError as exc:
            return f"side {side} does not render: {exc.message}"
        if recorded is not None and from_bytes(to_bytes(out.text)) != recorded:
            return f"side {side} renders differently from the analysis' record (other BOS/EOS tokens?)"
        return out

    def source(self, out: RenderedText, span: OutputSpan) -> MarkerSource:
        """The piece behind ``span`` of ``out``, with how its line holds the text."""
        text = out.text[span.start:span.end]
        line = self.source_line(span.line)
        level = self._level(text, line, span)
        hints = self._literal_lines(text) if level == "expression" else ()
        return MarkerSource(span.line, line, span.expression, span.kind, text, span, level, hints)

    def _level(self, text: str, line: str | None, span: OutputSpan) -> Level | None:
        if line is None:
            return None
        written = text.removesuffix("\n")
        if written in line:
            return "literal"
        if span.expression is None:
            return None
        if any(text in value for value in self._constants(span.expression)):
            return "literal"  # a string constant of the tag, escapes undone ('\\n')
        return "expression" if span.expression.split("\n", 1)[0] in line else None

    def _constants(self, expression: str) -> tuple[str, ...]:
        found = self._tag_constants.get(expression)
        if found is None:
            try:
                found = tuple(t.value for t in self._env.lexer.tokenize("{{ " + expression + " }}")
                              if t.type == "string")
            except jinja2.TemplateSyntaxError:
                found = ()
            self._tag_constants[expression] = found
        return found

    def _literal_lines(self, text: str) -> tuple[int, ...]:
        if self._literals is None:
            self._literals = _literal_values(self._env, self.tmpl.source)
        written = text.removesuffix("\n")
        if not written.strip():
            return ()  # whitespace is everywhere
        lines = dict.fromkeys(n for n, value in self._literals if written in value)
        return tuple(lines)[:5]

    def probe_lines(self, name: str) -> ProbeLines:
        probe = self.analysis.probe(name)
        if probe is None:
            raise KeyError(f"the analysis has no probe {name!r}")
        outs: dict[Side, RenderedText | None] = {}
        errors: dict[str, str] = {}
        for side in ("A", "B"):
            got = self.render(probe, side)
            outs[side] = got if isinstance(got, RenderedText) else None
            if isinstance(got, str):
                errors[side] = got
        regions = _diff_regions(probe)
        used = {n for out in outs.values() if out for n in out.lines()}
        return ProbeLines(name, outs["A"], outs["B"], regions.get("A"), regions.get("B"),
                          {n: text for n in used if (text := self.source_line(n)) is not None}, errors)

    def field(self, name: str, marker: str | None = None) -> MarkerLines:
        """Attribute field ``name`` (dotted, as in ``analysis.provenance``); ``marker`` is
        the text to look for when it is not the field's value (a preserved token)."""
        prov = self.analysis.provenance.get(name)
        text = field_value(self.analysis, name) if marker is None else marker
        if not _is_text(text):
            return MarkerLines(name, "", None, None, problem="not a non-empty string field")
        assert isinstance(text, str)
        if prov is None or prov.kind != "probe" or prov.probe is None:
            kind = prov.kind if prov is not None else "unknown"
            return MarkerLines(name, text, None, None, problem=f"no probe provenance (it is {kind})")
        probe = self.analysis.probe(prov.probe)
        if probe is None:
            return MarkerLines(name, text, prov.probe, prov.side, problem="the analysis kept no record of the probe")
        regions = _diff_regions(probe)
        problems: list[str] = []
        for side, (lo, hi), anchor in _search_order(prov.side, probe, regions):
            out = self.render(probe, side)
            if isinstance(out, str):
                problems.append(out)
                continue
            found = _occurrence(out.text, text, lo, hi, anchor)
            if found is None:
                continue
            start, ties = found
            end = start + len(text)
            sources = tuple(self.source(out, s) for s in out.spans_between(start, end))
            return MarkerLines(name, text, prov.probe, prov.side, side, start, end, sources, ties=ties)
        problem = "; ".join(problems) or f"the text is in neither output of probe {prov.probe}"
        return MarkerLines(name, text, prov.probe, prov.side, problem=problem)

    def preserved_tokens(self) -> tuple[MarkerLines, ...]:
        """Each preserved token, attributed through the first marker field it was trimmed
        from (the one ``collect_preserved_tokens`` took it from)."""
        out: list[MarkerLines] = []
        for i, token in enumerate(self.analysis.preserved_tokens):
            label = f"preserved_tokens[{i}]"
            origin = next((f for f in PRESERVED_TOKEN_FIELDS
                           if trim_whitespace(str(field_value(self.analysis, f))) == token), None)
            prov = self.analysis.provenance.get(origin) if origin else None
            if origin is None or prov is None or prov.kind != "probe":
                found = self.anywhere(label, token)
            else:
                found = self.field(origin, token)
            out.append(MarkerLines(label, token, found.probe, found.side, found.output, found.start, found.end,
                                   found.sources, found.problem, found.ties))
        return tuple(out)

    def anywhere(self, label: str, text: str) -> MarkerLines:
        """``text`` attributed where it first occurs in a probe output (side "search")."""
        for probe in self.analysis.probes:
            outputs: tuple[tuple[Side, str | None], ...] = (("A", probe.output_a), ("B", probe.output_b))
            for side, recorded in outputs:
                if recorded is None or text not in recorded:
                    continue
                out = self.render(probe, side)
                if isinstance(out, str) or text not in out.text:
                    continue
                start = out.text.index(text)
                sources = tuple(self.source(out, s) for s in out.spans_between(start, start + len(text)))
                return MarkerLines(label, text, probe.name, "search", side, start,
                                   start + len(text), sources, ties=out.text.count(text) - 1)
        return MarkerLines(label, text, None, None, problem="set by a workaround and in no probe output")

    def markers(self) -> tuple[MarkerLines, ...]:
        """Every non-empty string field with probe provenance, then the preserved tokens."""
        names = [n for n in FIELD_NAMES if _is_text(field_value(self.analysis, n))
                 and getattr(self.analysis.provenance.get(n), "kind", None) == "probe"]
        return tuple(self.field(n) for n in names) + self.preserved_tokens()


def marker_lines(tmpl: CompiledTemplate, analysis: TemplateAnalysis, field: str, *, bos_token: str = "",
                 eos_token: str = "") -> tuple[MarkerSource, ...]:
    """The template pieces that wrote field ``field``'s text in its probe (empty when it
    cannot be attributed: ``LineFinder.field`` says why)."""
    return LineFinder(tmpl, analysis, bos_token=bos_token, eos_token=eos_token).field(field).sources


def probe_lines(tmpl: CompiledTemplate, analysis: TemplateAnalysis, probe: str, *, bos_token: str = "",
                eos_token: str = "") -> ProbeLines:
    """Both outputs of probe ``probe`` with the template line of every span."""
    return LineFinder(tmpl, analysis, bos_token=bos_token, eos_token=eos_token).probe_lines(probe)


def _is_text(value: object) -> bool:
    return isinstance(value, str) and not isinstance(value, Enum) and bool(value)


def _literal_values(env: jinja2.Environment, source: str) -> list[tuple[int, str]]:
    """(line, value) of every string constant and every line of literal text."""
    out: list[tuple[int, str]] = []
    try:
        tokens = list(env.lexer.tokenize(source))
    except jinja2.TemplateSyntaxError:
        return out
    for token in tokens:
        if token.type == "string":
            out.append((token.lineno, token.value))
        elif token.type == "data":
            out.extend((token.lineno + i, part) for i, part in enumerate(token.value.split("\n")))
    return out


def _diff_regions(probe: Probe) -> dict[Side, tuple[int, int]]:
    """The differing middle of each output, in characters (the diff is taken on UTF-8
    bytes, as the analysis takes it)."""
    if probe.output_a is None or probe.output_b is None:
        return {}
    a, b = to_bytes(probe.output_a), to_bytes(probe.output_b)
    split = calculate_diff_split(a, b)
    regions: dict[Side, tuple[int, int]] = {}
    sides: tuple[tuple[Side, str, str], ...] = (("A", a, split.left), ("B", b, split.right))
    for side, data, middle in sides:
        lo = len(split.prefix)
        hi = lo + len(middle)
        if data[lo:hi] != middle:
            continue  # not a plain prefix/middle/suffix split: no region
        regions[side] = (_chars(data, lo), _chars(data, hi))
    return regions


def _chars(data: str, byte_offset: int) -> int:
    return len(data[:byte_offset].encode("latin-1").decode("utf-8", "ignore"))


Anchor = Literal["start", "end", "inside"]


def _search_order(side: str | None, probe: Probe,
                  regions: dict[Side, tuple[int, int]]) -> list[tuple[Side, tuple[int, int], Anchor]]:
    """(output, character range, how to pick among occurrences) to look in, in order.

    A marker from the shared suffix is often built across the boundary (the end of the
    middle plus the start of the suffix: "diff.suffix" is the last part's side), so it is
    the occurrence nearest the start of the suffix that counts; likewise the end of the
    shared prefix.
    """
    a_len = len(probe.output_a or "")
    b_len = len(probe.output_b or "")
    da, db = regions.get("A", (0, a_len)), regions.get("B", (0, b_len))
    preferred: dict[str, tuple[Side, tuple[int, int], Anchor]] = {
        "A": ("A", da, "inside"), "B": ("B", db, "inside"),
        "diff.left": ("A", da, "inside"), "diff.right": ("B", db, "inside"),
        "diff.prefix": ("A", (0, da[0]), "end"), "diff.suffix": ("A", (da[1], a_len), "start"),
        "diff.left+diff.suffix": ("A", (da[0], a_len), "inside"),
    }
    first = preferred.get(side or "", ("A", da, "inside"))
    other: Side = "B" if first[0] == "A" else "A"
    return [first, (other, db if other == "B" else da, "inside")]


def _occurrence(text: str, marker: str, lo: int, hi: int, anchor: Anchor) -> tuple[int, int] | None:
    """The start of the occurrence of ``marker`` that fits ``[lo, hi)`` best, and how many
    other occurrences fit exactly as well (the first of those is taken): for "inside" the
    one overlapping it most, then the nearest; for "start" ("end") one reaching into it
    that starts (ends) nearest its start (end)."""
    keys: list[tuple[int, int, int]] = []
    start = text.find(marker)
    while start >= 0:
        end = start + len(marker)
        overlap = max(0, min(end, hi) - max(start, lo))
        reaches = overlap > 0 or start <= hi and end >= lo
        key: tuple[int, int, int]  # (missed, distance, start): the least wins
        if anchor == "start":
            key = (not reaches, abs(start - lo), start)
        elif anchor == "end":
            key = (not reaches, abs(end - hi), start)
        else:
            distance = 0 if reaches else (lo - end if end < lo else start - hi)
            key = (-overlap, distance, start)
        keys.append(key)
        start = text.find(marker, start + 1)
    if not keys:
        return None
    best = min(keys)
    return best[2], sum(1 for k in keys if k[:2] == best[:2]) - 1


__all__ = ["LineFinder", "MarkerLines", "MarkerSource", "ProbeLines", "field_value", "marker_lines", "probe_lines"]
