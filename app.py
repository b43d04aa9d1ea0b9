"""Template Explorer: the Streamlit app entry point (`streamlit run app.py`).

Input: the browser session (query parameters of a permalink, widget state) and the
options after ``--`` (``--example NAME``, ``--public-url URL``: ``app_state.app_options``).
Output: the navigation between the pages in ``pages/`` and what every page shares, drawn
here before the page runs (Streamlit's multipage way: shared UI in the entry point, then
``page.run()``): the sidebar, the page title, the template header (which template, its
origin and sha256 — named once —, an empty template said as such, or why it does not load
or compile) and the page's base permalink. Each page then only displays what the
template's ``explorer.session`` computes; ``app_state`` holds the app's state and
``app_sections`` the sections several pages draw.
"""

from __future__ import annotations

import streamlit as st

import app_state as state
from explorer.errors import ExplorerError

PAGES = (
    ("pages/template_page.py", "Template", "template", ":material/description:"),
    ("pages/probes_page.py", "Probes", "probes", ":material/compare:"),
    ("pages/analysis_page.py", "Analysis", "analysis", ":material/account_tree:"),
    ("pages/grammar_page.py", "Grammar", "grammar", ":material/schema:"),
    ("pages/try_it_page.py", "Try it", "try", ":material/play_arrow:"),
    ("pages/fixtures_page.py", "Fixtures", "fixtures", ":material/fact_check:"),
    ("pages/compare_page.py", "Compare", "compare", ":material/difference:"),
    ("pages/doctor_page.py", "Doctor", "doctor", ":material/healing:"),
)


def main() -> None:
    st.set_page_config(page_title="Template Explorer", page_icon=":material/extension:", layout="wide")
    pages = {
        url: st.Page(path, title=title, url_path=url, icon=icon, default=(url == "template"))
        for path, title, url, icon in PAGES
    }
    nav = st.navigation(list(pages.values()))
    current = next((url for url, page in pages.items() if page.url_path == nav.url_path), "template")
    if nav.url_path == "":
        current = "template"
    state.apply_permalink(pages.get, current)
    with st.sidebar:  # the template is named once, in the header below the title
        st.caption("llama.cpp autoparser (commit 0c1e5709), step by step.")
        state.dialect_picker()
    st.title(next(title for _, title, url, _ in PAGES if url == current))
    try:
        state.template_header()
        state.write_permalink(current)
        nav.run()
    except ExplorerError as exc:  # a page let one through: still an error in place, not a crash page
        state.show_error(exc)


# Streamlit runs this file as __main__; the deep-link entries in pages/ import it as ``app``.
if __name__ == "__main__":
    main()
