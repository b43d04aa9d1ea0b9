"""Grammar checks with a real engine (llguidance): emitted GBNF accepts good text, rejects mangled."""

from __future__ import annotations

import json

import pytest

from explorer.errors import GrammarError
from explorer.grammar import json_schema_to_grammar
from explorer.grammar.check import check_grammar, compile_gbnf, rename_rule
from oracle_data import ORACLE, requires_oracle

# Stop tokens a model emits as one special token; as text no tool-call grammar accepts them.
END_TOKENS = ("<|END_OF_TURN_TOKEN|>", "<|tool_response>", "<|call|>")


def test_schema_grammar_accepts_matching_json_and_rejects_the_rest() -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
              "required": ["city"], "additionalProperties": False}
    grammar = json_schema_to_grammar(schema)
    good, missing, extra, partial = check_grammar(grammar, [
        '{"city": "Paris", "days": 3}', '{"days": 3}', '{"city": "Paris", "x": 1}', '{"city": "Par'])
    assert good.accepted and good.message == ""
    assert not missing.accepted and missing.consumed_bytes == 2
    assert not extra.accepted and "refused byte" in extra.message
    assert not partial.accepted and partial.consumed_bytes == len('{"city": "Par') and not partial.complete


def test_lazy_grammar_applies_from_the_trigger_word() -> None:
    grammar = 'root ::= "<call>" [a-z]+ "</call>"\n'
    plain, good, bad = check_grammar(grammar, ["just text", "Sure <call>abc</call>", "Sure <call>ABC</call>"],
                                     triggers=["<call>"])
    assert plain.accepted and plain.constrained_from is None
    assert good.accepted and good.constrained_from == len("Sure ")
    assert not bad.accepted


def test_pattern_triggers_start_at_the_first_capture_group() -> None:
    grammar = 'root ::= " to=" [a-z]+\n'
    trig = [{"type": "PATTERN", "value": "<s>assistant( to=)", "token": -1}]
    (verdict,) = check_grammar(grammar, ["<s>assistant to=fn"], triggers=trig)
    assert verdict.accepted and verdict.constrained_from == len("<s>assistant")
    full = [{"type": "PATTERN_FULL", "value": "go", "token": -1}]
    late, early = check_grammar('root ::= "go" [0-9]\n', ["x go1", "go1"], triggers=full)
    assert late.constrained_from is None and early.accepted


def test_a_rule_named_start_survives_llguidance_conversion() -> None:
    grammar = 'root ::= start "!"\nstart ::= "go"\n'
    assert rename_rule(grammar, "start", "s2") == 'root ::= s2 "!"\ns2 ::= "go"\n'
    (verdict,) = check_grammar(grammar, ["go!"])
    assert verdict.accepted


def test_unreadable_grammar_raises_grammar_error() -> None:
    with pytest.raises(GrammarError):
        compile_gbnf('root ::= "unterminated\n')


def test_generated_hermes_grammar_checks_a_tool_call() -> None:
    from cases import HERMES, WEATHER
    from explorer.analysis.model import TemplateAnalysis
    from explorer.generator import GenerationParams, generate_params

    out = generate_params(TemplateAnalysis.from_oracle_json(HERMES), GenerationParams(tools=WEATHER))
    call = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    good, wrong_name, wrong_type = check_grammar(out.grammar, [
        "Let me look. " + call, call.replace("get_weather", "get_wether"), call.replace('"Paris"', "7")],
        triggers=[t.to_json() for t in out.grammar_triggers])
    assert good.accepted and good.constrained_from == len("Let me look. ")
    assert not wrong_name.accepted and not wrong_type.accepted


@requires_oracle
def test_oracle_grammars_accept_rendered_tool_calls_and_reject_mangled_names() -> None:
    """Each template's own rendering of a get_weather call (roundtrip message c, where the
    round trip is exact) against llama.cpp's grammar for the standard request."""
    rendered = {}
    for line in (ORACLE / "roundtrip.jsonl").read_text("utf-8").splitlines():
        row = json.loads(line)
        if row["id"].split("/")[1] == "c" and row["roundtrip_equal"]:
            rendered[row["id"]] = row["raw_output_stripped"]
    total, accepted, rejected, constrained, failures = 0, 0, 0, 0, []
    for path in sorted((ORACLE / "analysis").glob("*.json")):
        if path.name == "INDEX.json":
            continue
        data = json.loads(path.read_text("utf-8"))
        for key, applied in data["apply"].items():
            text = rendered.get(f"{path.stem}/c/{'true' if key == 'thinking_true' else 'false'}")
            if not applied["grammar"] or text is None:
                continue
            for end in END_TOKENS:
                text = text.removesuffix(end)
            total += 1
            triggers = applied["grammar_triggers"] if applied["grammar_lazy"] else None
            thinking = (applied["thinking_start_tag"], applied["thinking_end_tags"])
            good, mangled = check_grammar(applied["grammar"], [text, text.replace("get_weather", "get_wether")],
                                          triggers=triggers, prefill=applied["generation_prompt"], thinking=thinking)
            accepted += good.accepted
            if not good.accepted:
                failures.append(f"{path.stem}/{key}: {good.message}")
            if mangled.constrained_from is not None:
                constrained += 1
                rejected += not mangled.accepted
    print(f"rendered calls accepted: {accepted}/{total}; mangled names rejected: {rejected}/{constrained} "
          f"(the rest never reach a trigger); failures: {failures[:5]}")
    assert total >= 90
    assert accepted == total
    assert rejected == constrained


def test_prefill_feeds_an_eager_grammar_first() -> None:
    grammar = 'root ::= "<s>" [a-z]+\n'
    (fed,) = check_grammar(grammar, ["abc"], prefill="<s>")
    assert fed.accepted
    (wrong,) = check_grammar(grammar, ["abc"], prefill="<x>")
    assert not wrong.accepted and "prefill" in wrong.message


def _oracle_analyses():
    for path in sorted((ORACLE / "analysis").glob("*.json")):
        if path.name != "INDEX.json":
            yield path.stem, json.loads(path.read_text("utf-8"))


@requires_oracle
def test_required_tool_choice_grammars_accept_rendered_calls() -> None:
    """tool_choice required (parallel on and off): an eager grammar, prefilled with the
    generation prompt as llama.cpp's sampler does, takes each template's own rendering of a
    get_weather call. The oracle has no such request, so this checks our branches."""
    from cases import route_params
    from explorer.analysis.model import TemplateAnalysis
    from explorer.routing import patch_source

    rendered = {}
    for line in (ORACLE / "roundtrip.jsonl").read_text("utf-8").splitlines():
        row = json.loads(line)
        if row["id"].split("/")[1] == "c" and row["roundtrip_equal"]:
            rendered[row["id"]] = row["raw_output_stripped"]
    total, failures = 0, []
    for name, data in _oracle_analyses():
        source = patch_source((ORACLE / "templates" / data["template"]).read_text("utf-8"))
        spec = TemplateAnalysis.from_oracle_json(data["autoparser"])
        for key, applied in data["apply"].items():
            text = rendered.get(f"{name}/c/{'true' if key == 'thinking_true' else 'false'}")
            if text is None:
                continue
            for end in END_TOKENS:
                text = text.removesuffix(end)
            for parallel in (True, False):
                out = route_params(data["routed"]["handler"], spec, source, tools=data["inputs"]["tools"],
                                   tool_choice="required", parallel_tool_calls=parallel,
                                   generation_prompt=applied["generation_prompt"],
                                   enable_thinking=key == "thinking_true")
                assert out.grammar and not out.grammar_lazy
                total += 1
                (verdict,) = check_grammar(out.grammar, [text], prefill=applied["generation_prompt"])
                if not verdict.accepted:
                    failures.append(f"{name}/{key}/{parallel}: {verdict.message}")
    print(f"required-tool-choice grammars accepting rendered calls: {total - len(failures)}/{total}")
    assert total >= 190
    assert not failures


@requires_oracle
def test_response_format_grammars_accept_matching_json() -> None:
    from explorer.analysis.model import TemplateAnalysis
    from explorer.generator import GenerationParams, generate_params

    schema = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}
    total, failures = 0, []
    for name, data in _oracle_analyses():
        if data["routed"]["handler"] != "autoparser":
            continue
        spec = TemplateAnalysis.from_oracle_json(data["autoparser"])
        start, end = spec.reasoning.start.strip(), spec.reasoning.end.strip()
        for key, applied in data["apply"].items():
            prompt = applied["generation_prompt"]
            out = generate_params(spec, GenerationParams(json_schema=schema, generation_prompt=prompt))
            opened = bool(start) and start in prompt and (not end or prompt.rfind(start) > prompt.rfind(end))
            lead = f"hmm{end}\n" if opened else ""
            good, bad = check_grammar(out.grammar, [lead + '{"answer": "yes"}', lead + '{"answer": 3}'],
                                      prefill=prompt)
            total += 1
            if not good.accepted or bad.accepted:
                failures.append(f"{name}/{key}: {good.message or 'mismatch accepted'}")
    print(f"response-format grammars: {total - len(failures)}/{total}")
    assert total == 88
    assert not failures


def test_lazy_grammar_waits_outside_thinking_blocks() -> None:
    grammar = 'root ::= "<call>" [a-z]+ "</call>"\n'
    text = "<think>maybe <call>NO</call>?</think>ok <call>yes</call>"
    (plain,) = check_grammar(grammar, [text], triggers=["<call>"])
    assert not plain.accepted  # without the reasoning gate the call inside thinking triggers
    (gated,) = check_grammar(grammar, [text], triggers=["<call>"], thinking=("<think>", ["</think>"]))
    assert gated.accepted and gated.constrained_from == text.index("ok <call>") + 3
    # a generation prompt that opens the block counts too
    (opened,) = check_grammar(grammar, ["<call>NO</call></think><call>yes</call>"], triggers=["<call>"],
                              prefill="<think>\n", thinking=("<think>", ["</think>"]))
    assert opened.accepted


def test_an_end_tag_that_is_a_trigger_is_replayed() -> None:
    grammar = 'root ::= "<tool_call>" [a-z]+\n'
    (verdict,) = check_grammar(grammar, ["<think>hmm<tool_call>abc"], triggers=["<tool_call>"],
                               thinking=("<think>", ["</think>", "<tool_call>"]))
    assert verdict.accepted and verdict.constrained_from == len("<think>hmm")


def test_escaped_dash_reads_as_llama_cpp_reads_it() -> None:
    # llama.cpp's grammar parser takes "\-" in classes and literals; a class escape is no range
    assert [v.accepted for v in check_grammar('root ::= [a\\-z]+ "\\-"\n', ["a-z-", "b-"])] == [True, False]


@requires_oracle
def test_every_oracle_grammar_compiles_in_llguidance() -> None:
    grammars = set()
    for _name, data in _oracle_analyses():
        grammars |= {a["grammar"] for a in data["apply"].values() if a["grammar"]}
    for path in sorted((ORACLE / "parse").glob("*.jsonl")):
        grammars |= {json.loads(line)["grammar"] for line in path.read_text("utf-8").splitlines()}
    grammars.discard("")
    for grammar in grammars:
        compile_gbnf(grammar)
    print(f"distinct oracle grammars compiled by llguidance: {len(grammars)}")
    assert len(grammars) > 150


def test_lazy_feed_says_which_trigger_fired_and_maps_back_to_the_output() -> None:
    from explorer.grammar.triggers import lazy_feed

    text = "<think>no <call>x</think>ok <call>yes</call>"
    feed = lazy_feed(text, ["<nope>", "<call>"], thinking=("<think>", ["</think>"]))
    assert feed.trigger == 1 and feed.start == text.index("<call>yes")
    assert all(text[feed.output_index(i)] == ch for i, ch in enumerate(feed.text))
    # a pattern with a trailing lookahead fires where its head appears
    fn = lazy_feed("a>>>b", [{"type": "PATTERN", "value": ">>>(?!all)"}])
    assert (fn.start, fn.text) == (1, ">>>b")


def test_lazy_feed_stays_linear_on_a_long_output_without_a_trigger() -> None:
    import time

    from explorer.grammar.triggers import lazy_feed

    text = "It is sunny. <call > " * 5000  # 105 KB, the word never complete
    began = time.perf_counter()
    for triggers in (["<call>"], [{"type": "PATTERN", "value": ">>>(?!all)"}]):
        assert lazy_feed(text, triggers, thinking=("<think>", ["</think>"])).start is None
    assert time.perf_counter() - began < 0.5  # the character-by-character search took seconds


def test_check_constrained_says_what_the_grammar_wanted_and_can_stop_early() -> None:
    from explorer.grammar.check import check_constrained

    grammar = 'root ::= "<c>" [0-9]+ "</c>"\n'
    bad = check_constrained(grammar, "<c>12x</c>")
    assert not bad.accepted and bad.consumed_bytes == 5
    assert bad.allowed == 'one of "0".."9", "<"'
    assert check_constrained(grammar, "<c>1").allowed == 'one of "0".."9", "<"'
    assert check_constrained(grammar, "<x>").allowed == '"c>"'  # after the "<" it took
    cut = check_constrained(grammar, "<c>" + "1" * 1000 + "</c>", max_bytes=100)
    assert cut.accepted and cut.truncated and cut.consumed_bytes == 100
    assert check_constrained('root ::= "<s>" [a-z]+\n', "abc", prefill="<s>").accepted


def test_llama_cpp_grammar_parser_limits_read_from_the_gbnf() -> None:
    """llama_grammar_parser::parse_sequence (MAX_REPETITION_THRESHOLD 2000), read from the
    source: a count over 2000 throws; an upper bound over 2000 is dropped; a group stands for
    every rule its parse added, so a repeated group of repetitions multiplies."""
    from explorer.grammar.limits import TOO_MANY_REPETITIONS, TOO_MANY_RULES, grammar_limits, refusal

    assert refusal('root ::= "a"{2001,}\n').message == TOO_MANY_REPETITIONS
    assert refusal('root ::= "a"{2000}\n') is None
    (loose,) = grammar_limits('root ::= [a-z]{0,3000}\n')
    assert loose.kind == "loosened" and loose.repetition == "[a-z]{0,3000}"
    assert refusal('root ::= ([a-z]{0,100}){0,19}\n') is None  # 101 rules x 19
    worst = refusal('root ::= "x" ([a-z]{0,100}){0,20}\n')  # 101 rules x 20
    assert worst.message == TOO_MANY_RULES and worst.repetition == "([a-z]{0,100}){0,20}"
    assert refusal('root ::= a{50} b{50}\na ::= "a"\nb ::= "b"\n') is None  # each element counts alone


def test_a_bounded_check_stops_on_the_clock_and_says_how_far_it_read() -> None:
    from explorer.grammar.check import check_constrained

    grammar = 'root ::= "<c>" [a-z ]* "</c>"'
    text = "<c>" + "a long argument " * 100 + "</c>"
    whole = check_constrained(grammar, text)
    assert whole.accepted and not whole.truncated and whole.consumed_bytes == len(text)
    # no time at all: one chunk is read, the verdict says it was cut short and how far it read
    cut = check_constrained(grammar, text, max_seconds=0.0)
    assert cut.truncated and cut.accepted and cut.consumed_bytes == 256 < len(text)
    assert "time bound" in cut.message
    # a refusal inside the first chunk is still a refusal, with the clock or without it
    bad = check_constrained(grammar, "<c>A</c>", max_seconds=0.0)
    assert not bad.accepted and not bad.truncated and bad.consumed_bytes == 3
