"""Replay llama.cpp's own parses (oracle parse rows) through our engine and mappers.

Every row carries the serialized parser llama-server used; the raw output comes from the
canitoolcall fixture with the row's id. Our result (or exception) must equal llama.cpp's,
for the final parse and for the partial parse of the whole text (``streaming_final``).
"""

from __future__ import annotations

import json

import pytest

from explorer.cli.batch import replay_row
from oracle_data import ORACLE, requires_oracle


def oracle_parse_rows() -> list[dict]:
    rows = []
    for path in sorted((ORACLE / "parse").glob("*.jsonl")):
        rows += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return rows


def _report(name: str, rows: list[dict], bad: list[tuple[dict, dict]], fields: tuple[str, ...]) -> None:
    print(f"{name}: {len(rows) - len(bad)}/{len(rows)} rows identical to llama.cpp")
    for row, ours in bad[:5]:
        print(" ", row["id"], row["format"])
        for f in fields:
            if ours[f] != row[f]:
                print(f"    {f}: ours {json.dumps(ours[f])[:300]}")
                print(f"    {f}: llama {json.dumps(row[f])[:300]}")


@requires_oracle
def test_all_oracle_rows_parse_like_llama_cpp():
    rows = oracle_parse_rows()
    assert len(rows) == 469
    fields = ("result", "exception", "streaming_final")
    bad = []
    for row in rows:
        ours = replay_row(row)
        if any(ours[f] != row[f] for f in fields):
            bad.append((row, ours))
    _report("parse replay", rows, bad, fields)
    assert not bad


@requires_oracle
def test_oracle_exceptions_name_the_rows_format():
    rows = [r for r in oracle_parse_rows() if r["exception"]]
    assert rows, "the oracle has rows where llama.cpp throws"
    for row in rows:
        ours = replay_row(row)
        assert ours["exception"] == {
            "type": "std::runtime_error",
            "message": f"The model produced output that does not match the expected {row['format']} format"}


@requires_oracle
@pytest.mark.parametrize("family", ["gemma4", "gpt-oss", "kimi", "deepseek"])
def test_specialised_handler_families(family):
    """Families routed to specialised handlers (their own mappers or parsers) match too."""
    path = ORACLE / "parse" / f"{family}.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    bad = [r["id"] for r in rows if replay_row(r)["result"] != r["result"]]
    assert not bad, bad[:5]
