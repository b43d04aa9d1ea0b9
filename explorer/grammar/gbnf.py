"""PEG arena -> GBNF grammar, as llama.cpp's ``common_peg_arena::build_grammar``.

Input: an ``Arena`` (``explorer.peg.arena``) as the generators build it, or its serialized
form (the ``parser`` string of a llama.cpp request, read here with ``load_arena``); whether
the grammar is lazy; and the JSON schemas behind ``schema`` parsers, by parser id (a built
arena carries them in ``Arena.schemas``; the serialized form drops them, so they come from
the request's tools, see ``schema_ids``). Output: the GBNF text llama.cpp hands to the
sampler.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from explorer.errors import GrammarError, PegError
from explorer.grammar.automaton import excluding_grammar, including_grammar
from explorer.grammar.json_schema import GrammarBuilder, build_grammar, format_literal
from explorer.peg.arena import Arena, load_arena
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
    Space,
    Start,
    String,
    Tag,
    Until,
    children_of,
)
from explorer.peg.nodes import (
    Sequence as SequenceNode,
)
from explorer.peg.visitor import NodeVisitor
from explorer.schema import ObjectSchema, SchemaNode, may_be_string, schema_from_json

# The serialized forms are accepted because that is what llama.cpp hands out (the request's
# ``parser`` string) and what the oracle data and the CLI hold.
ArenaInput = Arena | str | Mapping[str, Any]


def as_arena(arena: ArenaInput) -> Arena:
    """The arena itself; a serialized one is loaded (and checked) with ``load_arena``."""
    if isinstance(arena, Arena):
        return arena
    text = arena if isinstance(arena, str) else json.dumps(arena, ensure_ascii=False)
    try:
        return load_arena(text)
    except PegError as exc:
        # this module's callers expect the grammar stage's error for a bad grammar input
        raise GrammarError(f"invalid serialized PEG arena: {exc.message}") from None


def _repeat_suffix(child: str, lo: int, hi: int) -> str:
    if lo == 0 and hi == 1:
        return child + "?"
    if lo == 0 and hi == -1:
        return child + "*"
    if lo == 1 and hi == -1:
        return child + "+"
    if hi == -1:
        return f"{child}{{{lo},}}"
    if lo == hi:
        return child if lo == 1 else f"{child}{{{lo}}}"
    return f"{child}{{{lo},{hi}}}"


def _string_body(delim: str) -> str:
    return f'( [^{delim}\\\\] | "\\\\" ( [{delim}\\\\/ bfnrt] | "u" [0-9a-fA-F]{{4}} ) )*'


_GROUPING = (Choice, SequenceNode)


class _Emitter(NodeVisitor[str], exhaustive=True):
    """``to_gbnf`` over one arena: one ``visit_<NodeClass>(node, pid)`` per parser kind.

    Visits get the parser id beside the node because llama.cpp names the automaton rules
    after it (``until-7``) and schemas are attached by id.
    """

    def __init__(self, arena: Arena, builder: GrammarBuilder, schemas: Mapping[int, SchemaNode]) -> None:
        self.parsers = arena.parsers
        self.arena = arena
        self.builder = builder
        self.schemas = schemas

    def delegates(self, pid: int, node: Schema) -> bool:
        """A schema parser without a schema (or raw and string-like) emits its child."""
        schema = self.schemas.get(pid)
        return schema is None or (node.raw and may_be_string(schema))

    def effective(self, pid: int) -> ParserNode:
        """The node whose text ``to_gbnf(pid)`` is: wrappers that add nothing are skipped."""
        while True:
            node = self.parsers[pid]
            if isinstance(node, (Tag, Atomic)) or (isinstance(node, Schema) and self.delegates(pid, node)):
                pid = node.child
            else:
                return node

    def to_gbnf(self, pid: int) -> str:
        return self.visit(self.parsers[pid], pid)

    def generic_visit(self, node: ParserNode, pid: int) -> str:
        raise GrammarError(f"unknown PEG parser type '{type(node).__name__}' at parser {pid}")

    def grouped(self, pid: int, kinds: tuple[type, ...]) -> str:
        """``to_gbnf(pid)``, parenthesised when its effective node is one of ``kinds``."""
        text = self.to_gbnf(pid)
        return f"({text})" if isinstance(self.effective(pid), kinds) else text

    # --- one visitor per parser kind ----------------------------------------------------

    def _no_text(self, node: Epsilon | Start | End | And | Not, pid: int) -> str:
        return ""  # positions and lookahead have no GBNF form

    visit_Epsilon = visit_Start = visit_End = visit_And = visit_Not = _no_text

    def visit_Literal(self, node: Literal, pid: int) -> str:
        return format_literal(node.literal)

    def visit_Sequence(self, node: SequenceNode, pid: int) -> str:
        parts = []
        for child in node.children:
            text = self.to_gbnf(child)
            if text:
                parts.append(f"({text})" if isinstance(self.effective(child), _GROUPING) else text)
        return " ".join(parts)

    def visit_Choice(self, node: Choice, pid: int) -> str:
        return " | ".join(self.grouped(child, (Choice,)) for child in node.children)

    def visit_Repetition(self, node: Repetition, pid: int) -> str:
        return _repeat_suffix(self.grouped(node.child, _GROUPING), node.min_count, node.max_count)

    def visit_AnyChar(self, node: AnyChar, pid: int) -> str:
        return "."

    def visit_Space(self, node: Space, pid: int) -> str:
        return "space"

    def visit_Chars(self, node: Chars, pid: int) -> str:
        return _repeat_suffix(node.pattern, node.min_count, node.max_count)

    def visit_String(self, node: String, pid: int) -> str:
        return _string_body(node.delimiter[0])

    def visit_Until(self, node: Until, pid: int) -> str:
        if not node.delimiters:
            return ".*"
        return excluding_grammar(self.builder, f"until-{pid}", node.delimiters)

    def visit_Schema(self, node: Schema, pid: int) -> str:
        if self.delegates(pid, node):
            return self.to_gbnf(node.child)
        return self.builder.add_schema(node.name, self.schemas[pid])

    def visit_Rule(self, node: Rule | Ref, pid: int) -> str:
        return node.name  # a rule inside a body is a reference to it

    visit_Ref = visit_Rule

    def _child_text(self, node: Tag | Atomic, pid: int) -> str:
        return self.to_gbnf(node.child)  # AST tags and atomicity only matter to the parser

    visit_Tag = visit_Atomic = _child_text

    def visit_Gbnf(self, node: Gbnf, pid: int) -> str:
        return node.grammar

    def visit_Ac(self, node: Ac, pid: int) -> str:
        return including_grammar(self.builder, f"ac-{pid}", node.delimiters)

    # --- which rules to write -------------------------------------------------------------

    def reachable(self, start: int) -> set[str]:
        """Names of the rules reachable from parser ``start`` (through refs too)."""
        found: set[str] = set()
        stack = [start]
        while stack:
            node = self.parsers[stack.pop()]
            if isinstance(node, Rule):
                if node.name not in found:
                    found.add(node.name)
                    stack.append(node.child)
            elif isinstance(node, Ref):
                if not self.arena.has_rule(node.name):
                    raise GrammarError(f"Rule not found: {node.name}")
                stack.append(self.arena.rule_id(node.name))
            else:
                stack.extend(reversed(children_of(node)))
        return found

    def trigger_rule(self, pid: int) -> Rule | None:
        node = self.parsers[pid]
        return node if isinstance(node, Rule) and node.trigger else None

    def emit(self, lazy: bool) -> None:
        rules = self.arena.rules
        if lazy:
            reachable: set[str] = set()
            for name, pid in rules:
                if self.trigger_rule(pid):
                    reachable.add(name)
                    reachable |= self.reachable(pid)
        else:
            reachable = self.reachable(self.arena.root)
        for name, pid in rules:
            node = self.parsers[pid]
            if name in reachable and isinstance(node, Rule):
                self.builder.add_rule(node.name, self.to_gbnf(node.child))
        if lazy:
            # the rule's own name, as llama.cpp, not the key it is stored under
            triggers = sorted((rule.name for _, pid in rules if (rule := self.trigger_rule(pid))),
                              key=lambda s: s.encode())
            self.builder.add_rule("root", " | ".join(triggers))
        elif self.arena.has_root:
            self.builder.add_rule("root", self.to_gbnf(self.arena.root))


def emit_arena_grammar(builder: GrammarBuilder, arena: Arena, *, lazy: bool = False,
                       schemas: Mapping[int, SchemaNode] | None = None) -> None:
    """Add the arena's rules to ``builder`` (the body of llama.cpp's build_grammar callback).

    ``schemas`` defaults to the ones the arena was built with."""
    _Emitter(arena, builder, arena.schemas if schemas is None else schemas).emit(lazy)


def arena_to_gbnf(arena: ArenaInput, *, lazy: bool = False, schemas: Mapping[int, SchemaNode] | None = None) -> str:
    """The GBNF grammar of an arena; ``schemas`` maps schema-parser ids to schemas."""
    loaded = as_arena(arena)
    return build_grammar(lambda b: emit_arena_grammar(b, loaded, lazy=lazy, schemas=schemas))


def tool_parameters(function: Mapping[str, Any]) -> Any:
    """llama.cpp's ``common_chat_tool_parameters``: an empty object schema when missing."""
    params = function.get("parameters")
    if params is not None and not (isinstance(params, dict) and not params):
        return params
    return {"type": "object", "properties": {}}


RESPONSE_FORMAT_NAMES = ("response-format-schema", "response-format")


def schema_candidates(tools: Sequence[Mapping[str, Any]] | None, json_schema: Any = None) -> dict[str, list[SchemaNode]]:
    """For each schema-parser name llama.cpp's generators use, the schemas in request order.

    ``tool-NAME-schema`` is a tool's parameters, ``tool-NAME-arg-PARAM-schema`` one of its
    properties, ``response-format-schema`` (or ``response-format``) the request's JSON
    schema. A name repeats when tool names do; its parsers then take them in turn.
    """
    found: dict[str, list[SchemaNode]] = {}
    for tool in tools or []:
        function = tool.get("function") if isinstance(tool, Mapping) else None
        if not isinstance(function, Mapping) or "name" not in function:
            continue
        name = function["name"]
        doc = schema_from_json(tool_parameters(function))
        found.setdefault(f"tool-{name}-schema", []).append(doc.root)
        if isinstance(doc.root, ObjectSchema):
            for prop in doc.root.properties:
                found.setdefault(f"tool-{name}-arg-{prop.name}-schema", []).append(prop.schema)
    if isinstance(json_schema, dict) and json_schema:
        root = schema_from_json(json_schema).root
        for name in RESPONSE_FORMAT_NAMES:
            found[name] = [root]
    return found


def schemas_by_name(tools: Sequence[Mapping[str, Any]] | None, json_schema: Any = None) -> dict[str, SchemaNode]:
    """One schema per name (the last when tool names repeat); see ``schema_candidates``."""
    return {name: nodes[-1] for name, nodes in schema_candidates(tools, json_schema).items()}


def schema_ids(arena: ArenaInput, by_name: Mapping[str, SchemaNode | Sequence[SchemaNode]]) -> dict[int, SchemaNode]:
    """Attach schemas to an arena's schema parsers by name, repeated names in turn."""
    seen: dict[str, int] = {}
    out: dict[int, SchemaNode] = {}
    for pid, node in enumerate(as_arena(arena).parsers):
        if not isinstance(node, Schema) or node.name not in by_name:
            continue
        nodes = by_name[node.name]
        if isinstance(nodes, SchemaNode):
            out[pid] = nodes
            continue
        k = seen.get(node.name, 0)
        seen[node.name] = k + 1
        out[pid] = nodes[min(k, len(nodes) - 1)]
    return out


def request_grammar(arena: ArenaInput, *, lazy: bool, tools: Sequence[Mapping[str, Any]] | None = None,
                    json_schema: Any = None) -> str:
    """GBNF for an arena llama.cpp generated for a request with these tools / JSON schema."""
    loaded = as_arena(arena)
    return arena_to_gbnf(loaded, lazy=lazy, schemas=schema_ids(loaded, schema_candidates(tools, json_schema)))


__all__ = [
    "ArenaInput", "arena_to_gbnf", "as_arena", "emit_arena_grammar", "request_grammar", "schema_candidates",
    "schema_ids", "schemas_by_name", "tool_parameters",
]
