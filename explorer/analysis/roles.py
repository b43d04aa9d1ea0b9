"""Turn openers and preserved tokens.

Input: a ``Draft`` with reasoning, content and tools set. Output: ``assistant_start``
and ``user_start`` (llama.cpp's ``detect_*_start_marker``) and ``preserved_tokens``
(``collect_preserved_tokens``: every non-empty trimmed marker, first occurrence kept,
in the reference's order).
"""

from __future__ import annotations

from explorer.analysis.diff import SegmentType, segmentize_markers, trim_whitespace
from explorer.analysis.draft import Draft
from explorer.analysis.probes import ASSISTANT_MSG, USER_MSG

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")

PRESERVED_TOKEN_FIELDS = (
    "reasoning.start",
    "reasoning.end",
    "content.start",
    "content.end",
    "tools.format.section_start",
    "tools.format.section_end",
    "tools.format.per_call_start",
    "tools.format.per_call_end",
    "tools.function.name_prefix",
    "tools.function.name_suffix",
    "tools.function.args_separator",
    "tools.function.close",
    "tools.arguments.start",
    "tools.arguments.end",
    "tools.arguments.name_prefix",
    "tools.arguments.name_suffix",
    "tools.arguments.separator",
    "tools.arguments.value_prefix",
    "tools.arguments.value_suffix",
    "tools.call_id.prefix",
    "tools.call_id.suffix",
)


def detect_assistant_start(d: Draft) -> None:
    cmp = d.session.compare("assistant-start")
    if cmp is None:
        return
    block = cmp.diff.right
    if ASSISTANT_MSG not in block:
        d.session.note("assistant-start", "the assistant message is not in the added block")
    pos = block.find(ASSISTANT_MSG)
    opener = block if pos < 0 else block[:pos]
    for marker in (d["reasoning.start"], d["reasoning.end"]):
        if marker and trim_whitespace(marker) in opener:
            opener = opener[: opener.find(trim_whitespace(marker))]
    value = trim_whitespace(opener)
    if value:
        d.set("assistant_start", value, "assistant-start", "diff.right", "text before the assistant message")


def detect_user_start(d: Draft) -> None:
    probe = "user-start"
    cmp = d.session.compare(probe)
    if cmp is None:
        probe = "user-start.fallback"
        cmp = d.session.compare(probe)
        if cmp is None:
            return
    block = cmp.diff.right
    if USER_MSG not in block:
        d.session.note(probe, "the user message is not in the added block")
    if ASSISTANT_MSG in block:
        block = block[block.find(ASSISTANT_MSG) + len(ASSISTANT_MSG) :]
    pos = block.find(USER_MSG)
    candidate = block if pos < 0 else block[:pos]
    parts: list[str] = []
    seen_marker = False
    for seg in segmentize_markers(candidate):
        lower = seg.value.translate(_ASCII_LOWER)
        # leading end/close markers belong to the previous turn
        if seg.type is SegmentType.MARKER and not seen_marker and ("end" in lower or "close" in lower):
            continue
        if seg.type is SegmentType.TEXT and not seen_marker and not trim_whitespace(seg.value):
            continue
        seen_marker |= seg.type is SegmentType.MARKER
        parts.append(seg.value)
    value = trim_whitespace("".join(parts))
    if value:
        d.set("user_start", value, probe, "diff.right", "markers before the user message")


def collect_preserved_tokens(d: Draft) -> None:
    tokens: list[str] = []
    for name in PRESERVED_TOKEN_FIELDS:
        token = trim_whitespace(d[name])
        if token and token not in tokens:
            tokens.append(token)
    d.set("preserved_tokens", tuple(tokens), None, None, "every non-empty marker, trimmed, first kept")
