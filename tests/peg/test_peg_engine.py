"""The PEG engine, combinator by combinator, on vectors ported from llama.cpp's tests.

Expected values come from llama.cpp's tests/peg-parser/test-basic.cpp,
test-json-parser.cpp, test-python-dict-parser.cpp and test-unicode.cpp (the valid UTF-8
cases: our engine reads decoded text), plus the semantics of parser_executor in
common/peg-parser.cpp for partial input.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.errors import PegError
from explorer.peg import FAIL, NEED_MORE_INPUT, SUCCESS, Builder, build_arena
from explorer.peg.builder import parse_char_classes
from explorer.peg.engine import Engine

LENIENT = True
STRICT = False


def run(fn, text, lenient=STRICT):
    return Engine(build_arena(fn)).parse(text, lenient=lenient)


def status(fn, text, lenient=STRICT):
    return run(fn, text, lenient).status


# --- chars ------------------------------------------------------------------------------

CHARS_CASES = [
    ("[\\n\\t\\\\]", "\n", SUCCESS), ("[\\n\\t\\\\]", "\t", SUCCESS),
    ("[\\n\\t\\\\]", "\\", SUCCESS), ("[\\n\\t\\\\]", " ", FAIL),
    ("[a\\-z]", "a", SUCCESS), ("[a\\-z]", "-", SUCCESS), ("[a\\-z]", "z", SUCCESS),
    ("[a\\-z]", "b", FAIL),
    ("a-z", "a", SUCCESS), ("a-z", "A", FAIL),
    ("a-z-", "f", SUCCESS), ("a-z-", "-", SUCCESS), ("a-z-", "A", FAIL),
]


@pytest.mark.parametrize(("classes", "text", "expected"), CHARS_CASES)
def test_chars_classes(classes, text, expected):
    assert status(lambda p: p.chars(classes), text) == expected


def test_char_class_parsing_escapes_and_negation():
    assert parse_char_classes("[^\\x41-\\u0043]") == (((0x41, 0x43),), True)
    assert parse_char_classes("[\\U0001F600-\\U0001F64F]") == (((0x1F600, 0x1F64F),), False)
    # an invalid hex escape reads as the letter itself
    assert parse_char_classes("[\\xZZ]")[0][0] == (ord("x"), ord("x"))


UNICODE_CHARS = [
    ("[\\u4E00-\\u9FFF]", "\u4e00", SUCCESS), ("[\\u4E00-\\u9FFF]", "\u4f60", SUCCESS),
    ("[\\u4E00-\\u9FFF]", "\u597d", SUCCESS), ("[\\u4E00-\\u9FFF]", "\u9fff", SUCCESS),
    ("[\\u4E00-\\u9FFF]", "a", FAIL), ("[\\u4E00-\\u9FFF]", "\u4dff", FAIL),
    ("[\\u4E00-\\u9FFF]", "\ua000", FAIL),
    ("[\\U0001F600-\\U0001F64F]", "\U0001f600", SUCCESS),
    ("[\\U0001F600-\\U0001F64F]", "\U0001f64f", SUCCESS),
    ("[\\U0001F600-\\U0001F64F]", "\U0001f5ff", FAIL),
    ("[\\U0001F600-\\U0001F64F]", "\U0001f680", FAIL),
    ("[\\u4E00-\\u9FFF\\U0001F600-\\U0001F64F0-9]", "5", SUCCESS),
    ("[\\u4E00-\\u9FFF\\U0001F600-\\U0001F64F0-9]", "\U0001f600", SUCCESS),
    ("[\\u4E00-\\u9FFF\\U0001F600-\\U0001F64F0-9]", "a", FAIL),
]


@pytest.mark.parametrize(("classes", "text", "expected"), UNICODE_CHARS)
def test_chars_unicode_ranges(classes, text, expected):
    result = run(lambda p: p.sequence([p.chars(classes), p.end()]), text)
    assert result.status == expected
    if expected == SUCCESS:
        assert result.end == len(text)


def test_chars_counts_and_partial():
    three = lambda p: p.chars("[0-9]", 2, 3)  # noqa: E731
    assert run(three, "12345").end == 3
    assert status(three, "1x") == FAIL
    # running out of text before the minimum: need more input when lenient
    assert status(three, "1", LENIENT) == NEED_MORE_INPUT
    assert status(three, "1", STRICT) == FAIL
    # enough characters already: success even though more could follow
    assert status(three, "12", LENIENT) == SUCCESS


# --- literals, sequences, choices, repetition -------------------------------------------

PARTIAL_CASES = [
    (lambda p: p.literal("hello"), "hello", STRICT, SUCCESS),
    (lambda p: p.sequence([p.literal("<think>"), p.literal("</think>")]), "<thi", LENIENT, NEED_MORE_INPUT),
    (lambda p: p.sequence([p.literal("begin"), p.literal("end")]), "begin", LENIENT, NEED_MORE_INPUT),
    (lambda p: p.sequence([p.literal("<think>"), p.literal("</think>")]), "<think></", LENIENT, NEED_MORE_INPUT),
    (lambda p: p.sequence([p.literal("hello"), p.literal("world")]), "helloworld", STRICT, SUCCESS),
    (lambda p: p.sequence([p.literal("<think>"), p.literal("</think>")]),
     "<think>I am common_chat_combinator_parser", LENIENT, FAIL),
    (lambda p: p.choice([p.literal("option1"), p.literal("option2")]), "opt", LENIENT, NEED_MORE_INPUT),
    (lambda p: p.choice([p.literal("choice_a"), p.literal("choice_b")]), "choice", LENIENT, NEED_MORE_INPUT),
    (lambda p: p.choice([p.literal("first"), p.literal("second")]), "first", STRICT, SUCCESS),
    (lambda p: p.choice([p.literal("alpha"), p.literal("beta")]), "beta", STRICT, SUCCESS),
    (lambda p: p.choice([p.literal("good"), p.literal("better")]), "best", STRICT, FAIL),
    (lambda p: p.zero_or_more(p.literal("ab")), "a", LENIENT, NEED_MORE_INPUT),
    (lambda p: p.zero_or_more(p.literal("xy")), "xyx", LENIENT, NEED_MORE_INPUT),
    (lambda p: p.zero_or_more(p.literal("test")), "test", STRICT, SUCCESS),
    (lambda p: p.one_or_more(p.literal("repeat")), "rep", LENIENT, NEED_MORE_INPUT),
    (lambda p: p.one_or_more(p.literal("ab")), "aba", LENIENT, NEED_MORE_INPUT),
    (lambda p: p.one_or_more(p.literal("single")), "single", STRICT, SUCCESS),
    (lambda p: p.one_or_more(p.literal("()")), "success", STRICT, FAIL),
    (lambda p: p.sequence([p.literal("hello"), p.optional(p.literal(" world"))]), "hello ", LENIENT,
     NEED_MORE_INPUT),
]


@pytest.mark.parametrize(("fn", "text", "lenient", "expected"), PARTIAL_CASES)
def test_partial_parsing(fn, text, lenient, expected):
    assert status(fn, text, lenient) == expected


def test_optional_spans():
    fn = lambda p: p.sequence([p.literal("hello"), p.optional(p.literal(" world"))])  # noqa: E731
    assert run(fn, "hello world").end == 11
    assert run(fn, "hello").end == 5


def test_literal_partial_is_strict_failure():
    assert status(lambda p: p.literal("hello"), "hel", STRICT) == FAIL
    result = run(lambda p: p.literal("hello"), "hel", LENIENT)
    assert (result.status, result.end) == (NEED_MORE_INPUT, 3)


def test_repetition_bounds_and_empty_match_stop():
    assert run(lambda p: p.repeat(p.literal("a"), 2, 3), "aaaa").end == 3
    assert status(lambda p: p.repeat(p.literal("a"), 2, 3), "ab") == FAIL
    # an empty match ends the loop instead of spinning
    assert run(lambda p: p.zero_or_more(p.eps()), "abc").status == SUCCESS


def test_sequence_failure_end_is_the_failing_childs_end():
    # llama.cpp reports how far a failing sequence got; the chat parse uses it
    result = run(lambda p: p.sequence([p.literal("ab"), p.chars("[0-9]", 3, 3)]), "ab12x")
    assert (result.status, result.end) == (FAIL, 4)


# --- lookahead, anchors, any, space -----------------------------------------------------


def test_lookaheads():
    assert run(lambda p: p.sequence([p.peek(p.literal("a")), p.any()]), "a").end == 1
    assert status(lambda p: p.peek(p.literal("a")), "b") == FAIL
    assert status(lambda p: p.negate(p.literal("a")), "b") == SUCCESS
    assert status(lambda p: p.negate(p.literal("a")), "a") == FAIL
    # an undecided child keeps the negation undecided
    assert status(lambda p: p.negate(p.literal("abc")), "ab", LENIENT) == NEED_MORE_INPUT


def test_start_end_any_space():
    assert status(lambda p: p.sequence([p.start(), p.literal("x"), p.end()]), "x") == SUCCESS
    assert status(lambda p: p.sequence([p.literal("x"), p.end()]), "xy") == FAIL
    assert run(lambda p: p.one_or_more(p.any()), "h\u00e9\U0001f680").end == 3
    assert status(lambda p: p.any(), "", LENIENT) == NEED_MORE_INPUT
    assert status(lambda p: p.any(), "", STRICT) == FAIL
    # std::isspace: ASCII whitespace including \v and \f, but not U+00A0
    assert run(lambda p: p.space(), " \t\n\v\f\r\u00a0x").end == 6


# --- until ------------------------------------------------------------------------------

UNTIL_CASES = [
    ("\u4f60\u597d</tag>", "\u4f60\u597d"),
    ("\U0001f600</tag>", "\U0001f600"),
    ("Hello \u4e16\u754c!</tag>", "Hello \u4e16\u754c!"),
]


@pytest.mark.parametrize(("text", "expected"), UNTIL_CASES)
def test_until_unicode_content(text, expected):
    result = run(lambda p: p.until("</tag>"), text)
    assert (result.status, text[result.start:result.end]) == (SUCCESS, expected)


def test_until_partial_delimiter_and_end():
    until = lambda p: p.until_one_of(["</tag>", "<stop>"])  # noqa: E731
    # a delimiter cut short at the end stops the scan before it
    assert run(until, "abc</ta", LENIENT).end == 3
    assert run(until, "abc</ta", LENIENT).status == SUCCESS
    # the earliest delimiter wins
    assert run(until, "a<stop>b</tag>").end == 1
    # reaching the end: need more input when lenient, success otherwise
    assert run(until, "abc", LENIENT).status == NEED_MORE_INPUT
    assert run(until, "abc", STRICT).status == SUCCESS
    assert run(lambda p: p.rest(), "abc", STRICT).end == 3


def test_until_ignores_empty_delimiter():
    result = run(lambda p: p.until_one_of(["", "x"]), "abx")
    assert result.end == 2


# --- string content ---------------------------------------------------------------------

STRING_CASES = [
    ('Hello World"', "Hello World"), ('Caf\u00e9"', "Caf\u00e9"), ('\u4f60\u597d"', "\u4f60\u597d"),
    ('\U0001f600"', "\U0001f600"), ('Hello \u4e16\u754c!"', "Hello \u4e16\u754c!"),
    ('Hello\\u0041"', "Hello\\u0041"), ('\u4f60\\n\u597d"', "\u4f60\\n\u597d"),
    ('\u4f60\\"\u597d"', '\u4f60\\"\u597d'),
]


@pytest.mark.parametrize(("text", "expected"), STRING_CASES)
def test_string_content(text, expected):
    result = run(lambda p: p.sequence([p.string_content('"'), p.literal('"')]), text)
    assert result.status == SUCCESS
    assert text[: len(expected)] == expected and result.end == len(text)


def test_string_bad_escape_fails():
    assert status(lambda p: p.string_content('"'), 'a\\qb"') == FAIL
    assert status(lambda p: p.string_content('"'), 'a\\u00zz"') == FAIL


# --- JSON -------------------------------------------------------------------------------

JSON_OK = [
    '{"name": "test", "value": 42, "flag": true}',
    '[1, "hello", true, null, 3.14]',
    '{"users": [{"id": 1, "name": "Alice"}, {"id": 2, "name": "Bob"}], "count": 2, '
    '"metadata": {"version": "1.0", "tags": ["admin", "user"]}}',
]


@pytest.mark.parametrize("text", JSON_OK)
def test_json_complete(text):
    result = run(lambda p: p.json(), text)
    assert (result.status, result.end) == (SUCCESS, len(text))


@pytest.mark.parametrize("text", ['{"name": "test", "value": ', "[1, 2, 3, ", '{"data": {"nested": '])
def test_json_incomplete_needs_more(text):
    assert status(lambda p: p.json(), text, LENIENT) == NEED_MORE_INPUT


@pytest.mark.parametrize("text", ['{"text": "hello\\', '{"text": "hello\\u', '{"text": "hello\\u00'])
def test_json_incomplete_escape_is_left_out(text):
    result = run(lambda p: p.json(), text, LENIENT)
    assert result.status == NEED_MORE_INPUT
    assert result.end == text.index("\\")


def test_json_number_waits_for_possible_continuation():
    # "3" could become "3.14": the number is not committed at the end of partial text
    assert status(lambda p: p.json(), "3", LENIENT) == NEED_MORE_INPUT
    assert run(lambda p: p.json(), "3 ", LENIENT).end == 1


def test_json_member():
    fn = lambda p: p.json_member("name", p.sequence([p.literal('"'), p.chars("[a-z]"), p.literal('"')]))  # noqa: E731
    assert status(fn, '"name": "bob"') == SUCCESS
    assert status(fn, '"name": "bo', LENIENT) == NEED_MORE_INPUT
    assert status(fn, "[]") == FAIL


# --- Python values ------------------------------------------------------------------------

PY_OK = [
    "{'name': 'test', 'value': 42, 'flag': True}",
    "[1, 'hello', True, None, 3.14]",
    "{'message': 'It\\'s working!'}",
    "{'quote': 'He said \"Hello\"'}",
    "{ 'obj' : { 'something': 1, 'other \"something\"' : 'foo\\'s bar' } }",
    "{'message': 'Hello, \u4e16\u754c!'}",
    "{'unicode': 'Hello\\u0041'}",
    '{"name": "test"}',
    "{\"name\": 'test', 'value': \"hello\"}",
    "True", "False", "None",
]


@pytest.mark.parametrize("text", PY_OK)
def test_python_value_complete(text):
    result = run(lambda p: p.python_value(), text)
    assert (result.status, result.end) == (SUCCESS, len(text))


@pytest.mark.parametrize("text", ["{'name': 'test', 'value': ", "{'name': 'test"])
def test_python_value_incomplete(text):
    assert status(lambda p: p.python_value(), text, LENIENT) == NEED_MORE_INPUT


@pytest.mark.parametrize("keyword", ["true", "false", "null"])
def test_python_value_rejects_json_keywords(keyword):
    assert status(lambda p: p.python_value(), keyword) == FAIL


def test_json_rejects_single_quotes_unless_rule_preregistered():
    assert status(lambda p: p.json(), "{'name': 'test'}") == FAIL

    def flexible(p: Builder) -> int:
        p.rule("json-string", lambda: p.choice([p.double_quoted_string(), p.single_quoted_string()]))
        return p.json()

    for text in ["{'name': 'test'}", '{"name": "test"}', "{\"name\": 'test', 'value': \"hello\"}"]:
        result = run(flexible, text)
        assert (result.status, result.end) == (SUCCESS, len(text))


# --- rules, refs, tags, atomic ---------------------------------------------------------


def _value_grammar(p: Builder) -> int:
    p.rule("number", p.chars("0-9"))
    p.rule("list", p.sequence([p.literal("["), p.ref("value"), p.literal("]")]))
    return p.rule("value", p.choice([p.ref("number"), p.ref("list")]))


@pytest.mark.parametrize(("text", "lenient", "expected"), [
    ("1", STRICT, SUCCESS), ("[1]", STRICT, SUCCESS), ("[[2]]", STRICT, SUCCESS),
    ("[[[3]]]", STRICT, SUCCESS), ("[[", LENIENT, NEED_MORE_INPUT), ("[a]", STRICT, FAIL),
])
def test_recursive_rules(text, lenient, expected):
    assert status(_value_grammar, text, lenient) == expected


def test_marker():
    assert status(lambda p: p.marker(), "[marker]") == SUCCESS
    assert status(lambda p: p.marker(), "<marker>") == SUCCESS


def test_ast_records_rules_tags_and_spans():
    def fn(p: Builder) -> int:
        return p.sequence([p.literal("<a>"), p.tag("body", p.rule("word", p.chars("[a-z]"))),
                           p.literal("</a>")])

    result = run(fn, "<a>hi</a>")
    (body,) = result.nodes
    assert (body.tag, body.start, body.end, body.text, body.is_partial) == ("body", 3, 5, "hi", False)
    (word,) = body.children
    assert (word.rule, word.text) == ("word", "hi")


def test_partial_node_and_atomic():
    tagged = lambda p: p.tag("t", p.literal("hello"))  # noqa: E731
    (node,) = run(tagged, "hel", LENIENT).nodes
    assert node.is_partial and node.text == "hel"
    # atomic drops the nodes of an undecided child
    assert run(lambda p: p.atomic(p.tag("t", p.literal("hello"))), "hel", LENIENT).nodes == ()
    assert len(run(lambda p: p.atomic(p.tag("t", p.literal("hello"))), "hello").nodes) == 1


def test_delegating_kinds_parse_their_child():
    for wrap in (lambda p, c: p.schema(c, "s"), lambda p, c: p.gbnf(c, "g"),
                 lambda p, c: p.ac(c, ["x"])):
        assert run(lambda p: wrap(p, p.literal("ab")), "ab").end == 2


def test_dangling_ref_raises_peg_error():
    from explorer.peg import load_arena

    arena = load_arena('{"parsers":[{"type":"ref","name":"missing"}],"rules":{},"root":0}')
    with pytest.raises(PegError, match="Rule not found: missing"):
        Engine(arena).parse("x")


def test_no_root_raises():
    with pytest.raises(PegError):
        Engine(Builder().build()).parse("x")


def test_threads_sharing_an_arena_do_not_share_parse_state():
    import threading

    from explorer.peg import engine_for

    arena = build_arena(lambda p: p.sequence([p.tag("content", p.until("!")), p.literal("!")]))
    results: dict[int, str] = {}

    def work(i: int) -> None:
        for _ in range(200):
            text = f"thread {i} says hi!"
            (node,) = engine_for(arena).parse(text).nodes
            if node.text != text[:-1]:
                results[i] = node.text
                return
        results[i] = "ok"

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {i: "ok" for i in range(4)}


def test_first_character_sets():
    from explorer.peg.engine import first_chars

    arena = build_arena(lambda p: p.choice([p.literal("ab"), p.chars("[0-2]"), p.optional(p.literal("x")),
                                            p.sequence([p.tag("t", p.literal("q")), p.until("z")])]))
    sets = first_chars(arena)
    root = arena.get(arena.root)
    assert [sets[c] for c in root.children] == [frozenset("a"), frozenset("012"), None, frozenset("q")]


def _plain_engine(arena):
    import explorer.peg.engine as engine_module

    saved = engine_module.first_chars
    engine_module.first_chars = lambda a: [None] * len(a.parsers)
    try:
        return Engine(arena)
    finally:
        engine_module.first_chars = saved


def _summary(result):
    return (result.status, result.start, result.end, result.dump())


JSONISH = st.lists(st.sampled_from(list('{}[]",: 0123456789.eE+-tfnrueals\\\'TFN') + ["true", "null", "'a'"]),
                   max_size=30).map("".join)


@settings(max_examples=300, deadline=None)
@given(text=JSONISH, lenient=st.booleans(), which=st.sampled_from(["json", "python"]))
def test_first_character_dispatch_never_changes_a_result(text, lenient, which):
    arena = build_arena(lambda p: p.tag("v", p.json() if which == "json" else p.python_value()))
    fast, plain = Engine(arena), _plain_engine(arena)
    assert _summary(fast.parse(text, lenient=lenient)) == _summary(plain.parse(text, lenient=lenient))
