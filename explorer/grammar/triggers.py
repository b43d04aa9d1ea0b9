"""Model output -> what a lazy grammar receives, as llama.cpp's sampler feeds it.

Input: the generated text, the grammar triggers (llama.cpp's ``{type, value}`` objects or
plain words), the generation prompt and the thinking tags. Output: a ``GrammarFeed``: the
text the grammar is given once a trigger fires, where in the output that happens, which
trigger fired, and which output ranges the fed text is made of.

The sampler hands generated text to the lazy grammar piece by piece: while no trigger has
fired the pieces collect in a buffer, and the first pattern that finds itself in the
buffer starts the grammar there (from its first non-empty capture group). When the
request has thinking tags, llama.cpp's reasoning-budget sampler holds the grammar back
inside a thinking block (entered from the generation prompt too) and replays the end tag
that closes it, which may itself be a trigger.

Pieces are single characters here (a token boundary anywhere); a replayed end tag is one
piece. The buffer is searched without re-reading it after every piece: a WORD's first
occurrence is found once, a pattern without end-of-text tests ($, \\b, lookahead) by
bisecting the buffer length (its matches only grow with the buffer), and the other
patterns (and anchored ones) step by step within ``PATTERN_WINDOW`` characters.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Trigger = str | Mapping[str, Any]

# llama.cpp searches the whole buffer after every token; a pattern that must look at the end
# of the text is searched here only in the buffer's last PATTERN_WINDOW characters, and an
# anchored one only while the buffer is shorter (every handler's patterns match far less).
PATTERN_WINDOW = 4096
_END_SENSITIVE = re.compile(r"\$|\\[ZbB]|\(\?[=!]")


@dataclass(frozen=True)
class GrammarFeed:
    """What the lazy grammar is given. ``spans`` are the output ranges (start, end) the fed
    text is made of, in order (thinking blocks left out; a replayed end tag is its own
    range); ``bounded`` when a pattern trigger was only looked for within
    ``PATTERN_WINDOW`` characters and did not fire."""

    text: str  # what the grammar receives, from the trigger on
    start: int | None  # character offset in the output where the trigger starts; None if it never fires
    trigger: int | None = None  # which of the given triggers fired (its index)
    spans: tuple[tuple[int, int], ...] = ()
    bounded: bool = False

    def output_index(self, fed: int) -> int:
        """The output character the ``fed``-th character of ``text`` came from (the end of
        the last range for an index past the text)."""
        if not self.spans:
            return self.start or 0
        ends, total = [], 0
        for a, b in self.spans:
            total += b - a
            ends.append(total)
        k = bisect.bisect_right(ends, fed)
        if k >= len(self.spans):
            return self.spans[-1][1]
        a, _ = self.spans[k]
        return a + fed - (ends[k - 1] if k else 0)


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


def _word(trigger: Trigger) -> str | None:
    if isinstance(trigger, str):
        return trigger
    return str(trigger.get("value", "")) if trigger.get("type") == "WORD" else None


def _match_start(match: re.Match[str]) -> int:
    for i in range(1, (match.re.groups or 0) + 1):
        if match.group(i):
            return match.start(i)
    return match.start()


def _pieces(output: str, generation_prompt: str, thinking: tuple[str, Sequence[str]] | None) -> list[tuple[int, int, bool]]:
    """(start, end, replay) output ranges the sampler feeds, in order: open text (one piece
    per character) and replayed end tags (one piece each). Inside a thinking block nothing
    is fed; the start tag itself is (the block begins after its last character)."""
    start_tag, end_tags = thinking or ("", ())
    tags = tuple(t for t in end_tags if t)
    if not start_tag or not tags:
        return [(0, len(output), False)] if output else []
    text, base = generation_prompt + output, len(generation_prompt)
    out: list[tuple[int, int, bool]] = []
    counting, reset, open_from = False, 0, 0
    while True:
        if not counting:
            k = text.find(start_tag, reset)
            if k < 0:
                if open_from < len(text):
                    out.append((max(open_from, base) - base, len(output), False))
                break
            end = k + len(start_tag)
            if end > base and end > open_from:
                out.append((max(open_from, base) - base, end - base, False))
            counting, reset = True, end
        else:
            found = [(k + len(t), -i, t) for i, t in enumerate(tags) if (k := text.find(t, reset)) >= 0]
            if not found:
                break
            end, _, tag = min(found)
            if end > base:  # the end tag is replayed into the grammar
                out.append((max(end - len(tag), base) - base, end - base, True))
            counting, reset, open_from = False, end, end
    return [(a, b, r) for a, b, r in out if b > a]


def _steps(pieces: list[tuple[int, int, bool]]) -> tuple[list[tuple[int, int]], list[tuple[int, int, bool]]]:
    """The fed text's segments (fed offset, output offset) and, per piece run, the buffer
    lengths after which the trigger search runs: every character of an open range, once
    after a replayed tag."""
    segments: list[tuple[int, int]] = []
    runs: list[tuple[int, int, bool]] = []  # (first fed offset, last fed offset + 1, every character)
    fed = 0
    for a, b, replay in pieces:
        segments.append((fed, a))
        runs.append((fed, fed + b - a, not replay))
        fed += b - a
    return segments, runs


def _step_at_or_after(runs: list[tuple[int, int, bool]], end: int) -> int | None:
    """The first buffer length >= ``end`` (>= 1) at which the search runs."""
    end = max(end, 1)
    for first, last, each in runs:
        if end <= last:
            return max(end, first + 1) if each else last
    return None


def _all_steps(runs: list[tuple[int, int, bool]], limit: int | None = None):
    for first, last, each in runs:
        for k in (range(first + 1, last + 1) if each else (last,)):
            if limit is not None and k > limit:
                return
            yield k


def _first_fire(regex: re.Pattern[str], fed: str, runs: list[tuple[int, int, bool]],
                word: str | None) -> tuple[int | None, int | None, bool]:
    """(buffer length when the trigger first fires, where the grammar starts, bounded)."""
    if word is not None:
        occ = fed.find(word)
        if occ < 0:
            return None, None, False
        step = _step_at_or_after(runs, occ + len(word))
        return (step, occ, False) if step is not None else (None, None, False)
    anchored = regex.pattern.startswith("^") and regex.pattern.endswith("$")
    if anchored:
        for k in _all_steps(runs, PATTERN_WINDOW):
            m = regex.fullmatch(fed, 0, k)
            if m:
                return k, _match_start(m), False
        return None, None, len(fed) > PATTERN_WINDOW
    steps = list(_all_steps(runs))
    if not _END_SENSITIVE.search(regex.pattern):
        found = _first_step(regex, fed, steps)
        if found is None:
            return None, None, False
        m = regex.search(fed, 0, found)
        return (found, _match_start(m), False) if m else (None, None, False)
    # the pattern without its trailing lookahead or $ matches wherever the pattern does: the
    # pattern cannot fire before it, and usually fires right there
    relaxed = _relaxed(regex)
    begin = 0
    if relaxed is not None:
        found = _first_step(relaxed, fed, steps)
        if found is None:
            return None, None, False
        begin = bisect.bisect_left(steps, found)
    for k in steps[begin:]:
        m = regex.search(fed, max(0, k - PATTERN_WINDOW), k)
        if m:
            return k, _match_start(m), False
    return None, None, len(fed) > PATTERN_WINDOW


def _first_step(regex: re.Pattern[str], fed: str, steps: list[int]) -> int | None:
    """The first buffer length at which a pattern without end-of-text tests matches: a match
    in a shorter buffer is a match in a longer one, so bisect."""
    m = regex.search(fed)
    if m is None or not steps:
        return None
    lo, hi = 0, min(bisect.bisect_left(steps, m.end()), len(steps) - 1)
    while lo < hi:
        mid = (lo + hi) // 2
        if regex.search(fed, 0, steps[mid]):
            hi = mid
        else:
            lo = mid + 1
    return steps[lo] if regex.search(fed, 0, steps[lo]) else None


_TRAILING = re.compile(r"(?:\(\?!(?:[^()\\]|\\.)*\)|\$)$")


def _relaxed(regex: re.Pattern[str]) -> re.Pattern[str] | None:
    m = _TRAILING.search(regex.pattern)
    head = regex.pattern[:m.start()] if m else ""
    if m is None or not head or head.endswith("\\") or _END_SENSITIVE.search(head):
        return None
    try:
        return re.compile(head, regex.flags)
    except re.error:
        return None


def lazy_feed(output: str, triggers: Sequence[Trigger], *, generation_prompt: str = "",
              thinking: tuple[str, Sequence[str]] | None = None) -> GrammarFeed:
    pieces = _pieces(output, generation_prompt, thinking)
    segments, runs = _steps(pieces)
    fed = "".join(output[a:b] for a, b, _ in pieces)
    best: tuple[int, int, int] | None = None  # (step, trigger index, where the grammar starts)
    bounded = False
    for i, trigger in enumerate(triggers):
        regex = trigger_regex(trigger)
        if regex is None:
            continue
        step, at, cut = _first_fire(regex, fed, runs, _word(trigger))
        bounded = bounded or cut
        if step is not None and at is not None and (best is None or step < best[0]):
            best = (step, i, at)
    if best is None:
        return GrammarFeed("", None, bounded=bounded)
    _, index, at = best
    k = bisect.bisect_right([s for s, _ in segments], at) - 1
    spans: list[tuple[int, int]] = []
    for j in range(k, len(pieces)):
        a, b, _ = pieces[j]
        spans.append((a + (at - segments[j][0]) if j == k else a, b))
    start = spans[0][0] if spans else len(output)
    return GrammarFeed(fed[at:], start, index, tuple((a, b) for a, b in spans if b > a) or ((start, start),))
