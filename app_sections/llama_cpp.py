"""The real llama.cpp's answer beside the port's (display only), when the app has a build.

Drawn by Try it (the request's chat params and the output's parse) and the Doctor (the
template's reading, and each fix re-checked) when ``AppOptions.llama_cpp`` names a driver
(``--llama-cpp DRIVER`` or ``$TEMPLATE_EXPLORER_LLAMA_CPP_DRIVER``); nothing otherwise. The
comparison is ``explorer.ui_support.llama_cpp_view``'s.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

import streamlit as st

import app_state as sh
from explorer import ui_support as ui
from explorer.apply import Request
from explorer.session import TemplateSession
from explorer.ui_support import llama_cpp_view as lv
from explorer.ui_support.app_options import app_options


def _draw(beside: lv.Beside) -> None:
    st.subheader("The real llama.cpp beside the port")
    if beside.error:
        st.warning(ui.md_escape(f"{beside.headline}: {beside.error}"), icon=":material/error:")
        return
    (st.success if beside.agrees else st.warning)(ui.md_escape(beside.headline), icon=":material/compare_arrows:")
    if beside.rows:
        sh.table([dict(r) for r in beside.rows])
    for note in beside.notes:
        st.caption(ui.md_escape(note))


def try_it(session: TemplateSession, request: Request, text: str, partial: bool) -> None:
    driver = lv.configured(app_options().llama_cpp)
    if driver is None:
        return
    with st.spinner("Asking the real llama.cpp…"):
        beside = lv.try_it(session, request, text, partial, driver)
    _draw(beside)
    if beside.message is not None and not beside.agrees:
        st.caption("The build's message:")
        st.json(dict(beside.message), expanded=False)


# re-checking the fixes re-runs their round trips on the build: once per report, not per rerun
@st.cache_resource(show_spinner="Re-checking on the real llama.cpp…", max_entries=16)
def _doctor(session_key: str, driver_path: str, report_json: str, _session: TemplateSession) -> lv.Beside:
    driver = lv.configured(driver_path)
    assert driver is not None
    return lv.doctor(_session, json.loads(report_json), driver)


def doctor(session: TemplateSession, report: Mapping[str, object]) -> None:
    path = app_options().llama_cpp
    if not path:
        return
    _draw(_doctor(sh.session_key(session), path, json.dumps(report, sort_keys=True, default=str), session))
