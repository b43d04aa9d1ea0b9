"""The corpus at hand, and the substring a llama.cpp workaround keys on.

Input: the paths the user names (``.jinja`` files, or folders searched recursively for
them) and a template's text. Output: ``Corpus`` (the built-in examples plus those files,
as (name, text) pairs) and ``choose_substring``: a short, stable piece of the template (a
special-token marker, a string literal, a comment or a distinctive line) that as few other
templates of the corpus hold as possible, with the names of all that hold it (the template
itself first).

A llama.cpp workaround is ``tmpl.src.find(SUBSTRING) != npos``: a substring another
template also holds patches that template too, so uniqueness is measured, never assumed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from explorer.sources.examples import EXAMPLES_DIR, example_info
from explorer.sources.model import sha256_of

THIS_TEMPLATE = "this template"
MIN_LENGTH, MAX_LENGTH = 10, 60  # preferred substring length: long enough to be specific, short to read
SHORTEN_OVER = 100  # a longer piece (a whole line of code) is cut to a window that is as unique
_MARKER = re.compile(r"<\|[^|<>\s]{2,40}\|>|<｜[^｜<>\s]{2,40}｜>|\[[A-Z][A-Z_]{2,30}\]|</?[A-Za-z_][\w:.-]{2,30}>")
_LITERAL = re.compile(r"'([^'\\\n]{8,120})'|\"([^\"\\\n]{8,120})\"")
_COMMENT = re.compile(r"\{#-?\s*(.*?)\s*-?#\}", re.S)
_CODE = re.compile(r"\s\+\s|\+\s*$|^\s*\+|\{\{|\}\}|\{%|%\}|\|\s*\w+\s*$")  # code between two literals
_JINJA_ONLY = re.compile(r"^(\{%-?\s*(end\w+|else|(?:elif|if|for|set)\b[^%]*)\s*-?%\}\s*)+$")
# How stable each kind of piece is: model text and markers survive template revisions better than code.
_RANK = {"marker": 0, "literal": 1, "comment": 2, "line": 3}


@dataclass(frozen=True)
class Corpus:
    """(name, text) of every template the workaround must not patch by accident."""

    entries: tuple[tuple[str, str], ...]

    def holding(self, piece: str) -> tuple[str, ...]:
        return tuple(name for name, text in self.entries if piece in text)

    def name_of(self, text: str) -> str:
        sha = sha256_of(text)
        return next((name for name, other in self.entries if sha256_of(other) == sha), THIS_TEMPLATE)


def load_corpus(paths: Sequence[str] = ()) -> Corpus:
    """The built-in examples and every ``.jinja`` file of ``paths`` (files or folders)."""
    return _load(tuple(str(p) for p in paths))


@lru_cache(maxsize=8)
def _load(paths: tuple[str, ...]) -> Corpus:
    entries: dict[str, str] = {}
    for info in example_info():
        entries[f"example {info.name}"] = (EXAMPLES_DIR / info.file).read_text(encoding="utf-8")
    for raw in paths:
        path = Path(raw)
        files = sorted(path.rglob("*.jinja")) if path.is_dir() else [path]
        for file in files:
            entries[file.stem] = file.read_text(encoding="utf-8")
    return Corpus(tuple(entries.items()))


def _pieces(text: str) -> Iterator[tuple[str, str]]:
    """(kind, piece) candidates from the template, most stable kinds first."""
    for m in _MARKER.finditer(text):
        yield "marker", m.group(0)
    for m in _LITERAL.finditer(text):
        piece = m.group(1) or m.group(2)
        if piece.strip() and not _CODE.search(piece):
            yield "literal", piece
    for m in _COMMENT.finditer(text):
        for line in m.group(1).splitlines():
            if len(line.strip()) >= MIN_LENGTH:
                yield "comment", line.strip()
    for line in text.splitlines():
        line = line.strip()
        if len(line) >= MIN_LENGTH and re.search(r"[A-Za-z]{3}", line) and not _JINJA_ONLY.match(line):
            yield "line", line


def choose_substring(text: str, corpus: Corpus, *, also_in: str = "", own: str = "") -> tuple[str, tuple[str, ...]]:
    """The substring to key a workaround on and every template of the corpus holding it
    (this one first, named as the corpus names it or ``THIS_TEMPLATE``). Fewest other
    holders first, then a length in [MIN_LENGTH, MAX_LENGTH], then the stabler kind, then
    the shorter piece. ``also_in``: text the piece must also be in (llama.cpp's ``src``
    after its init-time patches); ``own``: the corpus name of the template (an edited
    template is not found by its text)."""
    own = own or corpus.name_of(text)
    others = tuple((name, other) for name, other in corpus.entries if name != own)
    best: tuple[tuple[int, int, int, int], str, tuple[str, ...]] | None = None
    seen: set[str] = set()
    for kind, piece in _pieces(text):
        if piece in seen or (also_in and piece not in also_in):
            continue
        seen.add(piece)
        holders = tuple(name for name, other in others if piece in other)
        fit = 0 if MIN_LENGTH <= len(piece) <= MAX_LENGTH else 1
        score = (len(holders), fit, _RANK[kind], len(piece))
        if best is None or score < best[0]:
            best = (score, piece, holders)
    if best is None:
        return "", ()
    piece, holders = best[1], best[2]
    if len(piece) > SHORTEN_OVER:
        piece = _shortened(piece, holders, others, also_in)
    return piece, (own, *holders)


def _shortened(piece: str, holders: tuple[str, ...], others: tuple[tuple[str, str], ...], also_in: str) -> str:
    """The shortest window of ``piece`` (20 to MAX_LENGTH characters) held by no more
    templates; a window starts and ends at a word's edge, so it reads as a piece of text."""
    edge = re.compile(r"[\s'\"(){}+,|]")
    starts = [0] + [i for i in range(1, len(piece)) if edge.match(piece[i - 1]) and not edge.match(piece[i])]
    ends = [i for i in range(1, len(piece)) if edge.match(piece[i]) and not edge.match(piece[i - 1])] + [len(piece)]
    windows = sorted((b - a, a, b) for a in starts for b in ends if 20 <= b - a <= MAX_LENGTH)
    for _, a, b in windows:
        window = piece[a:b]
        if also_in and window not in also_in:
            continue
        if all(name in holders for name, other in others if window in other):
            return window
    return piece


__all__ = ["Corpus", "THIS_TEMPLATE", "choose_substring", "load_corpus"]
