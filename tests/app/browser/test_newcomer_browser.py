"""A newcomer's walk through the pages in chromium (issue 21, item 3), one page load per point:
values from a template show as written on every page (a marker ``>\\n**x** ``, reasoning
tags ``<b>…</b>``), Fixtures opens on the template's own family, an empty template is
named, the bug report reproduces the case without the app's local address, no Deploy
button, the header names the template once, Compare's B can be uploaded or fetched."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest
from test_app_browser import wait_for_app

from explorer.fixtures import match_family
from explorer.session import open_session
from explorer.sources import from_example
from explorer.ui_support.links import compress_text

pytestmark = pytest.mark.timeout(300)

# A template whose markers are Markdown and HTML: reasoning in <b>…</b>, each call opened by
# ">\n**x** " (a quote bar and bold, were they read as Markdown).
HOSTILE = (
    "{%- for m in messages %}<|im_start|>{{ m.role }}\n"
    "{% if m.reasoning_content %}<b>{{ m.reasoning_content }}</b>\n"
    "{% endif %}{% if m.tool_calls %}{% for tc in m.tool_calls %}>\n"
    '**x** {"name": "{{ tc.function.name }}", "arguments": {{ tc.function.arguments | tojson }}}\n'
    "{% endfor %}{% else %}{{ m.content }}{% endif %}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
CALL = '>\n**x** {"name": "get_weather", "arguments": {"city": "Paris"}}\n'


def _url(base: str, page: str, **params: str) -> str:
    return f"{base}/{'' if page == 'template' else page}?{urlencode({'page': page, **params})}"


def _main_text(page) -> str:
    return page.locator('[data-testid="stMain"]').inner_text()


def _no_markdown_made_of_values(page) -> None:
    """Nothing the values hold became markup: no quote bar, no bold x, no element from <b>."""
    main = page.locator('[data-testid="stMain"]')
    assert main.locator("blockquote").count() == 0
    assert main.locator("strong", has_text=re.compile(r"^x$")).count() == 0
    assert main.locator("b", has_text=re.compile(r"REASON_PART|reasoning_content")).count() == 0


def test_a_newcomer_walks_the_pages(app_url, page):
    text = compress_text(HOSTILE)

    # Template: no Deploy button; the template named once (not in the sidebar); why this
    # route, and the line that writes the call opener, its **x** as written
    page.goto(_url(app_url, "template", t=text))
    wait_for_app(page)
    page.get_by_text("The lines that write a tool call").first.wait_for()
    assert page.get_by_role("button", name="Deploy").count() == 0
    assert page.get_by_text("Deploy", exact=True).count() == 0
    assert "pasted template" not in page.locator('[data-testid="stSidebar"]').inner_text()
    header = page.get_by_text(re.compile(r"^Template pasted template \(pasted\)"))
    assert header.count() == 1
    shown = _main_text(page)
    assert "Route: the differential autoparser." in shown
    assert "line 4: **x** {\"name\": \"{{ tc.function.name }}\"" in shown
    _no_markdown_made_of_values(page)

    # Probes: the title says which output is which; the fields as steps, the marker as written
    page.goto(_url(app_url, "probes", t=text, focus="T1.parallel"))
    wait_for_app(page)
    shown = _main_text(page)
    assert "A renders user → assistant (1 tool call:" in shown and "B renders user → assistant (2 tool calls:" in shown
    page.get_by_role("cell", name=">↵**x**·", exact=True).first.wait_for()  # the table cell, as written
    _no_markdown_made_of_values(page)

    # Analysis: every marker with its template line and the line's text; <b> as written
    page.goto(_url(app_url, "analysis", t=text))
    wait_for_app(page)
    page.get_by_role("cell", name="</b>↵", exact=True).first.wait_for()
    page.get_by_text("What failed silently").first.wait_for()
    shown = _main_text(page)
    assert "\t<b>\t" in shown
    assert "line 2: {% if m.reasoning_content %}<b>{{ m.reasoning_content }}</b>" in shown
    assert "JSON_NATIVE" in shown and "the whole call is JSON" in shown  # the mode, explained where it appears
    _no_markdown_made_of_values(page)

    # Try it: the bug report carries the template and the commands, not the local address
    page.goto(_url(app_url, "try", t=text, o=compress_text(CALL)))
    wait_for_app(page)
    page.get_by_text("Bug report (Markdown for a llama.cpp issue)").first.click()
    report = page.locator('[data-testid="stCode"]', has_text="### Chat parsing of pasted template").first
    report.wait_for()
    said = report.inner_text()
    assert "- template: a pasted template (attached below; save it as template.jinja)" in said
    assert "template-explorer parse template.jinja --output-file output.txt" in said
    assert "**Request** (llama-server's request body)" in said
    assert "127.0.0.1" not in said and "localhost" not in said
    _no_markdown_made_of_values(page)

    # Fixtures: the built-in example opens on its own family, the one the Doctor picks
    own = match_family(from_example("chatml-think-tools").text, open_session(from_example("chatml-think-tools")))
    assert own is not None
    page.goto(_url(app_url, "fixtures", example="chatml-think-tools"))
    wait_for_app(page)
    page.get_by_text("This template's own family, as the Doctor picks it").first.wait_for()
    assert f"as the Doctor picks it: {own.name} ({own.slug})" in _main_text(page)
    page.wait_for_url(re.compile(rf"focus={re.escape(own.slug)}"))  # the picker's value, in the view's link

    # An empty template is named as such, with what llama.cpp does then
    page.goto(_url(app_url, "template", t=compress_text("")))
    wait_for_app(page)
    # (the health report's empty-template finding says it, or the page's own notice when health is cut short)
    page.get_by_text(re.compile(r"(This|The) template is empty")).first.wait_for()
    assert "built-in ChatML template" in _main_text(page)

    # Compare: B is chosen the ways A is
    page.goto(_url(app_url, "compare", example="chatml-think-tools"))
    wait_for_app(page)
    for label in ("Upload a file", "Hugging Face Hub", "Paste", "A built-in example"):
        page.get_by_text(label, exact=True).first.wait_for()
    page.get_by_text("Hugging Face Hub", exact=True).first.click()
    page.get_by_role("button", name="Fetch template B").wait_for()
