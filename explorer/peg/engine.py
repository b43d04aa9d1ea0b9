"""The PEG engine: run an ``Arena`` over a text, with llama.cpp's partial-input semantics.

Input: an ``Arena`` and a text (the model output, generation prompt in front). Output: a
``ParseResult`` (fail / success / need-more-input, the span, and the AST nodes, each with
its rule or tag, span, text and whether it is partial).

Semantics follow ``parser_executor`` in llama.cpp's ``common/peg-parser.cpp``. With the
*lenient* flag (what ``common_chat_parse`` always uses) a parser that runs into the end of
the text answers need-more-input instead of failing. Positions are character offsets
into a Python ``str`` (llama.cpp counts bytes; for valid UTF-8 the answers coincide, and
``byte_offset`` converts).

Each parser is compiled once into a closure ``fn(pos) -> (status, start, end, nodes)``.
A closure that looks at the end of the text sets ``ctx.touched``: the incremental mode
(``memo=True``) caches every result that did not, because such a result cannot change
when the text grows (see ``explorer.output.streaming``).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import MemberDescriptorType

from explorer.errors import OutputParseError, PegError
from explorer.peg import json_fast
from explorer.peg.arena import Arena
from explorer.peg.graph import first_chars, tag_reachable
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
from explorer.peg.scanners import (
    FAIL,
    NEED_MORE_INPUT,
    SUCCESS,
    ParseContext,
    Raw,
    chars_scanner,
    literal_scanner,
    match_space,
    string_scanner,
    until_scanner,
)
from explorer.peg.visitor import NodeVisitor

_RECURSION_LIMIT = 60_000
# Rule and tag nodes open at once. llama.cpp has no such limit: it recurses on the C++
# stack until the thread runs out of it. Real outputs nest a few dozen levels; stopping
# here keeps a run of 100,000 '[' as cheap as a benign output instead of descending
# until Python's recursion limit.
MAX_NODE_DEPTH = 2_000
STATUS_NAMES = ("fail", "success", "need_more_input")


@contextmanager
def deep_recursion() -> Iterator[None]:
    """Room for deeply nested output while parsing or walking its tree.

    Each nesting level costs a dozen Python frames. Since 3.11 pure-Python calls do not
    grow the C stack, so a high limit is safe; the process's own limit is put back after.
    """
    limit = sys.getrecursionlimit()
    if limit < _RECURSION_LIMIT:
        sys.setrecursionlimit(_RECURSION_LIMIT)
    try:
        yield
    finally:
        if limit < _RECURSION_LIMIT:
            sys.setrecursionlimit(limit)


class AstNode:
    """One node of the parse tree: a rule or a tag, the span it consumed, its children."""

    __slots__ = ("rule", "tag", "start", "end", "_text", "_source", "children", "is_partial", "tagged")
    rule: str
    tag: str
    start: int
    end: int
    _text: str | None
    _source: str | None
    children: tuple[AstNode, ...]
    is_partial: bool
    tagged: bool

    def __init__(self, rule: str, tag: str, start: int, end: int, text: str | None,
                 children: tuple[AstNode, ...], is_partial: bool, tagged: bool | None = None,
                 source: str | None = None) -> None:
        """``text=None`` with ``source``: the text is ``source[start:end]``, cut when first read."""
        self.rule = rule
        self.tag = tag
        self.start = start
        self.end = end
        self._text = text
        self._source = source
        self.children = children
        self.is_partial = is_partial
        # whether a tag may occur in this subtree: mappers skip the subtrees without one
        self.tagged = bool(tag) or (any(c.tagged for c in children) if tagged is None else tagged)

    @property
    def text(self) -> str:
        text = self._text
        if text is None:
            text = self._text = self._source[self.start:self.end]  # type: ignore[index]  # _source is set while _text is None
            self._source = None
        return text

    @text.setter
    def text(self, value: str) -> None:
        self._text, self._source = value, None

    @property
    def label(self) -> str:
        return f"rule {self.rule}" if self.rule else f"tag {self.tag}"

    def find_by_tag(self, tag: str, max_depth: int = 3) -> AstNode | None:
        for child in self.children:
            if child.tag == tag:
                return child
            if max_depth > 1:
                found = child.find_by_tag(tag, max_depth - 1)
                if found is not None:
                    return found
        return None

    def find_by_rule(self, rule: str, max_depth: int = 3) -> AstNode | None:
        for child in self.children:
            if child.rule == rule:
                return child
            if max_depth > 1:
                found = child.find_by_rule(rule, max_depth - 1)
                if found is not None:
                    return found
        return None

    def walk(self):
        """Pre-order: this node, then each child's subtree (llama.cpp's ``visit``)."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def walk_tagged(self):
        """Pre-order over the tagged nodes only (what the generic mapper reads)."""
        stack = [self]
        while stack:
            node = stack.pop()
            if node.tag:
                yield node
            stack.extend(c for c in reversed(node.children) if c.tagged)

    def to_json(self) -> dict:
        return {"rule": self.rule, "tag": self.tag, "start": self.start, "end": self.end,
                "text": self.text, "is_partial": self.is_partial,
                "children": [c.to_json() for c in self.children]}

    def __repr__(self) -> str:
        return f"AstNode({self.label}, {self.start}..{self.end}, {self.text[:30]!r})"


_CHILDREN: MemberDescriptorType = AstNode.__dict__["children"]  # the slot, under the property below


class LazyJsonValue(AstNode):
    """A ``json-value`` node from the JSON fast path: its subtree is built when first read.

    Equal in every field to the node the combinators build (``json_fast.build_tree``).
    """

    __slots__ = ()

    def __init__(self, text: str, start: int, end: int) -> None:
        self.rule, self.tag, self.start, self.end, self._text = "json-value", "", start, end, text
        self._source = None
        self.is_partial, self.tagged = False, False
        _CHILDREN.__set__(self, None)

    @property
    def children(self) -> tuple[AstNode, ...]:
        kids = _CHILDREN.__get__(self, AstNode)
        if kids is None:
            kids = json_fast.build_tree(self.text, self.start, _plain_node).children
            _CHILDREN.__set__(self, kids)
        return kids

    @children.setter
    def children(self, value: tuple[AstNode, ...]) -> None:
        _CHILDREN.__set__(self, value)


def _plain_node(rule: str, start: int, end: int, text: str, children: tuple) -> AstNode:
    return AstNode(rule, "", start, end, text, children, False, False)


@dataclass(frozen=True)
class ParseResult:
    status: int
    start: int
    end: int
    nodes: tuple[AstNode, ...]

    @property
    def status_name(self) -> str:
        return STATUS_NAMES[self.status]

    def fail(self) -> bool:
        return self.status == FAIL

    def success(self) -> bool:
        return self.status == SUCCESS

    def need_more_input(self) -> bool:
        return self.status == NEED_MORE_INPUT

    def walk(self):
        for node in self.nodes:
            yield from node.walk()

    def dump(self) -> str:
        """The AST as indented lines (like ``common_peg_ast_arena::dump``)."""
        lines: list[str] = []

        def emit(node: AstNode, depth: int) -> None:
            part = " (partial)" if node.is_partial else ""
            lines.append(f"{'  ' * depth}{node.label} [{node.start}:{node.end}]{part} {node.text!r}")
            for child in node.children:
                emit(child, depth + 1)

        for node in self.nodes:
            emit(node, 0)
        return "\n".join(lines)


class Engine:
    """A compiled arena. ``memo=True`` keeps results that cannot change as text grows."""

    def __init__(self, arena: Arena, *, memo: bool = False, json_fast: bool = True) -> None:
        self.arena = arena
        self.memo = memo
        self.json_fast = json_fast
        # what the JSON fast path already knows at a position: (end, depth room it needs)
        # of a complete value, or (-1, 0) where it cannot answer; per parse, or for the
        # engine's life in memo mode (the text only grows, and there the combinators resume)
        self._json_known: dict[int, tuple[int, int]] = {}
        self.ctx = ParseContext()
        self._caches: list[dict[int, Raw]] = []
        self._may_tag = tag_reachable(arena)
        self._firsts = first_chars(arena)
        # Closures look their children up in this list, so it is filled in place.
        self._fns: list[Callable[[int], Raw]] = []
        compiled = [_COMPILER.visit(p, self, i) for i, p in enumerate(arena.parsers)]
        if memo:
            compiled = [self._memoize(i, f) for i, f in enumerate(compiled)]
        self._fns.extend(compiled)
        self._text_seen = ""

    # --- public ------------------------------------------------------------------

    def parse(self, text: str, *, lenient: bool = True, start: int = 0,
              parser_id: int | None = None) -> ParseResult:
        pid = self.arena.root if parser_id is None else parser_id
        if not 0 <= pid < len(self._fns):
            raise PegError("No root parser set" if parser_id is None else f"invalid parser id {pid}")
        ctx = self.ctx
        if self.memo:
            if lenient != ctx.lenient or not text.startswith(self._text_seen):
                self.reset()
            self._text_seen = text
        else:
            self._json_known.clear()
        ctx.text, ctx.n, ctx.lenient, ctx.touched, ctx.depth = text, len(text), lenient, False, 0
        try:
            with deep_recursion():
                status, s, e, nodes = self._fns[pid](start)
        except NodeDepthExceeded as exc:
            self.reset()
            raise OutputParseError(
                f"the output nests too deeply for the parser: more than {MAX_NODE_DEPTH} rules open at once "
                f"(JSON about {MAX_NODE_DEPTH // 2} levels deep) at character {exc.pos}; llama.cpp has no "
                "such limit and recurses until its thread's stack runs out") from None
        except RecursionError:
            self.reset()
            raise OutputParseError("the output nests too deeply for the parser "
                                   "(recursion limit reached)") from None
        return ParseResult(status, s, e, tuple(nodes))

    def reset(self) -> None:
        for cache in self._caches:
            cache.clear()
        self._json_known.clear()
        self._text_seen = ""

    # --- compilation ---------------------------------------------------------------

    def _memoize(self, pid: int, fn: Callable[[int], Raw]) -> Callable[[int], Raw]:
        cache: dict[int, Raw] = {}
        self._caches.append(cache)
        ctx = self.ctx

        def memo(pos: int) -> Raw:
            hit = cache.get(pos)
            if hit is not None:
                return hit
            outer = ctx.touched
            ctx.touched = False
            r = fn(pos)
            if ctx.touched:
                return r
            cache[pos] = r
            ctx.touched = outer
            return r

        return memo

    def _progress(self) -> dict | None:
        """A table where a long scan records how far its result is final (memo mode only)."""
        if not self.memo:
            return None
        table: dict = {}
        self._caches.append(table)
        return table



class _Compile(NodeVisitor[Callable[[int], Raw]], exhaustive=True):
    """One parser of the engine's arena as its closure: ``visit_<Kind>(node, engine, pid)``.
    Stateless (one instance serves every engine); a parse never dispatches on kinds."""

    def visit_Epsilon(self, p: Epsilon, e: Engine, pid: int) -> Callable[[int], Raw]:
        return lambda pos: (SUCCESS, pos, pos, ())

    def visit_Start(self, p: Start, e: Engine, pid: int) -> Callable[[int], Raw]:
        return lambda pos: (SUCCESS if pos == 0 else FAIL, pos, pos, ())

    def visit_End(self, p: End, e: Engine, pid: int) -> Callable[[int], Raw]:
        ctx = e.ctx

        def end(pos: int) -> Raw:
            if pos >= ctx.n:
                ctx.touched = True
                return (SUCCESS, pos, pos, ())
            return (FAIL, pos, pos, ())
        return end

    def visit_Literal(self, p: Literal, e: Engine, pid: int) -> Callable[[int], Raw]:
        return literal_scanner(e.ctx, p.literal)

    def visit_Sequence(self, p: Sequence, e: Engine, pid: int) -> Callable[[int], Raw]:
        return _sequence(e._fns, p.children)

    def visit_Choice(self, p: Choice, e: Engine, pid: int) -> Callable[[int], Raw]:
        return _choice(e.ctx, e._fns, p.children, e._firsts)

    def visit_Repetition(self, p: Repetition, e: Engine, pid: int) -> Callable[[int], Raw]:
        return _repetition(e.ctx, e._fns, p.child, p.min_count, p.max_count, e._progress())

    def visit_And(self, p: And, e: Engine, pid: int) -> Callable[[int], Raw]:
        fns, child = e._fns, p.child
        return lambda pos: (fns[child](pos)[0], pos, pos, ())

    def visit_Not(self, p: Not, e: Engine, pid: int) -> Callable[[int], Raw]:
        fns, child = e._fns, p.child
        flip = (SUCCESS, FAIL, NEED_MORE_INPUT)
        return lambda pos: (flip[fns[child](pos)[0]], pos, pos, ())

    def visit_AnyChar(self, p: AnyChar, e: Engine, pid: int) -> Callable[[int], Raw]:
        ctx = e.ctx

        def any_char(pos: int) -> Raw:
            if pos >= ctx.n:
                ctx.touched = True
                return (NEED_MORE_INPUT if ctx.lenient else FAIL, pos, pos, ())
            return (SUCCESS, pos, pos + 1, ())
        return any_char

    def visit_Space(self, p: Space, e: Engine, pid: int) -> Callable[[int], Raw]:
        ctx = e.ctx
        match = match_space

        def space(pos: int) -> Raw:
            end = match(ctx.text, pos).end()
            if end >= ctx.n:
                ctx.touched = True
            return (SUCCESS, pos, end, ())
        return space

    def visit_Chars(self, p: Chars, e: Engine, pid: int) -> Callable[[int], Raw]:
        return chars_scanner(e.ctx, p)

    def visit_String(self, p: String, e: Engine, pid: int) -> Callable[[int], Raw]:
        return string_scanner(e.ctx, p.delimiter, e._progress())

    def visit_Until(self, p: Until, e: Engine, pid: int) -> Callable[[int], Raw]:
        return until_scanner(e.ctx, p.delimiters, e._progress())

    def visit_Schema(self, p: Schema | Gbnf | Ac, e: Engine, pid: int) -> Callable[[int], Raw]:
        fns, child = e._fns, p.child
        return lambda pos: fns[child](pos)

    visit_Gbnf = visit_Ac = visit_Schema

    def visit_Rule(self, p: Rule, e: Engine, pid: int) -> Callable[[int], Raw]:
        node = _node(e.ctx, e._fns, p.child, p.name, "", e._may_tag[p.child], e.memo)
        if p.name == "json-value" and e.json_fast and json_fast.is_standard_json_value(e.arena, pid):
            return _fast_json_value(e.ctx, node, e._json_known)
        return node

    def visit_Tag(self, p: Tag, e: Engine, pid: int) -> Callable[[int], Raw]:
        return _node(e.ctx, e._fns, p.child, "", p.tag, e._may_tag[p.child], e.memo)

    def visit_Ref(self, p: Ref, e: Engine, pid: int) -> Callable[[int], Raw]:
        fns, name, arena = e._fns, p.name, e.arena
        if arena.has_rule(name):
            rid = arena.rule_id(name)
            return lambda pos: fns[rid](pos)

        def dangling(pos: int) -> Raw:
            raise PegError(f"Rule not found: {name}")
        return dangling

    def visit_Atomic(self, p: Atomic, e: Engine, pid: int) -> Callable[[int], Raw]:
        fns, child = e._fns, p.child

        def atomic(pos: int) -> Raw:
            r = fns[child](pos)
            if r[0] == NEED_MORE_INPUT and r[3]:
                return (NEED_MORE_INPUT, r[1], r[2], ())
            return r
        return atomic

    def generic_visit(self, p: ParserNode, e: Engine, pid: int) -> Callable[[int], Raw]:
        raise PegError(f"parser {pid}: unknown parser kind {type(p).__name__}")


_COMPILER = _Compile()


def _sequence(fns, children: tuple[int, ...]) -> Callable[[int], Raw]:
    # Nodes are gathered only when two children give some: a single child's tuple passes
    # through as it is (a long array's elements are not copied at every level).
    def sequence(pos: int) -> Raw:
        table = fns
        start = pos
        first: tuple = ()
        joined = False
        nodes: list[AstNode] | None = None
        for cid in children:
            status, _, end, kids = table[cid](pos)
            if status == FAIL:
                return (FAIL, start, end, ())
            if kids:
                if nodes is not None:
                    nodes.extend(kids)
                elif not first:
                    first = kids
                elif joined:
                    nodes = [*first, *kids]
                else:
                    first, joined = first + kids, True  # two children: one copy
            if status == NEED_MORE_INPUT:
                return (NEED_MORE_INPUT, start, end, first if nodes is None else tuple(nodes))
            pos = end
        return (SUCCESS, start, pos, first if nodes is None else tuple(nodes))

    return sequence


def _choice(ctx: ParseContext, fns, children: tuple[int, ...],
            firsts: list[frozenset[str] | None]) -> Callable[[int], Raw]:
    # An option whose first character is known fails outright on any other character
    # (before the end of the text), so it is not tried: the answer is the same.
    options = tuple((cid, firsts[cid]) for cid in children)
    if all(first is None for _, first in options):
        def choice(pos: int) -> Raw:
            for cid in children:
                r = fns[cid](pos)
                if r[0] != FAIL:
                    return r
            return (FAIL, pos, pos, ())
        return choice

    def dispatching_choice(pos: int) -> Raw:
        c = ctx.text[pos] if pos < ctx.n else None
        for cid, first in options:
            if c is not None and first is not None and c not in first:
                continue
            r = fns[cid](pos)
            if r[0] != FAIL:
                return r
        return (FAIL, pos, pos, ())

    return dispatching_choice


def _repetition(ctx: ParseContext, fns, child: int, lo: int, hi: int,
                progress: dict | None) -> Callable[[int], Raw]:
    # progress[start] = (pos, count, nodes, node_count) after the iterations whose results
    # are final, so a growing text resumes the loop instead of replaying it.
    def repetition(pos: int) -> Raw:
        run = fns[child]
        start = pos
        count = 0
        nodes: list[AstNode] = []
        stable = progress is not None
        if progress is not None:  # (stable, so far)
            saved = progress.get(start)
            if saved is not None:
                pos, count, nodes, size = saved
                del nodes[size:]  # drop what a non-final iteration appended last time
        while hi == -1 or count < hi:
            if pos >= ctx.n:
                ctx.touched = True
                break
            if stable:
                outer = ctx.touched
                ctx.touched = False
                status, _, end, kids = run(pos)
                stable = not ctx.touched
                ctx.touched = outer or ctx.touched
            else:
                status, _, end, kids = run(pos)
            if status == SUCCESS:
                if end == pos:
                    break  # an empty match would loop forever
                if kids:
                    nodes.extend(kids)
                pos = end
                count += 1
                if stable and progress is not None:
                    progress[start] = (pos, count, nodes, len(nodes))
                continue
            if status == NEED_MORE_INPUT:
                if kids:
                    nodes.extend(kids)
                return (NEED_MORE_INPUT, start, end, tuple(nodes))
            break
        if lo > 0 and count < lo:
            if pos >= ctx.n and ctx.lenient:
                return (NEED_MORE_INPUT, start, pos, tuple(nodes))
            return (FAIL, start, pos, ())
        return (SUCCESS, start, pos, tuple(nodes))

    return repetition


class NodeDepthExceeded(Exception):
    """Internal: more than MAX_NODE_DEPTH rule or tag nodes open (turned into OutputParseError)."""

    def __init__(self, pos: int) -> None:
        super().__init__(pos)
        self.pos = pos


def _node(ctx: ParseContext, fns, child: int, rule: str, tag: str, may_tag: bool,
          memo: bool) -> Callable[[int], Raw]:
    def node(pos: int) -> Raw:
        depth = ctx.depth + 1
        if depth > MAX_NODE_DEPTH:
            raise NodeDepthExceeded(pos)
        ctx.depth = depth
        status, s, e, kids = fns[child](pos)
        ctx.depth = depth - 1  # an exception abandons the parse, and parse() starts again at 0
        if status == FAIL:
            return (status, s, e, kids)
        if ctx.touched or not memo:
            # rebuilt at the next parse, not cached: cut the text only if someone reads it
            made = AstNode(rule, tag, s, e, None, tuple(kids), status == NEED_MORE_INPUT, may_tag, ctx.text)
        else:
            # may be cached for the engine's life: hold the piece, not the whole text
            made = AstNode(rule, tag, s, e, ctx.text[s:e], tuple(kids), status == NEED_MORE_INPUT, may_tag)
        return (status, s, e, (made,))

    return node


def _fast_json_value(ctx: ParseContext, slow: Callable[[int], Raw],
                     known: dict[int, tuple[int, int]]) -> Callable[[int], Raw]:
    scan = json_fast.scan_value
    unknown = (-1, 0)

    def json_value(pos: int) -> Raw:
        room = MAX_NODE_DEPTH - ctx.depth
        entry = known.get(pos)
        if entry is not None and (entry[0] < 0 or entry[1] <= room):
            end = entry[0]
        else:
            end, open_starts, closed = scan(ctx.text, pos, ctx.n, room)
            if end < 0:
                # The values still open where the scan stopped would stop there again:
                # leave them to the combinators, which meet the completed ones on the way
                # with the depth room they had in this scan.
                for start, stop, level in closed:
                    known[start] = (stop, room - 2 * (level - 1))
                for start in open_starts:
                    known[start] = unknown
                known[pos] = unknown
        if end < 0:
            return slow(pos)
        return (SUCCESS, pos, end, (LazyJsonValue(ctx.text[pos:end], pos, end),))

    return json_value


def parse(arena: Arena, text: str, *, lenient: bool = True, start: int = 0) -> ParseResult:
    """Parse ``text`` from ``start`` with the arena's root (one-shot helper)."""
    return engine_for(arena).parse(text, lenient=lenient, start=start)


def engine_for(arena: Arena) -> Engine:
    """The arena's compiled (non-memoising) engine, built once per arena and thread.

    An engine holds the text it is parsing, so threads (Streamlit sessions) sharing one
    arena each get their own.
    """
    engines = arena.__dict__.get("_engines")
    if engines is None:
        engines = {}
        object.__setattr__(arena, "_engines", engines)
    key = threading.get_ident()
    engine = engines.get(key)
    if engine is None:
        engine = engines[key] = Engine(arena)
    return engine


def byte_offset(text: str, char_offset: int) -> int:
    """llama.cpp's byte position for a character offset into ``text``."""
    return len(text[:char_offset].encode("utf-8", "surrogatepass"))
