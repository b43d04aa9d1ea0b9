"""Serialized PEG arena -> GBNF grammar, as llama.cpp's ``common_peg_arena::build_grammar``.

Input: the arena JSON llama.cpp serializes (``{"parsers": [...], "rules": {...}, "root":
N}``; the ``rules`` object keeps llama.cpp's own order), whether the grammar is lazy,
and the JSON schemas behind ``schema`` parsers (the serialized form drops them; they come
from the request's tools). Output: the GBNF text llama.cpp hands to the sampler.

This works on the parsed JSON directly, so it depends on nothing but the serialized
format.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from explorer.errors import GrammarError
from explorer.grammar.automaton import excluding_grammar, including_grammar
from explorer.grammar.json_schema import GrammarBuilder, build_grammar, format_literal
from explorer.grammar.schema import ObjectSchema, SchemaNode, may_be_string, schema_from_json

INVALID_PARSER_ID = 2**64 - 1

_SINGLE_CHILD = ("repetition", "and", "not", "tag", "atomic", "gbnf", "ac", "schema")
_LEAVES = ("epsilon", "start", "end", "until", "literal", "chars", "space", "any", "string")


def load_arena_json(arena: str | Mapping[str, Any]) -> dict[str, Any]:
    """Parse and sanity-check a serialized arena (the string llama-server gets)."""
    data = json.loads(arena) if isinstance(arena, str) else dict(arena)
    if not isinstance(data.get("parsers"), list) or not isinstance(data.get("rules"), dict) or "root" not in data:
        raise GrammarError("serialized PEG arena must have 'parsers' (array), 'rules' (object) and 'root'")
    n = len(data["parsers"])
    for name, pid in data["rules"].items():
        if not isinstance(pid, int) or pid >= n:
            raise GrammarError(f"rule '{name}' references invalid parser id {pid}")
    return data


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


class _Emitter:
    """to_gbnf over one arena; schema parsers look their schema up by parser id."""

    def __init__(self, arena: Mapping[str, Any], builder: GrammarBuilder, schemas: Mapping[int, SchemaNode]) -> None:
        self.parsers: Sequence[dict[str, Any]] = arena["parsers"]
        self.rules: Mapping[str, int] = arena["rules"]
        self.root: int = arena["root"]
        self.builder = builder
        self.schemas = schemas

    def delegates(self, pid: int, p: Mapping[str, Any]) -> bool:
        """A schema parser without a schema (or raw and string-like) emits its child."""
        node = self.schemas.get(pid)
        return node is None or (bool(p.get("raw")) and may_be_string(node))

    def effective(self, pid: int) -> Mapping[str, Any]:
        while True:
            p = self.parsers[pid]
            if p["type"] in ("tag", "atomic") or (p["type"] == "schema" and self.delegates(pid, p)):
                pid = p["child"]
            else:
                return p

    def to_gbnf(self, pid: int) -> str:  # noqa: C901 - one case per parser kind
        p = self.parsers[pid]
        kind = p["type"]
        if kind in ("epsilon", "start", "end", "and", "not"):
            return ""  # lookahead has no GBNF form
        if kind == "literal":
            return format_literal(p["literal"])
        if kind == "sequence":
            parts = []
            for child in p["children"]:
                text = self.to_gbnf(child)
                if not text:
                    continue
                parts.append(f"({text})" if self.effective(child)["type"] in ("choice", "sequence") else text)
            return " ".join(parts)
        if kind == "choice":
            parts = []
            for child in p["children"]:
                text = self.to_gbnf(child)
                parts.append(f"({text})" if self.effective(child)["type"] == "choice" else text)
            return " | ".join(parts)
        if kind == "repetition":
            text = self.to_gbnf(p["child"])
            if self.effective(p["child"])["type"] in ("choice", "sequence"):
                text = f"({text})"
            return _repeat_suffix(text, p["min_count"], p["max_count"])
        if kind == "any":
            return "."
        if kind == "space":
            return "space"
        if kind == "chars":
            return _repeat_suffix(p["pattern"], p["min_count"], p["max_count"])
        if kind == "string":
            return _string_body(p["delimiter"][0])
        if kind == "until":
            if not p["delimiters"]:
                return ".*"
            return excluding_grammar(self.builder, f"until-{pid}", p["delimiters"])
        if kind == "schema":
            if self.delegates(pid, p):
                return self.to_gbnf(p["child"])
            return self.builder.add_schema(p["name"], self.schemas[pid])
        if kind in ("rule", "ref"):
            return p["name"]
        if kind in ("tag", "atomic"):
            return self.to_gbnf(p["child"])
        if kind == "gbnf":
            return p["grammar"]
        if kind == "ac":
            return including_grammar(self.builder, f"ac-{pid}", p["delimiters"])
        raise GrammarError(f"unknown PEG parser type '{kind}' at parser {pid}")

    def reachable(self, start: int) -> set[str]:
        found: set[str] = set()
        stack = [start]
        while stack:
            pid = stack.pop()
            p = self.parsers[pid]
            kind = p["type"]
            if kind in ("sequence", "choice"):
                stack.extend(reversed(p["children"]))
            elif kind in _SINGLE_CHILD:
                stack.append(p["child"])
            elif kind == "rule":
                if p["name"] not in found:
                    found.add(p["name"])
                    stack.append(p["child"])
            elif kind == "ref":
                if p["name"] not in self.rules:
                    raise GrammarError(f"Rule not found: {p['name']}")
                stack.append(self.rules[p["name"]])
        return found

    def is_trigger(self, pid: int) -> bool:
        p = self.parsers[pid]
        return p["type"] == "rule" and bool(p["trigger"])

    def emit(self, lazy: bool) -> None:
        if lazy:
            reachable: set[str] = set()
            for name, pid in self.rules.items():
                if self.is_trigger(pid):
                    reachable.add(name)
                    reachable |= self.reachable(pid)
        else:
            reachable = self.reachable(self.root)
        for name, pid in self.rules.items():
            p = self.parsers[pid]
            if name in reachable and p["type"] == "rule":
                body = self.to_gbnf(p["child"])
                self.builder.add_rule(p["name"], body)
        if lazy:
            triggers = sorted((self.parsers[pid]["name"] for pid in self.rules.values() if self.is_trigger(pid)),
                              key=lambda s: s.encode())
            self.builder.add_rule("root", " | ".join(triggers))
        elif self.root != INVALID_PARSER_ID:
            self.builder.add_rule("root", self.to_gbnf(self.root))


def emit_arena_grammar(builder: GrammarBuilder, arena: Mapping[str, Any], *, lazy: bool = False,
                       schemas: Mapping[int, SchemaNode] | None = None) -> None:
    """Add the arena's rules to ``builder`` (the body of llama.cpp's build_grammar callback)."""
    _Emitter(arena, builder, schemas or {}).emit(lazy)


def arena_to_gbnf(arena: str | Mapping[str, Any], *, lazy: bool = False,
                  schemas: Mapping[int, SchemaNode] | None = None) -> str:
    """The GBNF grammar of a serialized arena; ``schemas`` maps schema-parser ids to schemas."""
    data = load_arena_json(arena)
    return build_grammar(lambda b: emit_arena_grammar(b, data, lazy=lazy, schemas=schemas))


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


def schema_ids(arena: str | Mapping[str, Any],
               by_name: Mapping[str, SchemaNode | Sequence[SchemaNode]]) -> dict[int, SchemaNode]:
    """Attach schemas to an arena's schema parsers by name, repeated names in turn."""
    data = load_arena_json(arena)
    seen: dict[str, int] = {}
    out: dict[int, SchemaNode] = {}
    for pid, p in enumerate(data["parsers"]):
        if p["type"] != "schema" or p["name"] not in by_name:
            continue
        nodes = by_name[p["name"]]
        if isinstance(nodes, SchemaNode):
            out[pid] = nodes
            continue
        k = seen.get(p["name"], 0)
        seen[p["name"]] = k + 1
        out[pid] = nodes[min(k, len(nodes) - 1)]
    return out


def request_grammar(arena: str | Mapping[str, Any], *, lazy: bool, tools: Sequence[Mapping[str, Any]] | None = None,
                    json_schema: Any = None) -> str:
    """GBNF for an arena llama.cpp generated for a request with these tools / JSON schema."""
    data = load_arena_json(arena)
    return arena_to_gbnf(data, lazy=lazy, schemas=schema_ids(data, schema_candidates(tools, json_schema)))


__all__ = [
    "arena_to_gbnf", "emit_arena_grammar", "load_arena_json", "request_grammar", "schema_candidates", "schema_ids",
    "schemas_by_name", "tool_parameters",
]
