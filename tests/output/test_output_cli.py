"""The ``parse`` and ``parse-batch`` commands."""

from __future__ import annotations

import json

import pytest

from explorer.cli import main
from explorer.peg import build_arena
from oracle_data import ORACLE, requires_oracle


def _arena_text() -> str:
    return build_arena(lambda p: p.sequence([
        p.literal("<|assistant|>"),
        p.optional(p.sequence([p.literal("<think>"), p.tag("reasoning", p.until("</think>")),
                               p.literal("</think>")])),
        p.tag("content", p.rest()), p.end()])).dumps()


@pytest.fixture
def files(tmp_path):
    parser = tmp_path / "parser.json"
    parser.write_text(_arena_text(), encoding="utf-8")
    output = tmp_path / "out.txt"
    output.write_text("<think>hm</think>Hello", encoding="utf-8")
    return parser, output


def test_parse_prints_the_message(files, capsys):
    parser, output = files
    assert main(["parse", "--parser", str(parser), "--generation-prompt", "<|assistant|>",
                 "--output-file", str(output)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == {"result": {"role": "assistant", "content": "Hello", "reasoning_content": "hm",
                              "tool_calls": []}, "exception": None}


def test_parse_mismatch_reports_llama_cpp_exception(files, capsys):
    parser, output = files
    assert main(["parse", "--parser", str(parser), "--output-file", str(output)]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["result"] is None
    assert out["exception"] == {"type": "std::runtime_error", "message":
                                "The model produced output that does not match the expected peg-native format"}


def test_parse_stream_gives_deltas(files, capsys):
    parser, output = files
    assert main(["parse", "--parser", str(parser), "--generation-prompt", "<|assistant|>",
                 "--output-file", str(output), "--stream"]) == 0
    steps = json.loads(capsys.readouterr().out)["steps"]
    assert len(steps) == len("<think>hm</think>Hello")
    content = "".join(d.get("content", "") for s in steps for d in s["deltas"])
    assert content == "Hello"


def test_parse_ast_and_notation(files, capsys):
    parser, output = files
    main(["parse", "--parser", str(parser), "--generation-prompt", "<|assistant|>",
          "--output-file", str(output), "--ast"])
    out = json.loads(capsys.readouterr().out)
    assert [n["tag"] for n in out["ast"]] == ["reasoning", "content"]
    main(["parse", "--parser", str(parser), "--output-file", str(output), "--notation"])
    assert capsys.readouterr().out.startswith('root = "<|assistant|>"')


def test_template_form_with_a_missing_file_is_a_clean_error(files, capsys):
    _, output = files
    assert main(["parse", "no-such-template.jinja", "--output-file", str(output)]) == 1
    assert "no-such-template.jinja" in capsys.readouterr().err


def test_template_form_runs_the_whole_pipeline(tmp_path, capsys):
    """Our ChatML example writes calls as <tool_call>{json}</tool_call>: with the tool in
    the request, the generated parser splits the text before the call from the call."""
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([{"type": "function", "function": {
        "name": "get_weather", "parameters": {"type": "object", "properties": {
            "city": {"type": "string"}}, "required": ["city"]}}}]), encoding="utf-8")
    output = tmp_path / "out.txt"
    output.write_text('Hello <tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n'
                      "</tool_call>", encoding="utf-8")
    assert main(["parse", "example:chatml-think-tools", "--output-file", str(output),
                 "--thinking", "false", "--tools", str(tools)]) == 0
    result = json.loads(capsys.readouterr().out)["result"]
    assert result["content"] == "Hello "
    assert [(c["name"], json.loads(c["arguments"])) for c in result["tool_calls"]] == [
        ("get_weather", {"city": "Paris"})]


def test_bad_parser_file_is_a_clean_error(tmp_path, files, capsys):
    _, output = files
    bad = tmp_path / "bad.json"
    bad.write_text('{"parsers": 3}', encoding="utf-8")
    assert main(["parse", "--parser", str(bad), "--output-file", str(output)]) == 1
    assert "parsers" in capsys.readouterr().err


def test_parse_batch_with_inline_raw_output(tmp_path, capsys):
    rows = tmp_path / "in.jsonl"
    rows.write_text("\n".join(json.dumps(r) for r in [
        {"id": "a", "parser": _arena_text(), "generation_prompt": "<|assistant|>", "raw_output": "Hi"},
        {"id": "b", "parser": _arena_text(), "generation_prompt": "", "raw_output": "Hi",
         "format": "peg-gemma4"},
    ]) + "\n", encoding="utf-8")
    assert main(["parse-batch", str(rows)]) == 0
    a, b = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert set(a) == {"id", "result", "exception", "streaming_final"}
    assert a["result"]["content"] == "Hi" and a["exception"] is None
    assert b["result"] is None and "peg-gemma4" in b["exception"]["message"]
    assert b["streaming_final"] is None


@requires_oracle
def test_parse_batch_on_oracle_rows_by_fixture_id(tmp_path, capsys):
    lines = (ORACLE / "parse" / "glm.jsonl").read_text(encoding="utf-8").splitlines()[:5]
    rows = tmp_path / "in.jsonl"
    rows.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["parse-batch", str(rows), "--full-streaming"]) == 0
    outs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    for line, ours in zip(lines, outs):
        row = json.loads(line)
        for field in ("id", "result", "exception", "streaming_final", "streaming_throw_count"):
            assert ours[field] == row[field]


def test_output_file_is_required_except_for_notation(files, capsys):
    parser, _ = files
    assert main(["parse", "--parser", str(parser)]) == 1
    assert "--output-file" in capsys.readouterr().err
    assert main(["parse", "--parser", str(parser), "--notation"]) == 0
