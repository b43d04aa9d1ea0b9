"""Rule-stating checks: the parser's rule in one sentence, expected beside found, where the
fix belongs, and suggestions shown only after a re-parse gave the intended message.

Outputs are our own. Formats: Qwen3-Coder XML (our ``cases.TAGGED``, routed to llama.cpp's
qwen3-coder handler, which reads required parameters in any order, then optional ones:
common/parsers/qwen3-coder.cpp), the autoparser's TAG_WITH_TAGGED (the built-in
``tagged-parameters`` example: required parameters in schema order, then optional ones,
analyze_tools::build_tool_parser_tag_tagged), Hermes-style JSON (``chatml-think-tools``), a
bare-JSON format of our own, and MiniMax-M2 (invoke/parameter) when ../shared/oracle is there.
"""

from __future__ import annotations

import json

import pytest

from cases import QWEN_CALL, TAGGED, assert_headline, checks_of, only, remarks
from explorer.apply import Request
from explorer.apply.pipeline import apply_template
from explorer.session import TemplateSession
from explorer.sources import from_example
from explorer.triage import build_facts, diagnose
from explorer.triage import suggest as sg
from oracle_data import ORACLE, requires_oracle

WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
# a coding agent's edit tool: three required parameters, one optional
EDIT = {"type": "function", "function": {"name": "Edit", "parameters": {"type": "object", "properties": {
    "file_path": {"type": "string"}, "old_string": {"type": "string"}, "new_string": {"type": "string"},
    "replace_all": {"type": "boolean"}}, "required": ["file_path", "old_string", "new_string"]}}}



def qwen_edit(*names: str, wrap: tuple[str, str] = ("<tool_call>\n", "</tool_call>")) -> str:
    values = {"file_path": "/src/app.py", "old_string": "x = 1", "new_string": "x = 2", "replace_all": "true"}
    args = "".join(f"<parameter={n}>\n{values[n]}\n</parameter>\n" for n in names)
    return f"{wrap[0]}<function=Edit>\n{args}</function>\n{wrap[1]}"


@pytest.fixture(scope="module")
def tagged() -> TemplateSession:
    s = TemplateSession(from_example("tagged-parameters").text)
    assert s.analysis.tools.format.mode.value == "TAG_WITH_TAGGED"
    reply = s.sample_reply("call", s.request(tools=[WEATHER], enable_thinking=False))
    assert reply.startswith("<tool_calls>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n")
    return s


@pytest.fixture(scope="module")
def chatml() -> TemplateSession:
    return TemplateSession(from_example("chatml-think-tools").text)


# --- parameter-order -----------------------------------------------------------------------------


def test_optional_parameter_first_qwen3_coder(qwen):
    req = qwen.request(tools=[EDIT])
    good = qwen_edit("file_path", "old_string", "new_string", "replace_all")
    assert remarks(qwen.diagnose(good, req)) == ()
    output = qwen_edit("replace_all", "file_path", "old_string", "new_string")
    d = qwen.diagnose(output, req)
    assert d.message.tool_calls == ()  # llama.cpp: the call is dropped without an error
    f = only(d, "parameter-order")
    at = output.index("<parameter=replace_all>")
    assert f.span == (at, at + len("<parameter=replace_all>")) and f.severity == "cause"
    # found is the text at the span: the opener written where the parser wanted file_path's
    assert (f.expected, f.found) == ("<parameter=file_path>", "<parameter=replace_all>")
    assert "Written order: replace_all, file_path, old_string, new_string" in f.detail
    assert "the order the parser accepts: file_path, old_string, new_string, replace_all" in f.detail
    assert_headline(d, wrote="<parameter=replace_all>", expects='"<parameter=file_path>"', fix="llama.cpp", at=at)
    assert "first, in any order" in f.rule and "schema's order" not in f.rule and "qwen3-coder" in f.rule
    assert f.fix_where == "llama.cpp" and f.quirk and "qwen3-coder.cpp" in f.llama_cpp
    s = f.suggestion
    assert s is not None and s.kind == "output" and s.text == good
    assert json.loads(qwen.parse(s.text, req).message.tool_calls[0].arguments)["replace_all"] is True
    assert "1 tool call: Edit" in s.verified


def test_required_parameters_in_any_order_are_fine_for_qwen3_coder(qwen):
    d = qwen.diagnose(qwen_edit("old_string", "file_path", "new_string", "replace_all"), qwen.request(tools=[EDIT]))
    assert remarks(d) == () and len(d.message.tool_calls) == 1


def test_required_parameters_out_of_schema_order_autoparser(tagged):
    req = tagged.request(tools=[EDIT], enable_thinking=False)
    wrap = ("<tool_calls>\n", "</tool_calls>")
    good = qwen_edit("file_path", "old_string", "new_string", wrap=wrap)
    assert remarks(tagged.diagnose(good, req)) == ()
    d = tagged.diagnose(qwen_edit("old_string", "file_path", "new_string", wrap=wrap), req)
    assert d.error is not None
    f = only(d, "parameter-order")
    assert "in the tool schema's order (file_path, old_string, new_string)" in f.rule and "autoparser" in f.rule
    assert "build_tool_parser_tag_tagged" in f.llama_cpp
    assert f.suggestion is not None and f.suggestion.text == good
    assert_headline(d, wrote="<parameter=old_string>", expects='"<parameter=file_path>"', fix="llama.cpp")
    d = tagged.diagnose(qwen_edit("replace_all", "file_path", "old_string", "new_string", wrap=wrap), req)
    assert only(d, "parameter-order").suggestion.text == qwen_edit(
        "file_path", "old_string", "new_string", "replace_all", wrap=wrap)


@requires_oracle
def test_optional_parameter_first_minimax_invoke():
    s = TemplateSession((ORACLE / "templates" / "MiniMax-M2.jinja").read_text(encoding="utf-8"))
    req = s.request(tools=[EDIT])

    def call(*names: str) -> str:
        values = {"file_path": "/a.py", "old_string": "a", "new_string": "b", "replace_all": "false"}
        args = "".join(f'<parameter name="{n}">{values[n]}</parameter>\n' for n in names)
        return f'Edit it.</think>\n<minimax:tool_call>\n<invoke name="Edit">\n{args}</invoke>\n</minimax:tool_call>'

    assert remarks(s.diagnose(call("file_path", "old_string", "new_string", "replace_all"), req)) == ()
    f = only(s.diagnose(call("replace_all", "file_path", "old_string", "new_string"), req), "parameter-order")
    assert f.found == '<parameter name="replace_all">' and f.suggestion.text == call(
        "file_path", "old_string", "new_string", "replace_all")


# --- newline-rule and whitespace-rule -----------------------------------------------------------------


def test_missing_newline_after_the_parameter_tag(qwen):
    good = QWEN_CALL.format(city="Paris")
    output = good.replace("city>\nParis", "city>Paris")
    d = qwen.diagnose(output, qwen.request(tools=[WEATHER]))
    f = only(d, "newline-rule")
    at = output.index(">Paris")
    assert (f.span, f.expected, f.found) == ((at, at + 1), ">\n", ">") and f.fix_where == "model"
    assert "newline included" in f.rule
    assert_headline(d, wrote=">", expects='">\\n"', fix="model", at=at)
    assert f.suggestion is not None and f.suggestion.text == good


def test_missing_newlines_repaired_together(qwen):
    good = QWEN_CALL.format(city="Paris")
    output = good.replace("city>\nParis", "city>Paris").replace("</function>\n", "</function>")
    f = only(qwen.diagnose(output, qwen.request(tools=[WEATHER])), "newline-rule")
    assert f.suggestion is not None and f.suggestion.text == good  # both newlines, one re-parse each


def test_extra_newline_after_the_opener(qwen):
    output = QWEN_CALL.format(city="Paris").replace("<tool_call>\n", "<tool_call>\n\n")
    d = qwen.diagnose(output, qwen.request(tools=[WEATHER]))
    f = only(d, "whitespace-rule")
    assert (f.expected, f.found) == ("<function=", "\n<function=")
    assert "skips no whitespace" in f.rule and f.suggestion.text == QWEN_CALL.format(city="Paris")
    assert_headline(d, wrote="\n<function=", expects='"<function="', fix="model", at=output.index("\n<function="))


def test_whitespace_the_autoparser_skips_is_no_finding(tagged):
    req = tagged.request(tools=[WEATHER], enable_thinking=False)
    output = "<tool_calls>\n<function=get_weather>\n\n<parameter=city>\nParis\n</parameter>\n\n</function>\n</tool_calls>"
    d = tagged.diagnose(output, req)
    assert d.error is None and len(d.message.tool_calls) == 1
    assert not ({"newline-rule", "whitespace-rule"} & checks_of(d))


# --- one-call-only ------------------------------------------------------------------------------------


def test_second_call_with_parallel_calls_off(qwen):
    output = QWEN_CALL.format(city="Paris") + "\n" + QWEN_CALL.format(city="Rome")
    req = qwen.request(tools=[WEATHER], parallel_tool_calls=False)
    d = qwen.diagnose(output, req)
    assert [c.arguments for c in d.message.tool_calls] == ['{"city":"Paris"}']
    f = only(d, "one-call-only")
    at = output.index("<tool_call>", 1)
    assert f.span == (at, len(output)) and "exactly one tool call" in f.rule
    s = f.suggestion
    assert s.kind == "request" and s.request_change == "parallel_tool_calls true" and f.fix_where == "request"
    assert "2 tool calls" in s.verified and "Rome" in s.verified
    assert "the template's own call parses back as a call under it too" in s.verified
    assert_headline(d, wrote=output[at:], expects="the end of the output (one call)", fix="request", at=at)
    assert "one-call-only" not in checks_of(qwen.diagnose(output, qwen.request(tools=[WEATHER],
                                                                                parallel_tool_calls=True)))


def test_second_call_without_the_template_suggests_the_output(qwen):
    output = QWEN_CALL.format(city="Paris") + "\n" + QWEN_CALL.format(city="Rome")
    req = qwen.request(tools=[WEATHER], parallel_tool_calls=False)
    d = diagnose(qwen.params(req), req, output)  # no apply: a request change cannot be verified
    f = only(d, "one-call-only")
    assert f.suggestion.kind == "output" and f.suggestion.text == QWEN_CALL.format(city="Paris")
    assert f.fix_where == "model"
    assert_headline(d, fix="model", at=output.index("<tool_call>", 1))


@requires_oracle
def test_second_section_minimax_needs_both_calls_in_one_section():
    s = TemplateSession((ORACLE / "templates" / "MiniMax-M2.jinja").read_text(encoding="utf-8"))
    call = '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">{}</parameter>\n</invoke>\n' \
           '</minimax:tool_call>'
    output = "x</think>\n" + call.format("Paris") + "\n" + call.format("Rome")
    f = only(s.diagnose(output, s.request(tools=[WEATHER], parallel_tool_calls=False)), "one-call-only")
    # parallel_tool_calls true would not read two sections either: only the verified output is offered
    assert f.suggestion.kind == "output" and f.suggestion.text == "x</think>\n" + call.format("Paris")


# --- marker-in-prose, tool_choice, bare JSON -----------------------------------------------------------


def test_opener_inside_prose(chatml):
    output = "To call a tool I write <tool_call>\n then the JSON of the call."
    d = chatml.diagnose(output, chatml.request(tools=[WEATHER], enable_thinking=False))
    f = only(d, "marker-in-prose")
    at = output.index("<tool_call>")
    assert f.span == (at, at + len("<tool_call>")) and f.quirk and f.fix_where == "llama.cpp"
    assert f.suggestion.kind == "request" and f.suggestion.request_change == 'tool_choice "none"'
    assert "0 tool calls" in f.suggestion.verified
    assert_headline(d, wrote="<tool_call>", expects="a tool call after the opener", fix="llama.cpp", at=at)


def test_opener_before_a_call_is_not_prose(chatml):
    req = chatml.request(tools=[WEATHER], enable_thinking=False)
    d = chatml.diagnose('Sure. <tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>', req)
    assert remarks(d) == ()
    d = chatml.diagnose('<tool_call>\n{"name": "get_wether", "arguments": {}}\n</tool_call>', req)
    assert "marker-in-prose" not in checks_of(d)


def test_required_call_states_the_rule_and_a_verified_request(chatml):
    d = chatml.diagnose("Hello there.", chatml.request(tools=[WEATHER], tool_choice="required", enable_thinking=False))
    f = only(d, "required-call-missing")
    assert "at least one tool call" in f.rule and f.fix_where == "request"
    assert f.suggestion.request_change == 'tool_choice "auto"' and "Hello there." in f.suggestion.verified
    assert_headline(d, wrote="Hello there.", expects="a tool call", fix="request", at=0)


BARE = (
    "{%- for m in messages %}<|{{ m.role }}|>"
    "{%- if m.tool_calls %}{%- for c in m.tool_calls %}{\"name\": \"{{ c.function.name }}\", "
    "\"parameters\": {{ c.function.arguments | tojson }}}{%- endfor %}{%- else %}{{ m.content }}{%- endif %}"
    "<|end|>{%- endfor %}{%- if add_generation_prompt %}<|assistant|>{%- endif %}"
)


def test_json_opens_call_is_llama_cpps_limitation():
    s = TemplateSession(BARE)
    d = s.diagnose('The capital is in {"country": "France"}.', s.request(tools=[WEATHER]))
    f = only(d, "json-opens-call")
    assert f.quirk and f.fix_where == "llama.cpp" and f.rule
    assert f.suggestion.request_change == 'tool_choice "none"'
    assert_headline(d, wrote='{"country": "France"}', fix="llama.cpp", at=d.output.index("{"))


# --- suggestions are verified, or absent --------------------------------------------------------------


def test_a_suggestion_that_does_not_reparse_is_dropped(qwen):
    req = qwen.request(tools=[WEATHER])
    output = QWEN_CALL.format(city="Paris").replace("city>\nParis", "city>Paris")
    facts = build_facts(qwen.params(req), req, output)
    intended = (sg.IntendedCall("get_weather", {"city": "Paris"}),)
    assert sg.corrected_output(facts, output + "<tool_call>", "x", intended) is None  # still broken
    assert sg.corrected_output(facts, QWEN_CALL.format(city="Rome"), "x", intended) is None  # another value
    assert sg.corrected_output(facts, QWEN_CALL.format(city="Paris"), "x", intended) is not None
    assert sg.changed_request(facts, req, "nothing", "x", intended) is None  # no template: nothing verified


def test_every_shown_suggestion_says_what_the_reparse_returned():
    req = Request(messages=({"role": "user", "content": "hi"},), tools=(WEATHER,))
    params = apply_template(TAGGED, req)
    for output in (QWEN_CALL.format(city="Paris").replace("Paris\n</parameter>", "Paris</parameter>"),
                   QWEN_CALL.format(city="Paris").replace("</function>\n", "</function>")):
        d = diagnose(params, req, output, apply=lambda r: apply_template(TAGGED, r))
        shown = [f.suggestion for f in d.findings if f.suggestion is not None]
        assert shown and all(s.verified.startswith(("re-parsed", "the same output")) for s in shown)
