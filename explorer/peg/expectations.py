"""Where and why a parse failed: the furthest failure and what was expected there.

Input: an ``Arena`` and the text the engine saw (generation prompt + model output).
Output: ``None`` when the text parses as a final (non-lenient) input, else a frozen
``FurthestFailure``: the furthest character offset at which any terminal parser failed,
the terminals that would have let the parse go on there (literals, character classes,
end of input, ...) and the named rules and tags open at that point. This is the
"furthest named rule" report of parsimonious-style PEG libraries, for triage; llama.cpp
itself only says that the output does not match.

The diagnosis is a separate pass with its own small interpreter of the arena: the
engine's normal path (``explorer.peg.engine``) is not touched, so its results, speed and
llama.cpp fidelity cannot change. The interpreter tries every option of a choice (the
engine skips options by their first character) and keeps the engine's JSON fast path
only for arrays and objects that complete, whose inner failures can never be the
furthest; everything else runs terminal by terminal so each failure is seen. The
terminals reuse the engine's scanners (``explorer.peg.scanners``), so success, failure
and end positions are the engine's (tests compare the two on llama.cpp's parsers).

Rules of the record: a failure at a lower offset than the furthest one is dropped, one
at the same offset is merged (expected items deduplicated, in the order they were
tried; the open rules cut to what all merged failures share). Failures inside ``&``/``!``
look-aheads are not recorded; the look-ahead's own failure is. A repetition that stops
at the end of the text still reports what its next item would have needed there. Optional
whitespace (``ws``) never fails and is not listed. A composite that fails while no
terminal reached its position records its own notation ("a named rule when nothing finer
is known").

Bound: texts over ``MAX_DIAGNOSED_BYTES`` (1 MB of UTF-8) are not diagnosed; the result
is then built from the engine's own (non-lenient) parse end, with ``expected == ()``, and
``describe()`` says so. Nesting is capped as in the engine (``MAX_NODE_DEPTH``):
deeper output raises ``OutputParseError``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from explorer.errors import OutputParseError, PegError
from explorer.peg import json_fast
from explorer.peg.arena import Arena
from explorer.peg.engine import MAX_NODE_DEPTH, deep_recursion, engine_for
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
from explorer.peg.notation import expr
from explorer.peg.scanners import FAIL, ParseContext, chars_scanner, match_space, string_scanner, until_scanner
from explorer.peg.visitor import NodeVisitor

MAX_DIAGNOSED_BYTES = 1_000_000
FOUND_CHARS = 40
END_OF_INPUT = "end of input"
ANY_CHARACTER = "any character"
START_OF_INPUT = "start of input"
HEX_DIGIT = "[0-9a-fA-F]"

Fn = Callable[[int], int]  # position -> end of the match, or -1 for failure


@dataclass(frozen=True)
class FurthestFailure:
    """The furthest point a parse reached, and what would have let it go on there."""

    offset: int  # character offset into the text the engine saw
    line: int  # 1-based
    column: int  # 1-based, in characters
    expected: tuple[str, ...]  # () only when the text was too large to diagnose
    rules: tuple[str, ...]  # named rules and tags open at ``offset``, outermost first
    found: str  # up to FOUND_CHARS characters of the text at ``offset``

    def describe(self) -> str:
        """One plain sentence: where, what was expected (and in which rule), what was found."""
        where = f"at line {self.line}, column {self.column} (offset {self.offset})"
        found = f"found {_quote(self.found)}" if self.found else f"found {END_OF_INPUT}"
        if not self.expected:
            return (f"{where}: the parse stopped here; the input is over {MAX_DIAGNOSED_BYTES:,} bytes, "
                    f"too large for the diagnostic pass, so what was expected is not known; {found}")
        sentence = f"{where}: expected {_either(self.expected)}"
        if self.rules:
            sentence += f" in {self.rules[-1]}"
            if len(self.rules) > 1:
                sentence += f" (inside {' > '.join(self.rules[:-1])})"
        return f"{sentence}; {found}"

    def to_json(self) -> dict[str, Any]:
        return {"offset": self.offset, "line": self.line, "column": self.column,
                "expected": list(self.expected), "rules": list(self.rules), "found": self.found,
                "description": self.describe()}


def furthest_failure(arena: Arena | None, text: str) -> FurthestFailure | None:
    """The furthest failure of a final (non-lenient) parse of ``text``; None when it parses.

    A missing or empty arena is llama.cpp's content-only parser, which accepts any text.
    """
    if arena is None or len(arena) == 0:
        return None
    if len(text) > MAX_DIAGNOSED_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_DIAGNOSED_BYTES:
        return _undiagnosed(arena, text)
    end, record = diagnose(arena, text)
    if end >= 0:
        return None
    return failure_at(text, record.furthest, tuple(record.expected), record.rules or ())


def furthest_attempt(arena: Arena | None, text: str) -> FurthestFailure | None:
    """Where the parser got furthest, whether or not the parse succeeded.

    For a failing parse this is ``furthest_failure``. For one that succeeds (a root with
    no end anchor stops where its calls stop matching and llama.cpp drops the rest) it is
    the furthest terminal failure at or after the end of the parse: what the parser tried
    on the text it left. None when nothing failed there, with no arena, or over the bound.
    """
    if arena is None or len(arena) == 0:
        return None
    if len(text) > MAX_DIAGNOSED_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_DIAGNOSED_BYTES:
        return _undiagnosed(arena, text)
    end, record = diagnose(arena, text)
    if record.furthest < 0 or record.furthest < end:
        return None  # (a failure before the end of a successful parse: an option not taken)
    return failure_at(text, record.furthest, tuple(record.expected), record.rules or ())


def failure_at(text: str, offset: int, expected: tuple[str, ...], rules: tuple[str, ...]) -> FurthestFailure:
    """A ``FurthestFailure`` at ``offset`` of ``text`` (line, column and found filled in)."""
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return FurthestFailure(offset, line, column, expected, rules, text[offset:offset + FOUND_CHARS])


def diagnose(arena: Arena, text: str, *, json_fast: bool = True) -> tuple[int, Recorder]:
    """One non-lenient parse by the diagnostic interpreter: (end or -1, what it recorded).

    ``json_fast``: skip complete JSON arrays and objects in one scan (see
    ``_Compiler._json_containers``). The record of a failing parse is the same either way,
    and so is that of a successful one when it lies at or after the parse's end.
    """
    if not arena.has_root or not 0 <= arena.root < len(arena):
        raise PegError("No root parser set")
    record = Recorder()
    fns = _Compiler(arena, text, record, json_fast).compile()
    with deep_recursion():
        try:
            end = fns[arena.root](0)
        except RecursionError:
            raise OutputParseError("the output nests too deeply for the diagnostic pass "
                                   "(recursion limit reached)") from None
    return end, record


def _undiagnosed(arena: Arena, text: str) -> FurthestFailure | None:
    result = engine_for(arena).parse(text, lenient=False)
    if not result.fail():
        return None
    return failure_at(text, result.end, (), ())


def _quote(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def _either(items: tuple[str, ...]) -> str:
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " or " + items[-1]


# --- the record ------------------------------------------------------------------------


class Recorder:
    """The furthest failure so far: offset, expected items (ordered set), open rules."""

    __slots__ = ("furthest", "expected", "rules", "stack", "quiet")

    def __init__(self) -> None:
        self.furthest = -1
        self.expected: dict[str, None] = {}
        self.rules: tuple[str, ...] | None = None
        self.stack: list[str] = []  # rules and tags open now, outermost first
        self.quiet = 0  # > 0 inside a look-ahead

    def note(self, pos: int, what: str) -> None:
        if self.quiet or pos < self.furthest:
            return
        if pos > self.furthest:
            self.furthest = pos
            self.expected = {what: None}
            self.rules = tuple(self.stack)
            return
        self.expected.setdefault(what, None)
        rules = self.rules or ()
        stack = self.stack
        if len(rules) > len(stack) or rules != tuple(stack[:len(rules)]):
            shared = 0
            for a, b in zip(rules, stack):
                if a != b:
                    break
                shared += 1
            self.rules = rules[:shared]

    def fallback(self, pos: int, what: Callable[[], str]) -> None:
        """Record ``what()`` only when no terminal failed at or beyond ``pos``."""
        if pos > self.furthest and not self.quiet:
            self.note(pos, what())


# --- the interpreter ---------------------------------------------------------------------


class _Compiler(NodeVisitor[Fn], exhaustive=True):
    """The arena as closures ``fn(pos) -> end or -1`` that record their failures: one
    ``visit_<Kind>(node, pid)`` per parser kind."""

    def __init__(self, arena: Arena, text: str, record: Recorder, json_fast: bool = True) -> None:
        self.arena = arena
        self.json_fast = json_fast
        self.text = text
        self.n = len(text)
        self.record = record
        self.ctx = ParseContext()
        self.ctx.text, self.ctx.n, self.ctx.lenient = text, len(text), False
        self.fns: list[Fn] = []
        self.depth = [0]

    def compile(self) -> list[Fn]:
        made = [self.visit(p, pid) for pid, p in enumerate(self.arena.parsers)]
        self.fns.extend(made)
        return self.fns

    def generic_visit(self, p: ParserNode, pid: int) -> Fn:
        raise PegError(f"parser {pid}: unknown parser kind {type(p).__name__}")

    def describe(self, pid: int) -> Callable[[], str]:
        """The parser as an expected item, made when a fallback needs it (most never do)."""
        arena = self.arena
        return lambda: _shown(arena, pid)

    # terminals

    def visit_Epsilon(self, p: Epsilon, pid: int) -> Fn:
        return lambda pos: pos

    def visit_Start(self, p: Start, pid: int) -> Fn:
        note = self.record.note

        def start(pos: int) -> int:
            if pos == 0:
                return 0
            note(pos, START_OF_INPUT)
            return -1
        return start

    def visit_End(self, p: End, pid: int) -> Fn:
        note, n = self.record.note, self.n

        def end(pos: int) -> int:
            if pos >= n:
                return pos
            note(pos, END_OF_INPUT)
            return -1
        return end

    def visit_Literal(self, p: Literal, pid: int) -> Fn:
        lit, size, text, note = p.literal, len(p.literal), self.text, self.record.note
        shown = _quote(lit)

        def literal(pos: int) -> int:
            if text.startswith(lit, pos):
                return pos + size
            note(pos, shown)
            return -1
        return literal

    def visit_AnyChar(self, p: AnyChar, pid: int) -> Fn:
        note, n = self.record.note, self.n

        def any_char(pos: int) -> int:
            if pos < n:
                return pos + 1
            note(pos, ANY_CHARACTER)
            return -1
        return any_char

    def visit_Space(self, p: Space, pid: int) -> Fn:
        match, text = match_space, self.text
        return lambda pos: match(text, pos).end()

    def visit_Chars(self, p: Chars, pid: int) -> Fn:
        scan, note, hi, lo = chars_scanner(self.ctx, p), self.record.note, p.max_count, p.min_count
        shown = _class_text(p)
        text, n = self.text, self.n

        def chars(pos: int) -> int:
            status, _, end, _ = scan(pos)
            if status == FAIL:
                # the class stopped short of its minimum: where the first misfit stands
                stop = pos
                while stop < n and stop - pos < lo and _in_class(p, text[stop]):
                    stop += 1
                note(stop, shown)
                return -1
            if hi == -1 or end - pos < hi:
                note(end, shown)  # one more character of the class would also have done
            return end
        return chars

    def visit_String(self, p: String, pid: int) -> Fn:
        scan, record, text, n = string_scanner(self.ctx, p.delimiter, None), self.record, self.text, self.n
        delim = p.delimiter
        escapes = "[" + ("\\" + delim if delim in "]\\^-" else delim) + "\\\\/bfnrtu]"

        def string(pos: int) -> int:
            status, _, end, _ = scan(pos)
            if status != FAIL:
                return end
            at, what = _string_break(text, n, pos, delim, escapes)
            record.note(at, what)
            return -1
        return string

    def visit_Until(self, p: Until, pid: int) -> Fn:
        scan, note, text, n = until_scanner(self.ctx, p.delimiters, None), self.record.note, self.text, self.n
        # llama.cpp quirk (as the engine): an empty delimiter never matches
        delims = tuple(d for d in p.delimiters if d)
        shown = tuple(_quote(d) for d in delims)

        def until(pos: int) -> int:
            _, _, end, _ = scan(pos)  # never fails on a final text
            if end >= n:
                for s in shown:
                    note(n, s)
            elif not any(text.startswith(d, end) for d in delims):
                tail = text[end:]  # a delimiter cut short by the end of the text
                for d, s in zip(delims, shown):
                    if d.startswith(tail):
                        note(end, s)
            return end
        return until

    # combinators

    def visit_Sequence(self, p: Sequence, pid: int) -> Fn:
        fns, children = self.fns, p.children

        def sequence(pos: int) -> int:
            for cid in children:
                pos = fns[cid](pos)
                if pos < 0:
                    return -1
            return pos
        return sequence

    def visit_Choice(self, p: Choice, pid: int) -> Fn:
        fns, children, record = self.fns, p.children, self.record
        shown = self.describe(pid)

        def choice(pos: int) -> int:
            for cid in children:
                end = fns[cid](pos)
                if end >= 0:
                    return end
            record.fallback(pos, shown)
            return -1
        return choice

    def visit_Repetition(self, p: Repetition, pid: int) -> Fn:
        fns, child, lo, hi, n, record = self.fns, p.child, p.min_count, p.max_count, self.n, self.record
        shown = self.describe(child)

        def repetition(pos: int) -> int:
            run = fns[child]
            count = 0
            while hi == -1 or count < hi:
                if pos >= n:
                    # llama.cpp stops at the end without trying the item; for the record,
                    # what the item would have needed next is still an expectation here
                    run(pos)
                    break
                end = run(pos)
                if end < 0 or end == pos:
                    break
                pos = end
                count += 1
            if count < lo:
                record.fallback(pos, shown)
                return -1
            return pos
        return repetition

    def visit_And(self, p: And | Not, pid: int) -> Fn:
        fns, child, record = self.fns, p.child, self.record
        positive = isinstance(p, And)
        child_text = self.describe(child)

        def lookahead(pos: int) -> int:
            record.quiet += 1
            try:
                matched = fns[child](pos) >= 0
            finally:
                record.quiet -= 1
            if matched == positive:
                return pos
            if not record.quiet:
                record.note(pos, child_text() if positive else f"anything but {child_text()}")
            return -1
        return lookahead

    visit_Not = visit_And

    def visit_Schema(self, p: Schema | Gbnf | Ac | Atomic, pid: int) -> Fn:
        fns, child = self.fns, p.child
        return lambda pos: fns[child](pos)

    visit_Gbnf = visit_Ac = visit_Atomic = visit_Schema

    def visit_Rule(self, p: Rule | Tag, pid: int) -> Fn:
        fns, child, stack, depth = self.fns, p.child, self.record.stack, self.depth
        name = p.name if isinstance(p, Rule) else p.tag

        def node(pos: int) -> int:
            if depth[0] >= MAX_NODE_DEPTH:
                raise OutputParseError(
                    f"the output nests too deeply for the diagnostic pass: more than {MAX_NODE_DEPTH} "
                    f"rules open at once at character {pos} (the engine's own cap)")
            depth[0] += 1
            stack.append(name)
            end = fns[child](pos)
            stack.pop()
            depth[0] -= 1
            return end

        if self.json_fast and name == "json-value" and isinstance(p, Rule) \
                and json_fast.is_standard_json_value(self.arena, pid):
            return self._json_containers(node)
        return node

    visit_Tag = visit_Rule

    def _json_containers(self, slow: Fn) -> Fn:
        """Complete JSON arrays and objects in one scan, the rest by ``slow``.

        Every terminal failure inside a container that completes lies before its closing
        bracket, and a failing parse always records a failure at or after the end of
        anything that succeeded (outside look-aheads, where nothing is recorded): so the
        skipped failures could never be the furthest. Scalars go the slow way, because a
        number's failures (one more digit, ".", "e") stand at its end. What a scan learns
        is kept as the engine keeps it, so nested values are not scanned again.
        """
        text, n, depth = self.text, self.n, self.depth
        scan = json_fast.scan_value
        known: dict[int, tuple[int, int]] = {}
        unknown = (-1, 0)

        def json_value(pos: int) -> int:
            if pos >= n or text[pos] not in "[{":
                return slow(pos)
            room = MAX_NODE_DEPTH - depth[0]
            entry = known.get(pos)
            if entry is not None and (entry[0] < 0 or entry[1] <= room):
                end = entry[0]
            else:
                end, open_starts, closed = scan(text, pos, n, room)
                if end < 0:
                    for start, stop, level in closed:
                        known[start] = (stop, room - 2 * (level - 1))
                    for start in open_starts:
                        known[start] = unknown
                    known[pos] = unknown
            return end if end >= 0 else slow(pos)
        return json_value

    def visit_Ref(self, p: Ref, pid: int) -> Fn:
        fns, arena, name = self.fns, self.arena, p.name
        if arena.has_rule(name):
            rid = arena.rule_id(name)
            return lambda pos: fns[rid](pos)

        def dangling(pos: int) -> int:
            raise PegError(f"Rule not found: {name}")
        return dangling




def _class_text(p: Chars) -> str:
    return p.pattern if p.pattern.startswith("[") else f"[{p.pattern}]"


def _shown(arena: Arena, pid: int) -> str:
    """A parser as an expected item: terminals as the report writes them, the rest in notation."""
    p = arena.get(pid)
    if isinstance(p, Literal):
        return _quote(p.literal)
    if isinstance(p, Chars) and (p.min_count, p.max_count) == (1, 1):
        return _class_text(p)
    return expr(arena, pid)


def _in_class(p: Chars, ch: str) -> bool:
    c = ord(ch)
    return any(a <= c <= b for a, b in p.ranges) != p.negated


_ESCAPED = frozenset("\\/bfnrt")
_HEX = frozenset("0123456789abcdefABCDEF")


def _string_break(text: str, n: int, start: int, delim: str, escapes: str) -> tuple[int, str]:
    """Where string content from ``start`` breaks on a final text, and what it needed there."""
    i = start
    while i < n:
        c = text[i]
        if c == delim:
            break  # not reached for a failing scan
        if c != "\\":
            i += 1
            continue
        if i + 1 >= n:
            return n, escapes
        c = text[i + 1]
        if c == delim or c in _ESCAPED:
            i += 2
            continue
        if c != "u":
            return i + 1, escapes
        i += 2
        for _ in range(4):
            if i >= n or text[i] not in _HEX:
                return i, HEX_DIGIT
            i += 1
    return i, _quote(delim)
