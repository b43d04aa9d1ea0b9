"""Which template lines wrote an analysis' markers (explorer.analysis.lines), on our templates."""

from __future__ import annotations

import json

import pytest

from cases import TAGGED
from explorer.analysis import analyze_template
from explorer.analysis.lines import LineFinder, marker_lines, probe_lines
from explorer.render import compile_template

DIALECTS = ("llama.cpp", "transformers")


@pytest.fixture(scope="module", params=DIALECTS)
def tagged(request: pytest.FixtureRequest) -> LineFinder:
    tmpl = compile_template(TAGGED, request.param)
    return LineFinder(tmpl, analyze_template(tmpl))


def test_function_markers_name_their_literal_lines(tagged: LineFinder) -> None:
    prefix = marker_lines(tagged.tmpl, tagged.analysis, "tools.function.name_prefix")
    assert [(s.line, s.text, s.kind, s.level) for s in prefix] == [(3, "<function=", "text", "literal")]
    assert prefix[0].source_line is not None and "<function={{ tc.function.name }}>" in prefix[0].source_line
    # '>' ends the diff's middle, '\n' starts its suffix: the occurrence straddling both
    suffix = tagged.field("tools.function.name_suffix")
    assert (suffix.marker, suffix.side, suffix.lines) == (">\n", "diff.suffix", (3,))
    assert suffix.level == "literal"


def test_a_marker_over_several_lines_has_a_source_per_line(tagged: LineFinder) -> None:
    found = tagged.field("tools.arguments.value_suffix")
    assert found.marker == "\n</parameter>\n"
    assert [(s.line, s.text) for s in found.sources] == [(5, "\n"), (6, "</parameter>\n")]
    probe = tagged.analysis.probe("A2")
    assert probe is not None and probe.output_a is not None
    assert probe.output_a[found.start:found.end] == found.marker


def test_text_from_a_value_holds_as_an_expression(tagged: LineFinder) -> None:
    found = tagged.field("user_start")
    assert [(s.text, s.expression, s.level) for s in found.sources] == [
        ("<|im_start|>", None, "literal"), ("user", "m.role", "expression")]
    assert found.level == "expression"


def test_every_marker_of_the_template_holds(tagged: LineFinder) -> None:
    markers = tagged.markers()
    assert len(markers) >= 15
    assert all(m.problem is None and m.level is not None for m in markers), [m for m in markers if not m.level]
    tokens = [m for m in markers if m.field.startswith("preserved_tokens[")]
    assert [m.marker for m in tokens] == list(tagged.analysis.preserved_tokens)


def test_fields_without_probe_provenance_say_so(tagged: LineFinder) -> None:
    assert tagged.field("tools.arguments.start").problem == "not a non-empty string field"
    assert tagged.field("tools.format.mode").problem == "not a non-empty string field"  # an enum
    assert marker_lines(tagged.tmpl, tagged.analysis, "tools.call_id.prefix") == ()


def test_probe_lines_are_json_ready(tagged: LineFinder) -> None:
    lines = probe_lines(tagged.tmpl, tagged.analysis, "T3")
    data = json.loads(json.dumps(lines.to_json()))
    assert data["errors"] == {} and data["probe"] == "T3"
    probe = tagged.analysis.probe("T3")
    assert probe is not None and lines.a is not None and lines.b is not None
    assert (lines.a.text, lines.b.text) == (probe.output_a, probe.output_b)
    lo, hi = data["diff_a"]
    assert "FFF_FIRST_FUN_F" in lines.a.text[lo:hi] and "SSS_SECOND_FUN_S" in lines.b.text[slice(*data["diff_b"])]
    hovered = lines.a.span_at(lines.a.text.index("FFF_FIRST_FUN_F"))
    assert hovered.expression == "tc.function.name"
    assert str(hovered.line) in data["source_lines"] and "{{ tc.function.name }}" in data["source_lines"][str(hovered.line)]
    with pytest.raises(KeyError):
        tagged.probe_lines("no such probe")


def test_a_failed_render_is_reported_not_raised() -> None:
    text = "{% if messages[-1].reasoning_content %}{{ raise_exception('no reasoning') }}{% endif %}" + TAGGED
    tmpl = compile_template(text)
    lines = probe_lines(tmpl, analyze_template(tmpl), "R1")
    assert lines.a is not None and lines.b is None
    assert "no reasoning" in lines.errors["B"]


def test_other_bos_tokens_are_noticed() -> None:
    text = "{{ bos_token }}" + TAGGED
    tmpl = compile_template(text)
    analysis = analyze_template(tmpl, bos_token="<s>")
    assert LineFinder(tmpl, analysis, bos_token="<s>").field("tools.function.name_prefix").level == "literal"
    found = LineFinder(tmpl, analysis).field("tools.function.name_prefix")
    assert found.sources == () and "renders differently" in str(found.problem)


def test_an_occurrence_that_fits_as_well_as_another_is_counted_as_a_tie() -> None:
    from explorer.analysis.lines import _occurrence

    text = "ab<x>cd<x>ef"
    # both occurrences stand inside [0, 12): the first is taken, the other counted
    assert _occurrence(text, "<x>", 0, len(text), "inside") == (2, 1)
    # only the second overlaps [6, 12): no tie
    assert _occurrence(text, "<x>", 6, len(text), "inside") == (7, 0)
    assert _occurrence(text, "<y>", 0, len(text), "inside") is None


def test_a_tied_marker_row_says_its_lines_are_those_of_the_first_place() -> None:
    from explorer.ui_support.analysis_view import MarkerRow, WritingLine, lines_html

    row = MarkerRow("tools.format.per_call_start", "<tool_call>", None, (WritingLine(3, "<tool_call>"),), ties=2)
    assert row.caveat is not None and "2 other places" in row.caveat and "first" in row.caveat
    assert "2 other places" in lines_html(row)
    assert MarkerRow("x", "<a>", None, (WritingLine(1, "<a>"),)).caveat is None


def test_markers_of_the_tagged_template_stand_once_where_they_were_found(tagged: LineFinder) -> None:
    # a template that writes each marker once per turn leaves nothing to choose between
    assert [m.field for m in tagged.markers() if m.ties] == []
