"""What a triage finding carries, in words for the "Why this result?" section (no streamlit).

Input: a ``Finding`` (``explorer.triage.model``). Output: plain strings the page shows
beside its summary: where the fix belongs (``fix_where``, with the llama.cpp function or
handler when it names one), the "llama.cpp quirk" label, where a template finding comes
from (field, probe, template line), and the suggestion, only when our own re-parse of it
gave the intended message (``Suggestion.verified``).
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.triage.model import FIX_WHERE_WORDS, Finding

QUIRK_LABEL = "llama.cpp quirk"


def fix_where(f: Finding) -> str:
    """Where the fix belongs, in words: ``model``, ``request``, ``template`` or ``llama.cpp``
    (with the function or handler the finding names)."""
    words = FIX_WHERE_WORDS.get(f.fix_where, f.fix_where)
    if f.llama_cpp:
        return f"{words} — llama.cpp: {f.llama_cpp}" if f.fix_where != "llama.cpp" else f"{words}: {f.llama_cpp}"
    return words


def template_origin(f: Finding) -> str:
    """Where a template finding comes from (the analysis field, its probe, the template line)."""
    if not f.field:
        return ""
    said = f"field {f.field}"
    if f.probe:
        said += f", set by probe {f.probe}"
    if f.template_line:
        said += f", template line {f.template_line}"
    return said


@dataclass(frozen=True)
class ShownSuggestion:
    """A verified suggestion as the page shows it."""

    summary: str
    change: str  # the request change, or "" for a corrected output
    text: str  # the corrected output, or ""
    verified: str  # what our re-parse returned


def verified_suggestion(f: Finding) -> ShownSuggestion | None:
    """The finding's suggestion when our own re-parse verified it; None otherwise."""
    s = f.suggestion
    if s is None or not s.verified:
        return None
    return ShownSuggestion(s.summary, s.request_change if s.kind == "request" else "",
                           s.text if s.kind == "output" else "", s.verified)


def note_line(f: Finding) -> str:
    """A note (an info finding) on one line: its check and summary."""
    return f"{f.check}: {f.summary}"


def note_html(f: Finding) -> str:
    import html

    return f'<b>{html.escape(f.check)}</b>: {html.escape(f.summary)}'
