"""The round-trip lines' streaming and unstripped parses against llama.cpp's.

``roundtrip.jsonl`` holds, besides the stripped parse that ``test_roundtrip_oracle``
checks, llama.cpp's streaming simulation of ``raw_output_stripped`` (every prefix parsed
as partial) and its parse of the unstripped ``raw_output`` (``result_full``,
``exception_full``, ``roundtrip_full_equal``, ``roundtrip_full_diff``). Each line's
next-turn request is rebuilt from the line's own fields, its parser from our
``apply_template``, and both are compared field by field: 840 more outputs, many
of them cut mid-marker, that the parse files do not have.
"""

from __future__ import annotations

import json
from typing import Any

from explorer.apply import Request
from explorer.apply.pipeline import apply_template
from explorer.errors import OutputParseError, exception_json
from explorer.output.streaming import stream_summary
from explorer.peg import load_arena
from explorer.roundtrip.compare import compare
from oracle_data import ORACLE, load_oracle_template, requires_oracle

pytestmark = requires_oracle

USER = {"role": "user", "content": "Hello"}
STREAMING = ("streaming_final", "streaming_final_exception", "streaming_threw", "streaming_throw_count",
             "streaming_first_throw", "streaming_prefixes")
FULL = ("result_full", "exception_full", "roundtrip_full_equal", "roundtrip_full_diff")


def _lines() -> list[dict[str, Any]]:
    path = ORACLE / "roundtrip.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _params(line: dict[str, Any], cache: dict[tuple, Any]) -> Any:
    key = (line["template"], line["enable_thinking"], line["parallel_tool_calls"],
           json.dumps(line["chat_template_kwargs"], sort_keys=True))
    if key not in cache:
        request = Request(messages=(USER,), tools=tuple(line["tools"]), tool_choice="auto",
                          parallel_tool_calls=line["parallel_tool_calls"], enable_thinking=line["enable_thinking"],
                          reasoning_format="deepseek", chat_template_kwargs=dict(line["chat_template_kwargs"]))
        cache[key] = apply_template(load_oracle_template(line["template"].removesuffix(".jinja")), request)
    return cache[key]


def _full_fields(params: Any, line: dict[str, Any]) -> dict[str, Any]:
    try:
        result, exc = params.parse(line["raw_output"]).to_oracle_json(), None
    except OutputParseError as err:
        result, exc = None, exception_json(err)
    comparison = compare(line["message"], result)
    return {"result_full": result, "exception_full": exc, "roundtrip_full_equal": comparison.equal,
            "roundtrip_full_diff": None if comparison.diff is None else list(comparison.diff)}


def _report(name: str, checked: int, bad: list[str]) -> None:
    print(f"\nround trip, {name}: {checked - len(bad)}/{checked} lines identical to llama.cpp")
    for b in bad[:10]:
        print("  ", b)


def test_requests_rebuilt_from_the_lines_are_llama_cpps() -> None:
    cache: dict[tuple, Any] = {}
    bad = [line["id"] for line in _lines()
           if (_params(line, cache).generation_prompt, _params(line, cache).format)
           != (line["generation_prompt"], line["format"])]
    assert not bad, bad[:10]


def test_streaming_of_every_stripped_reply_matches_llama_cpp() -> None:
    cache: dict[tuple, Any] = {}
    checked, threw, bad = 0, 0, []
    for line in _lines():
        if line["raw_output_stripped"] is None:
            assert all(line.get(f) is None for f in STREAMING)
            continue
        params = _params(line, cache)
        ours = stream_summary(load_arena(params.parser), line["raw_output_stripped"],
                              generation_prompt=params.generation_prompt, format=params.format)
        checked += 1
        threw += bool(line["streaming_threw"])
        diff = {f: (ours[f], line[f]) for f in STREAMING if ours[f] != line[f]}
        if diff:
            bad.append(f"{line['id']}: {json.dumps(diff, ensure_ascii=False)[:300]}")
    _report("streaming", checked, bad)
    assert checked == 834 and threw == 9  # the oracle README's counts: 834 parsed, 9 with a throwing prefix
    assert not bad


def test_parse_of_every_unstripped_reply_matches_llama_cpp() -> None:
    cache: dict[tuple, Any] = {}
    checked, threw, bad = 0, 0, []
    for line in _lines():
        if line["raw_output"] is None:
            assert all(line.get(f) is None for f in FULL)
            continue
        ours = _full_fields(_params(line, cache), line)
        checked += 1
        threw += line["exception_full"] is not None
        diff = {f: (ours[f], line[f]) for f in FULL if ours[f] != line[f]}
        if diff:
            bad.append(f"{line['id']}: {json.dumps(diff, ensure_ascii=False)[:300]}")
    _report("unstripped parse", checked, bad)
    assert checked == 834 and threw == 300  # the oracle README's counts: 300 threw on the unstripped output
    assert not bad
