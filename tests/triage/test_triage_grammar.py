"""Grammar-side triage: the lazy grammar's wake-up, llguidance's verdict, parser vs grammar,
and grammars llama.cpp cannot load. Outputs are ours; the expected markers come from the
templates (chatml-think-tools writes a call as ``<tool_call>\\n{"name": ...}``; the
Functionary mini template's generation prompt ends with ``>>>``)."""

from __future__ import annotations

import time
from dataclasses import replace

from cases import FN_CALL, FUNCTIONARY_MINI, assert_headline
from explorer.analysis import template_analysis
from explorer.apply import Request
from explorer.apply.pipeline import apply_template
from explorer.render import compile_template
from explorer.session import open_session
from explorer.sources import from_example
from explorer.triage import diagnose
from oracle_data import ORACLE, requires_oracle

WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
CHATML = from_example("chatml-think-tools").text
CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
GRAMMAR_CHECKS = ("grammar-build", "grammar-trigger", "grammar-accepts", "grammar-vs-parser")


def request(tools=(WEATHER,), **kw) -> Request:
    return Request(messages=({"role": "user", "content": "hi"},), tools=tuple(tools) if tools else None, **kw)


def why(output: str, source: str = CHATML, *, analysis: bool = True, **kw):
    req = request(**kw)
    params = apply_template(source, req)
    an = template_analysis(compile_template(source)) if analysis and params.handler == "autoparser" else None
    return diagnose(params, req, output, analysis=an)


def grammar_findings(d) -> list:
    return [f for f in d.findings if f.check in GRAMMAR_CHECKS]


def test_template_text_says_what_the_tests_assume():
    assert "'<tool_call>\\n{\"name\": \"' + call.name" in CHATML
    assert FUNCTIONARY_MINI.endswith("<|start_header_id|>assistant<|end_header_id|>\n\n>>>{%- endif %}")


# --- 1. the trigger --------------------------------------------------------------------------


def test_a_well_formed_call_wakes_the_lazy_grammar_at_the_call_and_nothing_else_is_said():
    output = "<think>x</think>\n" + CALL
    d = why(output)
    (f,) = grammar_findings(d)
    assert (f.check, f.severity) == ("grammar-trigger", "info") and not d.causes
    assert f.span[0] == output.index("<tool_call>") and f.place.char == f.span[0]
    assert f.expected == 'WORD "<tool_call>\\n"' and f.field == "tools.format.per_call_start"
    assert "grammar accepts the output" in f.summary and "Thinking blocks are skipped" in f.detail
    assert d.lead is None and d.headline.endswith("no check found anything wrong.")  # a note: the parse is clean


def test_a_call_right_after_a_prompt_that_wrote_the_trigger_never_wakes_the_grammar():
    d = why(FN_CALL, FUNCTIONARY_MINI, analysis=False)
    assert len(d.message.tool_calls) == 1
    (f,) = grammar_findings(d)
    assert (f.check, f.severity, f.quirk, f.fix_where) == ("grammar-trigger", "warning", True, "llama.cpp")
    assert f.span[0] == 0 and ">>>(?!all)" in f.summary and "trigger buffer" in f.llama_cpp
    assert "never wakes" in f.summary
    assert_headline(d, wrote=FN_CALL, fix="llama.cpp", at=0)
    # "tool_choice required makes the grammar eager": said only as a suggestion re-run on this output
    assert f.suggestion is None or (f.suggestion.request_change == 'tool_choice "required"' and f.suggestion.verified)


@requires_oracle
def test_a_trigger_in_prose_would_have_forced_a_call():
    """Ling 3 ends reasoning at <tool_call> (a thinking end tag) and reads the rest as
    content; llama.cpp's grammar wakes on that <tool_call>."""
    source = (ORACLE / "templates" / "inclusionai-ling-3.0-flash.jinja").read_text(encoding="utf-8")
    output = "</think>Say <tool_call> now"
    d = why(output, source, analysis=False)
    assert d.error is None and "<tool_call> now" in d.message.content
    f = d.by_check("grammar-trigger")[0]
    assert f.severity == "warning" and "content" in f.summary and f.span[0] == output.index("<tool_call>")
    assert "refuses the output" in f.detail  # the grammar wanted a call after the trigger


@requires_oracle
def test_a_trigger_inside_reasoning_that_is_also_a_thinking_end_tag_wakes_the_grammar():
    """DeepSeek V3.2 ends thinking at its call opener, so the trigger text in the model's
    reasoning wakes the grammar though the parser keeps reading reasoning."""
    source = (ORACLE / "templates" / "deepseek-ai-DeepSeek-V3.2.jinja").read_text(encoding="utf-8")
    output = "I could write <｜DSML｜function_calls> but no."
    d = why(output, source, analysis=False, enable_thinking=True)
    assert d.message.reasoning_content == output
    f = d.by_check("grammar-trigger")[0]
    assert f.severity == "warning" and "reasoning" in f.summary


def test_no_trigger_and_no_call_says_nothing():
    for output in ("It is sunny.", f"<tool_call >\n{CALL[12:]}"):
        assert not grammar_findings(why(output))


def test_no_grammar_no_grammar_findings():
    assert not grammar_findings(why(CALL, tools=None))


# --- 2. and 3. the verdict, and parser vs grammar ----------------------------------------------


def test_an_eager_grammar_rejects_what_the_parser_accepts():
    output = "Sure. " + CALL.replace('"city"', '"town"')
    d = why(output, tool_choice="required")
    assert d.error is None and len(d.message.tool_calls) == 1
    (f,) = grammar_findings(d)
    assert (f.check, f.severity, f.quirk, f.fix_where) == ("grammar-vs-parser", "warning", True, "llama.cpp")
    assert f.span[0] == output.index("town") and f.expected == '"city\\""'
    assert "common_peg_arena::build_grammar" in f.llama_cpp and "stricter" in f.summary
    assert f.place.llama_offset == len("<|im_start|>assistant\n") + f.span[0]
    assert_headline(d, wrote=output[f.span[0]:f.span[1]], fix="llama.cpp", at=output.index("town"))


def test_a_lazy_grammar_rejecting_a_call_the_parser_accepts_is_placed_after_the_trigger():
    output = "Let me look.\n" + CALL.replace('"city"', '"town"')
    d = why(output)
    vs = d.by_check("grammar-vs-parser")[0]
    assert vs.span[0] == output.index("town")
    assert "(see grammar-vs-parser)" in d.by_check("grammar-trigger")[0].summary  # it is there to see
    assert "grammar-vs-parser" in d.by_check("grammar-trigger")[0].see
    assert_headline(d, fix="llama.cpp", at=output.index("town"))


def test_grammar_rules_that_take_bytes_the_parser_then_refuses():
    """The string rule common_peg_arena::build_grammar emits lists a space among the
    escapes ("\\ "), which the parser's JSON string refuses; the bracket format's call id is
    such a string."""
    source = from_example("bracket-tool-calls").text
    params = apply_template(source, request())
    assert '"\\\\" ( ["\\\\/ bfnrt]' in params.grammar
    output = 'ok[/THINK][TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "ab\\ cd"}]'
    d = why(output, source)
    assert d.error is not None
    (f,) = d.by_check("grammar-vs-parser")
    assert (f.severity, f.quirk, f.fix_where) == ("cause", True, "llama.cpp") and "looser" in f.summary
    assert f.span[0] >= output.index("[TOOL_CALLS]")
    # one fact at that place: the grammar let the model write it, so every cause there puts the fix in llama.cpp
    assert {g.fix_where for g in d.causes} == {"llama.cpp"} and d.by_check("malformed-arguments")[0].fact
    assert_headline(d, wrote="\\ cd\"}]", fix="llama.cpp")
    ok = why(output.replace("ab\\ cd", "abcdefghi"), source)
    assert ok.error is None and not ok.by_check("grammar-vs-parser")


def test_a_refusal_the_parser_shares_is_info():
    output = CALL.replace('{"name"', '{"nme"')
    d = why(output)
    assert d.error is not None
    (f,) = d.by_check("grammar-accepts")
    assert f.severity == "info" and f.span[0] == output.index("nme") + 1 and "too" in f.summary
    assert_headline(d, fix="model")  # the parser's own refusal leads


def test_a_trailing_stop_token_is_not_held_against_the_grammar():
    from cases import GPT_CALL, GPT_OSS_MINI

    d = why(GPT_CALL, GPT_OSS_MINI, analysis=False)
    assert not d.by_check("grammar-vs-parser")
    wake = d.by_check("grammar-trigger")[0]
    assert '"<|call|>", where llama.cpp stops' in wake.summary
    # a PATTERN trigger's match is shown whole, not as its first character
    assert wake.found == " to" and wake.span == (0, 3) and wake.expected.startswith("PATTERN")


def test_when_llguidance_and_the_character_level_reading_disagree_the_refusal_is_llguidances():
    """A grammar llguidance lexes greedily ([a-z]+ takes the "b" the rule needs after it);
    read character by character, as llama.cpp's sampler does, it takes the output."""
    req = request()
    params = apply_template(CHATML, req)
    eager = replace(params, grammar='root ::= "<|im_start|>assistant\\n" word "b" "!"\nword ::= [a-z]+\n',
                    grammar_lazy=False, grammar_triggers=())
    d = diagnose(eager, req, "abb!")
    (f,) = d.by_check("grammar-vs-parser")
    assert f.severity == "info" and not f.quirk and "llguidance's" in f.summary and "no lexer" in f.summary


# --- 4. a grammar that does not build or load ----------------------------------------------------


def test_a_tool_schema_past_llama_cpps_repetition_limit_never_loads():
    code = {"type": "function", "function": {"name": "send_code", "parameters": {
        "type": "object", "properties": {"code": {"type": "string", "minLength": 2500}}, "required": ["code"]}}}
    d = why("plain text", tools=(WEATHER, code))
    first = d.findings[0]
    assert (first.check, first.severity, first.fix_where) == ("grammar-build", "cause", "request")
    assert "char{2500,}" in first.found and "before generating" in first.summary
    assert "llama_grammar_parser" in first.llama_cpp
    assert_headline(d, fix="request", says=("llama.cpp cannot load this request's grammar",))
    loose = {"type": "function", "function": {"name": "send_code", "parameters": {
        "type": "object", "properties": {"code": {"type": "string", "maxLength": 5000}}}}}
    (info,) = why("plain text", tools=(loose,)).by_check("grammar-build")
    assert info.severity == "info" and "any number" in info.summary


def test_a_tool_set_whose_grammar_cannot_be_built_gets_a_diagnosis_without_a_parse():
    broken = {"type": "function", "function": {"name": "lookup", "parameters": {
        "type": "object", "properties": {"q": {"$ref": "#/definitions/missing"}}}}}
    session = open_session(CHATML)
    req = session.request(tools=[WEATHER, broken])
    d = session.diagnose(CALL, req)
    assert d.build_error is not None and d.message is None and d.error is None
    assert d.findings[0].check == "grammar-build" and d.findings[0].severity == "cause"
    assert "before generating" in d.verdict and "before generating" in d.findings[0].summary
    assert d.to_json()["build_error"] and "[cause] grammar-build" in d.to_text()
    assert_headline(d, fix="request", says=("The request's grammar cannot be built",))


# --- 5. cost -----------------------------------------------------------------------------------


def test_a_huge_output_bounds_the_grammar_check_and_says_so():
    output = CALL.replace("Paris", "x" * 100_000)
    req = request()
    params = apply_template(CHATML, req)
    diagnose(params, req, "warm up " + CALL)  # compiles the grammar (cached per grammar text)
    began = time.perf_counter()
    d = diagnose(params, req, output)
    grammar_time = time.perf_counter() - began
    (f,) = d.by_check("grammar-accepts")
    assert f.severity == "info" and "Only the first 16000" in f.summary and "takes all of them" in f.summary
    assert not d.causes and grammar_time < 2.0  # the whole triage; the bench holds it to 0.5 s


@requires_oracle
def test_a_call_inside_a_thinking_block_the_prompt_opened_never_wakes_the_grammar():
    """Cohere2MoE's generation prompt ends with <|START_THINKING|> (thinking off too); a call
    written straight away is read by the parser, while llama.cpp's reasoning-budget sampler
    still counts it as thinking and keeps the lazy grammar asleep."""
    source = (ORACLE / "templates" / "Cohere2MoE.jinja").read_text(encoding="utf-8")
    params = apply_template(source, request(enable_thinking=False))
    assert params.generation_prompt.endswith("<|START_THINKING|>")
    output = ('<|START_ACTION|>[\n    {"tool_call_id": "0", "tool_name": "get_weather", "parameters": '
              '{"city": "Paris"}}\n]<|END_ACTION|>')
    d = why(output, source, analysis=False, enable_thinking=False)
    assert len(d.message.tool_calls) == 1
    (f,) = d.by_check("grammar-trigger")
    assert f.severity == "warning" and "generation prompt opened" in f.summary
    assert "reasoning-budget" in f.llama_cpp or "reasoning_budget" in f.llama_cpp
    assert_headline(d, fix="llama.cpp", at=f.span[0])


def test_a_lazy_grammar_without_triggers_is_refused_by_llama_server():
    req = request()
    params = replace(apply_template(CHATML, req), grammar_triggers=())
    d = diagnose(params, req, CALL)
    first = d.findings[0]
    assert (first.check, first.severity) == ("grammar-build", "cause") and "no triggers" in first.summary
    assert_headline(d, fix="llama.cpp", says=("no triggers",))
