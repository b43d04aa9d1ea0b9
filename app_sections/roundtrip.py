"""The Try it page's Round trip section (display only): the template's own replies, cut out and parsed back.

Input: the template's ``TemplateSession``, the page's enable_thinking setting and the what-if's request change; output:
Streamlit elements (the alarms above the raw-output box, its prefill, and the Round trip
section below the results). The work is ``session.roundtrip``'s; the words and tables are
explorer.ui_support.roundtrip_view's.
"""

from __future__ import annotations

import json
import traceback

import streamlit as st

import app_state as sh
from explorer import ui_support as ui
from explorer.errors import ExplorerError
from explorer.roundtrip import RoundTripReport
from explorer.session import TemplateSession
from explorer.ui_support import roundtrip_view as rv

OUTPUT_KEY = "try_output"  # the Try it page's raw-output box
PREFILL_KEY = "_try_prefill"  # the reply the page itself last put in the box
CASE_NOTE_KEY = "_try_case_note"  # what the last round-trip case button did


def _load_case(row: rv.CaseRow, missing: list[str], tools_json: str) -> None:
    """A case button: its reply into the box; the round trip's tools when the page's lack one it calls."""
    st.session_state[OUTPUT_KEY] = row.reply
    note = f"Loaded the reply of message {row.message_id} ({row.kind})."
    if missing:
        st.session_state["try_req_tools"] = st.session_state[sh.TOOLS_KEY] = tools_json
        note += (f" It calls {', '.join(missing)}, which the request's tools did not offer, so the tools are now "
                 "the round trip's own.")
    st.session_state[CASE_NOTE_KEY] = note


def _case_buttons(rows: tuple[rv.CaseRow, ...], offered: list[str], report: RoundTripReport) -> None:
    loadable = [r for r in rows if r.reply]
    if not loadable:
        return
    st.caption("Load a message's reply (as the report cut it out) into the raw-output box:")
    tools_json = json.dumps(list(report.tools), indent=2, ensure_ascii=False)
    per_row = 5
    for start in range(0, len(loadable), per_row):
        cols = st.columns(per_row)
        for col, row in zip(cols, loadable[start:start + per_row]):
            col.button(f"Load {row.message_id}", key=f"try_rt_{row.message_id}",
                       help=f"{row.kind}: {row.outcome_label}", on_click=_load_case,
                       args=(row, rv.missing_tools(row.calls, offered), tools_json),
                       width="stretch")


Outcome = tuple[RoundTripReport, None] | tuple[None, BaseException]


def section(outcome: Outcome, session: TemplateSession, offered: list[str]) -> None:
    st.subheader("Round trip")
    report, error = outcome
    if report is None:
        if error is not None:
            sh.show_error(error, session.text, context="round-tripping the template's own replies")
        return
    rows = rv.case_rows(report)
    tools = ", ".join(rv.tool_names(report.tools))
    trained = report.dialect == "transformers"
    if trained:
        st.caption("Each assistant message is rendered as Hugging Face transformers renders training data (jinja2, "
                   "the template as published, transformers' own context, the messages llama.cpp's template "
                   "receives), its reply cut out of the rendering as llama.cpp's oracle harness does, parsed with "
                   "the parser llama.cpp builds for the next turn, and checked against that request's grammar "
                   f"(tools: {ui.md_escape(tools)}). " + ui.md_escape(rv.summary(report)))
        for note in report.dialect_notes:
            st.warning(ui.md_escape(f"Round trip ({report.dialect}): {note}"))
    else:
        st.caption("Each assistant message is rendered with llama.cpp's own Jinja engine, its reply cut out of the "
                   "rendering as llama.cpp's oracle harness does, parsed with the parser llama.cpp builds for the "
                   f"next turn, and checked against that request's grammar (tools: {ui.md_escape(tools)}). "
                   + ui.md_escape(rv.summary(report)))
    what = "replies as trained, " if trained else ""
    label = f"Verdicts per message ({what}{report.equal_count}/{len(report.cases)} exact)"
    with st.expander(label, expanded=True):
        sh.table(rv.table_rows(rows))
        for row in rows:
            if row.checker_note:
                st.info(ui.md_escape(row.checker_note))
        _case_buttons(rows, offered, report)
    if trained:
        _trained_vs_llama(report)


def _trained_vs_llama(report: RoundTripReport) -> None:
    """Per message: the reply the model was trained on next to the one llama.cpp renders."""
    rows = rv.dialect_rows(report)
    st.caption(ui.md_escape(rv.dialect_summary(report)))
    with st.expander(rv.dialect_label(rows), expanded=any(r.verdict != "same" for r in rows)):
        sh.table(rv.dialect_table_rows(rows))
        for sentence in rv.refusal_groups(rows):
            st.markdown(rv.markdown_escape(sentence[0].upper() + sentence[1:]))
        for row in rows:
            if row.verdict in ("same", "transformers_refuses"):
                continue
            st.markdown(rv.markdown_escape(row.headline))
            if row.differs:
                view = ui.pair_view(row.llama_reply or "", row.transformers_reply or "")
                left, right = st.columns(2)
                left.caption("llama.cpp renders")
                left.html(ui.mono_block(view.html_a))
                right.caption("transformers renders (what the model was trained on)")
                right.html(ui.mono_block(view.html_b))


def compute(session: TemplateSession, enable_thinking: bool) -> Outcome:
    """(report, None), or (None, the error) to show in the section. The round trip renders
    in the app's dialect (transformers: the replies as the model was trained on them), under
    the active what-if's request change."""
    change = sh.active().whatif.change
    try:
        call = sh.transformers_call()
        flag = enable_thinking if call.thinking_passed else session.supports_enable_thinking
        with st.spinner("Round-tripping the template's own replies…"):
            return session.roundtrip(flag, dialect=sh.dialect(), change=change, trained_as=call), None
    except Exception as exc:  # noqa: BLE001 - shown in place in the Round trip section
        if not isinstance(exc, ExplorerError):
            traceback.print_exc()
        return None, exc


def alarms(report: RoundTripReport) -> None:
    """Loud, above the box: a grammar refusing its own parser's output, or nothing to round-trip."""
    for row in rv.case_rows(report):
        if row.alarm:
            st.warning(f"**Grammar rejects its own parser's output.** {ui.md_escape(row.alarm)} (see Round trip below)",
                       icon=":material/report:")
    refused = rv.all_refused(report)
    if refused is not None:
        who = "the template refuses" if report.dialect == "llama.cpp" else \
            f"under the {report.dialect} dialect the template refuses"
        st.warning(f"Round trip: {who} to render any assistant message, so none of its replies can "
                   f"be parsed back: {ui.md_escape(refused)}")


def prefill(report: RoundTripReport | None, offered: list[str]) -> None:
    """The box's first text: the template's own reply for this request (until the user sets one)."""
    note = st.session_state.pop(CASE_NOTE_KEY, None)
    if note:
        st.info(ui.md_escape(note))
    if not rv.should_prefill(st.session_state.get(OUTPUT_KEY), st.session_state.get(PREFILL_KEY)):
        return
    pick = rv.choose_prefill(report, offered) if report is not None else None
    st.session_state[OUTPUT_KEY] = st.session_state[PREFILL_KEY] = pick.text if pick else ""
    if pick:
        trained = " as transformers renders it (what the model was trained on)" \
            if report is not None and report.dialect == "transformers" else ""
        st.caption(f"The box starts with the template's own reply{trained} for {ui.md_escape(pick.why)}. Type over it freely, "
                   "or load another message's reply under Round trip.")
