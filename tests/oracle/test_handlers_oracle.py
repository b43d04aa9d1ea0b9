"""The whole apply pipeline against llama.cpp's own outputs (../shared/oracle).

``apply_template`` runs from the template text alone (capabilities and the autoparser
analysis are our own, never the oracle's). Compared: every ``apply.*`` field of the 70
analysis files for both thinking settings, and, for all 469 conformance rows, the
request's parser, grammar and tokens, then the parse of the fixture's raw output (final
and streaming-final) with the parser we built. Each comparison prints its count and the
first mismatches.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from explorer.apply import Request, standard_request
from explorer.apply.pipeline import apply_template
from explorer.cli.batch import fixture_outputs, replay_row
from oracle_data import ORACLE, load_oracle_analysis, load_oracle_template, oracle_template_names, requires_oracle

pytestmark = requires_oracle

THINKING = {"thinking_false": False, "thinking_true": True}
APPLY_FIELDS = (
    "format", "generation_prompt", "prompt", "parser", "grammar", "grammar_lazy", "grammar_triggers",
    "preserved_tokens", "additional_stops", "supports_thinking", "thinking_start_tag", "thinking_end_tags",
    "message_delimiters",
)
ROW_FIELDS = ("format", "generation_prompt", "parser", "grammar", "grammar_lazy", "preserved_tokens",
              "additional_stops", "supports_thinking")


def _report(label: str, total: int, counts: dict[str, int], mismatches: list[str]) -> None:
    print(f"\n{label}: {total - len(set(m.split(' ')[0] for m in mismatches))}/{total} identical")
    for name, n in counts.items():
        print(f"  {name}: {n}/{total}")
    for line in mismatches[:10]:
        print("  ", line)


def _first_diff(got: Any, want: Any) -> str:
    a, b = json.dumps(got, ensure_ascii=False), json.dumps(want, ensure_ascii=False)
    i = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), min(len(a), len(b)))
    return f"at {i}: ours {a[max(0, i - 30):i + 50]!r} / llama.cpp {b[max(0, i - 30):i + 50]!r}"


def test_apply_fields_match_oracle_for_every_template() -> None:
    counts = dict.fromkeys(APPLY_FIELDS, 0)
    mismatches: list[str] = []
    total = 0
    for name in oracle_template_names():
        data = load_oracle_analysis(name)
        source = load_oracle_template(name)
        for key, thinking in THINKING.items():
            total += 1
            params = apply_template(source, standard_request(thinking))
            assert params.handler == data["routed"]["handler"], name
            got, want = params.to_oracle_json(), data["apply"][key]
            for fld in APPLY_FIELDS:
                if got[fld] == want[fld]:
                    counts[fld] += 1
                else:
                    mismatches.append(f"{name}/{key} {fld} {_first_diff(got[fld], want[fld])}")
    _report("apply fields (70 templates x 2 thinking settings)", total, counts, mismatches)
    assert total == 140
    assert mismatches == []


def _parse_rows() -> list[dict]:
    rows = []
    for path in sorted((ORACLE / "parse").glob("*.jsonl")):
        rows += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return rows


@functools.lru_cache(maxsize=1)
def _fixture_tools() -> dict[str, tuple[dict, ...]]:
    from canitoolcall.fixtures import load_fixtures

    return {f.id: tuple(f.tools or ()) for f in load_fixtures()}


def _row_request(row: dict) -> Request:
    tools = _fixture_tools()[row["id"]]
    return Request(
        messages=({"role": "user", "content": "Hello"},),
        tools=tools or None,
        tool_choice="auto",
        parallel_tool_calls=row["parallel_tool_calls"],
        enable_thinking=row["enable_thinking"],
        chat_template_kwargs=dict(row["chat_template_kwargs"] or {}),
        reasoning_format="deepseek",
        add_generation_prompt=True,
    )


def test_every_conformance_row_end_to_end() -> None:
    """Template + fixture request -> parser -> parse of raw_output, as llama-server."""
    rows = _parse_rows()
    assert len(rows) == 469 and all(r["id"] in fixture_outputs() for r in rows)
    counts = dict.fromkeys(ROW_FIELDS + ("result", "streaming_final"), 0)
    mismatches: list[str] = []
    templates: dict[str, str] = {}
    for row in rows:
        source = templates.setdefault(row["template"], (ORACLE / "templates" / row["template"]).read_text("utf-8"))
        params = apply_template(source, _row_request(row))
        got = params.to_oracle_json() | {"supports_thinking": params.supports_thinking}
        for fld in ROW_FIELDS:
            if got[fld] == row[fld]:
                counts[fld] += 1
            else:
                mismatches.append(f"{row['id']} {fld} {_first_diff(got[fld], row[fld])}")
        ours = replay_row({"id": row["id"], "parser": params.parser, "generation_prompt": params.generation_prompt,
                           "format": params.format})
        if ours["result"] == row["result"] and ours["exception"] == row["exception"]:
            counts["result"] += 1
        else:
            diff = _first_diff([ours["result"], ours["exception"]], [row["result"], row["exception"]])
            mismatches.append(f"{row['id']} result {diff}")
        if ours["streaming_final"] == row["streaming_final"]:
            counts["streaming_final"] += 1
        else:
            mismatches.append(f"{row['id']} streaming_final "
                              f"{_first_diff(ours['streaming_final'], row['streaming_final'])}")
    _report("conformance rows end to end", len(rows), counts, mismatches)
    assert mismatches == []


def test_roundtrip_lines_parse_with_our_parser() -> None:
    """roundtrip.jsonl: the next-turn request (two tools) built by us, then llama.cpp's
    parse of the cut-out assistant turn, stripped and unstripped, and streamed."""
    lines = [json.loads(line) for line in (ORACLE / "roundtrip.jsonl").read_text("utf-8").splitlines() if line]
    parsed = [ln for ln in lines if ln["raw_output_stripped"] is not None]
    counts = dict.fromkeys(("generation_prompt", "additional_stops", "format", "result", "streaming_final",
                            "result_full"), 0)
    mismatches: list[str] = []
    params_by_key: dict[tuple[str, bool], Any] = {}
    for ln in parsed:
        key = (ln["template"], ln["enable_thinking"])
        if key not in params_by_key:
            source = (ORACLE / "templates" / ln["template"]).read_text("utf-8")
            params_by_key[key] = apply_template(source, Request(
                messages=({"role": "user", "content": "Hello"},), tools=tuple(ln["tools"]), tool_choice="auto",
                parallel_tool_calls=ln["parallel_tool_calls"], enable_thinking=ln["enable_thinking"],
                chat_template_kwargs=dict(ln["chat_template_kwargs"]), add_generation_prompt=True))
        params = params_by_key[key]
        got = {"generation_prompt": params.generation_prompt, "additional_stops": list(params.additional_stops),
               "format": params.format}
        for fld, value in got.items():
            if value == ln[fld]:
                counts[fld] += 1
            else:
                mismatches.append(f"{ln['id']} {fld} {_first_diff(value, ln[fld])}")
        base = {"id": ln["id"], "parser": params.parser, "generation_prompt": params.generation_prompt,
                "format": params.format}
        ours = replay_row(base | {"raw_output": ln["raw_output_stripped"]})
        full = replay_row(base | {"raw_output": ln["raw_output"]})
        checks = (
            ("result", [ours["result"], ours["exception"]], [ln["result"], ln["exception"]]),
            ("streaming_final", ours["streaming_final"], ln["streaming_final"]),
            ("result_full", [full["result"], full["exception"]], [ln["result_full"], ln["exception_full"]]),
        )
        for fld, mine, theirs in checks:
            if mine == theirs:
                counts[fld] += 1
            else:
                mismatches.append(f"{ln['id']} {fld} {_first_diff(mine, theirs)}")
    _report("roundtrip lines (parse of rendered assistant turns)", len(parsed), counts, mismatches)
    assert len(parsed) == 834
    assert mismatches == []
