"""Triage of parses that succeed with the wrong call: arguments that are not JSON, a value
that swallowed what followed, an output that ends inside a call, a reasoning tag left unread.

Outputs are our own, per format family: Qwen3-Coder XML (our ``cases.TAGGED``, routed to
llama.cpp's qwen3-coder handler: a value ends at ``\\n</parameter>\\n``, see
common/parsers/qwen3-coder.cpp), the autoparser's TAG_WITH_TAGGED (the built-in
``tagged-parameters`` example), Hermes-style JSON in ``<tool_call>`` (``chatml-think-tools``)
and, when ../shared/oracle is there, MiniMax-M2's invoke/parameter format (autoparser) and
Qwen3.5 (qwen3-coder handler with reasoning). The format each test assumes is asserted on
the template's own rendering of a call (``sample_reply``), never on the triage's output.
"""

from __future__ import annotations

import json

import pytest

from cases import QWEN_CALL, assert_headline, checks_of, only, remarks
from explorer.session import TemplateSession
from explorer.sources import from_example
from oracle_data import ORACLE, requires_oracle

WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]}}}

HERMES_CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'


def session(source: str) -> TemplateSession:
    return TemplateSession(source)


def why(s: TemplateSession, output: str, **kw):
    return s.diagnose(output, s.request(tools=[WEATHER], **kw))


@pytest.fixture(scope="module")
def hermes() -> TemplateSession:
    s = session(from_example("chatml-think-tools").text)
    assert s.sample_reply("call", s.request(tools=[WEATHER], enable_thinking=False)) == HERMES_CALL
    return s


@pytest.fixture(scope="module")
def tagged() -> TemplateSession:
    s = session(from_example("tagged-parameters").text)
    assert s.handler == "autoparser" and s.analysis.tools.format.mode.value == "TAG_WITH_TAGGED"
    reply = s.sample_reply("call", s.request(tools=[WEATHER], enable_thinking=False))
    assert reply == "<tool_calls>\n" + QWEN_CALL.format(city="Paris")[len("<tool_call>\n"):-len("</tool_call>")] \
        + "</tool_calls>"
    return s


# --- value-swallowed ---------------------------------------------------------------------------


def test_a_value_closed_without_the_newline_swallows_the_next_call(qwen):
    first = QWEN_CALL.format(city="Paris").replace("Paris\n</parameter>", "Paris</parameter>")
    output = first + "\n" + QWEN_CALL.format(city="London")
    d = why(qwen, output)
    assert d.error is None and len(d.message.tool_calls) == 1  # llama.cpp: one call, not two
    f = only(d, "value-swallowed")
    at = output.index("</parameter>")
    # the one place: the closing tag as the model wrote it (the text it swallowed is said in words)
    assert f.severity == "cause" and f.span == (at, at + len("</parameter>\n"))
    assert (f.expected, f.found) == ("\n</parameter>\n", "</parameter>\n")
    assert "1 whole call" in f.summary and '"\\n</parameter>\\n"' in f.rule
    assert f.fix_where == "model" and not f.quirk
    s = f.suggestion
    assert s is not None and s.kind == "output"
    assert s.text == QWEN_CALL.format(city="Paris") + "\n" + QWEN_CALL.format(city="London")
    assert "2 tool calls" in s.verified and "London" in s.verified
    assert "arguments-json" not in checks_of(d) and "call-cut-off" not in checks_of(d)
    assert_headline(d, wrote="</parameter>\n", expects='"\\n</parameter>\\n"', fix="model", at=at)


def test_the_last_value_swallows_the_closing_tags(qwen):
    output = QWEN_CALL.format(city="Paris").replace("Paris\n</parameter>", "Paris</parameter>")
    d = why(qwen, output)
    assert json.loads(d.message.tool_calls[0].arguments + '"}')["city"].startswith("Paris</parameter>")
    f = only(d, "value-swallowed")
    assert f.suggestion is not None and f.suggestion.text == QWEN_CALL.format(city="Paris")
    assert "call-cut-off" not in checks_of(d) and "arguments-json" not in checks_of(d)
    # the swallowed value's arguments no longer decode: the finding says so
    assert "are not JSON either" in f.detail and "a string is still open" in f.detail
    assert_headline(d, wrote="</parameter>\n", fix="model", at=output.index("</parameter>"))


def test_tagged_autoparser_value_swallowed(tagged):
    good = "<tool_calls>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_calls>"
    assert remarks(why(tagged, good, enable_thinking=False)) == ()
    output = good.replace("Paris\n</parameter>", "Paris</parameter>")
    d = why(tagged, output, enable_thinking=False)
    if d.error is not None:
        pytest.skip("this template's parser rejects the output instead")  # pragma: no cover
    f = only(d, "value-swallowed")
    assert f.suggestion is not None and f.suggestion.text == good
    assert "autoparser" in f.rule
    assert_headline(d, expects='"\\n</parameter>\\n"', fix="model", at=output.index("</parameter>"))


def test_a_closing_tag_in_running_text_is_the_value(qwen):
    # the value mentions the closing tag mid-line; the parser's closer is the newline one
    output = QWEN_CALL.format(city="write </parameter> then go")
    d = why(qwen, output)
    assert "value-swallowed" not in checks_of(d)
    assert json.loads(d.message.tool_calls[0].arguments) == {"city": "write </parameter> then go"}
    assert remarks(why(qwen, QWEN_CALL.format(city="Paris"))) == ()


@requires_oracle
def test_minimax_invoke_value_swallowed():
    s = session((ORACLE / "templates" / "MiniMax-M2.jinja").read_text(encoding="utf-8"))
    reply = s.sample_reply("call", s.request(tools=[WEATHER]))
    assert '<parameter name="city">Paris</parameter>\n</invoke>' in reply
    good = 'x</think>\n<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n' \
           '</invoke>\n</minimax:tool_call>'
    assert remarks(why(s, good)) == ()
    d = why(s, good.replace("</parameter>\n", "</parameter>"))
    f = only(d, "value-swallowed")
    assert (f.expected, f.found) == ("</parameter>\n", "</parameter>")
    assert f.suggestion is not None and f.suggestion.text == good
    assert_headline(d, wrote="</parameter>", expects='"</parameter>\\n"', fix="model")


# --- arguments-json and call-cut-off --------------------------------------------------------------


def test_json_arguments_cut_at_an_open_brace(hermes):
    output = '<tool_call>\n{"name": "get_weather", "arguments": {'
    d = why(hermes, output, enable_thinking=False)
    assert d.error is None and d.message.tool_calls[0].arguments == "{"
    f = only(d, "arguments-json")
    brace = output.rindex("{")
    assert f.severity == "cause" and f.span == (brace, brace + 1)
    assert '"{" alone' in f.summary and f"output character {brace}, line 2" in f.summary
    assert "their JSON stops after 1 of 1 characters" in f.summary  # where it stops, counted in the one place
    assert f.quirk and f.fix_where == "request" and "common_chat_parse" in f.llama_cpp
    # the JSON-format truncation warning of malformed-arguments, now marked as llama.cpp's quirk
    assert only(d, "malformed-arguments").quirk
    assert "call-cut-off" not in checks_of(d)
    assert_headline(d, wrote="{", expects="a complete JSON object", fix="request", at=brace)


def test_json_arguments_cut_inside_a_string(hermes):
    output = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Par'
    d = why(hermes, output, enable_thinking=False)
    f = only(d, "arguments-json")
    assert "string is still open" in f.summary
    assert f.place is not None and f.place.char == output.index('{"city"')
    # the arguments quoted around where their JSON stops, the cut marked and counted
    assert '"{\\"city\\": \\"Par"' in f.detail or "of 13 characters" in f.detail
    assert_headline(d, wrote='{"city": "Par', expects="a complete JSON object", fix="request",
                    at=output.index('{"city"'))


def test_tagged_call_cut_off_inside_a_value(qwen):
    output = QWEN_CALL.format(city="Paris")[:QWEN_CALL.index("{city}") + 3]
    assert output.endswith("\nPar")
    d = why(qwen, output)
    assert d.error is None and d.message.tool_calls[0].arguments == '{"city":"Par'
    f = only(d, "call-cut-off")
    # one fact, one fix_where: an output cut off inside a call is the request's (max_tokens), a quirk of llama.cpp's
    assert f.severity == "warning" and f.quirk and f.fix_where == "request" and f.fact == "output-cut-off"
    assert 'value of "city"' in f.summary and "max_tokens" in f.fix_hint
    assert only(d, "arguments-json").fix_where == "request"
    assert_headline(d, expects="a complete JSON object", fix="request")
    assert f.span == (output.index("<function="), len(output))
    assert only(d, "arguments-json").severity == "cause"


def test_json_call_without_its_closing_tag_is_info(hermes):
    output = HERMES_CALL[:-len("\n</tool_call>")]
    d = why(hermes, output, enable_thinking=False)
    f = only(d, "call-cut-off")
    assert f.severity == "info" and "before the closing text" in f.summary
    assert "arguments-json" not in checks_of(d)
    assert d.lead is None and d.headline.endswith("no check found anything wrong.")  # a note only


def test_complete_calls_are_not_cut_off(qwen, hermes):
    assert remarks(why(qwen, QWEN_CALL.format(city="Paris") + "\n" + QWEN_CALL.format(city="Rome"))) == ()
    assert remarks(why(hermes, HERMES_CALL, enable_thinking=False)) == ()


def test_partial_output_leaves_it_to_the_partial_checks(qwen):
    output = QWEN_CALL.format(city="Paris")[:QWEN_CALL.index("{city}") + 3]
    d = qwen.diagnose(output, qwen.request(tools=[WEATHER]), partial=True)
    assert not ({"call-cut-off", "arguments-json"} & checks_of(d))


# --- a reasoning tag left unread ------------------------------------------------------------------


@requires_oracle
def test_a_reasoning_tag_after_the_calls_is_about_reasoning():
    s = session((ORACLE / "templates" / "Qwen3.5-4B.jinja").read_text(encoding="utf-8"))
    req = s.request(tools=[WEATHER])
    assert s.handler == "qwen3-coder" and s.params(req).generation_prompt.endswith("<think>\n")
    call = QWEN_CALL.format(city="Paris")
    d = s.diagnose("Let me look.\n</think>\n" + call + "\n<think>", req)
    f = only(d, "unconsumed-output")
    assert "reasoning" in f.summary and "end-of-turn" not in f.summary and "Nothing to fix" not in f.fix_hint
    assert f.severity == "warning" and f.quirk and f.found == "<think>"
    output = "Let me look.\n</think>\n" + call + "\n<think>"
    assert_headline(d, wrote="<think>", expects="the end of the output", fix="model", at=output.rindex("<think>"))
    d = s.diagnose("Let me look.\n</think>\n" + call + "\n<think>\nMore thoughts", req)
    assert only(d, "unconsumed-output").severity == "cause"


def test_a_reasoning_tag_after_the_calls_without_reasoning_support(qwen):
    d = why(qwen, QWEN_CALL.format(city="Paris") + "\n<think>")
    f = only(d, "unconsumed-output")
    assert "no reasoning rule" in f.summary and "end-of-turn" not in f.summary
    assert_headline(d, wrote="<think>", expects="the end of the output", fix="model")


def test_gpt_oss_arguments_cut_inside_a_string():
    from cases import GPT_CALL, GPT_OSS_MINI

    s = session(GPT_OSS_MINI)
    assert s.handler == "gpt-oss"
    assert why(s, GPT_CALL).causes == ()
    output = GPT_CALL[:GPT_CALL.index("Paris")]
    d = why(s, output)
    f = only(d, "arguments-json")
    brace = output.index("{")
    assert f.span == (brace, len(output)) and "string is still open" in f.summary
    assert d.message.tool_calls[0].arguments == '{"city": "'
    assert_headline(d, wrote='{"city": "', expects="a complete JSON object", fix="request", at=brace)
