"""Logs from any build: the build line, the table of llama.cpp's parser changes, the server's
JSON error unwrapped, and a tail that fits several outputs.

Log lines follow what llama.cpp prints (read off its source at 0c1e5709, and the wording older
builds' reports show): ``build: N (commit) with …`` (older llama-server),
``common_params_print_info: build N (commit) with …`` (0c1e5709), ``version: …`` (``--version``),
``bN-commit`` (a response's system_fingerprint). The outputs are our own.
"""

from __future__ import annotations

import json
import re

import pytest

from explorer.apply import Request
from explorer.session import open_session
from explorer.sources import from_example, from_text
from explorer.triage.llama_changes import (
    ANCHORS,
    CHANGES,
    REFERENCE_DATE,
    about_build,
    changes_after,
    read_build,
    regressions_in,
)
from explorer.triage.logs import read_log

WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
SESSION = open_session(from_example("chatml-think-tools"))
REQUEST = SESSION.request(tools=[WEATHER])
CUT_CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Pa'  # generation stopped inside the call


@pytest.mark.parametrize("line,number,commit", [
    ("build: 7743 (6a023e898) with GNU 13.3.0 for Linux x86_64", 7743, "6a023e898"),
    ("I common_params_print_info: build 10405 (e79e4bf66) with Clang 20.1.8 for x86_64", 10405, "e79e4bf66"),
    ("main: build = 656 (303f580)", 656, "303f580"),
    ("version: 0.1.0-dev (build 10405, commit e79e4bf66)", 10405, "e79e4bf66"),
    ("version: 9652 (6eab47181)", 9652, "6eab47181"),
    ('data: {"choices":[],"system_fingerprint":"b8029-3096ecaa9","object":"chat.completion.chunk"}', 8029,
     "3096ecaa9"),
    ("version: 0 (unknown)", None, ""),
])
def test_the_build_line_is_read_in_every_wording(line, number, commit):
    build = read_build(["something else", line])
    assert build is not None and (build.number, build.commit, build.line_no) == (number, commit, 2)


def test_a_log_without_a_build_line_names_none():
    assert read_build(["srv  update_slots: all slots are idle"]) is None
    assert read_log("srv  update_slots: all slots are idle\n").build is None


def test_every_change_is_cited_and_its_builds_are_ordered():
    ids = [c.id for c in CHANGES]
    assert len(ids) == len(set(ids))
    for c in CHANGES:
        kind, number = re.fullmatch(r"(PR|issue) #(\d+)", c.ref).groups()  # type: ignore[union-attr]
        assert c.url == f"https://github.com/ggml-org/llama.cpp/{'pull' if kind == 'PR' else 'issues'}/{number}"
        assert c.date <= REFERENCE_DATE and c.what
        if c.before is not None and c.after is not None:
            assert c.before < c.after
    builds = [a.build for a in sorted(ANCHORS, key=lambda a: a.date)]
    assert builds == sorted(builds)
    assert about_build("2026-03-09") == 8240 and about_build("2026-07-01") < about_build("2026-08-01")


def test_which_changes_a_build_predates():
    shown, other = changes_after(8100, {"call-cut-off"})
    assert "incomplete-output" in [c.id for c in shown] and "autoparser" in [c.id for c in other]
    assert changes_after(None, {"call-cut-off"}) == ([], [])  # no build line: nothing is certain
    late_shown, late_other = changes_after(11000, {"call-cut-off"})
    assert not late_shown and not late_other
    assert [c.id for c in regressions_in(9700, {"value-swallowed"})] == ["whitespace"]
    assert regressions_in(9600, {"value-swallowed"}) == []


def _pos_log(build_line: str, output: str, at: int) -> str:
    message = f"Failed to parse input at pos {len(output[:at].encode())}: {output[at:]}"
    return (build_line + "\n" if build_line else "") + "srv    operator(): got exception: " + json.dumps(
        {"error": {"code": 500, "message": message, "type": "server_error"}}) + "\n"


def test_an_older_build_that_failed_where_0c1e5709_parses_is_explained_by_the_change():
    """llama.cpp before PR #20191 threw on an output cut off inside a call; 0c1e5709 returns the
    partial call. The log's build is older: the build explains it, not the request."""
    log = _pos_log("build: 8100 (abcdef012) with GNU 13.3.0 for Linux x86_64", CUT_CALL, 0)
    result = SESSION.diagnose_log(log, REQUEST, output=CUT_CALL)
    assert result.reading.log.build is not None and result.reading.log.build.number == 8100
    d = result.diagnosis
    assert d.error is None  # 0c1e5709's parse succeeds
    said = [f for f in d.findings if f.check == "log" and f.severity == "warning"]
    assert len(said) == 1
    assert "your build b8100 (abcdef012) predates PR #20191" in said[0].summary
    assert "https://github.com/ggml-org/llama.cpp/pull/20191" in said[0].summary
    assert "not the one the server had" not in said[0].summary and said[0].fix_where == "llama.cpp"
    assert "log: llama.cpp build b8100 (abcdef012), line 1" in result.to_text()


def test_the_same_log_from_a_recent_build_says_the_request_differs():
    log = _pos_log("build: 11000 (abcdef012) with GNU 13.3.0 for Linux x86_64", CUT_CALL, 0)
    d = SESSION.diagnose_log(log, REQUEST, output=CUT_CALL).diagnosis
    (said,) = [f for f in d.findings if f.check == "log" and f.severity == "warning"]
    assert "the request or template is not the one the server had" in said.summary and said.fix_where == "request"


def test_without_a_build_line_the_older_wording_points_at_an_older_build():
    d = SESSION.diagnose_log(_pos_log("", CUT_CALL, 0), REQUEST, output=CUT_CALL).diagnosis
    (said,) = [f for f in d.findings if f.check == "log" and f.severity == "warning"]
    assert "older builds' (reported up to b9652" in said.summary and "build: N (commit)" in said.summary


@pytest.mark.parametrize("body", [
    {"error": {"code": 500, "message": "MSG", "type": "server_error"}},
    {"code": 500, "message": "MSG", "type": "server_error"},
])
def test_the_servers_json_error_is_unwrapped_in_both_forms(body):
    output = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    at = output.index("</tool_call>")
    message = f"Failed to parse input at pos {at}: {output[at:]}"
    line = "got exception: " + json.dumps(body).replace("MSG", message.replace("\n", "\\n").replace('"', '\\"'))
    failure = read_log(line + "\n").failure
    assert failure is not None and failure.tail == "</tool_call>" and failure.number == at  # no JSON in the tail


def test_a_json_error_the_log_cut_short_is_read_as_cut():
    output = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    message = "Failed to parse input at pos 12: " + output[12:]
    line = "got exception: " + json.dumps({"code": 500, "message": message})
    cut = line[:len(line) - 30]  # the line ends inside the message string
    failure = read_log(cut + "\n").failure
    assert failure is not None and failure.tail_cut and output[12:].startswith(failure.tail)
    reading = SESSION.diagnose_log(cut + "\n", REQUEST, output=output).reading
    assert reading.char == 12 and not reading.exact


THINK_OPT = (
    "{%- for m in messages %}<|{{ m.role }}|>{{ m.content }}<|end|>{%- endfor %}{%- if add_generation_prompt %}"
    "<|assistant|>{%- if enable_thinking is defined and enable_thinking %}<think>{%- endif %}{%- endif %}")


def test_a_tail_that_is_the_end_of_the_prompt_gives_both_readings_and_asks():
    """A log whose whole record is "<think>", after a prompt that ends with "<think>": an empty
    output, or an output that ends with a trailing "<think>" (llama.cpp issue #27733). Not empty."""
    s = open_session(from_text(THINK_OPT))
    req = Request(messages=({"role": "user", "content": "hi"},), enable_thinking=True)
    assert s.params(req).generation_prompt.endswith("<think>")
    result = s.diagnose_log("W common_chat_peg_parse: unparsed peg-native output: <think>\n", req)
    assert result.diagnosis is None and "fits more than one output" in result.problem
    notes = " ".join(result.reading.notes)
    assert "an empty output" in notes and "ends with it" in notes and "#27733" in notes


def test_a_tail_that_starts_like_the_prompts_end_is_read_and_the_other_reading_said():
    s = open_session(from_text(THINK_OPT))
    req = Request(messages=({"role": "user", "content": "hi"},), enable_thinking=True)
    result = s.diagnose_log("W common_chat_peg_parse: unparsed peg-native output: <think>x\n", req)
    assert result.diagnosis is not None and result.reading.output == "x"
    assert any("also fits an output that ends with this text" in n for n in result.reading.notes)
