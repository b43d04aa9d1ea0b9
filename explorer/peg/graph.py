"""Facts about an arena's parser graph that the engine compiles in, decided once per arena.

Input: an ``Arena``. Output: per parser, the characters it can start with (``first_chars``,
used to skip choice options that cannot match) and whether a tag node can come out of it
(``tag_reachable``, so the mappers skip subtrees without one).
"""

from __future__ import annotations

from collections.abc import Callable

from explorer.peg.arena import Arena
from explorer.peg.nodes import (
    Ac,
    Atomic,
    Chars,
    Choice,
    Gbnf,
    Literal,
    ParserNode,
    Ref,
    Repetition,
    Rule,
    Schema,
    Sequence,
    Tag,
    children_of,
)
from explorer.peg.visitor import NodeVisitor

FirstChars = frozenset[str] | None


_SMALL_CLASS = 512


def first_chars(arena: Arena) -> list[frozenset[str] | None]:
    """Per parser: the characters it can start with when it cannot fail otherwise.

    ``None`` means unknown (it may match empty, look ahead, or start with anything). A
    parser with a known set fails, without looking at the end of the text, on any other
    character at a position before the end.
    """
    memo: dict[int, FirstChars] = {}
    busy: set[int] = set()

    def first(pid: int) -> FirstChars:
        if pid in memo:
            return memo[pid]
        if pid in busy:
            return None  # a cycle: stay unknown
        busy.add(pid)
        found = visitor.visit(arena.get(pid))
        busy.discard(pid)
        memo[pid] = found
        return found

    visitor = _First(arena, first)
    return [first(pid) for pid in range(len(arena.parsers))]


class _First(NodeVisitor[FirstChars]):
    """The characters one parser can start with, from its children's (``first``)."""

    def __init__(self, arena: Arena, first: Callable[[int], FirstChars]) -> None:
        self.arena, self.first = arena, first

    def visit_Literal(self, p: Literal) -> FirstChars:
        return frozenset(p.literal[0]) if p.literal else None

    def visit_Sequence(self, p: Sequence) -> FirstChars:
        return self.first(p.children[0]) if p.children else None

    def visit_Choice(self, p: Choice) -> FirstChars:
        sets = [self.first(c) for c in p.children]
        known = [f for f in sets if f is not None]
        return frozenset().union(*known) if len(known) == len(sets) else None

    def visit_Rule(self, p: Rule | Tag | Atomic | Schema | Gbnf | Ac) -> FirstChars:
        return self.first(p.child)

    visit_Tag = visit_Atomic = visit_Schema = visit_Gbnf = visit_Ac = visit_Rule

    def visit_Ref(self, p: Ref) -> FirstChars:
        return self.first(self.arena.rule_id(p.name)) if self.arena.has_rule(p.name) else None

    def visit_Repetition(self, p: Repetition) -> FirstChars:
        return self.first(p.child) if p.min_count >= 1 else None

    def visit_Chars(self, p: Chars) -> FirstChars:
        if not p.negated and p.min_count >= 1 and p.ranges \
                and sum(b - a + 1 for a, b in p.ranges if b >= a) <= _SMALL_CLASS:
            return frozenset(chr(c) for a, b in p.ranges for c in range(a, min(b, 0x10FFFF) + 1))
        return None

    def generic_visit(self, p: ParserNode) -> FirstChars:
        return None  # may match empty, look ahead, or start with anything


def tag_reachable(arena: Arena) -> list[bool]:
    """Per parser: can a tag node come out of it? (Decided once, from the arena's graph.)"""
    graph: list[tuple[int, ...]] = []
    for p in arena.parsers:
        if isinstance(p, Ref):
            graph.append((arena.rule_id(p.name),) if arena.has_rule(p.name) else ())
        else:
            graph.append(children_of(p))
    reach = [isinstance(p, Tag) for p in arena.parsers]
    changed = True
    while changed:  # a fixed point over the (possibly cyclic) graph
        changed = False
        for pid, kids in enumerate(graph):
            if not reach[pid] and any(reach[k] for k in kids):
                reach[pid] = changed = True
    return reach
