"""A minimal tagged PEG matcher: the small extraction parsers the analyzers use.

Input: a pattern built from the combinators below and a byte string (UTF-8 bytes
spelled as latin-1 characters). Output: ``Match`` (success flag and the tag texts).

It mirrors the semantics of llama.cpp's PEG engine in non-partial mode, which is all
the autoparser's analysis uses: literals compare bytes, ``any`` takes one UTF-8 code
point (failing on invalid bytes), ``space`` eats C whitespace, ``until`` stops before
the first delimiter or before a tail that is a proper prefix of a delimiter, a
repetition stops at end of input or on an empty match (dropping that match's tags),
and the tags are those of the successful path, the last one written winning.
``parse_anywhere`` tries every start position in order and keeps the first success.
This is not the project's PEG engine (``explorer.peg``); it only extracts markers.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from explorer.analysis.diff import WHITESPACE

Tags = tuple[tuple[str, str], ...]
Result = tuple[int, Tags] | None
_NO_TAGS: Tags = ()


@dataclass(frozen=True)
class Match:
    success: bool
    tags: dict[str, str] = field(default_factory=dict)

    def tag(self, name: str) -> str:
        """The tag's text, or "" (a missing key reads as empty, as in the reference)."""
        return self.tags.get(name, "")


def cp_len(s: str, pos: int) -> tuple[bool, int]:
    """Decode one UTF-8 code point at pos: (valid, bytes consumed)."""
    c = ord(s[pos])
    if c < 0x80:
        return True, 1
    if not c & 0x40:
        return False, 1
    need = 1 if not c & 0x20 else 2 if not c & 0x10 else 3 if not c & 0x08 else -1
    if need < 0:
        return False, 1
    n = len(s)
    for i in range(1, need + 1):
        if pos + i >= n:
            return False, i
        if ord(s[pos + i]) & 0xC0 != 0x80:
            return False, i
    return True, need + 1


def _is_valid(s: str) -> bool:
    if s.isascii():
        return True
    try:
        s.encode("latin-1").decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


class _Input:
    __slots__ = ("s", "n", "valid")

    def __init__(self, s: str) -> None:
        self.s = s
        self.n = len(s)
        self.valid = _is_valid(s)


class P:
    """A parser. ``firsts``: the characters a match can start with (None: any/empty)."""

    firsts: frozenset[str] | None = None

    def parse(self, inp: _Input, pos: int) -> Result:  # pragma: no cover - abstract
        raise NotImplementedError

    def __add__(self, other: P | str) -> P:
        return seq(self, other)

    def __radd__(self, other: str) -> P:
        return seq(other, self)

    def __or__(self, other: P | str) -> P:
        return choice(self, other)

    def match(self, text: str) -> Match:
        """``parse_and_extract``: one attempt at position 0."""
        return _to_match(self.parse(_Input(text), 0))

    def match_anywhere(self, text: str) -> Match:
        """``parse_anywhere_and_extract``: the first start position that succeeds."""
        if not text:
            return self.match(text)
        inp = _Input(text)
        firsts = self.firsts
        s = inp.s
        if firsts is None:
            lead = _leading_scan(self)
            i = 0
            while i < inp.n:
                r = self.parse(inp, i)
                if r is not None:
                    return _to_match(r)
                # Every start up to where a leading scan stops ends that scan at the
                # same place and fails the same way: resume just after it.
                i = max(i, lead.parse(inp, i)[0]) + 1 if lead is not None else i + 1
            return Match(False)
        candidates = sorted(i for ch in firsts for i in _find_all(s, ch))
        for i in candidates:
            r = self.parse(inp, i)
            if r is not None:
                return _to_match(r)
        return Match(False)


def _leading_scan(p: P) -> Until | ScanUntil | None:
    """The scan (``until`` / ``zero_or_more(negate ... any)``) a pattern starts with."""
    while True:
        if isinstance(p, (Until, ScanUntil)):
            return p
        if isinstance(p, Tag):
            p = p.child
        elif isinstance(p, Seq) and p.parts:
            p = p.parts[0]
        else:
            return None


def _find_all(s: str, ch: str) -> Iterator[int]:
    i = s.find(ch)
    while i >= 0:
        yield i
        i = s.find(ch, i + 1)


def _to_match(r: Result) -> Match:
    if r is None:
        return Match(False)
    return Match(True, dict(r[1]))


def _lift(p: P | str) -> P:
    return Lit(p) if isinstance(p, str) else p


class Lit(P):
    def __init__(self, text: str) -> None:
        self.text = text
        self.firsts = frozenset(text[0]) if text else None

    def parse(self, inp: _Input, pos: int) -> Result:
        if inp.s.startswith(self.text, pos):
            return pos + len(self.text), _NO_TAGS
        return None


class Seq(P):
    def __init__(self, parts: list[P]) -> None:
        self.parts = parts
        self.firsts = parts[0].firsts if parts else None

    def parse(self, inp: _Input, pos: int) -> Result:
        tags: Tags = _NO_TAGS
        for part in self.parts:
            r = part.parse(inp, pos)
            if r is None:
                return None
            pos, t = r
            if t:
                tags = tags + t
        return pos, tags


class Choice(P):
    def __init__(self, options: list[P]) -> None:
        self.options = options
        fs = [o.firsts for o in options]
        known = [f for f in fs if f is not None]
        self.firsts = frozenset[str]().union(*known) if len(known) == len(fs) else None

    def parse(self, inp: _Input, pos: int) -> Result:
        for option in self.options:
            r = option.parse(inp, pos)
            if r is not None:
                return r
        return None


class Rep(P):
    def __init__(self, child: P, lo: int, hi: int) -> None:
        self.child, self.lo, self.hi = child, lo, hi
        self.firsts = child.firsts if lo > 0 else None

    def parse(self, inp: _Input, pos: int) -> Result:
        count = 0
        tags: Tags = _NO_TAGS
        while self.hi < 0 or count < self.hi:
            if pos >= inp.n:
                break
            r = self.child.parse(inp, pos)
            if r is None or r[0] == pos:
                break
            pos, t = r
            if t:
                tags = tags + t
            count += 1
        if count < self.lo:
            return None
        return pos, tags


class Not(P):
    def __init__(self, child: P) -> None:
        self.child = child

    def parse(self, inp: _Input, pos: int) -> Result:
        return None if self.child.parse(inp, pos) is not None else (pos, _NO_TAGS)


class Any(P):
    def parse(self, inp: _Input, pos: int) -> Result:
        if pos >= inp.n:
            return None
        ok, size = cp_len(inp.s, pos)
        return (pos + size, _NO_TAGS) if ok else None


class Space(P):
    def parse(self, inp: _Input, pos: int) -> Result:
        s, n = inp.s, inp.n
        while pos < n and s[pos] in WHITESPACE:
            pos += 1
        return pos, _NO_TAGS


class End(P):
    def parse(self, inp: _Input, pos: int) -> Result:
        return (pos, _NO_TAGS) if pos >= inp.n else None


class Until(P):
    """Everything before the first delimiter (or before a tail that starts one)."""

    def __init__(self, delimiters: list[str]) -> None:
        self.delims = [d for d in delimiters if d]

    def parse(self, inp: _Input, pos: int) -> tuple[int, Tags]:  # a scan never fails
        if not self.delims:
            return inp.n, _NO_TAGS
        if inp.valid:
            return self._fast(inp, pos), _NO_TAGS
        return self._exact(inp, pos), _NO_TAGS

    def _fast(self, inp: _Input, pos: int) -> int:
        s, n = inp.s, inp.n
        stop = n
        for d in self.delims:
            i = s.find(d, pos)
            if 0 <= i < stop:
                stop = i
            # a tail of the input that is a proper prefix of the delimiter
            for k in range(min(len(d) - 1, n - pos), 0, -1):
                if n - k >= stop:
                    break
                if d.startswith(s[n - k :]):
                    stop = n - k
                    break
        return stop

    def _exact(self, inp: _Input, pos: int) -> int:
        s, n = inp.s, inp.n
        while pos < n:
            ok, size = cp_len(s, pos)
            if not ok:
                pos += size
                continue
            if self._delimiter_at(inp, pos):
                return pos
            pos += size
        return n

    def _delimiter_at(self, inp: _Input, pos: int) -> bool:
        """The trie check: a complete match, or a partial one cut by end/invalid bytes."""
        s, n = inp.s, inp.n
        for d in self.delims:
            i = 0
            p = pos
            while i < len(d):
                if p >= n:
                    if i > 0:
                        return True
                    break
                ok, size = cp_len(s, p)
                if not ok:
                    if i > 0:
                        return True
                    break
                if s[p : p + size] != d[i : i + size]:
                    break
                p += size
                i += size
            else:
                return True
        return False


class MarkerP(P):
    """``<...>`` or ``[...]`` (llama.cpp's ``marker()``)."""

    firsts = frozenset("<[")

    def parse(self, inp: _Input, pos: int) -> Result:
        if pos >= inp.n:
            return None
        c = inp.s[pos]
        closer = ">" if c == "<" else "]" if c == "[" else None
        if closer is None:
            return None
        j = inp.s.find(closer, pos + 1)
        return (j + 1, _NO_TAGS) if j >= 0 else None


class Tag(P):
    def __init__(self, name: str, child: P) -> None:
        self.name, self.child = name, child
        self.firsts = child.firsts

    def parse(self, inp: _Input, pos: int) -> Result:
        r = self.child.parse(inp, pos)
        if r is None:
            return None
        end, tags = r
        text = inp.s[pos:end] if pos < inp.n else ""
        return end, ((self.name, text),) + tags


class ScanUntil(P):
    """``zero_or_more(negate(a) + negate(b) + ... + any())``, skipping ahead fast."""

    def __init__(self, stops: list[P]) -> None:
        self.stops = stops
        fs = [p.firsts for p in stops]
        known = [f for f in fs if f is not None]
        self.stop_firsts = frozenset[str]().union(*known) if len(known) == len(fs) else None

    def parse(self, inp: _Input, pos: int) -> tuple[int, Tags]:  # a scan never fails
        s, n = inp.s, inp.n
        firsts = self.stop_firsts
        while pos < n:
            if firsts is not None and inp.valid and s[pos] not in firsts:
                # any() succeeds on every code point of valid text: jump to a candidate
                nxt = min((j for j in (s.find(ch, pos) for ch in firsts) if j >= 0), default=n)
                if nxt == n:
                    return n, _NO_TAGS
                pos = nxt
            if any(p.parse(inp, pos) is not None for p in self.stops):
                break
            ok, size = cp_len(s, pos)
            if not ok:
                break
            pos += size
        return pos, _NO_TAGS


# --- builder vocabulary (the reference's names) -------------------------------


def lit(text: str) -> P:
    return Lit(text)


def seq(*parts: P | str) -> P:
    flat: list[P] = []
    for part in parts:
        p = _lift(part)
        if isinstance(p, Seq):
            flat.extend(p.parts)
        else:
            flat.append(p)
    return Seq(flat)


def choice(*options: P | str) -> P:
    return Choice([_lift(o) for o in options])


def optional(p: P | str) -> P:
    return Rep(_lift(p), 0, 1)


def zero_or_more(p: P | str) -> P:
    return Rep(_lift(p), 0, -1)


def negate(p: P | str) -> P:
    return Not(_lift(p))


def tag(name: str, p: P | str) -> P:
    return Tag(name, _lift(p))


def until(delimiter: str) -> P:
    return Until([delimiter])


def until_one_of(*delimiters: str) -> P:
    return Until(list(delimiters))


def scan_until(*stops: P | str) -> P:
    return ScanUntil([_lift(s) for s in stops])


ANY = Any()
SPACE = Space()
END = End()
REST = Until([])
MARKER = MarkerP()
# zero_or_more(negate(marker()) + any()): the text up to the next marker
NON_MARKER_TEXT = ScanUntil([MARKER])
# marker() + zero_or_more(negate(marker()) + any()) + end(): the last marker and its tail
LAST_MARKER = seq(MARKER, NON_MARKER_TEXT, END)


_FIND_LAST = seq(scan_until(LAST_MARKER), tag("m", MARKER))
_FIND_FIRST = tag("m", MARKER)


def find_last_marker(text: str) -> str:
    """The last marker in text (nothing but plain text after it), or ""."""
    return _FIND_LAST.match_anywhere(text).tag("m")


def find_first_marker(text: str) -> str:
    return _FIND_FIRST.match_anywhere(text).tag("m")


def last_marker_and_tail(text: str, tag_name: str) -> Match:
    """``zero_or_more(negate(last) + any()) + tag(last)`` with last = marker + text + end."""
    return seq(scan_until(LAST_MARKER), tag(tag_name, LAST_MARKER)).match(text)
