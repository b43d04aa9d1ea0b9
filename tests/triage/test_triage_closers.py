"""closer-near-miss: a closing tag spelt almost right, on our own example and routed templates.

The closers come from the template text (asserted there): chatml-think-tools closes a call
with ``</tool_call>``, the Qwen3-Coder-routed template (tests/cases.py TAGGED) a value with
``</parameter>``. A misspelt closer is the cause (never "the output was cut off"), its
headline names what was written and what llama.cpp needs, and the corrected output is
shown only once our parse of it gives the call back.
"""

from __future__ import annotations

from cases import QWEN_CALL, WEATHER_CITY, assert_headline, assert_one_place, checks_of, only
from explorer.apply import Request
from explorer.apply.pipeline import apply_template
from explorer.sources import from_example
from explorer.triage import diagnose

CHATML = from_example("chatml-think-tools").text
CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
REQ = Request(messages=({"role": "user", "content": "hi"},), tools=(WEATHER_CITY,))


def chatml(output: str):
    return diagnose(apply_template(CHATML, REQ), REQ, output)


def test_the_templates_close_as_the_tests_assume(qwen):
    assert "</tool_call>" in CHATML
    assert "</parameter>" in qwen.text


def test_a_misspelt_call_closer_fails_the_parse():
    output = CALL.replace("</tool_call>", "</tool-call>")
    d = chatml(output)
    f = only(d, "closer-near-miss")
    at = output.index("</tool-call>")
    assert d.error is not None and f.severity == "cause" and f.span == (at, len(output))
    assert (f.expected, f.found, f.fix_where) == ("</tool_call>", "</tool-call>", "model")
    assert f.suggestion is not None and f.suggestion.text == CALL and "1 tool call" in f.suggestion.verified
    assert_headline(d, wrote="</tool-call>", expects='"</tool_call>"', fix="model", at=at)
    assert_one_place(d)


def test_a_misspelt_value_closer_is_no_cut_off_output(qwen):
    """The value runs on to the end: llama.cpp returns the call, partial, without an error; the
    triage blames the misspelt tag, not max_tokens."""
    good = QWEN_CALL.format(city="Paris")
    output = good.replace("</parameter>", "</paramter>")
    req = qwen.request(tools=[WEATHER_CITY])
    d = qwen.diagnose(output, req)
    assert d.error is None and "</paramter>" in d.message.tool_calls[0].arguments
    f = only(d, "closer-near-miss")
    assert f.expected == "</parameter>" and f.found == "</paramter>" and "runs on past it" in f.summary
    assert "call-cut-off" not in checks_of(d)
    assert all(g.fact != "output-cut-off" for g in d.findings) and "max_tokens" not in d.headline
    args = only(d, "arguments-json")
    assert args.fix_where == "model" and "(see closer-near-miss)" in args.summary and "closer-near-miss" in args.see
    assert f.suggestion is not None and f.suggestion.text == good
    assert_headline(d, wrote="</paramter>", expects='"</parameter>"', fix="model", at=output.index("</paramter>"))


def test_the_exact_closer_is_no_near_miss(qwen):
    assert "closer-near-miss" not in checks_of(chatml(CALL))
    assert "closer-near-miss" not in checks_of(qwen.diagnose(QWEN_CALL.format(city="Paris"),
                                                              qwen.request(tools=[WEATHER_CITY])))
    # a look-alike inside content that parsed is the model's business
    prose = "Use </tool-call> to end a call."
    assert "closer-near-miss" not in checks_of(chatml(prose))
