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
from explorer.peg.nodes import Atomic, Choice, Literal, Ref, Repetition, Rule, Sequence, Space, Tag, Until, children_of

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


def leading_literal(arena: Arena, pid: int, depth: int = 0) -> str:
    """The text a parser must start with (as far as it is fixed); "" when unknown."""
    if depth > 40:
        return ""
    node = arena.get(pid)
    if isinstance(node, Literal):
        return node.literal
    if isinstance(node, (Rule, Atomic, Tag)):
        return leading_literal(arena, node.child, depth + 1)
    if isinstance(node, Ref) and arena.has_rule(node.name):
        return leading_literal(arena, arena.rule_id(node.name), depth + 1)
    if isinstance(node, Repetition) and node.min_count >= 1:
        return leading_literal(arena, node.child, depth + 1)
    if isinstance(node, Sequence):
        out = ""
        for child in node.children:
            part = arena.get(child)
            if isinstance(part, Literal):
                out += part.literal
                continue
            return out + leading_literal(arena, child, depth + 1)
        return out
    return ""


def trailing_literal(arena: Arena, pid: int, depth: int = 0) -> str:
    """The text a parser must end with (as far as it is fixed); "" when unknown."""
    if depth > 40:
        return ""
    node = arena.get(pid)
    if isinstance(node, Literal):
        return node.literal
    if isinstance(node, (Rule, Atomic, Tag)):
        return trailing_literal(arena, node.child, depth + 1)
    if isinstance(node, Ref) and arena.has_rule(node.name):
        return trailing_literal(arena, arena.rule_id(node.name), depth + 1)
    if isinstance(node, Sequence):
        out = ""
        for child in reversed(node.children):
            part = arena.get(child)
            if isinstance(part, Literal):
                out = part.literal + out
                continue
            if isinstance(part, Space):
                if out:
                    return out  # whitespace may stand before the closer: it ends here
                continue
            return trailing_literal(arena, child, depth + 1) + out
        return out
    return ""


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


def _keys(arena: Arena, pid: int, optional: bool, seen: set[int], out: list[CallKey]) -> None:
    if pid in seen:
        return
    seen.add(pid)
    node = arena.get(pid)
    if isinstance(node, Ref):
        if not node.name.startswith("json-") and arena.has_rule(node.name):
            _keys(arena, arena.rule_id(node.name), optional, seen, out)
        return
    if isinstance(node, Literal):
        m = _KEY_LITERAL.match(node.literal)
        if m and all(k.name != m.group(1) for k in out):
            out.append(CallKey(m.group(1), optional))
        return
    if isinstance(node, Choice) and len(node.children) > 1:
        optional = True
    if isinstance(node, Repetition) and node.min_count == 0:
        optional = True
    kids = children_of(node)
    for i, child in enumerate(kids):
        if isinstance(node, Sequence) and isinstance(arena.get(child), Literal) and not _key_position(arena, kids[i + 1:]):
            continue  # a quoted value ("type": "function"), not a key
        _keys(arena, child, optional, seen, out)


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
        out: list[CallKey] = []
        _keys(arena, arena.rule_id(name), False, set(), out)
        if out:
            return tuple(out)
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
        if isinstance(node, Tag) and node.tag == "tool-args" and _reaches_json(arena, node.child, set()):
            return True
    return False


def _reaches_json(arena: Arena, pid: int, seen: set[int]) -> bool:
    if pid in seen or len(seen) > 500:
        return False
    seen.add(pid)
    node = arena.get(pid)
    if isinstance(node, Ref):
        if node.name in ("json-value", "json-object"):
            return True
        return arena.has_rule(node.name) and _reaches_json(arena, arena.rule_id(node.name), seen)
    if isinstance(node, Rule) and node.name in ("json-value", "json-object"):
        return True
    return any(_reaches_json(arena, c, seen) for c in children_of(node))


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
