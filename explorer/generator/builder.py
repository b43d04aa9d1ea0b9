"""PEG arena builder that creates parsers in exactly llama.cpp's order.

Input: builder calls, as llama.cpp's ``common_peg_parser_builder`` receives them. Output:
an ``Arena`` (parsers as llama.cpp serializes them, rule table, root, and the schema
behind each ``schema`` parser) whose ``dumps()`` is byte-identical to llama.cpp's
``common_peg_arena::save()``.

Parser ids are creation indices, so the order of creation is part of the output. C++
evaluates the operands of a chain ``a + b + c`` (and ``|``) right to left in llama.cpp's
GCC build, then joins them left to right; literals written as plain strings in a chain
are created while joining. ``cat``/``alt`` take the operands as thunks, ids or strings
and reproduce that order; ``<<`` is left to right in C++17 and needs no helper.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Union

from explorer.errors import PegError
from explorer.generator.stl_order import unordered_map_order
from explorer.grammar.json_schema import rule_name
from explorer.grammar.schema import SchemaNode, schema_from_json
from explorer.peg.builder import parse_char_classes as parse_peg_char_classes

INVALID_PARSER_ID = 2**64 - 1

# An operand of a chain: an existing parser id, a string (a literal made while joining),
# or a thunk that creates parsers (run right to left before joining).
Operand = Union[int, str, Callable[[], int]]


@dataclass(frozen=True)
class Arena:
    """A built arena: serialized parsers, rules in llama.cpp's map order, root, schemas."""

    parsers: tuple[dict[str, Any], ...]
    rules: Mapping[str, int]
    root: int
    schemas: Mapping[int, SchemaNode] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"parsers": list(self.parsers), "rules": dict(self.rules), "root": self.root}

    def dumps(self) -> str:
        """llama.cpp's ``save()``: compact JSON, UTF-8 kept."""
        return json.dumps(self.to_json(), ensure_ascii=False, separators=(",", ":"))


def parse_char_classes(classes: str) -> tuple[list[dict[str, int]], bool]:
    """``[a-z0-9]`` -> code point ranges (as serialized) and negation; the class syntax is
    the PEG engine's (``explorer.peg.builder``), one parser for both sides."""
    ranges, negated = parse_peg_char_classes(classes)
    return [{"start": start, "end": end} for start, end in ranges], negated


class PegBuilder:
    """llama.cpp's parser builder: every method appends parsers and returns an id."""

    def __init__(self) -> None:
        self.parsers: list[dict[str, Any]] = []
        self.rules: dict[str, int] = {}
        self.rule_insertion: list[str] = []
        self.schemas: dict[int, SchemaNode] = {}
        self.root = INVALID_PARSER_ID

    # --- primitives ---------------------------------------------------------------------

    def add(self, node: dict[str, Any]) -> int:
        self.parsers.append(node)
        return len(self.parsers) - 1

    def kind(self, pid: int) -> str:
        return self.parsers[pid]["type"]

    def eps(self) -> int:
        return self.add({"type": "epsilon"})

    def start(self) -> int:
        return self.add({"type": "start"})

    def end(self) -> int:
        return self.add({"type": "end"})

    def literal(self, text: str) -> int:
        return self.add({"type": "literal", "literal": text})

    def sequence(self, ids: Sequence[int]) -> int:
        flat: list[int] = []
        for pid in ids:
            flat.extend(self.parsers[pid]["children"] if self.kind(pid) == "sequence" else [pid])
        return self.add({"type": "sequence", "children": flat})

    def choice(self, ids: Sequence[int] = ()) -> int:
        flat: list[int] = []
        for pid in ids:
            flat.extend(self.parsers[pid]["children"] if self.kind(pid) == "choice" else [pid])
        return self.add({"type": "choice", "children": flat})

    def repeat(self, pid: int, lo: int, hi: int) -> int:
        return self.add({"type": "repetition", "child": pid, "min_count": lo, "max_count": hi})

    def optional(self, pid: int) -> int:
        return self.repeat(pid, 0, 1)

    def zero_or_more(self, pid: int) -> int:
        return self.repeat(pid, 0, -1)

    def one_or_more(self, pid: int) -> int:
        return self.repeat(pid, 1, -1)

    def peek(self, pid: int) -> int:
        return self.add({"type": "and", "child": pid})

    def negate(self, pid: int) -> int:
        return self.add({"type": "not", "child": pid})

    def any(self) -> int:
        return self.add({"type": "any"})

    def space(self) -> int:
        return self.add({"type": "space"})

    def chars(self, classes: str, lo: int = 1, hi: int = -1) -> int:
        ranges, negated = parse_char_classes(classes)
        return self.add({"type": "chars", "pattern": classes, "ranges": ranges, "negated": negated,
                         "min_count": lo, "max_count": hi})

    def string_content(self, delimiter: str) -> int:
        return self.add({"type": "string", "delimiter": delimiter})

    def until(self, delimiter: str) -> int:
        return self.until_one_of([delimiter])

    def until_one_of(self, delimiters: Sequence[str]) -> int:
        return self.add({"type": "until", "delimiters": list(delimiters)})

    def rest(self) -> int:
        return self.until_one_of([])

    def atomic(self, pid: int) -> int:
        return self.add({"type": "atomic", "child": pid})

    def tag(self, tag: str, pid: int) -> int:
        return self.add({"type": "tag", "child": pid, "tag": tag})

    def gbnf(self, pid: int, grammar: str) -> int:
        return self.add({"type": "gbnf", "child": pid, "grammar": grammar})

    def ac(self, pid: int, delimiters: Sequence[str] | str) -> int:
        delims = [delimiters] if isinstance(delimiters, str) else list(delimiters)
        if not delims:
            raise PegError("ac parser requires at least one delimiter")
        return self.add({"type": "ac", "child": pid, "delimiters": delims})

    def schema(self, pid: int, name: str, node: SchemaNode | Any, raw: bool = False) -> int:
        """A schema parser; ``node`` is a schema node, or plain JSON schema to parse."""
        if not isinstance(node, SchemaNode):
            node = schema_from_json(node).root
        sid = self.add({"type": "schema", "child": pid, "name": name, "raw": raw})
        self.schemas[sid] = node
        return sid

    def ref(self, name: str) -> int:
        return self.add({"type": "ref", "name": name})

    def _set_rule(self, name: str, pid: int) -> None:
        if name not in self.rules:
            self.rule_insertion.append(name)
        self.rules[name] = pid

    def rule(self, name: str, pid: int, trigger: bool = False) -> int:
        clean = rule_name(name)
        self._set_rule(clean, self.add({"type": "rule", "name": clean, "child": pid, "trigger": trigger}))
        return self.ref(clean)

    def trigger_rule(self, name: str, pid: int) -> int:
        return self.rule(name, pid, True)

    def rule_fn(self, name: str, build: Callable[[], int], trigger: bool = False) -> int:
        """A named rule built once; later calls only add a ref (recursion-safe)."""
        clean = rule_name(name)
        if clean in self.rules:
            return self.ref(clean)
        placeholder = self.any()
        self._set_rule(clean, self.add({"type": "rule", "name": clean, "child": placeholder, "trigger": trigger}))
        body = build()
        self.rules[clean] = self.add({"type": "rule", "name": clean, "child": body, "trigger": trigger})
        return self.ref(clean)

    # --- C++ operator chains ------------------------------------------------------------

    def _run(self, ops: Sequence[Operand]) -> list[int | str]:
        done: list[int | str] = list(ops)  # type: ignore[arg-type]
        for i in range(len(ops) - 1, -1, -1):
            op = ops[i]
            if callable(op):
                done[i] = op()
        return done

    def _lit(self, op: int | str) -> int:
        return self.literal(op) if isinstance(op, str) else op

    def cat(self, *ops: Operand) -> int:
        """``a + b + c``: operands evaluated right to left, joined left to right."""
        vals = self._run(ops)
        acc = self._lit(vals[0]) if len(vals) > 1 or isinstance(vals[0], str) else vals[0]
        for val in vals[1:]:
            acc = self.sequence([acc, self._lit(val)])
        return acc  # type: ignore[return-value]

    def alt(self, *ops: Operand) -> int:
        """``a | b | c``, with the same evaluation order as ``cat``."""
        vals = self._run(ops)
        acc = self._lit(vals[0])
        for val in vals[1:]:
            acc = self.choice([acc, self._lit(val)])
        return acc

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

    # --- JSON ---------------------------------------------------------------------------

    def json_number(self) -> int:
        def build() -> int:
            digit1_9 = self.chars("[1-9]", 1, 1)
            digits = self.chars("[0-9]")
            int_part = self.choice([self.literal("0"), self.sequence([digit1_9, self.chars("[0-9]", 0, -1)])])
            frac = self.sequence([self.literal("."), digits])
            exp = self.sequence([self.choice([self.literal("e"), self.literal("E")]),
                                 self.optional(self.chars("[+-]", 1, 1)), digits])
            not_continuation = self.negate(self.chars("[0-9.eE+-]", 1, 1))
            return self.sequence([self.optional(self.literal("-")), int_part, self.optional(frac),
                                  self.optional(exp), not_continuation])
        return self.rule_fn("json-number", build)

    def json_string(self) -> int:
        return self.rule_fn("json-string", lambda: self.sequence(
            [self.literal('"'), self.string_content('"'), self.literal('"')]))

    def json_bool(self) -> int:
        return self.rule_fn("json-bool", lambda: self.choice([self.literal("true"), self.literal("false")]))

    def json_null(self) -> int:
        return self.rule_fn("json-null", lambda: self.literal("null"))

    def json_object(self) -> int:
        def build() -> int:
            ws = self.space()
            member = self.sequence([self.json_string(), ws, self.literal(":"), ws, self.json()])
            members = self.sequence([member, self.zero_or_more(self.sequence([ws, self.literal(","), ws, member]))])
            return self.sequence([self.literal("{"), ws, self.choice(
                [self.literal("}"), self.sequence([members, ws, self.literal("}")])])])
        return self.rule_fn("json-object", build)

    def json_array(self) -> int:
        def build() -> int:
            ws = self.space()
            elements = self.sequence([self.json(), self.zero_or_more(
                self.sequence([ws, self.literal(","), ws, self.json()]))])
            return self.sequence([self.literal("["), ws, self.choice(
                [self.literal("]"), self.sequence([elements, ws, self.literal("]")])])])
        return self.rule_fn("json-array", build)

    def json(self) -> int:
        return self.rule_fn("json-value", lambda: self.choice([
            self.json_object(), self.json_array(), self.json_string(),
            self.json_number(), self.json_bool(), self.json_null(),
        ]))

    # --- build --------------------------------------------------------------------------

    def _resolve(self, pid: int) -> int:
        p = self.parsers[pid]
        if p["type"] != "ref":
            return pid
        if p["name"] not in self.rules:
            raise PegError(f"Rule not found: {p['name']}")
        return self.rules[p["name"]]

    def build(self, root: int) -> Arena:
        """Set the root, replace refs by their rules (llama.cpp's resolve_refs), freeze."""
        for p in self.parsers:
            if "children" in p:
                p["children"] = [self._resolve(c) for c in p["children"]]
            elif "child" in p:
                p["child"] = self._resolve(p["child"])
        resolved_root = self._resolve(root) if root != INVALID_PARSER_ID else root
        ordered = {name: self.rules[name] for name in unordered_map_order(self.rule_insertion)}
        return Arena(tuple(self.parsers), ordered, resolved_root, dict(self.schemas))
