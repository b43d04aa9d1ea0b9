"""Try it page: parse raw model output with the parser llama.cpp builds for this template.

Input: the chosen template's ``TemplateSession``, the request the shared controls build
and the raw output the user types (or a sample, a round-trip reply, a link's output), and
optionally llama-server's log (``app_sections.log``). Output: the generation prompt and
prompt, the parsed message (``session.parse``), "Why this result?" (``session.diagnose``;
``session.diagnose_log`` with a log about this output, its findings first), a routed
template's handler beside the autoparser (``session.parse_routes``), the output tinted by
the parse tree, the streaming scrubber (``session.stream``), a bug report (proposing the fix
chosen on the Doctor page for this template, when there is one), and the round trip
(``session.roundtrip``); with a real llama.cpp build configured, its answer beside the
port's (``app_sections.llama_cpp``).
"""

from __future__ import annotations

import json

import streamlit as st

import app_state as sh
from app_sections import llama_cpp as real
from app_sections import log as logs
from app_sections import roundtrip as rts
from app_sections import why as ws
from app_sections.roundtrip import OUTPUT_KEY
from explorer import ui_support as ui
from explorer.apply import Request
from explorer.apply.pipeline import ChatParams
from explorer.errors import ExplorerError
from explorer.output.parse import ChatMessage, OutputParse
from explorer.routing import AUTOPARSER
from explorer.session import PURE_CONTENT, TemplateSession
from explorer.triage import Diagnosis
from explorer.ui_support import roundtrip_view as rv
from explorer.ui_support import stream_check
from explorer.ui_support.bug_report import try_bug_report
from explorer.ui_support.links import CHOSEN_FIX_STATE

UNCONSUMED = "not consumed by the parser"
STREAM_LIMIT = 20_000  # characters; longer outputs are parsed but not scrubbed
SAMPLES = (("reply", "plain reply"), ("call", "tool call"), ("reasoning+call", "reasoning + tool call"))


def _message(msg: ChatMessage) -> None:
    c1, c2 = st.columns(2)
    with c1:
        st.markdown("**content**")
        st.html(ui.mono_block(ui.visible_whitespace_html(msg.content) or '<span style="color:#999">∅</span>'))
    with c2:
        st.markdown("**reasoning_content**")
        st.html(ui.mono_block(ui.visible_whitespace_html(msg.reasoning_content) or '<span style="color:#999">∅</span>'))
    st.markdown(f"**tool_calls** ({len(msg.tool_calls)})")
    if msg.tool_calls:
        sh.table([{"#": str(i), "name": c.name, "arguments": c.arguments, "id": c.id or "(none: llama-server makes one up)"}
                  for i, c in enumerate(msg.tool_calls)])


def _coloured(parsed: OutputParse, generation_prompt: str, by: str) -> None:
    g = len(generation_prompt)
    nodes = parsed.result.nodes
    gen_html, legend = ui.spans_html(generation_prompt, ui.ast_spans(nodes, by=by))
    out_spans = ui.ast_spans(nodes, by=by, offset=g)
    end = parsed.result.end
    if end < len(parsed.input):
        # where the parser stopped: the rest of the output was never consumed
        out_spans.append(ui.Span(max(0, end - g), len(parsed.input) - g, UNCONSUMED))
        legend = {UNCONSUMED: "#ff6b6b", **legend}
    out_html, legend = ui.spans_html(parsed.input[g:], out_spans, colours=legend)
    if generation_prompt:
        st.caption("Generation prompt (llama.cpp parses it in front of the output):")
        st.html(ui.mono_block(gen_html, border="#bbb"))
    st.caption("Model output, tinted by the parser " + ("tag" if by == "tag" else "rule") + " that consumed each span:")
    st.html(ui.mono_block(out_html or '<span style="color:#999">∅ (empty output)</span>'))
    if legend:
        st.html(ui.legend_html(legend))


def _scrubber(session: TemplateSession, request: Request, text: str, parsed: OutputParse, partial: bool) -> None:
    st.subheader("Streaming")
    if len(text) > STREAM_LIMIT:
        st.info(f"The output is longer than {STREAM_LIMIT} characters; the scrubber is off for it.")
        return
    with st.spinner("Streaming the output character by character…"):
        steps = sh.guarded(lambda: session.stream(text, request), context="streaming")
    if not steps:
        return
    throws = sum(1 for s in steps if s.error is not None)
    said = None if partial else stream_check.disagreement(steps[-1].message, steps[-1].error, parsed.message,
                                                          parsed.error)
    if said:
        st.warning(f"**Streaming and non-streaming disagree**: {ui.md_escape(said)}.", icon=":material/sync_problem:")
    st.caption(f"llama-server re-parses the accumulated text after every token; here after every character "
               f"({len(steps)} prefixes, {throws} threw).")
    n = st.slider("Characters received", 1, len(steps), len(steps), key="try_scrub") if len(steps) > 1 else 1
    step = steps[n - 1]
    st.html(ui.mono_block(ui.visible_whitespace_html(text[:n]) + '<span style="background:#333;color:#fff">▏</span>'
                          + f'<span style="color:#ccc">{ui.visible_whitespace_html(text[n:n + 80])}</span>'))
    if step.error is not None:
        st.error(ui.md_escape(f"This prefix does not parse: {step.error}"))
    if step.message is not None:
        st.markdown("**Partial message**")
        _message(step.message)
    deltas = step.openai_deltas()
    st.markdown(f"**Deltas sent for this step** ({len(deltas)})")
    st.json(deltas, expanded=True)
    if step.diff_error is not None:
        st.warning(ui.md_escape(f"The message diff failed here: {step.diff_error}"))


DIFFERS = "#e8590c"


def _side(value: ChatMessage | ExplorerError | None, differing: set[str]) -> None:
    if value is None or isinstance(value, Exception):
        st.html(ui.mono_block(f"throws: {ui.visible_whitespace_html(str(value))}", border=DIFFERS))
        return
    shown = {"content": value.content, "reasoning_content": value.reasoning_content,
             "tool_calls": json.dumps([c.to_json() for c in value.tool_calls], ensure_ascii=False, indent=1)}
    for name, text in shown.items():
        mark = " ≠ differs" if name in differing else ""
        st.markdown(f"**{name}**{mark}")
        st.html(ui.mono_block(ui.visible_whitespace_html(text) or '<span style="color:#999">∅</span>',
                              border=DIFFERS if mark else "#ddd"))


def _versus(session: TemplateSession, request: Request, text: str, partial: bool) -> None:
    """A routed template: llama.cpp's handler next to what the autoparser would have given."""
    st.subheader("Handler vs autoparser")
    comparison = sh.guarded(lambda: session.compare_routes(request), context="building the autoparser's parser")
    if comparison is None:
        return
    c1, c2 = st.columns(2)
    c1.markdown(f"**llama.cpp (handler `{comparison.handler.handler}`)**")
    c2.markdown("**autoparser would give**")
    if comparison.autoparser is None:
        c2.caption("The autoparser builds no parser for this template:")
    both = sh.guarded(lambda: session.parse_routes(text, request, partial=partial), context="parsing with both")
    if both is None:
        return
    left, right, diffs = both
    differing = {d.field for d in diffs}
    st.caption("The two agree on this output." if not diffs else
               "They disagree on: " + ", ".join(sorted(differing)) + " (outlined).")
    with c1:
        _side(left, differing)
    with c2:
        _side(right, differing)


def _bug_report(session: TemplateSession, params: ChatParams, request: Request, text: str, parsed: OutputParse,
                why: Diagnosis | None, partial: bool) -> None:
    source = sh.active().source
    if source is None:
        return
    with st.expander("Bug report (Markdown for a llama.cpp issue)"):
        result = parsed.message.to_oracle_json() if parsed.message is not None else {"exception": str(parsed.error)}
        held = st.session_state.get(CHOSEN_FIX_STATE)
        fix = held[1] if isinstance(held, tuple) and held[0] == session.sha256 else None
        if fix is not None and not st.checkbox(f"Propose the fix chosen on the Doctor page: {ui.md_escape(fix.summary)}",
                                               value=True, key="try_bug_fix"):
            fix = None
        analysis = None if session.analysis_error is not None else session.analysis
        public = sh.app_options().public_url
        md = try_bug_report(
            source=source, source_request=sh.current_request(), request=request, handler=params.handler,
            raw_output=text, parsed_json=json.dumps(result, indent=2, ensure_ascii=False),
            analysis_json=json.dumps(analysis.to_oracle_json(), indent=2, ensure_ascii=False) if analysis else None,
            findings=why.findings if why is not None else None, fix=fix, partial=partial,
            public_url=public, query=st.session_state.get("_try_query"))
        st.caption("It carries what reproduces the case anywhere: the template (its example or Hub id, or the "
                   "template itself), the request, the output and the CLI commands."
                   + ("" if public else " The app's own link is left out: this app runs without --public-url, "
                                         "so its address means nothing to others."))
        st.code(md, language="markdown")
        st.download_button("Download bug-report.md", md, file_name="bug-report.md", mime="text/markdown")


def _samples(session: TemplateSession, request: Request) -> None:
    cols = st.columns(len(SAMPLES) + 1)
    cols[0].caption("Fill with the template's own rendering of a")
    for col, (kind, label) in zip(cols[1:], SAMPLES):
        if col.button(label, key=f"try_sample_{kind}"):
            sample = sh.guarded(lambda: session.sample_reply(kind, request), session.text,
                                context="rendering a sample")
            if sample is None:
                st.warning("The template renders that turn differently from its generation prompt, so no sample "
                           "can be cut out of it; type an output instead.")
            else:
                st.session_state[OUTPUT_KEY] = sample


def main() -> None:
    incoming = sh.take_incoming_output()
    if incoming is not None:
        st.session_state[OUTPUT_KEY] = incoming
    session = sh.page_session()
    if session is None or not sh.budget_guard(session, "Parsing model output"):
        return
    sh.health_banner(session)
    request = sh.request_controls("try", session)
    params = None if request is None else sh.guarded(lambda: session.params(request), session.text,
                                                       context="building the parser")
    if request is None or params is None:
        sh.write_permalink("try", with_request=True)
        # the round trip parses with llama.cpp's own parser, so it still answers when the
        # picked dialect cannot build one (transformers refusing a template llama.cpp renders)
        offered = rv.tool_names(request.tools) if request is not None else []
        rts.section(rts.compute(session, sh.settings().thinking), session, offered)
        return
    sh.route_note(params, "parses this template's output")
    st.markdown("**Generation prompt** (what the template adds for the reply; llama.cpp parses it in front of the output)")
    st.html(ui.mono_block(ui.visible_whitespace_html(params.generation_prompt, spaces="all")
                          or '<span style="color:#999">∅ (empty)</span>'))
    with st.expander("The whole prompt llama.cpp renders for this request"):
        st.html(ui.mono_block(ui.visible_whitespace_html(params.prompt)))
    _samples(session, request)
    roundtrip = rts.compute(session, request.enable_thinking)
    offered = rv.tool_names(request.tools)
    if roundtrip[0] is not None:
        rts.alarms(roundtrip[0])
    rts.prefill(roundtrip[0], offered)
    logs.box(session, request)
    text = st.text_area("Raw model output (verbatim, as the model generated it)", key=OUTPUT_KEY, height=160)
    st.session_state["_try_query"] = sh.write_permalink("try", output=text, with_request=True)
    request, notes = sh.output_request(session, request, text)
    for note in notes:
        st.caption(note + " The prompt above is the one for the default tool.")
    if notes:
        params = sh.guarded(lambda: session.params(request), session.text, context="building the parser")
        if params is None:
            return
    c1, c2 = st.columns(2)
    partial = c1.toggle("is_partial (the output may still grow)", key="try_partial")
    by = c2.radio("Colour by", ["tag", "rule"], horizontal=True, key="try_colour_by")
    parsed = sh.guarded(lambda: session.parse(text, request, partial=partial), context="parsing")
    if parsed is not None:
        _results(session, request, params, text, partial, by, parsed)
    rts.section(roundtrip, session, offered)


def _results(session: TemplateSession, request: Request, params: ChatParams, text: str, partial: bool, by: str,
             parsed: OutputParse) -> None:
    st.subheader("Parsed message")
    if parsed.error is not None or parsed.message is None:
        st.error(ui.md_escape(f"{parsed.error} — llama-server answers this request with an error."))
    else:
        _message(parsed.message)
    real.try_it(session, request, text, partial)
    why = _why(session, request, text, partial)
    if params.handler not in (AUTOPARSER, PURE_CONTENT):
        _versus(session, request, text, partial)
    _coloured(parsed, params.generation_prompt, by)
    _scrubber(session, request, text, parsed, partial)
    _bug_report(session, params, request, text, parsed, why, partial)


def _why(session: TemplateSession, request: Request, text: str, partial: bool) -> Diagnosis | None:
    """The "Why this result?" section right under the parsed message; the diagnosis, or None.
    With a pasted log about this output, the log's findings come first."""
    with st.spinner("Explaining the result…"):
        from_log = logs.log_diagnosis(session, request, st.session_state.get(logs.LOG_KEY, ""), text, partial)
        if from_log is not None and from_log.diagnosis is not None and from_log.reading.output == text:
            d: Diagnosis | None = from_log.diagnosis
        else:
            d = sh.guarded(lambda: session.diagnose(text, request, partial=partial), context="explaining the result")
    if d is None:
        return None
    ws.render_why(d)
    return d


sh.require_app()
main()
