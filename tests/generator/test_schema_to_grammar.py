"""JSON schema -> GBNF: llama.cpp's own conversion vectors, ported as data."""

from __future__ import annotations

import json
import re

import pytest

from explorer.errors import GrammarError
from explorer.grammar import build_grammar, json_schema_to_grammar, schema_from_json
from explorer.grammar.json_schema import build_repetition, format_literal
from explorer.schema import ObjectSchema, may_be_string
from oracle_data import DATA_DIR

VECTORS = json.loads((DATA_DIR / "json_schema_to_grammar_vectors.json").read_text("utf-8"))


def _trim(text: str) -> str:
    """The reference test's comparison: strip, and drop each line's leading indentation."""
    return re.sub(r"(^|\n)[ \t]+", r"\1", text.strip(" \n\r\t"))


@pytest.mark.parametrize("case", VECTORS["cases"], ids=[c["name"] for c in VECTORS["cases"]])
def test_reference_vector(case: dict) -> None:
    schema = json.loads(case["schema"])
    if case["status"] == "FAILURE":
        with pytest.raises(GrammarError):
            json_schema_to_grammar(schema)
        return
    assert _trim(json_schema_to_grammar(schema)) == _trim(case["expected_grammar"])


def test_vector_count() -> None:
    assert len(VECTORS["cases"]) == 81


def test_parsed_document_recursion_matches_json_route() -> None:
    schema = {
        "$ref": "#/$defs/node",
        "$defs": {"node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}, "leaf": {}},
                           "additionalProperties": False}},
    }
    grammar = json_schema_to_grammar(schema)
    assert "ref-defs-node ::=" in grammar
    assert "next-kv ::= \"\\\"next\\\"\" space \":\" space ref-defs-node" in grammar


def test_sub_schema_ref_names_the_ref_rule() -> None:
    params = {
        "type": "object",
        "properties": {"item": {"$ref": "#/$defs/item"}},
        "$defs": {"item": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"],
                           "additionalProperties": False}},
    }
    doc = schema_from_json(params)
    assert isinstance(doc.root, ObjectSchema)
    item = doc.root.properties[0].schema
    grammar = build_grammar(lambda b: b.add_schema("root", item))
    expected = """
        char ::= [^"\\\\\\x7F\\x00-\\x1F] | [\\\\] (["\\\\bfnrt] | "u" [0-9a-fA-F]{4})
        ref-defs-item ::= "{" space ref-defs-item-a-kv space "}"
        ref-defs-item-a-kv ::= "\\"a\\"" space ":" space string
        root ::= ref-defs-item
        space ::= | " " | "\\n"{1,2} [ \\t]{0,20}
        string ::= "\\"" char* "\\""
    """
    assert _trim(grammar) == _trim(expected)


def test_our_tool_schema_orders_required_before_optional() -> None:
    schema = {"type": "object", "properties": {"unit": {"enum": ["c", "f"]}, "city": {"type": "string"}},
              "required": ["city"]}
    grammar = json_schema_to_grammar(schema)
    assert 'root ::= "{" space city-kv ( "," space ( unit-kv ) )? space "}"' in grammar
    assert 'unit ::= ("\\"c\\"" | "\\"f\\"")' in grammar


def test_rule_name_collision_gets_numeric_suffix() -> None:
    def cb(b):
        assert b.add_rule("x y", "\"a\"") == "x-y"
        assert b.add_rule("x y", "\"a\"") == "x-y"
        assert b.add_rule("x-y", "\"b\"") == "x-y0"
    assert "x-y0 ::= \"b\"" in build_grammar(cb)


def test_helpers() -> None:
    assert format_literal('a"b\\\n\r') == '"a\\"b\\\\\\n\\r"'
    assert build_repetition("x", 0, 1) == "x?"
    assert build_repetition("x", 2, 2**31 - 1, '","') == 'x ("," x)+'
    assert build_repetition("x", 3, 5, '","') == 'x ("," x){2,4}'
    assert may_be_string(schema_from_json({"anyOf": [{"type": "integer"}, {"enum": [1, "a"]}]}).root)
    assert not may_be_string(schema_from_json({"type": "integer"}).root)


@pytest.mark.parametrize("bad", [{"type": 123}, {"enum": []}, {"$ref": "http://x"}, {"type": "str"}, []])
def test_unsupported_schemas_raise_grammar_error(bad) -> None:
    with pytest.raises(GrammarError, match="JSON schema"):
        json_schema_to_grammar(bad)


def test_enum_values_are_dumped_as_nlohmann_does() -> None:
    # nlohmann prints 1e15 <= |x| < 1e16 with an exponent (Python's repr does not), NaN as null
    from explorer.grammar.json_schema import json_dump

    assert json_dump(1e15) == "1e+15"
    assert json_dump(-2.5e15) == "-2.5e+15"
    assert json_dump([1, 2.0, "é", None, True, 1e-05, 0.0001]) == '[1,2.0,"é",null,true,1e-05,0.0001]'
    grammar = json_schema_to_grammar({"enum": [1.5, "a\u00e9", {"k": [1]}]})
    assert 'root ::= ("1.5" | "\\"a\u00e9\\"" | "{\\"k\\":[1]}")' in grammar


def test_absurdly_deep_schema_is_a_grammar_error_not_a_crash() -> None:
    schema: dict = {"type": "string"}
    for _ in range(3000):
        schema = {"type": "object", "properties": {"a": schema}, "required": ["a"]}
    with pytest.raises(GrammarError, match="nested too deeply"):
        json_schema_to_grammar(schema)
