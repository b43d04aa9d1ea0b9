"""GBNF text -> what llama.cpp's own grammar parser refuses or loosens when the sampler loads it.

Input: a GBNF grammar (what ``common_chat_templates_apply`` hands llama-server). Output:
``GrammarLimit`` records, in rule order: the repetitions ``llama_grammar_parser`` throws on
(the grammar then fails to load: ``common_sampler_init`` raises "failed to parse grammar"
and llama-server answers the request with an error before generating), and the ones it
silently widens.

The limits are ``parse_sequence``'s (src/llama-grammar.cpp, MAX_REPETITION_THRESHOLD 2000):
``{m,...}`` with m over 2000 throws; an upper bound over 2000 becomes unbounded; and an
element's rule count times the repetition's count (n, else m) may not pass 2000. An
element stands for one rule, a parenthesised group for every symbol its parse added (its
own rule, the helper rules its repetitions generate, names first seen inside it), so
``([a-z]{0,100}){0,30}`` throws although each count is small. Only the first throw
matters (the parse stops there); it is the last record when present.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Literal

MAX_REPETITION_THRESHOLD = 2000

TOO_MANY_REPETITIONS = "number of repetitions exceeds sane defaults, please reduce the number of repetitions"
TOO_MANY_RULES = ("number of rules that are going to be repeated multiplied by the new repetition exceeds sane "
                  "defaults, please reduce the number of repetitions or rule complexity")

_COUNT = re.compile(r"\{\s*(\d+)\s*(?:(,)\s*(\d*)\s*)?\}")


@dataclass(frozen=True)
class GrammarLimit:
    rule: str
    repetition: str  # as written, e.g. "char{2500,}"
    kind: Literal["refused", "loosened"]
    message: str  # llama.cpp's own words (refused) or what happens (loosened)


def _rules(gbnf: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for line in gbnf.splitlines():
        if " ::= " in line:
            name, body = line.split(" ::= ", 1)
            out.append((name.strip(), body))
        elif out and line.strip() and not line.lstrip().startswith("#"):
            out[-1] = (out[-1][0], out[-1][1] + "\n" + line)  # a rule continued on the next line
    return out


def _skip_quoted(body: str, i: int, close: str) -> int:
    i += 1
    while i < len(body) and body[i] != close:
        i += 2 if body[i] == "\\" else 1
    return i + 1


class _Symbols:
    """llama_grammar_parser's symbol table as far as the limits care: how many names it
    holds (rule names when first seen, referenced or defined, and the rules it generates)."""

    def __init__(self) -> None:
        self.seen: set[str] = set()
        self.count = 0

    def name(self, name: str) -> None:
        if name not in self.seen:
            self.seen.add(name)
            self.count += 1


_NAME = re.compile(r"[A-Za-z0-9_-]+")


@functools.lru_cache(maxsize=32)
def grammar_limits(gbnf: str) -> tuple[GrammarLimit, ...]:
    found: list[GrammarLimit] = []
    symbols = _Symbols()
    for name, body in _rules(gbnf):
        symbols.name(name)
        groups: list[int] = []  # the symbol count when each open group began
        starts: list[int] = []  # where each open group began
        n_prev = 1  # the rules the last element stands for (parse_sequence's n_prev_rules)
        element = 0  # where the last element starts, to quote it
        i = 0
        while i < len(body):
            ch = body[i]
            if ch == "#":
                j = body.find("\n", i)
                i = len(body) if j < 0 else j
                continue
            if ch in "\"[":
                element, n_prev = i, 1
                i = _skip_quoted(body, i, '"' if ch == '"' else "]")
                continue
            if ch == "(":
                groups.append(symbols.count)
                symbols.count += 1  # the group's own rule
                starts.append(i)
            elif ch == ")" and groups:
                n_prev = max(1, symbols.count - groups.pop())
                element = starts.pop()
            elif ch == ".":
                element, n_prev = i, 1
            elif ch in "*+?{":
                low, high, end = 0, None, i + 1
                if ch == "+":
                    low = 1
                elif ch == "?":
                    high = 1
                elif ch == "{":
                    m = _COUNT.match(body, i)
                    if m is None:
                        i += 1
                        continue
                    low, end = int(m.group(1)), m.end()
                    high = low if m.group(2) is None else (int(m.group(3)) if m.group(3) else None)
                written = body[element:end].strip()
                if low > MAX_REPETITION_THRESHOLD:
                    found.append(GrammarLimit(name, written, "refused", TOO_MANY_REPETITIONS))
                    return tuple(found)
                if high is not None and high > MAX_REPETITION_THRESHOLD:
                    found.append(GrammarLimit(name, written, "loosened",
                                              f"an upper bound over {MAX_REPETITION_THRESHOLD} is dropped: the "
                                              "grammar allows any number of repetitions"))
                    high = None
                total = high if high else (low if low else 1)
                if n_prev * total > MAX_REPETITION_THRESHOLD:
                    found.append(GrammarLimit(name, written, "refused", TOO_MANY_RULES))
                    return tuple(found)
                n_prev *= total
                symbols.count += 1 if high is None else high - low  # the helper rules it generates
                i = end
                continue
            else:
                m = _NAME.match(body, i)
                if m is not None:
                    symbols.name(m.group())
                    element, n_prev = i, 1
                    i = m.end()
                    continue
            i += 1
    return tuple(found)


def refusal(gbnf: str) -> GrammarLimit | None:
    """The repetition llama.cpp's grammar parser throws on, if any."""
    limits = grammar_limits(gbnf)
    return limits[-1] if limits and limits[-1].kind == "refused" else None


__all__ = ["MAX_REPETITION_THRESHOLD", "GrammarLimit", "grammar_limits", "refusal"]
