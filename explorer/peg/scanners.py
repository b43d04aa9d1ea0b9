"""Scanning parsers of the engine: literal, character class, JSON string, until.

Input: the shared parse context (text, length, lenient flag) and one parser's settings.
Output: a closure ``fn(pos) -> (status, start, end, nodes)`` with llama.cpp's partial-input
semantics. Each scan sets ``ctx.touched`` when its answer depends on where the text ends;
in memo mode (``progress`` given) long scans also record how far their result is final so
that a longer text resumes them instead of scanning again.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Protocol, cast

from explorer.peg.nodes import Chars

FAIL, SUCCESS, NEED_MORE_INPUT = 0, 1, 2
Raw = tuple  # (status, start, end, nodes-tuple): the engine's internal result



class EmptyMatch(Protocol):
    """``Pattern.match`` of a pattern that matches the empty string: it never returns None."""

    def __call__(self, string: str, pos: int = 0, /) -> re.Match[str]: ...


def empty_match(pattern: re.Pattern[str]) -> EmptyMatch:
    """``pattern.match`` typed as never None, for a pattern that matches the empty string
    (every run of a ``*`` repetition); any other pattern is refused."""
    if pattern.fullmatch("") is None:
        raise ValueError(f"{pattern.pattern!r} does not match the empty string")
    return cast(EmptyMatch, pattern.match)


# std::isspace in the "C" locale.
SPACE_RE = re.compile(r"[ \t\n\v\f\r]*")
match_space = empty_match(SPACE_RE)
_HEX = frozenset("0123456789abcdefABCDEF")
_ESCAPABLE = frozenset("\\/bfnrt")


class ParseContext:
    __slots__ = ("text", "n", "lenient", "touched", "depth")

    def __init__(self) -> None:
        self.text = ""
        self.n = 0
        self.lenient = True
        self.touched = False
        self.depth = 0  # rule and tag nodes open at once


def literal_scanner(ctx: ParseContext, lit: str) -> Callable[[int], Raw]:
    size = len(lit)

    def literal(pos: int) -> Raw:
        text = ctx.text
        if text.startswith(lit, pos):
            return (SUCCESS, pos, pos + size, ())
        n = ctx.n
        if pos + size > n and lit.startswith(text[pos:n]):
            ctx.touched = True
            if ctx.lenient:
                return (NEED_MORE_INPUT, pos, max(pos, n), ())
        return (FAIL, pos, pos, ())

    return literal


def _char_class_regex(p: Chars) -> re.Pattern[str] | None:
    """One character of the class as a regex, or None for a class that matches nothing."""
    if not p.ranges:
        return re.compile(r"[\s\S]", re.S) if p.negated else None
    parts = []
    for a, b in p.ranges:
        if a > b:
            continue  # an empty range contains nothing
        a, b = min(a, 0x10FFFF), min(b, 0x10FFFF)
        parts.append(f"\\U{a:08x}" if a == b else f"\\U{a:08x}-\\U{b:08x}")
    if not parts:
        return re.compile(r"[\s\S]", re.S) if p.negated else None
    return re.compile(("[^" if p.negated else "[") + "".join(parts) + "]", re.S)


def chars_scanner(ctx: ParseContext, p: Chars) -> Callable[[int], Raw]:
    lo, hi = p.min_count, p.max_count
    cls = _char_class_regex(p)
    quant = "*" if hi == -1 else f"{{0,{hi}}}"
    run = empty_match(re.compile(f"(?:{cls.pattern}){quant}", re.S)) if cls is not None else None

    def chars(pos: int) -> Raw:
        end = run(ctx.text, pos).end() if run is not None else pos
        count = end - pos
        n = ctx.n
        if end >= n and (hi == -1 or count < hi):
            # the loop met the end of the text while it still wanted characters
            ctx.touched = True
            if count >= lo:
                return (SUCCESS, pos, end, ())
            return (NEED_MORE_INPUT, pos, end, ()) if ctx.lenient else (FAIL, pos, pos, ())
        if count < lo:
            return (FAIL, pos, end, ())
        return (SUCCESS, pos, end, ())

    return chars


def string_scanner(ctx: ParseContext, delim: str, progress: dict | None) -> Callable[[int], Raw]:
    special = re.compile("[" + re.escape(delim) + r"\\]").search
    escapable = _ESCAPABLE | {delim}
    # what the loop below would read past anyway: plain characters and complete valid escapes
    plain = empty_match(re.compile(f"(?:[^{re.escape(delim)}\\\\]++|\\\\(?:[{re.escape(''.join(sorted(escapable)))}]"
                                   "|u[0-9a-fA-F]{4}))*+"))

    def string(start: int) -> Raw:
        text, n = ctx.text, ctx.n
        # the scan state is only the position: resume where a shorter text ran out
        pos = start if progress is None else progress.get(start, start)
        pos = plain(text, pos).end()
        while pos < n:
            m = special(text, pos)
            if m is None:
                pos = n
                break
            pos = m.start()
            if text[pos] == delim:
                return (SUCCESS, start, pos, ())
            save = pos
            pos += 1
            if pos >= n:
                ctx.touched = True
                if progress is not None:
                    progress[start] = save
                return (NEED_MORE_INPUT, start, save, ()) if ctx.lenient else (FAIL, start, start, ())
            c = text[pos]
            if c in escapable:
                pos += 1
                continue
            if c != "u":
                return (FAIL, start, start, ())
            pos += 1
            for _ in range(4):
                if pos >= n:
                    ctx.touched = True
                    if progress is not None:
                        progress[start] = save
                    return (NEED_MORE_INPUT, start, save, ()) if ctx.lenient else (FAIL, start, start, ())
                if text[pos] not in _HEX:
                    return (FAIL, start, start, ())
                pos += 1
        ctx.touched = True
        if progress is not None:
            progress[start] = pos
        return (NEED_MORE_INPUT if ctx.lenient else FAIL, start, pos, ())

    return string


def until_scanner(ctx: ParseContext, delimiters: tuple[str, ...], progress: dict | None) -> Callable[[int], Raw]:
    # llama.cpp quirk: an empty delimiter never matches (its trie only reports a match
    # after a character), so until("") reads to the end.
    delims = tuple(d for d in delimiters if d)
    longest = max((len(d) for d in delims), default=0)

    def until(start: int) -> Raw:
        text, n = ctx.text, ctx.n
        # positions before ``scan`` were ruled out on a shorter text, for good
        scan = start if progress is None else progress.get(start, start)
        best = n
        for d in delims:
            i = text.find(d, scan, best + len(d))
            if i != -1 and i < best:
                best = i
        tail_from = max(scan, n - longest + 1)
        # a delimiter cut short by the end of the text also stops the scan
        for p in range(tail_from, best):
            tail = text[p:]
            if any(d.startswith(tail) for d in delims):
                ctx.touched = True
                if progress is not None:
                    progress[start] = tail_from
                return (SUCCESS, start, p, ())
        if best < n:
            return (SUCCESS, start, best, ())
        ctx.touched = True
        if progress is not None:
            progress[start] = tail_from if delims else n
        return (NEED_MORE_INPUT if ctx.lenient else SUCCESS, start, n, ())

    return until
