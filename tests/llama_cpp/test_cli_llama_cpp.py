"""``--llama-cpp DRIVER`` on apply, parse, why, doctor and parse-batch, and ``llama-cpp build``.

The switches' errors need no driver; what each command shows beside its own output is
checked with the real build (skipped without it). Our own example templates throughout.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.cli import main
from explorer.llama_cpp.driver import LlamaCppDriver

TEMPLATE = "example:chatml-think-tools"
CALL = '<think>ok</think>Sure.<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_driver_that_is_not_there_is_a_clear_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = _run(capsys, "apply", TEMPLATE, "--llama-cpp", str(tmp_path / "none"))
    assert code == 1 and out == ""
    assert "--llama-cpp" in err and "no such file" in err and "llama-cpp build" in err


def test_build_refuses_a_folder_that_is_no_llama_cpp_tree(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _out, err = _run(capsys, "llama-cpp", "build", "--source", str(tmp_path))
    assert code == 1
    assert "is not a llama.cpp source tree: it lacks common/chat.cpp" in err


def test_apply_says_the_build_agrees(capsys: pytest.CaptureFixture[str], llama_cpp: LlamaCppDriver) -> None:
    code, out, err = _run(capsys, "apply", TEMPLATE, "--llama-cpp", str(llama_cpp.path))
    assert code == 0
    assert f"llama.cpp (build {llama_cpp.info.label}) agrees on the apply" in err
    beside = json.loads(out)["llama_cpp"]
    assert beside["agrees"] is True and beside["llama_cpp"]["prompt"] == json.loads(out)["prompt"]


def test_parse_and_why_show_the_builds_parse(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                             llama_cpp: LlamaCppDriver) -> None:
    output = tmp_path / "out.txt"
    output.write_text(CALL, encoding="utf-8")
    code, out, err = _run(capsys, "parse", TEMPLATE, "--output-file", str(output), "--llama-cpp", str(llama_cpp.path))
    parsed = json.loads(out)
    assert parsed["llama_cpp"]["agrees"] is True and parsed["llama_cpp"]["llama_cpp"] == parsed["result"]
    assert "agrees on the parse" in err
    code, out, _err = _run(capsys, "why", TEMPLATE, "--output-file", str(output), "--llama-cpp", str(llama_cpp.path))
    assert code == 0 and out.rstrip().endswith(f"llama.cpp (build {llama_cpp.info.label}) agrees on the parse")


def test_parse_with_a_serialized_parser_uses_that_parser_on_the_build(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, llama_cpp: LlamaCppDriver) -> None:
    _code, out, _err = _run(capsys, "apply", TEMPLATE)
    params = tmp_path / "params.json"
    params.write_text(out, encoding="utf-8")
    output = tmp_path / "out.txt"
    output.write_text("<think>unclosed", encoding="utf-8")
    _code, out, _err = _run(capsys, "parse", "--parser", str(params), "--output-file", str(output), "--partial",
                            "--llama-cpp", str(llama_cpp.path))
    beside = json.loads(out)["llama_cpp"]
    assert beside["what"] == "partial parse" and beside["agrees"] is True


def test_parse_batch_adds_the_builds_result_and_exception(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                          llama_cpp: LlamaCppDriver) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text("\n".join(json.dumps(r) for r in (
        {"id": "a", "template": TEMPLATE, "raw_output": CALL},
        {"id": "b", "template": TEMPLATE, "raw_output": "<think>cut"})) + "\n", encoding="utf-8")
    code, out, _err = _run(capsys, "parse-batch", str(rows), "--llama-cpp", str(llama_cpp.path))
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [line["id"] for line in lines] == ["a", "b"]
    for line in lines:
        assert set(line["llama_cpp"]) == {"result", "exception"}
        assert line["llama_cpp"]["result"] == line["result"] and line["llama_cpp"]["exception"] == line["exception"]


def test_doctor_rechecks_on_the_build(capsys: pytest.CaptureFixture[str], llama_cpp: LlamaCppDriver) -> None:
    _code, out, _err = _run(capsys, "doctor", TEMPLATE, "--json", "--llama-cpp", str(llama_cpp.path))
    line = json.loads(out.splitlines()[0])
    section = line["llama_cpp"]
    assert section["build"] == llama_cpp.info.label and section["agrees"] is True
    assert [a["what"] for a in section["template"]] == ["analysis", "apply", "apply"]
    assert section["headline"].startswith(f"llama.cpp (build {llama_cpp.info.label}): reads and applies the "
                                          "template as the port does")
