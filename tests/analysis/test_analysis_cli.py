"""``python -m explorer analyze``: a readable report by default; with --json one JSON object
with the oracle's schema, and with --trace the probe trace."""

from __future__ import annotations

import json

import pytest

from cases import TAGGED
from explorer.cli import main
from explorer.cli.analyze import analysis_report
from explorer.session import open_session
from oracle_data import load_oracle_analysis, load_oracle_template, requires_oracle


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_analyze_prints_the_oracle_schema_and_the_trace(tmp_path, capsys):
    path = tmp_path / "tagged.jinja"
    path.write_text(TAGGED, encoding="utf-8")
    code, out, _ = run(capsys, "analyze", str(path), "--trace")
    assert code == 0
    report = json.loads(out)
    assert report["caps"]["supports_tool_calls"] is True
    assert report["autoparser"]["tools"]["format"]["mode"] == "TAG_WITH_TAGGED"
    assert report["autoparser"]["jinja_caps"] == report["caps"]
    assert report["routed"]["handler"]
    assert set(report["generation_prompt"]) == {"thinking_false", "thinking_true"}
    assert report["generation_prompt"]["thinking_true"] == "<|im_start|>assistant\n"
    assert report["provenance"]["tools.function.name_prefix"]["probe"] == "T3"
    names = [p["name"] for p in report["probes"]]
    assert names[:3] == ["R1", "R2", "R3"] and "T7" in names
    t3 = report["probes"][names.index("T3")]
    assert "FFF_FIRST_FUN_F" in t3["diff"]["left"] and "SSS_SECOND_FUN_S" in t3["diff"]["right"]


def test_json_omits_probes_unless_traced(tmp_path, capsys):
    path = tmp_path / "t.jinja"
    path.write_text(TAGGED, encoding="utf-8")
    for argv in (("--json",), ("--no-trace", "--compact"), ("--compact",)):
        code, out, _ = run(capsys, "analyze", str(path), *argv)
        assert code == 0
        report = json.loads(out)
        assert "probes" not in report and "autoparser" in report
    assert len(out.strip().splitlines()) == 1


def test_the_default_report_is_readable_and_names_the_template_lines(tmp_path, capsys):
    """Without --json: the route, each mode with its glossary line, each marker with the
    probe that set it and the template line that writes it (the line's own text), a few KB,
    not the 200 KB trace."""
    from explorer.analysis.glossary import mode_line

    path = tmp_path / "tagged.jinja"
    path.write_text(TAGGED, encoding="utf-8")
    code, out, _ = run(capsys, "analyze", str(path))
    assert code == 0 and not out.lstrip().startswith("{")
    assert len(out) < 8000
    # TAGGED is Qwen3-Coder shaped: the route names the handler and the text that decided it
    assert "Route: the specialized handler qwen3-coder" in out
    assert 'why this route: the template contains "<tool_call>" at template line 2' in out
    assert f"TAG_WITH_TAGGED: {mode_line('tools.format.mode', 'TAG_WITH_TAGGED')}" in out
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip().startswith("tools.arguments.name_prefix"))
    assert '"<parameter="' in lines[at] and "probe A1" in lines[at]
    number = next(n for n, text in enumerate(TAGGED.splitlines(), 1) if "<parameter=" in text)
    assert lines[at + 1].strip() == f"line {number}: {TAGGED.splitlines()[number - 1].strip()}"
    assert "--json" in lines[-1]


def test_errors_are_clean_and_located(tmp_path, capsys):
    bad = tmp_path / "bad.jinja"
    bad.write_text("line one\n{% if %}", encoding="utf-8")
    code, out, err = run(capsys, "analyze", str(bad))
    assert code == 1 and out == ""
    assert err.startswith("error:") and "line 2" in err
    code, _, err = run(capsys, "analyze", str(tmp_path / "missing.jinja"))
    assert code == 1 and err.startswith("error:")


ORACLE_SAMPLE = (
    "Qwen3-Coder", "CohereForAI-c4ai-command-r-plus-tool_use", "mistralai-Mistral-Nemo-Instruct-2407",
    "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B", "NVIDIA-Nemotron-Nano-v2", "openai-gpt-oss-120b",
    "HuggingFaceTB-SmolLM3-3B", "meetkai-functionary-medium-v3.1", "poolside-Laguna-XS.2", "Kimi-K3",
)


@requires_oracle
@pytest.mark.parametrize("name", ORACLE_SAMPLE)
def test_report_sections_equal_the_oracle(name):
    oracle = load_oracle_analysis(name)
    report = analysis_report(open_session(load_oracle_template(name)), trace=False)
    assert report["caps"] == oracle["caps"]
    assert report["routed"]["handler"] == oracle["routed"]["handler"]
    assert report["autoparser"] == oracle["autoparser"]
    assert report["generation_prompt"] == {
        key: oracle["apply"][key]["generation_prompt"] for key in ("thinking_false", "thinking_true")
    }


def test_template_that_always_raises_still_gives_a_report(tmp_path, capsys):
    path = tmp_path / "raises.jinja"
    path.write_text("{{ raise_exception('I refuse') }}", encoding="utf-8")
    code, out, _ = run(capsys, "analyze", str(path), "--compact")
    assert code == 0
    report = json.loads(out)
    assert report["autoparser"]["tools"]["format"]["mode"] == "NONE"
    assert report["failures"] and all("I refuse" in f["message"] for f in report["failures"])
    # the apply path throws too; reported per thinking setting, as the oracle's apply.exception
    assert report["generation_prompt"] == {"thinking_false": None, "thinking_true": None}
    assert "I refuse" in report["generation_prompt_exception"]["thinking_true"]
