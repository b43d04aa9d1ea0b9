"""Streaming simulation against llama.cpp's: every prefix of every oracle output.

The oracle cut each raw output after every character and parsed each prefix with
``is_partial=true``; we do the same with the incremental engine and compare the final
partial message, which prefixes threw, how many, and the first one. A sample of rows is
also streamed naively (full re-parse per step) to show both modes agree step by step.
"""

from __future__ import annotations

import json

import pytest

from explorer.cli.batch import raw_output_for
from explorer.output.streaming import char_chunks, stream, stream_summary
from explorer.peg import load_arena
from oracle_data import ORACLE, requires_oracle

FIELDS = ("streaming_final", "streaming_final_exception", "streaming_threw",
          "streaming_throw_count", "streaming_first_throw", "streaming_prefixes")


def oracle_rows() -> list[dict]:
    rows = []
    for path in sorted((ORACLE / "parse").glob("*.jsonl")):
        rows += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return rows


@requires_oracle
def test_every_prefix_of_every_oracle_output_streams_like_llama_cpp():
    rows = oracle_rows()
    bad = []
    for row in rows:
        ours = stream_summary(load_arena(row["parser"]), raw_output_for(row),
                              generation_prompt=row["generation_prompt"], format=row["format"])
        if any(ours[f] != row[f] for f in FIELDS):
            bad.append((row, ours))
    print(f"streaming simulation: {len(rows) - len(bad)}/{len(rows)} rows identical to llama.cpp")
    for row, ours in bad[:5]:
        print(" ", row["id"], {f: (ours[f], row[f]) for f in FIELDS if ours[f] != row[f]})
    assert len(rows) == 469
    assert not bad
    assert sum(r["streaming_threw"] for r in rows) == 8  # prefixes that throw are covered


def _steps(row: dict, naive: bool) -> list[tuple]:
    out = []
    for step in stream(load_arena(row["parser"]), char_chunks(raw_output_for(row)),
                       generation_prompt=row["generation_prompt"], format=row["format"], naive=naive):
        out.append((step.prefix_chars, step.message, step.error and step.error.message, step.diffs))
    return out


@requires_oracle
@pytest.mark.parametrize("index", range(0, 469, 29))
def test_incremental_equals_naive_on_oracle_rows(index):
    row = oracle_rows()[index]
    assert _steps(row, naive=False) == _steps(row, naive=True)
