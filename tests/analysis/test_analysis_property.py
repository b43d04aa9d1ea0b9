"""Property: any template assembled from chat-template pieces is analysed without a
crash -- the result, or llama.cpp's own throw (AnalysisError), never anything else."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.analysis import analyze_template
from explorer.caps import Caps
from explorer.errors import AnalysisError, ExplorerError
from explorer.render import compile_template

TEXT = st.lists(st.sampled_from([
    "<a>", "</a>", "[X]", "[/X]", "<|im_start|>", "<|im_end|>", "\n", " ", "<think>", "</think>",
    "{", "}", '"', ":", "<", ">", "[", "]", "é", "<｜tool▁sep｜>",
]), max_size=3).map("".join)
CALL_PART = st.sampled_from([
    '{"name": "{{ tc.function.name }}"', ', "arguments": {{ tc.function.arguments | tojson }}}',
    '"{{ tc.id }}"', "[{", "}]", "{{ tc.function.name }}", "{{ tc.id }}", "{{ tc.function.arguments | tojson }}",
    "{% for k, v in tc.function.arguments.items() %}<k>{{ k }}</k>{{ v }}{% endfor %}",
])


@st.composite
def templates(draw) -> str:
    call = "".join(draw(CALL_PART) + draw(TEXT) for _ in range(draw(st.integers(1, 3))))
    return (
        "{% for m in messages %}" + draw(TEXT) + "{{ m.role }}" + draw(TEXT)
        + "{% if m.reasoning_content %}" + draw(TEXT) + "{{ m.reasoning_content }}" + draw(TEXT) + "{% endif %}"
        + "{% if m.tool_calls %}" + draw(TEXT) + "{% for tc in m.tool_calls %}" + call + "{% endfor %}"
        + draw(TEXT) + "{% else %}{{ m.content }}{% endif %}" + draw(TEXT) + "{% endfor %}"
        + "{% if add_generation_prompt %}" + draw(TEXT)
        + "{% if enable_thinking %}" + draw(TEXT) + "{% endif %}{% endif %}"
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(templates(), st.booleans())
def test_analysis_never_crashes(text: str, parallel: bool) -> None:
    try:
        tmpl = compile_template(text)
    except ExplorerError:
        return
    try:
        analysis = analyze_template(tmpl, Caps(supports_parallel_tool_calls=parallel))
    except AnalysisError as exc:
        assert exc.location is not None and exc.location.probe
        return
    out = analysis.to_oracle_json()
    assert out["analysis_complete"] is True
    assert all(isinstance(t, str) and t and t == t.strip() for t in out["preserved_tokens"])
    for probe in analysis.probes:
        probe.to_json()
