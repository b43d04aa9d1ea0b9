"""Build arenas in code, exactly as llama.cpp's ``common_peg_parser_builder`` does.

Input: builder calls, as llama.cpp's builders receive them (``b.sequence([b.literal("<think>"),
b.until("</think>")])``); every call creates parsers and returns the new parser's id.
Output: ``b.build()`` gives the frozen ``Arena`` the engine runs on, with references
resolved, the rules in llama.cpp's map order and the schema behind each ``schema`` parser;
its ``dumps()`` is byte-identical to llama.cpp's ``common_peg_arena::save()``.

Parser ids are creation indices, so the order of creation is part of the output. C++
evaluates the operands of a chain ``a + b + c`` (and ``|``) right to left in llama.cpp's
GCC build, then joins them left to right; literals written as plain strings in a chain
are created while joining. ``cat``/``alt`` take the operands as thunks, ids or strings
and reproduce that order; ``shl`` does ``a << b`` (left to right in C++17).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any, TypeVar

from explorer.errors import PegError
from explorer.peg.arena import Arena, node_json
from explorer.peg.nodes import (
    INVALID_PARSER_ID,
    SINGLE_CHILD_KINDS,
    Ac,
    And,
    AnyChar,
    Atomic,
    Chars,
    Choice,
    End,
    Epsilon,
    Gbnf,
    Literal,
    Not,
    ParserNode,
    Ref,
    Repetition,
    Rule,
    Schema,
    Sequence,
    Space,
    Start,
    String,
    Tag,
    Until,
)
from explorer.peg.stl_order import unordered_map_order
from explorer.schema import SchemaNode, schema_from_json

_RULE_NAME_BAD = re.compile(r"[^a-zA-Z0-9-]+")  # llama.cpp's rule_name (as the GBNF side's)
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "]": "]", "[": "["}

# An operand of a chain: an existing parser id, a string (a literal made while joining),
# or a thunk that creates parsers (run right to left before joining).
_Nary = TypeVar("_Nary", Sequence, Choice)  # the kinds whose nested children splice
Operand = int | str | Callable[[], int]


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
    """Collects parser nodes in creation order; ``build()`` returns the arena."""

    def __init__(self) -> None:
        self.nodes: list[ParserNode] = []
        self.rules: dict[str, int] = {}
        self.rule_insertion: list[str] = []  # first insertion of each name (the map's order)
        self.schemas: dict[int, SchemaNode] = {}
        self.root = INVALID_PARSER_ID

    @property
    def parsers(self) -> list[dict[str, Any]]:
        """The parsers made so far, as llama.cpp serializes them (for inspection)."""
        return [json.loads(node_json(n)) for n in self.nodes]

    def add(self, node: ParserNode) -> int:
        self.nodes.append(node)
        return len(self.nodes) - 1

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
        return self.until_one_of((delimiter,))

    def until_one_of(self, delimiters: Iterable[str]) -> int:
        return self.add(Until(tuple(delimiters)))

    def rest(self) -> int:
        return self.until_one_of(())

    def string_content(self, delimiter: str) -> int:
        return self.add(String(delimiter))

    def ref(self, name: str) -> int:
        return self.add(Ref(name))

    # --- combinators -------------------------------------------------------------------

    def _flatten(self, ids: Iterable[int], kind: type[_Nary]) -> tuple[int, ...]:
        flat: list[int] = []
        for pid in ids:
            node = self.nodes[pid]
            flat.extend(node.children if isinstance(node, kind) else (pid,))
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

    def ac(self, pid: int, delimiters: Iterable[str] | str) -> int:
        delims = (delimiters,) if isinstance(delimiters, str) else tuple(delimiters)
        if not delims:
            raise PegError("ac parser requires at least one delimiter")
        return self.add(Ac(pid, delims))

    def schema(self, pid: int, name: str, node: SchemaNode | Mapping[str, Any] | bool | None = None,
               raw: bool = False) -> int:
        """A schema parser; ``node`` (a schema node, or plain JSON schema) is kept beside the
        arena for the grammar (the serialized form drops it). A bool in ``node``'s place is
        ``raw`` (the engine tests' ``schema(p, name, raw)`` form; no schema is a bool here)."""
        if isinstance(node, bool):
            raw = node
            node = None
        sid = self.add(Schema(pid, name, raw))
        if node is not None:
            self.schemas[sid] = node if isinstance(node, SchemaNode) else schema_from_json(node).root
        return sid

    # --- rules -------------------------------------------------------------------------

    def _set_rule(self, name: str, pid: int) -> None:
        if name not in self.rules:
            self.rule_insertion.append(name)
        self.rules[name] = pid

    def rule(self, name: str, body: int | Callable[[], int], trigger: bool = False) -> int:
        """A named rule; returns a ref to it. A callable body is built once (later calls
        only add a ref) and may refer to the rule itself through a placeholder."""
        clean = _RULE_NAME_BAD.sub("-", name)
        if callable(body):
            if clean in self.rules:
                return self.ref(clean)
            placeholder = self.any()
            self._set_rule(clean, self.add(Rule(clean, placeholder, trigger)))
            body = body()
        self._set_rule(clean, self.add(Rule(clean, body, trigger)))
        return self.ref(clean)

    def rule_fn(self, name: str, build: Callable[[], int], trigger: bool = False) -> int:
        return self.rule(name, build, trigger)

    def trigger_rule(self, name: str, body: int | Callable[[], int]) -> int:
        return self.rule(name, body, trigger=True)

    # --- C++ operator chains ------------------------------------------------------------

    def _run(self, ops: tuple[Operand, ...]) -> list[int | str]:
        # the callables run right to left, as C++ evaluates the operands of a chain
        done = [op() if callable(op) else op for op in reversed(ops)]
        done.reverse()
        return done

    def _lit(self, op: int | str) -> int:
        return self.literal(op) if isinstance(op, str) else op

    def _chain(self, ops: tuple[Operand, ...], join: Callable[[list[int]], int]) -> int:
        vals = self._run(ops)
        acc = self._lit(vals[0])
        for val in vals[1:]:
            acc = join([acc, self._lit(val)])
        return acc

    def cat(self, *ops: Operand) -> int:
        """``a + b + c``: operands evaluated right to left, joined left to right."""
        return self._chain(ops, self.sequence)

    def alt(self, *ops: Operand) -> int:
        """``a | b | c``, with the same evaluation order as ``cat``."""
        return self._chain(ops, self.choice)

    def then_space(self, left: int, right: int) -> int:
        """``a << b``: a sequence with a space parser between."""
        return self.sequence([left, self.space(), right])

    def shl(self, *ops: Operand) -> int:
        """``a << b << c``: C++17 evaluates these left to right; a string operand becomes a
        literal inside the operator call, after the other operand was evaluated."""
        acc: int | str = ops[0]() if callable(ops[0]) else ops[0]
        for op in ops[1:]:
            rhs: int | str = op() if callable(op) else op
            left = self._lit(acc)
            acc = self.then_space(left, self._lit(rhs))
        return self._lit(acc)

    # --- composite helpers (llama.cpp's, in its creation order) --------------------------

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
            digit1_9 = self.chars("[1-9]", 1, 1)
            digits = self.chars("[0-9]")
            int_part = self.choice([self.literal("0"), self.sequence([digit1_9, self.chars("[0-9]", 0, -1)])])
            frac = self.sequence([self.literal("."), digits])
            exp = self.sequence([self.choice([self.literal("e"), self.literal("E")]),
                                 self.optional(self.chars("[+-]", 1, 1)), digits])
            stop = self.negate(self.chars("[0-9.eE+-]", 1, 1))
            return self.sequence([self.optional(self.literal("-")), int_part, self.optional(frac),
                                  self.optional(exp), stop])
        return self.rule("json-number", body)

    def json_string(self) -> int:
        return self._quoted("json-string", '"')

    def json_bool(self) -> int:
        return self.rule("json-bool", lambda: self.choice([self.literal("true"), self.literal("false")]))

    def json_null(self) -> int:
        return self.rule("json-null", lambda: self.literal("null"))

    def bracketed(self, open_: str, close: str, items: int, ws: int, trailing_ws: bool = False) -> int:
        """``open ws (close | items ws close)``, then ``ws`` for the Python containers."""
        parts = [self.literal(open_), ws, self.choice([self.literal(close), self.sequence(
            [items, ws, self.literal(close)])])]
        return self.sequence(parts + [ws] if trailing_ws else parts)

    def members(self, key: Callable[[], int], value: Callable[[], int], ws: int) -> int:
        """``key : value`` pairs, comma-separated (one member parser, reused)."""
        member = self.sequence([key(), ws, self.literal(":"), ws, value()])
        return self.sequence([member, self.zero_or_more(self.sequence([ws, self.literal(","), ws, member]))])

    def elements(self, item: Callable[[], int], ws: int, tight: bool = False) -> int:
        """Comma-separated items, ``item()`` called for the first and again for the rest
        (llama.cpp calls ``json()``/``python_value()`` twice); ``tight``: no space before commas."""
        first = item()
        comma = [self.literal(",")] if tight else [ws, self.literal(",")]
        return self.sequence([first, self.zero_or_more(self.sequence(comma + [ws, item()]))])

    def _container(self, name: str, open_: str, close: str, items: Callable[[int], int],
                   trailing_ws: bool = False) -> int:
        def body() -> int:
            ws = self.space()
            return self.bracketed(open_, close, items(ws), ws, trailing_ws)
        return self.rule(name, body)

    def json_object(self) -> int:
        return self._container("json-object", "{", "}", lambda ws: self.members(self.json_string, self.json, ws))

    def json_array(self) -> int:
        return self._container("json-array", "[", "]", lambda ws: self.elements(self.json, ws))

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
        return self._container("python-dict", "{", "}",
                               lambda ws: self.members(self.python_string, self.python_value, ws), True)

    def python_array(self) -> int:
        return self._container("python-array", "[", "]", lambda ws: self.elements(self.python_value, ws, True), True)

    def python_value(self) -> int:
        return self.rule("python-value", lambda: self.choice([
            self.python_dict(), self.python_array(), self.python_string(), self.python_number(),
            self.python_bool(), self.python_null()]))

    def marker(self) -> int:
        angle = self.cat(lambda: self.literal("<"), lambda: self.until(">"), lambda: self.literal(">"))
        square = self.cat(lambda: self.literal("["), lambda: self.until("]"), lambda: self.literal("]"))
        return self.choice([angle, square])

    def json_member(self, key: str, pid: int) -> int:
        ws = self.space()
        return self.sequence([self.literal(f'"{key}"'), ws, self.literal(":"), ws, pid])

    # --- result ----------------------------------------------------------------------

    def set_root(self, pid: int) -> None:
        self.root = pid

    def _resolve(self, pid: int) -> int:
        node = self.nodes[pid]
        if isinstance(node, Ref):
            if node.name not in self.rules:
                raise PegError(f"Rule not found: {node.name}")
            return self.rules[node.name]
        return pid

    def build(self, root: int | None = None) -> Arena:
        """The arena (llama.cpp's ``build``: resolve_refs), rooted at ``root`` when given:
        every child that is a ref replaced by the rule it names."""
        if root is not None:
            self.set_root(root)
        refs = {pid for pid, node in enumerate(self.nodes) if isinstance(node, Ref)}
        parsers = list(self.nodes)
        for pid, node in enumerate(parsers):
            if isinstance(node, (Sequence, Choice)):
                if not refs.isdisjoint(node.children):
                    parsers[pid] = type(node)(tuple(self._resolve(c) for c in node.children))
            elif isinstance(node, SINGLE_CHILD_KINDS) and node.child in refs:
                parsers[pid] = replace(node, child=self._resolve(node.child))
        resolved_root = self._resolve(self.root) if self.root != INVALID_PARSER_ID else self.root
        rules = tuple((name, self.rules[name]) for name in unordered_map_order(self.rule_insertion))
        return Arena(tuple(parsers), rules, resolved_root, dict(self.schemas))


def build_arena(fn: Callable[[Builder], int]) -> Arena:
    """``build_peg_parser``: call ``fn`` with a builder, use its result as the root."""
    b = Builder()
    b.set_root(fn(b))
    return b.build()
