"""The misread-template path speaks once: every finding on the output defers to the template's.

Our own Llama-3.2-style template (tests/cases.py LLAMA32_PYTHONIC) is one llama.cpp's
autoparser misreads: its markers hold the probes' own text, and the template's own call does
not parse back (its health findings are causes). On any output of it the headline tells the
template's misreading, each finding on the output puts its fix where the template's goes,
and no model-side or request-side advice is left that the misreading makes useless: the
template's own call still fails under tool_choice "required", so "use tool_choice required"
is not said. A healthy template keeps its advice.
"""

from __future__ import annotations

from cases import LLAMA32_PYTHONIC, PYTHONIC_CALL, WEATHER_CITY, assert_headline
from explorer.session import open_session
from explorer.sources import from_example, from_text
from explorer.triage import consistency

SESSION = open_session(from_text(LLAMA32_PYTHONIC))
REQUEST = SESSION.request(tools=[WEATHER_CITY])


def test_the_template_is_misread_and_its_own_call_fails_even_with_tool_choice_required():
    assert SESSION.health.broken
    own = SESSION.own_call(REQUEST)
    assert own is not None and PYTHONIC_CALL in own
    assert SESSION.parse(own, REQUEST).error is not None
    required = SESSION.request(tools=[WEATHER_CITY], tool_choice="required")
    assert SESSION.parse(SESSION.own_call(required), required).error is not None


def test_every_finding_on_the_output_defers_to_the_template():
    for output in (PYTHONIC_CALL, "Sure. " + PYTHONIC_CALL, "The weather is fine."):
        d = SESSION.diagnose(output, REQUEST)
        lead = d.lead
        assert lead is not None and lead.check.startswith("template-"), output
        assert_headline(d, fix="llama.cpp", says=("llama.cpp's autoparser misread this template",))
        for f in d.findings:
            if f.check.startswith("template-") or f.severity == "info":
                continue
            assert f.fix_where == "llama.cpp", (f.check, f.fix_where)
            assert consistency.DEFERS in f.fix_hint and "Model side" not in f.fix_hint, f.fix_hint
            assert f"(see {lead.check})" in f.summary and lead.check in f.see
            assert f.suggestion is None or "template's own call" in f.suggestion.verified
        # the no-call-opener finding's request advice was never verified on this template: not given
        assert all('tool_choice "required"' not in f.fix_hint for f in d.findings), output


def test_the_template_is_told_once_in_full():
    d = SESSION.diagnose(PYTHONIC_CALL, REQUEST)
    text = d.to_text()
    template = [f for f in d.findings if f.check.startswith("template-")]
    lead, rest = template[0], template[1:]
    assert lead is d.lead and f"why: {lead.detail}" in text
    assert rest and all(f in d.folded for f in rest)
    assert all(f"[{f.severity}] {f.check}:" in text for f in rest)  # one line each: no field, no why
    assert all(f"    field {f.field}" not in text for f in rest if f.field and f.field != lead.field)
    assert all(f"    field {f.field}" in d.to_text(verbose=True) for f in template if f.field)


def test_a_healthy_template_keeps_its_advice():
    s = open_session(from_example("chatml-think-tools"))
    req = s.request(tools=[WEATHER_CITY])
    output = '<tool_call>\n{"name": "get_wether", "arguments": {"city": "Paris"}}\n</tool_call>'
    d = s.diagnose(output, req)
    assert not s.health.broken
    f = d.by_check("unknown-function")[0]
    assert f.fix_where == "model" and "Model side" in f.fix_hint and consistency.DEFERS not in f.fix_hint
    assert_headline(d, wrote="get_wether", expects='"get_weather"', fix="model", at=output.index("get_wether"))
