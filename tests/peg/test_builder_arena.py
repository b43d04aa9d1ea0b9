"""One builder, one arena: what the generators build is the arena the engine runs.

The expected creation orders come from llama.cpp's ``common/peg-parser.cpp`` (braced lists
evaluate left to right; GCC evaluates the operands of ``a + b + c`` right to left).
"""

from __future__ import annotations

from cases import HERMES, WEATHER, tagged_spec
from explorer.analysis.model import TemplateAnalysis
from explorer.generator import GenerationParams, generate_params
from explorer.output.parse import parse_output
from explorer.peg import build_arena, load_arena
from explorer.peg.engine import Engine

CALL = '<think>hm</think>Sure.<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo", "days": 2}}</tool_call>'
TAGGED_CALL = ("<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n"
               "</function>\n</tool_call>")


def _params(spec: dict, **req):
    return generate_params(TemplateAnalysis.from_oracle_json(spec), GenerationParams(tools=WEATHER, **req))


def test_generated_arena_runs_without_a_round_trip():
    for spec, text in ((HERMES, CALL), (tagged_spec(), TAGGED_CALL)):
        out = _params(spec)
        loaded = load_arena(out.parser)
        assert loaded == out.arena and loaded.dumps() == out.parser
        direct = parse_output(out.arena, text)
        assert direct == parse_output(loaded, text)
        assert [c.name for c in direct.tool_calls] == ["get_weather"]
        assert '"city"' in direct.tool_calls[0].arguments


def test_generated_arena_keeps_the_schemas_behind_schema_parsers():
    arena = _params(HERMES).arena
    names = {arena.get(pid).name for pid in arena.schemas}
    assert names == {"tool-get_weather-schema"}


def test_json_array_makes_two_json_refs_and_number_one_digits_parser():
    # json_array: sequence({json(), zero_or_more(sequence({ws, literal(","), ws, json()}))})
    arena = build_arena(lambda p: p.json_array())
    seqs = [n for n in arena.parsers if n.KIND == "sequence"]
    elements = next(s for s in seqs if len(s.children) == 2 and arena.get(s.children[1]).KIND == "repetition")
    inner = arena.get(arena.get(elements.children[1]).child)
    assert arena.get(elements.children[0]).KIND == "rule" and arena.get(inner.children[3]).KIND == "rule"
    # json_number: one `digits` chars parser shared by frac and exp
    number = build_arena(lambda p: p.json_number())
    assert [n.pattern for n in number.parsers if n.KIND == "chars"] == [
        "[1-9]", "[0-9]", "[0-9]", "[+-]", "[0-9.eE+-]"]


def test_marker_creates_its_chain_right_to_left():
    # literal("<") + until(">") + literal(">"): GCC makes the right-hand operands first
    arena = build_arena(lambda p: p.marker())
    kinds = [getattr(n, "literal", None) or n.KIND for n in arena.parsers]
    assert kinds[:5] == [">", "until", "<", "sequence", "sequence"]
    assert Engine(arena).parse("<tool>").end == 6 and Engine(arena).parse("[x]").end == 3
