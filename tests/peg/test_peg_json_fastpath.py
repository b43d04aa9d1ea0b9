"""The JSON fast path gives exactly the combinators' answers.

The engine recognises llama.cpp's standard ``json-value`` rule and scans a complete JSON
value without the combinators (``explorer.peg.json_fast``). Differential tests: on
random JSON-ish texts and every prefix of them, an engine with the fast path and one
without agree on status, span, the whole tree, ``ctx.touched`` and the depth-cap error,
one-shot and incrementally (memo mode, the text growing a character at a time).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.errors import OutputParseError
from explorer.peg import Builder, build_arena, load_arena
from explorer.peg.chat_mappers import json_brace_depth
from explorer.peg.engine import MAX_NODE_DEPTH, Engine, LazyJsonValue
from explorer.peg.json_fast import is_standard_json_value
from oracle_data import ORACLE, oracle_available


def _bare_arena():
    return build_arena(lambda p: p.json())


def _wrapped_arena():
    # JSON inside tags and text, the way a tool call holds its arguments
    def fn(p: Builder) -> int:
        args = p.tag("tool-args", p.json())
        return p.sequence([p.literal("<"), p.tag("tool", p.sequence([args, p.space(), p.literal(">")])),
                           p.tag("content", p.until("\x00"))])
    return build_arena(fn)


def _oracle_json_arenas():
    if not oracle_available():
        return []
    found = []
    for path in sorted((ORACLE / "parse").glob("*.jsonl")):
        line = path.read_text(encoding="utf-8").splitlines()[0]
        arena = load_arena(json.loads(line)["parser"])
        if arena.has_rule("json-value"):
            found.append(arena)
    return found


ARENAS = [_bare_arena(), _wrapped_arena()] + _oracle_json_arenas()

_PIECES = ["[", "]", "{", "}", ",", ":", " ", "\t", "\n", "\v", '"', '\\"', "\\\\", "\\u00e9", "\\u12",
           "\\x", "0", "1", "9", "-", ".", "e", "E", "+", "true", "false", "null", "tru", "nul",
           "x", '"k"', '"a b"', "é", "01", "1.5", "-0e+3"]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=4), kids, max_size=4),
    max_leaves=12)


@st.composite
def jsonish(draw) -> str:
    """Valid JSON (any spacing), valid JSON with a mutation, or a soup of JSON pieces."""
    kind = draw(st.integers(0, 2))
    if kind == 2:
        return "".join(draw(st.lists(st.sampled_from(_PIECES), max_size=24)))
    text = json.dumps(draw(json_values), ensure_ascii=draw(st.booleans()),
                      indent=draw(st.sampled_from([None, 1])),
                      separators=draw(st.sampled_from([(",", ":"), (", ", ": "), (" ,", " : ")])))
    if kind == 1 and text:
        i = draw(st.integers(0, len(text)))
        text = text[:i] + draw(st.sampled_from(_PIECES)) + text[i + draw(st.integers(0, 2)):]
    return text + draw(st.sampled_from(["", " ", "x", ",", "]", "}", "1", "."]))


def _outcome(engine: Engine, text: str, lenient: bool, root: int | None):
    try:
        r = engine.parse(text, lenient=lenient, parser_id=root)
    except OutputParseError as exc:
        return ("error", str(exc))
    # the whole tree, pre-order and flat (comparing nested structures would recurse)
    tree = [(n.rule, n.tag, n.start, n.end, n.text, n.is_partial, n.tagged, len(n.children)) for n in r.walk()]
    return (r.status, r.start, r.end, tree, engine.ctx.touched)


def _wrap(arena, text: str) -> str:
    return "<" + text if arena is ARENAS[1] else text


def _root(arena) -> int | None:
    # the oracle arenas' roots need their whole chat format: run their json-value rule
    return None if arena in ARENAS[:2] else arena.rule_id("json-value")


@pytest.mark.parametrize("index", range(len(ARENAS)))
def test_the_standard_json_rule_is_recognised(index):
    arena = ARENAS[index]
    assert is_standard_json_value(arena, arena.rule_id("json-value"))


def test_a_different_json_rule_is_left_to_the_combinators():
    def fn(p: Builder) -> int:
        # json-null spelled "nil": same names, different grammar
        value = p.rule("json-value", lambda: p.choice([p.json_object(), p.json_array(), p.json_string(),
                                                       p.json_number(), p.json_bool(),
                                                       p.rule("json-null", p.literal("nil"))]))
        return value
    arena = build_arena(fn)
    assert not is_standard_json_value(arena, arena.rule_id("json-value"))
    r = Engine(arena).parse("[nil, 1] ")
    assert r.success() and not isinstance(r.nodes[0], LazyJsonValue)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index=st.integers(0, len(ARENAS) - 1), body=jsonish(), lenient=st.booleans())
def test_fast_path_equals_combinators_on_every_prefix(index, body, lenient):
    arena = ARENAS[index]
    root = _root(arena)
    text = _wrap(arena, body)
    fast, slow = Engine(arena), Engine(arena, json_fast=False)
    for cut in range(len(text) + 1):
        prefix = text[:cut]
        assert _outcome(fast, prefix, lenient, root) == _outcome(slow, prefix, lenient, root), prefix


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index=st.integers(0, len(ARENAS) - 1), body=jsonish())
def test_fast_path_equals_combinators_while_streaming(index, body):
    arena = ARENAS[index]
    root = _root(arena)
    text = _wrap(arena, body)
    fast, slow = Engine(arena, memo=True), Engine(arena, memo=True, json_fast=False)
    fresh = Engine(arena, json_fast=False)
    for cut in range(len(text) + 1):
        prefix = text[:cut]
        got = _outcome(fast, prefix, True, root)
        assert got == _outcome(slow, prefix, True, root), prefix
        assert got[:4] == _outcome(fresh, prefix, True, root)[:4], prefix
    assert _outcome(fast, text, False, root) == _outcome(slow, text, False, root)


@pytest.mark.parametrize("levels", [MAX_NODE_DEPTH // 2 - 3, MAX_NODE_DEPTH // 2 - 2, MAX_NODE_DEPTH // 2 - 1,
                                    MAX_NODE_DEPTH // 2, MAX_NODE_DEPTH // 2 + 1])
@pytest.mark.parametrize("inner", ["", "1", "{}", '{"a": 1}'])
def test_depth_cap_is_the_same_with_the_fast_path(levels, inner):
    # around the cap: closed and unclosed nesting raise or succeed alike
    for arena in ARENAS[:2]:
        for body in ["[" * levels + inner + "]" * levels + " ", "[" * levels + inner]:
            text = _wrap(arena, body)
            got = _outcome(Engine(arena), text, True, None)
            assert got == _outcome(Engine(arena, json_fast=False), text, True, None)


def test_long_values_take_the_fast_path_and_build_the_same_tree():
    arena = ARENAS[0]
    value = {"days": list(range(300)), "where": [{"city": "Paris\n\u00e9", "ok": True, "t": None}] * 20,
             "deep": [[[[-1.5e-3]]]]}
    text = json.dumps(value, indent=2) + " "
    fast = Engine(arena).parse(text)
    assert isinstance(fast.nodes[0], LazyJsonValue)
    assert fast.dump() == Engine(arena, json_fast=False).parse(text).dump()


def _brace_depth_by_characters(s: str) -> int:
    # the character loop of llama.cpp's mapper, kept here as the reference
    depth = 0
    in_string = escaped = False
    for c in s:
        if escaped:
            escaped = False
        elif c == "\\" and in_string:
            escaped = True
        elif c == '"':
            in_string = not in_string
        elif not in_string:
            depth += (c == "{") - (c == "}")
    return depth


@settings(max_examples=300, deadline=None)
@given(text=st.lists(st.sampled_from(['"', "\\", "{", "}", "a", "\n", '\\"', "[", ":"]), max_size=30).map("".join))
def test_brace_depth_matches_the_character_loop(text):
    assert json_brace_depth(text) == _brace_depth_by_characters(text)


def _string_by_characters(text: str, start: int, delim: str, lenient: bool):
    # the escape-by-escape loop of llama.cpp's string parser, kept as the reference:
    # (status, end, touched)
    escapable = set("\\/bfnrt") | {delim}
    pos, n = start, len(text)
    while pos < n:
        c = text[pos]
        if c == delim:
            return (1, pos, False)
        if c != "\\":
            pos += 1
            continue
        save = pos
        pos += 1
        if pos >= n:
            return (2, save, True) if lenient else (0, start, True)
        if text[pos] in escapable:
            pos += 1
            continue
        if text[pos] != "u":
            return (0, start, False)
        pos += 1
        for _ in range(4):
            if pos >= n:
                return (2, save, True) if lenient else (0, start, True)
            if text[pos] not in "0123456789abcdefABCDEF":
                return (0, start, False)
            pos += 1
    return (2 if lenient else 0, pos, True)  # the end reached, failing or not


@settings(max_examples=400, deadline=None)
@given(body=st.lists(st.sampled_from(["a", "é", '"', "'", "\\", '\\"', "\\'", "\\n", "\\u00e9", "\\u0", "\\x",
                                      "\\/", "\n", "1f"]), max_size=20).map("".join),
       delim=st.sampled_from(['"', "'"]), lenient=st.booleans())
def test_string_content_matches_the_escape_loop(body, delim, lenient):
    arena = build_arena(lambda p: p.string_content(delim))
    for cut in range(len(body) + 1):
        engine = Engine(arena)
        r = engine.parse(body[:cut], lenient=lenient)
        want = _string_by_characters(body[:cut], 0, delim, lenient)
        assert (r.status, r.end, engine.ctx.touched) == want, body[:cut]


def _two_depth_arena():
    # json-value reached at one position from two depths: the second try is three tags deeper
    def fn(p: Builder) -> int:
        deep = p.tag("a", p.tag("b", p.tag("c", p.sequence([p.json(), p.literal("!")]))))
        return p.choice([p.sequence([p.json(), p.literal("?")]), deep, p.tag("d", p.json())])
    return build_arena(fn)


@pytest.mark.parametrize("levels", range(MAX_NODE_DEPTH // 2 - 6, MAX_NODE_DEPTH // 2 + 1))
@pytest.mark.parametrize("tail", ["", "]", "!", " !", "?"])
def test_values_known_from_a_failed_scan_respect_the_depth_they_are_met_at(levels, tail):
    arena = _two_depth_arena()
    inner = "[" * levels + "[1, {}]" + "]" * levels
    for text in ("[" + inner + tail, inner + tail, "[" + inner + "]" + tail):
        assert _outcome(Engine(arena), text, True, None) == _outcome(Engine(arena, json_fast=False), text, True, None)
        assert _outcome(Engine(arena, memo=True), text, True, None) == \
            _outcome(Engine(arena, memo=True, json_fast=False), text, True, None)
