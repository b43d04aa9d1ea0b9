"""GBNF emission from PEG arenas, built or serialized: llama.cpp's oracle grammars, and our own arenas."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.errors import GrammarError
from explorer.grammar.automaton import AhoCorasick, escape_char_class
from explorer.grammar.gbnf import arena_to_gbnf, request_grammar, schemas_by_name
from explorer.peg.arena import Arena, load_arena
from oracle_data import ORACLE, requires_oracle

FIXTURES = Path(__import__("canitoolcall").__file__).parent / "_data" / "fixtures"


def _arena(parsers: list[dict], rules: dict[str, int], root: int) -> str:
    return json.dumps({"parsers": parsers, "rules": rules, "root": root})


def _rules(grammar: str) -> dict[str, str]:
    return dict(line.split(" ::= ", 1) for line in grammar.splitlines())


def test_sequence_choice_and_repetition_parenthesise_like_llama_cpp() -> None:
    parsers = [
        {"type": "literal", "literal": "a"},
        {"type": "literal", "literal": "b"},
        {"type": "choice", "children": [0, 1]},
        {"type": "repetition", "child": 2, "min_count": 0, "max_count": -1},
        {"type": "not", "child": 0},
        {"type": "sequence", "children": [0, 4, 3, 2]},
    ]
    rules = _rules(arena_to_gbnf(_arena(parsers, {}, 5)))
    assert rules["root"] == '"a" ("a" | "b")* ("a" | "b")'
    assert rules["space"] == '| " " | "\\n"{1,2} [ \\t]{0,20}'


def test_until_emits_the_excluding_automaton() -> None:
    parsers = [{"type": "until", "delimiters": ["</t>"]}]
    rules = _rules(arena_to_gbnf(_arena(parsers, {}, 0)))
    assert rules["root"] == "until-0"
    assert rules["until-0"] == "| [<] until-0-01 | [^<] until-0"
    assert rules["until-0-01"] == "| [<] until-0-01 | [/] until-0-02 | [^/<] until-0"
    assert rules["until-0-03"] == "| [<] until-0-01 | [^<>] until-0"


def test_ac_emits_the_including_automaton() -> None:
    parsers = [{"type": "any"}, {"type": "ac", "child": 0, "delimiters": ["ab"]}]
    rules = _rules(arena_to_gbnf(_arena(parsers, {}, 1)))
    assert rules["ac-1"] == "[a] ac-1-01 | [^a] ac-1"
    assert rules["ac-1-01"] == "[b] | [a] ac-1-01 | [^ab] ac-1"


def test_lazy_grammar_roots_on_sorted_trigger_rules_only() -> None:
    parsers = [
        {"type": "literal", "literal": "x"},
        {"type": "rule", "name": "zeta", "child": 0, "trigger": True},
        {"type": "rule", "name": "alpha", "child": 0, "trigger": True},
        {"type": "rule", "name": "unused", "child": 0, "trigger": False},
        {"type": "sequence", "children": [1, 2, 3]},
    ]
    arena = _arena(parsers, {"zeta": 1, "alpha": 2, "unused": 3}, 4)
    lazy = _rules(arena_to_gbnf(arena, lazy=True))
    assert lazy["root"] == "alpha | zeta" and "unused" not in lazy
    eager = _rules(arena_to_gbnf(arena))
    assert eager["root"] == "zeta alpha unused"


def test_schema_parser_uses_the_tool_schema_or_falls_back_to_its_child() -> None:
    tools = [{"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"q": {"type": "integer"}}, "required": ["q"]}}}]
    parsers = [{"type": "any"}, {"type": "schema", "child": 0, "name": "tool-f-schema", "raw": False}]
    with_schema = _rules(request_grammar(_arena(parsers, {}, 1), lazy=False, tools=tools))
    assert with_schema["root"] == "tool-f-schema"
    assert with_schema["tool-f-schema"] == '"{" space tool-f-schema-q-kv space "}"'
    assert _rules(arena_to_gbnf(_arena(parsers, {}, 1)))["root"] == "."
    assert set(schemas_by_name(tools)) == {"tool-f-schema", "tool-f-arg-q-schema"}


def test_char_class_escapes() -> None:
    assert [escape_char_class(c) for c in (ord("-"), 10, 0x7F, 0x3000, 0x1F600)] == \
        ["\\-", "\\n", "\\x7F", "\\u3000", "\\U0001F600"]
    ac = AhoCorasick(["he", "she"])
    assert ac.is_terminal(ac.next(ac.next(ac.next(0, ord("s")), ord("h")), ord("e")))


def test_bad_arena_raises_grammar_error() -> None:
    with pytest.raises(GrammarError, match="invalid parser ID: 3"):
        arena_to_gbnf('{"parsers": [], "rules": {"x": 3}, "root": 0}')
    with pytest.raises(GrammarError, match="Unknown parser type: bogus"):
        arena_to_gbnf(_arena([{"type": "bogus"}], {}, 0))
    with pytest.raises(GrammarError, match="Rule not found: gone"):
        arena_to_gbnf(_arena([{"type": "ref", "name": "gone"}], {}, 0))
    with pytest.raises(GrammarError, match="unknown PEG parser type 'object'"):
        arena_to_gbnf(Arena((object(),), (), 0))  # type: ignore[arg-type]


def test_built_arena_serialized_and_parsed_forms_emit_the_same_grammar() -> None:
    parsers = [{"type": "literal", "literal": "x"}, {"type": "until", "delimiters": ["</t>"]},
               {"type": "rule", "name": "r", "child": 1, "trigger": True}, {"type": "sequence", "children": [0, 2]}]
    text = _arena(parsers, {"r": 2}, 3)
    arena = load_arena(text)
    for lazy in (False, True):
        want = arena_to_gbnf(arena, lazy=lazy)
        assert arena_to_gbnf(text, lazy=lazy) == want == arena_to_gbnf(json.loads(text), lazy=lazy)


# --- llama.cpp's own grammars -------------------------------------------------------------


def _oracle_cases() -> list[tuple[str, str, str, bool, list | None]]:
    if not (ORACLE / "analysis" / "INDEX.json").is_file():
        return []
    fixtures = {}
    for path in FIXTURES.glob("*/*.jsonl"):
        for line in path.read_text("utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                fixtures[row["id"]] = row
    cases = []
    for path in sorted((ORACLE / "analysis").glob("*.json")):
        if path.name == "INDEX.json":
            continue
        data = json.loads(path.read_text("utf-8"))
        for key, applied in data["apply"].items():
            cases.append((f"{path.stem}/{key}", applied["parser"], applied["grammar"], applied["grammar_lazy"],
                          data["inputs"]["tools"]))
    for path in sorted((ORACLE / "parse").glob("*.jsonl")):
        for line in path.read_text("utf-8").splitlines():
            row = json.loads(line)
            cases.append((row["id"], row["parser"], row["grammar"], row["grammar_lazy"],
                          fixtures.get(row["id"], {}).get("tools")))
    return [c for c in cases if c[2]]


@requires_oracle
def test_every_oracle_grammar_is_rebuilt_from_its_serialized_parser() -> None:
    cases = _oracle_cases()
    mismatches = []
    for case_id, parser, grammar, lazy, tools in cases:
        built = request_grammar(parser, lazy=lazy, tools=tools)
        if built != grammar:
            mismatches.append(case_id)
    print(f"oracle grammars rebuilt: {len(cases) - len(mismatches)}/{len(cases)}; first mismatches: {mismatches[:5]}")
    assert len(cases) >= 500
    assert not mismatches


def test_rebuilt_grammar_matches_generated_for_odd_requests() -> None:
    """Step 2 (serialized parser + request) agrees with step 3 (the generator's own schemas)
    for repeated tool names and response formats, on several routes."""
    from cases import handler_params

    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {
        "a": {"type": "integer"}}, "required": ["a"]}}},
             {"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {
                 "a": {"type": "boolean"}}}}}]
    schema = {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}
    for handler, req in [("qwen3-coder", dict(tools=tools)),
                         ("gpt-oss", dict(tools=tools, tool_choice="required")),
                         ("qwen3-coder", dict(json_schema=schema)),
                         ("ministral-3", dict(json_schema=schema))]:
        out = handler_params(handler, "<think>", **req)
        rebuilt = request_grammar(out.parser, lazy=out.grammar_lazy, tools=req.get("tools"),
                                  json_schema=req.get("json_schema"))
        assert rebuilt == out.grammar, handler
