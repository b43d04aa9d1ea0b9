"""Compare page: the current template (A) against another one (B), field by field.

Input: the chosen template's ``TemplateSession`` (A) and a second source the user picks
the ways A is picked (another named variant, an example, pasted text, an uploaded file, a
Hugging Face Hub repository) opened as its own session (B). Output:
``TemplateSession.compare``'s fields (route, capabilities, every analysis field) with the
changed rows highlighted, and the prompts both render for the standard request.
"""

from __future__ import annotations

import streamlit as st

import app_state as sh
from explorer import sources
from explorer import ui_support as ui
from explorer.session import SessionComparison, TemplateSession, open_session
from explorer.sources.model import TemplateSource
from explorer.ui_support.changes import changes_table_html

COMPARE_KEY = "compare_request"


B_KINDS = {"variant": "Another named variant of A", "example": "A built-in example", "text": "Paste",
           "upload": "Upload a file", "hub": "Hugging Face Hub"}


def _stored(kind: str) -> ui.SourceRequest | None:
    stored = st.session_state.get(COMPARE_KEY)
    return stored if isinstance(stored, ui.SourceRequest) and stored.kind == kind else None


def _use_b_upload() -> None:
    upload = st.session_state.get("cmp_upload")
    if upload is not None:
        st.session_state[COMPARE_KEY] = ui.SourceRequest("upload", name=upload.name, data=upload.getvalue())


def _choose_b(source_a: TemplateSource, request_a: ui.SourceRequest) -> ui.SourceRequest | None:
    """Template B, chosen the ways A is (an example, a paste, an upload, the Hub) or A's other variant."""
    current = st.session_state.get(COMPARE_KEY)
    options = ["example", "text", "upload", "hub"]
    variants = [v for v in source_a.variants if v != source_a.variant]
    if variants:
        options.insert(0, "variant")
    kind = st.radio("Template B", options, format_func=B_KINDS.get, horizontal=True, key="cmp_kind")
    if kind == "variant":
        pick = st.selectbox("Variant", variants, key="cmp_variant")
        return request_a.with_variant(pick)
    if kind == "example":
        names = list(sources.list_examples())
        pick = st.selectbox("Example", names, key="cmp_example",
                            index=names.index(current.name) if current and current.kind == "example"
                            and current.name in names else min(1, len(names) - 1))
        return ui.SourceRequest("example", name=pick)
    if kind == "upload":
        st.file_uploader("Template B: a .jinja file, tokenizer_config.json, chat_template.json or a .gguf",
                         type=["jinja", "j2", "json", "gguf", "txt"], key="cmp_upload", on_change=_use_b_upload)
        return _stored("upload")
    if kind == "hub":
        hub = _stored("hub")
        with st.form("cmp_hub"):
            cols = st.columns([3, 2, 2])
            repo = cols[0].text_input("Repository id", value=hub.name if hub else "", placeholder="owner/model",
                                      key="cmp_hub_repo")
            rev = cols[1].text_input("Revision (optional)", value=(hub.revision or "") if hub else "",
                                     placeholder="main", key="cmp_hub_rev")
            variant = cols[2].text_input("Named template (optional)", value=(hub.variant or "") if hub else "",
                                         placeholder="default / tool_use", key="cmp_hub_variant")
            if st.form_submit_button("Fetch template B"):
                if repo.strip():
                    st.session_state[COMPARE_KEY] = ui.SourceRequest("hub", name=repo.strip(),
                                                                     revision=rev.strip() or None,
                                                                     variant=variant.strip() or None)
                else:
                    st.error("Enter a repository id such as owner/model.")
        return _stored("hub")
    with st.form("cmp_paste"):
        text = st.text_area("Template B text", value=current.text if current and current.kind == "text" else "",
                            height=200, key="cmp_text")
        if st.form_submit_button("Compare with this template"):
            st.session_state[COMPARE_KEY] = ui.SourceRequest("text", text=text)
    return _stored("text")


def _side_b(request: ui.SourceRequest) -> tuple[TemplateSource, TemplateSession] | None:
    """Template B's source and session, errors shown in place."""
    source = sh.guarded(lambda: sh.load_source(request), context="loading template B")
    if source is None:
        return None
    session = sh.guarded(lambda: open_session(source, sh.dialect()), source.text, context="compiling template B")
    return None if session is None else (source, session)


def _prompts(comparison: SessionComparison) -> None:
    if comparison.prompts_skipped:
        st.warning("Prompt comparison is skipped: a template ran out of render time during the probes.")
        return
    st.subheader("The standard request, rendered by each")
    st.toggle("enable_thinking", value=True, key="cmp_thinking")
    if comparison.prompt_error is not None:
        sh.show_error(comparison.prompt_error, context="rendering the standard request")
        return
    for what, a, b in comparison.prompts:
        view = ui.pair_view(a, b, context=200)
        st.markdown(f"**{what[0].upper() + what[1:]}**" + (" (identical)" if a == b else ""))
        c1, c2 = st.columns(2)
        c1.html(ui.mono_block(view.html_a))
        c2.html(ui.mono_block(view.html_b))


def main() -> None:
    st.caption("The current template (A) beside another (B): route, capabilities, every analysis field, "
               "and the prompts they render. Changed rows are highlighted.")
    loaded = sh.active()
    if loaded.source is None or loaded.request is None:
        return
    source_a, session_a = loaded.source, loaded.session
    st.markdown(f"**A**: {ui.md_escape(source_a.display_name)} ({ui.md_escape(source_a.origin)})")
    if session_a is None:
        return
    request_b = _choose_b(source_a, loaded.request)
    if request_b is None:
        st.info("Choose, paste, upload or fetch template B.")
        return
    side_b = _side_b(request_b)
    if side_b is None:
        return
    source_b, session_b = side_b
    st.markdown(f"**B**: {ui.md_escape(source_b.display_name)} ({ui.md_escape(source_b.origin)})"
                + (" (same text as A)" if source_b.sha256 == source_a.sha256 else ""))
    for label, side in (("A", session_a), ("B", session_b)):
        if side.analysis_error is not None:  # its analysis fields are then missing from the table
            sh.show_error(side.analysis_error, side.text, context=f"analysing {label}")
    # the toggle is drawn with the prompts it changes, below the fields: its value is read here
    thinking = st.session_state.get("cmp_thinking", True)
    comparison = sh.guarded(lambda: session_a.compare(session_b, enable_thinking=thinking), context="comparing")
    if comparison is None:
        return
    changes = list(comparison.fields)
    differing = len(comparison.changed)
    st.subheader(f"Fields ({differing} of {len(changes)} differ)")
    only = st.toggle("Only the differences", value=True, key="cmp_only")
    st.html(changes_table_html(changes, only))
    _prompts(comparison)


sh.require_app()
main()
