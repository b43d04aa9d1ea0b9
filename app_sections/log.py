"""The Try it page's "Paste llama-server's log" box (display only).

Input: the page's ``TemplateSession`` and request, and the output box's text. Output:
Streamlit elements: a text area for the log, what ``TemplateSession.diagnose_log`` read in
it (the failure line, which coordinate its number counts, where the output came from, the
notes, or why it holds no output), and a button that puts the log's own output (its dump,
or a tail that holds all of it) in the output box. The "Why this result?" section shows the
log's findings once the box holds the output the log is about (``log_diagnosis``).
"""

from __future__ import annotations

import streamlit as st

import app_state as sh
from app_sections.roundtrip import OUTPUT_KEY
from explorer import ui_support as ui
from explorer.apply import Request
from explorer.session import TemplateSession
from explorer.triage.from_log import LogDiagnosis

LOG_KEY = "try_log"
TITLE = "Paste llama-server's log"
PARTIAL_KEY = "try_partial"


def _use(output: str) -> None:
    st.session_state[OUTPUT_KEY] = output


def box(session: TemplateSession, request: Request) -> None:
    """The log box, above the output box (so its button can fill the output box)."""
    text = st.session_state.get(LOG_KEY, "")
    with st.expander(TITLE, expanded=bool(text)):
        st.caption("Its parse-failure line (llama.cpp 0c1e5709's \"unparsed … output:\", older builds' \"Failed to "
                   "parse input at pos N\"), with the raw output it dumps at -lv 5 (=== BEGIN === … === END ===) "
                   "when you have it. The triage says which position the log's number is and explains that "
                   "output.")
        log = st.text_area(TITLE, key=LOG_KEY, height=140, label_visibility="collapsed")
        if not log.strip():
            return
        current = st.session_state.get(OUTPUT_KEY) or ""
        result = log_diagnosis(session, request, log, current, bool(st.session_state.get(PARTIAL_KEY)))
        if result is None:
            return
        for line in result.header():
            st.caption(ui.md_escape(line.removeprefix("log: ")))
        found = result.reading.output
        if result.diagnosis is None:
            st.warning(ui.md_escape(result.problem))
        elif found is not None and found != current and result.reading.output_from in ("log dump", "log tail"):
            st.info(f"The log holds the model output ({len(found)} characters); put it in the output box to "
                    "explain it with the log's findings.")
            st.button("Put the log's output in the box", key="try_use_log_output", on_click=_use, args=(found,))


def log_diagnosis(session: TemplateSession, request: Request, log: str, output: str,
                  partial: bool) -> LogDiagnosis | None:
    """The session's reading of the log for the output box's text (None: it raised, shown)."""
    if not log.strip():
        return None
    return sh.guarded(lambda: session.diagnose_log(log, request, output=output or None, partial=partial),
                      context="reading the log")
