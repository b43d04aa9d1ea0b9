"""Analysis overrides (``--set FIELD=VALUE``): what a llama.cpp workaround lambda does.

The reference test takes every corpus template that one of llama.cpp's own workarounds
patches, analyses it with the workarounds switched off, sets the fields the workaround
changes as overrides, and checks that the parser built from that equals the parser
llama.cpp itself built (the oracle's apply results).
"""

from __future__ import annotations

import json

import pytest

import explorer.analysis as analysis_module
from explorer.analysis.model import FIELD_NAMES, ReasoningMode
from explorer.analysis.overrides import (
    FieldSetting,
    apply_overrides,
    cpp_string,
    parse_setting,
    settings_from,
    workaround_lambda,
)
from explorer.apply import standard_request
from explorer.cli import main
from explorer.errors import OverrideError
from explorer.session import TemplateSession, forget_sessions, open_session
from oracle_data import load_oracle_analysis, load_oracle_template, oracle_template_names, requires_oracle

TAGGED = (  # tagged calls, not Qwen3-Coder's <parameter= (which a handler takes)
    "{%- for m in messages %}<|im_start|>{{ m.role }}\n{%- if m.tool_calls %}{%- for tc in m.tool_calls %}"
    "<tool_call>\n<function={{ tc.function.name }}>\n{%- for k, v in tc.function.arguments.items() %}"
    "<param={{ k }}>\n{{ v }}\n</param>\n{%- endfor %}</function>\n</tool_call>{%- endfor %}"
    "{%- else %}{{ m.content }}{%- endif %}<|im_end|>\n{%- endfor %}"
    "{%- if add_generation_prompt %}<|im_start|>assistant\n{%- endif %}"
)


@pytest.mark.parametrize("spec, field, value", [
    ('tools.format.per_call_start="<tool_call>\\n"', "tools.format.per_call_start", "<tool_call>\n"),
    ("tools.format.per_call_start=<call>", "tools.format.per_call_start", "<call>"),  # raw text
    ("tools.format.fun_name_is_key=true", "tools.format.fun_name_is_key", True),
    ('preserved_tokens=["a", "b"]', "preserved_tokens", ("a", "b")),
    ("reasoning.mode=TAG_BASED", "reasoning.mode", ReasoningMode.TAG_BASED),
    ('reasoning.mode="NONE"', "reasoning.mode", ReasoningMode.NONE),
    ("content.start=", "content.start", ""),
])
def test_values_are_json_when_they_parse_and_raw_text_otherwise(spec: str, field: str, value: object) -> None:
    assert parse_setting(spec) == FieldSetting(field, value)  # type: ignore[arg-type]


@pytest.mark.parametrize("spec, says", [
    ("tools.format.opener=<x>", "unknown analysis field 'tools.format.opener'"),
    ("no equals sign", "expected FIELD=VALUE"),
    ("tools.format.fun_name_is_key=yes", "expected true or false, found 'yes'"),
    ("reasoning.mode=SOMETIMES", "expected one of NONE, TAG_BASED, TOOLS_ONLY"),
    ("preserved_tokens=<a>", "expected a JSON list of strings"),
    ("content.start=3", "expected a string"),
])
def test_bad_settings_say_what_was_expected(spec: str, says: str) -> None:
    with pytest.raises(OverrideError) as info:
        parse_setting(spec)
    assert says in str(info.value)
    if "unknown" in says:
        assert all(name in str(info.value) for name in FIELD_NAMES)  # the valid names are listed


def test_setting_a_field_to_its_own_value_changes_nothing() -> None:
    session = open_session(TAGGED)
    own = session.analysis.tools.format.section_start
    same = session.with_overrides((FieldSetting("tools.format.section_start", own),))
    assert same.analysis == session.analysis
    request = session.request(tools=[standard_request(True).tools[0]])
    assert same.params(request).parser == session.params(request).parser


def test_an_override_reaches_the_parser_grammar_and_triggers() -> None:
    session = open_session(TAGGED)
    request = session.request(tools=[standard_request(True).tools[0]])
    changed = session.with_overrides((parse_setting('tools.format.section_start="<call>\\n"'),))
    params = changed.params(request)
    assert '"<call>\\n"' in params.parser and '"<tool_call>\\n"' not in params.parser
    assert [t.value for t in params.grammar_triggers] == ["<call>\n"]
    assert changed.analysis.provenance["tools.format.section_start"].kind == "override"
    out = '<call>\n<function=get_weather>\n<param=city>\nParis\n</param>\n</function>\n</tool_call>'
    assert [c.name for c in changed.parse(out, request).message.tool_calls] == ["get_weather"]
    assert session.parse(out, request).message.tool_calls == ()  # the original is untouched


def test_the_workaround_lambda_is_llama_cpps_cxx() -> None:
    settings = settings_from({"reasoning.mode": "TAG_BASED", "reasoning.end": "</think>\n", "preserved_tokens": ["<a>"]})
    text = workaround_lambda(settings, 'Say "hi"', "My model")
    assert 'if (tmpl.src.find("Say \\"hi\\"") != std::string::npos) {' in text
    assert "analysis.reasoning.mode = reasoning_mode::TAG_BASED;" in text
    assert 'analysis.reasoning.end = "</think>\\n";' in text
    assert 'analysis.preserved_tokens = {"<a>"};' in text
    assert cpp_string("a\x01b") == '"a\\x01""b"'


def test_cli_set_on_apply_and_an_unknown_field_is_an_error(tmp_path, capsys) -> None:
    path, tools = tmp_path / "t.jinja", tmp_path / "tools.json"
    path.write_text(TAGGED, encoding="utf-8")
    tools.write_text(json.dumps(list(standard_request(True).tools)), encoding="utf-8")
    assert main(["apply", str(path), "--tools", str(tools), "--set", 'tools.format.section_start="<call>\\n"',
                 "--field", "parser"]) == 0
    assert '"<call>\\n"' in capsys.readouterr().out
    assert main(["why", str(path), "--output-file", str(path), "--set", "tools.nope=1"]) == 1
    err = capsys.readouterr().err
    assert "unknown analysis field 'tools.nope'" in err and "tools.format.per_call_start" in err


def _workaround_cases() -> list[str]:
    return [n for n in oracle_template_names() if load_oracle_analysis(n)["routed"]["handler"] == "autoparser"]


@requires_oracle
def test_overrides_build_what_llama_cpps_own_workarounds_build(monkeypatch: pytest.MonkeyPatch) -> None:
    checked = []
    for name in _workaround_cases():
        text = load_oracle_template(name)
        forget_sessions()
        with monkeypatch.context() as m:
            m.setattr(analysis_module, "apply_workarounds", lambda source, d: None)
            bare = TemplateSession(text)
            bare_analysis = bare.analysis
        with_workarounds = open_session(text).analysis
        if not with_workarounds.workarounds_applied:
            continue
        a, b = bare_analysis.to_oracle_json(), with_workarounds.to_oracle_json()
        changed = {}
        for field in FIELD_NAMES:
            va, vb = a, b
            for part in field.split("."):
                va, vb = va[part], vb[part]
            if va != vb:
                changed[field] = vb
        overridden = apply_overrides(bare_analysis, settings_from(changed))
        assert overridden.to_oracle_json() == b, name
        session = open_session(text).with_overrides(settings_from(changed))
        oracle = load_oracle_analysis(name)["apply"]
        for flag in (False, True):
            params = session.params(session.request(tools=list(standard_request(flag).tools), enable_thinking=flag,
                                                    parallel_tool_calls=True))
            assert params.parser == oracle[f"thinking_{str(flag).lower()}"]["parser"], (name, flag)
        checked.append(name)
    forget_sessions()
    assert len(checked) >= 5, checked
    print(f"workarounds rebuilt as overrides, parsers equal to llama.cpp's: {len(checked)} templates")


