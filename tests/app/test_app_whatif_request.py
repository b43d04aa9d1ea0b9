"""The what-if's request change under streamlit.testing (AppTest): the Analysis page's
"Change the request" part, Grammar and Try it building for the changed request, the
Fixtures page saying it does not apply there, and permalinks that carry the what-if.

Expected values are the template's and llama.cpp's behaviour, not our output: with
enable_thinking false the generation prompt is what jinja2 renders for the template with
that flag; with thinking off the rendered reasoning of a history turn is read as content, so
the round trip gives fewer messages back; with parallel_tool_calls false llama.cpp's
tool-call rule takes one call instead of a comma-separated list.
"""

from __future__ import annotations

import html
import json
import re

import jinja2
import pytest
from jinja2.sandbox import ImmutableSandboxedEnvironment
from streamlit.testing.v1 import AppTest

from apptest_support import open_page
from explorer import sources
from explorer import ui_support as ui
from explorer.ui_support.whatif_link import decode_whatif
from oracle_data import PROJECT_ROOT

APP = str(PROJECT_ROOT / "app.py")
CHATML = "chatml-think-tools"  # <think> reasoning, JSON calls in <tool_call>\n...</tool_call>
SINGLE_CALL_RULE = 'tool-call ::= "<tool_call>\\n" space (tool-get-weather) space "</tool_call>"'
LIST_OF_CALLS = '(space "," space (tool-get-weather))*'

pytestmark = pytest.mark.timeout(600)


def analysis_page() -> AppTest:
    return open_page("analysis_page.py", CHATML)


def linked(params: dict[str, str]) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(params)
    at.run()
    return at


def clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def banner(at: AppTest) -> list[str]:
    return [w.value for w in at.warning if "What-if active" in w.value]


def change_request(at: AppTest, *, thinking: str | None = None, parallel: str | None = None,
                   kwargs: str | None = None) -> None:
    if thinking is not None:
        at.selectbox(key="wi_rq_thinking").select(thinking).run()
    if parallel is not None:
        at.selectbox(key="wi_rq_parallel").select(parallel).run()
    if kwargs is not None:
        at.text_input(key="wi_rq_kwargs").set_value(kwargs).run()
    at.button(key="wi_change_apply").click().run()
    clean(at)


def shown_grammar(at: AppTest) -> str:
    bodies = [e.proto.body for e in at.get("html") if "::=" in html.unescape(re.sub(r"<[^>]+>", "", e.proto.body))]
    return "\n".join(html.unescape(re.sub(r"<[^>]+>", "", b)) for b in bodies)


def shown_text(at: AppTest) -> str:
    return "\n".join(html.unescape(re.sub(r"<[^>]+>", "", e.proto.body)) for e in at.get("html"))


def jinja2_generation_prompt(text: str, **context: object) -> str:
    """What add_generation_prompt adds, rendered by jinja2 itself."""
    template = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                             undefined=jinja2.Undefined).from_string(text)
    messages = [{"role": "user", "content": "Hello"}]
    full = template.render(messages=messages, add_generation_prompt=True, **context)
    return full[len(template.render(messages=messages, add_generation_prompt=False, **context)):]


def test_parallel_calls_off_in_the_what_if_changes_the_grammar_page():
    at = analysis_page()
    change_request(at, parallel="off")
    assert banner(at) == [("**What-if active: request change** (request: parallel_tool_calls false). Every page "
                           "shows the modified version; the Analysis page's What if… section says what changed. "
                           "The request change reaches Grammar and Try it (its round trip too); the Fixtures and "
                           "Doctor pages keep their own requests.")]
    assert '{"parallel_tool_calls": false}' in [c.value for c in at.code]
    gbnf_diff = next(c.value for c in at.code if c.value.startswith("--- a/grammar.gbnf"))
    assert f"+{SINGLE_CALL_RULE}" in gbnf_diff.splitlines()

    at.switch_page("pages/grammar_page.py").run()
    clean(at)
    assert any("What-if request change on top of these controls: parallel_tool_calls false" in i.value
               for i in at.info)
    grammar = shown_grammar(at)
    assert SINGLE_CALL_RULE in grammar and LIST_OF_CALLS not in grammar

    at.button(key="whatif_clear").click().run()
    clean(at)
    assert not banner(at) and LIST_OF_CALLS in shown_grammar(at)


def test_thinking_off_in_the_what_if_changes_the_generation_prompt_and_the_round_trip():
    at = analysis_page()
    change_request(at, thinking="off")
    assert banner(at) and "enable_thinking false" in banner(at)[0]
    roundtrip = next(m for m in at.metric if "Round trip" in m.label)
    before, after = re.fullmatch(r"(\d+)/(\d+) → (\d+)/(\d+)", roundtrip.value).groups()[::2]
    assert int(after) < int(before)  # the closed think block turns rendered reasoning into content

    at.switch_page("pages/try_it_page.py").run()
    clean(at)
    text = sources.from_example(CHATML).text
    expected = jinja2_generation_prompt(text, enable_thinking=False)
    assert expected != jinja2_generation_prompt(text, enable_thinking=True)
    # the page shows the generation prompt with whitespace made visible: compare the visible form
    assert ui.visible_whitespace_html(expected, spaces="all") in "".join(e.proto.body for e in at.get("html"))


def test_a_request_change_says_it_does_not_reach_the_fixtures():
    at = analysis_page()
    change_request(at, parallel="off")
    at.switch_page("pages/fixtures_page.py").run()
    clean(at)
    assert any("does not apply here: each fixture carries its own request" in i.value for i in at.info)


def test_kwargs_that_are_not_a_json_object_are_an_error_in_place():
    at = analysis_page()
    change_request(at, kwargs="[1, 2]")
    assert any("chat_template_kwargs: expected a JSON object, found list" in e.value for e in at.error)
    assert not banner(at)
    change_request(at, kwargs="{oops")
    assert any("chat_template_kwargs: not JSON" in e.value for e in at.error)
    change_request(at, kwargs='{"reasoning_effort": "high"}')
    assert banner(at) and 'chat_template_kwargs {"reasoning_effort": "high"}' in banner(at)[0]
    at.button(key="wi_change_remove").click().run()
    clean(at)
    assert not banner(at) and at.text_input(key="wi_rq_kwargs").value == ""


def test_the_permalink_carries_the_overrides_and_the_request_change():
    at = analysis_page()
    at.selectbox(key="wi_field").select("reasoning.start").run()
    at.text_input(key="wi_value").set_value('"<thought>"').run()
    at.button(key="wi_apply").click().run()
    change_request(at, thinking="off", parallel="off")
    params = dict(at.query_params)
    carried = decode_whatif(params)
    assert [s.spec for s in carried.overrides] == ['reasoning.start="<thought>"']
    # the thinking switch sends every kwarg name templates read it by (explorer.apply.thinking_kwargs)
    assert carried.change.to_json() == {"chat_template_kwargs": {"enable_thinking": False, "thinking": False},
                                        "parallel_tool_calls": False}
    assert carried.edited_sha256 is None

    # a fresh session opening that link gets the what-if back, widgets and all
    again = linked({k: v[-1] if isinstance(v, list) else v for k, v in params.items()})
    clean(again)
    assert banner(again) and "1 override / request change" in banner(again)[0]
    assert again.selectbox(key="wi_rq_thinking").value == "off"
    assert again.selectbox(key="wi_rq_parallel").value == "off"
    again.switch_page("pages/grammar_page.py").run()
    clean(again)
    assert SINGLE_CALL_RULE in shown_grammar(again)


def test_a_link_to_a_grammar_view_with_a_request_change_opens_it_changed():
    at = linked({"example": CHATML, "page": "grammar", "rq": json.dumps({"parallel_tool_calls": False})})
    clean(at)
    assert banner(at)
    assert SINGLE_CALL_RULE in shown_grammar(at)


@pytest.mark.parametrize("name, value, message", [
    ("rq", "{bad", "link parameter rq: not JSON"),
    ("rq", '{"reasoning_format": "loud"}', "link parameter rq: reasoning_format: expected one of"),
    ("set", '["no.such.field=1"]', "link parameter set: --set: unknown analysis field"),
    ("set", '"reasoning.start=x"', "link parameter set: expected a JSON list"),
    ("edit", "abc", "link parameter edit: expected a sha256"),
])
def test_a_bad_what_if_value_in_a_link_is_an_error_naming_the_parameter(name, value, message):
    at = linked({"example": CHATML, "page": "analysis", name: value})
    clean(at)
    errors = [e.value for e in at.error]
    assert any(message in e for e in errors), errors
    assert not banner(at)
    assert "What if…" in [s.value for s in at.subheader]  # the page itself is shown, on the linked template


def test_an_edited_text_is_not_in_the_link_and_the_link_says_so():
    at = analysis_page()
    key = next(t.key for t in at.text_area if t.label == "Template text (what-if)")
    edited = at.text_area(key=key).value.replace("Template Explorer example:", "Edited example:")
    at.text_area(key=key).set_value(edited).run()
    at.button(key="wi_text_apply").click().run()
    clean(at)
    import hashlib

    params = dict(at.query_params)
    sha = params["edit"][-1] if isinstance(params["edit"], list) else params["edit"]
    assert sha == hashlib.sha256(edited.encode()).hexdigest()
    assert "Edited example:" not in json.dumps(params)
    at.switch_page("pages/template_page.py").run()
    assert any("the edit is not in this link" in c.value for c in at.caption)
    again = linked({"example": CHATML, "page": "analysis", "edit": sha})
    clean(again)
    assert any("the edit is not in this link" in w.value and sha in w.value for w in again.warning)


def test_a_tool_order_that_is_not_an_order_of_the_requests_tools_is_an_error_in_place():
    at = analysis_page()
    at.text_input(key="wi_rq_order").set_value("search, get_weather").run()
    at.button(key="wi_change_apply").click().run()
    clean(at)
    assert any("tool order: expected an order of the request's tools (get_weather)" in e.value for e in at.error)
    assert not banner(at)
    at.text_input(key="wi_rq_order").set_value("get_weather").run()
    at.button(key="wi_change_apply").click().run()
    clean(at)
    assert banner(at) and "tool order get_weather" in banner(at)[0]
    assert decode_whatif(dict(at.query_params)).change.tool_order == ("get_weather",)
