"""The what-if of issue 14 in a real (headless) chromium: edit a marker on the Analysis page,
see Grammar and Try it change, export the workaround lambda and the patched template.

Expected values are llama.cpp's rules: the tool-call opener is the first literal of the
GBNF ``tool-call`` rule, an output opened by it parses as a call, and the lambda sets the
field with llama.cpp's own C++ spelling.
"""

from __future__ import annotations

import json
from urllib.parse import urlencode

import pytest
from test_app_browser import goto_page, wait_for_app

from explorer.sources.examples import EXAMPLES_DIR

pytestmark = pytest.mark.timeout(300)

EXAMPLE = "chatml-think-tools"
NEW_CALL = '<call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'


def shown_grammar(page) -> str:
    blocks = page.locator(".tx-hl")
    blocks.first.wait_for()
    return "\n".join(blocks.all_inner_texts())


def test_whatif_marker_reaches_grammar_and_try_it_and_exports_lambda_and_patch(app_url, page, tmp_path):
    page.goto(f"{app_url}/analysis?example={EXAMPLE}&page=analysis")
    wait_for_app(page)
    page.get_by_role("heading", name="What if…").first.wait_for()
    page.get_by_label("Analysis field").click()
    page.keyboard.type("per_call_start")
    page.get_by_role("option", name="tools.format.per_call_start").click()
    wait_for_app(page)
    value = page.get_by_role("textbox", name="Value (JSON, or raw text, as --set reads it)")
    assert value.input_value() == '"<tool_call>\\n"'  # the box starts with the field's own value
    value.fill('"<call>\\n"')
    value.press("Enter")
    wait_for_app(page)
    page.get_by_role("button", name="Apply", exact=True).click()
    page.get_by_text("What-if active: 1 override").first.wait_for()
    wait_for_app(page)
    page.get_by_role("heading", name="What changed").first.wait_for()
    assert page.get_by_text("what a llama.cpp workaround lambda does").first.is_visible()

    with page.expect_download() as info:
        page.get_by_role("button", name="Download the workaround lambda (.cpp)").click()
    lam = (tmp_path / "lambda.cpp")
    info.value.save_as(lam)
    cpp = lam.read_text(encoding="utf-8")
    assert 'analysis.tools.format.per_call_start = "<call>\\n";' in cpp
    assert "tmpl.src.find(" in cpp and "std::string::npos" in cpp

    goto_page(page, "Grammar")
    page.get_by_text("What-if active: 1 override").first.wait_for()
    grammar = shown_grammar(page)
    assert 'tool-call ::= "<call>\\n"' in grammar and '"<tool_call>\\n"' not in grammar

    goto_page(page, "Try it")
    area = page.get_by_role("textbox", name="Raw model output (verbatim, as the model generated it)")
    area.fill(NEW_CALL)
    area.press("Control+Enter")
    page.get_by_role("cell", name='{"city": "Paris"}', exact=True).first.wait_for()
    wait_for_app(page)
    assert page.get_by_role("cell", name="get_weather", exact=True).first.is_visible()

    goto_page(page, "Analysis")
    original = (EXAMPLES_DIR / f"{EXAMPLE}.jinja").read_text(encoding="utf-8")
    edited = original.replace("Template Explorer example:", "Template Explorer example (edited):")
    page.get_by_text("Edit the template text in place").click()
    box = page.get_by_role("textbox", name="Template text (what-if)")
    box.fill(edited)
    box.press("Control+Enter")
    wait_for_app(page)
    page.get_by_role("button", name="Apply the edited text").click()
    page.get_by_text("What-if active: 1 override / edited template").first.wait_for()
    wait_for_app(page)
    assert page.get_by_role("button", name="Download the unified diff (.diff)").is_visible()
    with page.expect_download() as info:
        page.get_by_role("button", name="Download the patched template (.jinja)").click()
    patched = tmp_path / "patched.jinja"
    info.value.save_as(patched)
    assert patched.read_text(encoding="utf-8") == edited

    page.get_by_role("button", name="Clear the what-if").click()
    wait_for_app(page)
    assert page.get_by_text("What-if active").count() == 0


def test_a_link_with_a_request_change_opens_the_grammar_page_for_the_changed_request(app_url, page):
    # parallel_tool_calls false: llama.cpp's tool-call rule takes one call, not a comma-separated list
    query = urlencode({"example": EXAMPLE, "page": "grammar", "rq": json.dumps({"parallel_tool_calls": False})})
    page.goto(f"{app_url}/grammar?{query}")
    wait_for_app(page)
    page.get_by_text("What-if active: request change").first.wait_for()
    grammar = shown_grammar(page)
    assert 'tool-call ::= "<tool_call>\\n" space (tool-get-weather) space "</tool_call>"' in grammar
    assert page.get_by_text("What-if request change on top of these controls").first.is_visible()
    page.get_by_role("button", name="Clear the what-if").click()
    page.get_by_text("What-if active").first.wait_for(state="detached")
    assert '(space "," space (tool-get-weather))*' in shown_grammar(page)
