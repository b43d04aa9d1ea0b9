"""Triage for formats whose tool calls are announced by regex grammar triggers, and for
partial (streaming) output.

Templates are our own (small, routed to llama.cpp's gpt-oss and functionary-v3.2 handlers
by the substrings routing looks for). What the formats expect is read off llama.cpp's
handler sources (common/parsers/gpt-oss.cpp: calls are " to=functions.NAME" with a
``<|channel|>commentary|analysis`` header, an optional constraint, ``<|message|>``, JSON;
common/parsers/functionary-v3-2.cpp: the generation prompt ends with ">>>", a call is
NAME + "\\n" + JSON, content is "all\\n" + text) and from the templates' own renderings.
"""

from __future__ import annotations

import json

import pytest

from cases import ARGS, FN_CALL, FUNCTIONARY_MINI, GPT_CALL, GPT_OSS_MINI, assert_headline
from explorer.apply import Request
from explorer.apply.pipeline import apply_template
from explorer.cli import main
from explorer.routing import route
from explorer.triage import build_facts, diagnose
from explorer.triage.patterns import compile_trigger, example_text, to_python

WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
SEARCH = {"type": "function", "function": {"name": "search", "parameters": {
    "type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}}}



def req(tools=(WEATHER, SEARCH), **kw) -> Request:
    return Request(messages=({"role": "user", "content": "hi"},), tools=tuple(tools) if tools else None, **kw)


def why(source: str, output: str, *, is_partial: bool = False, **kw):
    r = req(**kw)
    return diagnose(apply_template(source, r), r, output, is_partial=is_partial)


def causes(d) -> list[str]:
    return [f.check for f in d.causes]


def only(d, check: str):
    found = d.by_check(check)
    assert len(found) == 1, [(f.check, f.severity, f.summary) for f in d.findings]
    return found[0]


def test_the_mini_templates_route_and_render_as_assumed():
    assert route(GPT_OSS_MINI).handler == "gpt-oss"
    assert route(FUNCTIONARY_MINI).handler == "functionary-v3.2"
    p = apply_template(GPT_OSS_MINI, req())
    assert p.generation_prompt == "<|start|>assistant"
    assert {t.type for t in p.grammar_triggers} == {"PATTERN"}
    p = apply_template(FUNCTIONARY_MINI, req())
    assert p.generation_prompt.endswith(">>>")
    assert [t.value for t in p.grammar_triggers] == [">>>(?!all)"]


# --- the trigger patterns themselves ------------------------------------------------------


def test_ecmascript_dollar_ends_the_text_only():
    # ECMAScript "$" (no multiline) does not match before a final newline; Python's does
    pat = compile_trigger("^a$", "PATTERN", "test")
    assert pat.anchored and pat.regex.fullmatch("a") and not pat.regex.fullmatch("a\n")
    assert to_python("[$]x$")[0] == r"[$]x\Z"


def test_a_pattern_python_reads_otherwise_is_not_compiled():
    pat = compile_trigger("(?<=x)y", "PATTERN", "test")
    assert pat.regex is None and "lookbehind" in pat.note


def test_openings_follow_llama_cpp_trigger_semantics():
    p = apply_template(GPT_OSS_MINI, req())
    f = build_facts(p, req(), GPT_CALL)
    # "^\s+to$" fires on the output's first " to"; the call starts at 0
    assert [o.start for o in f.openings] == [0]
    out = f"<|channel|>analysis<|message|>x<|end|><|start|>assistant{GPT_CALL}"
    f = build_facts(p, req(), out)
    # "<|start|>assistant(\s+to)": the call starts at the capture group
    assert [o.start for o in f.openings] == [out.index(" to=")]
    p = apply_template(FUNCTIONARY_MINI, req())
    f = build_facts(p, req(), FN_CALL)
    assert [(o.start, o.in_prompt) for o in f.openings] == [(0, True)]  # the prompt's ">>>" announces it
    assert build_facts(p, req(), "all\nhello").openings == ()  # ">>>(?!all)"


def test_example_text_of_a_pattern():
    pat = compile_trigger(r"^<\|channel\|>(?:commentary|analysis)\s+to=functions$", "PATTERN", "t")
    assert example_text(pat) == "<|channel|>commentary to=functions"


def test_pattern_opener_near_miss():
    out = f"<|channel|>Commentary to=functions.get_weather<|message|>{ARGS}"
    d = why(GPT_OSS_MINI, out)
    f = only(d, "opener-near-miss")
    assert f.severity == "cause" and f.found.startswith("<|channel|>Commentary") and "PATTERN" in f.detail
    assert_headline(d, wrote=out[f.span[0]:f.span[1]], expects='"<|channel|>commentary to=functions"', fix="model",
                    at=0)


def test_pattern_opener_near_miss_negative():
    for out in (GPT_CALL, f"<|channel|>commentary to=functions.get_weather<|message|>{ARGS}"):
        d = why(GPT_OSS_MINI, out)
        assert d.message.tool_calls and not d.causes, [(x.check, x.summary) for x in d.findings]


def test_no_tool_parser_sees_a_pattern_announced_call():
    d = why(GPT_OSS_MINI, GPT_CALL, tools=None)
    f = only(d, "no-tool-parser")
    assert "trigger pattern" in f.summary and f.span[0] == 0
    assert_headline(d, expects="a request with tools", fix="request", at=0)


# --- GPT-OSS garbles ------------------------------------------------------------------------


@pytest.mark.parametrize("output, found, expected", [
    # the recipient without the functions. namespace
    (f"<|channel|>commentary to=get_weather<|message|>{ARGS}", "to=get_weather", "to=functions.get_weather"),
    (GPT_CALL.replace("functions.", ""), "to=get_weather", "to=functions.get_weather"),
    # a builtin recipient while the request has tools
    (" to=python<|channel|>commentary<|message|>print(1)", "to=python", None),
    # a channel the parser does not take calls on
    (f"<|channel|>final to=functions.get_weather<|message|>{ARGS}", "final", "commentary"),
    # the header runs into the arguments
    (GPT_CALL.replace("<|message|>", " "), " to=functions.get_weather<|channel|>commentary json".strip(), None),
    # an unknown channel
    ("<|channel|>comment<|message|>hello<|end|>", "comment", "analysis, commentary, final"),
    # a call written as the analysis message's body, no recipient
    (f"<|channel|>analysis<|message|>{ARGS}<|end|>", None, None),
])
def test_gpt_oss_garbles(output, found, expected):
    d = why(GPT_OSS_MINI, output)
    f = only(why(GPT_OSS_MINI, output), "handler-format")
    assert f.severity == "cause"
    # the headline tells the handler's own finding: what was written there, and the model's fix
    assert_headline(d, wrote=output[f.span[0]:f.span[1]], fix="model", at=f.span[0])
    if found is not None:
        assert f.found.strip() == found
    if expected is not None:
        assert f.expected == expected


def test_gpt_oss_end_instead_of_call():
    d = why(GPT_OSS_MINI, GPT_CALL.replace("<|call|>", "<|end|>"))
    f = only(d, "handler-format")
    assert (f.severity, f.found, f.expected) == ("warning", "<|end|>", "<|call|>")
    assert_headline(d, wrote="<|end|>", expects='"<|call|>"', fix="model", at=GPT_CALL.index("<|call|>"))
    d = why(GPT_OSS_MINI, GPT_CALL.replace("<|call|>", "<|end|>") + "<|start|>assistant<|channel|>final<|message|>ok")
    assert "handler-format" in causes(d)


def test_gpt_oss_reads_one_call():
    d = why(GPT_OSS_MINI, GPT_CALL + "<|start|>assistant" + GPT_CALL.replace("get_weather", "search")
            .replace(ARGS, '{"query": "x"}'))
    assert len(d.message.tool_calls) == 1
    assert any("reads one tool call" in f.summary for f in d.by_check("handler-format"))


@pytest.mark.parametrize("output", [
    GPT_CALL,
    # llama.cpp accepts the recipient after the channel, and the analysis channel (its own test vectors)
    f"<|channel|>analysis to=functions.get_weather<|message|>{ARGS}",
    f" to=functions.get_weather<|channel|>analysis <|constrain|>json<|message|>{ARGS}",
    f"<|channel|>analysis<|message|>thinking<|end|><|start|>assistant{GPT_CALL}",
    "<|channel|>final<|message|>Hello",
])
def test_gpt_oss_garbles_negative(output):
    d = why(GPT_OSS_MINI, output)
    assert not d.by_check("handler-format") and not d.causes, [(x.check, x.summary) for x in d.findings]


# --- Functionary v3.2 garbles ------------------------------------------------------------------


@pytest.mark.parametrize("output, found, expected", [
    (" " + FN_CALL, " get_weather", ">>>get_weather"),
    (">>>" + FN_CALL, ">>>", "get_weather"),
    (FN_CALL.replace("\n", " ", 1), "get_weather ", "get_weather\n"),
    # a call after content: llama.cpp's parser never reads that ">>>"
    ("all\nLet me check.>>>" + FN_CALL, ">>>get_weather…", "get_weather\n…"),  # found: the call's start, cut
    (FN_CALL + '>>>search\n{"query": "x"}', ">>>search…", "search\n…"),
])
def test_functionary_garbles(output, found, expected):
    d = why(FUNCTIONARY_MINI, output)
    f = only(d, "handler-format")
    assert (f.severity, f.found, f.expected) == ("cause", found, expected)
    assert_headline(d, wrote=output[f.span[0]:f.span[1]], fix="model", at=f.span[0])


@pytest.mark.parametrize("output", [FN_CALL, "all\nHello there"])
def test_functionary_garbles_negative(output):
    d = why(FUNCTIONARY_MINI, output)
    # the grammar checks have their say (test_triage_grammar.py: this call never wakes the grammar)
    assert not [x for x in d.findings if not x.check.startswith("grammar-")], [(x.check, x.summary) for x in d.findings]


# --- partial output ---------------------------------------------------------------------------


@pytest.mark.parametrize("source, output", [(GPT_OSS_MINI, GPT_CALL), (FUNCTIONARY_MINI, FN_CALL),
                                            (GPT_OSS_MINI, "<|channel|>analysis<|message|>hm<|end|>"
                                                           "<|start|>assistant" + GPT_CALL)])
def test_every_prefix_of_a_clean_output_is_in_progress_not_a_cause(source, output):
    r = req()
    params = apply_template(source, r)
    for k in range(len(output) + 1):
        d = diagnose(params, r, output[:k], is_partial=True)
        assert not d.causes, (output[:k], [(x.check, x.summary) for x in d.causes])


def test_partial_parse_is_llama_cpp_partial_parse():
    from explorer.output.parse import analyse_output
    from explorer.peg.arena import load_arena

    r = req()
    params = apply_template(GPT_OSS_MINI, r)
    cut = GPT_CALL[:GPT_CALL.index('"Paris"') + 3]
    d = diagnose(params, r, cut, is_partial=True)
    expected = analyse_output(load_arena(params.parser), cut, generation_prompt=params.generation_prompt,
                              format=params.format, is_partial=True)
    assert d.message == expected.message and d.is_partial
    f = only(d, "partial-output")
    assert f.severity == "info" and "get_weather" in f.summary
    assert d.verdict.startswith("Parsed so far")


def test_partial_output_negative_and_default_unchanged():
    r = req()
    params = apply_template(GPT_OSS_MINI, r)
    assert not diagnose(params, r, GPT_CALL, is_partial=True).by_check("partial-output")
    cut = GPT_CALL[:GPT_CALL.index("<|message|>") + 14]
    assert not diagnose(params, r, cut).by_check("partial-output")  # without is_partial: the final parse


def test_partial_keeps_a_real_garble_a_cause():
    # "<tool_call >"-style slips that cannot grow into the format stay causes while streaming
    d = why(GPT_OSS_MINI, "<|channel|>comment<|message|>hello", is_partial=True)
    assert "handler-format" in causes(d) or "parse-error" in causes(d)


def test_cli_why_partial(tmp_path, capsys):
    tpl = tmp_path / "t.jinja"
    tpl.write_text(GPT_OSS_MINI, encoding="utf-8")
    out = tmp_path / "out.txt"
    out.write_text(GPT_CALL[:GPT_CALL.index("Paris")], encoding="utf-8")
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([WEATHER]), encoding="utf-8")
    assert main(["why", str(tpl), "--output-file", str(out), "--tools", str(tools), "--partial", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["is_partial"] is True
    assert "partial-output" in [f["check"] for f in data["findings"]]
    assert all(f["severity"] != "cause" for f in data["findings"])


# --- llama.cpp's oracle templates: the templates' own replies, garbled ------------------------

from oracle_data import ORACLE, requires_oracle  # noqa: E402


def _replies(name: str):
    from explorer.roundtrip import ORACLE_MESSAGES, ORACLE_TOOLS, roundtrip_report

    source = (ORACLE / "templates" / name).read_text(encoding="utf-8")
    report = roundtrip_report(source, enable_thinking=True, messages=ORACLE_MESSAGES, tools=ORACLE_TOOLS,
                              grammar=False, explain=False)
    r = Request(messages=({"role": "user", "content": "Hello"},), tools=tuple(ORACLE_TOOLS),
                parallel_tool_calls=report.parallel_tool_calls)
    params = apply_template(source, r)
    return params, r, report.cases


@requires_oracle
def test_gpt_oss_oracle_replies_and_their_garbles():
    params, r, cases = _replies("openai-gpt-oss-120b.jinja")
    calls = [c for c in cases if c.message.get("tool_calls") and c.raw_output_stripped]
    assert calls
    garbles = {
        "to=functions.": ("to=", "to=functions.get_weather"),
        "<|message|>{": (" {", "<|message|>"),
        "<|channel|>commentary": ("<|channel|>final", "commentary"),
        "<|call|>": ("<|end|>", "<|call|>"),
    }
    for case in calls:
        reply = case.raw_output_stripped
        d = diagnose(params, r, reply)
        if case.equal:
            assert not d.causes, (case.message_id, [(f.check, f.summary) for f in d.causes])
        for original, (garbled, expected) in garbles.items():
            assert original in reply, (case.message_id, original)
            bad = diagnose(params, r, reply.replace(original, garbled, 1))
            found = bad.by_check("handler-format")
            assert any(expected in f.expected for f in found), (case.message_id, original,
                                                                 [(f.check, f.summary) for f in bad.findings])
        # every prefix, streamed, is in progress rather than a cause
        if case.equal:
            for k in range(0, len(reply) + 1, 7):
                assert not diagnose(params, r, reply[:k], is_partial=True).causes, reply[:k]


@requires_oracle
def test_functionary_v3_2_oracle_replies_and_their_garbles():
    params, r, cases = _replies("meetkai-functionary-medium-v3.2.jinja")
    seen_quirk = False
    for case in cases:
        reply = case.raw_output_stripped
        if not reply:
            continue
        d = diagnose(params, r, reply)
        if case.equal:
            assert not d.causes, (case.message_id, [(f.check, f.summary) for f in d.causes])
        elif ">>>" in reply:
            # llama.cpp quirk: the parser never reads a ">>>" inside the output (content then a call, two calls)
            assert "handler-format" in causes(d), (case.message_id, [(f.check, f.summary) for f in d.findings])
            seen_quirk = True
        if case.message.get("tool_calls") and case.equal:
            name = case.message["tool_calls"][0]["function"]["name"]
            assert reply.startswith(name + "\n")
            for garbled, expected in ((" " + reply, ">>>" + name), (">>>" + reply, name),
                                      (reply.replace("\n", " ", 1), name + "\n")):
                f = only(diagnose(params, r, garbled), "handler-format")
                assert f.expected == expected, (garbled, f)
    assert seen_quirk


# --- Muse Glimmer -------------------------------------------------------------------------------

MUSE_MINI = (
    "{%- for m in messages %}"
    "{%- if m.role == 'assistant' and m.tool_calls %}{%- for tc in m.tool_calls %}"
    "<|start|>assistant to={{ tc.function.name }}<|message|><atem:function_calls>\n"
    "<atem:invoke name=\"{{ tc.function.name }}\">\n"
    "{%- for k, v in tc.function.arguments.items() %}<atem:parameter name=\"{{ k }}\">{{ v }}</atem:parameter>\n"
    "{%- endfor %}</atem:invoke>\n</atem:function_calls><|eom|>{%- endfor %}"
    "{%- else %}<|start|>{{ m.role }} to=user<|message|>{{ m.content }}<|eot|>{%- endif %}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}<|start|>assistant{%- endif %}")
# after the generation prompt "<|start|>assistant" (common/parsers/muse-glimmer.cpp: " to=" RECIPIENT
# "<|message|><atem:function_calls>", whitespace, '<atem:invoke name="NAME">', parameters, closers)
MUSE_CALL = (' to=get_weather<|message|><atem:function_calls>\n<atem:invoke name="get_weather">\n'
             '<atem:parameter name="city">Paris</atem:parameter>\n</atem:invoke>\n</atem:function_calls>')


def test_muse_mini_routes():
    assert route(MUSE_MINI).handler == "muse-glimmer"
    assert apply_template(MUSE_MINI, req()).generation_prompt == "<|start|>assistant"


def test_muse_missing_function_calls_wrapper():
    f = only(why(MUSE_MINI, MUSE_CALL.replace("<atem:function_calls>\n", "", 1)), "handler-format")
    assert (f.severity, f.expected) == ("cause", "<atem:function_calls>")


def test_muse_unknown_function_after_the_invoke_markup():
    # the prefix before the name is the run of literals right before it ('<atem:invoke name="'),
    # not text across the recipient's "until"
    f = only(why(MUSE_MINI, MUSE_CALL.replace('name="get_weather"', 'name="get_wether"')), "unknown-function")
    assert f.found == "get_wether"


def test_muse_negative():
    d = why(MUSE_MINI, MUSE_CALL)
    rest = [x for x in d.findings if not (x.check == "grammar-trigger" and x.severity == "info")]
    assert d.message.tool_calls and not rest, [(x.check, x.summary) for x in d.findings]


@requires_oracle
def test_muse_glimmer_oracle_replies():
    params, r, cases = _replies("muse-glimmer.jinja")
    for case in cases:
        reply = case.raw_output_stripped
        if not reply or not case.equal:
            continue
        assert not diagnose(params, r, reply).causes, case.message_id
        if "<atem:function_calls>\n<atem:invoke" in reply:
            bad = diagnose(params, r, reply.replace("<atem:function_calls>\n", "", 1))
            assert "<atem:function_calls>" in [f.expected for f in bad.by_check("handler-format")]


@requires_oracle
def test_prefixes_of_oracle_round_trips_are_in_progress_when_partial():
    """Every exact round trip of ../shared/oracle/roundtrip.jsonl, cut at a few points and
    diagnosed with is_partial, has no cause (the final parse of the same cuts has some: those
    are the truncation causes is_partial turns into "in progress")."""
    from explorer.analysis import template_analysis
    from explorer.render import compile_template

    analyses: dict[str, object] = {}
    checked, with_cause, final_causes = 0, [], 0
    for line in (ORACLE / "roundtrip.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if not row.get("roundtrip_equal") or row.get("raw_output_stripped") is None:
            continue
        source = (ORACLE / "templates" / row["template"]).read_text(encoding="utf-8")
        r = Request(messages=({"role": "user", "content": "Hello"},), tools=tuple(row["tools"]),
                    parallel_tool_calls=row["parallel_tool_calls"], enable_thinking=row["enable_thinking"],
                    chat_template_kwargs=row["chat_template_kwargs"])
        params = apply_template(source, r)
        if params.handler == "autoparser" and row["template"] not in analyses:
            analyses[row["template"]] = template_analysis(compile_template(source))
        out = row["raw_output_stripped"]
        for k in sorted({len(out) * i // 4 for i in range(1, 4)}):
            kw = dict(analysis=analyses.get(row["template"]))
            d = diagnose(params, r, out[:k], is_partial=True, **kw)
            checked += 1
            if d.causes:
                with_cause.append((row["id"], k, [f.check for f in d.causes]))
            final_causes += bool(diagnose(params, r, out[:k], **kw).causes)
    print(f"\n{checked} cut round trips diagnosed as partial; with a cause: {len(with_cause)} {with_cause[:3]}; "
          f"the same cuts as final output with a cause: {final_causes}")
    assert checked >= 1000
    assert not with_cause


@pytest.mark.parametrize("output", [
    # the format's markup quoted inside a call's argument string
    ' to=functions.search<|channel|>commentary json<|message|>{"query": "how does <|channel|>commentary '
    'to=functions.get_weather json<|message|>{}<|end|> work"}<|call|>',
    # JSON that looks like a call, as the final answer (the user asked for the JSON)
    f'<|channel|>final<|message|>{{"name": "get_weather", "arguments": {ARGS}}}',
])
def test_gpt_oss_markup_as_data_is_no_garble(output):
    d = why(GPT_OSS_MINI, output)
    assert not d.by_check("handler-format") and not d.causes, [(x.check, x.summary) for x in d.findings]


@requires_oracle
@pytest.mark.parametrize("name", ["openai-gpt-oss-120b.jinja", "meetkai-functionary-medium-v3.2.jinja",
                                  "muse-glimmer.jinja"])
def test_oracle_triggers_compile_and_announce_the_templates_own_calls(name):
    """llama.cpp's regex triggers for these handlers all compile with Python's re, and each
    reply of the template's own that holds a call has an opening (a trigger match) in it."""
    params, r, cases = _replies(name)
    patterns = build_facts(params, r, "x").patterns
    assert patterns and all(p.regex is not None for p in patterns), [(p.source, p.note) for p in patterns]
    for case in cases:
        if case.message.get("tool_calls") and case.raw_output_stripped:
            assert build_facts(params, r, case.raw_output_stripped).openings, case.message_id


@pytest.mark.parametrize("output, expected", [
    ("all\n" + FN_CALL, "get_weather"),
    (f'all\n{{"name": "get_weather", "arguments": {ARGS}}}', "NAME (the tool's name instead of all)"),
    (f"all\n{ARGS}", "NAME (the tool's name instead of all)"),
])
def test_functionary_call_under_all(output, expected):
    d = why(FUNCTIONARY_MINI, output)
    assert d.message.content and not d.message.tool_calls  # llama.cpp: content
    assert only(d, "handler-format").expected == expected


def test_functionary_call_under_all_negative():
    assert not why(FUNCTIONARY_MINI, 'all\nThe JSON is {"a": 1}.').findings


def test_malformed_arguments_after_a_pattern_announced_call():
    d = why(GPT_OSS_MINI, GPT_CALL.replace('"Paris"', "Paris"))
    f = only(d, "malformed-arguments")
    assert f.severity == "cause" and d.error is not None
    d = why(GPT_OSS_MINI, GPT_CALL[:GPT_CALL.index("Paris")])  # cut short, final parse: a warning
    assert only(d, "malformed-arguments").severity == "warning"
    d = why(GPT_OSS_MINI, GPT_CALL[:GPT_CALL.index("Paris")], is_partial=True)  # streaming: in progress
    assert all(x.severity == "info" for x in d.findings)


# --- handlers whose triggers depend on the request ------------------------------------------------

CHATML_TURNS = (
    "{%- for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor -%}"
    "{%- if add_generation_prompt %}<|im_start|>assistant\n{% endif -%}"
)


@pytest.mark.parametrize("source, handler", [
    ("{# dsml_token DSML function_calls #}" + CHATML_TURNS, "deepseek-v3.2/v4"),
    ("{# <tool_call> <function= <parameter= #}" + CHATML_TURNS, "qwen3-coder"),
])
def test_a_request_without_tools_on_a_handler_with_request_dependent_triggers(source, handler):
    """Their triggers are built from the request (all WORD triggers); with no tools the
    triage falls back to the declared constant, which has no patterns. It used to iterate
    the function itself and raise TypeError."""
    r = req(tools=None)
    params = apply_template(source, r)
    assert params.handler == handler and params.grammar_triggers == ()
    assert build_facts(params, r, "Hello there.").patterns == ()
    diagnose(params, r, "Hello there.")  # no TypeError
