"""Grammar page: the generated PEG parser rule by rule, its GBNF grammar and triggers."""

from __future__ import annotations

import html
import json
from typing import Any

import streamlit as st

from explorer import ui_support as ui
from explorer.errors import ExplorerError
from pages import _shared as sh

SAMPLE_KINDS = ("reply", "call", "reasoning+call")


@st.cache_resource(show_spinner="Checking with llguidance…", max_entries=64)
def _verdicts(grammar: str, texts: tuple[str, ...], triggers: tuple[tuple[str, str], ...] | None) -> list[Any]:
    from explorer.grammar.check import check_grammar

    trig = None if triggers is None else [{"type": t, "value": v} for t, v in triggers]
    return check_grammar(grammar, list(texts), triggers=trig)


def _rules(arena: Any) -> None:
    st.subheader("PEG parser, rule by rule")
    notation = arena.notation()
    rows = []
    for line in notation.splitlines():
        name, sep, expr = line.partition(" = ")
        if not sep:
            name, expr = "", line
        rows.append(f'<tr><td style="padding:2px 8px;vertical-align:top;white-space:nowrap"><b>{html.escape(name)}</b></td>'
                    f'<td style="padding:2px 8px">{ui.visible_whitespace_html(expr)}</td></tr>')
    st.html(ui.mono_block(f'<table style="border-collapse:collapse">{"".join(rows)}</table>'))
    with st.expander("llama.cpp's own dump of the parser"):
        st.code(arena.dump(), language=None)


def _grammar(params: Any, settings: sh.RequestSettings) -> None:
    st.subheader("GBNF grammar")
    if not params.grammar:
        reason = ("the request has no tools" if not settings.tools_json.strip()
                  else "tool_choice is none" if settings.tool_choice == "none"
                  else "the tool format has no start marker to trigger a lazy grammar")
        st.info(f"llama.cpp sends no grammar for this request: {reason}. Sampling is unconstrained.")
        return
    c1, c2 = st.columns(2)
    c1.metric("Lazy", "yes" if params.grammar_lazy else "no",
              help="A lazy grammar only constrains sampling after a trigger appears in the output.")
    c2.metric("Rules", sum(1 for line in params.grammar.splitlines() if "::=" in line))
    if params.grammar_triggers:
        st.markdown("**Triggers**")
        sh.table([{"type": t.type, "value": ui.marker_text(t.value), "token": t.token} for t in params.grammar_triggers])
    st.html(sh.highlighted(params.grammar, "gbnf", True, ()))


def _engine_verdicts(tmpl: Any, params: Any, settings: sh.RequestSettings) -> None:
    st.subheader("Grammar-engine verdicts")
    if sh.stage("explorer.grammar.check") is None:
        sh.not_available("explorer.grammar.check", "Grammar checks")
        return
    if not params.grammar:
        return
    samples, failed = [], []
    for kind in SAMPLE_KINDS:
        try:
            sample = sh.sample_output(tmpl, settings, kind)
        except ExplorerError as exc:
            failed.append(f"{kind}: {exc}")
            continue
        if sample is not None:
            samples.append(sample)
    if failed:
        st.caption("Samples the template could not render: " + "; ".join(failed))
    own = st.text_area("Your own output to check (optional)", key="grammar_own_text", height=100)
    texts = tuple(dict.fromkeys(samples + ([own] if own else [])))
    if not texts:
        st.caption("No sample output could be cut out of the template's renderings.")
        return
    triggers = (tuple((t.type, t.value) for t in params.grammar_triggers) if params.grammar_lazy else None)
    verdicts = sh.guarded(lambda: _verdicts(params.grammar, texts, triggers), context="checking the grammar")
    if verdicts is None:
        return
    st.caption("llguidance runs llama.cpp's GBNF over each text byte by byte; a lazy grammar starts at its trigger.")
    sh.table([{"output": ui.marker_text(v.text)[:160], "accepted": "✓" if v.accepted else "✗",
               "grammar starts at byte": "never (no trigger)" if v.constrained_from is None else str(v.constrained_from),
               "bytes taken": v.consumed_bytes, "note": v.message} for v in verdicts])


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 160 else text[:157] + "…"


def _versus(tmpl: Any, settings: sh.RequestSettings) -> None:
    """A routed template: the params fields on which the handler and the autoparser differ."""
    comparison = sh.guarded(lambda: sh.route_comparison(tmpl, settings), context="building the autoparser's parser")
    if comparison is None:
        return
    with st.expander("Handler vs what the autoparser would give"):
        if comparison.autoparser is None:
            st.caption(f"The autoparser builds no parser for this template: {comparison.autoparser_error}")
        elif not comparison.differences:
            st.caption("The autoparser would give the same format, generation prompt, laziness, triggers, "
                       "preserved tokens and stops.")
        else:
            sh.table([{"field": d.field, f"handler {comparison.handler.handler}": _short(d.handler),
                       "autoparser": _short(d.autoparser)} for d in comparison.differences])
        st.caption("The Try it page parses the output with both.")


def main() -> None:
    st.title("Grammar")
    loaded = sh.active_template()
    if loaded is None:
        sh.write_permalink("grammar", None)
        return
    source, tmpl, _ = loaded
    sh.source_caption(source)
    if tmpl is None:
        sh.write_permalink("grammar", source)
        return
    missing = sh.missing_pipeline_stage()
    if missing is not None or not sh.budget_guard(tmpl, "Building the parser and grammar"):
        if missing is not None:
            sh.not_available(missing, "The generated parser and its grammar")
        sh.write_permalink("grammar", source)
        return
    settings = sh.request_controls("grammar")
    sh.write_permalink("grammar", source, settings=settings)
    setup = sh.guarded(lambda: sh.chat_setup(tmpl, settings), source.text, context="building the parser")
    if setup is None:
        return
    if sh.route_note(setup, "builds this parser and grammar"):
        _versus(tmpl, settings)
    params = setup
    c1, c2 = st.columns(2)
    with c1:
        st.markdown("**Preserved tokens** (kept whole by the tokenizer)")
        st.html(" ".join(ui.marker_html(t) for t in params.preserved_tokens) or "<i>none</i>")
    with c2:
        st.markdown("**Additional stops**")
        st.html(" ".join(ui.marker_html(t) for t in params.additional_stops) or "<i>none</i>")
    _rules(setup.arena)
    _grammar(params, settings)
    _engine_verdicts(tmpl, params, settings)
    st.subheader("Downloads")
    d1, d2 = st.columns(2)
    d1.download_button("parser.json (llama.cpp's serialized parser)", params.parser, file_name="parser.json",
                       mime="application/json")
    if params.grammar:
        d2.download_button("grammar.gbnf", params.grammar, file_name="grammar.gbnf", mime="text/plain")


sh.require_app()
main()
