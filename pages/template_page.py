"""Template page: choose a chat template, see its source, capabilities and route.

Input: the user's choice of source (example, paste, upload, Hub; the named variant) and
the chosen template's ``TemplateSession``. Output: the chooser, the route banner with
every handler test, the capability table, a share link and the highlighted source (its
error line marked when it does not compile; the edited text while a what-if edits it).
"""

from __future__ import annotations

import re
from types import MappingProxyType

import streamlit as st

import app_state as sh
from explorer import sources
from explorer import ui_support as ui
from explorer.apply import CHATML_TEMPLATE_SRC
from explorer.caps import Caps
from explorer.session import TemplateSession
from explorer.sources.model import TemplateSource
from explorer.ui_support.analysis_view import call_lines, empty_template_note, route_reason
from explorer.ui_support.whatif_link import EDIT_NOTE

KINDS = MappingProxyType(
    {"example": "Built-in example", "text": "Paste", "upload": "Upload a file", "hub": "Hugging Face Hub"}
)
CAP_FIELDS = (
    "supports_tools",
    "supports_tool_calls",
    "supports_system_role",
    "supports_parallel_tool_calls",
    "supports_preserve_reasoning",
    "supports_reasoning_effort",
    "supports_string_content",
    "supports_typed_content",
    "supports_object_arguments",
)


def _choose_example(request: ui.SourceRequest | None) -> None:
    names = list(sources.list_examples())
    if not names:
        st.warning("No built-in examples are installed.")
        return
    current = request.name if request is not None and request.kind == "example" else None
    index = names.index(current) if current in names else None

    def picked() -> None:
        name = st.session_state["tpl_example"]
        if name:
            sh.set_request(ui.SourceRequest("example", name=name))

    st.selectbox("Example template", names, index=index, key="tpl_example", on_change=picked,
                 placeholder="Choose an example")
    infos = {i.name: i for i in sources.example_info()}
    if current in infos and infos[current].description:
        st.caption(infos[current].description)


def _use_pasted() -> None:
    sh.set_request(ui.SourceRequest("text", text=st.session_state["tpl_paste_text"]))


def _choose_paste(request: ui.SourceRequest | None, current_text: str) -> None:
    with st.form("tpl_paste_form"):
        st.text_area(
            "Jinja chat template", value=current_text, height=260, key="tpl_paste_text",
            help="Paste the template text itself (the chat_template string, unescaped).",
        )
        # a callback runs before app.py draws the sidebar, so one script run shows the new
        # template everywhere; st.rerun() here cost a second run, and a page link clicked
        # between the two runs could leave the browser waiting on a run that never ends
        st.form_submit_button("Use this template", type="primary", on_click=_use_pasted)


def _use_upload() -> None:
    upload = st.session_state["tpl_upload"]
    if upload is None:
        return
    data = upload.getvalue()
    request = sh.current_request()
    same = request is not None and request.kind == "upload" and request.name == upload.name and request.data == data
    if not same:
        sh.set_request(ui.SourceRequest("upload", name=upload.name, data=data))


def _choose_upload() -> None:
    # a callback, as for pasting: app.py's header, drawn before this page, shows the upload
    st.file_uploader(
        "A .jinja file, tokenizer_config.json, chat_template.json or a .gguf (a truncated header is enough)",
        type=["jinja", "j2", "json", "gguf", "txt"],
        key="tpl_upload", on_change=_use_upload,
    )


HUB_MISSING_REPO_KEY = "_tpl_hub_missing_repo"


def _use_hub() -> None:
    repo = st.session_state["tpl_hub_repo"].strip()
    if not repo:
        st.session_state[HUB_MISSING_REPO_KEY] = True
        return
    sh.set_request(ui.SourceRequest("hub", name=repo, revision=st.session_state["tpl_hub_rev"].strip() or None,
                                    variant=st.session_state["tpl_hub_variant"].strip() or None))


def _choose_hub(request: ui.SourceRequest | None) -> None:
    hub = request if request is not None and request.kind == "hub" else None
    with st.form("tpl_hub_form"):
        cols = st.columns([3, 2, 2])
        cols[0].text_input("Repository id", value=hub.name if hub else "", placeholder="owner/model",
                           key="tpl_hub_repo")
        cols[1].text_input("Revision (optional)", value=(hub.revision or "") if hub else "",
                           placeholder="main", key="tpl_hub_rev")
        cols[2].text_input("Named template (optional)", value=(hub.variant or "") if hub else "",
                           placeholder="default / tool_use", key="tpl_hub_variant")
        # a callback, as for pasting: one script run, no st.rerun() between two
        st.form_submit_button("Fetch", type="primary", on_click=_use_hub)
        if st.session_state.pop(HUB_MISSING_REPO_KEY, False):
            st.error("Enter a repository id such as owner/model.")


def _chooser(loaded: TemplateSource | None) -> None:
    request = sh.current_request()
    kinds = list(KINDS)
    default = request.kind if request is not None else "example"
    if "tpl_kind" not in st.session_state:
        st.session_state["tpl_kind"] = default
    kind = st.radio("Source", kinds, format_func=KINDS.get, horizontal=True, key="tpl_kind")
    if kind == "example":
        _choose_example(request)
    elif kind == "text":
        current_text = loaded.text if loaded is not None else request.text if request is not None else ""
        _choose_paste(request, current_text)
    elif kind == "upload":
        _choose_upload()
    else:
        _choose_hub(request)


def _variant_picker(source: TemplateSource) -> None:
    variants = list(source.variants)
    request = sh.current_request()
    if len(variants) < 2 or request is None:
        return
    current = source.variant if source.variant in variants else variants[0]

    def picked() -> None:
        sh.set_request(request.with_variant(st.session_state["tpl_variant"]))

    st.selectbox("Named template variant", variants, index=variants.index(current), key="tpl_variant",
                 on_change=picked, help="tokenizer_config.json can hold several named chat templates.")


def _routing_banner(session: TemplateSession) -> None:
    routing = session.routing
    reason = route_reason(routing)
    if routing.specialized:
        why = "".join(f"\n- {ui.md_escape(d)}" for d in reason.deciding)
        st.warning(
            f"**{ui.md_escape(reason.headline())}** The autoparser analysis on the other pages is what llama.cpp "
            "computes too, but it does not build this parser.\n\n**Why this route**: the handler's substring tests "
            f"on the template's text:{why}\n\nThese are tests on the text anywhere in the template (a system "
            "prompt's example counts as much as the line that writes a call), not where the calls are written.",
            icon=":material/alt_route:",
        )
    else:
        st.success(f"**{ui.md_escape(reason.headline())}**", icon=":material/science:")
    writes = [] if session.render_budget_exhausted else (sh.guarded(lambda: call_lines(session), session.text,
                                                                    context="tracing the template lines") or [])
    if writes:
        shown = "".join(f"\n- {ui.md_code(r.field)} = {ui.md_code(ui.marker_text(str(r.value)))}: "
                        + "; ".join(ui.md_escape(w.describe()) for w in r.lines) for r in writes)
        st.markdown("**The lines that write a tool call** (the markers that open one, and the template line that "
                    f"wrote each in its probe; the Analysis page has every marker):{shown}")
    with st.expander("Every handler test, in llama.cpp's order"):
        rows = []
        for check in routing.checks:
            for e in check.evidence:
                rows.append({
                    "handler": check.rule,
                    "test": ("contains " if e.wanted else "lacks ") + repr(e.needle),
                    "result": "✓" if e.satisfied else "✗",
                    "line": "" if e.line is None else str(e.line),
                    "template line": (e.source_line or "").strip()[:120],
                })
        if rows:
            sh.table(rows)
        if routing.note:
            st.caption(ui.md_escape(routing.note))
        patches = [p for p in routing.patches if p.triggered]
        for p in patches:
            st.markdown(f"- source patch **{ui.md_escape(p.name)}** "
                        f"({'applied' if p.replaced else 'triggered, text not found'}): {ui.md_escape(p.reason)}")
        work = [w for w in routing.workarounds if w.applies]
        if work:
            st.markdown("Message workarounds llama.cpp applies to requests: " +
                        ", ".join(f"`{w.name}` ({ui.md_escape(w.reason)})" for w in work))


def _caps_table(caps: Caps) -> None:
    st.subheader("Capabilities")
    values = caps.to_json()
    rows = [{"capability": name, "detected": "✓ true" if values.get(name) else "✗ false"} for name in CAP_FIELDS]
    sh.table(rows)
    st.caption("Detected the way llama.cpp does: by rendering probe conversations, not by reading the code.")


def focus_line(focus: str | None) -> int | None:
    """A link's focus ``L12``: the template line to highlight."""
    match = re.fullmatch(r"L(\d+)", focus or "")
    return int(match.group(1)) if match else None


def main() -> None:
    incoming = sh.take_incoming_focus()
    loaded = sh.active()
    _chooser(loaded.source)
    source = loaded.source
    if source is None:
        return
    _variant_picker(source)
    query = sh.write_permalink("template")
    if loaded.session is not None:
        sh.health_banner(loaded.session)
        _routing_banner(loaded.session)
    left, right = st.columns([3, 2])
    with right:
        if loaded.session is not None:
            _caps_table(loaded.session.caps)
        url = sh.permalink_url(query)
        st.subheader("Share")
        if url:
            st.code(url, language=None)
            if loaded.whatif.text is not None:
                st.caption(EDIT_NOTE)
        else:
            st.caption("This template is too long to fit in a link; share the file instead.")
    with left:
        edited = loaded.whatif.text is not None and loaded.whatif_error is None
        st.subheader("Source (the what-if's edited text)" if edited else "Source")
        if edited:
            st.caption("Edited on the Analysis page's What if… section; the route and capabilities beside it are "
                       "the edited text's. Clear the what-if above to see the original.")
        location = loaded.compile_error.location if loaded.compile_error is not None else None
        hl = (location.line,) if location is not None and location.line else ()
        focused = focus_line(incoming)
        if focused is not None and not hl:
            hl = (focused,)
            st.caption(f"Line {focused} is highlighted: the line a link pointed at (the Analysis page links each "
                       "marker to the line that writes it).")
        text = loaded.session.text if edited and loaded.session is not None else source.text
        if empty_template_note(text) is not None:
            st.caption("The template's text is empty or only the word chatml; llama.cpp renders this built-in "
                       "ChatML template in its place:")
            text = CHATML_TEMPLATE_SRC
        st.html(sh.highlighted(text, "jinja", True, hl))


sh.require_app()
main()
