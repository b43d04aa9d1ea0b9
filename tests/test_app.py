"""The Streamlit app under streamlit.testing (AppTest): every page, every example, hostile templates.

Each page must render without an exception for every built-in example, for a template
that raises on every render, and for a template with a syntax error; errors must be
shown in place (st.error), never as a crash. Key interactions must change what is shown.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from explorer import ui_support as ui

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
PAGES = ("pages/template.py", "pages/probes.py", "pages/analysis.py", "pages/grammar.py", "pages/try_it.py")
RAISES = "{{ raise_exception('boom') }}"
SYNTAX_ERROR = "{% for m in messages %}\n{{ m.content }\n{% endfor %}\n"
TIMEOUT = 120

pytestmark = pytest.mark.timeout(600)


def examples() -> list[str]:
    sources = ui.optional_module("explorer.sources", "list_examples")
    return list(sources.list_examples()) if sources else []


def app(page: str | None = None, *, request: ui.SourceRequest | None = None,
        params: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    if params:
        at.query_params.update(params)
    if request is not None:
        at.session_state["source_request"] = request
    at.run()
    if page is not None and page != "pages/template.py":
        at.switch_page(page).run()
    return at


def texts(at: AppTest) -> str:
    """Everything the page shows as text (markdown, captions, alerts, tables, html)."""
    parts: list[str] = []
    for kind in ("title", "header", "subheader", "markdown", "caption", "error", "warning", "info",
                 "success", "code", "text"):
        parts += [str(e.value) for e in getattr(at, kind)]
    parts += [str(t.value) for t in at.table]
    parts += [str(getattr(e, "proto", "")) for e in at.get("html")]
    return "\n".join(parts)


def assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


# --- every page renders ---------------------------------------------------------------


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("example", examples() or ["<no examples>"])
def test_every_page_renders_every_example(page, example):
    if example == "<no examples>":
        pytest.skip("explorer.sources has no examples in this checkout")
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
    if ui.optional_module("explorer.sources", "from_text"):
        assert "syntax" in errors.lower(), errors


# --- the Template page ------------------------------------------------------------------


def test_fresh_start_shows_a_builtin_example_with_capabilities():
    if not examples():
        pytest.skip("explorer.sources has no examples")
    at = app()
    assert_clean(at)
    assert at.session_state["source_request"].kind == "example"
    shown = texts(at)
    if ui.optional_module("explorer.caps", "detect_caps"):
        assert "supports_tool_calls" in shown
    assert "Route:" in shown
    assert at.query_params.get("example") == at.session_state["source_request"].name


def test_switching_the_example_changes_the_source():
    names = examples()
    if len(names) < 2:
        pytest.skip("needs two examples")
    at = app()
    first = at.session_state["source_request"].name
    other = next(n for n in names if n != first)
    at.selectbox(key="tpl_example").select(other).run()
    assert_clean(at)
    assert at.session_state["source_request"].name == other
    assert f"Template **{other}**" in texts(at)
    assert at.query_params.get("example") == other


def test_pasting_a_template_analyses_it():
    if not examples():
        pytest.skip("explorer.sources is absent")
    at = app()
    at.radio(key="tpl_kind").set_value("text").run()
    pasted = "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}<|end|>{% endfor %}"
    at.text_area(key="tpl_paste_text").input(pasted)
    at.button[0].click().run()  # the form's submit button
    assert_clean(at)
    request = at.session_state["source_request"]
    assert (request.kind, request.text) == ("text", pasted)
    assert "pasted template" in texts(at)
    # a short pasted template is shared by value in the permalink
    assert ui.decode_permalink(dict(at.query_params)).text == pasted


def test_syntax_error_names_the_template_line():
    if not examples():
        pytest.skip("explorer.sources is absent")
    at = app(request=ui.SourceRequest("text", text=SYNTAX_ERROR))
    errors = " ".join(e.value for e in at.error)
    assert "line 2" in errors, errors


def test_permalink_with_template_text_reproduces_the_source():
    if not examples():
        pytest.skip("explorer.sources is absent")
    text = "{{ messages[0].content }}"
    at = app(params=ui.encode_permalink(ui.Permalink(page="template", text=text)))
    assert_clean(at)
    assert at.session_state["source_request"] == ui.SourceRequest("text", text=text)


def test_permalink_with_example_and_page_opens_that_page():
    names = examples()
    if not names:
        pytest.skip("explorer.sources is absent")
    at = app(params={"example": names[-1], "page": "probes"})
    assert_clean(at)
    assert at.session_state["source_request"] == ui.SourceRequest("example", name=names[-1])
    assert any("Probes" in t.value for t in at.title)


def test_a_damaged_permalink_is_reported_in_place():
    at = app(params={"t": "z1%%%broken"})
    assert_clean(at)
    assert any("link could not be read" in e.value for e in at.error)
