"""Specialized handlers (llama.cpp common/parsers/) on their own: parser, grammar and triggers.

Each handler is driven directly with ``GenerationParams`` (the oracle's generation prompt,
not one we computed), so a mismatch here is the handler's, not the apply stage's.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from cases import HERMES, handler_params, route_params
from cases import tagged_spec as _tagged
from explorer.analysis.model import TemplateAnalysis
from explorer.errors import ExplorerError
from explorer.generator.chat_builder import ChatPeg
from explorer.generator.params import GeneratedParams
from explorer.grammar.check import check_grammar, compile_gbnf
from explorer.handlers import HANDLER_CLASSES
from explorer.output.parse import parse_output
from explorer.peg.arena import load_arena
from explorer.routing import patch_source
from oracle_data import ORACLE, load_oracle_analysis, oracle_template_names, requires_oracle

FIXTURES = Path(__import__("canitoolcall").__file__).parent / "_data" / "fixtures"
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"},
                                     "when": {"type": ["string", "null"]}},
    "required": ["city", "days"]}}}]
QWEN35_SOURCE = "{{ '<think>' }}<tool_call><function=<parameter="


def apply_keys(out: GeneratedParams) -> dict:
    return {"parser": out.parser, "grammar": out.grammar, "grammar_lazy": out.grammar_lazy,
            "grammar_triggers": [t.to_json() for t in out.grammar_triggers],
            "preserved_tokens": list(out.preserved_tokens), "additional_stops": list(out.additional_stops),
            "thinking_start_tag": out.thinking_start_tag, "thinking_end_tags": list(out.thinking_end_tags)}


def _rules(grammar: str) -> dict[str, str]:
    return dict(line.split(" ::= ", 1) for line in grammar.splitlines())


@requires_oracle
def test_every_oracle_route_has_a_handler() -> None:
    routed = {load_oracle_analysis(name)["routed"]["handler"] for name in oracle_template_names()}
    assert routed - {"autoparser"}, "the oracle's templates reach no handler"
    assert routed - {"autoparser"} <= {cls.name for cls in HANDLER_CLASSES}


def test_permute_builds_one_rule_per_remaining_subset() -> None:
    p = ChatPeg()
    a, b = p.literal("a"), p.literal("b")
    root = p.permute("args", [a, b])
    arena = p.build(root)
    assert set(dict(arena.rules)) == {"args-3", "args-2", "args-1"}


def test_qwen3_coder_required_arguments_in_any_order() -> None:
    out = handler_params("qwen3-coder", QWEN35_SOURCE, tools=TOOLS, tool_choice="required")
    assert not out.grammar_lazy and out.preserved_tokens[-2:] == ("<think>", "</think>")
    call = ("<tool_call>\n<function=get_weather>\n<parameter=days>\n3\n</parameter>\n"
            "<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>")
    swapped, bad_int = check_grammar(out.grammar, ["<|im_start|>assistant\n" + call,
                                                   "<|im_start|>assistant\n" + call.replace("\n3\n", "\nthree\n")])
    assert "tool-get-weather-args-3" in _rules(out.grammar)
    assert swapped.accepted, swapped.message
    assert not bad_int.accepted


def test_qwen3_coder_without_think_triggers_on_function_openers() -> None:
    out = handler_params("qwen3-coder", "<tool_call><function=<parameter=", tools=TOOLS)
    assert [t.value for t in out.grammar_triggers] == ["<tool_call>", "<function=get_weather>"]
    assert "tool-call-first" in json.loads(out.parser)["rules"]


def test_deepseek_thinking_flag_changes_the_parser() -> None:
    source = "dsml_token DSML function_calls"
    on = handler_params("deepseek-v3.2/v4", source, tools=TOOLS, enable_thinking=True)
    off = handler_params("deepseek-v3.2/v4", source, tools=TOOLS, enable_thinking=False)
    assert on.parser != off.parser
    assert on.grammar_triggers[0].value == "<｜DSML｜function_calls>"
    v4 = handler_params("deepseek-v3.2/v4", "dsml_token DSML tool_calls", tools=TOOLS)
    assert v4.grammar_triggers[0].value == "<｜DSML｜tool_calls>"


def test_gpt_oss_response_format_is_an_eager_grammar() -> None:
    out = handler_params("gpt-oss", "<|channel|>", json_schema={"type": "object"})
    assert out.grammar and not out.grammar_lazy
    assert "response-format ::=" in out.grammar


def test_content_only_requests_have_no_grammar() -> None:
    for name in ("ministral-3", "kimi-k2", "gemma4", "minimax-m3"):
        out = handler_params(name)
        assert out.grammar == "" and not out.grammar_triggers, name


# --- llama.cpp's own outputs -------------------------------------------------------------


def _fixtures() -> dict[str, dict]:
    found = {}
    for path in FIXTURES.glob("*/*.jsonl"):
        for line in path.read_text("utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                found[row["id"]] = row
    return found


def _source(name: str) -> str:
    return patch_source((ORACLE / "templates" / name).read_text("utf-8"))


@requires_oracle
def test_specialized_templates_match_the_oracle_apply() -> None:
    total, mismatches = 0, []
    for path in sorted((ORACLE / "analysis").glob("*.json")):
        if path.name == "INDEX.json":
            continue
        data = json.loads(path.read_text("utf-8"))
        handler = data["routed"]["handler"]
        if handler == "autoparser":
            continue
        inputs = data["inputs"]
        for key, applied in data["apply"].items():
            total += 1
            got = apply_keys(handler_params(handler, _source(data["template"]), tools=inputs["tools"],
                                            tool_choice=inputs["tool_choice"],
                                            parallel_tool_calls=inputs["parallel_tool_calls"],
                                            reasoning_format=inputs["reasoning_format"],
                                            generation_prompt=applied["generation_prompt"],
                                            enable_thinking=key == "thinking_true"))
            # generation_prompt and supports_thinking are the apply stage's (test_handlers_oracle)
            mismatches += [f"{path.stem}/{key}/{k}" for k in got if got[k] != applied[k]]
    print(f"specialized apply: {total - len({m.rsplit('/', 1)[0] for m in mismatches})}/{total}; "
          f"first mismatches: {mismatches[:5]}")
    assert total == 52
    assert not mismatches


@requires_oracle
def test_specialized_parse_rows_match_the_oracle() -> None:
    fixtures = _fixtures()
    total, mismatches, sources = 0, [], {}
    for path in sorted((ORACLE / "parse").glob("*.jsonl")):
        for line in path.read_text("utf-8").splitlines():
            row = json.loads(line)
            if row["handler"] == "autoparser":
                continue
            total += 1
            if row["template"] not in sources:
                sources[row["template"]] = _source(row["template"])
            got = apply_keys(handler_params(row["handler"], sources[row["template"]],
                                            tools=fixtures[row["id"]].get("tools"),
                                            parallel_tool_calls=row["parallel_tool_calls"],
                                            generation_prompt=row["generation_prompt"],
                                            enable_thinking=bool(row["enable_thinking"])))
            # supports_thinking is the apply stage's (test_handlers_oracle's conformance rows)
            mismatches += [f"{row['id']}/{k}" for k in ("parser", "grammar", "grammar_lazy", "preserved_tokens",
                                                        "additional_stops") if got[k] != row[k]]
    print(f"specialized parse rows: {total - len({m.rsplit('/', 1)[0] for m in mismatches})}/{total}; "
          f"first mismatches: {mismatches[:5]}")
    assert total == 285
    assert not mismatches


# In required mode these outputs fail as llama.cpp builds the parser: Gemma 4 allows no
# content before a required call, and Functionary's required parser has no content-only
# branch while this output carries its call inside the content.
REQUIRED_MODE_REJECTS = {
    "google-gemma-4-31B-it/e/false", "google-gemma-4-31B-it-interleaved/e/false",
    "meetkai-functionary-medium-v3.2/f/false", "meetkai-functionary-medium-v3.2/f/true",
}


@requires_oracle
def test_generated_arenas_for_other_requests_parse_rendered_calls_like_the_oracle() -> None:
    """tool_choice auto/required x parallel on/off (the oracle applied only auto with the
    template's parallel default): llama.cpp's PEG engine port (explorer.peg) parses each
    template's rendered tool-call turns with our arenas to the oracle's messages."""
    rows = [json.loads(line) for line in (ORACLE / "roundtrip.jsonl").read_text("utf-8").splitlines()]
    rows = [r for r in rows if r["result"] is not None and r["message"].get("tool_calls")]
    total, unexpected = 0, []
    for path in sorted((ORACLE / "analysis").glob("*.json")):
        if path.name == "INDEX.json":
            continue
        data = json.loads(path.read_text("utf-8"))
        source = patch_source((ORACLE / "templates" / data["template"]).read_text("utf-8"))
        spec = TemplateAnalysis.from_oracle_json(data["autoparser"])
        for row in (r for r in rows if r["template"] == data["template"]):
            for choice in ("auto", "required"):
                for parallel in (True, False):
                    if not parallel and len(row["message"]["tool_calls"]) > 1:
                        continue
                    out = route_params(data["routed"]["handler"], spec, source, tools=row["tools"],
                                       tool_choice=choice, parallel_tool_calls=parallel,
                                       generation_prompt=row["generation_prompt"],
                                       enable_thinking=row["enable_thinking"])
                    try:
                        got = parse_output(load_arena(out.parser), row["raw_output_stripped"],
                                                       generation_prompt=row["generation_prompt"],
                                                       format=row["format"]).to_oracle_json()
                    except ExplorerError:
                        got = None
                    want = row["result"]
                    same = got is not None and all(got[k] == want[k] for k in ("content", "reasoning_content",
                                                                                "tool_calls"))
                    total += 1
                    expected_same = not (choice == "required" and row["id"] in REQUIRED_MODE_REJECTS)
                    if same != expected_same:
                        unexpected.append(f"{row['id']}/{choice}/{parallel}")
    print(f"rendered tool-call turns parsed with other requests' arenas: {total - len(unexpected)}/{total} as "
          f"expected; unexpected: {unexpected[:5]}")
    assert total > 1700
    assert not unexpected


def _random_schema(rng, depth: int = 0) -> dict:
    r = rng.random()
    if depth > 3 or r < 0.3:
        return rng.choice([{"type": "string"}, {"type": "integer", "minimum": rng.randint(-5, 50)}, {"type": "number"},
                           {"type": "boolean"}, {"type": "null"}, {"enum": ["a", 1, None]}, {"const": "x"}, {},
                           {"type": ["string", "integer"]}, {"type": "string", "pattern": "^[a-z]+$"},
                           {"type": "string", "format": "date"}, {"type": "string", "maxLength": 3}])
    if r < 0.6:
        props = {f"p{i}-{rng.choice(['x', 'é', 'a b'])}": _random_schema(rng, depth + 1) for i in range(rng.randint(0, 3))}
        schema: dict = {"type": "object", "properties": props}
        if props and rng.random() < 0.5:
            schema["required"] = rng.sample(list(props), k=rng.randint(1, len(props)))
        if rng.random() < 0.3:
            schema["additionalProperties"] = rng.choice([False, True, {"type": "integer"}])
        return schema
    if r < 0.8:
        return {"type": "array", "items": _random_schema(rng, depth + 1), "minItems": rng.randint(0, 2)}
    return {"anyOf": [_random_schema(rng, depth + 1), _random_schema(rng, depth + 1)]}


def test_random_tools_build_grammars_llguidance_can_read() -> None:
    """Odd tool names and schemas: every route builds a parser and a grammar a real engine
    compiles, or says why (an ExplorerError); nothing crashes."""
    rng = random.Random(7)
    specs = (TemplateAnalysis.from_oracle_json(HERMES), TemplateAnalysis.from_oracle_json(_tagged()))
    built = 0
    for _ in range(12):
        tools = [{"type": "function", "function": {"name": rng.choice(["f", "get.x", "tool-é", "a b"]) + str(i),
                                                   "parameters": _random_schema(rng)}}
                 for i in range(rng.randint(1, 3))]
        req = dict(tools=tools, tool_choice=rng.choice(["auto", "required"]),
                   parallel_tool_calls=rng.random() < 0.5, generation_prompt="<|im_start|>assistant\n")
        for route, spec in [("autoparser", specs[0]), ("autoparser", specs[1])] + [(h, None) for h in sorted(cls.name for cls in HANDLER_CLASSES)]:
            try:
                out = route_params(route, spec, "<think> function_calls", **req)
            except ExplorerError:
                continue
            if out.grammar:
                compile_gbnf(out.grammar)
            built += 1
    assert built > 200
