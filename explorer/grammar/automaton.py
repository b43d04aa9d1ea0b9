"""Delimiter sets -> GBNF rules from an Aho-Corasick automaton, as llama.cpp emits them.

Input: delimiters (strings) and a rule-name prefix. Output: rules, added through a
grammar builder, for "anything not containing a delimiter" (``until`` parsers) or
"anything up to and including the first delimiter" (``ac`` parsers). States are the trie
nodes in creation order; characters and buckets are visited in code point order, which
is what makes the rule text identical to llama.cpp's.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from typing import Protocol


class RuleSink(Protocol):
    def add_rule(self, name: str, rule: str) -> str: ...


class AhoCorasick:
    """Trie over code points plus failure links; ``match[s]`` >= 0 marks a match state."""

    def __init__(self, words: Sequence[str]) -> None:
        self.children: list[dict[int, int]] = [{}]
        self.pattern: list[int] = [-1]
        n_patterns = 0
        for word in words:
            node = 0
            for ch in word:
                cp = ord(ch)
                nxt = self.children[node].get(cp)
                if nxt is None:
                    nxt = len(self.children)
                    self.children.append({})
                    self.pattern.append(-1)
                    self.children[node][cp] = nxt
                node = nxt
            if self.pattern[node] < 0:
                self.pattern[node] = n_patterns
                n_patterns += 1
        self._link()

    def _link(self) -> None:
        n = len(self.children)
        self.fail = [0] * n
        order: list[int] = []
        queue = deque([0])
        while queue:
            u = queue.popleft()
            order.append(u)
            for ch, v in sorted(self.children[u].items()):
                if u != 0:
                    f = self.fail[u]
                    while f and ch not in self.children[f]:
                        f = self.fail[f]
                    target = self.children[f].get(ch)
                    self.fail[v] = target if target is not None and target != v else 0
                queue.append(v)
        self.match = [-1] * n
        for u in order:
            self.match[u] = self.pattern[u] if self.pattern[u] >= 0 else (self.match[self.fail[u]] if u else -1)
        self.alphabet = sorted({ch for kids in self.children for ch in kids})

    def next(self, state: int, ch: int) -> int:
        while state and ch not in self.children[state]:
            state = self.fail[state]
        return self.children[state].get(ch, 0)

    def is_terminal(self, state: int) -> bool:
        return self.match[state] >= 0


def escape_char_class(cp: int) -> str:
    """One code point inside a GBNF ``[...]`` class, llama.cpp's escaping."""
    if cp in (ord("-"), ord("]"), ord("["), ord("\\")):
        return "\\" + chr(cp)
    if cp == 0x0A:
        return "\\n"
    if cp == 0x09:
        return "\\t"
    if cp == 0x0D:
        return "\\r"
    if 0x20 <= cp <= 0x7E:
        return chr(cp)
    if cp <= 0xFF:
        return f"\\x{cp:02X}"
    if cp <= 0xFFFF:
        return f"\\u{cp:04X}"
    return f"\\U{cp:08X}"


def char_class(cps: Sequence[int], negate: bool) -> str:
    return ("[^" if negate else "[") + "".join(escape_char_class(c) for c in cps) + "]"


StateRule = Callable[[list[int], dict[int, list[int]], list[int], Callable[[int], str]], str]


def _ac_grammar(builder: RuleSink, prefix: str, strings: Sequence[str], build_rule: StateRule) -> str:
    ac = AhoCorasick(strings)

    def state_name(s: int) -> str:
        return prefix if s == 0 else f"{prefix}-{s:02d}"

    for q in range(len(ac.children)):
        if ac.is_terminal(q):
            continue
        buckets: dict[int, list[int]] = {}
        completing: list[int] = []
        specific: list[int] = []
        for c in ac.alphabet:
            d = ac.next(q, c)
            if ac.is_terminal(d):
                completing.append(c)
                specific.append(c)
            elif d != 0:
                buckets.setdefault(d, []).append(c)
                specific.append(c)
        builder.add_rule(state_name(q), build_rule(completing, dict(sorted(buckets.items())), specific, state_name))
    if ac.is_terminal(0):
        builder.add_rule(prefix, "|")  # an empty delimiter: the entry rule matches nothing
    return state_name(0)


def _excluding_rule(completing: list[int], buckets: dict[int, list[int]], specific: list[int],
                    state_name: Callable[[int], str]) -> str:
    rhs = "|"
    for d, chars in buckets.items():
        rhs += f" {char_class(chars, False)} {state_name(d)} |"
    return rhs + f" {char_class(specific, True)} {state_name(0)}"


def _including_rule(completing: list[int], buckets: dict[int, list[int]], specific: list[int],
                    state_name: Callable[[int], str]) -> str:
    alts = []
    if completing:
        alts.append(char_class(completing, False))
    for d, chars in buckets.items():
        alts.append(f"{char_class(chars, False)} {state_name(d)}")
    alts.append(f"{char_class(specific, True)} {state_name(0)}")
    return " | ".join(alts)


def excluding_grammar(builder: RuleSink, prefix: str, strings: Sequence[str]) -> str:
    """Rules matching text that contains none of ``strings``; returns the entry rule."""
    return _ac_grammar(builder, prefix, strings, _excluding_rule)


def including_grammar(builder: RuleSink, prefix: str, strings: Sequence[str]) -> str:
    """Rules matching text up to and including the first of ``strings``."""
    return _ac_grammar(builder, prefix, strings, _including_rule)
