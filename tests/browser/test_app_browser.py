"""End-to-end checks of the running app in a real (headless) chromium."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.timeout(240)


def wait_for_app(page) -> None:
    """Wait until the app has connected and its script run has finished."""
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="running"], '
                           '[data-testid="stApp"][data-test-script-state="notRunning"]')
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]')
    page.locator("h1").first.wait_for()


def test_template_page_shows_the_example_and_its_capabilities(app_url, page):
    page.goto(app_url)
    wait_for_app(page)
    assert page.get_by_role("heading", name="Template").first.is_visible()
    page.get_by_text("Capabilities").first.wait_for()
    cell = page.get_by_role("cell", name="supports_tool_calls", exact=True)
    cell.wait_for()
    assert cell.is_visible()
    assert page.get_by_text("chatml-think-tools").first.is_visible()
    # the source is shown highlighted with line numbers
    assert page.locator(".highlight").first.is_visible()
