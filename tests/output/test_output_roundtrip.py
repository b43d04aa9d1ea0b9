"""Extra golden data: llama.cpp's parses in the oracle's round-trip file.

``roundtrip.jsonl`` carries no parser string, but its request differs from the analysis
files' standard request only by a second tool (``search``). For messages that call no
tool or only ``get_weather`` (letters a, b, c, e, f) and whose generation prompt and
format equal the analysis file's, the analysis file's serialized parser is equivalent, so
llama.cpp's results must come out of it: the stripped and unstripped outputs, and the
streaming simulation of the stripped one. This covers all 70 templates, not only the
nine canitoolcall families.
"""

from __future__ import annotations

import json
from functools import cache

from explorer.errors import exception_json
from explorer.output.parse import analyse_output
from explorer.output.streaming import stream_summary
from explorer.peg import load_arena
from oracle_data import ORACLE, requires_oracle

STREAM_FIELDS = ("streaming_final", "streaming_final_exception", "streaming_threw",
                 "streaming_throw_count", "streaming_first_throw", "streaming_prefixes")


@cache
def _apply(template: str, thinking: bool) -> dict:
    data = json.loads((ORACLE / "analysis" / f"{template.removesuffix('.jinja')}.json").read_text(encoding="utf-8"))
    return data["apply"]["thinking_true" if thinking else "thinking_false"]


def usable_rows() -> list[tuple[dict, dict]]:
    rows = []
    for line in (ORACLE / "roundtrip.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["id"].split("/")[1] not in "abcef" or row["raw_output_stripped"] is None:
            continue
        apply = _apply(row["template"], row["enable_thinking"])
        if apply["generation_prompt"] == row["generation_prompt"] and apply["format"] == row["format"]:
            rows.append((row, apply))
    return rows


def _parse(arena, text: str, row: dict) -> tuple:
    p = analyse_output(arena, text, generation_prompt=row["generation_prompt"], format=row["format"])
    return (p.message.to_oracle_json() if p.message else None, exception_json(p.error) if p.error else None)


@requires_oracle
def test_roundtrip_parses_match_llama_cpp():
    rows = usable_rows()
    bad = []
    for row, apply in rows:
        arena = load_arena(apply["parser"])
        checks = {
            "stripped": (_parse(arena, row["raw_output_stripped"], row), (row["result"], row["exception"])),
            "full": (_parse(arena, row["raw_output"], row), (row["result_full"], row["exception_full"])),
        }
        ours = stream_summary(arena, row["raw_output_stripped"], generation_prompt=row["generation_prompt"],
                              format=row["format"])
        checks["streaming"] = ({f: ours[f] for f in STREAM_FIELDS}, {f: row[f] for f in STREAM_FIELDS})
        for what, (got, want) in checks.items():
            if got != want:
                bad.append((row["id"], what, got, want))
    print(f"round-trip rows: {3 * len(rows) - len(bad)}/{3 * len(rows)} parses identical "
          f"({len(rows)} rows, {len({r['template'] for r, _ in rows})} templates)")
    for item in bad[:5]:
        print("  ", item[0], item[1], json.dumps(item[2])[:300], "\n     llama:", json.dumps(item[3])[:300])
    assert len(rows) > 400
    assert not bad
