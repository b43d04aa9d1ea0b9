"""The serialized arena (llama-server's ``parser`` string): load and save back byte for byte."""

from __future__ import annotations

import json

import pytest

from explorer.errors import PegError
from explorer.peg import Builder, build_arena, load_arena
from explorer.peg.nodes import ALL_KINDS
from oracle_data import ORACLE, requires_oracle


def oracle_parser_strings() -> list[str]:
    found: set[str] = set()
    for path in sorted((ORACLE / "parse").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            found.add(json.loads(line)["parser"])
    for path in sorted((ORACLE / "analysis").glob("*.json")):
        if path.name == "INDEX.json":
            continue
        apply = json.loads(path.read_text(encoding="utf-8"))["apply"]
        for key in ("thinking_false", "thinking_true"):
            found.add(apply[key]["parser"])
    return sorted(found)


@requires_oracle
def test_every_oracle_parser_round_trips_byte_for_byte():
    strings = oracle_parser_strings()
    bad = [s for s in strings if load_arena(s).dumps() != s]
    print(f"round trip: {len(strings) - len(bad)}/{len(strings)} parser strings identical")
    for s in bad[:3]:
        out = load_arena(s).dumps()
        i = next((k for k, (a, b) in enumerate(zip(s, out)) if a != b), min(len(s), len(out)))
        print("first difference at", i, repr(s[i - 60:i + 40]), "vs", repr(out[i - 60:i + 40]))
    assert not bad
    assert len(strings) >= 200


@requires_oracle
def test_oracle_uses_only_known_kinds():
    known = {k.KIND for k in ALL_KINDS}
    used = {p["type"] for s in oracle_parser_strings() for p in json.loads(s)["parsers"]}
    assert used <= known
    # every kind llama.cpp serializes shows up somewhere in the oracle except start
    assert known - used <= {"start"}


def _every_kind_arena():
    def fn(p: Builder) -> int:
        body = p.sequence([
            p.start(), p.eps(), p.literal('quote " and \\ and \n and é and \x01'),
            p.choice([p.chars("[a-z\\n]", 0, 3), p.any()]), p.repeat(p.space(), 0, -1),
            p.peek(p.literal("x")), p.negate(p.literal("y")), p.string_content('"'),
            p.until_one_of(["</a>", "</b>"]), p.schema(p.json(), "tool-x-schema", raw=True),
            p.atomic(p.tag("content", p.rest())), p.gbnf(p.eps(), 'root ::= "x"'),
            p.ac(p.until("END"), ["END"]), p.end()])
        return p.trigger_rule("root-rule", body)
    return build_arena(fn)


def test_own_arena_round_trips_and_keeps_every_field():
    arena = _every_kind_arena()
    text = arena.dumps()
    assert load_arena(text).dumps() == text
    assert load_arena(text) == arena
    kinds = {p["type"] for p in json.loads(text)["parsers"]}
    assert kinds == {k.KIND for k in ALL_KINDS}
    # llama.cpp's key order per kind
    chars = next(p for p in json.loads(text, object_pairs_hook=list) if p[0] == "parsers")[1]
    chars = next(p for p in chars if ("type", "chars") in p)
    assert [k for k, _ in chars] == ["type", "pattern", "ranges", "negated", "min_count", "max_count"]
    # UTF-8 stays unescaped, control characters use JSON escapes as nlohmann writes them
    assert "é" in text and "\\u0001" in text and "\\n" in text


def test_root_may_be_unset():
    text = '{"parsers":[],"rules":{},"root":18446744073709551615}'
    arena = load_arena(text)
    assert not arena.has_root and arena.dumps() == text


def test_rule_order_is_kept():
    text = ('{"parsers":[{"type":"literal","literal":"a"},{"type":"rule","name":"b","child":0,'
            '"trigger":false},{"type":"rule","name":"a","child":0,"trigger":true}],'
            '"rules":{"b":1,"a":2},"root":1}')
    assert load_arena(text).dumps() == text


@pytest.mark.parametrize(("text", "message"), [
    ("not json", "not JSON"),
    ('{"rules":{},"root":0}', "'parsers'"),
    ('{"parsers":[],"root":0}', "'rules'"),
    ('{"parsers":[],"rules":{}}', "'root'"),
    ('{"parsers":[{"type":"bogus"}],"rules":{},"root":0}', "Unknown parser type: bogus"),
    ('{"parsers":[{"literal":"a"}],"rules":{},"root":0}', "'type'"),
    ('{"parsers":[{"type":"literal"}],"rules":{},"root":0}', "literal"),
    ('{"parsers":[{"type":"sequence","children":[5]}],"rules":{},"root":0}', "invalid parser ID: 5"),
    ('{"parsers":[{"type":"epsilon"}],"rules":{"r":3},"root":0}', "Rule 'r' references invalid parser ID: 3"),
    ('{"parsers":[{"type":"epsilon"}],"rules":{},"root":7}', "Root references invalid parser ID: 7"),
    ('{"parsers":[{"type":"string","delimiter":""}],"rules":{},"root":0}', "delimiter is empty"),
    ('{"parsers":[{"type":"ac","child":0,"delimiters":[]}],"rules":{},"root":0}', "non-empty"),
    # llama.cpp iterates a scalar "ranges" as one range (it was a Python TypeError here)
    ('{"parsers":[{"type":"chars","pattern":"[a]","ranges":5,"negated":false,"min_count":1,"max_count":1}],'
     '"rules":{},"root":0}', "char_range missing 'start' or 'end' field"),
])
def test_malformed_parsers_raise_peg_error(text, message):
    with pytest.raises(PegError, match=message.replace("(", r"\(")):
        load_arena(text)


def test_chars_ranges_are_read_as_llama_cpp_iterates_them():
    """nlohmann's range-for: null has no ranges, an object's values are the ranges."""
    head = '{"parsers":[{"type":"chars","pattern":"[a]","negated":false,"min_count":1,"max_count":1,"ranges":'
    assert load_arena(head + 'null}],"rules":{},"root":0}').parsers[0].ranges == ()
    loaded = load_arena(head + '{"x":{"start":97,"end":98}}}],"rules":{},"root":0}')
    assert loaded.parsers[0].ranges == ((97, 98),)


def test_notation_names_rules_and_reads_as_peg():
    arena = build_arena(lambda p: p.sequence([
        p.optional(p.sequence([p.literal("<think>"), p.tag("reasoning", p.until("</think>")),
                               p.literal("</think>")])),
        p.tag("content", p.rest()), p.end()]))
    text = arena.notation()
    assert text == 'root = ("<think>" tag<reasoning>(until("</think>")) "</think>")? tag<content>(until()) $'
    json_text = build_arena(lambda p: p.json()).notation()
    assert "json-value = json-object / json-array / json-string / json-number / json-bool / json-null" in json_text


def test_llama_dump_notation():
    arena = build_arena(lambda p: p.sequence([p.literal("a"), p.zero_or_more(p.chars("[0-9]")),
                                              p.tag("t", p.until("x"))]))
    assert arena.dump() == "Sequence(Literal(a), Repetition(CharRepeat([0-9], 1, unbounded), 0, unbounded), Tag(t, Until(x)))"


def test_each_parser_prints_itself():
    b = Builder()
    seq = b.sequence([b.literal("a"), b.optional(b.choice([b.literal("b"), b.chars("[0-9]", 2, 4)]))])
    b.set_root(seq)
    arena = b.build()
    assert arena.notation_of(seq) == '"a" ("b" / ~"[0-9]"{2,4})?'
