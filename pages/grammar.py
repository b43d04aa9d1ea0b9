"""Grammar page: the generated PEG parser rule by rule, its GBNF grammar and triggers."""

from __future__ import annotations

import streamlit as st

from pages import _shared as sh


def main() -> None:
    st.title("Grammar")
    loaded = sh.active_template()
    if loaded is None:
        sh.write_permalink("grammar", None)
        return
    source, tmpl, _ = loaded
    sh.source_caption(source)
    sh.write_permalink("grammar", source)
    if tmpl is None:
        return
    if sh.stage("explorer.generator") is None:
        sh.not_available("explorer.generator", "The generated parser and its grammar")
        return


main()
