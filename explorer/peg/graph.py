"""Facts about an arena's parser graph that the engine compiles in, decided once per arena.

Input: an ``Arena``. Output: per parser, the characters it can start with (``first_chars``,
used to skip choice options that cannot match) and whether a tag node can come out of it
(``tag_reachable``, so the mappers skip subtrees without one).
"""

from __future__ import annotations

from explorer.peg.arena import Arena
from explorer.peg.nodes import Ac, Atomic, Chars, Choice, Gbnf, Literal, Ref, Repetition, Rule, Schema, Sequence, Tag, children_of


_SMALL_CLASS = 512


def first_chars(arena: Arena) -> list[frozenset[str] | None]:
    """Per parser: the characters it can start with when it cannot fail otherwise.

    ``None`` means unknown (it may match empty, look ahead, or start with anything). A
    parser with a known set fails, without looking at the end of the text, on any other
    character at a position before the end.
    """
    memo: dict[int, frozenset[str] | None] = {}
    busy: set[int] = set()

    def first(pid: int) -> frozenset[str] | None:
        if pid in memo:
            return memo[pid]
        if pid in busy:
            return None  # a cycle: stay unknown
        busy.add(pid)
        found = _first_of(arena, arena.get(pid), first)
        busy.discard(pid)
        memo[pid] = found
        return found

    return [first(pid) for pid in range(len(arena.parsers))]


def _first_of(arena: Arena, p, first) -> frozenset[str] | None:
    if isinstance(p, Literal):
        return frozenset(p.literal[0]) if p.literal else None
    if isinstance(p, Sequence):
        return first(p.children[0]) if p.children else None
    if isinstance(p, Choice):
        sets = [first(c) for c in p.children]
        return None if any(f is None for f in sets) else frozenset().union(*sets)
    if isinstance(p, (Rule, Tag, Atomic, Schema, Gbnf, Ac)):
        return first(p.child)
    if isinstance(p, Ref):
        return first(arena.rule_id(p.name)) if arena.has_rule(p.name) else None
    if isinstance(p, Repetition):
        return first(p.child) if p.min_count >= 1 else None
    if isinstance(p, Chars) and not p.negated and p.min_count >= 1 and p.ranges:
        if sum(b - a + 1 for a, b in p.ranges if b >= a) <= _SMALL_CLASS:
            return frozenset(chr(c) for a, b in p.ranges for c in range(a, min(b, 0x10FFFF) + 1))
    return None


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
