"""The Analysis page's "What if…" section (display only): change the inputs, see what changes.

Input: the page's ``Active`` (the template's own session, the modified one, the active
``WhatIf``), the request settings the Grammar and Try it pages share and Try it's raw
output. Output: Streamlit widgets that set an override on any analysis field (a value as
``--set`` reads it), remove one, change the request (enable_thinking, reasoning_format,
parallel_tool_calls, chat_template_kwargs as JSON, the tools' order; applied on top of the
request controls) or edit the template text in place (each kept in st.session_state for
this template's sha256 by ``app_state``, so every page shows the modified version); then "What changed"
(``explorer.whatif.what_changed``: route, fields, parser, GBNF, triggers, round trip and
the triage of the current output, the original request beside the changed one, before → after),
the sentence that an override is what a llama.cpp workaround lambda does, and the
downloads: the C++ lambda, the unified diff and the patched template.
"""

from __future__ import annotations

import json

import streamlit as st

import app_state as sh
from explorer import ui_support as ui
from explorer.analysis.model import FIELD_NAMES
from explorer.doctor.edits import unified_diff
from explorer.errors import ExplorerError
from explorer.roundtrip import RequestChange
from explorer.session import TemplateSession
from explorer.ui_support.changes import changes_table_html
from explorer.ui_support.doctor_view import APPLIED_FIX_STATE, AppliedFix, check_rows
from explorer.ui_support.requests import request_change
from explorer.vocabulary import REASONING_FORMATS
from explorer.whatif import WORKAROUND_SENTENCE, WhatChanged, WhatIf, field_value, value_text, what_changed

FIELD_KEY, VALUE_KEY = "wi_field", "wi_value"
ERROR_KEY = "_wi_error"  # (template sha256, what failed, the exception, its text) of the last Apply
VALUE_FOR_KEY = "_wi_value_for"  # the template sha256 the value box was filled for
OUTPUT_KEY = "try_output"  # the Try it page's raw-output box (app_sections.roundtrip)
LABELS = ("original", "what-if")
RQ = sh.WHATIF_REQUEST_PREFIX
RQ_THINKING, RQ_FORMAT, RQ_PARALLEL, RQ_KWARGS = RQ + "thinking", RQ + "format", RQ + "parallel", RQ + "kwargs"
RQ_ORDER = RQ + "order"
RQ_ERROR_KEY = "_wi_rq_error"  # (template sha256, the exception) of the last request change that did not apply
UNCHANGED = "unchanged"
SWITCH = {UNCHANGED: None, "on": True, "off": False}


# --- callbacks (run before the script, so the header already shows the new what-if) ----


def _value_of(session: TemplateSession, name: str) -> str:
    try:
        return value_text(field_value(session.analysis, name))
    except ExplorerError:
        return ""


def _field_picked(modified: TemplateSession) -> None:
    st.session_state[VALUE_KEY] = _value_of(modified, st.session_state[FIELD_KEY])


def _store(original: TemplateSession, whatif: WhatIf, what: str, text: str | None = None) -> None:
    """Keep the what-if if it applies; else say why and keep the old one."""
    try:
        whatif.apply(original)
    except ExplorerError as exc:
        st.session_state[ERROR_KEY] = (original.sha256, what, exc, text)
        return
    st.session_state[ERROR_KEY] = None
    sh.set_whatif(original.sha256, whatif)


def _apply_setting(original: TemplateSession, whatif: WhatIf) -> None:
    name, raw = st.session_state[FIELD_KEY], st.session_state.get(VALUE_KEY, "")
    try:
        setting = WhatIf.setting(name, raw)
    except ExplorerError as exc:
        st.session_state[ERROR_KEY] = (original.sha256, f"setting {name}", exc, None)
        return
    _store(original, whatif.with_setting(setting), f"setting {name}")


def _remove(original: TemplateSession, whatif: WhatIf, name: str) -> None:
    _store(original, whatif.without(name), f"removing {name}")


def _text_key(original: TemplateSession) -> str:
    return f"{sh.WHATIF_TEXT_PREFIX}{original.sha256[:16]}"


def _apply_text(original: TemplateSession, whatif: WhatIf) -> None:
    text = st.session_state.get(_text_key(original), original.text)
    _store(original, whatif.with_text(text, original.text), "the edited template", text)


def _undo_text(original: TemplateSession, whatif: WhatIf) -> None:
    st.session_state[_text_key(original)] = original.text
    _store(original, whatif.with_text(None, original.text), "undoing the edit")


def _request_change() -> RequestChange:
    """The request-change widgets' values as a ``RequestChange`` (``explorer.ui_support.requests``)."""
    fmt = st.session_state.get(RQ_FORMAT, UNCHANGED)
    return request_change(enable_thinking=SWITCH[st.session_state.get(RQ_THINKING, UNCHANGED)],
                          reasoning_format=None if fmt == UNCHANGED else fmt,
                          parallel_tool_calls=SWITCH[st.session_state.get(RQ_PARALLEL, UNCHANGED)],
                          kwargs_text=str(st.session_state.get(RQ_KWARGS, "")),
                          tool_order_text=str(st.session_state.get(RQ_ORDER, "")))


def _apply_change(original: TemplateSession, whatif: WhatIf) -> None:
    try:
        change = _request_change()
        change.check(sh.page_request(original, sh.settings()))  # a tool order names the request's own tools
    except ExplorerError as exc:
        st.session_state[RQ_ERROR_KEY] = (original.sha256, exc)
        return
    st.session_state[RQ_ERROR_KEY] = None
    sh.set_whatif(original.sha256, whatif.with_change(change))


def _remove_change(original: TemplateSession, whatif: WhatIf) -> None:
    st.session_state[RQ_ERROR_KEY] = None
    for key in (RQ_THINKING, RQ_FORMAT, RQ_PARALLEL, RQ_KWARGS, RQ_ORDER):
        st.session_state.pop(key, None)
    sh.set_whatif(original.sha256, whatif.with_change(None))


def _switch_name(value: bool | None) -> str:
    return next(name for name, v in SWITCH.items() if v is value)


def _request_part(original: TemplateSession, whatif: WhatIf) -> None:
    st.markdown("**Change the request** (on top of what the Grammar and Try it request controls say; "
                "Grammar and Try it then build the parser for the changed request)")
    change = whatif.change
    defaults = {RQ_THINKING: _switch_name(change.enable_thinking),
                RQ_FORMAT: change.reasoning_format or UNCHANGED,
                RQ_PARALLEL: _switch_name(change.parallel_tool_calls),
                RQ_KWARGS: json.dumps(dict(change.chat_template_kwargs), ensure_ascii=False)
                if change.chat_template_kwargs else "",
                RQ_ORDER: ", ".join(change.tool_order)}
    for key, value in defaults.items():
        if key not in st.session_state:
            st.session_state[key] = value
    c1, c2, c3 = st.columns(3)
    c1.selectbox("enable_thinking", list(SWITCH), key=RQ_THINKING)
    c2.selectbox("reasoning_format", [UNCHANGED, *REASONING_FORMATS], key=RQ_FORMAT)
    c3.selectbox("parallel_tool_calls", list(SWITCH), key=RQ_PARALLEL)
    k1, k2 = st.columns(2)
    k1.text_input("chat_template_kwargs (a JSON object; empty for none)", key=RQ_KWARGS,
                  placeholder='{"reasoning_effort": "high"}')
    k2.text_input("Tool order (the request's tool names, comma-separated; empty: as the controls list them)",
                  key=RQ_ORDER, placeholder="search, get_weather")
    held = st.session_state.get(RQ_ERROR_KEY)
    if held and held[0] == original.sha256:
        sh.show_error(held[1], context="Request change not applied")
    b1, b2 = st.columns(2)
    b1.button("Apply the request change", key="wi_change_apply", on_click=_apply_change, args=(original, whatif))
    b2.button("Remove the request change", key="wi_change_remove", on_click=_remove_change, args=(original, whatif),
              disabled=change.empty)
    if not change.empty:
        st.code(json.dumps(change.to_json(), ensure_ascii=False), language="json")
        st.caption("The request change as llama-server's JSON body fields. It does not reach the Fixtures page: "
                   "each fixture carries its own request.")


# --- the section ------------------------------------------------------------------------


def _overrides(original: TemplateSession, modified: TemplateSession, whatif: WhatIf) -> None:
    st.markdown("**Override an analysis field** (every mode and marker above)")
    if FIELD_KEY not in st.session_state:
        st.session_state[FIELD_KEY] = FIELD_NAMES[0]
    if VALUE_KEY not in st.session_state or st.session_state.get(VALUE_FOR_KEY) != original.sha256:
        st.session_state[VALUE_KEY] = _value_of(modified, st.session_state[FIELD_KEY])
        st.session_state[VALUE_FOR_KEY] = original.sha256
    c1, c2, c3 = st.columns([2, 3, 1], vertical_alignment="bottom")
    c1.selectbox("Analysis field", FIELD_NAMES, key=FIELD_KEY, on_change=_field_picked, args=(modified,))
    c2.text_input("Value (JSON, or raw text, as --set reads it)", key=VALUE_KEY,
                  help='A JSON string keeps escapes: "<tool_call>\\n" ends in a newline. Enums by name '
                       "(TAG_BASED), booleans true/false, lists as JSON lists of strings.")
    c3.button("Apply", key="wi_apply", on_click=_apply_setting, args=(original, whatif), type="primary")
    for setting in whatif.overrides:
        r1, r2 = st.columns([5, 1], vertical_alignment="center")
        r1.code(f"--set {setting.spec}", language=None)
        r2.button("Remove", key=f"wi_rm_{setting.field}", on_click=_remove, args=(original, whatif, setting.field))


def _text_edit(original: TemplateSession, whatif: WhatIf) -> None:
    key = _text_key(original)
    if key not in st.session_state:
        st.session_state[key] = whatif.text if whatif.text is not None else original.text
    with st.expander("Edit the template text in place", expanded=whatif.text is not None):
        st.text_area("Template text (what-if)", key=key, height=320)
        c1, c2 = st.columns(2)
        c1.button("Apply the edited text", key="wi_text_apply", on_click=_apply_text, args=(original, whatif))
        c2.button("Undo the edit", key="wi_text_undo", on_click=_undo_text, args=(original, whatif),
                  disabled=whatif.text is None)


def _applied(original: TemplateSession, whatif: WhatIf) -> None:
    """The Doctor fix this what-if applies, when it is one, with its acceptance checks."""
    held = st.session_state.get(APPLIED_FIX_STATE)
    if not isinstance(held, AppliedFix) or not held.shown_for(original.sha256, whatif):
        return
    st.info(ui.md_escape(f"Applied from the Doctor: {held.summary}. The fix passed every check of the acceptance "
                         "standard:"), icon=":material/healing:")
    sh.table(check_rows(held.checks))


def _last_error(original: TemplateSession) -> None:
    held = st.session_state.get(ERROR_KEY)
    if held and held[0] == original.sha256:
        _, what, exc, text = held
        sh.show_error(exc, text, context=f"What-if not applied ({what})")


def _changes(changed: WhatChanged) -> None:
    st.subheader("What changed")
    for note in changed.notes:
        st.warning(ui.md_escape(note))
    if changed.nothing:
        st.info("Nothing downstream changes: the parser, grammar, triggers, prompts and round trip are the "
                "original's (a field set to the value it had changes nothing).")
    c1, c2 = st.columns(2)
    before, after = changed.roundtrip_before, changed.roundtrip_after
    if before is not None and after is not None:
        c1.metric("Round trip (messages back, both thinking settings)", f"{before} → {after}",
                  delta=after.equal - before.equal)
        st.caption(ui.md_escape(changed.roundtrip_line))
    for error in changed.errors_after:
        st.warning(ui.md_escape(f"The what-if's round trip fails: {error}"))
    if changed.triage_line:
        c2.markdown(f"**Try it's current output**: {ui.md_escape(changed.triage_line)}")
    if changed.fixtures_line:
        st.markdown(f"**Fixtures**: {ui.md_escape(changed.fixtures_line)}")
    st.markdown("**Route, capabilities and analysis fields**")
    st.html(changes_table_html(changed.template_changes, True, LABELS))
    st.markdown(f"**Parser for the current request** (tools, thinking {str(changed.request.enable_thinking).lower()},"
                f" tool_choice {changed.request.tool_choice})" + ("" if changed.change.empty else
                f"; the what-if's side with the request change: {ui.md_escape(changed.change.describe())}"))
    by_name = {c.field: c for c in changed.parser_changes}
    small = [c for c in changed.parser_changes if c.field not in ("params.grammar", "params.parser")]
    st.html(changes_table_html(small, True, LABELS) if small or not by_name else
            "<i>triggers, tokens, stops and format: no differences</i>")
    grammar = by_name.get("params.grammar")
    if grammar is not None:
        st.markdown("GBNF grammar, original → what-if")
        st.code(unified_diff(str(grammar.a or ""), str(grammar.b or ""), "grammar.gbnf") or "(no grammar)",
                language="diff")
    parser = by_name.get("params.parser")
    if parser is not None:
        st.markdown("Serialized PEG parser, original | what-if")
        view = ui.pair_view(str(parser.a or ""), str(parser.b or ""), context=120)
        p1, p2 = st.columns(2)
        p1.html(ui.mono_block(view.html_a))
        p2.html(ui.mono_block(view.html_b))
    others = changed.other_params_changes
    if others:
        with st.expander(f"Other chat params that differ ({len(others)})"):
            st.html(changes_table_html(others, True, LABELS))


def _downloads(active: sh.Active, whatif: WhatIf, original: TemplateSession) -> None:
    st.subheader("Take it to llama.cpp")
    st.info(WORKAROUND_SENTENCE, icon=":material/build:")
    stem = (active.source.display_name if active.source else "template").replace("/", "-").replace(" ", "-")
    workaround = sh.guarded(lambda: whatif.workaround_cpp(original.text), context="writing the workaround lambda")
    if workaround is not None:
        st.markdown("**The workaround lambda** (for the `workarounds` vector of common/chat-diff-analyzer.cpp)")
        st.code(workaround.cpp, language="cpp")
        st.caption(ui.md_escape(workaround.uniqueness))
        st.download_button("Download the workaround lambda (.cpp)", workaround.cpp, file_name=f"{stem}-workaround.cpp",
                           mime="text/x-c++src", key="wi_dl_cpp")
    patch = whatif.patch(original.text, f"{stem}.jinja")
    if patch is not None:
        st.markdown("**The patched template** (`llama-server --jinja --chat-template-file` loads it; "
                    "`patch -p1` applies the diff)")
        st.code(patch.diff, language="diff")
        d1, d2 = st.columns(2)
        d1.download_button("Download the patched template (.jinja)", patch.patched,
                           file_name=f"{stem}-patched.jinja", mime="text/plain", key="wi_dl_jinja")
        d2.download_button("Download the unified diff (.diff)", patch.diff, file_name=f"{stem}.diff",
                           mime="text/x-diff", key="wi_dl_diff")


def section(active: sh.Active) -> None:
    """The whole "What if…" section of the Analysis page."""
    original, modified, whatif = active.base, active.session, active.whatif
    if original is None or modified is None:
        return
    st.subheader("What if…")
    st.caption("Change the inputs and every page (Probes, Grammar, Try it, Fixtures, Doctor, the round trip) "
               "runs again on the modified version, beside the original below. An override is what a llama.cpp "
               "workaround lambda does, so the parser is the one llama.cpp would build with that workaround.")
    _overrides(original, modified, whatif)
    _request_part(original, whatif)
    _text_edit(original, whatif)
    _applied(original, whatif)
    _last_error(original)
    if whatif.empty or active.whatif_error is not None:
        return
    request = sh.guarded(lambda: sh.page_request(modified, sh.settings()), context="building the request")
    if request is None:
        return
    output = st.session_state.get(OUTPUT_KEY) or None
    with st.spinner("Running the original and the what-if…"):
        changed = sh.guarded(lambda: what_changed(original, modified, request, output, change=whatif.change),
                             modified.text,
                             context="comparing the what-if with the original")
    if changed is not None:
        _changes(changed)
    _downloads(active, whatif, original)


__all__ = ["section"]
