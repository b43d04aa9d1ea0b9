"""The template memo: capabilities and analyses made once per template, a runaway
template's budget-cut results held only briefly, and the whole parse path probing a
runaway template once instead of once per step that needs its capabilities."""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path
from typing import Any

import pytest

import explorer.analysis as analysis_module
import explorer.analysis.session as analysis_session
import explorer.caps as caps_module
import explorer.cli as cli
import explorer.memo as memo_module
import explorer.session as session_module
from explorer.memo import Memo
from explorer.render import RenderLimits, compile_template
from oracle_data import HOSTILE_DIR

HOSTILE = HOSTILE_DIR
CHATML = (
    "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def test_memo_makes_a_value_once_per_key() -> None:
    made: list[str] = []
    memo: Memo[str] = Memo()

    def make(v: str) -> str:
        made.append(v)
        return v.upper()

    assert memo.get("a", lambda: make("a")) == "A"
    assert memo.get("a", lambda: make("zzz")) == "A"
    assert memo.get("b", lambda: make("b")) == "B"
    assert made == ["a", "b"]


def test_memo_forgets_the_least_recently_used_beyond_its_size(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memo_module, "MEMO_SCALE", 1)  # the suite scales its memos (tests/conftest.py)
    memo: Memo[int] = Memo(size=2)
    assert memo.size == 2
    memo.get("a", lambda: 1)
    memo.get("b", lambda: 2)
    memo.get("a", lambda: -1)  # touch a: b is now the oldest
    memo.get("c", lambda: 3)
    assert len(memo) == 2
    assert memo.get("a", lambda: -1) == 1
    assert memo.get("b", lambda: 20) == 20  # made again


def test_a_provisional_value_is_made_again_once_its_time_is_up(monkeypatch: pytest.MonkeyPatch) -> None:
    memo: Memo[str] = Memo()
    memo.get("k", lambda: "first", provisional=lambda v: True)
    assert memo.get("k", lambda: "second") == "first"  # still within its time
    monkeypatch.setattr(memo_module, "PROVISIONAL_SECONDS", -1.0)
    memo.get("j", lambda: "first", provisional=lambda v: True)
    assert memo.get("j", lambda: "second") == "second"
    assert memo.get("j", lambda: "third") == "second"  # the remade value is kept for good


def _count_detections(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    real = caps_module.detect_caps_trace

    def counting(tmpl: Any, **kwargs: Any) -> Any:
        calls.append(tmpl.sha256)
        return real(tmpl, **kwargs)

    # the library's own memo and the template session each hold a reference
    monkeypatch.setattr(caps_module, "detect_caps_trace", counting)
    monkeypatch.setattr(session_module, "detect_caps_trace", counting)
    return calls


def test_template_caps_are_detected_once_and_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _count_detections(monkeypatch)
    text = CHATML + "{# memo test: kept #}"
    first = analysis_module.template_caps(compile_template(text))
    second = analysis_module.template_caps(compile_template(text))
    assert first == second and first.supports_system_role
    assert len(calls) == 1


def test_caps_cut_short_by_the_budget_are_provisional(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(caps_module, "PROBE_LIMITS", RenderLimits(wall_seconds=0.2))
    calls = _count_detections(monkeypatch)
    text = (HOSTILE / "nested_ranges.jinja").read_text(encoding="utf-8") + "{# memo test: runaway #}"
    tmpl = compile_template(text)
    analysis_module.template_caps(tmpl)
    analysis_module.template_caps(tmpl)
    assert len(calls) == 1  # remembered for now...
    monkeypatch.setattr(memo_module, "PROVISIONAL_SECONDS", -1.0)
    text2 = text + "{# again #}"
    analysis_module.template_caps(compile_template(text2))
    analysis_module.template_caps(compile_template(text2))
    assert len(calls) == 3  # ...but not for good: a quieter moment may finish it


def test_parse_from_a_runaway_template_probes_its_capabilities_once(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # Before the memo, `parse TEMPLATE` detected the capabilities three times (request
    # defaults, enable_thinking support, routing) and analysed the template twice, each
    # to its render budget.
    monkeypatch.setattr(caps_module, "PROBE_LIMITS", RenderLimits(wall_seconds=0.2))
    monkeypatch.setattr(analysis_session, "PROBE_RENDER_SECONDS", 0.2)
    calls = _count_detections(monkeypatch)
    analyses: list[str] = []
    real_analyze = analysis_module.analyze_template

    def counting_analyze(tmpl: Any, *args: Any, **kwargs: Any) -> Any:
        analyses.append(tmpl.sha256)
        return real_analyze(tmpl, *args, **kwargs)

    monkeypatch.setattr(analysis_module, "analyze_template", counting_analyze)
    monkeypatch.setattr(session_module, "analyze_template", counting_analyze)
    template = tmp_path / "runaway.jinja"
    template.write_text((HOSTILE / "nested_ranges.jinja").read_text(encoding="utf-8") + "{# memo: parse #}")
    output = tmp_path / "out.txt"
    output.write_text("Hi there")
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        rc = cli.main(["parse", str(template), "--output-file", str(output)])
    assert rc == 1 and "budget" in err.getvalue()
    assert len(calls) == 1
    assert len(analyses) == 1


def test_the_memo_scale_multiplies_every_size_and_refuses_what_is_not_a_whole_number() -> None:
    import subprocess
    import sys

    code = "import explorer.memo as m; print(m.Memo(size=3).size)"
    for raw, want in (("5", "15"), ("1", "3")):
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={**os.environ, "TEMPLATE_EXPLORER_MEMO_SCALE": raw}, check=True)
        assert run.stdout.strip() == want
    for bad in ("0", "two"):
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={**os.environ, "TEMPLATE_EXPLORER_MEMO_SCALE": bad})
        assert run.returncode != 0 and f"TEMPLATE_EXPLORER_MEMO_SCALE must be a whole number >= 1, found {bad!r}" in run.stderr
