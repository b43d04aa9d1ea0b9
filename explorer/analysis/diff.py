"""Marker-aware diffing of two renderings, as llama.cpp's autoparser does it.

Input: two rendered strings (output A and output B of a probe). Output: a frozen
``DiffSplit`` (common prefix, common suffix, the part only in A, the part only in B),
plus the helpers the analyzers use on those parts (marker segmentation, trimming,
``until_common_prefix`` / ``after_common_suffix``).

The split is computed on segments first (``<...>`` and ``[...]`` markers versus plain
text), so a prefix or suffix never ends half way through a marker; only the text
left over after the segment pass is compared character by character. ``trace_diff``
gives the same split together with the naive character split and every step taken.
(llama.cpp's docs still describe the older "tag boundary fixing" loop; the code at
commit 0c1e5709, ported here, works on segments as above.)

The functions work on any ``str``. The analysis feeds them UTF-8 bytes spelled as
latin-1 characters so that character positions are byte positions, exactly as in
the C++ code (see ``explorer.analysis.render_probe``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from typing import NamedTuple

from explorer.jsontypes import JsonObject

# C's isspace() in the "C" locale.
WHITESPACE = " \t\n\v\f\r"


class SegmentType(str, Enum):
    TEXT = "TEXT"
    MARKER = "MARKER"


class Segment(NamedTuple):
    type: SegmentType
    value: str


@dataclass(frozen=True)
class DiffSplit:
    prefix: str = ""
    suffix: str = ""
    left: str = ""
    right: str = ""

    def to_json(self) -> JsonObject:
        return {"prefix": self.prefix, "suffix": self.suffix, "left": self.left, "right": self.right}


@dataclass(frozen=True)
class DiffStep:
    """One step of the split: what was done and the split as it stood afterwards."""

    name: str
    detail: str
    split: DiffSplit


@dataclass(frozen=True)
class DiffTrace:
    """The naive character split, the marker-aware split, and the steps between."""

    naive: DiffSplit
    final: DiffSplit
    steps: tuple[DiffStep, ...]


# --- trimming ----------------------------------------------------------------


def trim_whitespace(text: str) -> str:
    return text.strip(WHITESPACE)


def trim_leading_whitespace(text: str) -> str:
    return text.lstrip(WHITESPACE)


def trim_trailing_whitespace(text: str) -> str:
    return text.rstrip(WHITESPACE)


def trim_trailing_newlines(text: str) -> str:
    return text.rstrip("\n")


# --- segments ----------------------------------------------------------------

# A closed marker, or (last alternative) an opener that is never closed.
_MARKER_RE = re.compile(r"<[^>]*>|\[[^\]]*\]|[<\[]")
_TEXT, _MARKER = SegmentType.TEXT, SegmentType.MARKER


def segmentize_markers(text: str) -> list[Segment]:
    """Split text into ``<...>`` / ``[...]`` markers and the text between them.

    An opener inside a marker is ordinary text of that marker; from an opener that is
    never closed, the rest is one text segment (after the text before it).
    """
    return list(_segments(text))


@lru_cache(maxsize=128)  # a probe output takes part in several comparisons
def _segments(text: str) -> tuple[Segment, ...]:
    segments: list[Segment] = []
    border = 0
    for m in _MARKER_RE.finditer(text):
        start, end = m.span()
        if border < start:
            segments.append(Segment(_TEXT, text[border:start]))
        border = start
        if end - start == 1:
            break  # unclosed: the opener starts the final text segment
        segments.append(Segment(_MARKER, text[start:end]))
        border = end
    if border < len(text):
        segments.append(Segment(_TEXT, text[border:]))
    return tuple(segments)


def prune_whitespace_segments(segments: list[Segment]) -> list[Segment]:
    return [s for s in segments if trim_whitespace(s.value)]


# --- the split ---------------------------------------------------------------


def common_prefix_len(left: str, right: str) -> int:
    n = min(len(left), len(right))
    if left[:n] == right[:n]:
        return n
    lo, hi = 0, n  # binary search on the first mismatch
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if left[:mid] == right[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def common_suffix_len(left: str, right: str) -> int:
    n = min(len(left), len(right))
    if n == 0:
        return 0
    if left[len(left) - n :] == right[len(right) - n :]:
        return n
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if left[len(left) - mid :] == right[len(right) - mid :]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def naive_diff_split(left: str, right: str) -> DiffSplit:
    """Plain character split (no marker awareness), for comparison in traces."""
    p = common_prefix_len(left, right)
    s = common_suffix_len(left[p:], right[p:])
    return DiffSplit(
        prefix=left[:p],
        suffix=left[len(left) - s :] if s else "",
        left=left[p : len(left) - s],
        right=right[p : len(right) - s],
    )


def calculate_diff_split(left: str, right: str) -> DiffSplit:
    return _split(left, right, None)


def trace_diff(left: str, right: str) -> DiffTrace:
    steps: list[DiffStep] = []
    final = _split(left, right, steps)
    return DiffTrace(naive=naive_diff_split(left, right), final=final, steps=tuple(steps))


def _split(left: str, right: str, steps: list[DiffStep] | None) -> DiffSplit:
    lseg = _segments(left)
    rseg = _segments(right)
    if not lseg:
        return DiffSplit(right=right)
    if not rseg:
        return DiffSplit(left=left)

    # Inclusive segment cursors, as in the reference: [ls, lend] and [rs, rend].
    ls, lend = 0, len(lseg) - 1
    rs, rend = 0, len(rseg) - 1
    prefix: list[str] = []
    suffix: list[str] = []  # reversed
    left_done = right_done = False

    while ls != lend and rs != rend:
        advanced = False
        if lseg[ls] == rseg[rs]:
            prefix.append(lseg[ls].value)
            ls += 1
            rs += 1
            advanced = True
        if lseg[lend] == rseg[rend]:
            suffix.append(lseg[lend].value)
            if ls != lend:
                lend -= 1
            else:
                left_done = True
            if rs != rend:
                rend -= 1
            else:
                right_done = True
            advanced = True
        if not advanced:
            break

    if ls == lend and rs != rend:
        if lseg[ls] == rseg[rend]:
            suffix.append(rseg[rend].value)
            rend -= 1
            left_done = True
        elif lseg[ls] == rseg[rs]:
            prefix.append(rseg[rs].value)
            rs += 1
            left_done = True
    elif rs == rend and ls != lend:
        if lseg[lend] == rseg[rs]:
            suffix.append(lseg[lend].value)
            lend -= 1
            right_done = True
        elif lseg[ls] == rseg[rs]:
            prefix.append(lseg[ls].value)
            ls += 1
            right_done = True
    elif ls == lend and rs == rend and lseg[ls] == rseg[rs] and lseg[ls].type is SegmentType.MARKER:
        prefix.append(rseg[rs].value)
        left_done = right_done = True

    prefix_text = "".join(prefix)
    suffix_text = "".join(reversed(suffix))

    text_suffix_ok = lseg[lend].type is SegmentType.TEXT and rseg[rend].type is SegmentType.TEXT
    text_prefix_ok = rseg[rs].type is SegmentType.TEXT and lseg[ls].type is SegmentType.TEXT

    rem_left = "".join(s.value for s in lseg[ls : (lend if left_done else lend + 1)])
    rem_right = "".join(s.value for s in rseg[rs : (rend if right_done else rend + 1)])

    if steps is not None:
        steps.append(
            DiffStep(
                "segments",
                f"matched {ls} leading and {len(suffix)} trailing marker/text segments",
                DiffSplit(prefix_text, suffix_text, rem_left, rem_right),
            )
        )

    slen = common_suffix_len(rem_left, rem_right) if text_suffix_ok else 0
    plen = (
        common_prefix_len(rem_left[: len(rem_left) - slen], rem_right[: len(rem_right) - slen])
        if text_prefix_ok
        else 0
    )
    result = DiffSplit(
        prefix=prefix_text + rem_left[:plen],
        suffix=(rem_left[len(rem_left) - slen :] if slen else "") + suffix_text,
        left=rem_left[plen : len(rem_left) - slen],
        right=rem_right[plen : len(rem_right) - slen],
    )
    if steps is not None:
        steps.append(
            DiffStep(
                "text",
                f"moved {plen} common leading and {slen} common trailing characters of the "
                "remaining text into prefix/suffix"
                + ("" if text_prefix_ok or text_suffix_ok else " (none: remainders start/end on markers)"),
                result,
            )
        )

    if not result.left and not result.right:
        result = DiffSplit(prefix=left)
        if steps is not None:
            steps.append(DiffStep("identical", "no difference: the whole text is the prefix", result))

    # When A is a prefix of B, trailing segments of A can be matched as suffix and
    # rotate the diff; the reference then forces prefix = A.
    if not result.left and result.right and len(left) <= len(right) and right.startswith(left):
        result = DiffSplit(prefix=left, suffix="", left="", right=right[len(left) :])
        if steps is not None:
            steps.append(DiffStep("left-is-prefix", "A is a prefix of B: prefix = A, right = the rest", result))
    return result


# --- anchors -----------------------------------------------------------------


def until_common_prefix(full: str, left: str, right: str) -> str:
    """``full`` up to the first occurrence of the common prefix of left and right."""
    n = common_prefix_len(left, right)
    if n == 0:
        return ""
    pos = full.find(left[:n])
    return "" if pos < 0 else full[:pos]


def after_common_suffix(full: str, left: str, right: str) -> str:
    """``full`` after the last occurrence of the common suffix of left and right."""
    n = common_suffix_len(left, right)
    if n == 0:
        return ""
    common = left[len(left) - n :]
    pos = full.rfind(common)
    return "" if pos < 0 else full[pos + n :]
