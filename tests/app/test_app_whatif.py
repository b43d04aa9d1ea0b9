"""The what-if of issue 14 under streamlit.testing (AppTest): overrides and an edited
template on the Analysis page, every page showing the modified version, the banner and Clear.

Expected values are llama.cpp's rules, not our output: the tool-call opener
(``tools.format.per_call_start``) is the lazy grammar's trigger word and the first literal
of its ``tool-call`` rule, and a parser built with a changed opener reads the old opener as
content.
"""

from __future__ import annotations

import html
import re

import pytest
from streamlit.testing.v1 import AppTest

from apptest_support import md_plain, open_page
from explorer import ui_support as ui
from oracle_data import PROJECT_ROOT

APP = str(PROJECT_ROOT / "app.py")
CHATML = "chatml-think-tools"  # JSON calls in <tool_call>\n...</tool_call>
OPENER = "tools.format.per_call_start"
CALL = '{"name": "get_weather", "arguments": {"city": "Paris"}}'

pytestmark = pytest.mark.timeout(600)


def analysis_page(example: str = CHATML) -> AppTest:
    return open_page("analysis_page.py", example)


def clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def set_field(at: AppTest, name: str, value: str) -> None:
    at.selectbox(key="wi_field").select(name).run()
    at.text_input(key="wi_value").set_value(value).run()
    at.button(key="wi_apply").click().run()
    clean(at)


def banner(at: AppTest) -> list[str]:
    return [w.value for w in at.warning if "What-if active" in w.value]


def shown_grammar(at: AppTest) -> str:
    """The GBNF as the Grammar page shows it (highlighted HTML made text again)."""
    bodies = [e.proto.body for e in at.get("html") if "::=" in html.unescape(re.sub(r"<[^>]+>", "", e.proto.body))]
    return "\n".join(html.unescape(re.sub(r"<[^>]+>", "", b)) for b in bodies)


def test_whatif_override_changes_the_grammar_page_and_clear_brings_the_original_back():
    at = analysis_page()
    at.selectbox(key="wi_field").select(OPENER).run()
    assert at.text_input(key="wi_value").value == '"<tool_call>\\n"'  # the box starts with the field's value
    set_field(at, OPENER, '"<call>\\n"')
    assert banner(at) == [(f"**What-if active: 1 override** (`{OPENER}`). Every page shows the modified version; "
                           "the Analysis page's What if… section says what changed.")]
    codes = [c.value for c in at.code]
    assert f'--set {OPENER}="<call>\\n"' in codes
    lam = next(c for c in codes if "tmpl.src.find(" in c)
    assert 'analysis.tools.format.per_call_start = "<call>\\n";' in lam
    assert any("workaround lambda does" in i.value for i in at.info)
    assert at.get("download_button")  # the lambda's download

    at.switch_page("pages/grammar_page.py").run()
    clean(at)
    assert banner(at)
    grammar = shown_grammar(at)
    assert 'tool-call ::= "<call>\\n"' in grammar and '"<tool_call>\\n"' not in grammar
    triggers = next(str(t.value) for t in at.table if "WORD" in str(t.value))
    assert ui.marker_text("<call>\n") in md_plain(triggers)

    at.button(key="whatif_clear").click().run()
    clean(at)
    assert not banner(at)
    assert 'tool-call ::= "<tool_call>\\n"' in shown_grammar(at)


@pytest.mark.parametrize("page", ["pages/try_it_page.py", "pages/probes_page.py", "pages/fixtures_page.py",
                                  "pages/compare_page.py"])
def test_whatif_banner_is_on_every_page(page):
    at = analysis_page()
    set_field(at, "reasoning.start", '"<thought>"')
    at.switch_page(page).run()
    clean(at)
    assert banner(at), page


def test_whatif_try_it_parses_with_the_modified_parser():
    at = analysis_page()
    set_field(at, OPENER, '"<call>\\n"')
    at.switch_page("pages/try_it_page.py").run()
    at.text_area(key="try_output").set_value(f"<call>\n{CALL}\n</tool_call>").run()
    clean(at)
    calls = [str(t.value) for t in at.table if "get_weather" in str(t.value) and "Paris" in str(t.value)]
    assert calls, "the new opener is read as a tool call"
    at.button(key="whatif_clear").click().run()
    clean(at)
    assert not [t for t in at.table if "get_weather" in str(t.value) and "Paris" in str(t.value)]


def test_whatif_shows_what_changed_with_the_round_trip_before_and_after():
    at = analysis_page()
    set_field(at, OPENER, '"<call>\\n"')
    assert "What changed" in [s.value for s in at.subheader]
    roundtrip = next(m for m in at.metric if "Round trip" in m.label)
    before, after = re.fullmatch(r"(\d+)/(\d+) → (\d+)/(\d+)", roundtrip.value).groups()[::2]
    assert int(after) < int(before)  # the template still writes <tool_call>: its replies no longer parse back
    assert any(f"autoparser.{OPENER}" in e.proto.body for e in at.get("html"))


def test_whatif_a_field_set_to_its_own_value_changes_nothing():
    at = analysis_page()
    set_field(at, OPENER, '"<tool_call>\\n"')
    assert any("Nothing downstream changes" in i.value for i in at.info)


def test_whatif_bad_values_are_errors_in_place_and_change_nothing():
    at = analysis_page()
    set_field(at, "tools.format.fun_name_is_key", "yes")
    assert any("expected true or false" in e.value for e in at.error)
    assert not banner(at)


def test_whatif_edited_template_text_and_its_patch():
    at = analysis_page()
    key = next(t.key for t in at.text_area if t.label == "Template text (what-if)")
    original = at.text_area(key=key).value
    at.text_area(key=key).set_value("{% for m in messages %}{{ m.content }").run()
    at.button(key="wi_text_apply").click().run()
    clean(at)
    assert any("What-if not applied" in e.value for e in at.error) and not banner(at)
    edited = original.replace("'<tool_call>\\n", "'<call>\\n")
    at.text_area(key=key).set_value(edited).run()
    at.button(key="wi_text_apply").click().run()
    clean(at)
    assert banner(at) and "edited template" in banner(at)[0]
    diff = next(c.value for c in at.code if c.value.startswith(f"--- a/{CHATML}.jinja"))
    assert "-                {{- '<tool_call>\\n{\"name\": \"' + call.name" in diff
    assert "+                {{- '<call>\\n{\"name\": \"' + call.name" in diff
    # the edited template writes the new opener, so the autoparser finds it there
    assert 'tool-call ::= "<call>\\n"' in next(c.value for c in at.code if c.value.startswith("--- a/grammar.gbnf"))
    at.button(key="wi_text_undo").click().run()
    clean(at)
    assert not banner(at)
    assert at.text_area(key=key).value == original
    at.text_area(key=key).set_value(edited).run()
    at.button(key="wi_text_apply").click().run()
    at.button(key="whatif_clear").click().run()  # the banner's Clear puts the original text back in the box too
    clean(at)
    assert not banner(at) and at.text_area(key=key).value == original


def test_whatif_resets_for_another_template():
    at = analysis_page()
    set_field(at, "reasoning.start", '"<thought>"')
    assert banner(at)
    at.session_state["source_request"] = ui.SourceRequest("example", name="plain-chat")
    at.run()
    clean(at)
    assert not banner(at)


def test_whatif_template_page_shows_the_edited_text():
    at = analysis_page()
    key = next(t.key for t in at.text_area if t.label == "Template text (what-if)")
    edited = at.text_area(key=key).value.replace("Template Explorer example:", "Edited example:")
    at.text_area(key=key).set_value(edited).run()
    at.button(key="wi_text_apply").click().run()
    at.switch_page("pages/template_page.py").run()
    clean(at)
    assert "Source (the what-if's edited text)" in [s.value for s in at.subheader]
    assert any("Edited example:" in e.proto.body for e in at.get("html"))


def _doctor_text(at: AppTest) -> str:
    return "\n".join([str(m.value) for m in at.markdown] + [str(m.value) for m in at.metric]
                     + [str(t.value) for t in at.table] + [e.value for k in (at.error, at.warning, at.success)
                                                           for e in k if "What-if active" not in e.value])


def test_whatif_doctor_page_doctors_the_modified_version():
    at = analysis_page()
    set_field(at, OPENER, '"<call>\\n"')
    at.switch_page("pages/doctor_page.py").run()
    clean(at)
    assert banner(at)
    modified = _doctor_text(at)
    at.button(key="whatif_clear").click().run()
    clean(at)
    assert not banner(at)
    assert _doctor_text(at) != modified  # the cached report is the original's again, not the what-if's


def test_whatif_fixtures_page_judges_with_the_modified_parser():
    at = analysis_page()
    set_field(at, OPENER, '"<call>\\n"')
    at.switch_page("pages/fixtures_page.py").run()
    at.selectbox(key="fx_family").select("qwen3-hermes").run()  # <tool_call>\n JSON calls, as this template's
    clean(at)
    modified = [m.value for m in at.metric]
    at.button(key="whatif_clear").click().run()
    clean(at)
    original = [m.value for m in at.metric]
    assert modified and original != modified, original  # a family's verdicts are cached per overrides too


def test_whatif_value_box_and_errors_belong_to_their_template():
    at = analysis_page()
    set_field(at, "tools.format.fun_name_is_key", "yes")
    assert any("expected true or false" in e.value for e in at.error)
    at.selectbox(key="wi_field").select(OPENER).run()
    at.session_state["source_request"] = ui.SourceRequest("example", name="bracket-tool-calls")
    at.run()
    clean(at)
    assert not any("expected true or false" in e.value for e in at.error)
    assert at.text_input(key="wi_value").value != '"<tool_call>\\n"'  # filled anew from this template's analysis
