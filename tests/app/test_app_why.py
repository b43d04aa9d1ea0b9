"""Try it's "Why this result?" section under streamlit.testing (AppTest), and the bug report's findings."""

from __future__ import annotations

import html

import pytest
from streamlit.testing.v1 import AppTest

from apptest_support import open_page
from explorer import ui_support as ui
from oracle_data import PROJECT_ROOT

ROOT = PROJECT_ROOT
APP = str(ROOT / "app.py")
CHATML = "chatml-think-tools"
CALL = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
# the template renders '<tool_call>\n{"name": ...' (see explorer/examples/chatml-think-tools.jinja)
NEAR_MISS = f"<tool_call >\n{CALL}\n</tool_call>"

pytestmark = pytest.mark.timeout(600)


def try_it() -> AppTest:
    return open_page("try_it_page.py", CHATML)


def shown(at: AppTest) -> str:
    parts = [str(e.value) for kind in ("subheader", "markdown", "caption", "success", "code") for e in getattr(at, kind)]
    parts += [html.unescape(e.proto.body) for e in at.get("html")]
    return "\n".join(parts)


def test_try_it_explains_an_opener_near_miss():
    at = try_it()
    at.text_area(key="try_output").input(NEAR_MISS).run()
    assert not at.exception, [e.value for e in at.exception]
    subheaders = [s.value for s in at.subheader]
    assert "Why this result?" in subheaders
    assert subheaders.index("Why this result?") == subheaders.index("Parsed message") + 1
    text = shown(at)
    assert "opener-near-miss" in text
    assert "<tool_call >" in text  # the near miss, as found
    # the section opens with the headline sentence: what was written, what llama.cpp needs, the fix's place
    assert 'The model wrote "<tool_call >\\n" at llama.cpp offset 22 (older builds\' pos 0), where llama.cpp expects ' \
           '"<tool_call>\\n"; the fix belongs to the model (or its prompt).' in text
    # expected vs found with whitespace visible (the newline of the opener as a glyph)
    assert "<tool_call>↵" in text.replace('<span style="color:#b08a3a;opacity:.75">↵</span>', "↵")
    # the span is highlighted in the output
    assert 'title="cause: opener-near-miss"' in "\n".join(e.proto.body for e in at.get("html"))
    # and the bug report says why
    report = next(c.value for c in at.code if "Bug report" in c.value or "### Chat parsing" in c.value)
    assert "**Why (Template Explorer's triage)**" in report and "`opener-near-miss`" in report


def test_try_it_says_plainly_when_nothing_is_wrong():
    at = try_it()
    at.text_area(key="try_output").input(f"<tool_call>\n{CALL}\n</tool_call>").run()
    assert not at.exception
    assert any("No check found anything" in s.value for s in at.success)
    assert "Parsed: 1 tool call, no content, no reasoning; no check found anything wrong." in shown(at)
    # the note (where the lazy grammar woke) is folded: one line in an expander
    assert any("1 note" in e.label for e in at.expander)


def test_bug_report_is_unchanged_without_findings():
    common = dict(title="t", source_name="s", source_origin="o", sha256="x", template_text="{{ x }}",
                  raw_output="out", parsed_json="{}")
    assert ui.bug_report_markdown(**common) == ui.bug_report_markdown(**common, findings=None)
    assert "Why" not in ui.bug_report_markdown(**common)
    assert "No check found anything" in ui.bug_report_markdown(**common, findings=())


def test_the_section_explains_a_partial_parse_when_asked():
    """The Why section's diagnosis (``TemplateSession.diagnose`` for the page's request, as
    ``app_state.page_request`` builds it) takes the Try it page's is_partial toggle
    (default off)."""
    import json as _json

    import app_state as sh
    from explorer.session import open_session
    from explorer.sources import from_example

    session = open_session(from_example(CHATML))
    weather = {"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
    request = sh.page_request(session, sh.RequestSettings(_json.dumps([weather]), thinking=True))
    cut = f"<tool_call>\n{CALL}"[:30]  # a call still being written
    final = session.diagnose(cut, request)
    streaming = session.diagnose(cut, request, partial=True)
    assert not final.is_partial and streaming.is_partial
    assert not streaming.causes
    assert streaming.verdict.startswith("Parsed so far")


def test_try_it_passes_its_is_partial_toggle_to_the_triage():
    """A call cut inside its arguments: as final output the triage names a cause; with Try it's
    is_partial toggle on it explains llama.cpp's partial parse (the call is still being written)."""
    cut = f"<tool_call>\n{CALL}"[:40]
    at = try_it()
    at.text_area(key="try_output").input(cut).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not any(c.value.startswith("Explained as llama.cpp's partial parse") for c in at.caption)
    at.toggle(key="try_partial").set_value(True).run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(c.value.startswith("Explained as llama.cpp's partial parse") for c in at.caption)
    assert "partial-output" in shown(at)


def test_a_misread_template_gets_the_health_banner_on_analysis_and_try_it():
    # the call id written before the name: the autoparser's name opener swallows part of the probes' id
    text = ("{%- for m in messages %}<|im_start|>{{ m.role }}\n{%- if m.tool_calls %}{%- for tc in m.tool_calls %}"
            "<tc>{{ tc.id }}<name>{{ tc.function.name }}<args>{{ tc.function.arguments | tojson }}</tc>"
            "{%- endfor %}{%- else %}{{ m.content }}{%- endif %}<|im_end|>\n{%- endfor %}"
            "{%- if add_generation_prompt %}<|im_start|>assistant\n{%- endif %}")
    for page in ("pages/analysis_page.py", "pages/try_it_page.py"):
        at = AppTest.from_file(APP, default_timeout=120)
        at.session_state["source_request"] = ui.SourceRequest("text", text=text)
        at.run()
        at.switch_page(page).run()
        errors = [e.value for e in at.error]
        assert any("Template health" in e and "tools.function.name_prefix" in e for e in errors), (page, errors)


def test_try_it_reads_a_pasted_log():
    """An older build's log (its debug line holds the output, its error the pos): the box says
    what it read and offers the log's output; once in the output box, the Why section's first
    finding places the log's pos in it."""
    output = 'Voilà\n<tool_call>\n{"name": "get_weather", "arguments": {city: "Paris"}}\n</tool_call>'
    at_char = output.index("<tool_call>")
    pos = len(output[:at_char].encode("utf-8"))
    log = (f"Parsing input with format peg-native: {output}\n"
           f"srv  operator(): got exception: Failed to parse input at pos {pos}: {output[at_char:]}\n"
           "srv  update_slots: all slots are idle\n")
    at = try_it()
    at.text_area(key="try_log").input(log).run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("older builds' error" in c.value for c in at.caption)
    at.button(key="try_use_log_output").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.text_area(key="try_output").value == output
    text = shown(at)
    assert "llama-server's log: older builds' error" in text
    assert f"its number {pos} counts bytes of the model output alone" in text
    assert f"output character {at_char}, line 2, column 1)" in text
    assert "older builds' pos" in text  # the place in every coordinate


def test_each_finding_shows_its_rule_fix_place_quirk_and_verified_suggestion():
    """A rule check's finding (newline-rule on our qwen3-coder-routed template: the value
    written right after "<parameter=city>") shows its rule beside expected vs found, where
    the fix belongs, its place in every coordinate and the suggestion our re-parse verified
    (with what it returned); the dropped rest is a llama.cpp quirk, labelled so, with the
    handler named."""
    import app_state as sh
    from cases import TAGGED
    from explorer.session import open_session
    from explorer.sources import from_text
    from explorer.ui_support import why_view

    output = "<tool_call>\n<function=get_weather>\n<parameter=city>Paris\n</parameter>\n</function>\n</tool_call>"
    session = open_session(from_text(TAGGED))
    d = session.diagnose(output, sh.page_request(session, sh.default_settings()))
    (rule,) = d.by_check("newline-rule")
    quirk = next(f for f in d.by_check("unconsumed-output") if f.quirk)
    assert rule.rule and rule.suggestion is not None and rule.suggestion.verified and quirk.llama_cpp

    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["source_request"] = ui.SourceRequest("text", text=TAGGED)
    at.run()
    at.switch_page("pages/try_it_page.py").run()
    at.text_area(key="try_output").input(output).run()
    assert not at.exception, [e.value for e in at.exception]
    text = shown(at).replace('<span style="color:#b08a3a;opacity:.75">↵</span>', "↵")
    assert f"Rule: {rule.rule}" in text.replace("<b>Rule:</b>", "Rule:")
    assert ">↵" in text  # the expected sequence, its newline visible, beside the model's ">"
    assert f"the fix belongs to: {why_view.FIX_WHERE_WORDS['model']}" in text
    assert f"llama.cpp: {quirk.llama_cpp}" in text  # the handler's source named
    assert why_view.QUIRK_LABEL in text
    for name, value in rule.place.coordinates():  # its place in every coordinate
        assert name in text and value in text
    assert "Verified suggestion:" in text and f"verified: {rule.suggestion.verified}" in text
    assert "corrected output:" in text


def test_why_view_shows_only_verified_suggestions():
    from explorer.triage.model import Finding, Suggestion
    from explorer.ui_support import why_view

    unverified = Finding("one-call-only", "cause", "s", suggestion=Suggestion("request", "x", request_change="y"))
    assert why_view.verified_suggestion(unverified) is None
    verified = Finding("one-call-only", "cause", "s", fix_where="request", llama_cpp="f (a.cpp)",
                       suggestion=Suggestion("request", "x", request_change="y", verified="2 tool calls"))
    assert why_view.verified_suggestion(verified) == why_view.ShownSuggestion("x", "y", "", "2 tool calls")
    assert why_view.fix_where(verified).startswith("the request") and "llama.cpp: f (a.cpp)" in why_view.fix_where(verified)
    assert why_view.template_origin(Finding("t", "cause", "s", field="tools.x", probe="T1", template_line=3)) == \
        "field tools.x, set by probe T1, template line 3"
