"""Try it page: parse raw model output with the parser llama.cpp builds for this template."""

from __future__ import annotations

import streamlit as st

from pages import _shared as sh


def main() -> None:
    st.title("Try it")
    loaded = sh.active_template()
    if loaded is None:
        sh.write_permalink("try", None)
        return
    source, tmpl, _ = loaded
    sh.source_caption(source)
    sh.write_permalink("try", source)
    if tmpl is None:
        return
    if sh.stage("explorer.generator") is None:
        sh.not_available("explorer.generator", "Parsing model output (the parser is built from the analysis)")
        return


main()
