"""The PEG arena and its serialized form (the ``parser`` string llama-server uses).

Input: the JSON text of a ``common_peg_arena`` (``{"parsers":[...],"rules":{...},"root":N}``)
as llama.cpp's ``common_peg_arena::save`` writes it, or a ``Builder`` (``explorer.peg.builder``).
Output: a frozen ``Arena``, the one type the engine, the grammar emitter and the generators
share; and back: ``Arena.dumps()`` writes the same bytes llama.cpp would (key order per
kind, compact separators, UTF-8 left unescaped), so ``load_arena(s).dumps() == s``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from json.encoder import encode_basestring
from typing import TYPE_CHECKING, Any

from explorer.errors import PegError
from explorer.jsontypes import Json, JsonObject
from explorer.peg.nodes import (
    INVALID_PARSER_ID,
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
from explorer.peg.notation import arena_notation, expr, llama_dump

if TYPE_CHECKING:  # only the annotation: the arena keeps schema nodes, it never reads them
    from explorer.schema import SchemaNode


@dataclass(frozen=True)
class Arena:
    """All parsers of one grammar, the named rules (in serialized order) and the root.

    ``schemas``: the schema node behind each ``schema`` parser id, when the arena was built
    here (the serialized form drops them; the GBNF emitter needs them).
    """

    parsers: tuple[ParserNode, ...]
    rules: tuple[tuple[str, int], ...]
    root: int = INVALID_PARSER_ID
    schemas: Mapping[int, SchemaNode] = field(default_factory=dict, compare=False, repr=False)
    _rule_index: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._rule_index.update(self.rules)

    def __len__(self) -> int:
        return len(self.parsers)

    @property
    def has_root(self) -> bool:
        return self.root != INVALID_PARSER_ID

    def get(self, parser_id: int) -> ParserNode:
        return self.parsers[parser_id]

    def rule_id(self, name: str) -> int:
        try:
            return self._rule_index[name]
        except KeyError:
            raise PegError(f"Rule not found: {name}") from None

    def has_rule(self, name: str) -> bool:
        return name in self._rule_index

    def dumps(self) -> str:
        """The serialized arena, byte for byte as llama.cpp's ``save()``."""
        return self._serialized

    @cached_property
    def _serialized(self) -> str:  # made once: generators read it for the parser and the grammar
        parts = ",".join(node_json(p) for p in self.parsers)
        rules = ",".join(f"{_str(name)}:{pid}" for name, pid in self.rules)
        return f'{{"parsers":[{parts}],"rules":{{{rules}}},"root":{self.root}}}'

    def to_json(self) -> JsonObject:
        data: JsonObject = json.loads(self.dumps())
        return data

    def dump(self, parser_id: int | None = None) -> str:
        """llama.cpp's debugging notation (``common_peg_arena::dump``)."""
        return llama_dump(self, self.root if parser_id is None else parser_id)

    def notation(self) -> str:
        """The arena as named PEG rules in a readable notation."""
        return arena_notation(self)

    def notation_of(self, parser_id: int) -> str:
        """One parser as a PEG expression (rules it uses print as their names)."""
        return expr(self, parser_id, top=True)


# json.dumps(s, ensure_ascii=False) for a string, without the encoder set-up per call
_str = encode_basestring


def _ids(ids: tuple[int, ...]) -> str:
    return "[" + ",".join(map(str, ids)) + "]"


def _strs(items: tuple[str, ...]) -> str:
    return "[" + ",".join(map(_str, items)) + "]"


def _bool(b: bool) -> str:
    return "true" if b else "false"


def _chars_fields(p: Chars) -> str:
    ranges = ",".join(f'{{"start":{a},"end":{b}}}' for a, b in p.ranges)
    return (f',"pattern":{_str(p.pattern)},"ranges":[{ranges}],"negated":{_bool(p.negated)},'
            f'"min_count":{p.min_count},"max_count":{p.max_count}')


def _child_field(p: And | Not | Atomic) -> str:
    return f',"child":{p.child}'


def _children_field(p: Sequence | Choice) -> str:
    return f',"children":{_ids(p.children)}'


def _no_fields(p: ParserNode) -> str:
    return ""


# The fields after "type", per kind, in llama.cpp's key order.
_FIELDS: dict[type, Callable[[Any], str]] = {
    Epsilon: _no_fields, Start: _no_fields, End: _no_fields, AnyChar: _no_fields, Space: _no_fields,
    Literal: lambda p: f',"literal":{_str(p.literal)}',
    Sequence: _children_field, Choice: _children_field,
    Repetition: lambda p: f',"child":{p.child},"min_count":{p.min_count},"max_count":{p.max_count}',
    And: _child_field, Not: _child_field, Atomic: _child_field,
    Chars: _chars_fields,
    String: lambda p: f',"delimiter":{_str(p.delimiter)}',
    Until: lambda p: f',"delimiters":{_strs(p.delimiters)}',
    Schema: lambda p: f',"child":{p.child},"name":{_str(p.name)},"raw":{_bool(p.raw)}',
    Rule: lambda p: f',"name":{_str(p.name)},"child":{p.child},"trigger":{_bool(p.trigger)}',
    Ref: lambda p: f',"name":{_str(p.name)}',
    Tag: lambda p: f',"child":{p.child},"tag":{_str(p.tag)}',
    Gbnf: lambda p: f',"child":{p.child},"grammar":{_str(p.grammar)}',
    Ac: lambda p: f',"child":{p.child},"delimiters":{_strs(p.delimiters)}',
}


def node_json(p: ParserNode) -> str:
    """One parser as llama.cpp serializes it (its key order, compact)."""
    fields = _FIELDS.get(type(p))
    if fields is None:
        raise PegError(f"cannot serialize parser of type {type(p).__name__}")
    return f'{{"type":"{p.KIND}"{fields(p)}}}'


# --- loading -------------------------------------------------------------------------


def _need(j: JsonObject, kind: str, *keys: str) -> None:
    missing = [k for k in keys if k not in j]
    if missing:
        raise PegError(f"{kind} parser missing required fields: expected {', '.join(keys)}, "
                       f"missing {', '.join(missing)}")


def _int(v: object, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise PegError(f"expected an integer for {what}, found {json.dumps(v)[:60]}")
    return v


def _child(j: JsonObject, kind: str, count: int) -> int:
    cid = _int(j["child"], f"{kind}.child")
    if not 0 <= cid < count:
        raise PegError(f"{kind} parser references invalid parser ID: {cid}")
    return cid


def _text(v: object, what: str) -> str:
    if not isinstance(v, str):
        raise PegError(f"expected a string for {what}, found {json.dumps(v)[:60]}")
    return v


def _text_list(v: object, what: str) -> tuple[str, ...]:
    if not isinstance(v, list):
        raise PegError(f"expected an array of strings for {what}")
    return tuple(_text(s, what) for s in v)


def _load_children(j: JsonObject, kind: str, count: int) -> tuple[int, ...]:
    children = j.get("children")
    if not isinstance(children, list):
        raise PegError(f"{kind} parser missing or invalid 'children' field")
    ids = tuple(_int(c, f"{kind}.children") for c in children)
    bad = [c for c in ids if not 0 <= c < count]
    if bad:
        raise PegError(f"{kind} parser references invalid parser ID: {bad[0]}")
    return ids


def _load_repetition(j: JsonObject, count: int) -> Repetition:
    _need(j, "repetition", "child", "min_count", "max_count")
    return Repetition(_child(j, "repetition", count), _int(j["min_count"], "min_count"),
                      _int(j["max_count"], "max_count"))


def _load_chars(j: JsonObject, count: int) -> Chars:
    _need(j, "chars", "pattern", "ranges", "negated", "min_count", "max_count")
    ranges = []
    for r in _nlohmann_items(j["ranges"]):
        if not isinstance(r, dict) or "start" not in r or "end" not in r:
            raise PegError("char_range missing 'start' or 'end' field")
        ranges.append((_int(r["start"], "range start"), _int(r["end"], "range end")))
    return Chars(_text(j["pattern"], "pattern"), tuple(ranges), bool(j["negated"]),
                 _int(j["min_count"], "min_count"), _int(j["max_count"], "max_count"))


def _nlohmann_items(v: Json) -> list[Json]:
    """What a range-for over an nlohmann json value visits: an array's items, an object's
    values, null nothing, any other value itself."""
    if isinstance(v, list):
        return v
    if isinstance(v, dict):
        return list(v.values())
    return [] if v is None else [v]


def _load_string(j: JsonObject, count: int) -> String:
    _need(j, "string", "delimiter")
    delim = _text(j["delimiter"], "delimiter")
    if not delim:
        raise PegError("string parser delimiter is empty.")
    return String(delim[0])


def _load_schema(j: JsonObject, count: int) -> Schema:
    _need(j, "schema", "child", "name", "raw")
    return Schema(_child(j, "schema", count), _text(j["name"], "name"), bool(j["raw"]))


def _load_rule(j: JsonObject, count: int) -> Rule:
    _need(j, "rule", "name", "child", "trigger")
    return Rule(_text(j["name"], "name"), _child(j, "rule", count), bool(j["trigger"]))


def _load_tag(j: JsonObject, count: int) -> Tag:
    _need(j, "tag", "child", "tag")
    return Tag(_child(j, "tag", count), _text(j["tag"], "tag"))


def _load_gbnf(j: JsonObject, count: int) -> Gbnf:
    _need(j, "gbnf", "child", "grammar")
    return Gbnf(_child(j, "gbnf", count), _text(j["grammar"], "grammar"))


def _load_ac(j: JsonObject, count: int) -> Ac:
    delims = _text_list(j.get("delimiters"), "ac.delimiters")
    if "child" not in j or not delims:
        raise PegError("ac parser requires 'child' and a non-empty 'delimiters' array")
    return Ac(_child(j, "ac", count), delims)


def _load_literal(j: JsonObject, count: int) -> Literal:
    _need(j, "literal", "literal")
    return Literal(_text(j["literal"], "literal"))


def _one_child(kind: type[And] | type[Not] | type[Atomic]) -> Callable[[JsonObject, int], ParserNode]:
    def load(j: JsonObject, count: int) -> ParserNode:
        _need(j, kind.KIND, "child")
        return kind(_child(j, kind.KIND, count))
    return load


# The serialized "type" name -> the loader of that kind (this is where the name is read).
_LOADERS: dict[str, Callable[[JsonObject, int], ParserNode]] = {
    "epsilon": lambda j, count: Epsilon(), "start": lambda j, count: Start(), "end": lambda j, count: End(),
    "any": lambda j, count: AnyChar(), "space": lambda j, count: Space(),
    "literal": _load_literal,
    "sequence": lambda j, count: Sequence(_load_children(j, "sequence", count)),
    "choice": lambda j, count: Choice(_load_children(j, "choice", count)),
    "repetition": _load_repetition,
    "and": _one_child(And), "not": _one_child(Not), "atomic": _one_child(Atomic),
    "chars": _load_chars,
    "string": _load_string,
    "until": lambda j, count: Until(_text_list(j.get("delimiters"), "until.delimiters")),
    "schema": _load_schema,
    "rule": _load_rule,
    "ref": lambda j, count: Ref(_text(j.get("name"), "ref.name")),
    "tag": _load_tag,
    "gbnf": _load_gbnf,
    "ac": _load_ac,
}


def _load_node(j: object, count: int) -> ParserNode:
    if not isinstance(j, dict) or not isinstance(j.get("type"), str):
        raise PegError("Parser variant JSON missing or invalid 'type' field")
    load = _LOADERS.get(j["type"])
    if load is None:
        raise PegError(f"Unknown parser type: {j['type']}")
    return load(j, count)


def load_arena(serialized: str) -> Arena:
    """Parse llama.cpp's serialized arena; raise PegError on anything malformed."""
    try:
        j = json.loads(serialized)
    except (json.JSONDecodeError, TypeError) as exc:
        raise PegError(f"serialized parser is not JSON: {exc}") from None
    if not isinstance(j, dict):
        raise PegError("serialized parser must be a JSON object with parsers, rules and root")
    if not isinstance(j.get("parsers"), list):
        raise PegError("JSON missing or invalid 'parsers' array")
    if not isinstance(j.get("rules"), dict):
        raise PegError("JSON missing or invalid 'rules' object")
    if "root" not in j:
        raise PegError("JSON missing 'root' field")
    count = len(j["parsers"])
    parsers = tuple(_load_node(p, count) for p in j["parsers"])
    # a repeated key keeps its first position and its last value
    rules: dict[str, int] = {}
    for name, pid in j["rules"].items():
        pid = _int(pid, f"rule {name}")
        if not 0 <= pid < count:
            raise PegError(f"Rule '{name}' references invalid parser ID: {pid}")
        rules[name] = pid
    root = _int(j["root"], "root")
    if root != INVALID_PARSER_ID and not 0 <= root < count:
        raise PegError(f"Root references invalid parser ID: {root}")
    return Arena(parsers, tuple(rules.items()), root)
