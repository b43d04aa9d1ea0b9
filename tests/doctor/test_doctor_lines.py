"""Template lines in the doctor: on held-out templates the autoparser misreads, the JSON
line's findings name the misread marker, the probe that set it and the template line that
wrote it, and that line holds the marker's text or the expression that wrote it; each
round-trip loss names the line where what was lost stands (or would stand)."""

from __future__ import annotations

import json

import pytest
from doctor_templates import LOSSY, MISREAD_LINES, NAME_SUFFIX_ID, NO_CALL_OPENER

from explorer.doctor.losses import no_template_line
from explorer.doctor.report import doctor
from explorer.session import open_session

# template, the misread field, what its line holds (marker text or the expression that wrote it)
MISREADINGS = [
    ("call-id-before-name", MISREAD_LINES, "tools.function.name_prefix", ("tc.id", "<name>")),
    ("id-in-name-suffix", NAME_SUFFIX_ID, "tools.function.name_suffix", ("'#' + tc.id",)),
    ("arguments-in-name-suffix", NO_CALL_OPENER, "tools.function.name_suffix", ("tc.function.arguments",)),
]


def _line(text: str, number: int) -> str:
    return text.split("\n")[number - 1]


@pytest.fixture(scope="module")
def lines() -> dict[str, dict[str, object]]:
    return {name: json.loads(json.dumps(doctor(open_session(text), fixes=False, name=name).to_json()))
            for name, text, _, _ in MISREADINGS}


@pytest.mark.parametrize(("name", "text", "field", "holds"), MISREADINGS, ids=[m[0] for m in MISREADINGS])
def test_a_misread_marker_is_named_with_its_probe_and_the_line_that_wrote_it(
        lines: dict[str, dict[str, object]], name: str, text: str, field: str, holds: tuple[str, ...]) -> None:
    line = lines[name]
    assert line["verdict"] == "broken"
    findings = [f for f in line["findings"] if isinstance(f, dict)]  # type: ignore[union-attr]
    [misread] = [f for f in findings if f["check"] == "template-sentinel-in-marker" and f["field"] == field]
    assert misread["severity"] == "cause" and misread["probe"]
    assert isinstance(misread["template_line"], int)
    source = _line(text, misread["template_line"])
    assert any(h in source for h in holds), (misread["template_line"], source)


@pytest.mark.parametrize(("name", "text", "field", "holds"), MISREADINGS, ids=[m[0] for m in MISREADINGS])
def test_every_cause_and_every_loss_of_a_misread_template_names_a_line(
        lines: dict[str, dict[str, object]], name: str, text: str, field: str, holds: tuple[str, ...]) -> None:
    findings = [f for f in lines[name]["findings"] if isinstance(f, dict)]  # type: ignore[union-attr]
    for f in findings:
        if f["severity"] == "cause" or f["source"] == "roundtrip" and f["severity"] == "warning":
            assert isinstance(f["template_line"], int), f["check"]
            assert _line(text, f["template_line"]).strip(), f["check"]  # a line that writes something


def test_a_marker_missing_where_a_call_opens_names_the_line_that_opens_the_call(
        lines: dict[str, dict[str, object]]) -> None:
    findings = [f for f in lines["arguments-in-name-suffix"]["findings"] if isinstance(f, dict)]  # type: ignore
    [opener] = [f for f in findings if f["check"] == "template-no-call-opener"]
    assert opener["field"] == "tools.format.per_call_start" and opener["probe"]
    assert "'['" in _line(NO_CALL_OPENER, opener["template_line"])


def test_the_parser_losing_a_reply_names_the_line_where_it_stopped(lines: dict[str, dict[str, object]]) -> None:
    findings = [f for f in lines["id-in-name-suffix"]["findings"] if isinstance(f, dict)]  # type: ignore[union-attr]
    [lost] = [f for f in findings if f["check"] == "roundtrip-parser-loses"]
    # the parser expects the probe's id after the name: it stops where the template writes the id
    assert "tc.id" in _line(NAME_SUFFIX_ID, lost["template_line"])


def test_what_the_template_does_not_render_is_placed_where_it_would_stand_or_where_its_design_shows() -> None:
    # LOSSY: line 4 writes the content of a turn without calls (and no reasoning, on purpose:
    # no line reads it, so the drop stands where the reasoning would); lines 2-4 hold the
    # branch that writes content only without calls, the design choice its drop is
    report = doctor(open_session(LOSSY), fixes=False)
    drops = {f.field: f.template_line for f in report.findings if f.check == "roundtrip-by-design"}
    assert drops == {"reasoning_content": 4, "content": 2}
    assert "{{ m.content }}" in LOSSY.split("\n")[3] and "{%- if m.tool_calls %}" in LOSSY.split("\n")[1]


def test_no_template_line_still_turns_the_lines_off() -> None:
    report = doctor(open_session(LOSSY), fixes=False, line_of=no_template_line)
    assert all(x.template_line is None for c in report.cases for x in c.losses)


def test_the_json_line_and_the_text_report_show_the_named_lines_source(lines: dict[str, dict[str, object]]) -> None:
    from explorer.doctor.text import report_text

    findings = [f for f in lines["id-in-name-suffix"]["findings"] if isinstance(f, dict)]  # type: ignore[union-attr]
    misread = next(f for f in findings if f["check"] == "template-sentinel-in-marker")
    assert misread["source_line"] == _line(NAME_SUFFIX_ID, misread["template_line"]).strip()
    assert f"line {misread['template_line']}: {misread['source_line']}" in report_text(lines["id-in-name-suffix"])
