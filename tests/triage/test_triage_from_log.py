"""``why --from-log`` and ``TemplateSession.diagnose_log``: a log we write, its failure placed
in the output, the "log" findings first, and whether llama.cpp's place and our parse's stop
agree.

The logs follow llama.cpp's formats (see tests/triage/test_triage_logs.py); the stop we put
in them is our own parse's (for agreement) or one we move on purpose (for disagreement).
"""

from __future__ import annotations

import json

from cases import assert_headline, assert_one_place
from explorer.cli import main
from explorer.session import open_session
from explorer.sources import from_example

WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
OUTPUT = ('Voilà — ünïcode\n<tool_call>\n{"name": "get_weather", "arguments": {city: "Paris"}}\n</tool_call>')
SESSION = open_session(from_example("chatml-think-tools"))
REQUEST = SESSION.request(tools=[WEATHER])
GP = SESSION.params(REQUEST).generation_prompt
STOP = SESSION.parse(OUTPUT, REQUEST).result.end - len(GP)  # our parse's stop, in output characters


def nbytes(text: str) -> int:
    return len(text.encode("utf-8"))


def warning(tail: str) -> str:
    return f"W common_chat_peg_parse: unparsed peg-native output: {tail}\n"


def dump(effective: str) -> str:
    return (f"D common_chat_peg_parse: full peg-native output triggering error:\n=== BEGIN ===\n{effective}\n"
            "=== END ===\n")


def test_the_stop_is_the_start_of_the_call_and_bytes_differ_from_characters():
    assert OUTPUT[STOP:].startswith("<tool_call>") and nbytes(OUTPUT[:STOP]) != STOP


def test_a_0c1e5709_log_is_placed_and_agrees_with_our_parse():
    log = warning((GP + OUTPUT)[len(GP) + STOP:]) + dump(GP + OUTPUT)
    result = SESSION.diagnose_log(log, REQUEST)
    d = result.diagnosis
    first = d.findings[0]
    assert (first.check, first.severity, first.span[0]) == ("log", "info", STOP)
    assert first.place.llama_offset == nbytes(GP + OUTPUT[:STOP]) == d.error.location.offset
    assert "stops there too" in first.summary and f"llama.cpp offset {first.place.llama_offset}" in first.summary
    assert [f.check for f in d.findings if f.check == "log"] == ["log"]
    assert d.findings[1:] == SESSION.diagnose(OUTPUT, REQUEST).findings  # the normal diagnosis follows
    assert_one_place(d)
    text = result.to_text()
    assert "log: read llama.cpp 0c1e5709's warning" in text and "[info] log:" in text
    # the headline leads: the mismatch (the unquoted key), and where the log's warning starts (the call)
    at = OUTPUT.index("city")
    assert_headline(d, wrote='city: "Paris', fix="model", at=at,
                    says=(f"warning starts at llama.cpp offset {first.place.llama_offset}",))
    assert text.startswith(d.headline) and first.place.unparsed


def test_older_builds_pos_elsewhere_is_a_warning_at_our_stop():
    at = OUTPUT.index("city")  # a place older builds' parser may have stopped at; ours stops at STOP
    message = f"Failed to parse input at pos {nbytes(OUTPUT[:at])}: {OUTPUT[at:]}"
    log = "srv    operator(): got exception: " + json.dumps({"error": {"code": 500, "message": message}}) + "\n"
    d = SESSION.diagnose_log(log, REQUEST, output=OUTPUT).diagnosis
    first, second = d.findings[:2]
    assert first.span[0] == at and f"pos {nbytes(OUTPUT[:at])}" in first.summary
    assert (second.check, second.severity, second.span[0]) == ("log", "warning", STOP)
    # no build line, but the wording is older builds': the build explains it, not the request
    assert "older builds' (reported up to b9652" in second.summary and second.fix_where == "llama.cpp"
    assert "request the switches describe" not in second.summary
    assert_one_place(d)
    assert_headline(d, wrote='city: "Paris', fix="model", at=at)


def test_a_failure_our_request_does_not_reproduce():
    log = warning(OUTPUT[STOP:])
    no_tools = SESSION.request()
    d = SESSION.diagnose_log(log, no_tools, output=OUTPUT).diagnosis
    assert d.error is None
    assert any(f.check == "log" and f.severity == "warning" and "does not fail" in f.summary for f in d.findings)
    assert_one_place(d)
    assert_headline(d, wrote="<tool_call>", expects="a request with tools", fix="request",
                    at=OUTPUT.index("<tool_call>"))


def test_a_bare_exception_gets_our_stop():
    log = ('srv    operator(): got exception: {"error":{"code":500,"message":"The model produced output that does '
           'not match the expected peg-native format","type":"server_error"}}\n')
    d = SESSION.diagnose_log(log, REQUEST, output=OUTPUT).diagnosis
    first = d.findings[0]
    assert first.check == "log" and first.span[0] == STOP and "without a place" in first.summary
    assert_one_place(d)
    assert_headline(d, wrote='city: "Paris', fix="model", at=OUTPUT.index("city"))


def test_only_a_tail_and_no_output_is_a_problem():
    result = SESSION.diagnose_log(warning(OUTPUT[STOP:]), REQUEST)
    assert result.diagnosis is None and "give the output too" in result.problem
    assert result.to_json()["diagnosis"] is None and result.to_json()["log"]["problem"]


def _files(tmp_path, log: str, output: str | None = None) -> list[str]:
    (tmp_path / "server.log").write_text(log, encoding="utf-8")
    (tmp_path / "tools.json").write_text(json.dumps([WEATHER]), encoding="utf-8")
    args = ["why", "example:chatml-think-tools", "--from-log", str(tmp_path / "server.log"),
            "--tools", str(tmp_path / "tools.json")]
    if output is not None:
        (tmp_path / "out.txt").write_text(output, encoding="utf-8")
        args += ["--output-file", str(tmp_path / "out.txt")]
    return args


def test_cli_why_from_log(tmp_path, capsys):
    log = warning((GP + OUTPUT)[len(GP) + STOP:]) + dump(GP + OUTPUT)
    assert main(_files(tmp_path, log)) == 0
    text = capsys.readouterr().out
    assert "[info] log:" in text and f"output character {STOP}" in text
    assert main(_files(tmp_path, log) + ["--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["log"]["counts"] == "prompt+output" and data["log"]["char"] == STOP
    first = data["diagnosis"]["findings"][0]
    assert first["check"] == "log" and first["place"]["char"] == STOP
    assert first["place"]["llama_offset"] == nbytes(GP + OUTPUT[:STOP])


def test_cli_why_from_log_beside_the_output_file(tmp_path, capsys):
    args = _files(tmp_path, warning(OUTPUT[STOP:]))
    assert main(args) == 1  # only the tail: the output is needed
    captured = capsys.readouterr()
    assert "give the output too" in captured.err
    assert main(_files(tmp_path, warning(OUTPUT[STOP:]), OUTPUT)) == 0
    assert "stops there too" in capsys.readouterr().out


def test_cli_why_needs_an_output_or_a_log(capsys):
    assert main(["why", "example:chatml-think-tools"]) == 1
    assert "--output-file F or --from-log LOG" in capsys.readouterr().err
