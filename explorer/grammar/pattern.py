"""Anchored regex pattern (``^...$``) -> GBNF rule for a JSON string, as llama.cpp does.

Input: a JSON-schema ``pattern``, a rule name and the converter's ``add_rule``. Output:
the name of a rule matching the quoted string. Raises ``UnsupportedPattern`` (llama.cpp
falls back to any string, with a warning) or ``InvalidPattern`` (a conversion error).
"""

from __future__ import annotations

from collections.abc import Callable

from explorer.grammar.repetition import INT_MAX, build_repetition

MAX_PATTERN_DEPTH = 100
NON_LITERAL = frozenset("|.()[]{}*+?^$")
ESCAPED_IN_REGEXPS_BUT_NOT_IN_LITERALS = frozenset("^$.[]()|{}*+?")


class UnsupportedPattern(Exception):
    """A valid regex with no grammar equivalent."""


class InvalidPattern(Exception):
    """Not a valid regex."""


def gbnf_escape_length(pattern: str, pos: int) -> int:
    """Length of a GBNF-compatible escape at ``pos`` (0 when it is not one)."""
    if pos + 1 >= len(pattern) or pattern[pos] != "\\":
        return 0
    nxt = pattern[pos + 1]
    n_hex = {"x": 2, "u": 4, "U": 8}.get(nxt)
    if n_hex is None:
        return 2 if nxt in 'trn\\"[]-' else 0
    if pos + 2 + n_hex > len(pattern):
        return 0
    if not all(h in "0123456789abcdefABCDEF" for h in pattern[pos + 2:pos + 2 + n_hex]):
        return 0
    return 2 + n_hex


def _stoi(text: str) -> int:
    """``std::stoi``: leading blanks, a sign, then at least one digit."""
    s = text.lstrip(" \t\n\r\f\v")
    sign = ""
    if s[:1] in "+-" and s[:1]:
        sign, s = s[0], s[1:]
    digits = ""
    for ch in s:
        if not ("0" <= ch <= "9"):
            break
        digits += ch
    if not digits:
        raise UnsupportedPattern("invalid number in curly brackets")
    value = int(sign + digits)
    if not -(2**31) <= value <= INT_MAX:
        raise UnsupportedPattern("invalid number in curly brackets")
    return value


class _PatternTranslator:
    def __init__(self, sub_pattern: str, name: str, add_rule: Callable[[str, str], str], dotall: bool) -> None:
        self.s = sub_pattern
        self.name = name
        self.add_rule = add_rule
        self.dotall = dotall
        self.i = 0
        self.depth = 0
        self.sub_rule_ids: dict[str, str] = {}

    @staticmethod
    def to_rule(item: tuple[str, bool]) -> str:
        text, is_literal = item
        return f'"{text}"' if is_literal else text

    def join_seq(self, seq: list[tuple[str, bool]]) -> tuple[str, bool]:
        merged: list[tuple[str, bool]] = []
        literal = ""
        for text, is_literal in seq:
            if is_literal:
                literal += text
            else:
                if literal:
                    merged.append((literal, True))
                    literal = ""
                merged.append((text, False))
        if literal:
            merged.append((literal, True))
        return " ".join(self.to_rule(item) for item in merged), False

    def transform(self) -> tuple[str, bool]:  # noqa: C901 - a faithful single-pass scanner
        s, length = self.s, len(self.s)
        seq: list[tuple[str, bool]] = []
        while self.i < length:
            c = s[self.i]
            if c == ".":
                dot = "[\\U00000000-\\U0010FFFF]" if self.dotall else "[^\\x0A\\x0D]"
                seq.append((self.add_rule("dot", dot), False))
                self.i += 1
            elif c == "(":
                self.i += 1
                if self.i < length and s[self.i] == "?":
                    if self.i + 1 < length and s[self.i + 1] == ":":
                        self.i += 2
                    else:
                        raise UnsupportedPattern("unsupported group syntax")
                self.depth += 1
                if self.depth > MAX_PATTERN_DEPTH:
                    raise UnsupportedPattern("pattern nesting too deep")
                seq.append(("(" + self.to_rule(self.transform()) + ")", False))
            elif c == ")":
                self.i += 1
                if self.depth == 0:
                    raise InvalidPattern("unbalanced parentheses")
                self.depth -= 1
                return self.join_seq(seq)
            elif c in "^$":
                raise UnsupportedPattern("anchor inside the pattern")
            elif c == "[":
                seq.append((self.char_class(), False))
            elif c == "|":
                seq.append(("|", False))
                self.i += 1
            elif c in "*+?":
                if not seq:
                    raise InvalidPattern("nothing to repeat")
                seq[-1] = (self.to_rule(seq[-1]) + c, False)
                self.i += 1
            elif c == "{":
                self.curly(seq)
            else:
                seq.append((self.literal(c), True))
        return self.join_seq(seq)

    def char_class(self) -> str:
        s, length = self.s, len(self.s)
        out = "["
        self.i += 1
        while self.i < length and s[self.i] != "]":
            if s[self.i] == "\\":
                n = gbnf_escape_length(s, self.i)
                if n == 0:
                    raise UnsupportedPattern("unsupported escape in character class: " + s[self.i:self.i + 2])
                out += s[self.i:self.i + n]
                self.i += n
            else:
                out += s[self.i]
                self.i += 1
        if self.i >= length:
            raise InvalidPattern("unterminated character class")
        self.i += 1
        return out + "]"

    def curly(self, seq: list[tuple[str, bool]]) -> None:
        s, length = self.s, len(self.s)
        body = ""
        self.i += 1
        while self.i < length and s[self.i] != "}":
            body += s[self.i]
            self.i += 1
        if self.i >= length:
            raise UnsupportedPattern("unterminated curly brackets")
        self.i += 1
        nums = body.split(",")
        if len(nums) not in (1, 2):
            raise UnsupportedPattern("wrong number of values in curly brackets")
        lo, hi = 0, INT_MAX
        if len(nums) == 1:
            lo = hi = _stoi(nums[0])
        else:
            if nums[0]:
                lo = _stoi(nums[0])
            if nums[1]:
                hi = _stoi(nums[1])
        if not seq:
            raise InvalidPattern("nothing to repeat")
        sub, sub_is_literal = seq[-1]
        if not sub_is_literal:
            sub_id = self.sub_rule_ids.get(sub)
            if not sub_id:
                sub_id = self.add_rule(f"{self.name}-{len(self.sub_rule_ids) + 1}", sub)
                self.sub_rule_ids[sub] = sub_id
            sub = sub_id
        seq[-1] = (build_repetition(f'"{sub}"' if sub_is_literal else sub, lo, hi), False)

    def literal(self, c: str) -> str:
        s, length = self.s, len(self.s)
        lit = ""
        while self.i < length:
            ch = s[self.i]
            if ch == "\\":
                if self.i == length - 1:
                    raise InvalidPattern("trailing backslash")
                nxt = s[self.i + 1]
                if nxt in ESCAPED_IN_REGEXPS_BUT_NOT_IN_LITERALS:
                    lit += nxt
                    self.i += 2
                else:
                    n = gbnf_escape_length(s, self.i)
                    if n == 0:
                        raise UnsupportedPattern("unsupported escape: " + s[self.i:self.i + 2])
                    lit += s[self.i:self.i + n]
                    self.i += n
            elif ch == '"':
                lit += '\\"'
                self.i += 1
            elif ch not in NON_LITERAL and (
                self.i == length - 1 or not lit or s[self.i + 1] == "." or s[self.i + 1] not in NON_LITERAL
            ):
                lit += ch
                self.i += 1
            else:
                break
        if not lit:
            raise UnsupportedPattern("unsupported character: " + c)
        return lit


def pattern_to_rule(pattern: str, name: str, add_rule: Callable[[str, str], str], dotall: bool) -> str:
    if len(pattern) < 2 or pattern[0] != "^" or pattern[-1] != "$":
        raise UnsupportedPattern("not anchored with '^' and '$'")
    translator = _PatternTranslator(pattern[1:-1], name, add_rule, dotall)
    rule = translator.to_rule(translator.transform())
    if translator.depth != 0:
        raise InvalidPattern("unbalanced parentheses")
    return add_rule(name, '"\\"" (' + rule + ') "\\""')


__all__ = ["InvalidPattern", "UnsupportedPattern", "gbnf_escape_length", "pattern_to_rule"]
