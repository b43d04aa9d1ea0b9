"""Parser generator: analysis + request -> llama.cpp's parser, grammar and triggers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cases import HERMES, WEATHER, tagged_spec
from explorer.analysis.model import TemplateAnalysis
from explorer.errors import AnalysisError, RequestError
from explorer.generator import GenerationParams, generate_params
from explorer.output.parse import parse_output
from explorer.peg.arena import load_arena
from explorer.peg.stl_order import hash_bytes, unordered_map_order
from oracle_data import ORACLE, requires_oracle

FIXTURES = Path(__import__("canitoolcall").__file__).parent / "_data" / "fixtures"
FIELDS = ("parser", "grammar", "grammar_lazy", "grammar_triggers", "preserved_tokens", "additional_stops",
          "generation_prompt", "supports_thinking", "thinking_start_tag", "thinking_end_tags")



def _rules(grammar: str) -> dict[str, str]:
    return dict(line.split(" ::= ", 1) for line in grammar.splitlines())


def test_hermes_json_tools_lazy_grammar() -> None:
    out = generate_params(TemplateAnalysis.from_oracle_json(HERMES),
                          GenerationParams(tools=WEATHER, generation_prompt="<|im_start|>assistant\n"))
    rules = _rules(out.grammar)
    assert out.grammar_lazy and [t.to_json() for t in out.grammar_triggers] == \
        [{"type": "WORD", "value": "<tool_call>", "token": -1}]
    assert rules["root"] == "tool-call"
    # a choice inside a sequence is parenthesised, as in llama.cpp's grammars
    assert rules["tool-call"] == \
        '"<tool_call>" space (tool-get-weather) (space "," space (tool-get-weather))* space "</tool_call>"'
    assert rules["tool-get-weather-schema"] == \
        '"{" space tool-get-weather-schema-city-kv ( "," space ( tool-get-weather-schema-days-kv ) )? space "}"'
    arena = json.loads(out.parser)
    assert arena["parsers"][arena["root"]]["type"] == "sequence"
    assert arena["parsers"][arena["parsers"][arena["root"]]["children"][0]] == \
        {"type": "literal", "literal": "<|im_start|>assistant\n"}


def test_tool_choice_required_is_not_lazy_and_none_has_no_grammar() -> None:
    spec = TemplateAnalysis.from_oracle_json(HERMES)
    required = generate_params(spec, GenerationParams(tools=WEATHER, tool_choice="required"))
    assert not required.grammar_lazy and not required.grammar_triggers
    assert _rules(required.grammar)["root"].startswith("(") or "tool-call" in _rules(required.grammar)["root"]
    none = generate_params(spec, GenerationParams(tools=WEATHER, tool_choice="none"))
    assert none.grammar == "" and not none.grammar_lazy
    assert "tool-call" not in json.loads(none.parser)["rules"]


def test_response_format_grammar_wraps_the_schema() -> None:
    schema = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}
    out = generate_params(TemplateAnalysis.from_oracle_json(HERMES), GenerationParams(json_schema=schema))
    rules = _rules(out.grammar)
    assert not out.grammar_lazy
    assert rules["response-format"] == "response-format-schema"
    assert '"```json" space response-format space "```"' in rules["root"]


def test_tagged_arguments_use_string_values_and_schema_values() -> None:
    out = generate_params(TemplateAnalysis.from_oracle_json(tagged_spec()), GenerationParams(tools=WEATHER))
    rules = _rules(out.grammar)
    assert rules["tool-get-weather-arg-city"].startswith('("<parameter=" "city" ">") "\\n" ac-')
    # a primitive schema names its rule after the primitive, not after the schema parser
    assert rules["tool-get-weather-arg-days"] == '("<parameter=" "days" ">") "\\n" integer "\\n</parameter>"'
    assert rules["integer"] == '("-"? integral-part)'


def test_no_reasoning_extraction_when_format_is_none() -> None:
    spec = TemplateAnalysis.from_oracle_json(HERMES)
    out = generate_params(spec, GenerationParams(reasoning_format="none"))
    assert not any(p.get("tag") == "reasoning" for p in json.loads(out.parser)["parsers"])
    out = generate_params(spec, GenerationParams())
    assert any(p.get("tag") == "reasoning" for p in json.loads(out.parser)["parsers"])


def test_generation_prompt_stops_at_the_reasoning_start() -> None:
    out = generate_params(TemplateAnalysis.from_oracle_json(HERMES),
                          GenerationParams(generation_prompt="<|im_start|>assistant\n<think>\n"))
    literals = [p["literal"] for p in json.loads(out.parser)["parsers"] if p["type"] == "literal"]
    assert "<|im_start|>assistant\n" in literals
    assert "<|im_start|>assistant\n<think>\n" not in literals


def test_generated_arena_parses_a_tool_call_with_the_peg_engine() -> None:
    out = generate_params(TemplateAnalysis.from_oracle_json(HERMES), GenerationParams(tools=WEATHER))
    arena = load_arena(out.parser)
    msg = parse_output(
        arena, 'Sure.<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>')
    assert msg.content == "Sure."
    assert [(c.name, json.loads(c.arguments)) for c in msg.tool_calls] == [("get_weather", {"city": "Paris"})]


def test_bad_inputs_raise_explorer_errors() -> None:
    with pytest.raises(RequestError, match="tool_choice"):
        GenerationParams(tool_choice="sometimes")
    with pytest.raises(RequestError, match="Missing tool function"):
        GenerationParams(tools=[{"type": "function"}])
    with pytest.raises(RequestError, match="Unsupported tool type"):
        GenerationParams(tools=[{"type": "code_interpreter"}])
    assert GenerationParams(tools=[]).tools is None
    normalized = GenerationParams(tools=[{"type": "function", "function": {"name": "f", "strict": True}}]).tools
    assert normalized == ({"type": "function", "function": {"name": "f", "description": "", "parameters": {}}},)
    with pytest.raises(AnalysisError):
        TemplateAnalysis.from_oracle_json({"reasoning": {}})
    incomplete = dict(HERMES, analysis_complete=False)
    with pytest.raises(AnalysisError):
        generate_params(TemplateAnalysis.from_oracle_json(incomplete), GenerationParams())


def test_unordered_map_model() -> None:
    assert hash_bytes(b"") == hash_bytes(b"", 0xC70F6907)
    assert sorted(unordered_map_order(["a", "b", "c"])) == ["a", "b", "c"]
    # more keys than the first bucket table (13) holds forces a rehash
    keys = [f"rule-{i}" for i in range(40)]
    assert sorted(unordered_map_order(keys)) == sorted(keys)


# --- llama.cpp's own outputs -------------------------------------------------------------


def _analysis_files() -> list[Path]:
    if not (ORACLE / "analysis" / "INDEX.json").is_file():
        return []
    return [p for p in sorted((ORACLE / "analysis").glob("*.json")) if p.name != "INDEX.json"]


@requires_oracle
def test_rules_order_matches_every_oracle_arena() -> None:
    arenas = []
    for path in _analysis_files():
        arenas += [a["parser"] for a in json.loads(path.read_text("utf-8"))["apply"].values()]
    for path in sorted((ORACLE / "parse").glob("*.jsonl")):
        arenas += [json.loads(line)["parser"] for line in path.read_text("utf-8").splitlines()]
    bad = 0
    for text in arenas:
        arena = json.loads(text)
        inserted: list[str] = []
        for p in arena["parsers"]:
            if p["type"] == "rule" and p["name"] not in inserted:
                inserted.append(p["name"])
        bad += unordered_map_order(inserted) != list(arena["rules"])
    print(f"rule-map order: {len(arenas) - bad}/{len(arenas)}")
    assert bad == 0


@requires_oracle
def test_autoparser_templates_match_the_oracle_field_by_field() -> None:
    counts = dict.fromkeys(FIELDS, 0)
    total, mismatches = 0, []
    for path in _analysis_files():
        data = json.loads(path.read_text("utf-8"))
        if data["routed"]["handler"] != "autoparser":
            continue
        spec = TemplateAnalysis.from_oracle_json(data["autoparser"])
        inputs = data["inputs"]
        for key, applied in data["apply"].items():
            total += 1
            req = GenerationParams(tools=inputs["tools"], tool_choice=inputs["tool_choice"],
                                    parallel_tool_calls=inputs["parallel_tool_calls"],
                                    reasoning_format=inputs["reasoning_format"],
                                    generation_prompt=applied["generation_prompt"])
            got = generate_params(spec, req).to_oracle_json()
            for fld in FIELDS:
                if got[fld] == applied[fld]:
                    counts[fld] += 1
                else:
                    mismatches.append(f"{path.stem}/{key}/{fld}")
    print(f"autoparser apply ({total} = templates x 2): {counts}; first mismatches: {mismatches[:5]}")
    assert total == 88
    assert not mismatches


@requires_oracle
def test_autoparser_parse_rows_match_the_oracle() -> None:
    fixtures = {}
    for path in FIXTURES.glob("*/*.jsonl"):
        for line in path.read_text("utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                fixtures[row["id"]] = row
    total, mismatches = 0, []
    specs: dict[str, TemplateAnalysis] = {}
    for path in sorted((ORACLE / "parse").glob("*.jsonl")):
        for line in path.read_text("utf-8").splitlines():
            row = json.loads(line)
            if row["handler"] != "autoparser":
                continue
            total += 1
            name = row["template"].removesuffix(".jinja")
            if name not in specs:
                analysis = json.loads((ORACLE / "analysis" / f"{name}.json").read_text("utf-8"))["autoparser"]
                specs[name] = TemplateAnalysis.from_oracle_json(analysis)
            req = GenerationParams(tools=fixtures[row["id"]].get("tools"),
                                    parallel_tool_calls=row["parallel_tool_calls"],
                                    generation_prompt=row["generation_prompt"])
            got = generate_params(specs[name], req).to_oracle_json()
            for fld in ("parser", "grammar", "grammar_lazy", "preserved_tokens", "additional_stops",
                        "supports_thinking"):
                if got[fld] != row[fld]:
                    mismatches.append(f"{row['id']}/{fld}")
    print(f"autoparser parse rows: {total - len({m.rsplit('/', 1)[0] for m in mismatches})}/{total}; "
          f"first mismatches: {mismatches[:5]}")
    assert total == 184
    assert not mismatches


def test_continuation_keeps_the_template_prompt_for_the_parser() -> None:
    spec = TemplateAnalysis.from_oracle_json(HERMES)
    req = GenerationParams(generation_prompt="<|im_start|>assistant\n<think>\nI was think",
                            template_generation_prompt="<|im_start|>assistant\n", continuation="reasoning")
    out = generate_params(spec, req)
    assert out.generation_prompt == "<|im_start|>assistant\n<think>\nI was think"
    literals = [p["literal"] for p in json.loads(out.parser)["parsers"] if p["type"] == "literal"]
    assert "<|im_start|>assistant\n" in literals
    with pytest.raises(RequestError):
        GenerationParams(continuation="sideways")
