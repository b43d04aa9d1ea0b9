"""Tool calls two ways: as the request's parser spells them, and as llama.cpp read them.

Input: the request's ``Arena`` (and, for the parse-tree reading, llama.cpp's
``ParseResult`` with the generation prompt's length). Output:

- ``call_formats``: per function, the fixed text each of its arguments opens with (the
  argument's name inside), the texts that close an argument and the call, and whether
  the parser permutes the required arguments (llama.cpp's ``permute``); the arena's
  ``tool-*`` tags say it, so the autoparser and every handler are read alike.
- ``parsed_calls``: each ``tool`` node of the parse tree as a ``ParsedCall`` (name,
  output span, arguments with their value spans, whether the end of the output cut it).
- ``written_calls``: the calls the model wrote in a text, found by each function's
  opening text, with their arguments in written order (what a corrected output keeps).

All spans are code points into the model output (the generation prompt excluded).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from explorer.peg.arena import Arena
from explorer.peg.engine import AstNode, ParseResult
from explorer.peg.nodes import Atomic, Literal, ParserNode, Ref, Rule, Sequence, Tag, children_of
from explorer.peg.visitor import NodeVisitor
from explorer.triage import markers as mk

_PERMUTED = re.compile(r"-args-\d+$")


# --- the format, from the arena ----------------------------------------------------------


class _FixedText(NodeVisitor[str | None]):
    """The whole text a parser matches when it is fixed (literals only), else None."""

    def __init__(self, arena: Arena) -> None:
        self.arena = arena

    def of(self, pid: int, depth: int) -> str | None:
        return None if depth > 40 else self.visit(self.arena.get(pid), depth)

    def visit_Literal(self, node: Literal, depth: int) -> str | None:
        return node.literal

    def visit_Tag(self, node: Tag | Atomic | Rule, depth: int) -> str | None:
        return self.of(node.child, depth + 1)

    visit_Atomic = visit_Rule = visit_Tag

    def visit_Ref(self, node: Ref, depth: int) -> str | None:
        arena = self.arena
        return self.of(arena.rule_id(node.name), depth + 1) if arena.has_rule(node.name) else None

    def visit_Sequence(self, node: Sequence, depth: int) -> str | None:
        parts = [self.of(c, depth + 1) for c in node.children]
        return None if any(p is None for p in parts) else "".join(p for p in parts if p is not None)

    def generic_visit(self, node: ParserNode, depth: int) -> str | None:
        return None


class _FixedPrefix(NodeVisitor[str]):
    """The fixed text a parser starts with, across fixed children of a sequence."""

    def __init__(self, arena: Arena) -> None:
        self.arena = arena
        self.whole = _FixedText(arena)

    def of(self, pid: int, depth: int) -> str:
        if depth > 40:
            return ""
        whole = self.whole.of(pid, depth)
        return whole if whole is not None else self.visit(self.arena.get(pid), depth)

    def visit_Tag(self, node: Tag | Atomic | Rule, depth: int) -> str:
        return self.of(node.child, depth + 1)

    visit_Atomic = visit_Rule = visit_Tag

    def visit_Ref(self, node: Ref, depth: int) -> str:
        arena = self.arena
        return self.of(arena.rule_id(node.name), depth + 1) if arena.has_rule(node.name) else ""

    def visit_Sequence(self, node: Sequence, depth: int) -> str:
        out = ""
        for child in node.children:
            part = self.whole.of(child, depth + 1)
            if part is None:
                return out + self.of(child, depth + 1)
            out += part
        return out

    def generic_visit(self, node: ParserNode, depth: int) -> str:
        return ""


def fixed_text(arena: Arena, pid: int, depth: int = 0) -> str | None:
    """The whole text a parser matches when it is fixed (literals only), else None."""
    return _FixedText(arena).of(pid, depth)


def fixed_prefix(arena: Arena, pid: int, depth: int = 0) -> str:
    """The fixed text a parser starts with, across fixed children of a sequence."""
    return _FixedPrefix(arena).of(pid, depth)


@dataclass(frozen=True)
class FunctionFormat:
    """How the parser reads one function's call."""

    name: str
    head: str  # the call's fixed opening text with the name (``<function=NAME>\\n``), "" if not fixed
    arg_openers: Mapping[str, str]  # parameter -> its argument's opening tag (``<parameter=NAME>\n``)
    arg_prefixes: Mapping[str, str]  # parameter -> all the fixed text before its value (tag + value prefix)
    arg_closes: tuple[str, ...]  # what ends an argument value (``\\n</parameter>\\n``)
    call_closes: tuple[str, ...]  # what ends the call (``</function>\\n``)
    permuted: bool  # the required arguments are accepted in any order (llama.cpp's permute)


@dataclass(frozen=True)
class _Walk:
    names: list[str]
    heads: list[str]
    openers: dict[str, str]
    prefixes: dict[str, str]
    arg_closes: list[str]
    call_closes: list[str]
    permuted: list[bool]


class _FormatWalk(NodeVisitor[None]):
    """Every ``tool-*`` tag under a parser (through rule refs, the JSON value rules and
    ``skip`` aside), each parser once, into ``w``."""

    def __init__(self, arena: Arena, skip: frozenset[str], w: _Walk) -> None:
        self.arena, self.skip, self.w = arena, skip, w
        self.seen: set[int] = set()

    def walk(self, pid: int) -> None:
        if pid in self.seen or len(self.seen) > 5000:
            return
        self.seen.add(pid)
        self.visit(self.arena.get(pid))

    def visit_Ref(self, node: Ref) -> None:
        if node.name in self.skip or node.name.startswith("json-") or not self.arena.has_rule(node.name):
            return
        if _PERMUTED.search(node.name):
            self.w.permuted.append(True)
        self.walk(self.arena.rule_id(node.name))

    def visit_Rule(self, node: Rule) -> None:
        if _PERMUTED.search(node.name):
            self.w.permuted.append(True)
        self.generic_visit(node)

    def visit_Tag(self, node: Tag) -> None:
        arena, w = self.arena, self.w
        if node.tag == "tool-name":
            name = fixed_text(arena, node.child)
            if name:
                w.names.append(name)
        elif node.tag == "tool-open":
            head = fixed_text(arena, node.child)
            if head:
                w.heads.append(head)
        elif node.tag == "tool-arg":
            _arg(arena, node.child, w)
        elif node.tag == "tool-arg-close":
            close = fixed_text(arena, node.child)
            if close and close not in w.arg_closes:
                w.arg_closes.append(close)
        elif node.tag == "tool-close":
            close = fixed_text(arena, node.child)
            if close and close.strip() and close not in w.call_closes:
                w.call_closes.append(close)
        self.generic_visit(node)

    def generic_visit(self, node: ParserNode) -> None:
        for child in children_of(node):
            self.walk(child)


def _arg(arena: Arena, pid: int, w: _Walk) -> None:
    """The argument's opening tag, the fixed text before its value, and the parameter."""
    name = _Inside(arena, "tool-arg-name").find(pid)
    tag = _Inside(arena, "tool-arg-open").find(pid)
    prefix = fixed_prefix(arena, pid)
    if name and tag and name not in w.openers:
        w.openers[name] = tag
        w.prefixes[name] = prefix or tag


class _Inside(NodeVisitor[str | None]):
    """The fixed text of the first ``tag`` node under a parser (not through rule refs)."""

    def __init__(self, arena: Arena, tag: str) -> None:
        self.arena, self.tag = arena, tag
        self.seen: set[int] = set()

    def find(self, pid: int) -> str | None:
        if pid in self.seen or len(self.seen) > 200:
            return None
        self.seen.add(pid)
        return self.visit(self.arena.get(pid))

    def visit_Tag(self, node: Tag) -> str | None:
        return fixed_text(self.arena, node.child) if node.tag == self.tag else self.generic_visit(node)

    def visit_Ref(self, node: Ref) -> str | None:
        return None  # the value's rules hold no argument name

    def generic_visit(self, node: ParserNode) -> str | None:
        for child in children_of(node):
            found = self.find(child)
            if found:
                return found
        return None


_CACHE: dict[int, tuple[Arena, dict[str, FunctionFormat]]] = {}


def call_formats(arena: Arena) -> dict[str, FunctionFormat]:
    """Each function's call format, by function name (only functions with a tool-name)."""
    held = _CACHE.get(id(arena))
    if held is not None and held[0] is arena:
        return held[1]
    rules = mk.call_rules(arena)
    out: dict[str, FunctionFormat] = {}
    for rule in rules:
        w = _Walk([], [], {}, {}, [], [], [])
        _FormatWalk(arena, frozenset(r for r in rules if r != rule), w).walk(arena.rule_id(rule))
        if not w.names or w.names[0] in out:
            continue
        name = w.names[0]
        out[name] = FunctionFormat(name, next((h for h in w.heads if name in h), ""), dict(w.openers),
                                   dict(w.prefixes), tuple(w.arg_closes), tuple(w.call_closes), bool(w.permuted))
    if len(_CACHE) > 16:
        _CACHE.clear()
    _CACHE[id(arena)] = (arena, out)
    return out


def tagged(formats: Mapping[str, FunctionFormat]) -> bool:
    """Whether arguments are tagged (one opener per parameter) rather than one JSON object."""
    return any(f.arg_openers for f in formats.values())


# --- the calls llama.cpp read, from the parse tree ----------------------------------------


@dataclass(frozen=True)
class ParsedArg:
    name: str
    start: int  # the tool-arg node
    end: int
    value_start: int  # the value node (string value or JSON value); -1 when none
    value_end: int
    value: str
    is_string: bool  # read as raw text up to the closing tag (an ``until``)
    closed: bool  # a tool-arg-close node matched


@dataclass(frozen=True)
class ParsedCall:
    name: str
    start: int
    end: int
    args_start: int  # the tool-args node; -1 when none
    args_end: int
    args: tuple[ParsedArg, ...]
    partial: bool  # the end of the output cut the call itself
    wrapper_partial: bool  # an enclosing rule (the call's wrapper) was cut, the call itself complete
    closed: bool  # a tool-close node with text matched


def _out(pos: int, gp_len: int) -> int:
    return max(0, pos - gp_len)


def _first(node: AstNode, tag: str) -> AstNode | None:
    for n in node.walk():
        if n is not node and n.tag == tag:
            return n
    return None


def _parsed_arg(node: AstNode, gp_len: int) -> ParsedArg | None:
    name_node = _first(node, "tool-arg-name")
    if name_node is None:
        return None
    value = _first(node, "tool-arg-string-value")
    is_string = value is not None
    if value is None:
        value = _first(node, "tool-arg-value")
    close = _first(node, "tool-arg-close")
    return ParsedArg(
        name=name_node.text, start=_out(node.start, gp_len), end=_out(node.end, gp_len),
        value_start=_out(value.start, gp_len) if value is not None else -1,
        value_end=_out(value.end, gp_len) if value is not None else -1,
        value=value.text if value is not None else "", is_string=is_string,
        closed=close is not None and not close.is_partial)


def _is_call(node: AstNode) -> bool:
    """A ``tool`` node (the handlers), or the rule whose child opens a call (the autoparser
    tags no ``tool`` node: its mapper starts a call at each ``tool-open``)."""
    return node.tag == "tool" or any(c.tag == "tool-open" for c in node.children)


def parsed_calls(result: ParseResult, gp_len: int) -> tuple[ParsedCall, ...]:
    """Every call of the parse, in order."""
    out: list[ParsedCall] = []
    stack: list[tuple[AstNode, bool]] = [(n, False) for n in reversed(result.nodes)]
    while stack:
        node, cut_above = stack.pop()
        if _is_call(node):
            out.append(_parsed_call(node, cut_above, gp_len))
            continue
        stack.extend((c, cut_above or node.is_partial) for c in reversed(node.children))
    return tuple(out)


def _parsed_call(node: AstNode, cut_above: bool, gp_len: int) -> ParsedCall:
    name = _first(node, "tool-name")
    args = _first(node, "tool-args")
    arg_nodes = [n for n in node.walk() if n.tag == "tool-arg"]
    close = _first(node, "tool-close")
    return ParsedCall(
        name=name.text if name is not None else "", start=_out(node.start, gp_len), end=_out(node.end, gp_len),
        args_start=_out(args.start, gp_len) if args is not None else -1,
        args_end=_out(args.end, gp_len) if args is not None else -1,
        args=tuple(a for a in (_parsed_arg(n, gp_len) for n in arg_nodes) if a is not None),
        partial=node.is_partial, wrapper_partial=cut_above and not node.is_partial,
        closed=close is not None and bool(close.text) and not close.is_partial)


# --- the calls the model wrote, from the text ------------------------------------------------


@dataclass(frozen=True)
class WrittenArg:
    name: str
    start: int  # where its opener starts
    end: int  # where the next argument (or the call's close) starts
    value: str  # the text between the opener and the first closing tag, as written


@dataclass(frozen=True)
class WrittenCall:
    name: str
    start: int
    end: int  # the start of the call's closing text (or of the next call, or the end)
    args: tuple[WrittenArg, ...]


def _core(text: str) -> str:
    return text.strip()


def written_calls(formats: Mapping[str, FunctionFormat], text: str, start: int = 0) -> tuple[WrittenCall, ...]:
    """The tagged calls in ``text`` from ``start``: each function's opening text, then its
    arguments' openers up to the call's close. Only for formats with fixed call heads."""
    heads: list[tuple[int, FunctionFormat]] = []
    for fmt in formats.values():
        core = _core(fmt.head)
        if len(core) < 3:
            continue
        pos = text.find(core, start)
        while pos >= 0:
            heads.append((pos, fmt))
            pos = text.find(core, pos + len(core))
    heads.sort(key=lambda h: h[0])
    out: list[WrittenCall] = []
    for i, (pos, fmt) in enumerate(heads):
        limit = heads[i + 1][0] if i + 1 < len(heads) else len(text)
        body = pos + len(_core(fmt.head))
        out.append(_written_call(fmt, text, pos, body, limit))
    return tuple(out)


def _written_call(fmt: FunctionFormat, text: str, pos: int, body: int, limit: int) -> WrittenCall:
    found: list[tuple[int, str, str]] = []
    for param, opener in fmt.arg_openers.items():
        core = _core(opener)
        at = text.find(core, body, limit)
        while at >= 0:
            found.append((at, param, opener))
            at = text.find(core, at + len(core), limit)
    found.sort()
    closes = [_core(c) for c in fmt.call_closes if _core(c)]
    after = found[-1][0] if found else body
    end = min((p for p in (text.find(c, after, limit) for c in closes) if p >= 0), default=limit)
    found = [x for x in found if x[0] < end]
    args: list[WrittenArg] = []
    for k, (at, param, _opener) in enumerate(found):
        stop = found[k + 1][0] if k + 1 < len(found) else end
        args.append(WrittenArg(param, at, stop, _value(fmt, text, at, param, stop)))
    return WrittenCall(fmt.name, pos, end, tuple(args))


def _value(fmt: FunctionFormat, text: str, at: int, param: str, stop: int) -> str:
    """The argument's text between its opener and the first closing tag, without the
    whitespace and value prefix the format puts around values."""
    prefix = fmt.arg_prefixes.get(param, "")
    if prefix and text.startswith(prefix, at):
        begin = at + len(prefix)
    else:
        begin = at + len(_core(fmt.arg_openers[param]))
        tail = prefix[len(fmt.arg_openers[param]):].strip()  # the value prefix (``<arg_value>``)
        while begin < stop and text[begin].isspace():
            begin += 1
        if tail and text.startswith(tail, begin):
            begin += len(tail)
    ends = [p for p in (text.find(_core(c), begin, stop) for c in fmt.arg_closes if _core(c)) if p >= 0]
    end = min(ends) if ends else stop
    value = text[begin:end]
    for close in fmt.arg_closes:
        trail = close[:len(close) - len(close.lstrip())]
        if trail and value.endswith(trail):
            return value[:-len(trail)]
    return value
