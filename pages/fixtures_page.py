"""Fixtures page: canitoolcall's recorded model outputs, parsed with this template's parser."""

from __future__ import annotations

import json
from types import MappingProxyType
from typing import Any

import streamlit as st

from explorer import ui_support as ui
from explorer.errors import ExplorerError
from pages import _shared as sh

ICONS = MappingProxyType({"pass": "✓ pass", "soft_pass": "≈ soft pass", "fail": "✗ fail", "error": "! error"})


@st.cache_data(show_spinner=False)
def _families() -> dict[str, str]:
    from canitoolcall.fixtures import load_families

    return {slug: fam.name for slug, fam in load_families().items()}


@st.cache_resource(show_spinner=False)
def _fixtures(family: str) -> tuple[Any, list[Any]]:
    from canitoolcall.fixtures import load_families, load_fixtures

    return load_families()[family], load_fixtures(families=[family])


def _default_thinking(tmpl: Any) -> bool:
    """llama-server's default for enable_thinking: whether the template supports it."""
    apply_mod = sh.stage("explorer.apply")
    if apply_mod is None or not hasattr(apply_mod, "supports_enable_thinking"):
        return True
    mode = sh.analysis(tmpl).reasoning.mode.value
    return bool(apply_mod.supports_enable_thinking(tmpl, reasoning_mode=mode))


def _settings(fixture: Any, default_thinking: bool) -> sh.RequestSettings:
    thinking = default_thinking if fixture.thinking is None else bool(fixture.thinking)
    return sh.RequestSettings(json.dumps(list(fixture.tools), ensure_ascii=False), thinking, "auto")


@st.cache_resource(show_spinner="Parsing every fixture of the family…", max_entries=32)
def _run(sha256: str, dialect_name: str, family: str, _tmpl: Any) -> list[tuple[Any, Any, ui.FixtureVerdict]]:
    from explorer.chat_output import analyse_output

    fam, fixtures = _fixtures(family)
    default_thinking = _default_thinking(_tmpl)
    rows = []
    for fixture in fixtures:
        settings = _settings(fixture, default_thinking)
        try:
            setup = sh.chat_setup(_tmpl, settings)
            parsed = analyse_output(setup.arena, fixture.raw_output, generation_prompt=setup.generation_prompt,
                                    format=setup.format)
            exc = None if parsed.error is None else f"std::runtime_error: {parsed.error.message}"
            verdict = ui.fixture_verdict(fixture, fam, parsed.message, exc)
        except ExplorerError as err:
            verdict = ui.FixtureVerdict("error", str(err), {})
        rows.append((fixture, settings, verdict))
    return rows


def _open_in_try(fixture: Any, settings: sh.RequestSettings) -> None:
    """Hand the fixture to the Try-it page (its output, tools and thinking flag)."""
    st.session_state[sh.TOOLS_KEY] = settings.tools_json
    st.session_state[sh.THINKING_KEY] = settings.thinking
    st.session_state[sh.CHOICE_KEY] = settings.tool_choice
    for key in ("try_req_tools", "try_req_thinking", "try_req_tool_choice"):
        st.session_state.pop(key, None)
    st.session_state["try_output"] = fixture.raw_output


def _detail(fixture: Any, settings: sh.RequestSettings, verdict: ui.FixtureVerdict) -> None:
    with st.container(border=True):
        st.markdown(f"#### {fixture.id} · {ICONS.get(verdict.status, verdict.status)}")
        st.caption(f"model {fixture.models[0]} · tags {', '.join(fixture.tags)} · enable_thinking "
                   f"{str(settings.thinking).lower()}")
        if verdict.detail:
            (st.warning if verdict.status in ("fail", "error") else st.info)(verdict.detail)
        st.markdown("**Raw output**")
        st.html(ui.mono_block(ui.visible_whitespace_html(fixture.raw_output)))
        c1, c2 = st.columns(2)
        with c1:
            st.markdown("**Expected**")
            if fixture.expected is not None:
                exp = fixture.expected
                st.json({"content": exp.content, "reasoning_content": exp.reasoning_content,
                         "tool_calls": [{"name": t.name, "arguments": dict(t.arguments)} for t in exp.tool_calls]})
            else:
                st.markdown(f"an error outcome ({', '.join(fixture.expected_error.accept)}): "
                            f"{fixture.expected_error.reason}")
        with c2:
            st.markdown("**Parsed here (llama.cpp's parser for this template)**")
            st.json(verdict.got)
        if fixture.notes:
            st.caption(fixture.notes)
        if st.button("Open in Try it", key=f"fx_try_{fixture.id}", on_click=_open_in_try, args=(fixture, settings)):
            st.switch_page("pages/try_it_page.py")


def main() -> None:
    st.title("Fixtures")
    st.caption("Recorded model outputs from the canitoolcall conformance suite, parsed with the parser "
               "llama.cpp builds for the current template, and judged by canitoolcall's own checks.")
    loaded = sh.active_template()
    if loaded is None:
        sh.write_permalink("fixtures", None)
        return
    source, tmpl, _ = loaded
    sh.source_caption(source)
    if tmpl is None:
        sh.write_permalink("fixtures", source)
        return
    missing = sh.missing_pipeline_stage()
    if missing is not None or sh.stage("explorer.chat_output") is None:
        sh.write_permalink("fixtures", source)
        sh.not_available(missing or "explorer.chat_output", "Parsing fixtures")
        return
    if ui.optional_module("canitoolcall.fixtures", "load_fixtures") is None:
        sh.write_permalink("fixtures", source)
        st.info("The canitoolcall package is not installed, so there are no fixtures to show.")
        return
    if not sh.budget_guard(tmpl, "Parsing fixtures"):
        sh.write_permalink("fixtures", source)
        return
    families = _families()
    incoming = sh.take_incoming_focus()
    if incoming in families:
        st.session_state["fx_family"] = incoming
    family = st.selectbox("Fixture family", list(families), format_func=lambda s: f"{s} · {families[s]}",
                          key="fx_family")
    sh.write_permalink("fixtures", source, family)
    rows = sh.guarded(lambda: _run(tmpl.sha256, tmpl.dialect, family, tmpl), source.text, context="parsing fixtures")
    if not rows:
        return
    counts: dict[str, int] = {}
    for _, _, v in rows:
        counts[v.status] = counts.get(v.status, 0) + 1
    cols = st.columns(4)
    for col, status in zip(cols, ("pass", "soft_pass", "fail", "error")):
        col.metric(ICONS[status], counts.get(status, 0))
    show = st.radio("Show", ["failures", "all"], horizontal=True, key="fx_show")
    listed = [r for r in rows if show == "all" or r[2].status in ("fail", "error")]
    sh.table([{"fixture": f.id, "status": ICONS.get(v.status, v.status), "tags": ", ".join(f.tags),
               "difference": v.detail[:160]} for f, _, v in listed])
    if not listed:
        st.success("Every fixture of this family parses as expected.")
        return
    ids = [f.id for f, _, _ in listed]
    pick = st.selectbox("Fixture", ids, key="fx_pick")
    fixture, settings, verdict = listed[ids.index(pick)]
    _detail(fixture, settings, verdict)


sh.require_app()
main()
