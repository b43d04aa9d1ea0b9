"""The glossary (explorer.analysis.glossary): one line for every mode value the analysis
can hold and for every marker field, and docs/glossary.md is its generated text."""

from __future__ import annotations

from explorer.analysis.glossary import FIELD_LINES, MODE_GROUPS, explain, field_line, glossary_markdown, mode_line
from explorer.analysis.model import FIELD_NAMES, CallIdPosition, ContentMode, ReasoningMode, ToolFormat
from oracle_data import PROJECT_ROOT


def test_every_mode_value_has_its_line():
    enums = {g.field: g.enum for g in MODE_GROUPS}
    assert enums == {"reasoning.mode": ReasoningMode, "content.mode": ContentMode,
                     "tools.format.mode": ToolFormat, "tools.call_id.pos": CallIdPosition}
    for group in MODE_GROUPS:
        assert set(group.values) == {m.value for m in group.enum}, group.field
        assert group.field in FIELD_NAMES
        for member in group.enum:
            line = mode_line(group.field, member)
            assert line and line.endswith(".") and "\n" not in line
            assert explain(group.field, member) == f"{member.value}: {line}"


def test_none_means_different_things_in_different_fields():
    assert mode_line("reasoning.mode", "NONE") != mode_line("tools.format.mode", "NONE")
    assert mode_line("no.such.field", "NONE") is None and explain("no.such.field", "X") == "X"


def test_every_marker_field_line_names_a_real_field():
    assert set(FIELD_LINES) <= set(FIELD_NAMES)
    assert field_line("tools.arguments.name_prefix") and field_line("tools.format.mode") is None


def test_docs_glossary_is_the_generated_text():
    """Regenerate with: python -m explorer.analysis.glossary > docs/glossary.md"""
    assert (PROJECT_ROOT / "docs" / "glossary.md").read_text(encoding="utf-8") == glossary_markdown()
