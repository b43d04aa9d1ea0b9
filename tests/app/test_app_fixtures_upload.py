"""The Fixtures page's upload of the user's own canitoolcall fixtures (JSONL).

Unit tests of ``explorer.ui_support.fixture_upload`` (reading and validating the file) and
``fixture_diff`` (expected message vs parse), then the page under AppTest. The fixtures
are written here by hand in canitoolcall's format; their expected messages follow from the
example template's format (Hermes-style JSON calls in <tool_call> tags), not from our output.
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest
from canitoolcall.fixtures import default_fixtures_dir, iter_fixture_files, load_families, load_fixtures
from canitoolcall.results import ParsedToolCall, ParseResult
from streamlit.testing.v1 import AppTest

from apptest_support import md_plain
from explorer import ui_support as ui
from explorer.ui_support import fixture_diff, fixture_upload
from oracle_data import ORACLE, PROJECT_ROOT, load_oracle_template, requires_oracle

ROOT = PROJECT_ROOT
APP = str(ROOT / "app.py")
CHATML = "chatml-think-tools"

pytestmark = pytest.mark.timeout(600)

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Get the current weather for a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}


def fixture(fid: str, raw: str, *, expected: dict | None = None, expected_error: dict | None = None,
            family: str = "mine", **extra: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": f"{family}/{fid}", "family": family, "models": ["someone/some-model"], "spec_version": "0.1",
        "provenance": {"kind": "recorded", "source_url": "https://example.com/recording", "revision": "1",
                       "license": "MIT"},
        "tools": [WEATHER], "raw_output": raw, "tags": ["x-mine"], "thinking": False,
    }
    if expected is not None:
        record["expected"] = expected
    if expected_error is not None:
        record["expected_error"] = expected_error
    record.update(extra)
    return record


def message(content=None, reasoning=None, calls=()) -> dict[str, Any]:
    return {"content": content, "reasoning_content": reasoning,
            "tool_calls": [{"name": n, "arguments": a} for n, a in calls]}


PARIS_CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
OTHER_FORMAT = '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}]'
MINE = [
    # the example's own call format: one call, nothing else
    fixture("hermes-call", PARIS_CALL, expected=message(calls=[("get_weather", {"city": "Paris"})])),
    # plain text is content
    fixture("plain", "It is sunny in Paris.", expected=message("It is sunny in Paris.")),
    # another family's call syntax: this template's parser has no rule for it, so no call comes out
    fixture("other-format", OTHER_FORMAT, expected=message(calls=[("get_weather", {"city": "Paris"})])),
    # cut mid-arguments: canitoolcall accepts any outcome but a returned call. llama.cpp's
    # non-streaming parse returns the cut call with its broken arguments (the oracle's parse of
    # qwen3-hermes/bug-sglang-30480-truncated-mid-arguments: get_weather, '{"city": "San Fr'),
    # so this one fails
    fixture("truncated", PARIS_CALL[:50], expected_error={
        "reason": "cut by max_tokens inside the arguments", "accept": ["no_tool_calls", "content_passthrough",
                                                                       "exception"]}),
    # a record of one of the package's families is judged the same way
    fixture("mine-in-a-known-family", "Hello.", family="qwen3-hermes", models=["Qwen/Qwen3-0.6B"],
            expected=message("Hello.")),
]


def jsonl(records: list[Any]) -> bytes:
    return "\n".join(r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in records).encode()


# --- unit tests: reading an upload ----------------------------------------------------------


def test_a_valid_upload_becomes_canitoolcall_fixtures():
    up = fixture_upload.parse_upload(jsonl(MINE) + b"\n\n")
    assert up.problems == () and not up.refused and up.records == len(MINE)
    first = up.fixtures[0]
    assert (first.id, first.family, first.raw_output, first.thinking, first.line) == (
        "mine/hermes-call", "mine", PARIS_CALL, False, 1)
    # canitoolcall's loader maps a null content to None and keeps the arguments as given
    assert first.expected.content is None and first.expected.tool_calls[0].name == "get_weather"
    assert dict(first.expected.tool_calls[0].arguments) == {"city": "Paris"}
    assert up.fixtures[3].expected is None and up.fixtures[3].expected_error.accept[0] == "no_tool_calls"


def test_blank_lines_are_skipped_but_keep_the_line_numbers():
    data = b"\n" + jsonl([MINE[1]]) + b"\n\n" + b"{oops\n"
    up = fixture_upload.parse_upload(data)
    assert up.fixtures[0].line == 2
    assert [str(p) for p in up.problems] == [
        "line 4: not JSON: Expecting property name enclosed in double quotes at column 2"]


def lines_of(records: list[Any]) -> list[str]:
    return [str(p) for p in fixture_upload.parse_upload(jsonl(records)).problems]


def test_each_malformed_line_says_what_was_expected_and_found():
    no_raw = {k: v for k, v in fixture("no-raw", "x", expected=message("x")).items() if k != "raw_output"}
    assert lines_of(["[1, 2]", no_raw]) == [
        "line 1: expected a JSON object (one fixture per line), found array",
        "line 2: missing field 'raw_output'",
    ]
    assert lines_of([fixture("t", "x", expected=message("x"), tools="get_weather")]) == [
        "line 1: field tools: expected array, found string"]
    assert lines_of([fixture("t", "x", expected=message("x"), thinking="yes")]) == [
        "line 1: field thinking: expected boolean or null, found string"]
    assert lines_of([fixture("t", "x", expected=message("x"), colour="red")]) == ["line 1: unknown field 'colour'"]
    assert lines_of([fixture("t", "x", expected={"content": "x", "tool_calls": [{"name": "f"}]})]) == [
        "line 1: missing field 'reasoning_content' in expected",
        "line 1: missing field 'arguments' in expected.tool_calls[0]",
    ]


def test_a_fixture_needs_exactly_one_expectation_and_a_unique_id():
    neither = fixture("n", "x")
    both = fixture("b", "x", expected=message("x"), expected_error={"reason": "r", "accept": ["exception"]})
    assert lines_of([neither, both, MINE[1], MINE[1]]) == [
        "line 1: missing field 'expected' (or 'expected_error' for an output that must fail gracefully)",
        "line 2: has both 'expected' and 'expected_error'; a fixture has exactly one of them",
        "line 4: duplicate id 'mine/plain' (first at line 3)",
    ]


def test_the_schema_constraints_of_the_package_apply():
    problems = lines_of([fixture("Not Kebab", "x", expected=message("x"))])
    assert len(problems) == 1 and problems[0].startswith("line 1: field id: 'mine/Not Kebab' does not match")
    assert lines_of([fixture("v", "x", expected=message("x"), spec_version="9.0")]) == [
        "line 1: field spec_version: '0.1' was expected"]


def test_the_cap_is_checked_before_parsing():
    line = json.dumps(MINE[1]).encode()
    at_cap = b"\n".join([line] * fixture_upload.MAX_LINES)
    up = fixture_upload.parse_upload(at_cap)
    assert not up.refused and up.records == fixture_upload.MAX_LINES
    over = fixture_upload.parse_upload(at_cap + b"\n" + line)
    assert over.refused and over.fixtures == ()
    assert [str(p) for p in over.problems] == [
        "the file has 2,001 lines; uploads are limited to at most 5 MB and 2,000 lines"]
    big = fixture_upload.parse_upload(b"x" * (fixture_upload.MAX_BYTES + 1))  # not even JSON: never read
    assert big.refused and str(big.problems[0]).startswith("the file is 5.0 MB; uploads are limited to")


def test_text_that_is_not_utf8_or_holds_nothing():
    up = fixture_upload.parse_upload(jsonl([MINE[1]]) + b"\n\xff\xfe{}")
    assert up.refused and [str(p) for p in up.problems] == ["line 2: not UTF-8 text (byte 0xff at column 1)"]
    assert [str(p) for p in fixture_upload.parse_upload(b"\n \n").problems] == [
        "the file holds no fixtures (every line is blank)"]
    bom = fixture_upload.parse_upload(b"\xef\xbb\xbf" + jsonl([MINE[1]]))
    assert bom.problems == () and len(bom.fixtures) == 1


def test_problem_text_lists_at_most_twenty():
    up = fixture_upload.parse_upload(b"\n".join([b"{"] * 25))
    text = up.problem_text()
    assert text.count("\n- line") == 19 and text.endswith("- … and 5 more")


def package_fixtures_jsonl(family: str | None = None) -> bytes:
    root = default_fixtures_dir() / family if family else None
    files = list(iter_fixture_files([root] if root else None))
    return b"\n".join(f.read_bytes().rstrip(b"\n") for f in files)


def test_the_packages_own_fixtures_read_back_unchanged():
    """canitoolcall's shipped corpus passes its own validate(); every line must pass here too,
    and come out as the very Fixture its loader builds."""
    up = fixture_upload.parse_upload(package_fixtures_jsonl())
    assert up.problems == ()
    assert [f.to_dict() for f in up.fixtures] == [f.to_dict() for f in load_fixtures()]


def test_the_offered_example_file_is_a_valid_upload():
    up = fixture_upload.parse_upload(fixture_upload.example_jsonl().encode())
    assert up.problems == () and [f.id for f in up.fixtures] == ["my-family/one-call"]


def test_json_type_names():
    assert [fixture_upload.json_type(v) for v in (None, True, 1, 1.5, "s", [], {})] == [
        "null", "boolean", "number", "number", "string", "array", "object"]


# --- unit tests: the diff against the expected message -------------------------------------


def result(content=None, reasoning=None, calls=(), exception=None):
    return ParseResult(content, reasoning, tuple(ParsedToolCall(n, a) for n, a in calls), exception)


def test_diff_rows_name_each_differing_field():
    want = result(None, "think", [("get_weather", '{"city": "Paris"}')])
    # the same arguments in another key order and spacing are equal JSON: no row
    assert fixture_diff.diff_rows(want, result(None, "think", [("get_weather", '{"city":"Paris"}')])) == []
    rows = fixture_diff.diff_rows(want, result(OTHER_FORMAT, "think\n"))
    assert [(r.field, r.expected, r.parsed, r.whitespace_only) for r in rows] == [
        ("content", "(absent)", OTHER_FORMAT, False),
        ("reasoning_content", "think", "think\n", True),
        ("tool_calls[0]", 'get_weather({"city": "Paris"})', "(no call)", False),
    ]
    rows = fixture_diff.diff_rows(want, result(None, "think", [("get_wether", '{"city": "Par')]))
    assert [(r.field, r.parsed) for r in rows] == [("tool_calls[0].name", "get_wether"),
                                                   ("tool_calls[0].arguments", '{"city": "Par (not JSON)')]
    rows = fixture_diff.diff_rows(want, result(exception="std::runtime_error: no match"))
    assert (rows[0].field, rows[0].expected, rows[0].parsed) == (
        "exception", "(absent)", "std::runtime_error: no match")


def test_diff_html_escapes_and_tints_both_sides():
    html = fixture_diff.diff_html([fixture_diff.DiffRow("content", "<b>", "x", True)])
    assert "&lt;b&gt;" in html and "<b>content</b>" in html and "(whitespace only)" in html
    assert ui.LEFT_BG in html and ui.RIGHT_BG in html


# --- the page -------------------------------------------------------------------------------


def upload_page(data: bytes, name: str = "mine.jsonl") -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["source_request"] = ui.SourceRequest("example", name=CHATML)
    at.run()
    at.switch_page("pages/fixtures_page.py").run()
    at.radio(key="fx_origin").set_value("uploaded JSONL").run()
    at.file_uploader(key="fx_upload").set_value((name, data, "application/jsonl")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def metrics(at: AppTest) -> dict[str, int]:
    return {m.label: int(m.value) for m in at.metric}


def test_an_uploaded_jsonl_is_judged_like_a_family():
    at = upload_page(jsonl(MINE))
    assert not at.error, [e.value for e in at.error]
    assert metrics(at) == {"✓ pass": 3, "≈ soft pass": 0, "✗ fail": 2, "! error": 0}
    # failures first: the other family's syntax, and the cut call llama.cpp returns anyway
    table = at.table[0].value
    assert list(table["fixture"]) == ["mine/other-format", "mine/truncated"]
    assert "tool_calls: expected ['get_weather'], got []" in md_plain(table["difference"].iloc[0])
    assert "returned 1 tool call(s) ['get_weather']" in md_plain(table["difference"].iloc[1])
    html = "\n".join(h.proto.body for h in at.get("html"))
    assert "Diff against the expected message" in "\n".join(m.value for m in at.markdown)
    assert "tool_calls[0]" in html and "(no call)" in html and "[TOOL_CALLS]" in html
    at.radio(key="fx_show").set_value("all").run()
    assert list(at.selectbox(key="fx_pick").options) == [f["id"] for f in MINE]


def test_a_family_uploaded_as_jsonl_gets_the_families_verdicts():
    at = upload_page(package_fixtures_jsonl("qwen3-hermes"), name="qwen3-hermes.jsonl")
    uploaded = metrics(at)
    at.radio(key="fx_origin").set_value("canitoolcall corpus").run()
    at.selectbox(key="fx_family").select("qwen3-hermes").run()
    assert not at.exception
    # qwen3-hermes is this template's own family: the page first shows the models it speaks
    at.toggle(key="fx_own_models").set_value(False).run()
    assert metrics(at) == uploaded and sum(uploaded.values()) > 0


def test_the_upload_survives_a_look_at_the_corpus_until_forgotten():
    at = upload_page(jsonl(MINE))
    uploaded = metrics(at)
    at.radio(key="fx_origin").set_value("canitoolcall corpus").run()
    at.radio(key="fx_origin").set_value("uploaded JSONL").run()
    assert not at.exception
    assert metrics(at) == uploaded
    assert any("Using mine.jsonl, uploaded earlier" in c.value for c in at.caption)
    at.button(key="fx_forget").click().run()
    assert not at.exception
    assert len(at.metric) == 0  # nothing judged once the upload is forgotten
    assert any("Upload a .jsonl file" in i.value for i in at.info)


def test_an_uploaded_fixture_opens_in_try_it():
    at = upload_page(jsonl(MINE))
    at.button(key="fx_try_mine/other-format").click().run()
    assert not at.exception
    assert any(t.value == "Try it" for t in at.title)
    assert at.text_area(key="try_output").value == OTHER_FORMAT


def test_a_malformed_upload_names_the_lines():
    no_raw = {k: v for k, v in MINE[0].items() if k != "raw_output"}
    at = upload_page(jsonl([MINE[1], "{oops", no_raw, fixture("t", "x", expected=message("x"), tools="w")]))
    shown = " ".join(e.value for e in at.error)
    assert "3 line(s) of mine.jsonl are not fixtures in canitoolcall's format" in shown
    assert "line 2: not JSON" in shown
    assert "line 3: missing field 'raw_output'" in shown
    assert "line 4: field tools: expected array, found string" in shown
    # the valid line is still judged
    assert metrics(at)["✓ pass"] == 1


def test_an_over_cap_upload_is_refused():
    line = json.dumps(MINE[1])
    at = upload_page(("\n".join([line] * (fixture_upload.MAX_LINES + 1))).encode())
    assert any("is refused: the file has 2,001 lines; uploads are limited to at most 5 MB and 2,000 lines" in e.value
               for e in at.error)
    assert not at.metric
    big = fixture("big", "x" * (fixture_upload.MAX_BYTES + 10), expected=message("x"))
    at = upload_page(jsonl([big]))
    assert any("is refused: the file is 5.0 MB" in e.value for e in at.error)
    assert not at.metric


def test_no_upload_yet_is_a_hint_not_an_error():
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["source_request"] = ui.SourceRequest("example", name=CHATML)
    at.run()
    at.switch_page("pages/fixtures_page.py").run()
    at.radio(key="fx_origin").set_value("uploaded JSONL").run()
    assert not at.exception and not at.error
    assert any("Upload a .jsonl file" in i.value for i in at.info)
    assert any("one-line example file" in b.proto.label for b in at.get("download_button"))


# --- against llama.cpp's own parses (the oracle) ----------------------------------------------


def _oracle_verdicts(template: str, family: str) -> dict[str, str]:
    """canitoolcall's verdict on llama.cpp's own parse of each fixture (the oracle's parse file)."""
    fixtures = {f.id: f for f in load_fixtures(families=[family])}
    fam = load_families()[family]
    out = {}
    for raw in (ORACLE / "parse" / f"{family}.jsonl").read_text(encoding="utf-8").splitlines():
        line = json.loads(raw)
        if line["template"] != template:
            continue
        result, exc = line["result"], line["exception"]
        message = None if result is None else SimpleNamespace(
            content=result["content"], reasoning_content=result["reasoning_content"],
            tool_calls=[SimpleNamespace(**{k: c[k] for k in ("name", "arguments")}) for c in result["tool_calls"]])
        exception = None if exc is None else f"{exc['type']}: {exc['message']}"
        out[line["id"]] = ui.fixture_verdict(fixtures[line["id"]], fam, message, exception).status
    return out


@requires_oracle
def test_uploaded_fixtures_get_the_verdicts_of_llama_cpps_own_parses():
    want = _oracle_verdicts("Qwen-Qwen3-0.6B.jinja", "qwen3-hermes")
    records = [f.to_dict() for f in load_fixtures(families=["qwen3-hermes"]) if f.id in want]
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["source_request"] = ui.SourceRequest("text", text=load_oracle_template("Qwen-Qwen3-0.6B"))
    at.run()
    at.switch_page("pages/fixtures_page.py").run()
    at.radio(key="fx_origin").set_value("uploaded JSONL").run()
    at.file_uploader(key="fx_upload").set_value(("oracle.jsonl", jsonl(records), "application/jsonl")).run()
    at.radio(key="fx_show").set_value("all").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    table = at.table[0].value
    labels = {"✓ pass": "pass", "≈ soft pass": "soft_pass", "✗ fail": "fail", "! error": "error"}
    got = {fid: labels[status] for fid, status in zip(table["fixture"], table["status"])}
    mismatches = {fid: (got.get(fid), status) for fid, status in want.items() if got.get(fid) != status}
    print(f"{len(want) - len(mismatches)}/{len(want)} uploaded fixtures judged as llama.cpp's own parse is; "
          f"first mismatches (ours, llama.cpp's): {list(mismatches.items())[:5]}")
    assert not mismatches


def test_a_failing_fixture_says_why():
    # the opener with a space inside the tag: the example's parser wants '<tool_call>\n' byte for
    # byte, so llama.cpp returns the whole call as content; the triage names the near miss
    near = fixture("near-miss", PARIS_CALL.replace("<tool_call>", "<tool_call >", 1),
                   expected=message(calls=[("get_weather", {"city": "Paris"})]))
    at = upload_page(jsonl([near]))
    assert not at.error, [e.value for e in at.error]
    assert metrics(at)["✗ fail"] == 1
    assert any(m.value.startswith("**Why this result?**") for m in at.markdown)
    html = "\n".join(h.proto.body for h in at.get("html"))
    assert "<code>opener-near-miss</code>" in html
    assert "&lt;tool_call&gt;" in html and "&lt;tool_call" in html


def test_a_passing_fixture_gets_no_triage():
    at = upload_page(jsonl(MINE[:1]))
    at.radio(key="fx_show").set_value("all").run()
    assert metrics(at)["✓ pass"] == 1
    assert not any(m.value.startswith("**Why this result?**") for m in at.markdown)
