"""Phase 1, reasoning: R1 (presence), R2 (thinking enabled), R3 (scope).

Input: a ``Draft`` whose session renders the probes. Output: ``reasoning.mode``,
``reasoning.start`` and ``reasoning.end`` set on the draft, exactly as llama.cpp's
``analyze_reasoning`` decides them.
"""

from __future__ import annotations

from explorer.analysis.diff import SegmentType, prune_whitespace_segments, segmentize_markers, trim_whitespace
from explorer.analysis.draft import Draft
from explorer.analysis.matcher import MARKER, REST, SPACE, lit, optional, seq, tag
from explorer.analysis.model import ReasoningMode
from explorer.analysis.probes import THINKING_CONTENT

# The reasoning text between two markers, or followed by one closing marker.
_WRAPPED = seq(tag("pre", seq(MARKER, SPACE)), lit(THINKING_CONTENT),
               tag("post", seq(SPACE, MARKER, SPACE)), REST)
_DELIMITER = seq(lit(THINKING_CONTENT), SPACE, optional(tag("post", seq(MARKER, SPACE))), REST)
_SCOPE_WRAPPED = seq(tag("pre", seq(MARKER, SPACE)), lit(THINKING_CONTENT), SPACE,
                     tag("post", seq(MARKER, SPACE)))
_SCOPE_DELIMITER = seq(lit(THINKING_CONTENT), SPACE, optional(tag("post", seq(MARKER, SPACE))))

TAIL_ANCHOR_LEN = 64


def analyze_reasoning(d: Draft, supports_tool_calls: bool) -> None:
    compare_reasoning_presence(d)
    compare_thinking_enabled(d)
    if supports_tool_calls:
        compare_reasoning_scope(d)


def compare_reasoning_presence(d: Draft) -> None:
    cmp = d.session.compare("R1")
    if cmp is None:
        return
    if not cmp.diff.right or THINKING_CONTENT not in cmp.diff.right:
        d.session.note("R1", "reasoning_content does not render: no reasoning markers from R1")
        return
    found = _WRAPPED.match_anywhere(cmp.output_b)
    shape = "marker, reasoning, marker"
    if not found.success:
        found = _DELIMITER.match_anywhere(cmp.output_b)
        shape = "reasoning, closing marker"
    if not found.success:
        d.session.note("R1", "reasoning renders, but no marker surrounds or follows it")
        return
    pre, post = found.tag("pre"), found.tag("post")
    if pre and post:
        d.set("reasoning.mode", ReasoningMode.TAG_BASED, "R1", "B", shape)
        d.set("reasoning.start", pre, "R1", "B", shape)
        d.set("reasoning.end", post, "R1", "B", shape)
    elif post:
        d.set("reasoning.mode", ReasoningMode.TAG_BASED, "R1", "B", shape)
        d.set("reasoning.end", post, "R1", "B", shape)
    else:
        d.session.note("R1", "reasoning renders with no closing marker after it")


def compare_thinking_enabled(d: Draft) -> None:
    cmp = d.session.compare("R2")
    if cmp is None:
        return
    diff = cmp.diff
    left_trimmed = trim_whitespace(diff.left)
    right_trimmed = trim_whitespace(diff.right)

    if not left_trimmed and diff.right:
        if right_trimmed and cmp.output_b.endswith(right_trimmed) and not d["reasoning.start"]:
            d.set("reasoning.start", diff.right, "R2", "diff.right", "enable_thinking=true appends it")
            d.set("reasoning.mode", ReasoningMode.TAG_BASED, "R2", "diff.right")
    elif not right_trimmed and diff.left:
        if left_trimmed and cmp.output_a.endswith(left_trimmed) and not d["reasoning.end"]:
            seg = prune_whitespace_segments(segmentize_markers(cmp.output_a))
            if len(seg) >= 2 and seg[-1].value == left_trimmed and seg[-2].type is SegmentType.MARKER:
                d.set("reasoning.start", seg[-2].value, "R2", "A",
                      "the marker before the closed empty block enable_thinking=false appends")
            d.set("reasoning.end", diff.left, "R2", "diff.left", "enable_thinking=false closes the block")
            d.set("reasoning.mode", ReasoningMode.TAG_BASED, "R2", "diff.left")
    elif left_trimmed and right_trimmed:
        _tail_anchor(d, cmp.output_a, cmp.output_b)

    if d["reasoning.mode"] is ReasoningMode.NONE and not d["reasoning.start"] and d["reasoning.end"]:
        d.set("reasoning.mode", ReasoningMode.TAG_BASED, "R2", None, "an end marker alone means TAG_BASED")


def _tail_anchor(d: Draft, output_a: str, output_b: str) -> None:
    """Both sides changed: find one output's tail in the other, followed by two markers."""
    for base, extended, side in ((output_b, output_a, "A"), (output_a, output_b, "B")):
        size = min(len(base), TAIL_ANCHOR_LEN)
        anchor = base[len(base) - size :]
        pos = extended.rfind(anchor)
        if pos < 0 or pos + size >= len(extended):
            continue
        extra = trim_whitespace(extended[pos + size :])
        if not extra:
            continue
        seg = prune_whitespace_segments(segmentize_markers(extra))
        if len(seg) == 2 and seg[0].type is SegmentType.MARKER and seg[1].type is SegmentType.MARKER:
            note = "two markers after the other output's tail"
            if not d["reasoning.start"]:
                d.set("reasoning.start", seg[0].value, "R2", side, note)
            if not d["reasoning.end"]:
                d.set("reasoning.end", seg[1].value, "R2", side, note)
            d.set("reasoning.mode", ReasoningMode.TAG_BASED, "R2", side, note)
            return


def compare_reasoning_scope(d: Draft) -> None:
    cmp = d.session.compare("R3")
    if cmp is None:
        return
    in_a = THINKING_CONTENT in cmp.output_a
    in_b = THINKING_CONTENT in cmp.output_b
    if in_a or not in_b:
        return
    d.set("reasoning.mode", ReasoningMode.TOOLS_ONLY, "R3", "B", "reasoning renders only with tool calls")
    found = _SCOPE_WRAPPED.match_anywhere(cmp.output_b)
    if found.success:
        d.set("reasoning.start", found.tag("pre"), "R3", "B")
        d.set("reasoning.end", found.tag("post"), "R3", "B")
        return
    # llama.cpp quirk: the closing marker is optional in this parser, so it always matches
    # once the reasoning is in output B and the NONE fallback below never happens.
    found = _SCOPE_DELIMITER.match_anywhere(cmp.output_b)
    if found.success:
        d.set("reasoning.end", found.tag("post"), "R3", "B")
    else:
        d.set("reasoning.mode", ReasoningMode.NONE, "R3", "B", "no markers around the reasoning")
        d.session.note("R3", "unable to extract reasoning markers: mode falls back to NONE")
