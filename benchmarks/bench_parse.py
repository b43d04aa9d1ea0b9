"""Parse throughput and streaming cost (not part of the test run).

    python benchmarks/bench_parse.py [--tokens 10000] [--mb 1] [--skip-naive]

Measures: one parse of a 1 MB plain-content output; streaming a 10,000-token output
(reasoning, content, then a tool call) token by token, naive (llama.cpp's way: re-parse
everything per token) vs incremental (memoised engine); JSON arguments (a long array of
numbers, a long array of objects complete and cut short); a tool call whose argument is a
JSON array streamed token by token. Uses a Qwen3-style parser built
with our builder; with the oracle beside the project it also uses llama.cpp's own
serialized parser for Qwen3.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from explorer.output.parse import analyse_output, parse_output  # noqa: E402
from explorer.output.streaming import StreamParser  # noqa: E402
from explorer.peg import Builder, build_arena, load_arena  # noqa: E402

GEN_PROMPT = "<|im_start|>assistant\n"


def qwen_like_arena():
    def fn(p: Builder) -> int:
        reasoning = p.optional(p.sequence([p.literal("<think>"), p.tag("reasoning", p.until("</think>")),
                                           p.literal("</think>"), p.space()]))
        args = p.tag("tool-args", p.schema(p.json(), "tool-get_weather-schema"))
        body = p.sequence([p.atomic(p.tag("tool-open", p.literal("{"))), p.space(), p.literal('"name"'),
                           p.space(), p.literal(":"), p.space(),
                           p.atomic(p.sequence([p.literal('"'), p.atomic(p.tag("tool-name", p.literal("get_weather"))),
                                                p.literal('"')])),
                           p.space(), p.literal(","), p.space(), p.literal('"arguments"'), p.space(),
                           p.literal(":"), p.space(), args, p.space(), p.atomic(p.tag("tool-close", p.literal("}")))])
        call = p.trigger_rule("tool-call", p.sequence([p.literal("<tool_call>\n"), p.space(),
                                                       p.rule("tool-get_weather", p.tag("tool", body)),
                                                       p.space(), p.literal("</tool_call>")]))
        return p.sequence([p.literal(GEN_PROMPT), reasoning, p.tag("content", p.until("<tool_call>")),
                           p.zero_or_more(p.sequence([p.space(), call])), p.space(), p.end()])
    return build_arena(fn)


def oracle_qwen_parser():
    path = ROOT.parent / "shared" / "oracle" / "parse" / "qwen3-hermes.jsonl"
    if not path.is_file():
        return None
    row = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    return load_arena(row["parser"]), row["generation_prompt"], row["format"]


WORDS = ("the quick brown fox jumps over a lazy dog while counting tokens and "
         "writing long replies about the weather in Paris ").split()


def tokens_for(count: int) -> list[str]:
    n_reason, n_content = count * 3 // 10, count * 6 // 10
    toks = ["<think>", "\n"] + [f" {WORDS[i % len(WORDS)]}" for i in range(n_reason)] + ["</think>", "\n\n"]
    toks += [f" {WORDS[(i * 7) % len(WORDS)]}" for i in range(n_content)]
    toks += ["<tool_call>", "\n", '{"name": "get_weather", "arguments": {"city": "']
    rest = count - len(toks) - 2
    toks += [WORDS[i % len(WORDS)] + " " for i in range(max(rest, 0))]
    toks += ['"}}', "\n</tool_call>"]
    return toks


def bench_throughput(arena, gp: str, fmt: str, mb: float) -> None:
    text = ("Plain content with no markers at all, just prose. " * 40000)[: int(mb * 1_000_000)]
    t0 = time.perf_counter()
    msg = parse_output(arena, text, generation_prompt=gp, format=fmt)
    dt = time.perf_counter() - t0
    assert msg.content == text
    print(f"  plain content {len(text) / 1e6:.2f} MB: {dt * 1000:.1f} ms = {len(text) / 1e6 / dt:.1f} MB/s")


def bench_stream(arena, gp: str, fmt: str, count: int, naive: bool) -> float:
    toks = tokens_for(count)
    parser = StreamParser(arena, generation_prompt=gp, format=fmt, naive=naive)
    t0 = time.perf_counter()
    for tok in toks:
        step = parser.feed(tok)
        assert step.error is None
    dt = time.perf_counter() - t0
    final = parser.last_message
    assert len(final.tool_calls) == 1, final.tool_calls
    label = "naive      " if naive else "incremental"
    print(f"  stream {len(toks)} tokens ({len(parser.text)} chars) {label}: {dt:.2f} s total, "
          f"{dt / len(toks) * 1e6:.0f} us/token")
    return dt


def array_tokens(count: int) -> list[str]:
    """A tool call whose argument is one long JSON array: many small grammar steps."""
    head = ["Sure.", "<tool_call>", "\n", '{"name": "get_weather", "arguments": {"days": [']
    return head + [f"{i}, " for i in range(max(count - len(head) - 2, 0))] + ["0]}}", "\n</tool_call>"]


def bench_json_throughput(arena, gp: str, fmt: str, mb: float) -> None:
    body = ", ".join(str(i % 1000) for i in range(int(mb * 1_000_000) // 5))
    text = '<tool_call>\n{"name": "get_weather", "arguments": {"days": [' + body + ']}}\n</tool_call>'
    t0 = time.perf_counter()
    msg = parse_output(arena, text, generation_prompt=gp, format=fmt)
    dt = time.perf_counter() - t0
    assert len(msg.tool_calls) == 1
    print(f"  JSON arguments {len(text) / 1e6:.2f} MB: {dt * 1000:.0f} ms = {len(text) / 1e6 / dt:.2f} MB/s")


def bench_json_objects(arena, gp: str, fmt: str, mb: float) -> None:
    """Arguments holding a long array of small objects, complete and cut short."""
    items = [{"id": i, "name": f"item {i}", "tags": ["a", "b"], "ok": i % 2 == 0, "v": i * 1.5}
             for i in range(int(mb * 12_000))]
    arg = json.dumps({"items": items})
    head = '<tool_call>\n{"name": "get_weather", "arguments": '
    for label, text in (("complete", head + arg + "}\n</tool_call>"), ("cut short", head + arg[:-1000])):
        t0 = time.perf_counter()
        msg = analyse_output(arena, text, generation_prompt=gp, format=fmt, is_partial=True).message
        dt = time.perf_counter() - t0
        assert msg is not None and len(msg.tool_calls) == 1
        print(f"  JSON arguments, array of objects, {label} {len(text) / 1e6:.2f} MB: {dt * 1000:.0f} ms "
              f"= {len(text) / 1e6 / dt:.2f} MB/s")


def bench_array_stream(arena, gp: str, fmt: str, count: int, naive: bool) -> float:
    toks = array_tokens(count)
    parser = StreamParser(arena, generation_prompt=gp, format=fmt, naive=naive)
    t0 = time.perf_counter()
    for tok in toks:
        parser.feed(tok)
    dt = time.perf_counter() - t0
    assert len(parser.last_message.tool_calls) == 1
    label = "naive      " if naive else "incremental"
    print(f"  stream JSON-array call, {len(toks)} tokens {label}: {dt:.2f} s total, "
          f"{dt / len(toks) * 1e6:.0f} us/token")
    return dt


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokens", type=int, default=10000)
    ap.add_argument("--mb", type=float, default=1.0)
    ap.add_argument("--skip-naive", action="store_true")
    ap.add_argument("--naive-array-tokens", type=int, default=1000,
                    help="naive streaming of the JSON-array call is quadratic in Python: keep it short")
    args = ap.parse_args()
    setups = [("builder Qwen3-style parser", qwen_like_arena(), GEN_PROMPT, "peg-native")]
    oracle = oracle_qwen_parser()
    if oracle is not None:
        setups.append(("llama.cpp's serialized Qwen3 parser (oracle)",) + oracle)
    for name, arena, gp, fmt in setups:
        print(name)
        bench_throughput(arena, gp, fmt, args.mb)
        inc = bench_stream(arena, gp, fmt, args.tokens, naive=False)
        if not args.skip_naive:
            nai = bench_stream(arena, gp, fmt, args.tokens, naive=True)
            print(f"  incremental is {nai / inc:.1f}x faster")
        bench_json_throughput(arena, gp, fmt, args.mb)
        bench_json_objects(arena, gp, fmt, args.mb)
        bench_array_stream(arena, gp, fmt, args.tokens, naive=False)
        if not args.skip_naive:
            small = args.naive_array_tokens
            inc = bench_array_stream(arena, gp, fmt, small, naive=False)
            nai = bench_array_stream(arena, gp, fmt, small, naive=True)
            print(f"  at {small} tokens incremental is {nai / inc:.0f}x faster")


if __name__ == "__main__":
    main()
