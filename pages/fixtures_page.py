"""Fixtures page: canitoolcall's recorded model outputs, parsed with this template's parser.

Input: the chosen template's ``TemplateSession`` and canitoolcall fixtures (a family of
its corpus, opening on the template's own family as the Doctor picks it:
``explorer.fixtures.match_family``; or the user's JSONL upload). Output: every fixture
judged by the library (``explorer.fixtures.judge``: the fixture's own request, the
session's parse, canitoolcall's checks): the counts, the failures, and per fixture its
output, expected and parsed message, the field diff, the triage (``session.diagnose``)
and a button that opens it in Try it. Every value from a fixture is escaped.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from types import MappingProxyType

import streamlit as st
from canitoolcall.fixtures import Family, Fixture, load_families, load_fixtures

import app_state as sh
from app_sections import why as wy
from explorer import ui_support as ui
from explorer.fixtures import FamilyMatch, fixture_request, judge, match_family
from explorer.session import TemplateSession
from explorer.ui_support import fixture_diff, fixture_upload

ICONS = MappingProxyType({"pass": "✓ pass", "soft_pass": "≈ soft pass", "fail": "✗ fail", "error": "! error"})
CORPUS, UPLOAD = "canitoolcall corpus", "uploaded JSONL"
LAST_UPLOAD_KEY = "fx_last_upload"  # (file name, bytes) of the session's last upload


Row = tuple[Fixture, ui.FixtureVerdict]  # a fixture and the library's verdict on it
FAMILY_FOR_KEY = "_fx_family_for"  # the session the family picker was set for


@st.cache_data(show_spinner=False)
def _families() -> dict[str, str]:
    return {slug: fam.name for slug, fam in load_families().items()}


@st.cache_resource(show_spinner=False)
def _fixtures(family: str) -> tuple[Family, list[Fixture]]:
    return load_families()[family], load_fixtures(families=[family])


def _judge(session: TemplateSession, fixtures: list[Fixture], family_of: Callable[[Fixture], Family | None]
           ) -> list[Row]:
    """Every fixture judged by the library (its own request, the session's parse, canitoolcall)."""
    return [(fixture, judge(session, fixture, family_of(fixture))) for fixture in fixtures]


@st.cache_resource(show_spinner="Finding the template's fixture family…", max_entries=32)
def _own_family(session_key: str, dialect_name: str, _session: TemplateSession) -> FamilyMatch | None:
    return match_family(_session.text, _session)


# A family's verdicts are a page result the session does not hold (it holds each parse,
# for a while); judging 50-85 fixtures again on every widget change would show.
@st.cache_resource(show_spinner="Parsing every fixture of the family…", max_entries=32)
def _run(session_key: str, dialect_name: str, family: str, _session: TemplateSession) -> list[Row]:
    fam, fixtures = _fixtures(family)
    return _judge(_session, fixtures, lambda _f: fam)


@st.cache_data(show_spinner="Reading the uploaded fixtures…", max_entries=8)
def _read_upload(upload_sha256: str, _data: bytes) -> fixture_upload.UploadedFixtures:
    return fixture_upload.parse_upload(_data)


@st.cache_resource(show_spinner=False)
def _known_families() -> dict[str, Family]:
    return load_families()


@st.cache_resource(show_spinner="Parsing every uploaded fixture…", max_entries=16)
def _run_upload(session_key: str, dialect_name: str, upload_sha256: str, _session: TemplateSession,
                _fixtures: tuple[Fixture, ...]) -> list[Row]:
    # the checks judging a parse read no family metadata; the package's own family goes along when it exists
    known = _known_families()
    return _judge(_session, list(_fixtures), lambda f: known.get(f.family))


def _try_settings(session: TemplateSession, fixture: Fixture) -> sh.RequestSettings:
    """The Try it page's controls for the fixture's request (its tools and thinking flag)."""
    request = fixture_request(session, fixture)
    return sh.RequestSettings(json.dumps([dict(t) for t in request.tools or ()], indent=2, ensure_ascii=False),
                              request.enable_thinking, request.tool_choice)


def _open_in_try(fixture: Fixture, settings: sh.RequestSettings) -> None:
    """Hand the fixture to the Try-it page (its output, tools and thinking flag)."""
    st.session_state[sh.TOOLS_KEY] = settings.tools_json
    st.session_state[sh.THINKING_KEY] = settings.thinking
    st.session_state[sh.CHOICE_KEY] = settings.tool_choice
    for key in ("try_req_tools", "try_req_thinking", "try_req_tool_choice"):
        st.session_state.pop(key, None)
    st.session_state["try_output"] = fixture.raw_output


def _diff(fixture: Fixture, verdict: ui.FixtureVerdict) -> None:
    """The expected message against the parse, field by field (canitoolcall's strict comparison)."""
    from canitoolcall.checks import expected_as_result
    from canitoolcall.results import ParseResult

    rows = fixture_diff.diff_rows(expected_as_result(fixture.expected), ParseResult.from_dict(verdict.got))
    if not rows:
        return
    st.markdown("**Diff against the expected message** (the fields canitoolcall's strict comparison finds different)")
    st.html(fixture_diff.diff_html(rows))


def _why(fixture: Fixture, session: TemplateSession) -> None:
    """The triage of the fixture's output for its request: why llama.cpp parsed it this way."""
    d = sh.guarded(lambda: session.diagnose(fixture.raw_output, fixture_request(session, fixture)),
                   context="explaining the result")
    if d is None:
        return
    st.markdown(f"**{wy.TITLE}** {ui.md_escape(d.verdict)}")
    wy.findings(d)


def _detail(fixture: Fixture, verdict: ui.FixtureVerdict, session: TemplateSession) -> None:
    settings = _try_settings(session, fixture)
    with st.container(border=True):
        st.markdown(f"#### {ui.md_escape(fixture.id)} · {ICONS.get(verdict.status, verdict.status)}")
        st.caption(ui.md_escape(f"model {fixture.models[0]} · tags {', '.join(fixture.tags)} · enable_thinking "
                                f"{str(settings.thinking).lower()}"))
        if verdict.detail:
            (st.warning if verdict.status in ("fail", "error") else st.info)(ui.md_escape(verdict.detail))
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
                st.markdown(ui.md_escape(f"an error outcome ({', '.join(fixture.expected_error.accept)}): "
                                         f"{fixture.expected_error.reason}"))
        with c2:
            st.markdown("**Parsed here (llama.cpp's parser for this template)**")
            st.json(verdict.got)
        if fixture.expected is not None and verdict.status in ("fail", "soft_pass") and verdict.got:
            _diff(fixture, verdict)
        if verdict.status != "pass":
            _why(fixture, session)
        if fixture.notes:
            st.caption(ui.md_escape(fixture.notes))
        if st.button("Open in Try it", key=f"fx_try_{fixture.id}", on_click=_open_in_try, args=(fixture, settings)):
            st.switch_page("pages/try_it_page.py")


def main() -> None:
    st.caption("Recorded model outputs from the canitoolcall conformance suite (or your own, uploaded in its "
               "format), parsed with the parser llama.cpp builds for the current template, and judged by "
               "canitoolcall's own checks.")
    session = sh.page_session()
    if session is None or not sh.budget_guard(session, "Parsing fixtures"):
        return
    change = sh.active().whatif.change
    if not change.empty:
        st.info(f"The what-if's request change ({ui.md_escape(change.describe())}) does not apply here: each fixture carries "
                "its own request (its tools; thinking and the rest as the request controls say). Only the "
                "what-if's overrides and edited text reach the fixtures.", icon=":material/science:")
    incoming = sh.take_incoming_focus()
    own = sh.guarded(lambda: _own_family(sh.session_key(session), session.dialect, session), session.text,
                     context="finding the template's fixture family")
    if incoming in _families():
        st.session_state["fx_origin"] = CORPUS
        st.session_state["fx_family"] = incoming
        st.session_state[FAMILY_FOR_KEY] = sh.session_key(session)
    elif st.session_state.get(FAMILY_FOR_KEY) != sh.session_key(session):
        # another template: open on its own family, as the Doctor picks it
        st.session_state[FAMILY_FOR_KEY] = sh.session_key(session)
        if own is not None:
            st.session_state["fx_family"] = own.slug
    origin = st.radio("Fixtures from", [CORPUS, UPLOAD], horizontal=True, key="fx_origin")
    if origin == CORPUS:
        _family_note(own)
        rows, scope = _corpus_rows(session, own), "of this family"
    else:
        rows, scope = _upload_rows(session), "of the upload"
    if rows and origin == CORPUS:
        family = st.session_state.get("fx_family", "")
        only = own is not None and family == own.slug and len(rows) == len(own.fixture_ids)
        st.caption(ui.md_escape(ui.count_scope(family, own, "fixtures", only_matched=only)))
    if rows:
        _verdicts(rows, scope, session)


def _family_note(own: FamilyMatch | None) -> None:
    if own is None:
        st.info("No canitoolcall family writes this template's format (by the markers its outputs use), so no "
                "family is this template's own; pick one to see how its outputs parse here.")
        return
    models = ", ".join(m.model for m in own.models)
    st.caption(ui.md_escape(f"This template's own family, as the Doctor picks it: {own.name} ({own.slug}), the "
                            f"fixtures of {models}. Another family shows how outputs of another format parse here."))


def _corpus_rows(session: TemplateSession, own: FamilyMatch | None) -> list[Row] | None:
    families = _families()
    family = st.selectbox("Fixture family", list(families), format_func=lambda s: f"{s} · {families[s]}",
                          key="fx_family")
    sh.write_permalink("fixtures", family)
    rows = sh.guarded(lambda: _run(sh.session_key(session), session.dialect, family, session), session.text,
                      context="parsing fixtures")
    if rows is None or own is None or family != own.slug:
        return rows
    speaks = set(own.fixture_ids)
    if len(speaks) < len(rows) and st.toggle(
            f"Only the models this template speaks ({len(speaks)} of the family's {len(rows)} fixtures, as the "
            "Doctor counts them)", value=True, key="fx_own_models"):
        return [r for r in rows if r[0].id in speaks]
    return rows


def _upload_rows(session: TemplateSession) -> list[Row] | None:
    st.caption("Your own fixtures, one JSON object per line in canitoolcall's fixture format (its "
               "`fixture.schema.json`: `id`, `family`, `models`, `spec_version`, `provenance`, `tools`, `raw_output`, "
               f"`tags`, and `expected` or `expected_error`); {fixture_upload.CAP_TEXT}.")
    upload = st.file_uploader("Fixtures file (.jsonl)", type=["jsonl"], key="fx_upload",
                              max_upload_size=fixture_upload.MAX_BYTES // (1024 * 1024))
    if upload is not None:
        st.session_state[LAST_UPLOAD_KEY] = (upload.name, upload.getvalue())
    elif st.session_state.get(LAST_UPLOAD_KEY) is not None:
        # the uploader forgets its file when the page shows the corpus in between
        c1, c2 = st.columns([3, 1])
        c1.caption(ui.md_escape(f"Using {st.session_state[LAST_UPLOAD_KEY][0]}, uploaded earlier in this session."))
        if c2.button("Forget it", key="fx_forget"):
            st.session_state[LAST_UPLOAD_KEY] = None
    remembered = st.session_state.get(LAST_UPLOAD_KEY)
    if remembered is None:
        st.info("Upload a .jsonl file to parse its fixtures with this template's parser.")
        st.download_button("Download a one-line example file", fixture_upload.example_jsonl(),
                           file_name="example-fixtures.jsonl", mime="application/jsonl", key="fx_example")
        return None
    name, data = remembered
    parsed = _read_upload(hashlib.sha256(data).hexdigest(), data)
    if parsed.refused:
        st.error(ui.md_escape(f"The upload {name} is refused: {parsed.problems[0]}."))
        return None
    if parsed.problems:
        bad = len({p.line for p in parsed.problems})
        st.error(ui.md_escape(f"{bad} line(s) of {name} are not fixtures in canitoolcall's format"
                              + (f"; the {len(parsed.fixtures)} valid ones are judged below" if parsed.fixtures else "")
                              + ":\n\n" + parsed.problem_text()))
    if not parsed.fixtures:
        return None
    st.caption(ui.md_escape(f"{len(parsed.fixtures)} fixture(s) read from {name}."))
    return sh.guarded(lambda: _run_upload(sh.session_key(session), session.dialect, parsed.sha256, session,
                                          parsed.fixtures),
                      session.text, context="parsing the uploaded fixtures")


def _verdicts(rows: list[Row], scope: str, session: TemplateSession) -> None:
    counts: dict[str, int] = {}
    for _, v in rows:
        counts[v.status] = counts.get(v.status, 0) + 1
    cols = st.columns(4)
    for col, status in zip(cols, ("pass", "soft_pass", "fail", "error")):
        col.metric(ICONS[status], counts.get(status, 0))
    show = st.radio("Show", ["failures", "all"], horizontal=True, key="fx_show")
    listed = [r for r in rows if show == "all" or r[1].status in ("fail", "error")]
    sh.table([{"fixture": f.id, "status": ICONS.get(v.status, v.status), "tags": ", ".join(f.tags),
               "difference": v.detail[:160]} for f, v in listed])
    if not listed:
        st.success(f"Every fixture {scope} parses as expected.")
        return
    ids = [f.id for f, _ in listed]
    pick = st.selectbox("Fixture", ids, key="fx_pick")
    fixture, verdict = listed[ids.index(pick)]
    _detail(fixture, verdict, session)


sh.require_app()
main()
