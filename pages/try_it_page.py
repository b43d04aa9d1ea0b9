"""Try it page: parse raw model output with the parser llama.cpp builds for this template."""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from explorer import ui_support as ui
from explorer.ui_support import roundtrip_view as rv
from explorer.ui_support import stream_check
from pages import _shared as sh
from pages import _roundtrip_section as rts
from pages import _why_section as ws
from pages._roundtrip_section import OUTPUT_KEY

UNCONSUMED = "not consumed by the parser"
STREAM_LIMIT = 20_000  # characters; longer outputs are parsed but not scrubbed
SAMPLES = (("reply", "plain reply"), ("call", "tool call"), ("reasoning+call", "reasoning + tool call"))


@st.cache_resource(show_spinner=False, max_entries=128)
def _parse(setup_key: tuple[Any, ...], text: str, partial: bool, _setup: sh.ChatSetup) -> Any:
    from explorer.chat_output import analyse_output

    return analyse_output(_setup.arena, text, generation_prompt=_setup.generation_prompt, format=_setup.format,
                          is_partial=partial)


@st.cache_resource(show_spinner="Streaming the output character by character…", max_entries=32)
def _stream(setup_key: tuple[Any, ...], text: str, _setup: sh.ChatSetup) -> list[Any]:
    from explorer.streaming import char_chunks, stream

    return list(stream(_setup.arena, char_chunks(text), generation_prompt=_setup.generation_prompt,
                       format=_setup.format))


def _message(msg: Any) -> None:
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


def _coloured(parsed: Any, generation_prompt: str, by: str) -> None:
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


def _scrubber(setup_key: tuple[Any, ...], text: str, setup: sh.ChatSetup, parsed: Any, partial: bool) -> None:
    st.subheader("Streaming")
    if sh.stage("explorer.streaming") is None:
        sh.not_available("explorer.streaming", "The streaming scrubber")
        return
    if len(text) > STREAM_LIMIT:
        st.info(f"The output is longer than {STREAM_LIMIT} characters; the scrubber is off for it.")
        return
    steps = sh.guarded(lambda: _stream(setup_key, text, setup), context="streaming")
    if not steps:
        return
    throws = sum(1 for s in steps if s.error is not None)
    said = None if partial else stream_check.disagreement(steps[-1].message, steps[-1].error, parsed.message,
                                                          parsed.error)
    if said:
        st.warning(f"**Streaming and non-streaming disagree**: {said}.", icon=":material/sync_problem:")
    st.caption(f"llama-server re-parses the accumulated text after every token; here after every character "
               f"({len(steps)} prefixes, {throws} threw).")
    n = st.slider("Characters received", 1, len(steps), len(steps), key="try_scrub") if len(steps) > 1 else 1
    step = steps[n - 1]
    st.html(ui.mono_block(ui.visible_whitespace_html(text[:n]) + '<span style="background:#333;color:#fff">▏</span>'
                          + f'<span style="color:#ccc">{ui.visible_whitespace_html(text[n:n + 80])}</span>'))
    if step.error is not None:
        st.error(f"This prefix does not parse: {step.error}")
    if step.message is not None:
        st.markdown("**Partial message**")
        _message(step.message)
    deltas = step.openai_deltas()
    st.markdown(f"**Deltas sent for this step** ({len(deltas)})")
    st.json(deltas, expanded=True)
    if step.diff_error is not None:
        st.warning(f"The message diff failed here: {step.diff_error}")


@st.cache_resource(show_spinner=False, max_entries=128)
def _parse_both(setup_key: tuple[Any, ...], text: str, partial: bool, _comparison: Any) -> Any:
    from explorer.handlers.compare import parse_both

    return parse_both(_comparison, text, is_partial=partial)


DIFFERS = "#e8590c"


def _side(value: Any, differing: set[str]) -> None:
    if isinstance(value, Exception):
        st.html(ui.mono_block(f"throws: {ui.visible_whitespace_html(str(value))}", border=DIFFERS))
        return
    shown = {"content": value.content, "reasoning_content": value.reasoning_content,
             "tool_calls": json.dumps([c.to_json() for c in value.tool_calls], ensure_ascii=False, indent=1)}
    for name, text in shown.items():
        mark = " ≠ differs" if name in differing else ""
        st.markdown(f"**{name}**{mark}")
        st.html(ui.mono_block(ui.visible_whitespace_html(text) or '<span style="color:#999">∅</span>',
                              border=DIFFERS if mark else "#ddd"))


def _versus(tmpl: Any, settings: sh.RequestSettings, setup_key: tuple[Any, ...], text: str, partial: bool) -> None:
    """A routed template: llama.cpp's handler next to what the autoparser would have given."""
    st.subheader("Handler vs autoparser")
    comparison = sh.guarded(lambda: sh.route_comparison(tmpl, settings), context="building the autoparser's parser")
    if comparison is None:
        return
    c1, c2 = st.columns(2)
    c1.markdown(f"**llama.cpp (handler `{comparison.handler.handler}`)**")
    c2.markdown("**autoparser would give**")
    if comparison.autoparser is None:
        c2.caption("The autoparser builds no parser for this template:")
    both = sh.guarded(lambda: _parse_both(setup_key, text, partial, comparison), context="parsing with both")
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


def _bug_report(source: Any, setup: sh.ChatSetup, text: str, parsed: Any, why: Any = None) -> None:
    with st.expander("Bug report (Markdown for a llama.cpp issue)"):
        result = parsed.message.to_oracle_json() if parsed.message is not None else {"exception": str(parsed.error)}
        analysis = sh.analysis(sh.compiled(source))
        md = ui.bug_report_markdown(
            title=f"Chat parsing of {source.display_name}: unexpected result",
            source_name=source.display_name, source_origin=source.origin, sha256=source.sha256,
            template_text=source.text, handler=setup.handler,
            analysis_json=json.dumps(analysis.to_oracle_json(), indent=2, ensure_ascii=False),
            raw_output=text, parsed_json=json.dumps(result, indent=2, ensure_ascii=False),
            permalink=sh.permalink_url(st.session_state.get("_try_query")),
            findings=why.findings if why is not None else None,
        )
        st.code(md, language="markdown")
        st.download_button("Download bug-report.md", md, file_name="bug-report.md", mime="text/markdown")


def _samples(tmpl: Any, settings: sh.RequestSettings) -> None:
    cols = st.columns(len(SAMPLES) + 1)
    cols[0].caption("Fill with the template's own rendering of a")
    for col, (kind, label) in zip(cols[1:], SAMPLES):
        if col.button(label, key=f"try_sample_{kind}"):
            sample = sh.guarded(lambda: sh.sample_output(tmpl, settings, kind), tmpl.source, context="rendering a sample")
            if sample is None:
                st.warning("The template renders that turn differently from its generation prompt, so no sample "
                           "can be cut out of it; type an output instead.")
            else:
                st.session_state[OUTPUT_KEY] = sample


def main() -> None:
    st.title("Try it")
    loaded = sh.active_template()
    if loaded is None:
        sh.write_permalink("try", None)
        return
    source, tmpl, _ = loaded
    sh.source_caption(source)
    incoming = sh.take_incoming_output()
    if incoming is not None:
        st.session_state[OUTPUT_KEY] = incoming
    if tmpl is None:
        sh.write_permalink("try", source)
        return
    missing = sh.missing_pipeline_stage()
    if missing is not None or sh.stage("explorer.chat_output") is None:
        sh.write_permalink("try", source)
        sh.not_available(missing or "explorer.chat_output", "Parsing model output")
        return
    if not sh.budget_guard(tmpl, "Parsing model output"):
        sh.write_permalink("try", source)
        return
    settings = sh.request_controls("try")
    setup = sh.guarded(lambda: sh.chat_setup(tmpl, settings), source.text, context="building the parser")
    if setup is None:
        sh.write_permalink("try", source)
        # the round trip parses with llama.cpp's own parser, so it still answers when the
        # picked dialect cannot build one (transformers refusing a template llama.cpp renders)
        offered = sh.guarded(lambda: rv.tool_names(ui.parse_tools_json(settings.tools_json)), context="tools")
        rts.section(rts.compute(source, settings), source, offered or [], tmpl.dialect)
        return
    sh.route_note(setup, "parses this template's output")
    st.markdown("**Generation prompt** (what the template adds for the reply; llama.cpp parses it in front of the output)")
    st.html(ui.mono_block(ui.visible_whitespace_html(setup.generation_prompt, spaces="all")
                          or '<span style="color:#999">∅ (empty)</span>'))
    with st.expander("The whole prompt llama.cpp renders for this request"):
        st.html(ui.mono_block(ui.visible_whitespace_html(setup.prompt)))
    _samples(tmpl, settings)
    roundtrip = rts.compute(source, settings)
    offered = rv.tool_names(ui.parse_tools_json(settings.tools_json))
    if roundtrip[0] is not None:
        rts.alarms(roundtrip[0])
    rts.prefill(roundtrip[0], offered)
    text = st.text_area("Raw model output (verbatim, as the model generated it)", key=OUTPUT_KEY, height=160)
    st.session_state["_try_query"] = sh.write_permalink("try", source, output=text, settings=settings)
    c1, c2 = st.columns(2)
    partial = c1.toggle("is_partial (the output may still grow)", key="try_partial")
    by = c2.radio("Colour by", ["tag", "rule"], horizontal=True, key="try_colour_by")
    setup_key = (tmpl.sha256, tmpl.dialect, settings)
    parsed = sh.guarded(lambda: _parse(setup_key, text, partial, setup), context="parsing")
    if parsed is not None:
        _results(tmpl, source, settings, setup, setup_key, text, partial, by, parsed)
    rts.section(roundtrip, source, offered, tmpl.dialect)


def _results(tmpl: Any, source: Any, settings: sh.RequestSettings, setup: sh.ChatSetup, setup_key: tuple[Any, ...],
             text: str, partial: bool, by: str, parsed: Any) -> None:
    st.subheader("Parsed message")
    if parsed.error is not None:
        st.error(f"{parsed.error} — llama-server answers this request with an error.")
    else:
        _message(parsed.message)
    why = _why(tmpl, settings, text, partial)
    if setup.handler not in ("autoparser", sh.PURE_CONTENT):
        _versus(tmpl, settings, setup_key, text, partial)
    _coloured(parsed, setup.generation_prompt, by)
    _scrubber(setup_key, text, setup, parsed, partial)
    _bug_report(source, setup, text, parsed, why)


def _why(tmpl: Any, settings: sh.RequestSettings, text: str, partial: bool) -> Any:
    """The "Why this result?" section right under the parsed message; the diagnosis, or None."""
    d = sh.guarded(lambda: ws.diagnosis(tmpl, settings, text, partial), context="explaining the result")
    if d is None:
        return None
    ws.render_why(d)
    return d


sh.require_app()
main()
