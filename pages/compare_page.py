"""Compare page: the current template (A) against another one (B), field by field."""

from __future__ import annotations

import html
import json
from typing import Any

import streamlit as st

from explorer import ui_support as ui
from explorer.errors import ExplorerError
from pages import _shared as sh

COMPARE_KEY = "compare_request"


def _choose_b(sources: Any, source_a: Any) -> ui.SourceRequest | None:
    current = st.session_state.get(COMPARE_KEY)
    options = ["example", "text"]
    variants = [v for v in (getattr(source_a, "variants", ()) or ()) if v != source_a.variant]
    if variants:
        options.insert(0, "variant")
    labels = {"variant": "Another named variant of A", "example": "A built-in example", "text": "Paste"}
    kind = st.radio("Template B", options, format_func=labels.get, horizontal=True, key="cmp_kind")
    if kind == "variant":
        pick = st.selectbox("Variant", variants, key="cmp_variant")
        return sh.current_request().with_variant(pick)
    if kind == "example":
        names = list(sources.list_examples())
        pick = st.selectbox("Example", names, key="cmp_example",
                            index=names.index(current.name) if current and current.kind == "example"
                            and current.name in names else min(1, len(names) - 1))
        return ui.SourceRequest("example", name=pick)
    with st.form("cmp_paste"):
        text = st.text_area("Template B text", value=current.text if current and current.kind == "text" else "",
                            height=200, key="cmp_text")
        if st.form_submit_button("Compare with this template"):
            st.session_state[COMPARE_KEY] = ui.SourceRequest("text", text=text)
    stored = st.session_state.get(COMPARE_KEY)
    return stored if stored is not None and stored.kind == "text" else None


def _side(request: ui.SourceRequest, label: str) -> tuple[Any, Any, Any, Any] | None:
    """(source, compiled, caps, analysis) of one side, errors shown in place."""
    source = sh.guarded(lambda: sh.load_source(request), context=f"loading template {label}")
    if source is None:
        return None
    try:
        tmpl = sh.compiled(source)
    except ExplorerError as exc:
        sh.show_error(exc, source.text, context=f"compiling template {label}")
        return None
    caps = sh.guarded(lambda: sh.caps(tmpl), source.text, context=f"capabilities of {label}")
    analysis = sh.guarded(lambda: sh.analysis(tmpl), source.text, context=f"analysing {label}")
    return source, tmpl, caps, analysis


def _cell(value: Any) -> str:
    if isinstance(value, str):
        return ui.marker_html(value)
    if isinstance(value, list):
        return " ".join(_cell(v) for v in value) or "∅"
    return html.escape(json.dumps(value))


def _changes_table(changes: list[ui.FieldChange], only_changed: bool) -> str:
    cell = 'style="padding:3px 8px;border-bottom:1px solid #eee;vertical-align:top"'
    rows = []
    for c in changes:
        if only_changed and c.same:
            continue
        mark = "" if c.same else ' style="background:#fff4d6"'
        rows.append(f"<tr{mark}><td {cell}><code>{html.escape(c.field)}</code></td>"
                    f"<td {cell}>{_cell(c.a)}</td><td {cell}>{_cell(c.b)}</td></tr>")
    if not rows:
        return "<i>no differences</i>"
    head = "".join(f"<th {cell} align=left>{h}</th>" for h in ("field", "A", "B"))
    return f'<table style="border-collapse:collapse;font-size:13px;width:100%"><tr>{head}</tr>{"".join(rows)}</table>'


def _prompts(tmpl_a: Any, tmpl_b: Any, caps_a: Any, caps_b: Any) -> None:
    apply_mod = sh.stage("explorer.apply")
    if apply_mod is None:
        sh.not_available("explorer.apply", "Prompt comparison")
        return
    st.subheader("The standard request, rendered by each")
    thinking = st.toggle("enable_thinking", value=True, key="cmp_thinking")
    req = apply_mod.standard_request(thinking)
    out_a = sh.guarded(lambda: apply_mod.apply_request(tmpl_a, req, caps=caps_a), context="rendering A")
    out_b = sh.guarded(lambda: apply_mod.apply_request(tmpl_b, req, caps=caps_b), context="rendering B")
    if out_a is None or out_b is None:
        return
    for title, a, b in (("Prompt", out_a.prompt, out_b.prompt),
                        ("Generation prompt", out_a.generation_prompt, out_b.generation_prompt)):
        view = ui.pair_view(a, b, context=200)
        st.markdown(f"**{title}**" + (" (identical)" if a == b else ""))
        c1, c2 = st.columns(2)
        c1.html(ui.mono_block(view.html_a))
        c2.html(ui.mono_block(view.html_b))


def main() -> None:
    st.title("Compare")
    st.caption("The current template (A) beside another (B): route, capabilities, every analysis field, "
               "and the prompts they render. Changed rows are highlighted.")
    sources = sh.stage("explorer.sources")
    loaded = sh.active_template()
    if loaded is None or sources is None:
        sh.write_permalink("compare", None)
        return
    source_a, tmpl_a, _ = loaded
    sh.write_permalink("compare", source_a)
    st.markdown(f"**A**: {source_a.display_name}")
    if tmpl_a is None:
        return
    if sh.stage("explorer.analysis") is None or sh.stage("explorer.caps") is None:
        sh.not_available("explorer.analysis", "Comparing analyses")
        return
    request_b = _choose_b(sources, source_a)
    if request_b is None:
        st.info("Choose or paste template B.")
        return
    side_a = _side(sh.current_request(), "A")
    side_b = _side(request_b, "B")
    if side_a is None or side_b is None:
        return
    source_b, tmpl_b, caps_b, analysis_b = side_b
    _, _, caps_a, analysis_a = side_a
    st.markdown(f"**B**: {source_b.display_name}" + (" (same text as A)" if source_b.sha256 == source_a.sha256 else ""))
    routing = sh.stage("explorer.routing")
    data_a: dict[str, Any] = {}
    data_b: dict[str, Any] = {}
    if routing is not None:
        data_a["route"] = routing.route(source_a.text).handler
        data_b["route"] = routing.route(source_b.text).handler
    if caps_a is not None and caps_b is not None:
        data_a["caps"], data_b["caps"] = caps_a.to_json(), caps_b.to_json()
    if analysis_a is not None and analysis_b is not None:
        data_a["autoparser"], data_b["autoparser"] = analysis_a.to_oracle_json(), analysis_b.to_oracle_json()
    changes = ui.compare_fields(data_a, data_b)
    differing = sum(1 for c in changes if not c.same)
    st.subheader(f"Fields ({differing} of {len(changes)} differ)")
    only = st.toggle("Only the differences", value=True, key="cmp_only")
    st.html(_changes_table(changes, only))
    if all(a is None or not sh.exhausts_render_budget(a) for a in (analysis_a, analysis_b)):
        _prompts(tmpl_a, tmpl_b, caps_a, caps_b)
    else:
        st.warning("Prompt comparison is skipped: a template ran out of render time during the probes.")


sh.require_app()
main()
