"""The markers a request's parser waits for, and where each one came from.

Input: ``ChatParams`` (grammar triggers, preserved tokens, thinking tags, the serialized
parser), the loaded ``Arena`` and optionally the autoparser's ``TemplateAnalysis``.
Output: ``Marker`` tuples -- tool-call openers and closers, reasoning tags -- each with
the origin a user can look up (a grammar trigger, an analysis field and its probe, a
rule of the parser), plus what the parser's tool rules expect: the JSON keys of a call
in order and the text around a function name.

Handlers and the autoparser are read the same way: through their params and arena.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from explorer.peg.arena import Arena
from explorer.peg.nodes import (
    Atomic,
    Choice,
    Literal,
    ParserNode,
    Ref,
    Repetition,
    Rule,
    Sequence,
    Space,
    Tag,
    Until,
    children_of,
)
from explorer.peg.visitor import NodeVisitor

TOOL_RULES = ("tool-call", "tool-calls", "tool-call-root")
_KEY_LITERAL = re.compile(r'^"([A-Za-z_][\w-]*)"$')


@dataclass(frozen=True)
class Marker:
    text: str
    origins: tuple[str, ...]

    @property
    def origin(self) -> str:
        return "; ".join(self.origins)


def _merge(found: list[tuple[str, str]]) -> tuple[Marker, ...]:
    order: list[str] = []
    origins: dict[str, list[str]] = {}
    for text, origin in found:
        if not text:
            continue
        if text not in origins:
            order.append(text)
            origins[text] = []
        if origin not in origins[text]:
            origins[text].append(origin)
    return tuple(Marker(t, tuple(origins[t])) for t in order)


def _field_origin(analysis: Any, name: str) -> str:
    prov = getattr(analysis, "provenance", {}).get(name) if analysis is not None else None
    where = f"analysis field {name}"
    if prov is not None and getattr(prov, "probe", None):
        where += f" (set by probe {prov.probe})"
    elif prov is not None and getattr(prov, "workaround", None):
        where += f" (set by workaround {prov.workaround})"
    return where


class _Leading(NodeVisitor[str]):
    """The text a parser must start with (as far as it is fixed); "" when unknown."""

    def __init__(self, arena: Arena) -> None:
        self.arena = arena

    def of(self, pid: int, depth: int) -> str:
        return "" if depth > 40 else self.visit(self.arena.get(pid), depth)

    def visit_Literal(self, node: Literal, depth: int) -> str:
        return node.literal

    def visit_Rule(self, node: Rule | Atomic | Tag, depth: int) -> str:
        return self.of(node.child, depth + 1)

    visit_Atomic = visit_Tag = visit_Rule

    def visit_Ref(self, node: Ref, depth: int) -> str:
        arena = self.arena
        return self.of(arena.rule_id(node.name), depth + 1) if arena.has_rule(node.name) else ""

    def visit_Repetition(self, node: Repetition, depth: int) -> str:
        return self.of(node.child, depth + 1) if node.min_count >= 1 else ""

    def visit_Sequence(self, node: Sequence, depth: int) -> str:
        out = ""
        for child in node.children:
            part = self.arena.get(child)
            if isinstance(part, Literal):
                out += part.literal
                continue
            return out + self.of(child, depth + 1)
        return out

    def generic_visit(self, node: ParserNode, depth: int) -> str:
        return ""


class _Trailing(NodeVisitor[str]):
    """The text a parser must end with (as far as it is fixed); "" when unknown."""

    def __init__(self, arena: Arena) -> None:
        self.arena = arena

    def of(self, pid: int, depth: int) -> str:
        return "" if depth > 40 else self.visit(self.arena.get(pid), depth)

    def visit_Literal(self, node: Literal, depth: int) -> str:
        return node.literal

    def visit_Rule(self, node: Rule | Atomic | Tag, depth: int) -> str:
        return self.of(node.child, depth + 1)

    visit_Atomic = visit_Tag = visit_Rule

    def visit_Ref(self, node: Ref, depth: int) -> str:
        arena = self.arena
        return self.of(arena.rule_id(node.name), depth + 1) if arena.has_rule(node.name) else ""

    def visit_Sequence(self, node: Sequence, depth: int) -> str:
        out = ""
        for child in reversed(node.children):
            part = self.arena.get(child)
            if isinstance(part, Literal):
                out = part.literal + out
                continue
            if isinstance(part, Space):
                if out:
                    return out  # whitespace may stand before the closer: it ends here
                continue
            return self.of(child, depth + 1) + out
        return out

    def generic_visit(self, node: ParserNode, depth: int) -> str:
        return ""


def leading_literal(arena: Arena, pid: int, depth: int = 0) -> str:
    """The text a parser must start with (as far as it is fixed); "" when unknown."""
    return _Leading(arena).of(pid, depth)


def trailing_literal(arena: Arena, pid: int, depth: int = 0) -> str:
    """The text a parser must end with (as far as it is fixed); "" when unknown."""
    return _Trailing(arena).of(pid, depth)


def tool_openers(params: Any, arena: Arena, analysis: Any = None) -> tuple[Marker, ...]:
    """Every text that starts a tool call for this request's parser."""
    found: list[tuple[str, str]] = []
    whose = "" if params.handler == "autoparser" else f" of llama.cpp's {params.handler} handler"
    for trig in params.grammar_triggers:
        if trig.type == "WORD":
            found.append((trig.value, f"grammar trigger (WORD){whose}: the lazy grammar wakes up on it"))
    if analysis is not None:
        fmt = analysis.tools.format
        found.append((fmt.section_start, _field_origin(analysis, "tools.format.section_start")))
        found.append((fmt.per_call_start, _field_origin(analysis, "tools.format.per_call_start")))
    for name in TOOL_RULES:
        if arena.has_rule(name):
            found.append((leading_literal(arena, arena.rule_id(name)), f"parser rule {name}{whose}"))
    return tuple(m for m in _merge(found) if len(m.text.strip()) >= 2)


def tool_closers(params: Any, arena: Arena, analysis: Any = None) -> tuple[Marker, ...]:
    """Texts that end a call or the calls' section (``tool-close`` literals, analysis ends)."""
    found: list[tuple[str, str]] = []
    if analysis is not None:
        fmt = analysis.tools.format
        found.append((fmt.section_end, _field_origin(analysis, "tools.format.section_end")))
        found.append((fmt.per_call_end, _field_origin(analysis, "tools.format.per_call_end")))
    whose = "" if params.handler == "autoparser" else f" of llama.cpp's {params.handler} handler"
    for name in TOOL_RULES:
        if arena.has_rule(name):
            found.append((trailing_literal(arena, arena.rule_id(name)), f"parser rule {name}{whose}"))
    for node in arena.parsers:
        if isinstance(node, Tag) and node.tag == "tool-close":
            found.append((leading_literal(arena, node.child), f"parser tag tool-close{whose}"))
    return tuple(m for m in _merge(found) if len(m.text.strip()) >= 2)


def _reasoning_like(tag: str) -> bool:
    low = tag.lower()
    return any(word in low for word in ("think", "reason", "thought"))


def reasoning_tags(params: Any, analysis: Any = None) -> tuple[tuple[Marker, ...], tuple[Marker, ...]]:
    """(start tags, end tags) of reasoning: the params' thinking tags and the analysis's.

    Handlers also list delimiters that merely end reasoning (a tool-call section, a channel
    end); only tags that name thinking are kept, so the checks talk about real reasoning tags.
    """
    starts: list[tuple[str, str]] = [(params.thinking_start_tag, "chat params thinking_start_tag")]
    ends: list[tuple[str, str]] = [(t, "chat params thinking_end_tags") for t in params.thinking_end_tags]
    if analysis is not None and analysis.reasoning.mode.value != "NONE":
        starts.append((analysis.reasoning.start.strip(), _field_origin(analysis, "reasoning.start")))
        ends.append((analysis.reasoning.end.strip(), _field_origin(analysis, "reasoning.end")))
    keep = lambda found: tuple(m for m in _merge(found) if _reasoning_like(m.text))  # noqa: E731
    return keep(starts), keep(ends)


def call_rules(arena: Arena) -> tuple[str, ...]:
    """The per-function rules (``tool-NAME``, ``kimi-k3-tool-NAME``...)."""
    return tuple(name for name, _ in arena.rules
                 if re.search(r"(^|-)tool-(?!call)", name) and "-arg-" not in name)


@dataclass(frozen=True)
class CallKey:
    name: str
    optional: bool


class _Keys(NodeVisitor[None]):
    """The quoted JSON keys under a parser, in order, each parser once; a key is optional
    under a choice of several options or a repetition that may match nothing."""

    def __init__(self, arena: Arena) -> None:
        self.arena = arena
        self.seen: set[int] = set()
        self.out: list[CallKey] = []

    def keys(self, pid: int, optional: bool) -> None:
        if pid in self.seen:
            return
        self.seen.add(pid)
        self.visit(self.arena.get(pid), optional)

    def visit_Ref(self, node: Ref, optional: bool) -> None:
        if not node.name.startswith("json-") and self.arena.has_rule(node.name):
            self.keys(self.arena.rule_id(node.name), optional)

    def visit_Literal(self, node: Literal, optional: bool) -> None:
        m = _KEY_LITERAL.match(node.literal)
        if m and all(k.name != m.group(1) for k in self.out):
            self.out.append(CallKey(m.group(1), optional))

    def visit_Choice(self, node: Choice, optional: bool) -> None:
        self.generic_visit(node, optional or len(node.children) > 1)

    def visit_Repetition(self, node: Repetition, optional: bool) -> None:
        self.generic_visit(node, optional or node.min_count == 0)

    def visit_Sequence(self, node: Sequence, optional: bool) -> None:
        kids = node.children
        for i, child in enumerate(kids):
            if isinstance(self.arena.get(child), Literal) and not _key_position(self.arena, kids[i + 1:]):
                continue  # a quoted value ("type": "function"), not a key
            self.keys(child, optional)

    def generic_visit(self, node: ParserNode, optional: bool) -> None:
        for child in children_of(node):
            self.keys(child, optional)


def _key_position(arena: Arena, rest: tuple[int, ...]) -> bool:
    """Whether the next item after a literal (past optional whitespace) is ``:``."""
    for pid in rest:
        node = arena.get(pid)
        if isinstance(node, Space):
            continue
        return isinstance(node, Literal) and node.literal.strip() == ":"
    return False


def json_call_keys(arena: Arena) -> tuple[CallKey, ...]:
    """The quoted keys a JSON call spells, in the parser's order (first call rule)."""
    for name in call_rules(arena):
        found = _Keys(arena)
        found.keys(arena.rule_id(name), False)
        if found.out:
            return tuple(found.out)
    return ()


def name_affixes(arena: Arena) -> tuple[tuple[str, str], ...]:
    """(text before, text after) each ``tool-name`` in the parser's sequences."""
    out: list[tuple[str, str]] = []
    for node in arena.parsers:
        if not isinstance(node, Sequence):
            continue
        kids = node.children
        for i, child in enumerate(kids):
            if not _is_tool_name(arena, child):
                continue
            before = _literals_before(arena, kids[:i])
            after = leading_literal(arena, kids[i + 1]) if i + 1 < len(kids) else ""
            pair = (before, after)
            if len(before.strip()) >= 2 and pair not in out:
                out.append(pair)
    return tuple(out)


def _literals_before(arena: Arena, kids: tuple[int, ...]) -> str:
    """The run of literals right before a position (a choice or an ``until`` ends it: the
    text before those is not fixed, so it is no part of the prefix); optional whitespace
    is crossed only while the run is too short to look for."""
    out = ""
    for k in reversed(kids):
        node = arena.get(k)
        if isinstance(node, Space):
            if len(out.strip()) >= 4:
                break  # long enough to find in the output; what stands before varies with the whitespace
            continue  # a short piece ('"'): the literals before the whitespace make the prefix
        if not isinstance(node, Literal):
            break
        out = node.literal + out
    return out


def _is_tool_name(arena: Arena, pid: int) -> bool:
    node = arena.get(pid)
    while isinstance(node, Atomic):
        node = arena.get(node.child)
    return isinstance(node, Tag) and node.tag == "tool-name"


def request_tool_names(request: Any) -> tuple[str, ...]:
    names: list[str] = []
    for tool in request.tools or ():
        fn = tool.get("function", tool) if isinstance(tool, dict) else {}
        name = fn.get("name") if isinstance(fn, dict) else None
        if isinstance(name, str) and name not in names:
            names.append(name)
    return tuple(names)


def json_arguments(arena: Arena) -> bool:
    """Whether a call's arguments are read by llama.cpp's JSON rules (not tagged values,
    not Gemma 4's own value syntax)."""
    for node in arena.parsers:
        if isinstance(node, Tag) and node.tag == "tool-args" and _ReachesJson(arena).reaches(node.child):
            return True
    return False


class _ReachesJson(NodeVisitor[bool]):
    """Whether llama.cpp's JSON value or object rule is under a parser."""

    def __init__(self, arena: Arena) -> None:
        self.arena = arena
        self.seen: set[int] = set()

    def reaches(self, pid: int) -> bool:
        if pid in self.seen or len(self.seen) > 500:
            return False
        self.seen.add(pid)
        return self.visit(self.arena.get(pid))

    def visit_Ref(self, node: Ref) -> bool:
        if node.name in _JSON_RULES:
            return True
        return self.arena.has_rule(node.name) and self.reaches(self.arena.rule_id(node.name))

    def visit_Rule(self, node: Rule) -> bool:
        return node.name in _JSON_RULES or self.generic_visit(node)

    def generic_visit(self, node: ParserNode) -> bool:
        return any(self.reaches(c) for c in children_of(node))


_JSON_RULES = ("json-value", "json-object")


def content_stops(arena: Arena) -> tuple[str, ...]:
    """The texts the content rule stops at (its ``until`` delimiters): where the parser
    leaves content to try something else (reasoning end, a tool call)."""
    out: list[str] = []
    for node in arena.parsers:
        if isinstance(node, Tag) and node.tag == "content":
            inner = arena.get(node.child)
            if isinstance(inner, Until):
                out += [d for d in inner.delimiters if d not in out]
    return tuple(out)


def has_tool_rules(arena: Arena) -> bool:
    """Whether the parser can produce a tool call at all (a ``tool-name`` tag somewhere)."""
    return any(isinstance(node, Tag) and node.tag in ("tool-name", "tool") for node in arena.parsers)


_MARKUP = re.compile(r"[<\[|｜=]")


def name_prefixes(params: Any, arena: Arena, analysis: Any = None) -> tuple[Marker, ...]:
    """Markup that stands right before a function name (``<function=``, ``<call name="``),
    from the analysis (tools.function.name_prefix) and the parser's sequences."""
    whose = "" if params.handler == "autoparser" else f" of llama.cpp's {params.handler} handler"
    found: list[tuple[str, str]] = []
    if analysis is not None:
        found.append((analysis.tools.function.name_prefix, _field_origin(analysis, "tools.function.name_prefix")))
    found += [(before, f"the text before tool-name in the parser{whose}") for before, _ in name_affixes(arena)]
    return tuple(m for m in _merge(found) if len(m.text.strip()) >= 2 and _MARKUP.search(m.text)
                 and re.search(r"\w", m.text))
