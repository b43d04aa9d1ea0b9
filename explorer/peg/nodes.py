"""The parser kinds of llama.cpp's PEG arena, as frozen dataclasses.

Input: nothing (definitions). Output: one class per parser kind, named and shaped like
``common_peg_*_parser`` in llama.cpp's ``common/peg-parser.h``. Each class carries its
serialized ``type`` name in ``KIND`` and the ids of its children (arena indices).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

UNBOUNDED = -1
# llama.cpp's COMMON_PEG_INVALID_PARSER_ID: size_t(-1), the root of an empty arena.
INVALID_PARSER_ID = 2**64 - 1


@dataclass(frozen=True, slots=True)
class Epsilon:
    KIND: ClassVar[str] = "epsilon"


@dataclass(frozen=True, slots=True)
class Start:
    KIND: ClassVar[str] = "start"


@dataclass(frozen=True, slots=True)
class End:
    KIND: ClassVar[str] = "end"


@dataclass(frozen=True, slots=True)
class Literal:
    literal: str
    KIND: ClassVar[str] = "literal"


@dataclass(frozen=True, slots=True)
class Sequence:
    children: tuple[int, ...]
    KIND: ClassVar[str] = "sequence"


@dataclass(frozen=True, slots=True)
class Choice:
    children: tuple[int, ...]
    KIND: ClassVar[str] = "choice"


@dataclass(frozen=True, slots=True)
class Repetition:
    child: int
    min_count: int
    max_count: int  # UNBOUNDED for no limit
    KIND: ClassVar[str] = "repetition"


@dataclass(frozen=True, slots=True)
class And:
    child: int
    KIND: ClassVar[str] = "and"


@dataclass(frozen=True, slots=True)
class Not:
    child: int
    KIND: ClassVar[str] = "not"


@dataclass(frozen=True, slots=True)
class AnyChar:
    KIND: ClassVar[str] = "any"


@dataclass(frozen=True, slots=True)
class Space:
    KIND: ClassVar[str] = "space"


@dataclass(frozen=True, slots=True)
class Chars:
    pattern: str
    ranges: tuple[tuple[int, int], ...]
    negated: bool
    min_count: int
    max_count: int
    KIND: ClassVar[str] = "chars"


@dataclass(frozen=True, slots=True)
class String:
    """JSON-style string content up to (not including) an unescaped ``delimiter``."""

    delimiter: str
    KIND: ClassVar[str] = "string"


@dataclass(frozen=True, slots=True)
class Until:
    delimiters: tuple[str, ...]
    KIND: ClassVar[str] = "until"


@dataclass(frozen=True, slots=True)
class Schema:
    child: int
    name: str
    raw: bool
    KIND: ClassVar[str] = "schema"


@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    child: int
    trigger: bool
    KIND: ClassVar[str] = "rule"


@dataclass(frozen=True, slots=True)
class Ref:
    name: str
    KIND: ClassVar[str] = "ref"


@dataclass(frozen=True, slots=True)
class Atomic:
    child: int
    KIND: ClassVar[str] = "atomic"


@dataclass(frozen=True, slots=True)
class Tag:
    child: int
    tag: str
    KIND: ClassVar[str] = "tag"


@dataclass(frozen=True, slots=True)
class Gbnf:
    child: int
    grammar: str
    KIND: ClassVar[str] = "gbnf"


@dataclass(frozen=True, slots=True)
class Ac:
    child: int
    delimiters: tuple[str, ...]
    KIND: ClassVar[str] = "ac"


ParserNode = (
    Epsilon | Start | End | Literal | Sequence | Choice | Repetition | And | Not | AnyChar | Space
    | Chars | String | Until | Schema | Rule | Ref | Atomic | Tag | Gbnf | Ac
)

ALL_KINDS: tuple[type, ...] = (
    Epsilon, Start, End, Literal, Sequence, Choice, Repetition, And, Not, AnyChar, Space,
    Chars, String, Until, Schema, Rule, Ref, Atomic, Tag, Gbnf, Ac,
)

# Kinds with exactly one child in ``.child`` (the tuple's own type, so isinstance narrows).
SINGLE_CHILD_KINDS = (Repetition, And, Not, Schema, Rule, Atomic, Tag, Gbnf, Ac)


def children_of(node: ParserNode) -> tuple[int, ...]:
    """The arena ids a parser node points at (refs point at names, not ids)."""
    if isinstance(node, (Sequence, Choice)):
        return node.children
    if isinstance(node, SINGLE_CHILD_KINDS):
        return (node.child,)
    return ()
