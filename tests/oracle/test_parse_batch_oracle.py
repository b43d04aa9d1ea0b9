"""``parse-batch`` with template rows against llama.cpp's own parses (oracle parse files).

Each of the 469 oracle parse lines becomes a template row: the template's bare file name
(found through ``--templates``), the fixture id (raw output and tools come from the
canitoolcall fixture) and the request fields of the line, no serialized parser. The
whole pipeline must give llama.cpp's ``result``/``exception`` and ``streaming_final``:
in this process for all rows, and with ``--jobs 2`` for a subset sent with llama-server's
defaults where llama.cpp used them.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from explorer.cli import main
from explorer.session import forget_sessions
from oracle_data import ORACLE, requires_oracle

pytestmark = requires_oracle

FIELDS = ("result", "exception", "streaming_final")


def _oracle_lines() -> list[dict]:
    lines = []
    for path in sorted((ORACLE / "parse").glob("*.jsonl")):
        lines += [json.loads(text) for text in path.read_text(encoding="utf-8").splitlines() if text.strip()]
    return lines


def _template_row(line: dict, *, defaults: bool = False) -> dict:
    row = {"id": line["id"], "template": line["template"], "tool_choice": "auto", "reasoning_format": "deepseek",
           "enable_thinking": line["enable_thinking"], "chat_template_kwargs": line["chat_template_kwargs"],
           "parallel_tool_calls": line["parallel_tool_calls"]}
    if defaults:  # what llama-server filled in itself is left for us to fill in
        del row["parallel_tool_calls"]
        if line["fixture_thinking"] is None:
            del row["enable_thinking"]
    return row


def _run(tmp_path: Path, lines: list[dict], *extra: str, defaults: bool = False) -> tuple[list[dict], float]:
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps(_template_row(line, defaults=defaults)) + "\n" for line in lines),
                    encoding="utf-8")
    out = tmp_path / "out.jsonl"
    start = time.monotonic()
    rc = main(["parse-batch", str(rows), "--templates", str(ORACLE / "templates"), "--out", str(out), *extra])
    seconds = time.monotonic() - start
    assert rc == 0
    return [json.loads(text) for text in out.read_text(encoding="utf-8").splitlines()], seconds


def _mismatches(lines: list[dict], ours: list[dict]) -> list[str]:
    assert [o["id"] for o in ours] == [line["id"] for line in lines]
    bad = []
    for line, got in zip(lines, ours):
        for field in FIELDS:
            if got.get(field) != line[field]:
                bad.append(f"{line['id']} {field}: ours {json.dumps(got.get(field, got.get('error')))[:200]} "
                           f"/ llama.cpp {json.dumps(line[field])[:200]}")
    return bad


def test_every_oracle_line_as_a_template_row(tmp_path):
    lines = _oracle_lines()
    assert len(lines) == 469 and not any("parser" in _template_row(line) for line in lines)
    ours, seconds = _run(tmp_path, lines)
    bad = _mismatches(lines, ours)
    agree = len(lines) - len({b.split(" ")[0] for b in bad})
    print(f"\nparse-batch template rows: {agree}/{len(lines)} identical to llama.cpp ({seconds:.1f} s, --jobs 1)")
    assert bad == [], bad[:10]


def test_a_subset_with_two_jobs_and_server_defaults(tmp_path):
    seen: dict[str, int] = {}
    lines = []
    for line in _oracle_lines():  # every third row of each template, so every template is there
        seen[line["template"]] = seen.get(line["template"], -1) + 1
        if seen[line["template"]] % 3 == 0:
            lines.append(line)
    assert len({line["template"] for line in lines}) == 20
    forget_sessions()  # the workers fork from this process: let them open the sessions themselves
    ours, seconds = _run(tmp_path, lines, "--jobs", "2", defaults=True)
    bad = _mismatches(lines, ours)
    print(f"\nparse-batch --jobs 2, llama-server defaults: {len(lines) - len(bad)}/{len(lines)} ({seconds:.1f} s)")
    assert bad == [], bad[:10]
