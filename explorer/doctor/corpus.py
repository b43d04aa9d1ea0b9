"""The corpus a workaround lambda will live in, and the substring it keys on.

Input: the paths the user names (``.jinja`` files, or folders searched recursively for
them) and a template's text. Output: ``Corpus``: llama.cpp's own ``models/templates`` of
the build the explorer targets (0c1e5709; found at ``$TEMPLATE_EXPLORER_LLAMA_CPP`` or the
cache ``.ci/run`` fills, ``~/.cache/template-explorer/llama.cpp-0c1e5709``) plus those
files, as (name, text) pairs, and which sources it holds (``describe``); and
``choose_substring``: the shortest piece of the template (from a special-token marker, a
string literal, a comment or a distinctive line, cut to its shortest window that is as
unique) that as few other templates of the corpus hold as possible, with the names of all
that hold it (the template itself first).

A llama.cpp workaround is ``tmpl.src.find(SUBSTRING) != npos``: a substring another
template also holds patches that template too, so uniqueness is measured where the lambda
will live, never assumed; with no corpus at hand a substring is still chosen, and its
uniqueness is "not checked".
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from explorer import LLAMA_CPP_COMMIT_SHORT
from explorer.sources.model import sha256_of

LLAMA_CPP_ENV = "TEMPLATE_EXPLORER_LLAMA_CPP"  # a llama.cpp tree at the target build (what .ci/run exports)

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


def llama_cpp_templates() -> Path | None:
    """llama.cpp's ``models/templates`` of the target build, where it is on this machine."""
    root = os.environ.get(LLAMA_CPP_ENV)
    if root:
        base = Path(root)
    else:
        cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        base = Path(cache) / "template-explorer" / f"llama.cpp-{LLAMA_CPP_COMMIT_SHORT}"
    folder = base / "models" / "templates"
    return folder if folder.is_dir() else None


@dataclass(frozen=True)
class Corpus:
    """(name, text) of every template the workaround must not patch by accident, and the
    sources searched: (what, how many templates)."""

    entries: tuple[tuple[str, str], ...]
    sources: tuple[tuple[str, int], ...] = ()

    @property
    def checked(self) -> bool:
        return bool(self.entries)

    def describe(self) -> str:
        """``llama.cpp 0c1e5709's models/templates: 70; --corpus mine: 3`` ("" for none)."""
        return "; ".join(f"{what}: {n}" for what, n in self.sources)

    def holding(self, piece: str) -> tuple[str, ...]:
        return tuple(name for name, text in self.entries if piece in text)

    def name_of(self, text: str) -> str:
        sha = sha256_of(text)
        return next((name for name, other in self.entries if sha256_of(other) == sha), THIS_TEMPLATE)


def load_corpus(paths: Sequence[str] = (), *, llama_cpp: bool = True) -> Corpus:
    """llama.cpp's own templates of the target build (``llama_cpp``; when found) and every
    ``.jinja`` file of ``paths`` (files or folders)."""
    folder = llama_cpp_templates() if llama_cpp else None
    return _load(tuple(str(p) for p in paths), str(folder) if folder is not None else "")


@lru_cache(maxsize=8)
def _load(paths: tuple[str, ...], llama_cpp: str) -> Corpus:
    entries: dict[str, str] = {}
    sources: list[tuple[str, int]] = []
    named = [(f"llama.cpp {LLAMA_CPP_COMMIT_SHORT}'s models/templates", llama_cpp)] if llama_cpp else []
    for label, raw in [*named, *((f"--corpus {p}", p) for p in paths)]:
        path = Path(raw)
        files = sorted(path.rglob("*.jinja")) if path.is_dir() else [path]
        before = len(entries)
        for file in files:
            entries[file.stem] = file.read_text(encoding="utf-8")
        sources.append((label, len(entries) - before))
    return Corpus(tuple(entries.items()), tuple(sources))


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
    (this one first, named as the corpus names it or ``THIS_TEMPLATE``): the shortest
    window (at least ``MIN_LENGTH`` characters, at word edges) of a candidate piece that no
    other template holds; when every piece is held elsewhere too, the piece fewest others
    hold (then a length in [MIN_LENGTH, MAX_LENGTH], the stabler kind, the shorter).
    ``also_in``: text the piece must also be in (llama.cpp's ``src`` after its init-time
    patches); ``own``: the corpus name of the template (an edited template is not found
    by its text)."""
    own = own or corpus.name_of(text)
    others = tuple((name, other) for name, other in corpus.entries if name != own)
    blob = "\x00".join(other for _, other in others)
    best: tuple[tuple[int, int, int, int], str, tuple[str, ...]] | None = None
    unique: list[tuple[int, str]] = []
    seen: set[str] = set()
    for kind, piece in _pieces(text):
        if piece in seen or (also_in and piece not in also_in):
            continue
        seen.add(piece)
        if piece not in blob:
            unique.append((_RANK[kind], piece))
            continue
        holders = tuple(name for name, other in others if piece in other)
        fit = 0 if MIN_LENGTH <= len(piece) <= MAX_LENGTH else 1
        score = (len(holders), fit, _RANK[kind], len(piece))
        if best is None or score < best[0]:
            best = (score, piece, holders)
    if unique:
        shortest = _shortest_unique(unique, blob, also_in)
        return shortest, (own,)
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


MAX_UNIQUE_PIECES = 40  # the unique pieces whose windows are searched (the stablest, shortest first)
_EDGE = re.compile(r"[\s'\"(){}+,|\[\]<>]")
_END_CHAR = re.compile(r"[\w<>|\[\]｜]")  # a key starts and ends with a word or a marker's character


def _shortest_unique(pieces: list[tuple[int, str]], blob: str, also_in: str) -> str:
    """The shortest window that no other template holds, of the pieces of the stablest
    kind that has one (markers and the model's text before comments, comments before
    lines of code); a window starts and ends at a word's edge or a marker's."""
    rank = min(r for r, _ in pieces)
    ranked = sorted((rp for rp in pieces if rp[0] == rank), key=lambda rp: len(rp[1]))[:MAX_UNIQUE_PIECES]
    best = ranked[0][1]
    for _, piece in ranked:
        if len(piece) <= MIN_LENGTH:
            continue
        starts = [0] + [i for i in range(1, len(piece)) if _EDGE.match(piece[i - 1]) or _EDGE.match(piece[i])]
        ends = [i for i in range(1, len(piece)) if _EDGE.match(piece[i]) or _EDGE.match(piece[i - 1])] + [len(piece)]
        windows = sorted((b - a, a, b) for a in starts for b in ends if MIN_LENGTH <= b - a < len(best))
        for _, a, b in windows:
            window = piece[a:b]
            if not (_END_CHAR.match(window[0]) and _END_CHAR.match(window[-1])) or (also_in and window not in also_in):
                continue
            if window not in blob:
                best = window
                break
    return best


__all__ = ["Corpus", "LLAMA_CPP_ENV", "THIS_TEMPLATE", "choose_substring", "llama_cpp_templates", "load_corpus"]
