"""Adversarial model outputs: ``parse_output`` returns a message or ``OutputParseError``, nothing else.

Parsers come from our built-in example templates (applied with a tool, so every format
has its tool-call branch; the test stands without the oracle) and, with the oracle, from
llama.cpp's own serialized parsers (``analysis/*.json`` ``apply.*.parser``). Outputs are
built by hypothesis from each parser's own markers (every literal in the serialized
arena, the preserved tokens, the thinking tags), JSON fragments, broken JSON, unbalanced
tags and very long arguments, parsed both as final and as partial output. Speed on
100 KB adversarial outputs is measured by benchmarks/bench_adversarial.py, not here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.apply import Request
from explorer.apply.pipeline import apply_template
from explorer.errors import OutputParseError
from explorer.output.parse import ChatMessage, parse_output
from explorer.peg.arena import Arena, load_arena
from explorer.sources import from_example, list_examples
from oracle_data import ORACLE, requires_oracle

TOOLS = (
    {"type": "function", "function": {
        "name": "get_weather", "description": "Weather for a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                       "required": ["city"]}}},
    {"type": "function", "function": {
        "name": "search", "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}},
)
JSON_BITS = [
    "{", "}", "[", "]", ":", ",", '"', '\\"', "\\", "\\u00", "\\ud800", '"name"', '"arguments"', '"get_weather"',
    '"city"', '"Paris"', "null", "true", "1e999", "-0", "01", '{"city": "Paris"}', '{"city": ', '{"q": "x"',
    '{"name": "get_weather", "arguments": {"city": "Paris"}}', "\n", " ", "\t", "\x00", "\ufffd", "é", "🙂",
    "get_weather", "search", "unknown_tool", "</", "<", ">", "=",
]


@dataclass(frozen=True)
class Parser:
    label: str
    arena: Arena
    generation_prompt: str
    format: str
    markers: tuple[str, ...]


def _literals(serialized: str) -> list[str]:
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("literal", "delimiter", "name") and isinstance(value, str) and 0 < len(value) <= 60:
                    found.append(value)
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(json.loads(serialized))
    return found


def _parser(label: str, serialized: str, generation_prompt: str, fmt: str, extra: list[str]) -> Parser:
    markers = sorted(set(_literals(serialized)) | {m for m in extra if m})
    return Parser(label, load_arena(serialized), generation_prompt, fmt, tuple(markers) or ("x",))


@lru_cache(maxsize=1)
def example_parsers() -> tuple[Parser, ...]:
    out = []
    for name in list_examples():
        text = from_example(name).text
        for thinking in (True, False):
            for choice in ("auto", "required"):
                params = apply_template(text, Request(messages=({"role": "user", "content": "Hi"},), tools=TOOLS,
                                                      tool_choice=choice, enable_thinking=thinking,
                                                      parallel_tool_calls=True))
                extra = [*params.preserved_tokens, params.thinking_start_tag, *params.thinking_end_tags]
                out.append(_parser(f"{name}/{thinking}/{choice}", params.parser, params.generation_prompt,
                                   params.format, extra))
    return tuple(out)


@lru_cache(maxsize=1)
def oracle_parsers() -> tuple[Parser, ...]:
    out = []
    for path in sorted((ORACLE / "analysis").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for key, applied in sorted((data.get("apply") or {}).items()):
            if not isinstance(applied, dict) or not applied.get("parser") or applied.get("exception"):
                continue
            extra = [*applied.get("preserved_tokens", []), applied.get("thinking_start_tag", ""),
                     *applied.get("thinking_end_tags", [])]
            extra += [t.get("value", "") for t in applied.get("grammar_triggers", []) if isinstance(t, dict)]
            out.append(_parser(f"{path.stem}/{key}", applied["parser"], applied.get("generation_prompt", ""),
                               applied.get("format") or "peg-native", extra))
    return tuple(out)


@st.composite
def outputs(draw: Any, parser: Parser) -> str:
    piece = st.one_of(
        st.sampled_from(parser.markers),
        st.sampled_from(parser.markers).map(lambda m: m[: max(1, len(m) // 2)]),  # a marker cut short
        st.sampled_from(JSON_BITS),
        st.text(max_size=12),
    )
    parts = draw(st.lists(piece, max_size=40))
    if draw(st.booleans()):
        # a very long argument value, possibly unterminated or full of escapes
        long_piece = draw(st.sampled_from(["a", '\\"', "\\\\", "\\u", "{", "[", "é", parser.markers[0]]))
        at = draw(st.integers(0, len(parts)))
        parts.insert(at, '{"city": "' + long_piece * draw(st.integers(1, 5000)))
    return "".join(parts)


def _check(parser: Parser, text: str, partial: bool) -> None:
    try:
        msg = parse_output(parser.arena, text, generation_prompt=parser.generation_prompt, format=parser.format,
                           is_partial=partial)
    except OutputParseError as exc:
        assert str(exc).strip()
        return
    assert isinstance(msg, ChatMessage)
    for call in msg.tool_calls:
        assert isinstance(call.name, str) and isinstance(call.arguments, str)


def _property(parsers: tuple[Parser, ...], examples: int) -> None:
    @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck),
              derandomize=True, database=None)
    @given(st.data())
    def run(data: Any) -> None:
        parser = data.draw(st.sampled_from(parsers), label="parser")
        text = data.draw(outputs(parser), label="output")
        partial = data.draw(st.booleans(), label="partial")
        _check(parser, text, partial)

    run()


def test_example_parsers_exist_for_every_example() -> None:
    assert len(example_parsers()) == 4 * len(list_examples()) >= 4


@pytest.mark.timeout(600)
def test_adversarial_outputs_on_example_parsers() -> None:
    _property(example_parsers(), 600)


@requires_oracle
@pytest.mark.timeout(900)
def test_adversarial_outputs_on_llama_cpp_parsers() -> None:
    parsers = oracle_parsers()
    print(f"{len(parsers)} llama.cpp parsers")
    assert parsers
    _property(parsers, 800)


HANDWRITTEN = [
    "", "\x00", "\ufffd" * 3, "{" * 5000, "[" * 5000 + "]" * 4999, '"' * 5001, "\\" * 5001,
    '{"name": "get_weather", "arguments": ' + "{" * 3000, '{"name": "get_weather", "arguments": "' + "a" * 200_000,
]


@pytest.mark.timeout(600)
@pytest.mark.parametrize("text", HANDWRITTEN, ids=[f"h{i}" for i in range(len(HANDWRITTEN))])
def test_handwritten_adversarial_outputs(text: str) -> None:
    for parser in example_parsers():
        for partial in (False, True):
            _check(parser, text, partial)
            for marker in parser.markers[:12]:
                _check(parser, marker * 200 + text, partial)
                _check(parser, text + marker, partial)


def _chatml_tools() -> Parser:
    return next(p for p in example_parsers() if p.label.startswith("chatml-think-tools"))


@pytest.mark.parametrize("partial", [False, True])
def test_deep_json_nesting_stops_with_a_parse_error_naming_where(partial: bool) -> None:
    parser = _chatml_tools()
    head = '<tool_call>\n{"name": "get_weather", "arguments": {"city": '
    with pytest.raises(OutputParseError, match=r"nests too deeply.*at character \d+"):
        parse_output(parser.arena, head + "[" * 100_000, generation_prompt=parser.generation_prompt,
                     format=parser.format, is_partial=partial)


def test_realistic_json_nesting_still_parses() -> None:
    # 200 levels: far beyond any real tool argument, well inside the node-depth cap
    parser = _chatml_tools()
    value = "[" * 200 + "1" + "]" * 200
    text = f'<tool_call>\n{{"name": "get_weather", "arguments": {{"city": {value}}}}}\n</tool_call>'
    msg = parse_output(parser.arena, text, generation_prompt=parser.generation_prompt, format=parser.format)
    assert [c.name for c in msg.tool_calls] == ["get_weather"]
    assert json.loads(msg.tool_calls[0].arguments) == {"city": json.loads(value)}
