"""Phase 2, content: C1 (content-only reply versus tool-call and reasoning replies).

Input: a ``Draft`` with the reasoning fields already set. Output: ``content.mode``,
``content.start`` and ``content.end``, exactly as llama.cpp's ``analyze_content``.
"""

from __future__ import annotations

from explorer.analysis.diff import trim_whitespace
from explorer.analysis.draft import Draft
from explorer.analysis.matcher import END, MARKER, REST, SPACE, lit, optional, seq, tag
from explorer.analysis.model import ContentMode, ReasoningMode
from explorer.analysis.probes import ASSISTANT_MSG

_WRAPPED = seq(tag("pre", seq(MARKER, SPACE)), lit(ASSISTANT_MSG), SPACE, tag("post", seq(MARKER, SPACE)), REST)


def analyze_content(d: Draft) -> None:
    with_tools = d.session.compare("C1.tools")
    with_reasoning = d.session.compare("C1.reasoning")
    if with_tools is None or with_reasoning is None:
        return
    diff_tools = with_tools.diff
    diff_reasoning = with_reasoning.diff

    if trim_whitespace(diff_tools.left) == ASSISTANT_MSG:
        # Only the reply text (and perhaps one stray end-of-generation marker) differs.
        # llama.cpp quirk: the text is matched against itself after space() has eaten its
        # leading whitespace, so a diff starting with whitespace never passes this test.
        only_text = seq(SPACE, lit(diff_reasoning.left), SPACE, optional(MARKER), SPACE, END)
        if only_text.match(diff_reasoning.left).success:
            d.set("content.mode", ContentMode.PLAIN, "C1.reasoning", "diff.left", "the diff is the reply alone")
            return _finish(d)
        end = d["reasoning.end"]
        if d["reasoning.mode"] is not ReasoningMode.NONE and end:
            after_reasoning = seq(lit(end), SPACE, lit(ASSISTANT_MSG))
            if after_reasoning.match_anywhere(diff_reasoning.left).success:
                d.set("content.mode", ContentMode.PLAIN, "C1.reasoning", "diff.left",
                      "the reply follows the reasoning end marker directly")
                return _finish(d)

    rdiff = diff_reasoning.left
    end = d["reasoning.end"]
    if end and end in rdiff:
        rdiff = rdiff[rdiff.find(end) + len(end) :]
    if len(rdiff) > len(diff_tools.left):
        pure, probe = rdiff, "C1.reasoning"
    else:
        pure, probe = diff_tools.left, "C1.tools"
    found = _WRAPPED.match_anywhere(pure)
    if found.tag("pre"):
        d.set("content.start", found.tag("pre"), probe, "diff.left", "marker before the reply")
    if found.tag("post"):
        d.set("content.end", found.tag("post"), probe, "diff.left", "marker after the reply")
    if not found.success:
        d.session.note(probe, "no markers around the reply: content is PLAIN")
    _finish(d, probe)


def _finish(d: Draft, probe: str | None = None) -> None:
    if d["content.start"] or d["content.end"]:
        d.set("content.mode", ContentMode.ALWAYS_WRAPPED, probe, "diff.left", "markers around the reply")
