"""The Streamlit app under streamlit.testing (AppTest): every page, every example, hostile templates.

Each page must render without an exception for every built-in example, for a template
that raises on every render, and for a template with a syntax error; errors must be
shown in place (st.error), never as a crash. Key interactions must change what is shown.
"""

from __future__ import annotations

import html
import json
import re
from urllib.parse import parse_qs

import pytest
from canitoolcall.fixtures import load_fixtures
from streamlit.testing.v1 import AppTest

from apptest_support import md_plain
from explorer import sources
from explorer import ui_support as ui
from oracle_data import PROJECT_ROOT

ROOT = PROJECT_ROOT
APP = str(ROOT / "app.py")
PAGES = ("pages/template_page.py", "pages/probes_page.py", "pages/analysis_page.py", "pages/grammar_page.py", "pages/try_it_page.py",
         "pages/fixtures_page.py", "pages/compare_page.py")
RAISES = "{{ raise_exception('boom') }}"
SYNTAX_ERROR = "{% for m in messages %}\n{{ m.content }\n{% endfor %}\n"
PASTED_BY_HUB = "{% for m in messages %}[{{ m.role }}] {{ m.content }}\n{% endfor %}"
TIMEOUT = 120

pytestmark = pytest.mark.timeout(600)


def examples() -> list[str]:
    return list(sources.list_examples())


def app(page: str | None = None, *, request: ui.SourceRequest | None = None,
        params: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    if params:
        at.query_params.update(params)
    if request is not None:
        at.session_state["source_request"] = request
    at.run()
    if page is not None and page != "pages/template_page.py":
        at.switch_page(page).run()
    return at


def texts(at: AppTest) -> str:
    """Everything the page shows as text (markdown, captions, alerts, tables, html)."""
    parts: list[str] = []
    for kind in ("title", "header", "subheader", "markdown", "caption", "error", "warning", "info",
                 "success", "code", "text"):
        parts += [str(e.value) for e in getattr(at, kind)]
    parts += [str(t.value) for t in at.table]
    parts += [e.proto.body for e in at.get("html")]
    return "\n".join(parts)


def assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


# --- every page renders ---------------------------------------------------------------


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("example", examples())
def test_every_page_renders_every_example(page, example):
    at = app(page, request=ui.SourceRequest("example", name=example))
    assert_clean(at)
    assert not at.error, [e.value for e in at.error]
    assert example in texts(at)


@pytest.mark.parametrize("page", PAGES)
def test_every_page_survives_a_template_that_always_raises(page):
    at = app(page, request=ui.SourceRequest("text", text=RAISES))
    assert_clean(at)


@pytest.mark.parametrize("page", PAGES)
def test_every_page_shows_a_syntax_error_in_place(page):
    at = app(page, request=ui.SourceRequest("text", text=SYNTAX_ERROR))
    assert_clean(at)
    errors = " ".join(e.value for e in at.error)
    assert "syntax" in errors.lower(), errors


# --- the Template page ------------------------------------------------------------------


def test_fresh_start_shows_a_builtin_example_with_capabilities():
    at = app()
    assert_clean(at)
    assert at.session_state["source_request"].kind == "example"
    shown = texts(at)
    assert "supports_tool_calls" in shown
    assert "Route:" in shown
    assert at.query_params.get("example") == at.session_state["source_request"].name


def test_switching_the_example_changes_the_source():
    names = examples()
    assert len(names) >= 2
    at = app()
    first = at.session_state["source_request"].name
    other = next(n for n in names if n != first)
    at.selectbox(key="tpl_example").select(other).run()
    assert_clean(at)
    assert at.session_state["source_request"].name == other
    assert f"Template **{other}**" in texts(at)
    assert at.query_params.get("example") == other


def test_pasting_a_template_analyses_it():
    at = app()
    at.radio(key="tpl_kind").set_value("text").run()
    pasted = "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}<|end|>{% endfor %}"
    at.text_area(key="tpl_paste_text").input(pasted)
    at.button[0].click().run()  # the form's submit button
    assert_clean(at)
    request = at.session_state["source_request"]
    assert (request.kind, request.text) == ("text", pasted)
    assert "pasted template" in texts(at)
    # the header, drawn before the page, already names it after this one run, and only it does
    header = [c.value for c in at.main.caption if c.value.startswith("Template **")]
    assert len(header) == 1 and "pasted template" in header[0]
    assert not any("pasted" in c.value for c in at.sidebar.caption)
    # a short pasted template is shared by value in the permalink
    assert ui.decode_permalink(dict(at.query_params)).text == pasted


def test_fetching_from_the_hub_asks_for_a_repo_then_loads_it(monkeypatch):
    fetched = []

    def fake_hub(repo_id, revision=None, variant=None):  # no network: the page's wiring is under test
        fetched.append((repo_id, revision, variant))
        return sources.from_text(PASTED_BY_HUB, display_name=repo_id)

    monkeypatch.setattr(sources, "from_hub", fake_hub)
    at = app()
    at.radio(key="tpl_kind").set_value("hub").run()
    at.button[0].click().run()  # Fetch with no repository id
    assert_clean(at)
    assert "Enter a repository id" in " ".join(e.value for e in at.error)
    assert at.session_state["source_request"].kind == "example"
    at.text_input(key="tpl_hub_repo").input(" someone/fetch-wiring ")
    at.text_input(key="tpl_hub_rev").input("v2")
    at.button[0].click().run()
    assert_clean(at)
    request = at.session_state["source_request"]
    assert (request.kind, request.name, request.revision, request.variant) == ("hub", "someone/fetch-wiring", "v2", None)
    assert fetched == [("someone/fetch-wiring", "v2", None)]
    assert "Template **someone/fetch-wiring**" in texts(at)
    assert not at.error


def test_syntax_error_names_the_template_line():
    at = app(request=ui.SourceRequest("text", text=SYNTAX_ERROR))
    errors = " ".join(e.value for e in at.error)
    assert "line 2" in errors, errors


def test_permalink_with_template_text_reproduces_the_source():
    text = "{{ messages[0].content }}"
    at = app(params=ui.encode_permalink(ui.Permalink(page="template", text=text)))
    assert_clean(at)
    assert at.session_state["source_request"] == ui.SourceRequest("text", text=text)


def test_permalink_with_example_and_page_opens_that_page():
    names = examples()
    at = app(params={"example": names[-1], "page": "probes"})
    assert_clean(at)
    assert at.session_state["source_request"] == ui.SourceRequest("example", name=names[-1])
    assert any("Probes" in t.value for t in at.title)


def test_a_damaged_permalink_is_reported_in_place():
    at = app(params={"t": "z1%%%broken"})
    assert_clean(at)
    assert any("link could not be read" in e.value for e in at.error)


# --- the Probes page ------------------------------------------------------------------

CHATML = "chatml-think-tools"


def test_the_example_the_page_tests_use_is_built_in():
    assert CHATML in examples()


def probe_headers(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown if m.value.startswith("#### ")]


def test_picking_a_probe_shows_only_that_probe_with_its_diff():
    at = app("pages/probes_page.py", request=ui.SourceRequest("example", name=CHATML))
    assert len(probe_headers(at)) > 3
    at.selectbox(key="probe_focus").select("T1").run()
    assert_clean(at)
    headers = probe_headers(at)
    assert len(headers) == 1 and headers[0].startswith("#### T1 ")
    html = texts(at)
    # the tool call is only in output B: it is tinted as "right", the plain reply as "left"
    assert ui.RIGHT_STRONG in html and ui.LEFT_STRONG in html
    assert "tools.format.mode" in html
    assert ui.decode_permalink(dict(at.query_params)).focus == "T1"


def test_the_analyzer_filter_keeps_only_its_probes():
    at = app("pages/probes_page.py", request=ui.SourceRequest("example", name=CHATML))
    at.radio(key="probe_group").set_value("Reasoning").run()
    assert_clean(at)
    names = [h.split()[1] for h in probe_headers(at)]
    assert names and all(n.startswith("R") for n in names)


def test_a_raising_template_shows_every_probe_failure_with_its_message():
    at = app("pages/probes_page.py", request=ui.SourceRequest("text", text=RAISES))
    assert_clean(at)
    failures = [e.value for e in at.error]
    assert failures and all("boom" in f for f in failures)
    assert len(failures) == len(probe_headers(at))


def test_a_focus_link_opens_the_probes_page_on_that_probe():
    at = app(params={"example": CHATML, "page": "probes", "focus": "R1"})
    assert_clean(at)
    headers = probe_headers(at)
    assert len(headers) == 1 and headers[0].startswith("#### R1 ")


# --- the Analysis page ----------------------------------------------------------------


def test_analysis_shows_modes_markers_and_their_probes():
    at = app("pages/analysis_page.py", request=ui.SourceRequest("example", name=CHATML))
    assert_clean(at)
    metrics = {m.label: m.value for m in at.metric}
    # the example wraps reasoning in <think> tags and calls tools with JSON in <tool_call> tags
    assert metrics["Reasoning"] == "TAG_BASED"
    assert metrics["Tool calls"] == "JSON_NATIVE"
    shown = texts(at)
    assert "&lt;think&gt;" in shown and "&lt;tool_call&gt;" in shown
    assert "<b>R1</b>" in shown
    # each probe-set field links to the Probes page focused on that probe, source included
    href = ui.encode_permalink(ui.Permalink(page="probes", example=CHATML, focus="R1"))
    assert f'href="probes?{ui.query_string(href)}"'.replace("&", "&amp;") in shown
    links = [str(p.proto) for p in at.get("page_link")]
    assert any("Probe R1" in link for link in links)


def test_analysis_links_of_a_pasted_template_carry_its_text():
    text = sources.from_example(CHATML).text.replace("tool_call>", "call>")
    at = app("pages/analysis_page.py", request=ui.SourceRequest("text", text=text))
    assert_clean(at)
    hrefs = re.findall(r'href="(probes\?[^"]*)"', texts(at))
    assert hrefs, "no marker links to the Probes page"
    focused = set()
    for href in hrefs:
        link = ui.decode_permalink(parse_qs(html.unescape(href).split("?", 1)[1]))
        assert (link.page, link.text) == ("probes", text)
        focused.add(link.focus)
    assert {"R1", "T1"} <= focused


def test_analysis_of_a_raising_template_lists_the_silent_failures():
    at = app("pages/analysis_page.py", request=ui.SourceRequest("text", text=RAISES))
    assert_clean(at)
    assert any("boom" in w.value for w in at.warning)


# --- the Grammar and Try-it pages -------------------------------------------------------

TOOL_OUTPUT = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'


def test_grammar_page_shows_the_lazy_grammar_and_its_trigger():
    at = app("pages/grammar_page.py", request=ui.SourceRequest("example", name=CHATML))
    assert_clean(at)
    assert {m.label: m.value for m in at.metric}.get("Lazy") == "yes"
    triggers = at.table[0].value
    assert [md_plain(v) for v in triggers["value"]] == ["<tool_call>↵"]
    assert "::=" in texts(at)


def test_parsing_an_output_shows_its_tool_call():
    at = app("pages/try_it_page.py", request=ui.SourceRequest("example", name=CHATML))
    assert_clean(at)
    at.text_area(key="try_output").input(TOOL_OUTPUT).run()
    assert_clean(at)
    assert not at.error, [e.value for e in at.error]
    calls = at.table[0].value
    assert list(calls["name"]) == ["get_weather"]
    assert json.loads(calls["arguments"].iloc[0]) == {"city": "Paris"}


def test_skip_chat_parsing_turns_the_tool_call_into_content():
    at = app("pages/try_it_page.py", request=ui.SourceRequest("example", name=CHATML))
    at.text_area(key="try_output").input(TOOL_OUTPUT).run()
    at.toggle(key="try_req_skip_chat_parsing").set_value(True).run()
    assert_clean(at)
    assert any("--skip-chat-parsing" in w.value for w in at.warning)
    assert "tool_calls** (0)" in texts(at)
    # the grammar page shares the setting: no grammar at all
    at.switch_page("pages/grammar_page.py").run()
    assert_clean(at)
    assert any("--skip-chat-parsing" in w.value for w in at.warning)


def test_a_try_it_link_carries_the_request_settings_both_ways():
    at = app(params={"example": CHATML, "page": "try", "think": "0", "skip": "1", "o": ui.compress_text(TOOL_OUTPUT)})
    assert_clean(at)
    assert at.toggle(key="try_req_thinking").value is False
    assert at.toggle(key="try_req_skip_chat_parsing").value is True
    assert "tool_calls** (0)" in texts(at)  # the link's --skip-chat-parsing is in force
    # the page writes its own settings back into the URL
    at.toggle(key="try_req_skip_chat_parsing").set_value(False).run()
    link = ui.decode_permalink(dict(at.query_params))
    assert link.inputs == ui.RequestInputs(thinking=False)
    assert link.output == TOOL_OUTPUT


def test_an_output_the_parser_rejects_is_an_error_in_place():
    at = app("pages/try_it_page.py", request=ui.SourceRequest("example", name=CHATML))
    # a tool call followed by more text: the JSON-native tool section must end the reply
    at.text_area(key="try_output").input(TOOL_OUTPUT + " and then some prose").run()
    assert_clean(at)
    assert any("does not match" in e.value for e in at.error)
    # the text the parser never consumed is marked in the tinted output
    assert 'title="not consumed by the parser"' in texts(at)


def test_the_sample_button_fills_an_output_that_parses():
    at = app("pages/try_it_page.py", request=ui.SourceRequest("example", name=CHATML))
    at.button(key="try_sample_call").click().run()
    assert_clean(at)
    sample = at.text_area(key="try_output").value
    assert "get_weather" in sample and "<|im_end|>" not in sample
    assert not at.error
    assert list(at.table[0].value["name"]) == ["get_weather"]


def test_the_streaming_scrubber_shows_the_partial_message():
    at = app("pages/try_it_page.py", request=ui.SourceRequest("example", name=CHATML))
    text = "<think>\nhmm\n</think>\n\nIt is sunny."
    at.text_area(key="try_output").input(text).run()
    slider = at.slider(key="try_scrub")
    assert slider.value == len(text)
    slider.set_value(len("<think>\nhm")).run()
    assert_clean(at)
    assert "Partial message" in texts(at)
    # the step that received the "m" of "hm" streams exactly that character as reasoning
    assert json.loads(at.json[-1].value) == [{"reasoning_content": "m"}]


def test_the_bug_report_carries_the_output_and_the_route():
    at = app("pages/try_it_page.py", request=ui.SourceRequest("example", name=CHATML))
    at.text_area(key="try_output").input(TOOL_OUTPUT).run()
    reports = [c.value for c in at.code if c.value.startswith("### ")]
    assert reports and TOOL_OUTPUT in reports[0] and "`autoparser`" in reports[0]


# A template of our own whose text routes it to llama.cpp's Qwen3-Coder handler
# (it names <tool_call>, <function= and <parameter=).
QWEN3_CODER_STYLE = (
    "{%- if tools %}<|im_start|>system\nTools: {% for t in tools %}{{ t | tojson }}{% endfor %}\n"
    "Call as <tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n</function>\n"
    "</tool_call><|im_end|>\n{% endif %}"
    "{%- for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    "{%- if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def test_a_specialized_route_is_announced_and_its_parser_used():
    request = ui.SourceRequest("text", text=QWEN3_CODER_STYLE)
    at = app(request=request)
    route = next(w.value for w in at.warning if "Route: the specialized handler qwen3" in w.value)
    assert "**Why this route**" in route and md_plain('the template contains "<tool_call>" at template line') \
        in md_plain(route)
    at = app("pages/try_it_page.py", request=request)
    at.text_area(key="try_output").input(
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>").run()
    assert_clean(at)
    assert not at.error, [e.value for e in at.error]
    calls = at.table[0].value
    assert list(calls["name"]) == ["get_weather"]
    assert json.loads(calls["arguments"].iloc[0]) == {"city": "Paris"}


def test_try_it_shows_the_handler_next_to_the_autoparser_for_a_routed_template():
    request = ui.SourceRequest("text", text=QWEN3_CODER_STYLE)
    at = app("pages/try_it_page.py", request=request)
    at.text_area(key="try_output").input(
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>").run()
    assert_clean(at)
    shown = texts(at)
    assert "Handler vs autoparser" in shown
    assert "llama.cpp (handler `qwen3-coder`)" in shown and "autoparser would give" in shown
    # either both sides agree or the caption names the fields outlined as differing
    assert "The two agree on this output." in shown or "They disagree on:" in shown


def test_grammar_page_lists_where_the_handler_and_the_autoparser_differ():
    at = app("pages/grammar_page.py", request=ui.SourceRequest("text", text=QWEN3_CODER_STYLE))
    assert_clean(at)
    assert any(e.label == "Handler vs what the autoparser would give" for e in at.expander)


def test_a_try_it_link_carries_the_model_output():
    at = app("pages/try_it_page.py", request=ui.SourceRequest("example", name=CHATML))
    at.text_area(key="try_output").input(TOOL_OUTPUT).run()
    link = ui.decode_permalink(dict(at.query_params))
    assert (link.page, link.example, link.output) == ("try", CHATML, TOOL_OUTPUT)
    fresh = app(params=ui.encode_permalink(link))
    assert_clean(fresh)
    assert any(t.value == "Try it" for t in fresh.title)
    assert fresh.text_area(key="try_output").value == TOOL_OUTPUT
    assert list(fresh.table[0].value["name"]) == ["get_weather"]


@pytest.mark.parametrize("page", PAGES)
def test_the_transformers_dialect_renders_every_page(page):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state["dialect"] = "transformers"
    at.session_state["source_request"] = ui.SourceRequest("example", name=CHATML)
    at.run()
    if page != PAGES[0]:
        at.switch_page(page).run()
    assert_clean(at)
    assert not at.error, [e.value for e in at.error]


# --- the Fixtures page ------------------------------------------------------------------


def test_fixtures_page_judges_a_family_and_opens_a_fixture_in_try_it():
    at = app("pages/fixtures_page.py", request=ui.SourceRequest("example", name=CHATML))
    # the example speaks the Hermes format, so the qwen3-hermes fixtures mostly pass
    at.selectbox(key="fx_family").select("qwen3-hermes").run()
    assert_clean(at)
    metrics = {m.label: int(m.value) for m in at.metric}
    assert metrics["✓ pass"] > metrics["✗ fail"]
    # it says what it counts: by default what the Doctor counts (the models this template speaks) ...
    scope = next(md_plain(c.value) for c in at.caption if "as the Doctor counts them" in md_plain(c.value))
    assert scope.startswith(f"{sum(metrics.values())} fixtures: those of ") and "(the family has " in scope
    # ... and with the switch off every fixture of the family, naming the Doctor's count
    at.toggle(key="fx_own_models").set_value(False).run()
    metrics = {m.label: int(m.value) for m in at.metric}
    scope = next(md_plain(c.value) for c in at.caption if "every fixture of the qwen3-hermes family" in md_plain(c.value))
    assert scope.startswith(f"{sum(metrics.values())} fixtures") and "The Doctor counts" in scope
    at.radio(key="fx_show").set_value("all").run()
    pick = at.selectbox(key="fx_pick")
    assert len(pick.options) == sum(metrics.values())
    fixture_id = pick.options[0]
    pick.select(fixture_id).run()
    at.button(key=f"fx_try_{fixture_id}").click().run()
    assert_clean(at)
    assert any(t.value == "Try it" for t in at.title)
    fixture = next(f for f in load_fixtures(families=["qwen3-hermes"]) if f.id == fixture_id)
    assert at.text_area(key="try_output").value == fixture.raw_output


# --- the Compare page -------------------------------------------------------------------


def test_compare_lists_the_fields_two_templates_differ_in():
    names = examples()
    at = app("pages/compare_page.py", request=ui.SourceRequest("example", name=CHATML))
    at.selectbox(key="cmp_example").select(CHATML).run()
    assert_clean(at)
    assert any(s.value == f"Fields (0 of {s.value.split(' of ')[1].split()[0]} differ)" for s in at.subheader)
    other = next(n for n in names if n != CHATML)
    at.selectbox(key="cmp_example").select(other).run()
    assert_clean(at)
    header = next(s.value for s in at.subheader if s.value.startswith("Fields"))
    assert not header.startswith("Fields (0 ")
    table = next(h.proto.body for h in at.get("html") if "<th" in h.proto.body)
    # the ChatML example reasons in <think> tags: that marker is one of the differences
    assert "autoparser.reasoning.start" in table and "&lt;think&gt;" in table


def test_compare_with_a_pasted_template():
    at = app("pages/compare_page.py", request=ui.SourceRequest("example", name=CHATML))
    at.radio(key="cmp_kind").set_value("text").run()
    at.text_area(key="cmp_text").input(RAISES)
    at.button[0].click().run()
    assert_clean(at)
    table = next(h.proto.body for h in at.get("html") if "<th" in h.proto.body)
    assert "caps.supports_tool_calls" in table


# --- hostile templates (tests/hostile, written for the renderer's limits) ---------------------

HOSTILE = ROOT / "tests" / "hostile"


@pytest.mark.parametrize("name", ["output_flood", "memory_bomb", "recursive_macro", "undefined_call",
                                  "subclasses_item", "unknown_tag"])
def test_every_page_survives_hostile_templates(name):
    path = HOSTILE / f"{name}.jinja"
    request = ui.SourceRequest("text", text=path.read_text(encoding="utf-8"))
    for page in PAGES:
        at = app(page, request=request)
        assert_clean(at)


def test_a_runaway_template_is_not_rendered_again_on_the_request_pages():
    path = HOSTILE / "exponential_macro.jinja"
    at = app("pages/try_it_page.py", request=ui.SourceRequest("text", text=path.read_text(encoding="utf-8")))
    assert_clean(at)
    assert any("ran out of render time" in w.value for w in at.warning)


def test_thinking_off_changes_the_generation_prompt_and_bad_tools_are_an_error():
    at = app("pages/try_it_page.py", request=ui.SourceRequest("example", name=CHATML))
    first_block = next(h.proto.body for h in at.get("html") if "im_start" in h.proto.body)
    assert "&lt;think&gt;" not in first_block
    at.toggle(key="try_req_thinking").set_value(False).run()
    assert_clean(at)
    # the example closes an empty think block in the generation prompt when thinking is off
    first_block = next(h.proto.body for h in at.get("html") if "im_start" in h.proto.body)
    assert "&lt;think&gt;" in first_block and "&lt;/think&gt;" in first_block
    at.text_area(key="try_req_tools").input("[{").run()
    assert_clean(at)
    assert any("tools: invalid JSON" in e.value for e in at.error)


def test_the_probes_page_shows_which_template_line_wrote_each_span():
    at = app("pages/probes_page.py", request=ui.SourceRequest("example", name=CHATML))
    at.selectbox(key="probe_focus").set_value("T1").run()
    at.toggle(key="prov_T1").set_value(True).run()
    assert_clean(at)
    block = next(h.proto.body for h in at.get("html") if "Template lines that wrote them" in h.proto.body)
    text = sources.from_example(CHATML).text.splitlines()
    lines = [int(n) for n in re.findall(r'id="pv-T1-L(\d+)"', block)]
    assert lines, "no source line listed"
    for n in lines:  # each listed line is the template's own, and hovering a span of it highlights it
        assert f".pv-T1:has(.l{n}:hover) #pv-T1-L{n}" in block
        assert html.escape(text[n - 1]) in block
    assert 'class="pv l' in block and "template line" in block  # spans carry their line


def test_the_analysis_links_each_marker_to_its_template_line_and_the_template_page_highlights_it():
    """The Analysis page's "template line that writes it": the line's number links to the
    Template page focused on it, and the line's own text stands beside it; following the
    link highlights that line in the source."""
    source = ui.SourceRequest("example", name=CHATML).load()
    number = next(n for n, line in enumerate(source.text.splitlines(), 1) if "'<tool_call>\\n{\"name\"" in line)
    at = app("pages/analysis_page.py", request=ui.SourceRequest("example", name=CHATML))
    assert_clean(at)
    html = "\n".join(h.proto.body for h in at.get("html"))
    assert f'focus=L{number}&amp;example={CHATML}" target="_self">line {number}</a>' in html
    assert "&#x27;&lt;tool_call&gt;\\n{&quot;name&quot;: &quot;&#x27;" in html  # the line's text, escaped
    at = app(params={"page": "template", "focus": f"L{number}", "example": CHATML})
    assert_clean(at)
    assert any(c.value.startswith(f"Line {number} is highlighted") for c in at.caption)
    shown = "\n".join(h.proto.body for h in at.get("html"))
    assert shown.count('class="hll"') == 1
