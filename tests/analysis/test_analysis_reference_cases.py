"""240 random templates, analysed by llama.cpp itself, against our analysis.

``tests/data/analysis_reference_cases.jsonl`` was produced by running llama.cpp
0c1e5709's own ``autoparser::analyze_template`` (built from the reference tree, with
only a small driver around it) on templates assembled at random from chat-template
pieces: reasoning blocks, JSON and tagged tool calls, ids, generation prompts, odd
brackets and multi-byte characters. Each row holds the template, the capabilities the
analysis ran with (rows 0-179 the template's own, as llama.cpp detects them; 180-209
forced to typed-content-only; 210-239 forced to no parallel calls), and either every
analysis field or the exception it threw (a JSON parse error of the tool call). Strings are UTF-8 with invalid bytes (a diff cut
inside a character) shown as U+FFFD, as our decoded fields show them.
"""

from __future__ import annotations

import json

import pytest

from explorer.analysis import analyze_template
from explorer.analysis.model import CAPS_FIELDS
from explorer.errors import AnalysisError
from explorer.render import compile_template
from oracle_data import DATA_DIR

CASES = [
    json.loads(line)
    for line in (DATA_DIR / "analysis_reference_cases.jsonl").read_text("utf-8").splitlines()
    if line.strip()
]


def _flat(obj: dict, prefix: str = "") -> dict:
    out: dict = {}
    for key, value in obj.items():
        if isinstance(value, dict):
            out.update(_flat(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


@pytest.mark.parametrize("index", range(len(CASES)))
def test_random_template_matches_llama_cpp(index: int) -> None:
    case = CASES[index]
    caps = dict(zip(CAPS_FIELDS, map(bool, case["caps"])))
    tmpl = compile_template(case["template"])
    if "exception" in case:
        with pytest.raises(AnalysisError):
            analyze_template(tmpl, caps, trace=False)
        return
    ours = _flat(analyze_template(tmpl, caps, trace=False).to_oracle_json())
    diffs = [(k, v, ours.get(k)) for k, v in case["fields"].items() if ours.get(k) != v]
    assert not diffs, "\n".join(f"{k}: llama.cpp={v!r} ours={o!r}" for k, v, o in diffs)
