"""End-to-end checks of the running app in a real (headless) chromium."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest

pytestmark = pytest.mark.timeout(300)

TOOL_OUTPUT = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
PASTED = (
    "{%- for m in messages %}<|{{ m.role }}|>{{ m.content }}<|end|>{% endfor %}"
    "{%- if add_generation_prompt %}<|assistant|>{% endif %}"
)


def wait_for_app(page) -> None:
    """Wait until the app has connected and its script run has finished."""
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="running"], '
                           '[data-testid="stApp"][data-test-script-state="notRunning"]')
    page.wait_for_timeout(300)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]')
    page.locator("h1").first.wait_for()


def goto_page(page, title: str) -> None:
    page.get_by_role("link", name=title).first.click()
    page.get_by_role("heading", name=title).first.wait_for()
    wait_for_app(page)


def test_template_page_shows_the_example_and_its_capabilities(app_url, page):
    page.goto(app_url)
    wait_for_app(page)
    assert page.get_by_role("heading", name="Template").first.is_visible()
    cell = page.get_by_role("cell", name="supports_tool_calls", exact=True)
    cell.wait_for()
    assert cell.is_visible()
    assert page.get_by_text("chatml-think-tools").first.is_visible()
    # the source is shown highlighted with line numbers, styled by the scoped stylesheet
    # that travels with it (Streamlit's sanitiser must have kept the <style> block)
    assert page.locator(".tx-hl").first.is_visible()
    keyword = page.locator(".tx-hl .k").first
    assert keyword.evaluate("e => getComputedStyle(e).color") == "rgb(0, 128, 0)"  # default style's Keyword
    assert page.locator(".tx-hl span.linenos").count() > 3


def test_pasting_a_template_shows_it_and_its_probe_diffs(app_url, page):
    page.goto(app_url)
    wait_for_app(page)
    page.get_by_text("Paste", exact=True).click()
    area = page.get_by_role("textbox", name="Jinja chat template")
    area.wait_for()
    area.fill(PASTED)
    page.get_by_role("button", name="Use this template").click()
    page.get_by_text("pasted template").first.wait_for()
    wait_for_app(page)
    assert page.get_by_text("Route: the differential autoparser").first.is_visible()
    goto_page(page, "Probes")
    # the assistant-start probe: output B adds the assistant turn, tinted green in bold
    strong = page.locator("span[style*='background:#86d986']")
    strong.first.wait_for()
    assert "A_ASST_MSG" in " ".join(strong.all_inner_texts())


def test_parsing_an_output_shows_its_tool_call(app_url, page):
    page.goto(f"{app_url}/try?example=chatml-think-tools&page=try")
    wait_for_app(page)
    area = page.get_by_role("textbox", name="Raw model output (verbatim, as the model generated it)")
    area.fill(TOOL_OUTPUT)
    area.press("Control+Enter")
    # the box starts with the template's own round-trip reply (a get_weather call too), so
    # wait for this output's arguments, not just any get_weather cell
    page.get_by_role("cell", name='{"city": "Paris"}', exact=True).first.wait_for()
    wait_for_app(page)
    assert page.get_by_role("cell", name="get_weather", exact=True).first.is_visible()


def test_a_permalink_reproduces_the_view_in_a_fresh_context(app_url, new_context):
    first = new_context()
    page = first.pages[0] if first.pages else first.new_page()
    page.goto(app_url)
    wait_for_app(page)
    page.get_by_label("Example template").click()
    page.get_by_role("option", name="tagged-parameters").click()
    page.get_by_text("Template tagged-parameters").first.wait_for()
    wait_for_app(page)
    goto_page(page, "Probes")
    page.wait_for_url(re.compile(r"example=tagged-parameters"))
    link = page.url
    assert parse_qs(urlparse(link).query)["page"] == ["probes"]

    second = new_context()
    fresh = second.pages[0] if second.pages else second.new_page()
    fresh.goto(link)
    wait_for_app(fresh)
    fresh.get_by_role("heading", name="Probes").first.wait_for()
    assert fresh.get_by_text("Template tagged-parameters").first.is_visible()


def test_a_marker_links_to_the_probe_that_produced_it(app_url, page):
    page.goto(f"{app_url}/analysis?example=chatml-think-tools&page=analysis")
    wait_for_app(page)
    link = page.locator("table a", has_text="R1").first
    link.wait_for()
    link.click()
    page.wait_for_url(re.compile(r"/probes\?"))
    wait_for_app(page)
    page.get_by_role("heading", name=re.compile(r"^R1 · ")).first.wait_for()
    assert page.get_by_role("heading", name=re.compile(r"^T1 · ")).count() == 0


def test_a_page_link_is_the_first_request_of_a_fresh_server(fresh_app_url, page):
    # Streamlit treats pages/ as an old-style pages folder until app.py has run once;
    # the page must still go through app.py (permalink, focus, sidebar navigation)
    page.goto(f"{fresh_app_url}/probes?example=tagged-parameters&page=probes&focus=T1")
    wait_for_app(page)
    page.get_by_role("heading", name=re.compile(r"^T1 · ")).first.wait_for()
    assert page.get_by_role("heading", name=re.compile(r"^R1 · ")).count() == 0
    assert page.get_by_text("Template tagged-parameters").first.is_visible()
    assert page.get_by_role("link", name="Try it").first.is_visible()
    # Streamlit's first run sends "Page not found" (a modal that makes the page inert)
    # unless a file in pages/ is named like the URL; pages/probes.py hands over to app.py
    assert page.get_by_text("Page not found").count() == 0
