"""The provenance test: every marker of the 70 oracle templates' analyses is written by
the template line the provenance names, in both dialects.

A marker is every non-empty string field of the analysis with probe provenance
(``reasoning.start`` ... ``assistant_start``), plus every preserved token (through the
field it was trimmed from, or, when that field came from a workaround, wherever it first
occurs in a probe output). The field's probe side is rendered again with provenance and
the marker located in it (explorer.analysis.lines). The named line *holds* the marker
when every piece of it does: the piece's characters (less a final newline) appear in the
source text of its line or in a string constant of its tag ("literal"), or else the
piece's expression starts on that line ("expression": text that came from a variable or
the inputs). ``PYTHONPATH=tests:. python tests/oracle/test_lines_oracle.py`` prints the
figures.

Not attributable, and listed here rather than skipped: preserved tokens that a
workaround adds and no probe output contains.
"""

from __future__ import annotations

from collections import Counter

import pytest

from explorer.analysis import template_analysis
from explorer.analysis.lines import LineFinder, MarkerLines
from explorer.render import compile_template
from oracle_data import load_oracle_template, oracle_template_names, requires_oracle

pytestmark = requires_oracle

DIALECTS = ("llama.cpp", "transformers")

# (template, preserved token): a workaround adds it and no probe renders it.
NOT_IN_ANY_PROBE = {
    ("NVIDIA-Nemotron-Nano-v2", "</think>"),
    ("deepseek-ai-DeepSeek-R1-Distill-Llama-8B", "</think>"),
    ("ibm-granite-granite-3.3-2B-Instruct", "<think>"),
    ("ibm-granite-granite-3.3-2B-Instruct", "</think>"),
    ("ibm-granite-granite-3.3-2B-Instruct", "<response>"),
    ("ibm-granite-granite-3.3-2B-Instruct", "</response>"),
    ("llama-cpp-deepseek-r1", "</think>"),
}


def markers(name: str, dialect: str) -> tuple[MarkerLines, ...]:
    tmpl = compile_template(load_oracle_template(name), dialect)  # type: ignore[arg-type]
    return LineFinder(tmpl, template_analysis(tmpl)).markers()


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("name", oracle_template_names())
def test_every_marker_is_held_by_its_line(name: str, dialect: str) -> None:
    unattributed = set()
    for m in markers(name, dialect):
        if m.problem is not None:
            assert m.field.startswith("preserved_tokens[") and m.problem == \
                "set by a workaround and in no probe output", m
            unattributed.add((name, m.marker))
            continue
        assert m.sources, m
        assert "".join(s.text for s in m.sources) == m.marker
        for s in m.sources:
            assert s.level is not None, (m.field, m.marker, s)
    assert unattributed == {k for k in NOT_IN_ANY_PROBE if k[0] == name}


def report() -> None:
    for dialect in DIALECTS:
        counts: Counter[str] = Counter()
        for name in oracle_template_names():
            for m in markers(name, dialect):
                counts["markers"] += 1
                counts[(m.level or "not held") if m.problem is None else "unattributed"] += 1
        held = counts["literal"] + counts["expression"]
        print(f"{dialect}: {held}/{counts['markers']} markers held ({counts['literal']} literal, "
              f"{counts['expression']} expression); {counts['unattributed']} unattributed, "
              f"{counts['not held']} not held")


if __name__ == "__main__":
    report()
