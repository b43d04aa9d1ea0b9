"""Doctor page: the template doctor's report on the current template (display only).

Input: the chosen template's ``TemplateSession``; the page's switches (search fixes,
grammar verdicts for both thinking settings). Output: the verdict, the route and why, the
template health, the round trip's losses per message with where they come from, the
grammar verdicts, the template's fixture family, what the template does by design (with
its lines), and the fixes that passed the acceptance standard (before/after, every check
with its result, the --set lines and workaround lambda, the diff or the request change,
with downloads, a button that adds the fix to the bug report and one that applies it as
the What-if), the failure classes without a sound fix and why, the withdrawn fixes with
the check each failed, the real llama.cpp's reading and fix re-checks when a build is configured
(``app_sections.llama_cpp``), and the bug report (Markdown) with the chosen fix, with links into Probes, Analysis,
Fixtures and Try it. The report is
``explorer.doctor.report.doctor``'s; the rows and links are
``explorer.ui_support.doctor_view``'s.
"""

from __future__ import annotations

import html

import streamlit as st

import app_state as sh
from app_sections import llama_cpp as real
from explorer import ui_support as ui
from explorer.doctor.model import Fix
from explorer.doctor.report import DoctorReport, GrammarScope, doctor
from explorer.session import TemplateSession
from explorer.ui_support import doctor_view as dv
from explorer.ui_support.bug_report import doctor_reproduce, template_spec


# The report is a page result the session does not hold; a widget change must not redo it.
@st.cache_resource(show_spinner="Doctoring the template…", max_entries=16)
def _report(session_key: str, dialect: str, fixes: bool, grammar: GrammarScope, name: str,
            _session: TemplateSession) -> DoctorReport:
    return doctor(_session, fixes=fixes, grammar=grammar, name=name)


def _link(label: str, href: str | None) -> str:
    return f'<a href="{html.escape(href, quote=True)}" target="_self">{html.escape(label)}</a>' if href else ""


def _verdict(report: DoctorReport) -> None:
    b = dv.banner(report)
    {"success": st.success, "warning": st.warning, "error": st.error}[b.kind](b.text, icon=":material/healing:")
    c = dv.counts(report)
    cols = st.columns(4)
    cols[0].metric("round trip", f"{report.roundtrip.equal}/{report.roundtrip.total}")
    cols[1].metric("causes", c["cause"])
    cols[2].metric("warnings", c["warning"])
    cols[3].metric("fixes", len(report.fixes))


def _route(report: DoctorReport, links: dict[str, str | None]) -> None:
    st.subheader("Route")
    st.markdown(f"Handler **`{report.handler}`**. {ui.md_escape(report.route.why)}")
    if report.route.evidence:
        sh.table(dv.evidence_rows(report))
    for p in report.route.patches:
        st.caption(ui.md_escape(f"source patch: {p}"))
    for w in report.route.workarounds:
        st.caption(ui.md_escape(f"message workaround: {w}"))
    if links["analysis"]:
        st.html(_link("See the analysis behind this route on the Analysis page", links["analysis"]))


def _health(report: DoctorReport, text: str) -> None:
    st.subheader("Template health")
    found = dv.health_findings(report)
    if not found:
        st.success("llama.cpp's reading of the template holds: the template's own replies of every kind parse back.")
    else:
        sh.table(dv.finding_rows(found))
    probes = dv.probe_links(report, sh.current_request(), text)
    if probes:
        st.html("Open a probe behind a finding: " + " · ".join(_link(p, href) for p, href in probes))
    for s in report.skipped:
        st.caption(ui.md_escape(f"skipped: {s}"))


def _roundtrip(report: DoctorReport, text: str) -> None:
    st.subheader("Round trip")
    st.caption("Every assistant message rendered as a history turn, cut out and parsed back with llama.cpp's "
               "next-turn parser, under both thinking settings. Each difference says whose doing it is: the template "
               "(it does not render the field in history turns), llama.cpp (its parser does not give back what the "
               "template rendered), or the request.")
    if not report.cases:
        st.info(ui.md_escape("No round trip: " + ("; ".join(report.skipped) or "the template cannot be rendered.")))
        return
    losses = dv.roundtrip_findings(report)
    if losses:
        sh.table(dv.finding_rows(losses))
    with st.expander("Per message and thinking setting", expanded=False):
        sh.table(dv.case_rows(report))
    request = sh.current_request()
    opened = [(c, dv.try_href(report, request, text, c)) for c in dv.losing_cases(report)]
    opened = [(c, href) for c, href in opened if href]
    if opened:
        st.html("Open a reply that loses something in Try it: " + " · ".join(
            _link(f"{c.message_id} (thinking {str(c.enable_thinking).lower()})", href) for c, href in opened))
    grammar = dv.grammar_findings(report)
    st.markdown("**Grammar engine**")
    if grammar:
        sh.table(dv.finding_rows(grammar))
    else:
        st.caption("The request's grammar accepted every reply that round-trips and refused the mangled ones.")


def _fixtures(report: DoctorReport, text: str) -> None:
    st.subheader("Fixture family")
    run = report.fixtures
    if run is None:
        st.info("No canitoolcall fixture family writes this template's format (by the markers its outputs use).")
        return
    st.markdown(f"canitoolcall family **{run.match.name}** (`{run.match.slug}`): the fixtures of "
                + ", ".join(f"`{m.model}`" for m in run.match.models)
                + ", each replayed as llama-server would (one user turn, the fixture's tools and thinking flag).")
    st.caption(ui.count_scope(run.match.slug, run.match, "doctor"))
    counts = run.counts()
    cols = st.columns(4)
    for col, status in zip(cols, ("pass", "soft_pass", "fail", "error"), strict=True):
        col.metric(status, counts.get(status, 0))
    sh.table(dv.fixture_rows(report))
    failures = dv.fixture_failure_rows(report)
    if failures:
        with st.expander(f"{len(run.failures)} fixture(s) not parsed as expected"):
            sh.table(failures)
    href = dv.page_href(sh.current_request(), text, "fixtures", focus=run.match.slug)
    if href:
        st.html(_link("Open the family on the Fixtures page", href))


def _unfixed(report: DoctorReport) -> None:
    rows = dv.unfixed_rows(report)
    if rows:
        st.markdown(f"**No sound fix** for {len(rows)} failure class(es), and why:")
        sh.table(rows)
    withdrawn = dv.withdrawn_rows(report)
    if withdrawn:
        with st.expander(f"{len(withdrawn)} fix(es) withdrawn by the acceptance standard"):
            sh.table(withdrawn)


def _design(report: DoctorReport) -> None:
    rows = dv.design_rows(report)
    if rows:
        st.subheader("By design")
        st.caption("What the template does on purpose, and the lines that show it. A loss one of these makes is "
                   "a design choice, not a defect: it stays out of the verdict's losses and is never fixed.")
        sh.table(rows)


def _apply(fix: Fix) -> None:
    """Apply the fix as the What-if: every page then shows the fixed template (or the
    overridden analysis, or the changed request), with the fix's checks beside it."""
    current = sh.active()
    base = current.base
    if base is None:
        return
    whatif = dv.fix_whatif(fix, base.text, current.whatif)
    sh.reset_whatif_widgets()
    sh.set_whatif(base.sha256, whatif)
    st.session_state[dv.APPLIED_FIX_STATE] = dv.AppliedFix(base.sha256, whatif, fix.summary, fix.checks)


BUG_FIX_KEY = "doc_bug_fix"  # the fix the bug report carries (a ``dv.fix_choices`` entry)


def _choose(choice: str) -> None:
    st.session_state[BUG_FIX_KEY] = choice


def _fixes(report: DoctorReport) -> None:
    st.subheader("Fixes")
    if not report.fixes:
        st.caption("No verified fix." if report.verdict != "full" else "Nothing to fix.")
        _unfixed(report)
        return
    choices = dv.fix_choices(report)
    for i, fix in enumerate(report.fixes):
        view = dv.fix_view(fix, report.template)
        with st.expander(ui.md_escape(view.title), expanded=i == 0):
            st.markdown(ui.md_escape(view.before_after))
            if view.body:
                st.code(view.body, language=view.language)
            for note in view.notes:
                st.caption(ui.md_escape(note))
            for j, d in enumerate(view.downloads):
                st.download_button(d.label, d.data, file_name=d.file_name, mime=d.mime, key=f"doc_fix_{i}_{j}")
            st.markdown("**The acceptance standard's checks**")
            sh.table(dv.check_rows(fix.checks))
            b1, b2 = st.columns(2)
            b1.button("Add to bug report", key=f"doc_fix_bug_{i}", on_click=_choose, args=(choices[i + 1],),
                      help="The bug report below proposes this fix (kind, round trip before and after, the change).")
            b2.button("Apply this fix as the What-if", key=f"doc_fix_apply_{i}", on_click=_apply, args=(fix,),
                      help="Every page then shows the fixed template (or the overridden analysis, or the changed "
                           "request); the Analysis page's What if… section shows these checks beside it.")
    _unfixed(report)


def _bug_report(report: DoctorReport, text: str) -> None:
    source = sh.active().source
    if source is None or report.verdict == "full":
        return
    choices = dv.fix_choices(report)
    if st.session_state.get(BUG_FIX_KEY) not in choices:
        st.session_state[BUG_FIX_KEY] = choices[0]
    with st.expander("Bug report (Markdown for a llama.cpp or model issue)",
                     expanded=st.session_state[BUG_FIX_KEY] != choices[0]):
        choice = st.selectbox("Fix to propose", choices, key=BUG_FIX_KEY,
                              help="Try it's bug report offers the fix chosen here too.")
        fix = dv.chosen_fix(report, choice)
        if fix is not None:
            st.session_state[dv.CHOSEN_FIX_STATE] = (report.sha256, fix)
        else:
            st.session_state.pop(dv.CHOSEN_FIX_STATE, None)
        spec = template_spec(sh.current_request(), source)
        md = dv.bug_report(report, source_name=source.display_name, source_origin=source.origin,
                           template_text=text, fix=fix, template_label=spec.label, reproduce=doctor_reproduce(spec))
        st.code(md, language="markdown")
        st.download_button("Download bug-report.md", md, file_name="bug-report.md", mime="text/markdown",
                           key="doc_bug_download")


def main() -> None:
    st.caption("The template doctor: what is wrong with this template for llama.cpp, where in the template it "
               "comes from, and fixes verified by running our own pipeline again.")
    session = sh.page_session()
    if session is None:
        return
    c1, c2 = st.columns(2)
    fixes = c1.toggle("Search for fixes", value=True, key="doc_fixes")
    both = c2.toggle("Grammar verdicts for both thinking settings", value=False, key="doc_grammar_both",
                     help="By default the grammar checks the replies of llama-server's default thinking setting only.")
    source = sh.active().source
    name = source.display_name if source is not None else "template"
    scope: GrammarScope = "both" if both else "default"
    report = sh.guarded(lambda: _report(sh.session_key(session), session.dialect, fixes, scope, name,
                                        session), session.text, context="doctoring the template")
    if report is None:
        return
    links = {"analysis": dv.page_href(sh.current_request(), session.text, "analysis")}
    _verdict(report)
    _route(report, links)
    _health(report, session.text)
    _roundtrip(report, session.text)
    _fixtures(report, session.text)
    _design(report)
    _fixes(report)
    real.doctor(session, report.to_json())
    _bug_report(report, session.text)
    d = dv.json_download(report)
    st.download_button(d.label, d.data, file_name=d.file_name, mime=d.mime, key="doc_json")


sh.require_app()
main()
