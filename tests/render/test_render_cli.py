"""The ``caps`` and ``render`` CLI commands (templates written here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.cli import main

TEMPLATE = (
    "{% for m in messages %}<{{ m.role }}>{{ m.content }}\n{% endfor %}"
    "{% if tools %}{% for t in tools %}[{{ t.function.name }}]{% endfor %}{% endif %}"
    "{% if add_generation_prompt %}<assistant>{% if not enable_thinking %}<no_think>{% endif %}{% endif %}"
)


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, Path]:
    tmpl = tmp_path / "t.jinja"
    tmpl.write_text(TEMPLATE, encoding="utf-8")
    msgs = tmp_path / "m.json"
    msgs.write_text(json.dumps([{"role": "user", "content": "Hi"}]), encoding="utf-8")
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([{"type": "function", "function": {"name": "f"}}]), encoding="utf-8")
    request = tmp_path / "req.json"
    request.write_text(json.dumps({"inputs": {"messages": [{"role": "user", "content": "Yo"}]}}), encoding="utf-8")
    bad = tmp_path / "bad.jinja"
    bad.write_text("ok\n{{ raise_exception('bad request') }}", encoding="utf-8")
    return {"tmpl": tmpl, "msgs": msgs, "tools": tools, "req": request, "bad": bad}


def test_caps_prints_the_oracle_keys(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["caps", str(files["tmpl"])]) == 0
    flags = json.loads(capsys.readouterr().out)
    assert list(flags) == [
        "supports_tools", "supports_tool_calls", "supports_system_role", "supports_parallel_tool_calls",
        "supports_preserve_reasoning", "supports_reasoning_effort", "supports_string_content",
        "supports_typed_content", "supports_object_arguments",
    ]
    assert flags["supports_tools"] is True and flags["supports_tool_calls"] is False


def test_caps_trace(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["caps", str(files["tmpl"]), "--trace"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["probes"][0]["name"] == "typed_content"


def test_render_prints_exact_text(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    args = ["render", str(files["tmpl"]), "--messages", str(files["msgs"])]
    assert main(args) == 0
    assert capsys.readouterr().out == "<user>Hi\n"
    assert main(args + ["--tools", str(files["tools"]), "--add-generation-prompt", "--thinking", "false"]) == 0
    assert capsys.readouterr().out == "<user>Hi\n[f]<assistant><no_think>"


def test_render_accepts_an_oracle_style_request(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["render", str(files["tmpl"]), "--messages", str(files["req"])]) == 0
    assert capsys.readouterr().out == "<user>Yo\n"


def test_errors_go_to_stderr_with_exit_1(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["render", str(files["bad"]), "--messages", str(files["msgs"])]) == 1
    err = capsys.readouterr().err
    assert "bad request" in err and "line 2" in err
    assert main(["render", str(files["tmpl"]), "--messages", str(files["tmpl"])]) == 1
    assert "not JSON" in capsys.readouterr().err


def test_each_dialect_has_its_own_thinking_and_date_rules(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tmpl = tmp_path / "d.jinja"
    tmpl.write_text("{{ enable_thinking is defined }} {{ enable_thinking }} {{ strftime_now('%Y-%m-%d') }} "
                    "{{ date_string is defined }}", encoding="utf-8")
    msgs = tmp_path / "m.json"
    msgs.write_text("[]", encoding="utf-8")
    base = ["render", str(tmpl), "--messages", str(msgs)]
    # llama.cpp always passes enable_thinking (true by default) and its date variables, on the oracle's date
    assert main(base) == 0
    assert capsys.readouterr().out == "True True 2026-11-29 True"
    assert main(base + ["--thinking", "unset", "--date", "2031-03-07"]) == 0
    assert capsys.readouterr().out == "True True 2031-03-07 True"
    # transformers passes enable_thinking only when asked, and no date variables
    assert main(base + ["--dialect", "transformers", "--date", "2031-03-07"]) == 0
    assert capsys.readouterr().out == "False  2031-03-07 False"
    assert main(base + ["--dialect", "transformers", "--thinking", "false", "--date", "2031-03-07T10:00"]) == 0
    assert capsys.readouterr().out == "True False 2031-03-07 False"


def test_documents_are_transformers_argument(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tmpl = tmp_path / "rag.jinja"
    tmpl.write_text("{% for d in documents %}[{{ d.title }}: {{ d.text }}]{% endfor %}", encoding="utf-8")
    msgs = tmp_path / "m.json"
    msgs.write_text(json.dumps({"messages": [], "documents": [{"title": "T", "text": "x"}]}), encoding="utf-8")
    assert main(["render", str(tmpl), "--messages", str(msgs), "--dialect", "transformers"]) == 0
    assert capsys.readouterr().out == "[T: x]"
    assert main(["render", str(tmpl), "--messages", str(msgs)]) == 1
    assert "llama.cpp never passes them" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        main(["render", str(tmpl), "--messages", str(msgs), "--date", "soon"])
    assert exited.value.code == 2 and "expected an ISO date" in capsys.readouterr().err
