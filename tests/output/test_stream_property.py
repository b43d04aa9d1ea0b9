"""Property tests: chunking never changes a result, and only OutputParseError escapes.

For random splits of an output into chunks, the incremental stream must agree step by
step with a from-scratch parse of the same prefix, and the last partial message must
equal the non-streamed parse wherever that one succeeds (as in llama.cpp, where the
partial flag only matters on failure).
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.errors import OutputParseError
from explorer.output.parse import analyse_output, parse_output
from explorer.output.streaming import StreamParser
from explorer.peg import Builder, build_arena, load_arena
from oracle_data import ORACLE, oracle_available


def _tool_arena():
    def fn(p: Builder) -> int:
        reasoning = p.optional(p.sequence([p.literal("<think>"), p.tag("reasoning", p.until("</think>")),
                                           p.literal("</think>"), p.space()]))
        body = p.sequence([p.atomic(p.tag("tool-open", p.literal("{"))), p.space(), p.literal('"name": "'),
                           p.atomic(p.tag("tool-name", p.choice([p.literal("get_weather"), p.literal("search")]))),
                           p.literal('", "arguments": '), p.tag("tool-args", p.json()), p.space(),
                           p.atomic(p.tag("tool-close", p.literal("}")))])
        call = p.sequence([p.literal("<tool_call>"), p.space(), p.tag("tool", body), p.space(),
                           p.literal("</tool_call>")])
        return p.sequence([reasoning, p.tag("content", p.until("<tool_call>")),
                           p.zero_or_more(p.sequence([p.space(), call])), p.space(), p.end()])
    return build_arena(fn)


ARENAS = [_tool_arena()]
if oracle_available():
    for family in ("qwen3-xml", "gemma4", "gpt-oss", "kimi"):
        row = json.loads((ORACLE / "parse" / f"{family}.jsonl").read_text(encoding="utf-8").splitlines()[0])
        ARENAS.append((load_arena(row["parser"]), row["generation_prompt"], row["format"]))
ARENAS = [a if isinstance(a, tuple) else (a, "", "peg-native") for a in ARENAS]

PIECES = ["<think>", "</think>", "<tool_call>", "</tool_call>", '{"name": "get_weather", "arguments": ',
          '{"city": "Paris"}', "}", " ", "\n", "Hello", "é", '"', "\\", "<|tool_call>", "call:", "<|channel|>",
          "<function=get_weather>", "<parameter=city>", "</parameter>", "</function>", "[", "]", "1", ","]

texts = st.lists(st.sampled_from(PIECES) | st.text(max_size=3), max_size=14).map("".join)


def _chunks(text: str, cuts: list[int]) -> list[str]:
    points = sorted({min(c, len(text)) for c in cuts} | {0, len(text)})
    return [text[a:b] for a, b in zip(points, points[1:])] or [""]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(which=st.integers(0, len(ARENAS) - 1), text=texts, cuts=st.lists(st.integers(0, 60), max_size=8))
def test_incremental_stream_matches_fresh_parses(which, text, cuts):
    arena, gp, fmt = ARENAS[which]
    sp = StreamParser(arena, generation_prompt=gp, format=fmt)
    for chunk in _chunks(text, cuts):
        step = sp.feed(chunk)
        fresh = analyse_output(arena, sp.text, generation_prompt=gp, format=fmt, is_partial=True)
        assert step.message == fresh.message
        assert (step.error is None) == (fresh.error is None)


@settings(max_examples=150, deadline=None)
@given(which=st.integers(0, len(ARENAS) - 1), text=texts, cuts=st.lists(st.integers(0, 60), max_size=8))
def test_streamed_final_equals_non_streamed_when_that_succeeds(which, text, cuts):
    arena, gp, fmt = ARENAS[which]
    sp = StreamParser(arena, generation_prompt=gp, format=fmt)
    for chunk in _chunks(text, cuts):
        last = sp.feed(chunk)
    try:
        full = parse_output(arena, text, generation_prompt=gp, format=fmt)
    except OutputParseError:
        return
    assert last.message == full


@settings(max_examples=200, deadline=None)
@given(which=st.integers(0, len(ARENAS) - 1), text=st.text(max_size=40) | texts, partial=st.booleans())
def test_only_output_parse_error_escapes(which, text, partial):
    arena, gp, fmt = ARENAS[which]
    try:
        parse_output(arena, text, generation_prompt=gp, format=fmt, is_partial=partial)
    except OutputParseError as exc:
        assert exc.message.startswith("The model produced output that does not match")


def test_deep_nesting_is_an_output_parse_error_not_a_crash():
    arena = ARENAS[0][0]
    text = '<tool_call>{"name": "search", "arguments": ' + "[" * 5000
    try:
        parse_output(arena, text)
    except OutputParseError:
        pass


if oracle_available():
    from explorer.cli.batch import raw_output_for

    ROWS = [json.loads(line) for path in sorted((ORACLE / "parse").glob("*.jsonl"))
            for line in path.read_text(encoding="utf-8").splitlines() if line]
else:
    ROWS = []


@settings(max_examples=120, deadline=None)
@given(index=st.integers(0, max(len(ROWS) - 1, 0)), cuts=st.lists(st.integers(0, 400), max_size=12))
def test_incremental_matches_fresh_parses_on_real_outputs(index, cuts):
    if not ROWS:
        return
    row = ROWS[index]
    arena = load_arena(row["parser"])
    gp, fmt = row["generation_prompt"], row["format"]
    text = raw_output_for(row)
    sp = StreamParser(arena, generation_prompt=gp, format=fmt)
    for chunk in _chunks(text, cuts):
        step = sp.feed(chunk)
        fresh = analyse_output(arena, sp.text, generation_prompt=gp, format=fmt, is_partial=True)
        assert step.message == fresh.message
        assert (step.error is None) == (fresh.error is None)
    assert step.message == (None if row["streaming_final"] is None else step.message)
