"""The furthest failure of a parse and what was expected there (explorer.peg.expectations).

Expected values come from PEG semantics applied by hand to grammars we write here, from
the JSON grammar and the markers of our own example templates, and, with the oracle, from
llama.cpp's serialized parsers and its verdicts on the canitoolcall fixtures.
"""

from __future__ import annotations

import json
from functools import cache, lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.apply import Request
from explorer.apply.pipeline import apply_template
from explorer.cli import main
from explorer.errors import OutputParseError
from explorer.output.parse import analyse_output, explain_mismatch
from explorer.peg import NEED_MORE_INPUT, Builder, build_arena, load_arena
from explorer.peg.engine import MAX_NODE_DEPTH, Engine, engine_for
from explorer.peg.expectations import (
    MAX_DIAGNOSED_BYTES,
    FurthestFailure,
    diagnose,
    failure_at,
    furthest_attempt,
    furthest_failure,
)
from explorer.sources import from_example
from oracle_data import ORACLE, requires_oracle


def q(s: str) -> str:
    """A literal as the report writes it: JSON-quoted."""
    return json.dumps(s, ensure_ascii=False)


def ff(fn, text: str) -> FurthestFailure | None:
    return furthest_failure(build_arena(fn), text)


# --- hand-built grammars ------------------------------------------------------------------


def test_a_text_that_parses_has_no_failure():
    assert ff(lambda p: p.sequence([p.literal("ab"), p.end()]), "ab") is None


def test_literal_alternatives_are_all_expected_in_grammar_order():
    f = ff(lambda p: p.sequence([p.choice([p.literal("yes"), p.literal("no")]), p.end()]), "maybe")
    assert (f.offset, f.expected, f.found) == (0, (q("yes"), q("no")), "maybe")


def test_a_literal_fails_where_it_starts_even_when_partly_matched():
    f = ff(lambda p: p.sequence([p.literal("<a>"), p.literal("</tool>"), p.end()]), "<a></tol>")
    assert (f.offset, f.expected) == (3, (q("</tool>"),))


def test_a_character_class_fails_at_the_first_misfit():
    f = ff(lambda p: p.sequence([p.chars("[0-9]", 3, 3), p.end()]), "12x")
    assert (f.offset, f.expected, f.found) == (2, ("[0-9]",), "x")


def test_an_open_class_that_stopped_is_expected_beside_what_follows():
    # [0-9]+ then ";": at the "x" one more digit or the ";" would have done
    f = ff(lambda p: p.sequence([p.chars("[0-9]", 1, -1), p.literal(";"), p.end()]), "12x")
    assert (f.offset, f.expected) == (2, ("[0-9]", q(";")))


def test_a_class_without_brackets_is_shown_with_them():
    f = ff(lambda p: p.sequence([p.chars("a-z", 1, 1), p.end()]), "1")
    assert f.expected == ("[a-z]",)


def test_end_of_input_is_expected_after_a_complete_match():
    f = ff(lambda p: p.sequence([p.literal("ab"), p.end()]), "abc")
    assert (f.offset, f.expected, f.found) == (2, ("end of input",), "c")


def test_any_character_at_the_end():
    f = ff(lambda p: p.sequence([p.literal("a"), p.any()]), "a")
    assert (f.offset, f.expected, f.found) == (1, ("any character",), "")


def test_named_rules_and_tags_open_at_the_failure_outermost_first():
    def fn(p: Builder) -> int:
        inner = p.rule("value", p.tag("number", p.chars("[0-9]", 1, -1)))
        return p.sequence([p.rule("pair", p.sequence([p.literal("("), inner, p.literal(")")])), p.end()])

    f = ff(fn, "(x)")
    assert (f.offset, f.expected, f.rules) == (1, ("[0-9]",), ("pair", "value", "number"))


def test_a_failing_optional_still_contributes_at_the_furthest_point():
    f = ff(lambda p: p.sequence([p.literal("a"), p.optional(p.literal("b")), p.literal("c"), p.end()]), "ax")
    assert (f.offset, f.expected) == (1, (q("b"), q("c")))


def test_a_repetition_contributes_its_item_beside_what_follows():
    f = ff(lambda p: p.sequence([p.zero_or_more(p.literal("ab")), p.literal(";"), p.end()]), "ababx")
    assert (f.offset, f.expected, f.found) == (4, (q("ab"), q(";")), "x")


def test_a_repetition_at_the_end_of_the_text_still_says_what_its_item_needs():
    # llama.cpp's repetition does not try its item at the end; the report still lists it
    f = ff(lambda p: p.sequence([p.literal("["), p.zero_or_more(p.literal("ab")), p.literal("]")]), "[abab")
    assert (f.offset, f.expected, f.found) == (5, (q("ab"), q("]")), "")


def test_a_repetition_short_of_its_minimum():
    f = ff(lambda p: p.sequence([p.repeat(p.literal("ab"), 3, 3), p.end()]), "ababx")
    assert (f.offset, f.expected) == (4, (q("ab"),))


def test_a_failure_at_a_lower_offset_is_dropped():
    # option 1 gets to offset 3 before failing; option 2 matches and the end fails at 1
    def fn(p: Builder) -> int:
        first = p.sequence([p.literal("abc"), p.literal("d")])
        return p.sequence([p.choice([first, p.literal("a")]), p.end()])

    f = ff(fn, "abcx")
    assert (f.offset, f.expected) == (3, (q("d"),))


def test_equal_failures_merge_without_duplicates():
    f = ff(lambda p: p.sequence([p.choice([p.literal("x"), p.literal("y"), p.literal("x")]), p.end()]), "z")
    assert f.expected == (q("x"), q("y"))


def test_merged_failures_keep_only_the_rules_they_share():
    def fn(p: Builder) -> int:
        a = p.rule("call", p.tag("open", p.literal("<call>")))
        b = p.rule("text", p.literal("hi"))
        return p.sequence([p.choice([a, b]), p.end()])

    f = ff(fn, "x")
    assert (f.expected, f.rules) == ((q("<call>"), q("hi")), ())


def test_until_that_runs_out_expects_its_delimiter_at_the_end():
    f = ff(lambda p: p.sequence([p.until("</x>"), p.literal("</x>"), p.end()]), "hello")
    assert (f.offset, f.expected, f.found) == (5, (q("</x>"),), "")


def test_until_stopped_by_a_delimiter_cut_short():
    f = ff(lambda p: p.sequence([p.until("</x>"), p.literal("</x>"), p.end()]), "hello</x")
    assert (f.offset, f.expected, f.found) == (5, (q("</x>"),), "</x")


def test_until_of_several_delimiters_lists_them_all():
    f = ff(lambda p: p.sequence([p.until_one_of(["<a>", "<b>"]), p.literal("<a>"), p.end()]), "text")
    assert (f.offset, f.expected) == (4, (q("<a>"), q("<b>")))


def test_lookahead_internals_are_not_recorded_but_the_lookahead_is():
    f = ff(lambda p: p.sequence([p.peek(p.literal("abc")), p.rest()]), "abx")
    assert (f.offset, f.expected) == (0, (q("abc"),))
    f = ff(lambda p: p.sequence([p.negate(p.literal("!")), p.any(), p.end()]), "!")
    assert (f.offset, f.expected) == (0, ('anything but "!"',))


def test_a_negated_class_reads_as_anything_but_the_class():
    f = ff(lambda p: p.sequence([p.literal("1"), p.negate(p.chars("[0-9]", 1, 1)), p.rest()]), "12")
    assert (f.offset, f.expected) == (1, ("anything but [0-9]",))


def test_a_named_rule_stands_in_when_no_terminal_failed_there():
    # the item matches nothing, so the repetition stops short of its minimum with no
    # terminal failure at that point: the report names the item
    f = ff(lambda p: p.sequence([p.one_or_more(p.rule("nothing", p.eps())), p.end()]), "a")
    assert (f.offset, f.expected) == (0, ("nothing",))


@pytest.mark.parametrize("text, offset, expected", [
    ('"ab\\qc"', 4, '["\\\\/bfnrtu]'),   # an escape that JSON does not have
    ('"ab\\u12x4"', 7, "[0-9a-fA-F]"),   # a \\u escape needs four hex digits
    ('"abc', 4, q('"')),                 # the string never closes
])
def test_json_string_breaks(text, offset, expected):
    f = ff(lambda p: p.sequence([p.json(), p.end()]), text)
    assert f.offset == offset and expected in f.expected


def test_a_missing_comma_in_json_lists_the_grammar_alternatives():
    f = ff(lambda p: p.sequence([p.json(), p.end()]), '{"a": 1 "b": 2}')
    assert f.offset == 8
    assert {q(","), q("}")} <= set(f.expected)
    assert f.rules[-1] == "json-object"


def test_line_column_found_and_description():
    f = ff(lambda p: p.sequence([p.literal("a\nb"), p.choice([p.literal(","), p.literal("}")]), p.end()]),
           "a\nb\n</x>")
    assert (f.offset, f.line, f.column, f.found) == (3, 2, 2, "\n</x>")
    assert f.describe() == 'at line 2, column 2 (offset 3): expected "," or "}"; found "\\n</x>"'
    assert f.to_json()["expected"] == [q(","), q("}")]


def test_description_names_the_innermost_rule_and_its_parents():
    def fn(p: Builder) -> int:
        return p.sequence([p.rule("call", p.tag("args", p.rule("obj", p.literal("{")))), p.end()])

    assert ff(fn, "x").describe() == 'at line 1, column 1 (offset 0): expected "{" in obj (inside call > args); found "x"'


def test_found_is_cut_to_forty_characters():
    f = ff(lambda p: p.sequence([p.literal("a"), p.end()]), "a" + "z" * 100)
    assert f.found == "z" * 40


def test_furthest_attempt_of_a_success_that_left_text():
    # no end anchor: the call stops matching at "x" and the rest is left unparsed
    def fn(p: Builder) -> int:
        call = p.rule("call", p.sequence([p.literal("<c>"), p.chars("[a-z]", 1, -1), p.literal("</c>")]))
        return p.zero_or_more(p.sequence([call, p.space()]))

    arena = build_arena(fn)
    text = "<c>ab</c> <c>a1</c>"
    assert furthest_failure(arena, text) is None
    f = furthest_attempt(arena, text)
    assert (f.offset, f.expected, f.rules) == (text.index("1"), ("[a-z]", q("</c>")), ("call",))
    # all consumed: the repetition still says what a next call would need at the end
    f = furthest_attempt(arena, "<c>ab</c>")
    assert (f.offset, f.expected, f.found) == (9, (q("<c>"),), "")


def test_furthest_attempt_of_a_failing_parse_is_its_furthest_failure():
    arena = build_arena(lambda p: p.sequence([p.literal("<c>"), p.chars("[a-z]", 1, -1), p.literal("</c>"), p.end()]))
    failure = furthest_failure(arena, "<c>a1</c>")
    assert failure is not None and furthest_attempt(arena, "<c>a1</c>") == failure


def test_failure_at_places_an_offset_in_lines_and_columns():
    f = failure_at("ab\ncd\nef", 4, (q("x"),), ("r",))
    assert (f.line, f.column, f.found, f.expected, f.rules) == (2, 2, "d\nef", (q("x"),), ("r",))


def test_no_parser_is_the_content_only_parser_which_accepts_anything():
    assert furthest_failure(None, "<tool_call>{") is None


def test_a_root_without_end_accepts_trailing_text_as_llama_cpp_does():
    assert ff(lambda p: p.literal("ok"), "ok and more") is None


def test_over_the_size_bound_the_engine_end_is_reported_undiagnosed():
    arena = build_arena(lambda p: p.sequence([p.until("</x>"), p.literal("</x>"), p.end()]))
    text = "a" * (MAX_DIAGNOSED_BYTES + 1)
    f = furthest_failure(arena, text)
    assert (f.offset, f.expected, f.rules) == (len(text), (), ())
    assert "too large for the diagnostic pass" in f.describe()
    assert furthest_failure(arena, text + "</x>") is None


def test_nesting_beyond_the_engine_cap_is_an_error():
    arena = build_arena(lambda p: p.sequence([p.json(), p.end()]))
    with pytest.raises(OutputParseError, match="nests too deeply"):
        furthest_failure(arena, "[" * MAX_NODE_DEPTH)


_JSON_ARENA = build_arena(lambda p: p.sequence([p.literal("<"), p.json(), p.space(), p.literal(">"), p.end()]))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet='<>{}[]",: 0123456789.eE+-tfrulnas\\\n', max_size=30))
def test_the_diagnostic_interpreter_agrees_with_the_engine(text):
    """Same verdict and end as the engine's own non-lenient parse (no fast path there either)."""
    expected = Engine(_JSON_ARENA).parse(text, lenient=False)
    end, _ = diagnose(_JSON_ARENA, text)
    assert (end >= 0) == (not expected.fail())
    if end >= 0:
        assert end == expected.end
    else:
        f = furthest_failure(_JSON_ARENA, text)
        assert f is not None and f.expected and f.offset >= expected.end


def _json_values():
    scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.floats(allow_nan=False,
                        allow_infinity=False), st.text(alphabet='ab"\\\n\u00e9', max_size=4))
    return st.recursive(scalars, lambda kids: st.one_of(
        st.lists(kids, max_size=3), st.dictionaries(st.text(alphabet="ab", max_size=2), kids, max_size=3)),
        max_leaves=8)


@st.composite
def _broken_json_calls(draw):
    """A call with JSON arguments, then one character deleted, replaced or inserted."""
    text = "<call>" + json.dumps(draw(_json_values()), indent=draw(st.sampled_from([None, 1]))) + "</call>"
    i = draw(st.integers(0, len(text)))
    edit = draw(st.sampled_from(["delete", "replace", "insert", "cut", "none"]))
    c = draw(st.sampled_from(list('[]{}",: 0e.-x\\')))
    if edit == "delete":
        return text[:i] + text[i + 1:]
    if edit == "replace":
        return text[:i] + c + text[i + 1:]
    if edit == "insert":
        return text[:i] + c + text[i:]
    return text[:i] if edit == "cut" else text


_CALL_ARENA = build_arena(lambda p: p.sequence([
    p.tag("content", p.until("<call>")), p.zero_or_more(p.rule("call", p.sequence([
        p.literal("<call>"), p.tag("args", p.json()), p.space(), p.literal("</call>")]))),
    p.optional(p.end())]))  # no end anchor: successes that stop early have a furthest attempt too


@settings(max_examples=400, deadline=None)
@given(_broken_json_calls())
def test_skipping_complete_json_containers_changes_no_report(text):
    fast, slow = diagnose(_CALL_ARENA, text), diagnose(_CALL_ARENA, text, json_fast=False)
    assert fast[0] == slow[0]
    # a success's record counts only at or after its end (furthest_attempt)
    if fast[0] < 0 or max(fast[1].furthest, slow[1].furthest) >= fast[0]:
            assert (fast[1].furthest, list(fast[1].expected), fast[1].rules) == \
            (slow[1].furthest, list(slow[1].expected), slow[1].rules)


_MIXED_ARENA = build_arena(lambda p: p.sequence([
    p.tag("text", p.until_one_of(["<a>", "</b>"])),
    p.choice([p.literal("<a>"), p.literal("</b>")]),
    p.repeat(p.sequence([p.peek(p.any()), p.chars("[a-c]", 0, 2), p.optional(p.literal(";"))]), 0, 3),
    p.negate(p.literal("x")), p.optional(p.tag("tail", p.chars("[^x]", 1, -1))), p.end()]))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="<>/ab;cx", max_size=16))
def test_the_interpreter_agrees_with_the_engine_on_scanners_and_look_aheads(text):
    expected = Engine(_MIXED_ARENA).parse(text, lenient=False)
    end, record = diagnose(_MIXED_ARENA, text)
    assert (end >= 0) == (not expected.fail())
    assert end == expected.end if end >= 0 else (record.expected and record.furthest >= expected.end)


# --- our example templates ------------------------------------------------------------------

TOOLS = ({"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}},)


@cache
def example_parser(name: str):
    applied = apply_template(from_example(name).text,
                             Request(messages=({"role": "user", "content": "hi"},), tools=TOOLS))
    return load_arena(applied.parser), applied.generation_prompt


def diagnose_example(name: str, output: str) -> tuple[str, FurthestFailure | None]:
    arena, prompt = example_parser(name)
    return prompt + output, furthest_failure(arena, prompt + output)


CHATML_CALL = '<think>x</think>\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'


def test_chatml_correct_call_parses():
    assert diagnose_example("chatml-think-tools", CHATML_CALL)[1] is None


def test_chatml_missing_closing_brace():
    # the call object's "}" may follow whitespace: it is expected where "</tool_call>" stands
    text, f = diagnose_example("chatml-think-tools", CHATML_CALL.replace('"}}\n', '"}\n'))
    assert f.offset == text.index("</tool_call>")
    assert q("}") in f.expected
    assert f.found.startswith("</tool_call>")


def test_chatml_missing_quote_before_a_key():
    text, f = diagnose_example("chatml-think-tools", CHATML_CALL.replace('{"city"', '{city"'))
    assert f.offset == text.index('city"')
    assert {q('"'), q("}")} <= set(f.expected)  # a key or an empty object
    assert "json-object" in f.rules


def test_chatml_unclosed_string_runs_to_the_end():
    text, f = diagnose_example("chatml-think-tools", CHATML_CALL.replace('"Paris"', '"Paris'))
    assert f.offset == len(text)
    assert q('"') in f.expected and f.found == ""


def test_chatml_wrong_closing_tag():
    text, f = diagnose_example("chatml-think-tools", CHATML_CALL.replace("</tool_call>", "</tool_cal>"))
    assert f.offset == text.index("</tool_cal>")
    assert q("</tool_call>") in f.expected


def test_chatml_truncated_inside_arguments():
    output = CHATML_CALL[:CHATML_CALL.index("Paris") + 2]
    text, f = diagnose_example("chatml-think-tools", output)
    assert f.offset == len(text)
    assert q('"') in f.expected


def test_chatml_wrong_tool_name():
    text, f = diagnose_example("chatml-think-tools", CHATML_CALL.replace("get_weather", "get_wether"))
    assert f.offset == text.index("get_wether")
    assert q("get_weather") in f.expected


def test_tagged_parameters_missing_function_close():
    output = ("<tool_calls>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
              "</tool_calls>")
    text, f = diagnose_example("tagged-parameters", output)
    assert diagnose_example("tagged-parameters", output.replace("</tool_calls>", "</function>\n</tool_calls>"))[1] is None
    assert f.offset == text.index("</tool_calls>")
    assert q("</function>\n") in f.expected


def test_tagged_parameters_misspelt_parameter_close_runs_to_the_end():
    output = "<tool_calls>\n<function=get_weather>\n<parameter=city>\nParis\n</parametr>\n</function>\n</tool_calls>"
    text, f = diagnose_example("tagged-parameters", output)
    assert f.offset == len(text)
    assert q("\n</parameter>\n") in f.expected


def test_wrapped_answer_wrong_call_close():
    good = '<calls><call name="get_weather">{"city": "Paris"}</call></calls>'
    assert diagnose_example("wrapped-answer-tag-json", good)[1] is None
    text, f = diagnose_example("wrapped-answer-tag-json", good.replace("</call>", "</cal>"))
    assert f.offset == text.index("</cal>")
    assert q("</call>") in f.expected


def test_bracket_calls_missing_list_close():
    # the generation prompt opens [THINK]: the reply first closes it
    good = 'ok[/THINK][TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "abc123456"}]'
    assert diagnose_example("bracket-tool-calls", good)[1] is None
    text, f = diagnose_example("bracket-tool-calls", good[:-1] + "}")
    assert f.offset == len(text) - 1
    assert q("]") in f.expected


def test_bracket_call_without_its_optional_id_fails_at_the_comma():
    # the parser writes ws "," ws ("id" ...)? before the closing brace: the comma is not optional
    output = 'ok[/THINK][TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}]'
    text, f = diagnose_example("bracket-tool-calls", output)
    assert f.offset == text.index("}]")
    assert f.expected == (q(","),) and f.rules[-1] == "tool"


def test_explain_mismatch_follows_the_parse_error():
    arena, prompt = example_parser("chatml-think-tools")
    good = analyse_output(arena, CHATML_CALL, generation_prompt=prompt)
    assert good.error is None and explain_mismatch(good, arena) is None
    bad = analyse_output(arena, CHATML_CALL.replace('"}}\n', '"}\n'), generation_prompt=prompt)
    assert bad.error is not None
    f = explain_mismatch(bad, arena)
    assert f == furthest_failure(arena, bad.input)
    assert f.offset >= bad.result.end


def test_explain_mismatch_leaves_the_parse_untouched():
    arena, prompt = example_parser("chatml-think-tools")
    output = CHATML_CALL.replace("</tool_call>", "</tool_cal>")
    before = analyse_output(arena, output, generation_prompt=prompt)
    explain_mismatch(before, arena)
    after = analyse_output(arena, output, generation_prompt=prompt)
    assert (before.result.status, before.result.end, before.error.message, before.error.location) == \
        (after.result.status, after.result.end, after.error.message, after.error.location)


# --- CLI ----------------------------------------------------------------------------------


def _cli(tmp_path, capsys, output: str, *extra: str) -> tuple[int, str, str]:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(list(TOOLS)), encoding="utf-8")
    out = tmp_path / "out.txt"
    out.write_text(output, encoding="utf-8")
    code = main(["parse", "example:chatml-think-tools", "--tools", str(tools), "--output-file", str(out), *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_explain_names_the_expectation_and_keeps_stdout(tmp_path, capsys):
    broken = CHATML_CALL.replace('"}}\n', '"}\n')
    plain = _cli(tmp_path, capsys, broken)
    explained = _cli(tmp_path, capsys, broken, "--explain")
    assert explained[0] == plain[0] == 1
    assert explained[1] == plain[1]
    assert json.loads(explained[1])["exception"]["message"].startswith("The model produced output")
    lines = [line for line in explained[2].splitlines() if line.startswith("explain: ")]
    assert len(lines) == 1 and 'expected "}"' in lines[0] and "tool-close" in lines[0]


def test_cli_explain_on_a_good_parse_prints_nothing_more(tmp_path, capsys):
    plain = _cli(tmp_path, capsys, CHATML_CALL)
    explained = _cli(tmp_path, capsys, CHATML_CALL, "--explain")
    assert explained == plain and explained[0] == 0 and "explain" not in explained[2]


def test_parse_batch_explain_adds_the_report_per_line(tmp_path, capsys):
    arena, prompt = example_parser("chatml-think-tools")
    broken = CHATML_CALL.replace("</tool_call>", "</tool_cal>")
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps({"id": i, "parser": arena.dumps(), "generation_prompt": prompt,
                                        "raw_output": out}) + "\n"
                            for i, out in (("good", CHATML_CALL), ("bad", broken))), encoding="utf-8")
    assert main(["parse-batch", str(rows)]) == 0
    plain = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert main(["parse-batch", str(rows), "--explain"]) == 0
    explained = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert all("explain" not in row for row in plain)
    assert [{k: v for k, v in row.items() if k != "explain"} for row in explained] == plain
    assert explained[0]["explain"] is None
    report = explained[1]["explain"]
    assert report["offset"] == (prompt + broken).index("</tool_cal>") and q("</tool_call>") in report["expected"]


# --- llama.cpp's own parsers ----------------------------------------------------------------


@lru_cache(maxsize=1)
def _oracle_rows() -> list[dict]:
    from explorer.cli.batch import raw_output_for

    rows = []
    for path in sorted((ORACLE / "parse").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row.get("parser"):
                row["_text"] = (row.get("generation_prompt") or "") + raw_output_for(row)
                rows.append(row)
    return rows


@requires_oracle
def test_oracle_failures_are_at_or_after_llama_cpp_offset():
    """llama.cpp gives no offset in its message: its offset is the lenient parse's end, which
    our engine reproduces (tests/test_output_oracle.py). On a failed lenient parse no scanner
    met the end of the text, so the final parse takes the same path and its furthest
    terminal failure cannot lie before the point the failing chain reports."""
    checked, mismatches = 0, []
    for row in _oracle_rows():
        if row["exception"] is None:
            continue
        arena = load_arena(row["parser"])
        lenient = engine_for(arena).parse(row["_text"], lenient=True)
        f = furthest_failure(arena, row["_text"])
        slow = diagnose(arena, row["_text"], json_fast=False)[1]
        checked += 1
        if f is None or not f.expected or f.offset < lenient.end or \
                (f.offset, f.expected, f.rules) != (slow.furthest, tuple(slow.expected), slow.rules):
            mismatches.append((row["id"], lenient.end, f))
    print(f"oracle rows that threw: {checked}, furthest failure at/after llama.cpp's offset: "
          f"{checked - len(mismatches)}; first mismatches: {mismatches[:3]}")
    assert checked > 0 and not mismatches


@requires_oracle
def test_oracle_parsed_rows_fail_only_as_lenient_successes():
    """A row llama.cpp parsed has no final-parse failure, unless only the lenient flag let it
    through (the lenient parse answered need-more-input at the end of the text)."""
    none, lenient_only, mismatches, disagree = 0, 0, [], []
    for row in _oracle_rows():
        if row["exception"] is not None:
            continue
        arena = load_arena(row["parser"])
        text = row["_text"]
        f = furthest_failure(arena, text)
        strict = engine_for(arena).parse(text, lenient=False)
        end, record = diagnose(arena, text)
        slow_end, slow = diagnose(arena, text, json_fast=False)
        same_record = (record.furthest, record.expected, record.rules) == (slow.furthest, slow.expected, slow.rules)
        if (end >= 0) != (not strict.fail()) or (end >= 0 and end != strict.end) or slow_end != end \
                or (end < 0 and not same_record):
            disagree.append(row["id"])
        if f is None:
            none += 1
        elif engine_for(arena).parse(text, lenient=True).status == NEED_MORE_INPUT:
            lenient_only += 1
        else:
            mismatches.append((row["id"], f.describe()))
    print(f"oracle rows that parsed: {none + lenient_only + len(mismatches)}; no failure: {none}; "
          f"lenient successes that fail as final input: {lenient_only}; "
          f"others: {len(mismatches)} {mismatches[:3]}; interpreter/engine disagreements: {disagree[:3]}")
    assert not mismatches and not disagree
