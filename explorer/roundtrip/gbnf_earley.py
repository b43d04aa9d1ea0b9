"""A plain character-level GBNF recognizer, to confirm a grammar's refusal independently.

Input: GBNF text (llama.cpp's dialect: literals, character classes, groups, ``?`` ``*``
``+`` ``{m,n}``, rule references) and a text. Output: whether the ``root`` rule derives
the whole text, and how many characters a derivation could still extend over.

llama.cpp's grammar engine reads a grammar character by character with no lexer. The
verdicts elsewhere come from llguidance, which splits a grammar into lexemes first; when
llguidance refuses a reply this recognizer (an Earley parser, slow but exact) says
whether the grammar itself refuses it, or only llguidance's reading of it does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from explorer.errors import GrammarError

Symbol = tuple  # ("c", ranges, negated) | ("r", name)


@dataclass(frozen=True)
class Recognition:
    accepted: bool
    consumed: int  # characters some derivation could still cover


_ESC = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", '"': '"', "[": "[", "]": "]", "-": "-", "/": "/", "^": "^"}


class _Reader:
    def __init__(self, text: str) -> None:
        self.text, self.pos = text, 0
        self.rules: dict[str, list[list[Symbol]]] = {}
        self.aux = 0

    def error(self, what: str) -> GrammarError:
        return GrammarError(f"GBNF: expected {what} at offset {self.pos}, found {self.text[self.pos:self.pos + 20]!r}")

    def skip(self, newlines: bool) -> None:
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            if ch == "#":
                while self.pos < len(self.text) and self.text[self.pos] != "\n":
                    self.pos += 1
            elif ch in " \t" or (newlines and ch in "\r\n"):
                self.pos += 1
            else:
                break

    def char(self) -> str:
        ch = self.text[self.pos]
        if ch != "\\":
            self.pos += 1
            return ch
        nxt = self.text[self.pos + 1]
        if nxt in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[nxt]
            value = int(self.text[self.pos + 2:self.pos + 2 + width], 16)
            self.pos += 2 + width
            return chr(value)
        self.pos += 2
        return _ESC.get(nxt, nxt)

    def new_rule(self, alts: list[list[Symbol]]) -> Symbol:
        self.aux += 1
        name = f"\0aux{self.aux}"
        self.rules[name] = alts
        return ("r", name)

    def alternatives(self) -> list[list[Symbol]]:
        alts = [self.sequence()]
        while self.pos < len(self.text) and self.text[self.pos] == "|":
            self.pos += 1
            self.skip(True)
            alts.append(self.sequence())
        return alts

    def sequence(self) -> list[Symbol]:
        seq: list[Symbol] = []
        while True:
            self.skip(False)
            if self.pos >= len(self.text):
                return seq
            ch = self.text[self.pos]
            if ch in "|)\r\n":
                if ch in "\r\n":
                    save = self.pos
                    self.skip(True)
                    # a rule continues on the next line unless that line starts a new rule
                    if re.match(r"[A-Za-z0-9_-]+\s*::=", self.text[self.pos:]) or self.pos >= len(self.text):
                        self.pos = save
                        return seq
                    continue
                return seq
            start = len(seq)
            if ch == '"':
                self.pos += 1
                while self.text[self.pos] != '"':
                    c = self.char()
                    seq.append(("c", ((c, c),), False))
                self.pos += 1
            elif ch == "[":
                self.pos += 1
                negated = self.text[self.pos] == "^"
                self.pos += negated
                ranges = []
                while self.text[self.pos] != "]":
                    lo = self.char()
                    hi = lo
                    if self.text[self.pos] == "-" and self.text[self.pos + 1] != "]":
                        self.pos += 1
                        hi = self.char()
                    ranges.append((lo, hi))
                self.pos += 1
                seq.append(("c", tuple(ranges), negated))
            elif ch == "(":
                self.pos += 1
                self.skip(True)
                alts = self.alternatives()
                if self.text[self.pos] != ")":
                    raise self.error("')'")
                self.pos += 1
                seq.append(self.new_rule(alts))
            elif ch == ".":
                self.pos += 1
                seq.append(("c", (), True))
            else:
                m = re.match(r"[A-Za-z0-9_-]+", self.text[self.pos:])
                if not m:
                    raise self.error("a rule element")
                self.pos += m.end()
                seq.append(("r", m.group()))
            self.postfix(seq, start)

    def postfix(self, seq: list[Symbol], start: int) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in "?*+{":
            item = seq[start:]
            del seq[start:]
            op = self.text[self.pos]
            if op == "{":
                m = re.match(r"\{\s*(\d+)\s*(,\s*(\d*)\s*)?\}", self.text[self.pos:])
                if not m:
                    raise self.error("a repetition {m,n}")
                self.pos += m.end()
                lo = int(m.group(1))
                hi = lo if m.group(2) is None else (int(m.group(3)) if m.group(3) else None)
            else:
                self.pos += 1
                lo, hi = {"?": (0, 1), "*": (0, None), "+": (1, None)}[op]
            seq.extend(self.repeat(item, lo, hi))
            start = len(seq) - 1 if seq else 0
            seq[start:] = [self.new_rule([seq[start:]])] if seq[start:] else []

    def repeat(self, item: list[Symbol], lo: int, hi: int | None) -> list[Symbol]:
        out = item * lo
        if hi is None:
            star = self.new_rule([[]])
            self.rules[star[1]].append(item + [star])
            return out + [star]
        tail: Symbol | None = None
        for _ in range(hi - lo):
            tail = self.new_rule([[], item + ([tail] if tail else [])])
        return out + ([tail] if tail else [])

    def grammar(self) -> dict[str, list[list[Symbol]]]:
        while True:
            self.skip(True)
            if self.pos >= len(self.text):
                return self.rules
            m = re.match(r"([A-Za-z0-9_-]+)\s*::=", self.text[self.pos:])
            if not m:
                raise self.error("'name ::='")
            self.pos += m.end()
            self.skip(True)
            self.rules[m.group(1)] = self.alternatives()


def parse_gbnf(text: str) -> dict[str, list[list[Symbol]]]:
    rules = _Reader(text).grammar()
    if "root" not in rules:
        raise GrammarError("GBNF: no root rule")
    return rules


def _nullable(rules: dict[str, list[list[Symbol]]]) -> set[str]:
    out: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, alts in rules.items():
            if name not in out and any(all(s[0] == "r" and s[1] in out for s in alt) for alt in alts):
                out.add(name)
                changed = True
    return out


def _matches(sym: Symbol, ch: str) -> bool:
    inside = any(lo <= ch <= hi for lo, hi in sym[1])
    return inside != sym[2]


def recognize(gbnf: str, text: str) -> Recognition:
    rules = parse_gbnf(gbnf)
    for alts in rules.values():
        for alt in alts:
            for s in alt:
                if s[0] == "r" and s[1] not in rules:
                    raise GrammarError(f"GBNF: undefined rule {s[1]!r}")
    nullable = _nullable(rules)
    # an item: (rule, alternative index, dot, origin)
    sets: list[set[tuple[str, int, int, int]]] = [set() for _ in range(len(text) + 1)]
    sets[0] = {("root", i, 0, 0) for i in range(len(rules["root"]))}
    last = 0
    for k in range(len(text) + 1):
        agenda = list(sets[k])
        if not agenda:
            break
        last = k
        while agenda:
            name, ai, dot, origin = agenda.pop()
            alt = rules[name][ai]
            if dot == len(alt):
                for item in list(sets[origin]):
                    n2, a2, d2, o2 = item
                    alt2 = rules[n2][a2]
                    if d2 < len(alt2) and alt2[d2] == ("r", name):
                        new = (n2, a2, d2 + 1, o2)
                        if new not in sets[k]:
                            sets[k].add(new)
                            agenda.append(new)
                continue
            sym = alt[dot]
            if sym[0] == "r":
                for i in range(len(rules[sym[1]])):
                    new = (sym[1], i, 0, k)
                    if new not in sets[k]:
                        sets[k].add(new)
                        agenda.append(new)
                if sym[1] in nullable:
                    new = (name, ai, dot + 1, origin)
                    if new not in sets[k]:
                        sets[k].add(new)
                        agenda.append(new)
            elif k < len(text) and _matches(sym, text[k]):
                sets[k + 1].add((name, ai, dot + 1, origin))
    done = any(n == "root" and d == len(rules["root"][a]) and o == 0 for n, a, d, o in sets[len(text)])
    return Recognition(done, last)
