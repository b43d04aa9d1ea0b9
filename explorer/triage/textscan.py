"""Looking at model output the way a person would: near misses, JSON objects, tag shapes.

Input: the model output and a marker. Output: places where the output *almost* spells the
marker (``near_misses``), a byte-level account of how two strings differ
(``describe_difference``), ```` ``` ```` fences, and tag-shaped tokens (``tags``). The
JSON objects in the text, with their decode errors, are ``explorer.jsonscan``'s.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from explorer.triage.model import shown

TAG = re.compile(r"<\|[^|<>\n]{1,40}\|>|<[^<>\n]{1,40}>|\[/?[A-Z][A-Z_]{1,30}\]|<｜[^｜\n]{1,40}｜>")
FENCE = re.compile(r"```[ \t]*(json|JSON|javascript|js|tool_call|python)?[ \t]*\n?")


@dataclass(frozen=True)
class Miss:
    start: int
    end: int
    text: str


def _fuzzy_pattern(marker: str) -> re.Pattern[str]:
    """The marker with any whitespace (or none) between its visible characters, any case."""
    parts: list[str] = []
    for ch in marker.strip():
        if ch.isspace():
            continue
        parts.append(re.escape(ch))
    core = r"[ \t]*".join(parts)
    lead = r"\s*" if marker[:1].isspace() else ""
    tail = r"[ \t]*\r?\n?" if marker[-1:].isspace() else ""
    return re.compile(lead + core + tail, re.IGNORECASE)


def near_misses(text: str, marker: str) -> tuple[Miss, ...]:
    """Places spelling ``marker`` with different whitespace or case (never the exact marker)."""
    if not marker.strip():
        return ()
    out: list[Miss] = []
    for m in _fuzzy_pattern(marker).finditer(text):
        start = m.start()
        # the exact marker may start inside a leading-whitespace match
        if text.startswith(marker, start) or marker in m.group(0):
            continue
        out.append(Miss(start, m.end(), m.group(0)))
    return tuple(out)


def _spacing(tag: str) -> str:
    return re.sub(r"\s", "", tag).lower()


def _normal(tag: str) -> str:
    return re.sub(r"[\s_\-|｜▁]", "", tag).lower()


def similar_tags(text: str, marker: str, known: set[str]) -> tuple[Miss, ...]:
    """Tag-shaped tokens like the marker's tag but spelled differently (``<tool_calls>``,
    ``<toolcall>``, ``<function_call>``), other than the format's own markers."""
    core = marker.strip()
    if not TAG.fullmatch(core):
        return ()
    key = _normal(core)
    stripped_known = {k.strip() for k in known}
    verdicts: dict[str, bool] = {}

    def similar(tag: str) -> bool:
        if tag == core or tag in stripped_known:
            return False
        if tag.startswith("</") != core.startswith("</") or _spacing(tag) == _spacing(core):
            return False  # a closer, or a whitespace/case variant (near_misses says that one)
        return difflib.SequenceMatcher(None, _normal(tag), key).ratio() >= 0.75

    out: list[Miss] = []
    for start, end, tag in tags_in(text):
        if tag not in verdicts:
            verdicts[tag] = similar(tag)
        if verdicts[tag]:
            out.append(Miss(start, end, tag))
    return tuple(out)


_TAGS: list[tuple[str, tuple[tuple[int, int, str], ...]]] = []


def tags_in(text: str) -> tuple[tuple[int, int, str], ...]:
    """Every tag-shaped token of ``text`` (start, end, tag), read once per text (every marker's
    near misses are looked for in the same output)."""
    for held, found in _TAGS:
        if held is text:
            return found
    found = tuple((m.start(), m.end(), m.group(0)) for m in TAG.finditer(text))
    _TAGS[:] = [(text, found)] + _TAGS[:3]
    return found


def describe_difference(expected: str, found: str) -> str:
    """How ``found`` differs from ``expected``, byte by byte, in words."""
    ops: list[str] = []
    sm = difflib.SequenceMatcher(None, expected, found, autojunk=False)
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            continue
        where = f"after {shown(expected[:i1])}" if i1 else "at the start"
        if i1 == len(expected) and i1:
            where = "at the end"
        if op == "insert":
            ops.append(f"extra {shown(found[j1:j2])} {where}")
        elif op == "delete":
            ops.append(f"missing {shown(expected[i1:i2])} {where}")
        else:
            ops.append(f"{shown(found[j1:j2])} instead of {shown(expected[i1:i2])} {where}")
    return "; ".join(ops) if ops else "identical"
