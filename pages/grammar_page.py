"""Grammar page: the generated PEG parser rule by rule, its GBNF grammar and triggers.

Input: the chosen template's ``TemplateSession`` and the request the shared controls
build. Output: the route note, the preserved tokens and stops, the PEG parser rule by
rule (``session.params``' arena, as ``explorer.ui_support.grammar_view.notation_rows``
lists it), the GBNF grammar with its triggers and what its generated automaton rules stand
for (``grammar_view.rule_notes``), or why there is none (``grammar_view.no_grammar_reason``,
the route's own include rule), llguidance's verdicts on the template's own sample replies
(``session.sample_reply``) and the user's text, and the parser and grammar as downloads.
"""

from __future__ import annotations

import json

import streamlit as st

import app_state as sh
from explorer import ui_support as ui
from explorer.apply import Request
from explorer.apply.pipeline import ChatParams
from explorer.errors import ExplorerError
from explorer.peg import Arena
from explorer.session import REPLY_KINDS, TemplateSession
from explorer.ui_support.grammar_view import no_grammar_reason, notation_html, rule_notes


def _rules(arena: Arena) -> None:
    st.subheader("PEG parser, rule by rule")
    st.html(ui.mono_block(notation_html(arena)))
    with st.expander("llama.cpp's own dump of the parser"):
        st.code(arena.dump(), language=None)


def _grammar(session: TemplateSession, params: ChatParams, request: Request) -> None:
    st.subheader("GBNF grammar")
    if not params.grammar:
        tool_format = None if session.analysis_error is not None else session.analysis.tools.format
        reason = no_grammar_reason(params, request, tool_format)
        st.info(f"llama.cpp sends no grammar for this request: {ui.md_escape(reason)}. Sampling is unconstrained.")
        return
    c1, c2 = st.columns(2)
    c1.metric("Lazy", "yes" if params.grammar_lazy else "no",
              help="A lazy grammar only constrains sampling after a trigger appears in the output.")
    c2.metric("Rules", sum(1 for line in params.grammar.splitlines() if "::=" in line))
    if params.grammar_triggers:
        st.markdown("**Triggers**")
        sh.table([{"type": t.type, "value": ui.marker_text(t.value), "token": t.token} for t in params.grammar_triggers])
    st.html(sh.highlighted(params.grammar, "gbnf", True, ()))
    notes = rule_notes(params)
    if notes:
        st.markdown("**Generated rules** (llama.cpp names them after the PEG parser they come from)")
        for note in notes:
            st.markdown("- " + ui.md_escape(note.sentence()))


def _engine_verdicts(session: TemplateSession, params: ChatParams, request: Request) -> None:
    st.subheader("Grammar-engine verdicts")
    if not params.grammar:
        return
    samples, failed = [], []
    for kind in REPLY_KINDS:
        try:
            sample = session.sample_reply(kind, request)
        except ExplorerError as exc:
            failed.append(f"{kind}: {exc}")
            continue
        if sample is not None:
            samples.append(sample)
    if failed:
        st.caption(ui.md_escape("Samples the template could not render: " + "; ".join(failed)))
    own = st.text_area("Your own output to check (optional)", key="grammar_own_text", height=100)
    texts = tuple(dict.fromkeys(samples + ([own] if own else [])))
    if not texts:
        st.caption("No sample output could be cut out of the template's renderings.")
        return
    verdicts = sh.guarded(lambda: session.check_grammar(request, texts), context="checking the grammar")
    if verdicts is None:
        return
    st.caption("llguidance runs llama.cpp's GBNF over each text byte by byte; a lazy grammar starts at its trigger.")
    sh.table([{"output": ui.marker_text(v.text)[:160], "accepted": "✓" if v.accepted else "✗",
               "grammar starts at byte": "never (no trigger)" if v.constrained_from is None else str(v.constrained_from),
               "bytes taken": v.consumed_bytes, "note": v.message} for v in verdicts])


def _short(value: object) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 160 else text[:157] + "…"


def _versus(session: TemplateSession, request: Request) -> None:
    """A routed template: the params fields on which the handler and the autoparser differ."""
    comparison = sh.guarded(lambda: session.compare_routes(request), context="building the autoparser's parser")
    if comparison is None:
        return
    with st.expander("Handler vs what the autoparser would give"):
        if comparison.autoparser is None:
            st.caption(ui.md_escape(f"The autoparser builds no parser for this template: {comparison.autoparser_error}"))
        elif not comparison.differences:
            st.caption("The autoparser would give the same format, generation prompt, laziness, triggers, "
                       "preserved tokens and stops.")
        else:
            sh.table([{"field": d.field, f"handler {comparison.handler.handler}": _short(d.a),
                       "autoparser": _short(d.b)} for d in comparison.differences])
        st.caption("The Try it page parses the output with both.")


def main() -> None:
    session = sh.page_session()
    if session is None or not sh.budget_guard(session, "Building the parser and grammar"):
        return
    request = sh.request_controls("grammar", session)
    sh.write_permalink("grammar", with_request=True)
    if request is None:
        return
    params = sh.guarded(lambda: session.params(request), session.text, context="building the parser")
    if params is None:
        return
    if sh.route_note(params, "builds this parser and grammar"):
        _versus(session, request)
    c1, c2 = st.columns(2)
    with c1:
        st.markdown("**Preserved tokens** (kept whole by the tokenizer)")
        st.html(" ".join(ui.marker_html(t) for t in params.preserved_tokens) or "<i>none</i>")
    with c2:
        st.markdown("**Additional stops**")
        st.html(" ".join(ui.marker_html(t) for t in params.additional_stops) or "<i>none</i>")
    _rules(params.arena)
    _grammar(session, params, request)
    _engine_verdicts(session, params, request)
    st.subheader("Downloads")
    d1, d2 = st.columns(2)
    d1.download_button("parser.json (llama.cpp's serialized parser)", params.parser, file_name="parser.json",
                       mime="application/json")
    if params.grammar:
        d2.download_button("grammar.gbnf", params.grammar, file_name="grammar.gbnf", mime="text/plain")


sh.require_app()
main()
