"""Triage: every check on outputs we write for our own example templates (and inline ones).

Expected markers come from the template text (asserted to be there), never from the
triage's own output: chatml-think-tools renders a call as ``<tool_call>\\n{"name": ...}``,
opens no ``<think>`` in its generation prompt with thinking on, and closes reasoning in
the prompt (``<think>\\n\\n</think>\\n\\n``) with thinking off.
"""

from __future__ import annotations

import json

import pytest

from cases import assert_headline
from explorer.analysis import template_analysis
from explorer.apply import Request
from explorer.apply.pipeline import apply_template
from explorer.cli import main
from explorer.errors import OutputParseError
from explorer.render import compile_template
from explorer.sources import from_example
from explorer.triage import CHECK_IDS, CHECKS, build_facts, diagnose, run_checks

WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
CALL_JSON = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
CHATML = from_example("chatml-think-tools").text
GOOD_CALL = f"<tool_call>\n{CALL_JSON}\n</tool_call>"


def test_template_text_says_what_the_tests_assume():
    assert "'<tool_call>\\n{\"name\": \"' + call.name" in CHATML
    assert "{{- '<|im_start|>assistant\\n' }}" in CHATML
    assert "{{- '<think>\\n\\n</think>\\n\\n' }}" in CHATML


def request(tools=(WEATHER,), **kw) -> Request:
    return Request(messages=({"role": "user", "content": "hi"},), tools=tuple(tools) if tools else None, **kw)


def why(output: str, *, example: str = "chatml-think-tools", source: str | None = None, analysis: bool = True,
        **kw):
    text = source if source is not None else from_example(example).text
    req = request(**kw)
    params = apply_template(text, req)
    an = template_analysis(compile_template(text)) if analysis else None
    return diagnose(params, req, output, analysis=an), params


def only(diagnosis, check: str):
    found = diagnosis.by_check(check)
    assert len(found) == 1, [(f.check, f.summary) for f in diagnosis.findings]
    return found[0]


def checks_of(diagnosis) -> set[str]:
    return {f.check for f in diagnosis.findings}


def to_explain(diagnosis) -> tuple:
    """The findings but the lazy grammar's wake-up, which every parsed call gets (info)."""
    return tuple(f for f in diagnosis.findings if not (f.check == "grammar-trigger" and f.severity == "info"))


# --- the parse is llama.cpp's, untouched ------------------------------------------------

OUTPUTS = [GOOD_CALL, "<think>x</think>\n" + GOOD_CALL, f"<tool_call >\n{CALL_JSON}\n</tool_call>",
           GOOD_CALL.replace("get_weather", "get_wether"), GOOD_CALL + " done", "plain text", ""]


@pytest.mark.parametrize("output", OUTPUTS)
def test_findings_never_change_the_parse(output):
    d, params = why(output)
    try:
        expected = params.parse(output)
    except OutputParseError as exc:
        assert d.message is None and str(d.error) == str(exc)
    else:
        assert d.error is None and d.message == expected


def test_a_clean_call_has_nothing_to_explain():
    d, _ = why("<think>x</think>\n" + GOOD_CALL)
    assert to_explain(d) == ()
    assert len(d.message.tool_calls) == 1
    assert only(d, "grammar-trigger").severity == "info"
    # a clean parse prints one line: the headline, with the notes counted
    clean = why("The weather is fine.")[0].to_text()
    assert clean.count("\n") == 1 and "no check found anything wrong" in clean
    text = d.to_text()
    assert text.count("\n") == 1 and "(1 note: --verbose shows them)" in text
    assert "grammar-trigger" in d.to_text(verbose=True)


def test_checks_are_registered_once_and_run_alone():
    assert len(CHECK_IDS) == len(set(CHECK_IDS))
    assert {"no-tool-parser", "opener-near-miss", "unknown-function", "malformed-arguments",
            "reasoning-end-without-start", "parse-error", "content-after-calls", "tool-mentioned"} <= set(CHECK_IDS)
    req = request()
    params = apply_template(CHATML, req)
    facts = build_facts(params, req, f"<tool_call >\n{CALL_JSON}\n</tool_call>")
    for check in CHECKS:
        assert all(f.check == check.id for f in run_checks(facts, (check,)))


# --- 1. no tool parser -----------------------------------------------------------------


@pytest.mark.parametrize("kw", [{"tools": None}, {"tool_choice": "none"}])
def test_no_tool_parser(kw):
    d, _ = why(GOOD_CALL, **kw)
    f = only(d, "no-tool-parser")
    assert f.severity == "cause"
    assert f.span == (0, len("<tool_call>"))
    assert d.message.tool_calls == () and "<tool_call>" in d.message.content
    assert_headline(d, wrote="<tool_call>", expects="a request with tools", fix="request", at=0)


def test_no_tool_parser_skip_chat_parsing():
    d, _ = why(GOOD_CALL, force_pure_content=True)
    assert "--skip-chat-parsing" in only(d, "no-tool-parser").summary
    # (no opener in a pure-content parser: the call's JSON is what looks like a call)
    assert_headline(d, wrote=CALL_JSON, fix="request", at=GOOD_CALL.index("{"))


def test_no_tool_parser_negative():
    d, _ = why(GOOD_CALL)
    assert "no-tool-parser" not in checks_of(d)
    d, _ = why("Just an answer.", tools=None)
    assert d.findings == ()


# --- 2. opener near miss -----------------------------------------------------------------


@pytest.mark.parametrize("written", ["<tool_call >\n", "<tool_call>", "<TOOL_CALL>\n", "< tool_call>\n",
                                     "<tool_call>\r\n"])
def test_opener_near_miss_whitespace_and_case(written):
    output = "<think>x</think>\n" + written + CALL_JSON + "\n</tool_call>"
    d, _ = why(output)
    f = only(d, "opener-near-miss")
    assert f.severity == "cause"
    assert f.expected == "<tool_call>\n"
    start = output.index(written)
    assert f.span[0] == start and f.found == output[f.span[0]:f.span[1]]
    assert f.found.strip() == written.strip()
    assert d.message.tool_calls == ()
    assert_headline(d, wrote=output[f.span[0]:f.span[1]], expects='"<tool_call>\\n"', fix="model", at=start)


def test_opener_near_miss_says_which_bytes_differ():
    d, _ = why(f"<tool_call >\n{CALL_JSON}\n</tool_call>")
    assert 'extra " "' in only(d, "opener-near-miss").summary
    d, _ = why(f"<tool_call>{CALL_JSON}</tool_call>")
    assert 'missing "\\n"' in only(d, "opener-near-miss").summary
    assert_headline(d, wrote="<tool_call>", expects='"<tool_call>\\n"', fix="model", at=0)


def test_opener_near_miss_names_its_origin_with_the_analysis():
    d, _ = why(f"<tool_call >\n{CALL_JSON}\n</tool_call>")
    detail = only(d, "opener-near-miss").detail
    assert "grammar trigger" in detail and "tools.format.per_call_start" in detail
    d, _ = why(f"<tool_call >\n{CALL_JSON}\n</tool_call>", analysis=False)
    assert "tools.format" not in only(d, "opener-near-miss").detail


def test_opener_near_miss_similar_tag():
    output = f"<tool_calls>\n{CALL_JSON}\n</tool_calls>"
    d, _ = why(output)
    f = only(d, "opener-near-miss")
    assert (f.found, f.expected, f.span) == ("<tool_calls>", "<tool_call>\n", (0, len("<tool_calls>")))
    assert_headline(d, wrote="<tool_calls>", expects='"<tool_call>\\n"', fix="model", at=0)


def test_opener_near_miss_markdown_fence():
    output = f"```json\n{CALL_JSON}\n```"
    d, _ = why(output)
    f = only(d, "opener-near-miss")
    assert f.span == (0, len(output)) and f.found == "```json\n…"  # the fence, the start of its block (marked)
    assert_headline(d, wrote=output, expects='"<tool_call>\\n"', fix="model", at=0)


def test_opener_near_miss_bare_json():
    output = f"Sure. {CALL_JSON}"
    d, _ = why(output)
    f = only(d, "opener-near-miss")
    assert f.span == (output.index("{"), len(output))
    assert "bare JSON" in f.summary
    assert_headline(d, wrote=CALL_JSON, expects='"<tool_call>\\n"', fix="model", at=output.index("{"))


def test_opener_near_miss_bracket_format():
    src = from_example("bracket-tool-calls").text
    assert "'[TOOL_CALLS]['" in src
    output = '[/THINK][TOOL_CALL][{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "abcdefghi"}]'
    d, _ = why(output, example="bracket-tool-calls")
    f = only(d, "opener-near-miss")
    assert (f.expected, f.found) == ("[TOOL_CALLS]", "[TOOL_CALL]")
    assert_headline(d, wrote="[TOOL_CALL]", expects='"[TOOL_CALLS]"', fix="model", at=output.index("[TOOL_CALL]"))


def test_name_prefix_near_miss_tagged():
    src = from_example("tagged-parameters").text
    assert "'<function=' + call.name + '>\\n'" in src
    output = "<tool_calls>\n<function =get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_calls>"
    d, _ = why(output, example="tagged-parameters")
    f = only(d, "opener-near-miss")
    start = output.index("<function =")
    assert (f.expected, f.found, f.span) == ("<function=", "<function =", (start, start + len("<function =")))
    assert "function name" in f.summary and "tools.function.name_prefix" in f.detail
    assert_headline(d, wrote="<function =", expects='"<function="', fix="model", at=start)


def test_opener_near_miss_negative():
    d, _ = why(GOOD_CALL)
    assert "opener-near-miss" not in checks_of(d)
    # the look-alike sits inside reasoning and the real call parses: nothing to explain
    d, _ = why("<think>I could write <tool_call > here</think>\n" + GOOD_CALL)
    assert to_explain(d) == () and len(d.message.tool_calls) == 1
    # the opener named in prose is no call to fix: "write <tool_call>\n exactly" would make it a broken call
    for prose in ("To call a tool, write <tool_call> and then the JSON.", "Use the <tool_call > tag to call one."):
        d, _ = why(prose)
        assert "opener-near-miss" not in checks_of(d) and d.lead is None, prose


def test_an_opener_near_miss_before_a_call_carries_the_verified_fix():
    output = f"<tool_call >\n{CALL_JSON}\n</tool_call>"
    d, _ = why(output)
    f = only(d, "opener-near-miss")
    assert f.suggestion is not None and f.suggestion.text == GOOD_CALL and "1 tool call" in f.suggestion.verified


# --- 3. unknown function -------------------------------------------------------------------


def test_unknown_function_json():
    output = GOOD_CALL.replace("get_weather", "get_wether")
    d, _ = why(output)
    f = only(d, "unknown-function")
    start = output.index("get_wether")
    assert (f.span, f.found, f.expected, f.severity) == ((start, start + 10), "get_wether", "get_weather", "cause")
    assert d.error is not None
    assert_headline(d, wrote="get_wether", expects='"get_weather"', fix="model", at=start)


def test_unknown_function_tagged():
    src = from_example("tagged-parameters").text
    assert "'<function=' + call.name + '>\\n'" in src
    output = "<tool_calls>\n<function=get_wether>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_calls>"
    d, _ = why(output, example="tagged-parameters")
    f = only(d, "unknown-function")
    start = output.index("get_wether")
    assert (f.span, f.found, f.expected) == ((start, start + 10), "get_wether", "get_weather")
    assert_headline(d, wrote="get_wether", expects='"get_weather"', fix="model", at=start)


def test_unknown_function_negative():
    assert "unknown-function" not in checks_of(why(GOOD_CALL)[0])


# --- 4. call JSON keys, malformed arguments ----------------------------------------------


def test_call_json_keys_order():
    output = '<tool_call>\n{"arguments": {"city": "Paris"}, "name": "get_weather"}\n</tool_call>'
    d, _ = why(output)
    f = only(d, "call-json-keys")
    # found is the object's text at its span; the keys it has are in the summary
    assert f.expected == "a call object with the keys name, arguments" and f.found.startswith('{"arguments"')
    assert "(it has arguments, name)" in f.summary
    assert f.span == (output.index("{"), output.rindex("}") + 1)
    # JSON keys have no order, llama.cpp's parser imposes one: its quirk, its fix
    assert_headline(d, expects="a call object with the keys name, arguments", fix="llama.cpp", at=output.index("{"))


def test_call_json_keys_negative():
    assert "call-json-keys" not in checks_of(why(GOOD_CALL)[0])


def test_malformed_arguments():
    output = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}\n</tool_call>'
    d, _ = why(output)
    f = only(d, "malformed-arguments")
    at = output.index("</tool_call>")  # the object is still open when the closer comes
    assert f.span == (at, at + len(f.found)) and f.found.startswith("</tool_call>")
    assert f.severity == "cause" and d.error is not None
    assert_headline(d, wrote="</tool_call>", says=("expects valid JSON",), fix="model", at=at)


def test_truncated_arguments_are_a_warning():
    output = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Par'
    d, _ = why(output)
    f = only(d, "malformed-arguments")
    # llama.cpp's lenient parse: a partial call, no error
    assert d.error is None and len(d.message.tool_calls) == 1
    assert f.severity == "warning" and f.span == (output.index("{"), len(output))
    # the call the output ends in (generation stopped there): the request's max_tokens
    assert_headline(d, expects="a complete JSON object", fix="request")


def test_malformed_arguments_negative():
    assert "malformed-arguments" not in checks_of(why(GOOD_CALL)[0])
    # tagged arguments are not JSON: a brace in a value is no error
    src_out = "<tool_calls>\n<function=get_weather>\n<parameter=city>\n{Paris\n</parameter>\n</function>\n</tool_calls>"
    assert "malformed-arguments" not in checks_of(why(src_out, example="tagged-parameters")[0])


# --- 5. reasoning ------------------------------------------------------------------------------


def test_reasoning_end_without_start():
    output = "x</think>\nThe answer."
    d, _ = why(output)
    f = only(d, "reasoning-end-without-start")
    assert f.span == (1, 1 + len("</think>")) and f.severity == "cause"
    assert d.message.content.startswith("x</think>")
    assert_headline(d, wrote="</think>", expects='"</think>" closing a block "<think>" opened', fix="model", at=1)


THINK_OPT = (
    "{%- for m in messages %}<|{{ m.role }}|>{%- if m.reasoning_content %}<think>{{ m.reasoning_content }}</think>"
    "{%- endif %}{{ m.content }}<|end|>{%- endfor %}{%- if add_generation_prompt %}<|assistant|>"
    "{%- if enable_thinking is defined and enable_thinking %}<think>{%- endif %}{%- endif %}"
)


def test_reasoning_end_without_start_says_which_thinking_setting_opens_it():
    req = request(enable_thinking=False)
    params = apply_template(THINK_OPT, req)
    assert params.generation_prompt == "<|assistant|>"
    d = diagnose(params, req, "x</think>answer", apply=lambda r: apply_template(THINK_OPT, r))
    f = only(d, "reasoning-end-without-start")
    # the template writes <think> into the generation prompt only when enable_thinking is true, and
    # the output parsed with the template's params for enable_thinking true gives the reasoning back
    assert "send enable_thinking true" in f.fix_hint and '"<think>"' in f.fix_hint
    assert f.suggestion is not None and f.suggestion.request_change == "enable_thinking true"
    assert '"x"' in f.suggestion.verified and f.suggestion.request.chat_template_kwargs == {
        "enable_thinking": True, "thinking": True}
    # without the template nothing re-ran a request change: none is advised
    d, _ = why("x</think>\nThe answer.")
    f = only(d, "reasoning-end-without-start")
    assert "Request side" not in f.fix_hint and "enable_thinking" not in f.fix_hint
    assert f.fix_hint.startswith("Model side: emit")
    req = request()
    d = diagnose(apply_template(CHATML, req), req, "x</think>\nThe answer.", apply=lambda r: apply_template(CHATML, r))
    assert "does not make this template's generation prompt open reasoning" in only(d, "reasoning-end-without-start").fix_hint


def test_reasoning_end_without_start_negative():
    assert why("<think>x</think>\nThe answer.")[0].findings == ()
    # the prompt opened reasoning: [THINK] is the generation prompt of bracket-tool-calls
    src = from_example("bracket-tool-calls").text
    assert "{{- '[THINK]' }}" in src
    d, params = why("x[/THINK]The answer.", example="bracket-tool-calls")
    assert params.generation_prompt.endswith("[THINK]")
    assert "reasoning-end-without-start" not in checks_of(d) and d.message.reasoning_content == "x"


def test_reasoning_start_repeated_after_the_prompt_opened_it():
    # bracket-tool-calls' generation prompt ends with [THINK] (asserted above)
    d, _ = why("[THINK]x[/THINK]The answer.", example="bracket-tool-calls")
    f = only(d, "reasoning-start-repeated")
    assert (f.span, f.found, f.severity) == ((0, len("[THINK]")), "[THINK]", "warning")
    assert_headline(d, wrote="[THINK]", fix="model", at=0)
    assert d.message.reasoning_content.startswith("[THINK]")
    assert "reasoning-start-repeated" not in checks_of(why("x[/THINK]The answer.", example="bracket-tool-calls")[0])


def test_reasoning_never_closed():
    # bracket-tool-calls' generation prompt ends with [THINK]; its reasoning ends with [/THINK]
    src = from_example("bracket-tool-calls").text
    assert "'[THINK]' + message.reasoning_content + '[/THINK]'" in src
    output = "The answer."
    d, _ = why(output, example="bracket-tool-calls")
    f = only(d, "reasoning-never-closed")
    assert (f.expected, f.span, f.severity) == ("[/THINK]", (len(output), len(output)), "cause")
    assert d.message.content == "" and d.message.reasoning_content == output
    assert_headline(d, expects='"[/THINK]"', fix="model", at=len(output), says=("The output ends at",))
    assert "reasoning-never-closed" not in checks_of(why("x[/THINK]The answer.", example="bracket-tool-calls")[0])


def test_call_in_reasoning():
    output = f"<think>I will call it: {GOOD_CALL}</think>\nok"
    d, _ = why(output)
    f = only(d, "call-in-reasoning")
    start = output.index("<tool_call>")
    assert (f.span, f.found, f.expected) == ((start, start + len("<tool_call>")), "<tool_call>", "</think> before the call")
    assert d.message.tool_calls == () and "<tool_call>" in d.message.reasoning_content
    assert_headline(d, wrote="<tool_call>", expects='"</think>" before the call', fix="model", at=start)


def test_call_in_reasoning_negative():
    # a mention in the reasoning and a real call after it: nothing to explain
    d, _ = why(f"<think>use <tool_call> then</think>\n{GOOD_CALL}")
    assert "call-in-reasoning" not in checks_of(d) and len(d.message.tool_calls) == 1


def test_reasoning_start_while_thinking_disabled():
    output = "<think>x</think>\nThe answer."
    d, params = why(output, enable_thinking=False)
    assert params.generation_prompt.endswith("<think>\n\n</think>\n\n")
    f = only(d, "reasoning-not-extracted")
    assert f.span == (0, len("<think>")) and "enable_thinking is false" in f.summary
    assert_headline(d, wrote="<think>", expects="no reasoning block here", fix="model", at=0)


def test_reasoning_in_a_template_without_reasoning():
    d, params = why("<think>hm</think>Hi.", example="plain-chat", tools=None)
    assert not params.supports_thinking
    f = only(d, "reasoning-not-extracted")
    assert f.found == "<think>" and "no reasoning format" in f.summary
    assert_headline(d, wrote="<think>", fix="model", at=0)


def test_reasoning_not_extracted_negative():
    assert "reasoning-not-extracted" not in checks_of(why("<think>x</think>\nThe answer.")[0])


def test_reasoning_format_none():
    d, _ = why("<think>x</think>\nThe answer.", reasoning_format="none")
    f = only(d, "reasoning-format-none")
    assert f.severity == "warning" and f.span == (0, len("<think>"))
    assert "<think>" in d.message.content
    assert_headline(d, wrote="<think>", expects="reasoning_format deepseek (llama-server's default)", fix="request",
                    at=0)
    assert "reasoning-format-none" not in checks_of(why("<think>x</think>\nThe answer.")[0])


# --- 6. parse error --------------------------------------------------------------------------


def test_parse_error_says_where_and_what():
    output = GOOD_CALL.replace("get_weather", "get_wether")
    d, _ = why(output)
    f, reported = d.by_check("parse-error")
    start = output.index("get_wether")
    assert f.severity == "cause" and f.span[0] == start
    assert "HTTP 500" in f.summary
    assert f.expected == '"get_weather"'  # the expectation list as llama.cpp's notation writes it
    # llama.cpp's own offset is the start of the call that failed: its own (info) finding
    assert reported.severity == "info" and reported.span[0] == 0
    assert reported.place.llama_offset == d.error.location.offset
    # the headline names the mismatch, and where llama-server's own warning starts (the call)
    assert_headline(d, wrote="get_wether", expects='"get_weather"', fix="model", at=start,
                    says=(f"warning starts at llama.cpp offset {reported.place.llama_offset}",))
    assert reported.place.unparsed and not f.place.unparsed  # "starts here" is said of one place


def test_parse_error_negative():
    assert "parse-error" not in checks_of(why(GOOD_CALL)[0])


def _unanchored_params(additional_stops: tuple[str, ...] = ()):
    """A hand-built parser with no end-of-input, like some llama.cpp handlers: content up to
    <call>, then optionally <call>NAME</call>."""
    from explorer.apply.pipeline import ChatParams
    from explorer.peg.builder import build_arena

    arena = build_arena(lambda p: p.sequence([
        p.tag("content", p.until("<call>")),
        p.optional(p.rule("tool-call", p.tag("tool", p.sequence([
            p.tag("tool-open", p.literal("<call>")), p.tag("tool-name", p.literal("get_weather")),
            p.tag("tool-close", p.literal("</call>"))])))),
    ]))
    return ChatParams(handler="test", why="", format="peg-native", prompt="", generation_prompt="", grammar="",
                      grammar_lazy=False, grammar_triggers=(), preserved_tokens=(), arena=arena,
                      additional_stops=additional_stops, supports_thinking=False, thinking_start_tag="",
                      thinking_end_tags=())


def test_unconsumed_output_is_dropped_without_an_error():
    params = _unanchored_params()
    output = "Hi<call>get_wether</call>"
    d = diagnose(params, request(), output)
    assert d.error is None and d.message.content == "Hi" and d.message.tool_calls == ()
    f, furthest = d.by_check("unconsumed-output")
    assert f.severity == "cause" and f.span == (2, len(output)) and f.found == "<call>get_wether</call>"
    assert "does not require the end of the output" in f.detail
    # where the parser got furthest in the dropped text is a place of its own
    assert furthest.severity == "info" and furthest.span[0] == output.index("get_wether")
    assert furthest.expected == "get_weather" and furthest.found.startswith("get_wether")
    assert_headline(d, wrote="<call>get_wether</call>", fix="model", at=2)


def test_unconsumed_output_after_a_stop_string_is_info():
    d = diagnose(_unanchored_params(("<call>",)), request(), "Hi<call>get_wether</call>")
    assert only(d, "unconsumed-output").severity == "info"


def test_unconsumed_output_negative():
    d = diagnose(_unanchored_params(), request(), "Hi<call>get_weather</call>")
    assert d.findings == () and [c.name for c in d.message.tool_calls] == ["get_weather"]


# --- 7. text after the calls ---------------------------------------------------------------


def test_content_after_calls():
    output = GOOD_CALL + " done"
    d, _ = why(output)
    f = only(d, "content-after-calls")
    assert (f.span, f.found, f.severity) == ((len(GOOD_CALL) + 1, len(output)), "done", "cause")
    assert_headline(d, wrote="done", expects="the end of the output", fix="model", at=len(GOOD_CALL) + 1)
    assert d.error is not None


def test_text_between_calls():
    output = GOOD_CALL + "\nand also\n" + GOOD_CALL
    d, _ = why(output)
    f = only(d, "content-after-calls")
    start = output.index("and also")
    assert (f.span, f.found) == ((start, start + len("and also")), "and also") and d.error is not None
    assert_headline(d, wrote="and also", expects="whitespace, then the next call", fix="model", at=start)


def test_content_after_calls_negative():
    assert "content-after-calls" not in checks_of(why(GOOD_CALL + "\n" + GOOD_CALL)[0])
    assert "content-after-calls" not in checks_of(why(GOOD_CALL + "\n")[0])


# --- 8. a tool named, never called ---------------------------------------------------------


def test_tool_mentioned():
    output = "I will call get_weather now."
    d, _ = why(output)
    f = only(d, "tool-mentioned")
    assert f.severity == "info" and f.span == (12, 23)
    assert d.lead is None and d.headline == "Parsed: 0 tool calls, content, no reasoning; no check found anything wrong."


def test_tool_mentioned_negative():
    assert why("Hello there.")[0].findings == ()
    assert "tool-mentioned" not in checks_of(why(GOOD_CALL)[0])


# --- inline template: a format of our own ------------------------------------------------------

INLINE = (
    "{%- for m in messages %}<|{{ m.role }}|>{{ m.content }}"
    "{%- if m.tool_calls %}{%- for c in m.tool_calls %}[[call]]{\"name\": \"{{ c.function.name }}\", "
    "\"arguments\": {{ c.function.arguments | tojson }}}[[/call]]{%- endfor %}{%- endif %}<|end|>{%- endfor %}"
    "{%- if add_generation_prompt %}<|assistant|>{%- endif %}"
)
INLINE_CALL = '[[call]]{"name": "get_weather", "arguments": {"city": "Paris"}}[[/call]]'


def test_inline_template_opener():
    d, params = why(INLINE_CALL, source=INLINE)
    assert to_explain(d) == () and len(d.message.tool_calls) == 1
    output = "Let me look. " + INLINE_CALL.replace("[[call]]", "[[ call ]]")
    f = only(why(output, source=INLINE)[0], "opener-near-miss")
    assert (f.expected, f.found, f.span) == ("[[call]]", "[[ call ]]", (13, 23))
    assert_headline(why(output, source=INLINE)[0], wrote="[[ call ]]", expects='"[[call]]"', fix="model", at=13)


def test_inline_template_without_analysis_uses_the_params():
    output = INLINE_CALL.replace("[[call]]", "[[CALL]]")
    f = only(why(output, source=INLINE, analysis=False)[0], "opener-near-miss")
    assert (f.expected, f.found) == ("[[call]]", "[[CALL]]")
    assert "grammar trigger" in f.detail


# --- the reply's shape: bare-JSON formats, Python-style calls, tool_choice required ----------

BARE = (
    "{%- for m in messages %}<|{{ m.role }}|>"
    "{%- if m.tool_calls %}{%- for c in m.tool_calls %}{\"name\": \"{{ c.function.name }}\", "
    "\"parameters\": {{ c.function.arguments | tojson }}}{%- endfor %}{%- else %}{{ m.content }}{%- endif %}"
    "<|end|>{%- endfor %}{%- if add_generation_prompt %}<|assistant|>{%- endif %}"
)


def test_json_opens_call_in_a_bare_json_format():
    good = '{"name": "get_weather", "parameters": {"city": "Paris"}}'
    d, _ = why(good, source=BARE)
    assert d.findings == () and len(d.message.tool_calls) == 1
    output = 'The capital is in {"country": "France"}.'
    d, _ = why(output, source=BARE)
    f = only(d, "json-opens-call")
    assert f.span == (output.index("{"), output.index("}") + 1) and d.error is not None
    assert_headline(d, wrote='{"country": "France"}', fix="llama.cpp", at=output.index("{"))


def test_json_opens_call_negative():
    # chatml's content stops at "<tool_call>\n", not at a brace: JSON in prose is content
    d, _ = why('The capital is in {"country": "France"}.')
    assert d.findings == () and d.message.content.startswith("The capital")


def test_pythonic_call():
    output = "get_weather(city='Paris')"
    d, _ = why(output)
    f = only(d, "pythonic-call")
    assert f.span == (0, len(output)) and f.expected == "<tool_call>\n"
    assert_headline(d, wrote=output, expects='"<tool_call>\\n"', fix="model", at=0)
    assert "tool-mentioned" not in checks_of(d)


def test_pythonic_call_negative():
    assert "pythonic-call" not in checks_of(why("I would use get_weather for that.")[0])


def test_required_call_missing():
    d, _ = why("Hello", tool_choice="required")
    f = only(d, "required-call-missing")
    # llama.cpp's parse is lenient: the missing call is "unfinished", not an error
    assert d.error is None and f.severity == "warning" and f.span == (0, len("Hello")) and f.found == "Hello"
    assert_headline(d, wrote="Hello", expects="a tool call", fix="request", at=0)
    assert "required-call-missing" not in checks_of(why(GOOD_CALL, tool_choice="required")[0])
    assert "required-call-missing" not in checks_of(why("Hello")[0])


def test_no_tool_parser_for_a_template_without_tool_calls():
    d, _ = why(GOOD_CALL, example="plain-chat")
    f = only(d, "no-tool-parser")
    assert "does not render tool calls" in f.summary
    assert_headline(d, wrote=CALL_JSON, fix="template", at=GOOD_CALL.index("{"))  # it renders no calls
    d, _ = why(GOOD_CALL, example="plain-chat", analysis=False)
    assert "no tool-call rules" in only(d, "no-tool-parser").summary


# --- CLI -----------------------------------------------------------------------------------


def test_cli_why(tmp_path, capsys):
    out = tmp_path / "out.txt"
    out.write_text(f"<tool_call >\n{CALL_JSON}\n</tool_call>", encoding="utf-8")
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([WEATHER]), encoding="utf-8")
    assert main(["why", "example:chatml-think-tools", "--output-file", str(out), "--tools", str(tools),
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["result"]["tool_calls"] == []
    assert [f["check"] for f in data["findings"]] == ["opener-near-miss"]
    assert data["findings"][0]["expected"] == "<tool_call>\n"
    assert main(["why", "example:chatml-think-tools", "--output-file", str(out), "--tools", str(tools)]) == 0
    assert capsys.readouterr().out.startswith('The model wrote "<tool_call >\\n"')


def test_cli_why_runs_when_llama_cpp_throws(tmp_path, capsys):
    out = tmp_path / "out.txt"
    out.write_text(GOOD_CALL.replace("get_weather", "get_wether"), encoding="utf-8")
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([WEATHER]), encoding="utf-8")
    assert main(["why", "example:chatml-think-tools", "--output-file", str(out), "--tools", str(tools)]) == 0
    text = capsys.readouterr().out
    assert "HTTP 500" in text and "unknown-function" in text
    assert text.startswith('The model wrote "get_wether"') and "the fix belongs to the model" in text.split("\n")[0]


# --- properties ----------------------------------------------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

PIECES = st.sampled_from(["<tool_call>", "<tool_call>\n", "<tool_call >", "</tool_call>", "<think>", "</think>",
                          "{", "}", '"name"', ": ", '"get_weather"', '"arguments"', ",", "\n", " ", "x", "```json",
                          "get_weather(", ")", "[", "]", "é", "get_wether"])
_PARAMS = apply_template(CHATML, request())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(PIECES, max_size=30).map("".join))
def test_any_output_is_diagnosed_without_changing_the_parse(output):
    d = diagnose(_PARAMS, request(), output)
    try:
        expected = _PARAMS.parse(output)
    except OutputParseError:
        assert d.message is None and d.error is not None and d.causes
    else:
        assert d.error is None and d.message == expected
    for f in d.findings:
        assert f.check in CHECK_IDS and f.severity in ("cause", "warning", "info") and f.summary
        if f.span is not None:
            assert 0 <= f.span[0] <= f.span[1] <= len(output)


def test_a_repeated_mistake_is_listed_ten_times_then_summed_up():
    output = f"<tool_call >\n{CALL_JSON}\n</tool_call>\n" * 30
    found = why(output)[0].by_check("opener-near-miss")
    assert len(found) == 11 and "20 more" in found[-1].summary


def test_every_registered_check_has_a_positive_test_here():
    from pathlib import Path

    # this file and its siblings (checks grouped by theme have their own test files)
    source = "".join(p.read_text(encoding="utf-8") for p in Path(__file__).parent.glob("test_triage*.py"))
    missing = [c for c in CHECK_IDS if f'"{c}")' not in source]
    assert not missing, missing


def test_content_after_calls_without_the_analysis():
    output = GOOD_CALL + " done"
    f = only(why(output, analysis=False)[0], "content-after-calls")
    assert f.found == "done" and f.span == (len(GOOD_CALL) + 1, len(output))


def test_grammar_checks_are_tested_in_their_own_file():
    """tests/triage/test_triage_grammar.py has the grammar checks' cases; one positive case
    of each here for the registry guard."""
    d, _ = why(GOOD_CALL)
    assert only(d, "grammar-trigger").span[0] == 0
    d, _ = why(GOOD_CALL.replace('"city"', '"town"'), tool_choice="required")
    assert only(d, "grammar-vs-parser").quirk
    d, _ = why(GOOD_CALL.replace('{"name"', '{"nme"'))
    assert only(d, "grammar-accepts").severity == "info"
    code = {"type": "function", "function": {"name": "code", "parameters": {
        "type": "object", "properties": {"c": {"type": "string", "minLength": 2500}}}}}
    d, _ = why("text", tools=(WEATHER, code))
    assert only(d, "grammar-build").severity == "cause"


def test_handler_format_and_partial_output_are_tested_with_routed_handlers():
    """The regex-trigger formats and partial output have their own file
    (tests/test_triage_patterns.py); one positive case of each here for the registry guard."""
    from cases import FN_CALL, FUNCTIONARY_MINI, GPT_CALL, GPT_OSS_MINI

    d, _ = why(" " + FN_CALL, source=FUNCTIONARY_MINI, analysis=False)
    assert only(d, "handler-format").found == " get_weather"
    d, _ = why(GPT_CALL[:GPT_CALL.index("Paris")], source=GPT_OSS_MINI, analysis=False)
    assert not d.by_check("partial-output")  # only with is_partial
    r = request()
    params = apply_template(GPT_OSS_MINI, r)
    d = diagnose(params, r, GPT_CALL[:GPT_CALL.index("Paris")], is_partial=True)
    assert only(d, "partial-output").severity == "info"
