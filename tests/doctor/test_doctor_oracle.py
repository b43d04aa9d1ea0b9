"""The doctor over the oracle's 70 templates: no false alarm.

No template llama.cpp handles with a specialised handler is ``broken``; a ``broken``
autoparser template is one whose own replies llama.cpp's round trip fails too; every
round-trip sentence has a rule. The verdicts' counts are printed (``pytest -s``).
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from explorer.doctor.batch import run_batch
from explorer.routing import AUTOPARSER
from oracle_data import ORACLE, load_oracle_analysis, requires_oracle

pytestmark = [requires_oracle, pytest.mark.timeout(900)]


@pytest.fixture(scope="module")
def lines() -> list[dict[str, object]]:
    return list(run_batch([str(ORACLE / "templates")], fixes=False, jobs=2))


def _name(line: dict[str, object]) -> str:
    return str(line["template"]).rsplit("/", 1)[-1].removesuffix(".jinja")


def test_every_template_is_doctored_and_the_verdicts_are_counted(lines: list[dict[str, object]]) -> None:
    assert len(lines) == 70 and not [line for line in lines if "error" in line]
    counts = Counter(str(line["verdict"]) for line in lines)
    routed = Counter(str(line["verdict"]) for line in lines if line["handler"] != AUTOPARSER)
    print(f"\ndoctor verdicts over the 70 oracle templates: {dict(counts)}; on handler routes: {dict(routed)}")
    assert sum(counts.values()) == 70


def test_the_route_is_llama_cpps(lines: list[dict[str, object]]) -> None:
    for line in lines:
        assert line["handler"] == load_oracle_analysis(_name(line))["routed"]["handler"], _name(line)


def test_no_handler_routed_template_is_broken(lines: list[dict[str, object]]) -> None:
    broken = [_name(line) for line in lines if line["handler"] != AUTOPARSER and line["verdict"] == "broken"]
    assert broken == []


def test_a_broken_template_fails_llama_cpps_own_round_trip_too(lines: list[dict[str, object]]) -> None:
    """Every broken verdict here comes with a cause, and llama.cpp's own round trip of that
    template gives back no tool call (or no content) either."""
    rows: dict[str, list[dict[str, object]]] = {}
    for text in (ORACLE / "roundtrip.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(text)
        rows.setdefault(str(row["template"]).removesuffix(".jinja"), []).append(row)
    for line in lines:
        if line["verdict"] != "broken":
            continue
        findings = line["findings"]
        assert isinstance(findings, list) and any(f["severity"] == "cause" for f in findings), _name(line)
        calls = [r for r in rows[_name(line)] if r["message"].get("tool_calls")]  # type: ignore[union-attr]
        plain = [r for r in rows[_name(line)] if not r["message"].get("tool_calls")]  # type: ignore[union-attr]
        assert not any(r["roundtrip_equal_trimmed"] for r in calls) or not any(
            r["roundtrip_equal_trimmed"] for r in plain), _name(line)


def test_every_round_trip_sentence_has_a_rule(lines: list[dict[str, object]]) -> None:
    unknown = [(_name(line), f["detail"]) for line in lines for f in line["findings"]  # type: ignore[union-attr]
               if f["check"] == "roundtrip-unclassified"]
    assert unknown == []


def test_the_fixture_family_is_found_for_every_template_the_oracle_ran_one_with(lines: list[dict[str, object]]) -> None:
    data = json.loads((ORACLE / "family_templates.json").read_text(encoding="utf-8"))
    wanted = {row["template"].removesuffix(".jinja"): slug for slug, family in data["families"].items()
              for row in family["models"].values() if row["template"]}
    got = {_name(line): line["fixtures"]["family"] for line in lines  # type: ignore[index]
           if isinstance(line.get("fixtures"), dict)}
    assert {name: got.get(name) for name in wanted} == wanted
