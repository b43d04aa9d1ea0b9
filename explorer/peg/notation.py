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
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from explorer.peg.nodes import (
    Ac, And, AnyChar, Atomic, Chars, Choice, End, Epsilon, Gbnf, Literal, Not, Ref,
    Repetition, Rule, Schema, Sequence, Space, Start, String, Tag, Until,
)

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


def expr(arena: Arena, pid: int, *, top: bool = False) -> str:  # noqa: C901 - one case per kind
    """One parser as an expression; rules print as their name unless ``top``."""
    p = arena.get(pid)
    if isinstance(p, Rule) and not top:
        return p.name
    if isinstance(p, Rule):
        return expr(arena, p.child)
    if isinstance(p, Ref):
        return p.name
    if isinstance(p, Epsilon):
        return '""'
    if isinstance(p, Start):
        return "^"
    if isinstance(p, End):
        return "$"
    if isinstance(p, Literal):
        return _q(p.literal)
    if isinstance(p, Sequence):
        # epsilons inside a sequence match nothing and only add noise
        shown = [c for c in p.children if not isinstance(arena.get(c), Epsilon)]
        if not shown:
            return '""'
        return " ".join(_wrapped(arena, c, (Choice,)) for c in shown)
    if isinstance(p, Choice):
        if not p.children:
            return "!\"\""  # a choice without options never matches
        return " / ".join(_wrapped(arena, c, (Choice,)) for c in p.children)
    if isinstance(p, Repetition):
        return _wrapped(arena, p.child, (Choice, Sequence)) + _quant(p.min_count, p.max_count)
    if isinstance(p, And):
        return "&" + _wrapped(arena, p.child, (Choice, Sequence))
    if isinstance(p, Not):
        return "!" + _wrapped(arena, p.child, (Choice, Sequence))
    if isinstance(p, AnyChar):
        return "."
    if isinstance(p, Space):
        return "ws"
    if isinstance(p, Chars):
        pattern = p.pattern if p.pattern.startswith("[") else f"[{p.pattern}]"
        return f"~{_q(pattern)}{_quant(p.min_count, p.max_count)}"
    if isinstance(p, String):
        return f"string<{p.delimiter}>"
    if isinstance(p, Until):
        return "until(" + ", ".join(_q(d) for d in p.delimiters) + ")"
    if isinstance(p, Tag):
        return f"tag<{p.tag}>({expr(arena, p.child)})"
    if isinstance(p, Atomic):
        return f"atomic({expr(arena, p.child)})"
    if isinstance(p, Schema):
        return f"schema<{p.name}>({expr(arena, p.child)})"
    if isinstance(p, Gbnf):
        return f"gbnf({expr(arena, p.child)})"
    if isinstance(p, Ac):
        return f"ac({expr(arena, p.child)})"
    return f"<{type(p).__name__}>"


def _wrapped(arena: Arena, pid: int, kinds: tuple[type, ...]) -> str:
    node = arena.get(pid)
    text = expr(arena, pid)
    if isinstance(node, Sequence):
        many = sum(not isinstance(arena.get(c), Epsilon) for c in node.children) > 1
    else:
        many = isinstance(node, kinds) and len(node.children) > 1  # type: ignore[union-attr]
    if isinstance(node, kinds) and many:
        return f"({text})"
    return text


def arena_notation(arena: Arena) -> str:
    """``root = ...`` then every named rule, in the arena's rule order."""
    lines = []
    if arena.has_root:
        lines.append(f"root = {expr(arena, arena.root, top=True)}")
    for name, pid in arena.rules:
        lines.append(f"{name} = {expr(arena, pid, top=True)}")
    return "\n".join(lines)


def llama_dump(arena: Arena, pid: int) -> str:
    """``common_peg_arena::dump``: nested constructor notation, ``[cycle]`` on revisits."""
    return _dump(arena, pid, set())


def _dump(arena: Arena, pid: int, visited: set[int]) -> str:  # noqa: C901 - one case per kind
    if pid in visited:
        return "[cycle]"
    visited.add(pid)
    p = arena.get(pid)

    def sub(child: int) -> str:
        return _dump(arena, child, visited)

    simple = {Epsilon: "Epsilon", Start: "Start", End: "End", AnyChar: "Any", Space: "Space"}
    if type(p) in simple:
        return simple[type(p)]
    if isinstance(p, Literal):
        return f"Literal({p.literal})"
    if isinstance(p, (Sequence, Choice)):
        return f"{type(p).__name__}(" + ", ".join(sub(c) for c in p.children) + ")"
    if isinstance(p, Repetition):
        hi = "unbounded" if p.max_count == -1 else str(p.max_count)
        return f"Repetition({sub(p.child)}, {p.min_count}, {hi})"
    if isinstance(p, (And, Not, Atomic)):
        return f"{type(p).__name__}({sub(p.child)})"
    if isinstance(p, Gbnf):
        return f"Gbnf({p.grammar}, {sub(p.child)})"
    if isinstance(p, Ac):
        return f"Ac({' | '.join(p.delimiters)}, {sub(p.child)})"
    if isinstance(p, Chars):
        hi = "unbounded" if p.max_count == -1 else str(p.max_count)
        return f"CharRepeat({p.pattern}, {p.min_count}, {hi})"
    if isinstance(p, String):
        return f"String({p.delimiter})"
    if isinstance(p, Until):
        return f"Until({' | '.join(p.delimiters)})"
    if isinstance(p, Schema):
        # the loaded arena has no schema document, so llama.cpp prints "null"
        return f"Schema({sub(p.child)}, null)"
    if isinstance(p, Rule):
        return f"Rule({p.name}, {sub(p.child)})"
    if isinstance(p, Ref):
        return f"Ref({p.name})"
    if isinstance(p, Tag):
        # llama.cpp restarts cycle detection below a tag
        return f"Tag({p.tag}, {llama_dump(arena, p.child)})"
    return "Unknown"
