"""Model output -> what a lazy grammar receives, as llama.cpp's sampler feeds it.

Input: the generated text, the grammar triggers (llama.cpp's ``{type, value}`` objects or
plain words), the generation prompt and the thinking tags. Output: a ``GrammarFeed``: the
text the grammar is given once a trigger fires, and where in the output that happens.

The sampler hands generated text to the lazy grammar piece by piece: while no trigger has
fired the pieces collect in a buffer, and the first pattern that finds itself in the
buffer starts the grammar there (from its first non-empty capture group). When the
request has thinking tags, llama.cpp's reasoning-budget sampler holds the grammar back
inside a thinking block (entered from the generation prompt too) and replays the end tag
that closes it, which may itself be a trigger.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Union

Trigger = Union[str, Mapping[str, Any]]


@dataclass(frozen=True)
class GrammarFeed:
    text: str  # what the grammar receives, from the trigger on
    start: int | None  # character offset in the output where the trigger starts; None if it never fires


def trigger_regex(trigger: Trigger) -> re.Pattern[str] | None:
    """A WORD is escaped, a PATTERN_FULL anchored; TOKEN triggers need a vocabulary (None)."""
    if isinstance(trigger, str):
        return re.compile(re.escape(trigger))
    kind, value = trigger.get("type"), str(trigger.get("value", ""))
    if kind == "WORD":
        return re.compile(re.escape(value))
    if kind == "PATTERN":
        return re.compile(value)
    if kind == "PATTERN_FULL":
        anchored = "^$" if not value else ("" if value[0] == "^" else "^") + value + ("" if value[-1] == "$" else "$")
        return re.compile(anchored)
    return None


def _match_start(match: re.Match[str]) -> int:
    for i in range(1, (match.re.groups or 0) + 1):
        if match.group(i):
            return match.start(i)
    return match.start()


class _ReasoningGate:
    """The reasoning-budget sampler's states as far as the grammar cares: inside a
    thinking block (counting) the grammar is skipped."""

    def __init__(self, start_tag: str, end_tags: Sequence[str]) -> None:
        self.start_tag = start_tag
        self.end_tags = tuple(t for t in end_tags if t)
        self.active = bool(start_tag) and bool(self.end_tags)
        self.counting = False
        self.recent = ""

    def open(self) -> bool:
        return not self.active or not self.counting

    def accept(self, ch: str) -> str | None:
        """Advance one character; return the end tag it completes, if any."""
        if not self.active:
            return None
        self.recent += ch
        if not self.counting:
            if self.recent.endswith(self.start_tag):
                self.counting, self.recent = True, ""
            return None
        for tag in self.end_tags:
            if self.recent.endswith(tag):
                self.counting, self.recent = False, ""
                return tag
        return None


def lazy_feed(output: str, triggers: Sequence[Trigger], *, generation_prompt: str = "",
              thinking: tuple[str, Sequence[str]] | None = None) -> GrammarFeed:
    regexes = [(r, r.pattern.startswith("^") and r.pattern.endswith("$"))
               for r in (trigger_regex(t) for t in triggers) if r is not None]
    gate = _ReasoningGate(*(thinking or ("", ())))
    for ch in generation_prompt:
        gate.accept(ch)
    buffer, offsets = "", []  # offsets: the output position of each buffered character
    fed: list[str] | None = None
    start: int | None = None
    for i, ch in enumerate(output):
        was_open = gate.open()
        ended = gate.accept(ch)
        pieces: list[tuple[str, int]] = []
        if ended is not None and not was_open:
            pieces.append((ended, i + 1 - len(ended)))  # the end tag is replayed into the grammar
        if was_open:
            pieces.append((ch, i))
        for piece, pos in pieces:
            if fed is not None:
                fed.append(piece)
                continue
            buffer += piece
            offsets.extend(range(pos, pos + len(piece)))
            for regex, anchored in regexes:
                match = regex.fullmatch(buffer) if anchored else regex.search(buffer)
                if match:
                    at = _match_start(match)
                    start = offsets[at] if at < len(offsets) else i
                    fed = [buffer[at:]]
                    break
    if fed is None:
        return GrammarFeed("", None)
    return GrammarFeed("".join(fed), start)
