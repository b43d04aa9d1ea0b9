"""What-if (``explorer.whatif``): a template's inputs changed, everything downstream built again.

The expected values come from what llama.cpp builds, not from our own output: a tool-call
opener is the lazy grammar's trigger word and the first literal of its tool-call rule
(common/chat-auto-parser-generator.cpp), an edited text gives the parser llama.cpp built
for that text (the oracle), and GNU patch must turn the original into the edited text.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from explorer.analysis.model import FIELD_NAMES
from explorer.analysis.overrides import cpp_string
from explorer.apply import standard_request
from explorer.doctor.corpus import LLAMA_CPP_ENV
from explorer.errors import OverrideError, TemplateError
from explorer.session import open_session
from explorer.sources import resolve_spec
from explorer.whatif import WORKAROUND_SENTENCE, WhatIf, field_value, value_text, what_changed
from oracle_data import load_oracle_analysis, load_oracle_template, oracle_template_names, requires_oracle

CHATML = "example:chatml-think-tools"  # JSON calls in <tool_call>\n...</tool_call>
CALL = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
OPENER = "tools.format.per_call_start"


def chatml():
    return open_session(resolve_spec(CHATML))


def tool_request(session):
    return session.request(tools=list(standard_request(True).tools))


def test_an_empty_what_if_is_the_session_itself() -> None:
    session = chatml()
    assert WhatIf().empty and WhatIf().apply(session) is session
    assert WhatIf().with_text(session.text, session.text).empty  # the original text undoes an edit
    assert WhatIf().patch(session.text) is None and WhatIf().workaround_cpp(session.text) is None


def test_a_field_set_to_its_own_value_changes_nothing() -> None:
    session = chatml()
    own = field_value(session.analysis, OPENER)
    whatif = WhatIf().with_setting(WhatIf.setting(OPENER, value_text(own)))
    modified = whatif.apply(session)
    changed = what_changed(session, modified, tool_request(session), f"<tool_call>\n{CALL}\n</tool_call>")
    assert changed.changed == () and changed.nothing
    assert changed.roundtrip_before == changed.roundtrip_after
    assert changed.triage_before.verdict == changed.triage_after.verdict


def test_an_override_changes_the_parser_grammar_triggers_and_the_triage() -> None:
    session = chatml()
    whatif = WhatIf().with_setting(WhatIf.setting(OPENER, '"<call>\\n"'))
    assert whatif.overrides[0].value == "<call>\n" and whatif.describe() == "1 override"
    modified = whatif.apply(session)
    request = tool_request(session)
    params = modified.params(request)
    # llama.cpp: the opener is the lazy grammar's trigger word and the tool call's first literal
    assert [t.value for t in params.grammar_triggers] == ["<call>\n"]
    assert 'tool-call ::= "<call>\\n"' in params.grammar
    assert '"<tool_call>\\n"' not in params.grammar
    new_call = f"<call>\n{CALL}\n</tool_call>"
    changed = what_changed(session, modified, request, new_call)
    assert [c.field for c in changed.template_changes] == [f"autoparser.{OPENER}"]
    assert {"params.parser", "params.grammar", "params.grammar_triggers"} <= {c.field for c in changed.parser_changes}
    assert changed.triage_before.message.tool_calls == ()  # the original reads the new opener as content
    assert [c.name for c in changed.triage_after.message.tool_calls] == ["get_weather"]
    # the template still writes <tool_call>: its own replies no longer parse back
    assert changed.roundtrip_after.equal < changed.roundtrip_before.equal
    assert "→" in changed.roundtrip_line and not changed.nothing
    # the family's fixtures write <tool_call>: fewer pass with the parser that waits for <call>
    assert changed.family is not None and "<tool_call>" in str(changed.family.to_json())
    assert changed.fixtures_after["pass"] < changed.fixtures_before["pass"]
    assert changed.family.slug in changed.fixtures_line


def test_a_later_setting_of_a_field_replaces_the_earlier_and_can_be_removed() -> None:
    whatif = WhatIf().with_setting(WhatIf.setting(OPENER, "<a>")).with_setting(WhatIf.setting(OPENER, "<b>"))
    assert [s.value for s in whatif.overrides] == ["<b>"]
    assert whatif.without(OPENER).empty


def test_the_workaround_lambda_names_the_substring_and_says_how_unique_it_is(tmp_path, monkeypatch) -> None:
    session = chatml()
    whatif = WhatIf().with_setting(WhatIf.setting(OPENER, '"<call>\\n"'))
    monkeypatch.setenv(LLAMA_CPP_ENV, str(tmp_path / "no-llama-cpp"))  # no corpus at hand: nothing is "unique"
    made = whatif.workaround_cpp(session.text)
    assert made is not None and made.substring and made.substring in session.text
    assert f"if (tmpl.src.find({cpp_string(made.substring)}) != std::string::npos) {{" in made.cpp
    assert 'analysis.tools.format.per_call_start = "<call>\\n";' in made.cpp
    assert "uniqueness not checked" in made.uniqueness and repr(made.substring) in made.uniqueness
    (tmp_path / "other.jinja").write_text("{{ 'something else entirely' }}", encoding="utf-8")
    alone = whatif.workaround_cpp(session.text, corpus=[str(tmp_path / "other.jinja")])
    assert alone is not None and "unique among the 1 templates searched" in alone.uniqueness
    # another template of the corpus holding every candidate piece: the sentence says it would be patched too
    (tmp_path / "copy-of-it.jinja").write_text(session.text + "{# a copy #}", encoding="utf-8")
    shared = whatif.workaround_cpp(session.text, corpus=[str(tmp_path)])
    assert "copy-of-it" in shared.holders and "copy-of-it" in shared.uniqueness
    assert "would patch them too" in shared.uniqueness


@pytest.mark.skipif(shutil.which("patch") is None, reason="GNU patch is not installed")
@pytest.mark.parametrize("tail", ["\n", ""])
def test_gnu_patch_turns_the_original_into_the_edited_text(tmp_path, tail: str) -> None:
    original = chatml().text.rstrip("\n") + tail
    edited = original.replace("'<tool_call>\\n", "'<call>\\n").replace("Unknown message role", "Bad role")
    whatif = WhatIf().with_text(edited, original)
    made = whatif.patch(original)
    assert made is not None and made.patched == edited and made.file_name == "template.jinja"
    (tmp_path / "template.jinja").write_text(original, encoding="utf-8")
    (tmp_path / "fix.diff").write_text(made.diff, encoding="utf-8")
    subprocess.run(["patch", "-p1", "-i", "fix.diff"], cwd=tmp_path, check=True, capture_output=True)
    assert (tmp_path / "template.jinja").read_text(encoding="utf-8") == edited


def test_an_edited_text_and_overrides_together() -> None:
    session = chatml()
    edited = session.text.replace("'<tool_call>\\n", "'<call>\\n")
    whatif = WhatIf().with_text(edited, session.text).with_setting(WhatIf.setting("reasoning.start", "<t>"))
    assert whatif.describe() == "1 override / edited template"
    modified = whatif.apply(session)
    assert modified.text == edited and modified.analysis.reasoning.start == "<t>"
    made = whatif.workaround_cpp(session.text)
    assert made.substring in edited  # the lambda keys on the template llama.cpp will load


def test_errors_are_explorer_errors_with_clear_messages() -> None:
    with pytest.raises(OverrideError) as info:
        WhatIf.setting("tools.format.opener", "<x>")
    assert all(name in str(info.value) for name in FIELD_NAMES)
    with pytest.raises(OverrideError, match="expected true or false"):
        WhatIf.setting("tools.format.fun_name_is_key", "yes")
    session = chatml()
    broken = WhatIf().with_text("{% for m in messages %}{{ m.content }", session.text)
    with pytest.raises(TemplateError):
        broken.apply(session)


def test_the_page_sentence_says_the_parser_is_llama_cpps_with_that_workaround() -> None:
    assert "workaround lambda" in WORKAROUND_SENTENCE and "what llama.cpp would build" in WORKAROUND_SENTENCE


def _two_autoparser_templates() -> tuple[str, str]:
    names = [n for n in oracle_template_names() if load_oracle_analysis(n)["routed"]["handler"] == "autoparser"]
    return names[0], names[1]


@requires_oracle
def test_an_edited_text_builds_the_parser_llama_cpp_built_for_that_text() -> None:
    a, b = _two_autoparser_templates()
    session = open_session(load_oracle_template(a))
    modified = WhatIf().with_text(load_oracle_template(b), session.text).apply(session)
    oracle = load_oracle_analysis(b)["apply"]
    for flag in (False, True):
        request = modified.request(tools=list(standard_request(flag).tools), enable_thinking=flag,
                                   parallel_tool_calls=True)
        assert modified.params(request).parser == oracle[f"thinking_{str(flag).lower()}"]["parser"], (b, flag)


def test_the_round_trip_of_a_transformers_session_keeps_the_overrides() -> None:
    # the llama.cpp side of the round trip renders in llama.cpp's dialect whatever the session's; the
    # parser must still be the overridden one, as in the llama.cpp dialect
    whatif = WhatIf().with_setting(WhatIf.setting(OPENER, '"<call>\\n"'))
    for dialect in ("llama.cpp", "transformers"):
        session = open_session(resolve_spec(CHATML), dialect)
        before = session.roundtrip(False, grammar=False)
        after = whatif.apply(session).roundtrip(False, grammar=False)
        pairs = zip(before.cases, after.cases, strict=True)
        lost = [c.message_id for b, c in pairs if b.equal_trimmed and not c.equal_trimmed]
        assert lost, dialect  # the template's <tool_call> replies no longer parse back


def test_on_a_specialised_handler_the_overrides_do_not_reach_its_parser() -> None:
    from cases import GPT_OSS_MINI

    session = open_session(GPT_OSS_MINI)
    assert session.handler != "autoparser"
    modified = WhatIf().with_setting(WhatIf.setting("reasoning.start", "<t>")).apply(session)
    request = tool_request(session)
    changed = what_changed(session, modified, request, roundtrip=False, fixtures=False)
    assert changed.notes and session.handler in changed.notes[0]
    assert changed.parser_changes == ()  # llama.cpp's handler builds its parser without the analysis
    assert modified.params(request).parser == session.params(request).parser
