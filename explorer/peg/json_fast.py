"""A fast path for the standard JSON value rule (``json-value`` and the rules under it).

Input: an arena and the id of a rule named ``json-value``; at parse time the text and a
position. Output: whether the rule is exactly llama.cpp's JSON grammar (decided once, by
comparing its graph with ``REFERENCE``), and for a position either the end of a complete
JSON value or "unknown".

The fast path only answers when it can prove the combinators would give SUCCESS without
looking at the end of the text: every character it inspects lies before the end, no
number ends the text (its look-ahead would need one more character), and the tree stays
under the engine's node-depth cap. Anything else (partial input, a syntax error, deep
nesting) answers "unknown" and the engine runs the combinators, so need-more-input,
``ctx.touched`` and the memo tables stay exactly as before. The value's tree is built
only when someone reads it (``LazyJsonValue.children``): the chat mappers read tags, and
no tag can come out of JSON.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

from explorer.peg.arena import Arena
from explorer.peg.nodes import Chars, Choice, Literal, Not, ParserNode, Ref, Repetition, Rule, Sequence, Space, String
from explorer.peg.scanners import empty_match
from explorer.peg.visitor import NodeVisitor

# --- recognising the rule ------------------------------------------------------------

_WS_SIG = ("space",)


def _lit(s: str) -> tuple:
    return ("lit", s)


def _rule(name: str) -> tuple:
    return ("rule", name)


def _chars(ranges: tuple[tuple[int, int], ...], lo: int, hi: int) -> tuple:
    return ("chars", tuple(sorted(ranges)), False, lo, hi)


_DIGITS = ((48, 57),)
_MEMBER = (_rule("json-string"), _WS_SIG, _lit(":"), _WS_SIG, _rule("json-value"))

# llama.cpp's JSON rules (common/peg-parser.cpp), as body signatures with sequences and
# choices flattened (splicing a nested sequence or choice changes no result).
REFERENCE: dict[str, tuple] = {
    "json-value": ("choice", (_rule("json-object"), _rule("json-array"), _rule("json-string"),
                              _rule("json-number"), _rule("json-bool"), _rule("json-null"))),
    "json-object": ("seq", (_lit("{"), _WS_SIG, ("choice", (_lit("}"), ("seq", _MEMBER + (
        ("rep", ("seq", (_WS_SIG, _lit(","), _WS_SIG) + _MEMBER), 0, -1), _WS_SIG, _lit("}"))))))),
    "json-array": ("seq", (_lit("["), _WS_SIG, ("choice", (_lit("]"), ("seq", (
        _rule("json-value"), ("rep", ("seq", (_WS_SIG, _lit(","), _WS_SIG, _rule("json-value"))), 0, -1),
        _WS_SIG, _lit("]"))))))),
    "json-string": ("seq", (_lit('"'), ("string", '"'), _lit('"'))),
    "json-number": ("seq", (
        ("rep", _lit("-"), 0, 1),
        ("choice", (_lit("0"), ("seq", (_chars(((49, 57),), 1, 1), _chars(_DIGITS, 0, -1))))),
        ("rep", ("seq", (_lit("."), _chars(_DIGITS, 1, -1))), 0, 1),
        ("rep", ("seq", (("choice", (_lit("e"), _lit("E"))), ("rep", _chars(((43, 43), (45, 45)), 1, 1), 0, 1),
                         _chars(_DIGITS, 1, -1))), 0, 1),
        ("not", _chars(((48, 57), (46, 46), (101, 101), (69, 69), (43, 43), (45, 45)), 1, 1)))),
    "json-bool": ("choice", (_lit("true"), _lit("false"))),
    "json-null": _lit("null"),
}


class _Mismatch(Exception):
    pass


class _Signature(NodeVisitor[tuple]):
    """A parser's shape, to compare with llama.cpp's JSON grammar (``REFERENCE``); rules
    seen are collected in ``rules`` and queued in ``todo`` (their bodies are compared in
    turn); anything the reference grammar does not hold raises ``_Mismatch``."""

    def __init__(self, arena: Arena, rules: dict[str, int], todo: list[int]) -> None:
        self.arena, self.rules, self.todo = arena, rules, todo

    def of(self, pid: int) -> tuple:
        return self.visit(self.arena.get(pid), pid)

    def visit_Ref(self, p: Ref, pid: int) -> tuple:
        if not self.arena.has_rule(p.name):
            raise _Mismatch
        return self.of(self.arena.rule_id(p.name))

    def visit_Rule(self, p: Rule, pid: int) -> tuple:
        if self.rules.setdefault(p.name, pid) != pid:
            raise _Mismatch  # two different rules under one name
        self.todo.append(pid)
        return ("rule", p.name)

    def visit_Sequence(self, p: Sequence | Choice, pid: int) -> tuple:
        kind = "seq" if isinstance(p, Sequence) else "choice"
        parts: list[tuple] = []
        for c in p.children:
            sig = self.of(c)
            parts.extend(sig[1] if sig[0] == kind else (sig,))
        return (kind, tuple(parts))

    visit_Choice = visit_Sequence

    def visit_Literal(self, p: Literal, pid: int) -> tuple:
        return ("lit", p.literal)

    def visit_Space(self, p: Space, pid: int) -> tuple:
        return _WS_SIG

    def visit_String(self, p: String, pid: int) -> tuple:
        return ("string", p.delimiter)

    def visit_Chars(self, p: Chars, pid: int) -> tuple:
        return ("chars", tuple(sorted(p.ranges)), p.negated, p.min_count, p.max_count)

    def visit_Repetition(self, p: Repetition, pid: int) -> tuple:
        return ("rep", self.of(p.child), p.min_count, p.max_count)

    def visit_Not(self, p: Not, pid: int) -> tuple:
        return ("not", self.of(p.child))

    def generic_visit(self, p: ParserNode, pid: int) -> tuple:
        raise _Mismatch


def is_standard_json_value(arena: Arena, pid: int) -> bool:
    """Is parser ``pid`` a rule ``json-value`` whose whole graph is llama.cpp's JSON grammar?"""
    p = arena.get(pid)
    if not isinstance(p, Rule) or p.name != "json-value":
        return False
    rules: dict[str, int] = {"json-value": pid}
    todo = [pid]
    done: set[int] = set()
    signature = _Signature(arena, rules, todo)
    try:
        while todo:
            rid = todo.pop()
            if rid in done:
                continue
            done.add(rid)
            rule = arena.get(rid)
            assert isinstance(rule, Rule)
            if REFERENCE.get(rule.name) != signature.of(rule.child):
                return False
    except _Mismatch:
        return False
    return set(rules) == set(REFERENCE)


# --- scanning ------------------------------------------------------------------------

_WS = r"[ \t\n\v\f\r]*+"  # std::isspace in the "C" locale, as the space parser
_STR = r'"(?:[^"\\]++|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*+"'
_NUM = r"-?+(?:0|[1-9][0-9]*+)(?:\.[0-9]++)?+(?:[eE][+-]?+[0-9]++)?+(?![0-9.eE+-])"
_SCALAR = f"(?:{_STR}|{_NUM}|true|false|null)"

_ws = empty_match(re.compile(_WS))
_string = re.compile(_STR).match
_scalar = re.compile(_SCALAR).match
# runs of flat members, so long arrays and objects of scalars cost one regex call
_array_run = empty_match(re.compile(f"(?:{_SCALAR}{_WS},{_WS})*+"))
_object_run = empty_match(re.compile(f"(?:{_STR}{_WS}:{_WS}{_SCALAR}{_WS},{_WS})*+"))
_CLOSER = {"[": "]", "{": "}"}


def scan_value(text: str, pos: int, n: int, depth_room: int) -> tuple[int, list[int], list[tuple[int, int, int]]]:
    """``(end, [], closed)`` for a complete JSON value at ``pos``, or ``(-1, starts, closed)``
    with the values still open where the scan stopped (a scan from any of them stops there
    too). ``closed`` lists the ``(start, end, level)`` of the containers it completed (level 1
    for ``pos`` itself): a scan from one of them with ``depth_room - 2 * (level - 1)``, the
    room the combinators have there, gives that end (the depth checks are the same).

    ``depth_room`` is how many rule nodes may still open (the engine's depth cap): a
    value whose tree would be deeper answers unknown. Success means the combinators
    succeed with the same end without looking at position ``n`` or beyond.
    """
    stack: list[int] = []
    closed: list[tuple[int, int, int]] = []
    kinds: list[str] = []
    i = pos
    while True:
        # a value starts at i
        if i >= n:
            return -1, stack, closed
        c = text[i]
        if c == "[" or c == "{":
            stack.append(i)
            kinds.append(c)
            if 2 * len(stack) + 2 > depth_room:
                return -1, stack, closed
            i = _ws(text, i + 1).end()
            if i >= n:
                return -1, stack, closed
            if text[i] == _CLOSER[c]:
                i += 1
                closed.append((stack[-1], i, len(stack)))
                stack.pop()
                kinds.pop()
            elif c == "[":
                i = _array_run(text, i).end()
                continue
            else:
                i = _object_run(text, i).end()
                i = _key(text, i, n)
                if i < 0:
                    return -1, stack, closed
                continue
        else:
            m = _scalar(text, i)
            if m is None or 2 * len(stack) + 2 > depth_room:
                stack.append(i)  # a scan from this value stops here too
                return -1, stack, closed
            if m.end() >= n and not stack and c not in "\"tfn":
                return -1, [i], closed  # a number's look-ahead needs the next character
            i = m.end()
        # a value ended at i: close containers until a comma asks for the next one
        while stack:
            i = _ws(text, i).end()
            if i >= n:
                return -1, stack, closed
            c = text[i]
            if c == ",":
                i = _ws(text, i + 1).end()
                if kinds[-1] == "[":
                    i = _array_run(text, i).end()
                else:
                    i = _key(text, _object_run(text, i).end(), n)
                    if i < 0:
                        return -1, stack, closed
                break
            if c != _CLOSER[kinds[-1]]:
                return -1, stack, closed
            i += 1
            closed.append((stack[-1], i, len(stack)))
            stack.pop()
            kinds.pop()
        else:
            return i, stack, closed


def _key(text: str, i: int, n: int) -> int:
    """After ``key ws : ws``, or -1."""
    m = _string(text, i)
    if m is None:
        return -1
    i = _ws(text, m.end()).end()
    if i >= n or text[i] != ":":
        return -1
    return _ws(text, i + 1).end()


# --- the tree, when it is read -------------------------------------------------------

_scalar_rule = {'"': "json-string", "t": "json-bool", "f": "json-bool", "n": "json-null"}


N = TypeVar("N")
# make(rule, start, end, text, children) -> node
MakeNode = Callable[[str, int, int, str, "tuple[N, ...]"], N]


def build_tree(text: str, base: int, make: MakeNode[N]) -> N:
    """The ``json-value`` node the combinators build for ``text`` (one complete value).

    ``make(rule, start, end, text, children)`` makes a node; ``base`` is where ``text``
    starts in the parsed text. Iterative, so depth costs no Python frames.
    """
    stack: list[tuple[int, str, list[N]]] = []  # (start, rule, children) of open containers
    i = 0
    while True:
        c = text[i]
        if c == "[" or c == "{":
            stack.append((i, "json-array" if c == "[" else "json-object", []))
            i = _ws(text, i + 1).end()
            if text[i] == _CLOSER[c]:
                i += 1
                s, rule, kids = stack.pop()
                node = make("json-value", base + s, base + i, text[s:i],
                            (make(rule, base + s, base + i, text[s:i], ()),))
            else:
                if c == "{":
                    i = _tree_key(text, i, base, stack[-1][2], make)
                continue
        else:
            m = _scalar(text, i)
            assert m is not None, "build_tree reads a value the scan accepted"
            e = m.end()
            piece = text[i:e]
            node = make("json-value", base + i, base + e, piece,
                        (make(_scalar_rule.get(c, "json-number"), base + i, base + e, piece, ()),))
            i = e
        while stack:
            stack[-1][2].append(node)
            i = _ws(text, i).end()
            if text[i] == ",":
                i = _ws(text, i + 1).end()
                if stack[-1][1] == "json-object":
                    i = _tree_key(text, i, base, stack[-1][2], make)
                break
            i += 1
            s, rule, kids = stack.pop()
            node = make("json-value", base + s, base + i, text[s:i],
                        (make(rule, base + s, base + i, text[s:i], tuple(kids)),))
        else:
            return node


def _tree_key(text: str, i: int, base: int, kids: list[N], make: MakeNode[N]) -> int:
    m = _string(text, i)
    assert m is not None, "build_tree reads a value the scan accepted"
    e = m.end()
    kids.append(make("json-string", base + i, base + e, text[i:e], ()))
    i = _ws(text, e).end()
    return _ws(text, i + 1).end()
