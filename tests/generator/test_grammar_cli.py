"""``python -m explorer grammar``: the generated parser and grammar for a template."""

from __future__ import annotations

import argparse
import json

import pytest

from explorer.cli import main
from oracle_data import ORACLE, requires_oracle

# A Hermes-style ChatML template of our own: reasoning in <think>, JSON calls in <tool_call>.
HERMES_TEMPLATE = """{%- if tools %}{{- '<|im_start|>system\\n# Tools\\n<tools>' }}
{%- for tool in tools %}{{- tool | tojson }}{%- endfor %}{{- '</tools><|im_end|>\\n' }}{%- endif %}
{%- for message in messages %}
{%- if message.role == 'assistant' %}{{- '<|im_start|>assistant\\n' }}
{%- if message.reasoning_content %}{{- '<think>\\n' + message.reasoning_content + '\\n</think>\\n\\n' }}{%- endif %}
{%- if message.content %}{{- message.content }}{%- endif %}
{%- if message.tool_calls %}{%- for tc in message.tool_calls %}
{{- '<tool_call>\\n{"name": "' + tc.function.name + '", "arguments": ' + (tc.function.arguments | tojson) + '}\\n</tool_call>' }}
{%- endfor %}{%- endif %}{{- '<|im_end|>\\n' }}
{%- elif message.role == 'tool' %}{{- '<|im_start|>user\\n<tool_response>\\n' + message.content + '\\n</tool_response><|im_end|>\\n' }}
{%- else %}{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}{%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"""


@pytest.fixture()
def hermes_file(tmp_path):
    path = tmp_path / "hermes.jinja"
    path.write_text(HERMES_TEMPLATE, encoding="utf-8")
    return path


def test_json_output_has_the_oracle_apply_keys(hermes_file, capsys) -> None:
    assert main(["grammar", str(hermes_file), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"generation_prompt", "grammar", "grammar_lazy", "grammar_triggers", "preserved_tokens",
                        "parser", "additional_stops", "supports_thinking", "thinking_start_tag", "thinking_end_tags"}
    assert out["supports_thinking"] and out["thinking_start_tag"] == "<think>"
    assert out["generation_prompt"] == "<|im_start|>assistant\n"
    assert out["grammar_lazy"] and out["grammar_triggers"][0]["value"].startswith("<tool_call>")
    assert "tool-get-weather ::=" in out["grammar"]
    assert json.loads(out["parser"])["rules"]["tool-call"] >= 0


def test_text_output_is_the_grammar_and_tools_file_is_read(hermes_file, tmp_path, capsys) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps({"tools": [{"type": "function", "function": {
        "name": "search", "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}}]}))
    assert main(["grammar", str(hermes_file), "--tools", str(tools), "--tool-choice", "required"]) == 0
    grammar = capsys.readouterr().out
    assert "tool-search ::=" in grammar and "get-weather" not in grammar
    assert "tool-search-schema-q-kv ::=" in grammar
    # tool_choice required: an eager grammar rooted at the whole reply, not at a trigger rule
    assert any(line.startswith("root ::= ") and "tool-call" in line for line in grammar.splitlines())


def test_specialized_route_is_noted(tmp_path, capsys) -> None:
    path = tmp_path / "functionary.jinja"
    path.write_text("{%- for m in messages %}{{ '>>>all\\n' + m.content }}{% endfor %}"
                    "{# >>>${recipient} #}{% if add_generation_prompt %}>>>{% endif %}", encoding="utf-8")
    assert main(["grammar", str(path), "--json"]) == 0
    captured = capsys.readouterr()
    assert "functionary-v3.2" in captured.err
    out = json.loads(captured.out)
    assert out["grammar_triggers"] == [{"type": "PATTERN", "value": ">>>(?!all)", "token": -1}]


def test_no_tools_prints_no_grammar_note(hermes_file, capsys) -> None:
    assert main(["grammar", str(hermes_file), "--no-tools"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and "no grammar" in captured.err


def test_errors_exit_1_with_a_message(hermes_file, tmp_path, capsys) -> None:
    assert main(["grammar", str(tmp_path / "missing.jinja")]) == 1
    bad = tmp_path / "tools.json"
    bad.write_text('{"tools": 3}')
    assert main(["grammar", str(hermes_file), "--tools", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "error:" in err and "array of tool objects" in err


@requires_oracle
def test_end_to_end_matches_the_oracle_for_every_template() -> None:
    """Routing + analysis (explorer.analysis) + generation prompt (explorer.apply) +
    generator (autoparser or specialized handler), for all 70 templates x 2."""
    from explorer.cli.grammar import generate_for_template
    from explorer.session import open_session

    total, mismatches = 0, []
    for path in sorted((ORACLE / "analysis").glob("*.json")):
        if path.name == "INDEX.json":
            continue
        data = json.loads(path.read_text("utf-8"))
        text = (ORACLE / "templates" / data["template"]).read_text("utf-8")
        for key, applied in data["apply"].items():
            total += 1
            args = argparse.Namespace(no_tools=False, tools=None, json_schema=None, tool_choice="auto",
                                      parallel_tool_calls=True, thinking=key == "thinking_true",
                                      reasoning_format="deepseek")
            out, handler = generate_for_template(open_session(text), args)
            assert handler == data["routed"]["handler"]
            mismatches += [f"{path.stem}/{key}/{k}" for k, v in out.items() if v != applied[k]]
    print(f"end to end: {total - len({m.rsplit('/', 1)[0] for m in mismatches})}/{total}; first: {mismatches[:5]}")
    assert total == 140
    assert not mismatches


def test_check_reports_verdicts_and_exit_code(hermes_file, tmp_path, capsys) -> None:
    good = tmp_path / "good.txt"
    good.write_text('Sure.<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>')
    bad = tmp_path / "bad.txt"
    bad.write_text('<tool_call>\n{"name": "get_wether", "arguments": {"city": "Paris"}}\n</tool_call>')
    assert main(["grammar", str(hermes_file), "--check", str(good)]) == 0
    assert capsys.readouterr().out.strip() == f"{good}: accepted"
    assert main(["grammar", str(hermes_file), "--json", "--check", str(good), "--check", str(bad)]) == 2
    checks = json.loads(capsys.readouterr().out)["check"]
    assert [c["accepted"] for c in checks] == [True, False]
    assert checks[1]["constrained_from"] == 0 and "refused byte" in checks[1]["message"]
