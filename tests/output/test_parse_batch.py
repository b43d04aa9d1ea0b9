"""``parse-batch`` with template rows: our own small templates, paths, fixture ids,
error lines, and the order of the output with ``--jobs``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import explorer.caps as caps_module
from explorer import session as session_module
from explorer.analysis import session as analysis_session
from explorer.cli import batch as batch_module
from explorer.cli import main
from explorer.peg import build_arena
from explorer.render import RenderLimits
from explorer.session import open_session
from explorer.sources import from_example
from oracle_data import HOSTILE_DIR

CHATML = from_example("chatml-think-tools").text
PLAIN = from_example("plain-chat").text
WEATHER = [{"type": "function", "function": {
    "name": "get_weather", "parameters": {"type": "object", "properties": {
        "city": {"type": "string"}}, "required": ["city"]}}}]
CALL = 'Hello <tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
FIXTURE = "qwen3-hermes/single-call-no-thinking"  # a canitoolcall fixture: one get_weather call


def _write_rows(path: Path, rows: list[dict | str]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def _batch(rows_file: Path, *extra: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[dict], str]:
    rc = main(["parse-batch", str(rows_file), *extra])
    captured = capsys.readouterr()
    return rc, [json.loads(line) for line in captured.out.splitlines()], captured.err


def _calls(line: dict) -> list[tuple[str, dict]]:
    return [(c["name"], json.loads(c["arguments"])) for c in line["result"]["tool_calls"]]


@pytest.fixture
def templates(tmp_path: Path) -> Path:
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "chatml.jinja").write_text(CHATML, encoding="utf-8")
    (folder / "plain.jinja").write_text(PLAIN, encoding="utf-8")
    return folder


def test_template_row_runs_the_whole_pipeline_like_parse_template(tmp_path, templates, capsys):
    rows = _write_rows(tmp_path / "in.jsonl", [
        {"id": "call", "template": str(templates / "chatml.jinja"), "tools": WEATHER, "enable_thinking": False,
         "raw_output": CALL},
        {"id": "example", "template": "example:chatml-think-tools", "tools": WEATHER, "enable_thinking": False,
         "raw_output": CALL},
        {"id": "no tools", "template": str(templates / "chatml.jinja"), "enable_thinking": False,
         "raw_output": CALL},
    ])
    rc, (call, example, no_tools), _ = _batch(rows, capsys=capsys)
    assert rc == 0
    assert call["result"]["content"] == "Hello "
    assert _calls(call) == [("get_weather", {"city": "Paris"})]
    assert example == call | {"id": "example"}
    assert no_tools["result"]["content"] == CALL and no_tools["result"]["tool_calls"] == []
    assert set(call) == {"id", "result", "exception", "streaming_final"}

    # the same request through `parse TEMPLATE` gives the same message
    (tmp_path / "tools.json").write_text(json.dumps(WEATHER), encoding="utf-8")
    (tmp_path / "out.txt").write_text(CALL, encoding="utf-8")
    assert main(["parse", str(templates / "chatml.jinja"), "--output-file", str(tmp_path / "out.txt"),
                 "--tools", str(tmp_path / "tools.json"), "--thinking", "false"]) == 0
    assert json.loads(capsys.readouterr().out)["result"] == call["result"]


def test_request_fields_reach_the_template(tmp_path, templates, capsys):
    """enable_thinking and chat_template_kwargs change the generation prompt, so the same
    output parses differently; what a row leaves out is llama-server's default (thinking
    on: the template supports it). Each line is the session's own parse of the request."""
    thought = "<think>hm</think>Hi"
    chatml = str(templates / "chatml.jinja")
    requests: list[dict] = [
        {"id": "default"},
        {"id": "on", "enable_thinking": True},
        {"id": "off", "enable_thinking": False, "chat_template_kwargs": None, "tools": None},
        {"id": "kwargs", "chat_template_kwargs": {"enable_thinking": False}},
        {"id": "full", "tools": WEATHER, "tool_choice": "required", "enable_thinking": False,
         "parallel_tool_calls": True, "reasoning_format": "deepseek", "messages": [
             {"role": "system", "content": "Be brief."}, {"role": "user", "content": "Weather?"}],
         "raw_output": CALL[len("Hello "):]},
    ]
    rows = _write_rows(tmp_path / "in.jsonl", [{"template": chatml, "raw_output": thought} | r for r in requests])
    rc, lines, _ = _batch(rows, capsys=capsys)
    assert rc == 0
    default, on, off, kwargs, full = lines
    assert default["result"] == on["result"]
    assert on["result"]["reasoning_content"] == "hm" and on["result"]["content"] == "Hi"
    assert off["result"]["content"] == kwargs["result"]["content"] == thought
    assert _calls(full) == [("get_weather", {"city": "Paris"})]

    session = open_session(CHATML)
    for request, line in zip(requests, lines):
        fields = {k: v for k, v in request.items() if k not in ("id", "raw_output")}
        parsed = session.parse(request.get("raw_output", thought), session.request(**fields))
        assert line["result"] == (parsed.message.to_oracle_json() if parsed.message else None), request["id"]


def test_relative_template_paths(tmp_path, templates, capsys, monkeypatch):
    """A relative path: first in each --templates folder, then beside the JSONL file, then
    in the working directory."""
    batch_dir = tmp_path / "batch"
    (batch_dir / "sub").mkdir(parents=True)
    (batch_dir / "sub" / "mine.jinja").write_text(CHATML, encoding="utf-8")
    (batch_dir / "chatml.jinja").write_text(PLAIN, encoding="utf-8")  # shadowed by --templates
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "cwd.jinja").write_text(CHATML, encoding="utf-8")
    monkeypatch.chdir(elsewhere)
    row = {"tools": WEATHER, "enable_thinking": False, "raw_output": CALL}
    rows = _write_rows(batch_dir / "in.jsonl", [
        row | {"id": "beside the JSONL", "template": "sub/mine.jinja"},
        row | {"id": "bare name", "template": "chatml.jinja"},
        row | {"id": "working directory", "template": "cwd.jinja"},
        row | {"id": "nowhere", "template": "missing.jinja"},
    ])
    rc, (beside, bare, cwd, nowhere), err = _batch(rows, "--templates", str(templates), capsys=capsys)
    assert _calls(beside) == _calls(bare) == _calls(cwd) == [("get_weather", {"city": "Paris"})]
    assert nowhere["error"]["kind"] == "source"
    assert "missing.jinja" in nowhere["error"]["message"] and str(templates) in nowhere["error"]["message"]
    assert rc == 1 and "1 of 4 rows failed" in err

    # without --templates the bare name is the plain template beside the JSONL file
    rc, (_, bare, _, _), _ = _batch(rows, capsys=capsys)
    assert bare["result"]["content"] == CALL and bare["result"]["tool_calls"] == []


def test_fixture_id_supplies_raw_output_and_tools(tmp_path, templates, capsys):
    from canitoolcall.fixtures import load_fixtures

    fixture = next(f for f in load_fixtures() if f.id == FIXTURE)
    chatml = str(templates / "chatml.jinja")
    rows = _write_rows(tmp_path / "in.jsonl", [
        {"id": FIXTURE, "template": chatml, "enable_thinking": False},
        {"id": FIXTURE, "template": chatml, "enable_thinking": False, "tools": list(fixture.tools),
         "raw_output": fixture.raw_output},
        {"id": FIXTURE, "template": chatml, "enable_thinking": False, "tools": [], "raw_output": "Hi"},
        {"id": "no such fixture", "template": chatml},
    ])
    rc, (by_id, spelled_out, own_fields, unknown), _ = _batch(rows, capsys=capsys)
    assert _calls(by_id) == [("get_weather", {"city": "Paris", "unit": "c"})]
    assert by_id == spelled_out
    assert own_fields["result"]["content"] == "Hi"  # the row's own raw_output and (no) tools win
    assert unknown["error"]["kind"] == "source" and "no raw_output" in unknown["error"]["message"]
    assert rc == 1


def test_parser_rows_and_template_rows_mix(tmp_path, templates, capsys):
    arena = build_arena(lambda p: p.sequence([p.tag("content", p.rest()), p.end()])).dumps()
    rows = _write_rows(tmp_path / "in.jsonl", [
        {"id": "parser", "parser": arena, "raw_output": "Hi", "template": "ignored.jinja"},
        {"id": "template", "template": str(templates / "chatml.jinja"), "tools": WEATHER,
         "enable_thinking": False, "raw_output": CALL},
        {"id": "unknown tool", "template": str(templates / "chatml.jinja"), "tools": WEATHER,
         "enable_thinking": False, "raw_output": CALL.replace("get_weather", "get_time")},
    ])
    rc, (parser, template, unknown), _ = _batch(rows, "--explain", "--full-streaming", capsys=capsys)
    assert rc == 0  # a parse llama.cpp rejects is a result (its exception), not a failed row
    assert unknown["result"] is None and "peg-native" in unknown["exception"]["message"]
    assert unknown["explain"]["expected"] == ['"get_weather"']
    assert parser["result"]["content"] == "Hi" and parser["explain"] is None
    assert _calls(template) == [("get_weather", {"city": "Paris"})]
    assert template["streaming_final"] == template["result"] and template["streaming_threw"] is False
    assert template["streaming_prefixes"] == len(CALL)


def test_bad_rows_get_error_lines_and_the_batch_goes_on(tmp_path, templates, capsys):
    chatml = str(templates / "chatml.jinja")
    good = {"id": "good", "template": chatml, "enable_thinking": False, "raw_output": "Hi"}
    (tmp_path / "broken.jinja").write_text("{% if %}", encoding="utf-8")
    rows = _write_rows(tmp_path / "in.jsonl", [
        "not json",
        "[1, 2]",
        {"id": "neither", "raw_output": "Hi"},
        {"id": "tools", "template": chatml, "tools": {"a": 1}, "raw_output": "Hi"},
        {"id": "thinking", "template": chatml, "enable_thinking": "yes", "raw_output": "Hi"},
        {"id": "reasoning", "template": chatml, "reasoning_format": "loud", "raw_output": "Hi"},
        {"id": "choice", "template": chatml, "tool_choice": "sometimes", "raw_output": "Hi"},
        {"id": "syntax", "template": str(tmp_path / "broken.jinja"), "raw_output": "Hi"},
        {"id": "stdin", "template": "-", "raw_output": "Hi"},
        {"id": "parser", "parser": "{not an arena", "raw_output": "Hi"},
        {"id": "parser type", "parser": 3, "raw_output": "Hi"},
        "",
        good,
    ])
    rc, lines, err = _batch(rows, capsys=capsys)
    assert rc == 1 and "11 of 12 rows failed (first: line 1: invalid JSON" in err
    kinds = [(line["id"], line["error"]["kind"], line["error"]["line"]) if "error" in line else line["id"]
             for line in lines]
    assert kinds == [
        (None, "row", 1), (None, "row", 2), ("neither", "row", 3), ("tools", "row", 4), ("thinking", "row", 5),
        ("reasoning", "row", 6), ("choice", "request", 7), ("syntax", "syntax", 8), ("stdin", "source", 9),
        ("parser", "peg", 10), ("parser type", "row", 11), "good"]
    assert lines[-1]["result"]["content"] == "Hi"
    assert "sometimes" in lines[6]["error"]["message"]

    rows = _write_rows(tmp_path / "ok.jsonl", [good])
    assert _batch(rows, capsys=capsys)[0] == 0


def _mixed_rows(templates: Path) -> list[dict | str]:
    arena = build_arena(lambda p: p.sequence([p.tag("content", p.rest()), p.end()])).dumps()
    rows: list[dict | str] = []
    for n in range(90):
        kind = n % 5
        if kind == 0:
            rows.append({"id": f"{n}", "template": "chatml.jinja", "tools": WEATHER, "enable_thinking": False,
                         "raw_output": CALL.replace("Paris", f"Paris{n}")})
        elif kind == 1:
            rows.append({"id": f"{n}", "template": "plain.jinja", "raw_output": f"plain {n}"})
        elif kind == 2:
            rows.append({"id": f"{n}", "parser": arena, "raw_output": f"parser {n}"})
        elif kind == 3:
            rows.append({"id": f"{n}", "template": "example:chatml-think-tools", "raw_output": f"<think>{n}</think>x"})
        else:
            rows.append({"id": f"{n}", "template": "missing.jinja"} if n % 10 == 4 else "{broken")
    return rows


def test_jobs_keep_the_input_order(tmp_path, templates, capsys):
    rows = _write_rows(tmp_path / "in.jsonl", _mixed_rows(templates))
    rc1, one, _ = _batch(rows, "--templates", str(templates), capsys=capsys)
    rc2, two, _ = _batch(rows, "--templates", str(templates), "--jobs", "2", capsys=capsys)
    rc3, three, _ = _batch(rows, "--templates", str(templates), "--jobs", "3", capsys=capsys)
    assert rc1 == rc2 == rc3 == 1
    assert one == two == three
    assert [line["error"]["line"] if "error" in line and line["id"] is None else line["id"] for line in one] == [
        n + 1 if n % 10 == 9 else f"{n}" for n in range(90)]
    assert _calls(one[5]) == [("get_weather", {"city": "Paris5"})]
    assert one[1]["result"]["content"] == "plain 1" and one[2]["result"]["content"] == "parser 2"
    assert one[3]["result"]["reasoning_content"] == "3"


def test_plan_groups_each_templates_rows(tmp_path, templates):
    search = batch_module.template_search([str(templates)], str(tmp_path / "in.jsonl"))
    rows = batch_module.read_rows([r if isinstance(r, str) else json.dumps(r) for r in _mixed_rows(templates)],
                                  search)
    tasks = batch_module.plan_tasks(rows)
    specs = [{getattr(r, "template", "parser") for r in task} for task in tasks]
    assert specs == [{str(templates / "chatml.jinja")}, {str(templates / "plain.jinja")},
                     {"example:chatml-think-tools"}, {"parser"}]
    assert sum(map(len, tasks)) + sum(isinstance(r, batch_module.RowError) for r in rows) == 90
    assert all(len({getattr(r, "template", None) for r in task}) == 1 for task in tasks)


@pytest.fixture
def small_budgets(monkeypatch):
    """Runaway templates stop after 0.2 s per render (forked workers inherit this)."""
    monkeypatch.setattr(caps_module, "PROBE_LIMITS", RenderLimits(wall_seconds=0.2))
    monkeypatch.setattr(analysis_session, "PROBE_RENDER_SECONDS", 0.2)
    session_module.forget_sessions()
    yield
    session_module.forget_sessions()


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_runaway_template_costs_only_its_own_rows(tmp_path, templates, capsys, monkeypatch, small_budgets, jobs):
    opened: list[str] = []
    real_session = session_module.TemplateSession

    def counting_session(text: str, *args: object, **kwargs: object) -> session_module.TemplateSession:
        opened.append(text)
        return real_session(text, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(session_module, "TemplateSession", counting_session)
    runaway = tmp_path / "runaway.jinja"
    runaway.write_text((HOSTILE_DIR / "nested_ranges.jinja").read_text(encoding="utf-8")
                       + f"{{# batch {jobs} #}}", encoding="utf-8")
    good = {"template": "chatml.jinja", "tools": WEATHER, "enable_thinking": False, "raw_output": CALL}
    rows: list[dict | str] = []
    for n in range(12):
        rows.append(good | {"id": f"good {n}"})
        if n % 3 == 0:
            rows.append({"id": f"runaway {n}", "template": str(runaway), "raw_output": "Hi"})
    rc, lines, err = _batch(_write_rows(tmp_path / "in.jsonl", rows), "--templates", str(templates),
                            "--jobs", jobs, capsys=capsys)
    assert rc == 1 and "4 of 16 rows failed" in err
    assert [line["id"] for line in lines] == [r["id"] for r in rows if isinstance(r, dict)]
    for line in lines:
        if line["id"].startswith("runaway"):
            assert line["error"]["kind"] == "limit" and "budget" in line["error"]["message"]
        else:
            assert _calls(line) == [("get_weather", {"city": "Paris"})]
    if jobs == "1":  # in this process: each template's session made once, the runaway's included
        assert sorted(opened) == sorted([CHATML, runaway.read_text(encoding="utf-8")])


def _die_on(row_id: str):
    real = batch_module.replay_template_row

    def replay(session, row, options, failed=None):  # type: ignore[no-untyped-def]
        if row.id == row_id:
            os._exit(3)  # a worker killed mid-task (a crash no exception handler sees)
        return real(session, row, options, failed)

    return replay


def test_a_dead_worker_costs_only_its_tasks_rows(tmp_path, templates, capsys, monkeypatch):
    monkeypatch.setattr(batch_module, "replay_template_row", _die_on("plain 1"))
    rows = _write_rows(tmp_path / "in.jsonl", [
        {"id": "chatml 0", "template": "chatml.jinja", "tools": WEATHER, "enable_thinking": False, "raw_output": CALL},
        {"id": "plain 0", "template": "plain.jinja", "raw_output": "a"},
        {"id": "plain 1", "template": "plain.jinja", "raw_output": "b"},
        {"id": "example", "template": "example:chatml-think-tools", "raw_output": "<think>t</think>x"},
        {"id": "chatml 1", "template": "chatml.jinja", "tools": WEATHER, "enable_thinking": False, "raw_output": CALL},
    ])
    rc, lines, err = _batch(rows, "--templates", str(templates), "--jobs", "2", capsys=capsys)
    assert rc == 1 and "2 of 5 rows failed" in err
    assert [line["id"] for line in lines] == ["chatml 0", "plain 0", "plain 1", "example", "chatml 1"]
    assert [line.get("error", {}).get("kind") for line in lines] == [None, "worker", "worker", None, None]
    assert _calls(lines[0]) == _calls(lines[4]) == [("get_weather", {"city": "Paris"})]
    assert lines[3]["result"]["reasoning_content"] == "t"


def test_jobs_must_be_positive(tmp_path, capsys):
    rows = _write_rows(tmp_path / "in.jsonl", [])
    with pytest.raises(SystemExit):
        main(["parse-batch", str(rows), "--jobs", "0"])
    assert "--jobs" in capsys.readouterr().err
    assert main(["parse-batch", str(rows)]) == 0 and capsys.readouterr().out == ""
