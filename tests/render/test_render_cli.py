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
