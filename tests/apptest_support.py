"""What the AppTest tests share: the app's entry point and a page opened on a built-in
example the way a user gets there (the source chosen, app.py run, the page switched to)."""

from __future__ import annotations

import re

from streamlit.testing.v1 import AppTest

from explorer import ui_support as ui
from oracle_data import PROJECT_ROOT

APP = str(PROJECT_ROOT / "app.py")
TIMEOUT = 120


def md_plain(markdown: object) -> str:
    """What a Markdown source shows once its backslash escapes are read (the pages escape
    every value with ``ui.md_escape``; AppTest hands back the source)."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", str(markdown))


def not_health(errors: object) -> list[str]:
    """The error alerts other than the template's health banner (said on the Template page)."""
    return [e.value for e in errors if not e.value.startswith("**Template health.**")]  # type: ignore[attr-defined]


def open_page(page: str, example: str, *, text: str | None = None) -> AppTest:
    """``pages/<page>`` of the app with the built-in example ``example`` chosen (or, with
    ``text``, that template pasted)."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state["source_request"] = (ui.SourceRequest("text", text=text) if text is not None
                                          else ui.SourceRequest("example", name=example))
    at.run()
    at.switch_page(f"pages/{page}").run()
    return at
