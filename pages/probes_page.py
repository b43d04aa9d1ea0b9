"""Probes page: every probe pair the autoparser rendered, side by side, with its diff.

Input: the chosen template's ``TemplateSession`` (its analysis' probe trace, or the trace
up to the throw when llama.cpp's analysis throws) and the probe a link focuses. Output:
per probe its outputs A and B tinted by the diff, the split before and after tag-boundary
fixing, its failure with the template line, the fields it set and its inputs.
"""

from __future__ import annotations

from enum import Enum

import streamlit as st

import app_state as sh
from explorer import ui_support as ui
from explorer.analysis.probes import PROBES, Probe
from explorer.errors import AnalysisError, ExplorerError
from explorer.session import TemplateSession
from explorer.ui_support.probe_view import field_steps, probe_sides, repeated_fields
from explorer.ui_support.provenance_view import MarkerLine, provenance_html

ALL = "All probes"
CONTEXT_CHARS = 160


@st.cache_data(show_spinner=False, max_entries=512)
def _pair(a: str, b: str, prefix_len: int | None, suffix_len: int | None, context: int | None) -> ui.PairView:
    return ui.pair_view(a, b, prefix_len=prefix_len, suffix_len=suffix_len, context=context)


def _reference(name: str) -> str:
    spec = PROBES.get(name)
    return spec.reference if spec is not None else ""


def _failure(probe: Probe, source_text: str) -> None:
    err = probe.error
    if err is None:
        return
    where = f" at template line {err.line}" if err.line else ""
    st.error(f"Rendering side **{ui.md_escape(err.side or '?')}** threw ({ui.md_escape(err.kind)}){where}: "
             f"{ui.md_escape(err.message)}", icon=":material/error:")
    if err.line:
        first, excerpt = ui.source_excerpt(source_text, err.line)
        st.html(sh.highlighted(excerpt, "jinja", True, (err.line - first + 1,)))
    st.caption("llama.cpp catches this, logs it at debug level and carries on: the analysis "
               "fields this probe would have set keep their defaults.")


def _diff_details(probe: Probe) -> None:
    with st.expander("Tag-boundary fixing: the split before and after, step by step"):
        naive = probe.diff_naive
        if naive is not None:
            st.markdown("**Before** (plain longest common prefix and suffix, characters)")
            st.html(ui.split_html(naive.prefix, naive.left, naive.right, naive.suffix))
        for i, step in enumerate(probe.diff_steps, 1):
            st.markdown(f"**Step {i}: {ui.md_escape(step.name)}**: {ui.md_escape(step.detail)}")
            sp = step.split
            st.html(ui.split_html(sp.prefix, sp.left, sp.right, sp.suffix))
        if not probe.diff_steps:
            st.caption("No step trace was recorded for this probe.")


def _outputs(probe: Probe, output_a: str, output_b: str, full: bool) -> None:
    diff = probe.diff
    sides = probe_sides(probe)
    view = _pair(
        output_a, output_b,
        len(diff.prefix) if diff else None, len(diff.suffix) if diff else None,
        None if full else CONTEXT_CHARS,
    )
    col_a, col_b = st.columns(2)
    with col_a:
        st.markdown(f"**Output A** · {ui.md_escape(sides.a)}")
        st.html(ui.mono_block(view.html_a))
    with col_b:
        st.markdown(f"**Output B** · {ui.md_escape(sides.b)}")
        st.html(ui.mono_block(view.html_b))
    if diff is not None:
        st.markdown("**Split after tag-boundary fixing** (what the analyzers read)")
        st.html(ui.split_html(diff.prefix, diff.left, diff.right, diff.suffix))
    if output_a == output_b:
        st.warning("Outputs A and B are identical: this template ignores what the probe varies.")


def _fields(probe: Probe, session: TemplateSession | None) -> None:
    if probe.fields_set:
        analysis = None if session is None or session.analysis_error is not None else session.analysis
        again = repeated_fields(probe)
        st.markdown("**Fields this probe set, step by step**" + (
            f" (the analyzer sets {', '.join(ui.md_code(f) for f in again)} more than once: each step in turn, "
            "the last one counts)" if again else ""))
        sh.table(field_steps(probe, analysis))
    for note in probe.notes:
        st.caption(f"• {ui.md_escape(note)}")


def _inputs(probe: Probe) -> None:
    with st.expander("Inputs A and B"):
        col_a, col_b = st.columns(2)
        col_a.json(probe.inputs_a.to_json(), expanded=2)
        col_b.json(probe.inputs_b.to_json(), expanded=2)


def _provenance(session: TemplateSession, probe: Probe) -> None:
    """Which template line wrote each span of A and B, and each marker the probe set."""
    lines = sh.guarded(lambda: session.lines.probe_lines(probe.name), session.text, context="tracing the template lines")
    if lines is None:
        return
    markers = []
    for name, value in probe.fields_set:
        if isinstance(value, str) and not isinstance(value, Enum) and value:
            sources = sh.guarded(lambda n=name: session.lines.field(n).sources, context="tracing a marker") or ()
            markers.append(MarkerLine(name, value, sources[0].line if sources else None))
    st.html(provenance_html(lines, markers))


def show_probe(probe: Probe, source_text: str, full: bool, session: TemplateSession | None = None) -> None:
    with st.container(border=True):
        sides = probe_sides(probe)
        st.markdown(f"#### {ui.md_escape(probe.name)} · {ui.md_escape(probe.purpose)}")
        st.markdown(f"**A** renders {ui.md_escape(sides.a)} · **B** renders {ui.md_escape(sides.b)} "
                    f"(they differ in: {ui.md_escape(sides.varies)})")
        ref = _reference(probe.name)
        if ref:
            st.caption(f"llama.cpp: `{ref}` · analyzer: {ui.probe_group(probe.name)}")
        if probe.error is not None:
            _failure(probe, source_text)
        if probe.output_a is not None and probe.output_b is not None:
            _outputs(probe, probe.output_a, probe.output_b, full)
            if session is not None and st.toggle("Which template line wrote each span", key=f"prov_{probe.name}",
                                                 help="Renders the probe again with provenance: hover or click a "
                                                      "span or a marker to see its template line."):
                _provenance(session, probe)
            _diff_details(probe)
        _fields(probe, session)
        _inputs(probe)


def _status(probe: Probe) -> str:
    if probe.error is not None:
        return f"threw ({probe.error.kind})"
    if probe.output_a is not None and probe.output_a == probe.output_b:
        return "identical outputs"
    return "ok"


def main() -> None:
    st.caption("The autoparser never reads the template's code: it renders pairs of inputs (A, B) "
               "and reads the difference. Dimmed text is common to both outputs; tinted text is "
               "only in A (red) or only in B (green), with the exact changed characters in bold.")
    session = sh.page_session()
    if session is None:
        return
    try:
        probes = list(session.analysis.probes)
    except AnalysisError as exc:
        # llama.cpp's analysis threw; the trace up to the throw still shows why
        sh.show_error(exc, session.text, context="running the probes")
        probes = list(exc.probes)
        if not probes:
            return
    except ExplorerError as exc:
        sh.show_error(exc, session.text, context="running the probes")
        return
    names = [p.name for p in probes]

    incoming = sh.take_incoming_focus()
    if incoming in names:
        st.session_state["probe_group"] = "All"
        st.session_state["probe_focus"] = incoming
    groups = ["All", *ui.PROBE_GROUPS]
    c1, c2, c3 = st.columns([3, 3, 2])
    group = c1.radio("Analyzer", groups, horizontal=True, key="probe_group")
    shown = [p for p in probes if group == "All" or ui.probe_group(p.name) == group]
    options = [ALL] + [p.name for p in shown]
    if st.session_state.get("probe_focus") not in options:
        st.session_state["probe_focus"] = ALL
    purpose = {p.name: p.purpose for p in probes}
    focus = c2.selectbox("Probe", options, key="probe_focus",
                         format_func=lambda n: n if n == ALL else f"{n} · {purpose.get(n, '')}")
    full = c3.toggle("Show whole outputs", value=False, key="probe_full",
                     help=f"Otherwise {CONTEXT_CHARS} shared characters are kept on each side of a difference.")
    sh.write_permalink("probes", None if focus == ALL else focus)

    if not probes:
        st.info("The analysis ran no probes for this template.")
        return
    failed = sum(1 for p in probes if p.error is not None)
    st.markdown(f"{len(probes)} probes ran; {failed} threw." if failed else f"{len(probes)} probes ran; none threw.")
    with st.expander("Overview", expanded=False):
        sh.table([{"probe": p.name, "analyzer": ui.probe_group(p.name), "status": _status(p),
                   "fields set": ", ".join(k for k, _ in p.fields_set)} for p in probes])
    for probe in shown:
        if focus == ALL or probe.name == focus:
            show_probe(probe, session.text, full, session if session.analysis_error is None else None)


sh.require_app()
main()
