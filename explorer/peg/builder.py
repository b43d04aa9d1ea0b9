"""Build arenas in code, like llama.cpp's ``common_peg_parser_builder``.

Input: calls such as ``b.sequence([b.literal("<think>"), b.until("</think>")])``; every
call returns the new parser's id. Output: ``b.build()`` gives a frozen ``Arena`` with
references resolved, shaped as llama.cpp would build it (nested sequences and choices
flattened, rule names cleaned, recursive rules through placeholders). Used for the
content-only fallback parser and for tests ported from llama.cpp's test vectors.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import replace

from explorer.errors import PegError
from explorer.peg.arena import Arena
from explorer.peg.nodes import (
    INVALID_PARSER_ID, Ac, And, AnyChar, Atomic, Chars, Choice, End, Epsilon, Gbnf, Literal,
    Not, ParserNode, Ref, Repetition, Rule, Schema, Sequence, Space, Start, String, Tag, Until,
)

_RULE_NAME_BAD = re.compile(r"[^a-zA-Z0-9-]+")
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "]": "]", "[": "["}


def _hex(content: str, pos: int, count: int) -> int | None:
    digits = content[pos:pos + count]
    if len(digits) != count or any(c not in "0123456789abcdefABCDEF" for c in digits):
        return None
    return int(digits, 16)


def _class_char(content: str, pos: int) -> tuple[int, int]:
    """One (possibly escaped) character of a class: its code point and length."""
    if content[pos] == "\\" and pos + 1 < len(content):
        esc = content[pos + 1]
        widths = {"x": 2, "u": 4, "U": 8}
        if esc in widths:
            value = _hex(content, pos + 2, widths[esc])
            return (value, 2 + widths[esc]) if value is not None else (ord(esc), 2)
        return ord(_SIMPLE_ESCAPES.get(esc, esc)), 2
    return ord(content[pos]), 1


def parse_char_classes(classes: str) -> tuple[tuple[tuple[int, int], ...], bool]:
    """``[a-z\\n]`` style classes to code point ranges and a negation flag."""
    content = classes
    if content.startswith("["):
        content = content[1:]
    if content.endswith("]"):
        content = content[:-1]
    negated = content.startswith("^")
    if negated:
        content = content[1:]
    ranges: list[tuple[int, int]] = []
    i = 0
    while i < len(content):
        start, size = _class_char(content, i)
        i += size
        if i + 1 < len(content) and content[i] == "-":
            end, end_size = _class_char(content, i + 1)
            ranges.append((start, end))
            i += 1 + end_size
        else:
            ranges.append((start, start))
    return tuple(ranges), negated


class Builder:
    """Collects parser nodes; ``build()`` returns the arena."""

    def __init__(self) -> None:
        self._parsers: list[ParserNode] = []
        self._rules: dict[str, int] = {}
        self._root = INVALID_PARSER_ID

    def add(self, node: ParserNode) -> int:
        self._parsers.append(node)
        return len(self._parsers) - 1

    # --- primitives --------------------------------------------------------------------

    def eps(self) -> int:
        return self.add(Epsilon())

    def start(self) -> int:
        return self.add(Start())

    def end(self) -> int:
        return self.add(End())

    def literal(self, text: str) -> int:
        return self.add(Literal(text))

    def any(self) -> int:
        return self.add(AnyChar())

    def space(self) -> int:
        return self.add(Space())

    def chars(self, classes: str, min_count: int = 1, max_count: int = -1) -> int:
        ranges, negated = parse_char_classes(classes)
        return self.add(Chars(classes, ranges, negated, min_count, max_count))

    def until(self, delimiter: str) -> int:
        return self.add(Until((delimiter,)))

    def until_one_of(self, delimiters: Iterable[str]) -> int:
        return self.add(Until(tuple(delimiters)))

    def rest(self) -> int:
        return self.until_one_of(())

    def string_content(self, delimiter: str) -> int:
        return self.add(String(delimiter))

    def ref(self, name: str) -> int:
        return self.add(Ref(name))

    # --- combinators -------------------------------------------------------------------

    def _flatten(self, ids: Iterable[int], kind: type) -> tuple[int, ...]:
        flat: list[int] = []
        for pid in ids:
            node = self._parsers[pid]
            flat.extend(node.children if isinstance(node, kind) else (pid,))  # type: ignore[attr-defined]
        return tuple(flat)

    def sequence(self, ids: Iterable[int] = ()) -> int:
        return self.add(Sequence(self._flatten(ids, Sequence)))

    def choice(self, ids: Iterable[int] = ()) -> int:
        return self.add(Choice(self._flatten(ids, Choice)))

    def repeat(self, pid: int, min_count: int, max_count: int | None = None) -> int:
        return self.add(Repetition(pid, min_count, min_count if max_count is None else max_count))

    def one_or_more(self, pid: int) -> int:
        return self.repeat(pid, 1, -1)

    def zero_or_more(self, pid: int) -> int:
        return self.repeat(pid, 0, -1)

    def optional(self, pid: int) -> int:
        return self.repeat(pid, 0, 1)

    def peek(self, pid: int) -> int:
        return self.add(And(pid))

    def negate(self, pid: int) -> int:
        return self.add(Not(pid))

    def atomic(self, pid: int) -> int:
        return self.add(Atomic(pid))

    def tag(self, tag: str, pid: int) -> int:
        return self.add(Tag(pid, tag))

    def gbnf(self, pid: int, grammar: str) -> int:
        return self.add(Gbnf(pid, grammar))

    def ac(self, pid: int, delimiters: Iterable[str]) -> int:
        delims = tuple(delimiters)
        if not delims:
            raise PegError("ac parser requires at least one delimiter")
        return self.add(Ac(pid, delims))

    def schema(self, pid: int, name: str, raw: bool = False) -> int:
        return self.add(Schema(pid, name, raw))

    def rule(self, name: str, body: int | Callable[[], int], trigger: bool = False) -> int:
        """A named rule; returns a ref to it. A callable body may refer to the rule itself."""
        clean = _RULE_NAME_BAD.sub("-", name)
        if callable(body):
            if clean in self._rules:
                return self.ref(clean)
            placeholder = self.any()
            self._rules[clean] = self.add(Rule(clean, placeholder, trigger))
            body = body()
        self._rules[clean] = self.add(Rule(clean, body, trigger))
        return self.ref(clean)

    def trigger_rule(self, name: str, body: int | Callable[[], int]) -> int:
        return self.rule(name, body, trigger=True)

    # --- composite helpers (as in llama.cpp) -----------------------------------------

    def _quoted(self, name: str, quote: str) -> int:
        return self.rule(name, lambda: self.sequence(
            [self.literal(quote), self.string_content(quote), self.literal(quote)]))

    def double_quoted_string(self) -> int:
        return self._quoted("double-quoted-string", '"')

    def single_quoted_string(self) -> int:
        return self._quoted("single-quoted-string", "'")

    def quoted_string(self) -> int:
        return self.rule("quoted-string", lambda: self.choice(
            [self.double_quoted_string(), self.single_quoted_string()]))

    def json_number(self) -> int:
        def body() -> int:
            int_part = self.choice([self.literal("0"), self.sequence(
                [self.chars("[1-9]", 1, 1), self.chars("[0-9]", 0, -1)])])
            frac = self.sequence([self.literal("."), self.chars("[0-9]")])
            exp = self.sequence([self.choice([self.literal("e"), self.literal("E")]),
                                 self.optional(self.chars("[+-]", 1, 1)), self.chars("[0-9]")])
            stop = self.negate(self.chars("[0-9.eE+-]", 1, 1))
            return self.sequence([self.optional(self.literal("-")), int_part,
                                  self.optional(frac), self.optional(exp), stop])
        return self.rule("json-number", body)

    def json_string(self) -> int:
        return self._quoted("json-string", '"')

    def json_bool(self) -> int:
        return self.rule("json-bool", lambda: self.choice([self.literal("true"), self.literal("false")]))

    def json_null(self) -> int:
        return self.rule("json-null", lambda: self.literal("null"))

    def _container(self, name: str, open_: str, close: str, item: Callable[[], int],
                   key: Callable[[], int] | None, tight_comma: bool, trailing_ws: bool) -> int:
        def body() -> int:
            ws = self.space()
            member = (self.sequence([key(), ws, self.literal(":"), ws, item()]) if key else item())
            sep = ([self.literal(",")] if tight_comma else [ws, self.literal(",")]) + [ws]
            members = self.sequence([member, self.zero_or_more(self.sequence(sep + [member]))])
            parts = [self.literal(open_), ws, self.choice(
                [self.literal(close), self.sequence([members, ws, self.literal(close)])])]
            return self.sequence(parts + ([ws] if trailing_ws else []))
        return self.rule(name, body)

    def json_object(self) -> int:
        return self._container("json-object", "{", "}", self.json, self.json_string, False, False)

    def json_array(self) -> int:
        return self._container("json-array", "[", "]", self.json, None, False, False)

    def json(self) -> int:
        return self.rule("json-value", lambda: self.choice([
            self.json_object(), self.json_array(), self.json_string(), self.json_number(),
            self.json_bool(), self.json_null()]))

    def python_string(self) -> int:
        return self.rule("python-string", lambda: self.choice(
            [self.double_quoted_string(), self.single_quoted_string()]))

    def python_number(self) -> int:
        return self.json_number()

    def python_bool(self) -> int:
        return self.rule("python-bool", lambda: self.choice([self.literal("True"), self.literal("False")]))

    def python_null(self) -> int:
        return self.rule("python-none", lambda: self.literal("None"))

    def python_dict(self) -> int:
        return self._container("python-dict", "{", "}", self.python_value, self.python_string, False, True)

    def python_array(self) -> int:
        return self._container("python-array", "[", "]", self.python_value, None, True, True)

    def python_value(self) -> int:
        return self.rule("python-value", lambda: self.choice([
            self.python_dict(), self.python_array(), self.python_string(), self.python_number(),
            self.python_bool(), self.python_null()]))

    def marker(self) -> int:
        angle = self.sequence([self.literal("<"), self.until(">"), self.literal(">")])
        square = self.sequence([self.literal("["), self.until("]"), self.literal("]")])
        return self.choice([angle, square])

    def json_member(self, key: str, pid: int) -> int:
        ws = self.space()
        return self.sequence([self.literal(f'"{key}"'), ws, self.literal(":"), ws, pid])

    # --- result ----------------------------------------------------------------------

    def set_root(self, pid: int) -> None:
        self._root = pid

    def _resolve(self, pid: int) -> int:
        node = self._parsers[pid]
        if isinstance(node, Ref):
            if node.name not in self._rules:
                raise PegError(f"Rule not found: {node.name}")
            return self._rules[node.name]
        return pid

    def build(self) -> Arena:
        """The arena, with every child that is a ref replaced by the rule it names."""
        parsers: list[ParserNode] = []
        for node in self._parsers:
            if isinstance(node, (Sequence, Choice)):
                node = replace(node, children=tuple(self._resolve(c) for c in node.children))
            elif hasattr(node, "child"):
                node = replace(node, child=self._resolve(node.child))  # type: ignore[union-attr]
            parsers.append(node)
        root = self._resolve(self._root) if self._root != INVALID_PARSER_ID else self._root
        return Arena(tuple(parsers), tuple(self._rules.items()), root)


def build_arena(fn: Callable[[Builder], int]) -> Arena:
    """``build_peg_parser``: call ``fn`` with a builder, use its result as the root."""
    b = Builder()
    b.set_root(fn(b))
    return b.build()
