"""Explanations of round-trip losses, checked against what the oracle's texts show.

Where llama.cpp's own ``raw_output`` (cut by the ``prompt`` rule) lacks the message's
reasoning or a call's name, the template dropped it from the history turn, and our
explanation must say so; the README's named cases (Llama 3.1's refusal of two calls,
Functionary 3.1's ``<|eom_id|>``) must be explained as such.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from explorer.roundtrip import ORACLE_MESSAGES, ORACLE_TOOLS, RoundTripCase, roundtrip_report
from oracle_data import ORACLE, load_oracle_template, requires_oracle

pytestmark = requires_oracle


def _lines() -> list[dict[str, Any]]:
    return [json.loads(s) for s in (ORACLE / "roundtrip.jsonl").read_text(encoding="utf-8").splitlines() if s.strip()]


@cache
def _cases(template: str, thinking: bool) -> dict[str, RoundTripCase]:
    report = roundtrip_report(load_oracle_template(template.removesuffix(".jinja")), enable_thinking=thinking,
                              messages=ORACLE_MESSAGES, tools=ORACLE_TOOLS, grammar=False)
    return {c.message_id: c for c in report.cases}


def _case(line: dict[str, Any]) -> RoundTripCase:
    return _cases(line["template"], line["enable_thinking"])[line["id"].split("/")[1]]


def test_dropped_fields_are_explained_as_dropped() -> None:
    checked, wrong = 0, []
    for line in _lines():
        if line["cut_rule"] != "prompt" or not line["roundtrip_diff"]:
            continue
        message, raw = line["message"], line["raw_output"]
        want = []
        if "reasoning_content" in line["roundtrip_diff"] and message.get("reasoning_content") \
                and message["reasoning_content"] not in raw:
            want.append("drops reasoning_content")
        names = [c["function"]["name"] for c in message.get("tool_calls", [])]
        if any(d.startswith("tool_calls.count") for d in line["roundtrip_diff"]) and names \
                and not any(n in raw for n in names):
            want.append("drops tool calls")
        for phrase in want:
            checked += 1
            if not any(phrase in n for n in _case(line).explanation):
                wrong.append(f"{line['id']}: no {phrase!r} in {_case(line).explanation}")
    print(f"\ndropped-field explanations: {checked - len(wrong)}/{checked}", *wrong[:10], sep="\n  ")
    assert checked > 50 and not wrong


def test_readme_named_cases() -> None:
    lines = {line["id"]: line for line in _lines()}
    llama = _case(lines["meta-llama-Llama-3.1-8B-Instruct/d/false"])
    assert any("only supports single tool-calls" in n for n in llama.explanation)
    functionary = lines["meetkai-functionary-medium-v3.1/c/false"]
    assert functionary["strip_rule"] == "none" and functionary["raw_output_stripped"].endswith("<|eom_id|>")
    assert any("stop token is left in place" in n for n in _case(functionary).explanation)
