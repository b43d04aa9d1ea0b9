"""One fact, one fix_where: the Doctor, Try it's triage and the template health blame a loss alike.

Our Llama-3.2-style template (tests/cases.py LLAMA32_PYTHONIC) renders a call llama.cpp's
parser does not give back. The Doctor (its health findings and its round-trip losses) and
the triage of the template's own call (the Try it page's "Why this result?") put that fix in
one place (``explorer.triage.blame``: the parser loses what the template renders, which is
llama.cpp's, whose autoparser reads the template), and a cut-off call's findings agree too.
"""

from __future__ import annotations

from cases import LLAMA32_PYTHONIC, QWEN_CALL, WEATHER_CITY, assert_headline
from explorer.doctor.report import doctor
from explorer.session import open_session
from explorer.sources import from_text
from explorer.triage import blame

SESSION = open_session(from_text(LLAMA32_PYTHONIC))


def test_the_doctor_and_the_triage_blame_the_lost_call_alike():
    report = doctor(SESSION, fixes=False, fixtures=False, grammar="none")
    health = [f for f in report.findings if f.source == "health" and f.check == "template-reply-fails"]
    assert health and {f.where for f in health} == {blame.FACT_FIX_WHERE["parser-loses"]} == {"llama.cpp"}
    losses = [loss for case in report.cases for loss in case.losses if loss.kind == "parser-loses"]
    assert losses and {loss.where for loss in losses} == {"llama.cpp"}
    request = SESSION.request(tools=[WEATHER_CITY])
    d = SESSION.diagnose(SESSION.own_call(request), request)  # what Try it shows for the template's own call
    assert {f.fix_where for f in d.findings if f.check == "template-reply-fails"} == {"llama.cpp"}
    assert {f.fix_where for f in d.findings if f.severity != "info"} == {"llama.cpp"}
    assert_headline(d, fix="llama.cpp")


def test_every_finding_on_a_cut_off_call_puts_the_fix_in_the_request(qwen):
    output = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Par'
    from explorer.sources import from_example

    s = open_session(from_example("chatml-think-tools"))
    d = s.diagnose(output, s.request(tools=[WEATHER_CITY]))
    cut = [f for f in d.findings if f.fact == "output-cut-off"]
    assert len(cut) >= 2 and {f.fix_where for f in cut} == {"request"}  # (several checks state it)
    assert_headline(d, fix="request")
    tagged = QWEN_CALL.format(city="Paris")[:60]
    d = qwen.diagnose(tagged, qwen.request(tools=[WEATHER_CITY]))
    assert {f.fix_where for f in d.findings if f.fact == "output-cut-off"} == {"request"}
