"""Print an arena: as readable PEG rules, or in llama.cpp's own debugging notation.

Input: an ``Arena`` (and a parser id). Output: text. ``arena_notation`` writes one line per
named rule in a parsimonious-like notation::

    root = "<think>" tag<reasoning>(until("</think>")) "</think>" ...
    json-value = json-object / json-array / json-string / ...

Sequences are juxtaposition, ``/`` is ordered choice, ``* + ? {m,n}`` repetition,
``&``/``!`` lookahead, ``.`` one character, ``ws`` optional whitespace, ``~"[..]"`` a
character class. llama.cpp-specific kinds read as calls: ``until("a", "b")`` (text up to
a delimiter), ``string<">`` (JSON string content), ``tag<name>(..)`` (an AST node),
``atomic(..)`` (no partial node), ``schema<name>(..)``, ``gbnf(..)``, ``ac(..)``.
``llama_dump`` reproduces ``common_peg_arena::dump`` (``Sequence(Literal(a), ...)``).
Both are ``NodeVisitor`` s (``explorer.peg.visitor``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from explorer.peg.nodes import (
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
from explorer.peg.visitor import NodeVisitor

if TYPE_CHECKING:  # arena.py imports this module for Arena.notation / dump
    from explorer.peg.arena import Arena


def _quant(lo: int, hi: int) -> str:
    if (lo, hi) == (0, 1):
        return "?"
    if (lo, hi) == (0, -1):
        return "*"
    if (lo, hi) == (1, -1):
        return "+"
    if hi == -1:
        return f"{{{lo},}}"
    if lo == hi:
        return "" if lo == 1 else f"{{{lo}}}"
    return f"{{{lo},{hi}}}"


def _q(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


class _Expr(NodeVisitor[str], exhaustive=True):
    """One parser as an expression of the notation."""

    def __init__(self, arena: Arena) -> None:
        self.arena = arena

    def of(self, pid: int, top: bool = False) -> str:
        return self.visit(self.arena.get(pid), top)

    def visit_Rule(self, p: Rule, top: bool) -> str:
        return self.of(p.child) if top else p.name

    def visit_Ref(self, p: Ref, top: bool) -> str:
        return p.name

    def visit_Epsilon(self, p: Epsilon, top: bool) -> str:
        return '""'

    def visit_Start(self, p: Start, top: bool) -> str:
        return "^"

    def visit_End(self, p: End, top: bool) -> str:
        return "$"

    def visit_Literal(self, p: Literal, top: bool) -> str:
        return _q(p.literal)

    def visit_Sequence(self, p: Sequence, top: bool) -> str:
        # epsilons inside a sequence match nothing and only add noise
        shown = [c for c in p.children if not isinstance(self.arena.get(c), Epsilon)]
        if not shown:
            return '""'
        return " ".join(self.wrapped(c, (Choice,)) for c in shown)

    def visit_Choice(self, p: Choice, top: bool) -> str:
        if not p.children:
            return "!\"\""  # a choice without options never matches
        return " / ".join(self.wrapped(c, (Choice,)) for c in p.children)

    def visit_Repetition(self, p: Repetition, top: bool) -> str:
        return self.wrapped(p.child, (Choice, Sequence)) + _quant(p.min_count, p.max_count)

    def visit_And(self, p: And, top: bool) -> str:
        return "&" + self.wrapped(p.child, (Choice, Sequence))

    def visit_Not(self, p: Not, top: bool) -> str:
        return "!" + self.wrapped(p.child, (Choice, Sequence))

    def visit_AnyChar(self, p: AnyChar, top: bool) -> str:
        return "."

    def visit_Space(self, p: Space, top: bool) -> str:
        return "ws"

    def visit_Chars(self, p: Chars, top: bool) -> str:
        pattern = p.pattern if p.pattern.startswith("[") else f"[{p.pattern}]"
        return f"~{_q(pattern)}{_quant(p.min_count, p.max_count)}"

    def visit_String(self, p: String, top: bool) -> str:
        return f"string<{p.delimiter}>"

    def visit_Until(self, p: Until, top: bool) -> str:
        return "until(" + ", ".join(_q(d) for d in p.delimiters) + ")"

    def visit_Tag(self, p: Tag, top: bool) -> str:
        return f"tag<{p.tag}>({self.of(p.child)})"

    def visit_Atomic(self, p: Atomic, top: bool) -> str:
        return f"atomic({self.of(p.child)})"

    def visit_Schema(self, p: Schema, top: bool) -> str:
        return f"schema<{p.name}>({self.of(p.child)})"

    def visit_Gbnf(self, p: Gbnf, top: bool) -> str:
        return f"gbnf({self.of(p.child)})"

    def visit_Ac(self, p: Ac, top: bool) -> str:
        return f"ac({self.of(p.child)})"

    def generic_visit(self, p: ParserNode, top: bool) -> str:
        return f"<{type(p).__name__}>"

    def wrapped(self, pid: int, kinds: tuple[type, ...]) -> str:
        node = self.arena.get(pid)
        text = self.of(pid)
        if isinstance(node, Sequence):
            many = sum(not isinstance(self.arena.get(c), Epsilon) for c in node.children) > 1
        else:
            many = Choice in kinds and isinstance(node, Choice) and len(node.children) > 1  # kinds: Choice, Sequence
        if isinstance(node, kinds) and many:
            return f"({text})"
        return text


def expr(arena: Arena, pid: int, *, top: bool = False) -> str:
    """One parser as an expression; rules print as their name unless ``top``."""
    return _Expr(arena).of(pid, top)


def arena_notation(arena: Arena) -> str:
    """``root = ...`` then every named rule, in the arena's rule order."""
    lines = []
    printer = _Expr(arena)
    if arena.has_root:
        lines.append(f"root = {printer.of(arena.root, True)}")
    for name, pid in arena.rules:
        lines.append(f"{name} = {printer.of(pid, True)}")
    return "\n".join(lines)


def llama_dump(arena: Arena, pid: int) -> str:
    """``common_peg_arena::dump``: nested constructor notation, ``[cycle]`` on revisits."""
    return _Dump(arena).of(pid)


class _Dump(NodeVisitor[str], exhaustive=True):
    """``common_peg_arena::dump`` of one parser; a parser seen before prints ``[cycle]``."""

    def __init__(self, arena: Arena) -> None:
        self.arena = arena
        self.visited: set[int] = set()

    def of(self, pid: int) -> str:
        if pid in self.visited:
            return "[cycle]"
        self.visited.add(pid)
        return self.visit(self.arena.get(pid))

    def visit_Epsilon(self, p: Epsilon) -> str:
        return "Epsilon"

    def visit_Start(self, p: Start) -> str:
        return "Start"

    def visit_End(self, p: End) -> str:
        return "End"

    def visit_AnyChar(self, p: AnyChar) -> str:
        return "Any"

    def visit_Space(self, p: Space) -> str:
        return "Space"

    def visit_Literal(self, p: Literal) -> str:
        return f"Literal({p.literal})"

    def visit_Sequence(self, p: Sequence | Choice) -> str:
        return f"{type(p).__name__}(" + ", ".join(self.of(c) for c in p.children) + ")"

    visit_Choice = visit_Sequence

    def visit_Repetition(self, p: Repetition) -> str:
        hi = "unbounded" if p.max_count == -1 else str(p.max_count)
        return f"Repetition({self.of(p.child)}, {p.min_count}, {hi})"

    def visit_And(self, p: And | Not | Atomic) -> str:
        return f"{type(p).__name__}({self.of(p.child)})"

    visit_Not = visit_Atomic = visit_And

    def visit_Gbnf(self, p: Gbnf) -> str:
        return f"Gbnf({p.grammar}, {self.of(p.child)})"

    def visit_Ac(self, p: Ac) -> str:
        return f"Ac({' | '.join(p.delimiters)}, {self.of(p.child)})"

    def visit_Chars(self, p: Chars) -> str:
        hi = "unbounded" if p.max_count == -1 else str(p.max_count)
        return f"CharRepeat({p.pattern}, {p.min_count}, {hi})"

    def visit_String(self, p: String) -> str:
        return f"String({p.delimiter})"

    def visit_Until(self, p: Until) -> str:
        return f"Until({' | '.join(p.delimiters)})"

    def visit_Schema(self, p: Schema) -> str:
        # the loaded arena has no schema document, so llama.cpp prints "null"
        return f"Schema({self.of(p.child)}, null)"

    def visit_Rule(self, p: Rule) -> str:
        return f"Rule({p.name}, {self.of(p.child)})"

    def visit_Ref(self, p: Ref) -> str:
        return f"Ref({p.name})"

    def visit_Tag(self, p: Tag) -> str:
        # llama.cpp restarts cycle detection below a tag
        return f"Tag({p.tag}, {llama_dump(self.arena, p.child)})"

    def generic_visit(self, p: ParserNode) -> str:
        return "Unknown"
