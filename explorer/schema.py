"""JSON schema -> schema document: the subset llama.cpp can turn into a grammar.

Input: a JSON schema (parsed JSON, dicts keep key order). Output: a ``SchemaDocument``
whose nodes mirror llama.cpp's ``common_chat_schema`` kinds (any, ref, anyOf, allOf,
const, enum, null, boolean, number, integer, string, array, tuple, object). The grammar
converter (``json_schema.py``) and the PEG generator both read these nodes, exactly as
llama.cpp builds its grammar from ``common_chat_schema_from_json``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from explorer.errors import GrammarError

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

FORMAT_NONE = "none"
FORMAT_UUID = "uuid"
FORMAT_DATE = "date"
FORMAT_TIME = "time"
FORMAT_DATE_TIME = "date-time"


class SchemaNode:
    """Base of every schema node; ``kind`` is llama.cpp's kind name."""

    kind = "?"


@dataclass(frozen=True, eq=False)
class AnySchema(SchemaNode):
    kind = "any"


@dataclass(frozen=True, eq=False)
class RefSchema(SchemaNode):
    """``{"$ref": "#/..."}``; the target lives in the document's shared ``refs`` table."""

    ref: str
    # the document's table (None only while the $ref's own target is being built)
    refs: Mapping[str, SchemaNode | None] = field(repr=False)
    kind = "ref"

    @property
    def target(self) -> SchemaNode | None:
        return self.refs.get(self.ref)


@dataclass(frozen=True, eq=False)
class AnyOfSchema(SchemaNode):
    children: tuple[SchemaNode, ...]
    kind = "anyOf"


@dataclass(frozen=True, eq=False)
class AllOfSchema(SchemaNode):
    children: tuple[SchemaNode, ...]
    kind = "allOf"


@dataclass(frozen=True, eq=False)
class ConstSchema(SchemaNode):
    value: Any
    kind = "const"


@dataclass(frozen=True, eq=False)
class EnumSchema(SchemaNode):
    values: tuple[Any, ...]
    kind = "enum"


@dataclass(frozen=True, eq=False)
class NullSchema(SchemaNode):
    kind = "null"


@dataclass(frozen=True, eq=False)
class BooleanSchema(SchemaNode):
    kind = "boolean"


@dataclass(frozen=True, eq=False)
class NumberSchema(SchemaNode):
    kind = "number"


@dataclass(frozen=True, eq=False)
class IntegerSchema(SchemaNode):
    """Inclusive bounds; exclusive bounds are folded in, as llama.cpp does."""

    minimum: int = INT64_MIN
    maximum: int = INT64_MAX
    kind = "integer"


@dataclass(frozen=True, eq=False)
class StringSchema(SchemaNode):
    pattern: str = ""
    format: str = FORMAT_NONE
    min_length: int = 0
    max_length: int = -1
    kind = "string"


@dataclass(frozen=True, eq=False)
class ArraySchema(SchemaNode):
    items: SchemaNode
    min_items: int = 0
    max_items: int = -1
    kind = "array"


@dataclass(frozen=True, eq=False)
class TupleSchema(SchemaNode):
    items: tuple[SchemaNode, ...]
    kind = "tuple"


@dataclass(frozen=True, eq=False)
class SchemaProperty:
    name: str
    schema: SchemaNode
    required: bool = False


@dataclass(frozen=True, eq=False)
class ObjectSchema(SchemaNode):
    properties: tuple[SchemaProperty, ...]
    additional_properties: SchemaNode | None  # None when extra keys are not allowed
    kind = "object"


@dataclass(frozen=True, eq=False)
class SchemaDocument:
    root: SchemaNode
    refs: Mapping[str, SchemaNode | None]


# --- JSON type predicates, in nlohmann's sense ----------------------------------------


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return (isinstance(v, (int, float))) and not isinstance(v, bool)


class _Builder:
    """One pass over the JSON schema; $ref targets are filled once all are built."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self.refs: dict[str, SchemaNode | None] = {}

    @staticmethod
    def fail(path: str, msg: str) -> GrammarError:
        return GrammarError(f"JSON schema error at {path}: {msg}")

    def get_count(self, schema: dict[str, Any], key: str, path: str, default: int) -> int:
        if key not in schema:
            return default
        value = schema[key]
        if not _is_int(value) or value < 0:
            raise self.fail(path, f"{key} must be a non-negative integer")
        count: int = value
        return count

    def get_bound(self, schema: dict[str, Any], key: str, path: str, round_up: bool) -> int:
        value = schema[key]
        if _is_int(value):
            bound: int = value
            return bound
        if not _is_number(value):
            raise self.fail(path, f"{key} must be a number")
        return int(math.ceil(value) if round_up else math.floor(value))

    def get_format(self, schema: dict[str, Any], path: str) -> str:
        if "format" not in schema:
            return FORMAT_NONE
        value = schema["format"]
        if not isinstance(value, str):
            raise self.fail(path, "format must be a string")
        if value in (FORMAT_DATE, FORMAT_TIME, FORMAT_DATE_TIME):
            return value
        if value == "uuid" or (len(value) == 5 and value.startswith("uuid") and "1" <= value[4] <= "5"):
            return FORMAT_UUID
        return FORMAT_NONE

    def resolve_ref(self, ref: str, path: str) -> Any:
        target = self.root
        tokens = ref[1:].split("/")
        for sel in tokens[1:]:
            if isinstance(target, dict) and sel in target:
                target = target[sel]
            elif isinstance(target, list):
                idx = _stoull(sel)
                if idx is None or idx >= len(target):
                    raise self.fail(path, f"cannot resolve $ref {ref}, {sel} is out of range")
                target = target[idx]
            else:
                raise self.fail(path, f"cannot resolve $ref {ref}, {sel} not found")
        return target

    def build_ref(self, value: Any, path: str) -> SchemaNode:
        if not isinstance(value, str):
            raise self.fail(path, "$ref must be a string")
        if not value.startswith("#/"):
            raise self.fail(path, f"unsupported $ref {value}, only references into the same document are supported")
        if value not in self.refs:
            self.refs[value] = None  # a cycle back to this $ref stops here
            self.refs[value] = self.build_node(self.resolve_ref(value, path), value)
        return RefSchema(value, self.refs)

    def build_alternatives(self, cls: type[AnyOfSchema] | type[AllOfSchema], alts: Any, path: str) -> SchemaNode:
        if not isinstance(alts, list):
            raise self.fail(path, "must be an array of schemas")
        if not alts:
            raise self.fail(path, "must not be empty")
        return cls(tuple(self.build_node(alt, f"{path}/{i}") for i, alt in enumerate(alts)))

    def build_object(self, schema: dict[str, Any], path: str) -> SchemaNode:
        required: set[str] = set()
        if isinstance(schema.get("required"), list):
            required = {name for name in schema["required"] if isinstance(name, str)}
        props: list[SchemaProperty] = []
        if "properties" in schema:
            properties = schema["properties"]
            if not isinstance(properties, dict):
                raise self.fail(path, "properties must be an object")
            for name, prop in properties.items():
                props.append(SchemaProperty(name, self.build_node(prop, f"{path}/properties/{name}"), name in required))
        additional: SchemaNode | None = None
        if "additionalProperties" in schema:
            extra = schema["additionalProperties"]
            if isinstance(extra, bool):
                additional = AnySchema() if extra else None
            elif isinstance(extra, dict):
                additional = self.build_node(extra, f"{path}/additionalProperties")
            else:
                raise self.fail(path, "additionalProperties must be a boolean or a schema")
        elif "properties" not in schema:
            additional = AnySchema()  # {"type": "object"} alone accepts any object
        return ObjectSchema(tuple(props), additional)

    def build_array(self, schema: dict[str, Any], path: str) -> SchemaNode:
        if "items" in schema or "prefixItems" in schema:
            key = "items" if "items" in schema else "prefixItems"
            items = schema[key]
            if isinstance(items, list):
                return TupleSchema(tuple(self.build_node(it, f"{path}/{key}/{i}") for i, it in enumerate(items)))
            item_node = self.build_node(items, f"{path}/{key}")
        else:
            item_node = AnySchema()
        return ArraySchema(
            item_node,
            self.get_count(schema, "minItems", path, 0),
            self.get_count(schema, "maxItems", path, -1),
        )

    def build_string(self, schema: dict[str, Any], path: str) -> SchemaNode:
        pattern = ""
        if "pattern" in schema:
            if not isinstance(schema["pattern"], str):
                raise self.fail(path, "pattern must be a string")
            pattern = schema["pattern"]
        return StringSchema(
            pattern,
            self.get_format(schema, path),
            self.get_count(schema, "minLength", path, 0),
            self.get_count(schema, "maxLength", path, -1),
        )

    def build_integer(self, schema: dict[str, Any], path: str) -> SchemaNode:
        minimum, maximum = INT64_MIN, INT64_MAX
        if "minimum" in schema:
            minimum = self.get_bound(schema, "minimum", path, True)
        elif "exclusiveMinimum" in schema:
            minimum = self.get_bound(schema, "exclusiveMinimum", path, False) + 1
        if "maximum" in schema:
            maximum = self.get_bound(schema, "maximum", path, False)
        elif "exclusiveMaximum" in schema:
            maximum = self.get_bound(schema, "exclusiveMaximum", path, True) - 1
        return IntegerSchema(minimum, maximum)

    def build_node(self, schema: Any, path: str) -> SchemaNode:  # noqa: C901 - one dispatch table
        if not isinstance(schema, dict):
            raise self.fail(path, "schema must be an object")
        if "$ref" in schema:
            return self.build_ref(schema["$ref"], path)
        if "oneOf" in schema or "anyOf" in schema:
            key = "oneOf" if "oneOf" in schema else "anyOf"
            return self.build_alternatives(AnyOfSchema, schema[key], f"{path}/{key}")
        type_ = schema.get("type")
        if isinstance(type_, list):
            if not type_:
                raise self.fail(path, "type must not be empty")
            alts = []
            for i, t in enumerate(type_):
                alt = dict(schema)
                alt["type"] = t
                alts.append(self.build_node(alt, f"{path}/type/{i}"))
            return AnyOfSchema(tuple(alts))
        if "const" in schema:
            return ConstSchema(schema["const"])
        if "enum" in schema:
            values = schema["enum"]
            if not isinstance(values, list) or not values:
                raise self.fail(path, "enum must be a non-empty array")
            return EnumSchema(tuple(values))
        if type_ is not None and not isinstance(type_, str):
            raise self.fail(path, "type must be a string or an array of strings")
        type_name = type_ or ""
        has_properties = "properties" in schema or (
            "additionalProperties" in schema and schema["additionalProperties"] is not True
        )
        if not type_name:
            # without a type the structural keywords decide, in llama.cpp's order
            if has_properties:
                return self.build_object(schema, path)
            if "allOf" in schema:
                return self.build_alternatives(AllOfSchema, schema["allOf"], f"{path}/allOf")
            if "items" in schema or "prefixItems" in schema:
                return self.build_array(schema, path)
            if ("pattern" in schema or "minLength" in schema or "maxLength" in schema
                    or self.get_format(schema, path) != FORMAT_NONE):
                return self.build_string(schema, path)
            return AnySchema()
        if type_name == "object":
            if not has_properties and "allOf" in schema:
                return self.build_alternatives(AllOfSchema, schema["allOf"], f"{path}/allOf")
            return self.build_object(schema, path)
        if type_name == "string":
            if "allOf" in schema:
                return self.build_alternatives(AllOfSchema, schema["allOf"], f"{path}/allOf")
            return self.build_string(schema, path)
        simple: dict[str, type[SchemaNode]] = {"number": NumberSchema, "boolean": BooleanSchema, "null": NullSchema}
        if type_name == "array":
            return self.build_array(schema, path)
        if type_name == "integer":
            return self.build_integer(schema, path)
        if type_name in simple:
            return simple[type_name]()
        raise self.fail(path, f"unrecognized type {type_name}")


def _stoull(text: str) -> int | None:
    """``std::stoull``: optional leading space, digits prefix; None when it would throw."""
    s = text.lstrip(" \t\n\r\f\v")
    if s.startswith("+"):
        s = s[1:]
    digits = ""
    for ch in s:
        if not ch.isdigit() or not ch.isascii():
            break
        digits += ch
    return int(digits) if digits else None


def schema_from_json(schema: Any) -> SchemaDocument:
    """Parse a JSON schema into llama.cpp's schema document; raises GrammarError."""
    builder = _Builder(schema)
    try:
        root = builder.build_node(schema, "#")
    except RecursionError:
        raise GrammarError("JSON schema error at #: nested too deeply to convert") from None
    return SchemaDocument(root, builder.refs)


# --- questions the generator asks of a schema ----------------------------------------


ALL_TYPES = frozenset({"null", "boolean", "number", "integer", "string", "array", "object"})


def json_type(value: Any) -> str:
    """nlohmann's type of a JSON value, with integers apart from other numbers."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if _is_int(value):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


_KIND_TYPES = {
    "null": {"null"}, "boolean": {"boolean"}, "number": {"number", "integer"}, "integer": {"integer"},
    "string": {"string"}, "array": {"array"}, "tuple": {"array"}, "object": {"object"},
}


def value_types(node: SchemaNode, _visited: frozenset[int] = frozenset()) -> frozenset[str]:
    """The JSON types a value matching ``node`` may have (llama.cpp's value_types)."""
    if isinstance(node, AnySchema):
        return ALL_TYPES
    if node.kind in _KIND_TYPES:
        return frozenset(_KIND_TYPES[node.kind])
    if isinstance(node, ConstSchema):
        return frozenset({json_type(node.value)})
    if isinstance(node, EnumSchema):
        return frozenset(json_type(v) for v in node.values)
    if isinstance(node, RefSchema):
        target = node.target
        if target is None or id(target) in _visited:
            return frozenset()  # a cycle contributes no type
        return value_types(target, _visited | {id(target)})
    if isinstance(node, AnyOfSchema):
        out: frozenset[str] = frozenset()
        for child in node.children:
            out |= value_types(child, _visited)
        return out
    if isinstance(node, AllOfSchema):
        out = ALL_TYPES
        for child in node.children:
            out &= value_types(child, _visited)
        return out
    return frozenset()


def may_be_string(node: SchemaNode, _visited: frozenset[int] = frozenset()) -> bool:
    """Whether a value matching ``node`` may be a string, through any branch of it."""
    if isinstance(node, StringSchema):
        return True
    if isinstance(node, ConstSchema):
        return isinstance(node.value, str)
    if isinstance(node, EnumSchema):
        return any(isinstance(v, str) for v in node.values)
    if isinstance(node, RefSchema):
        target = node.target
        if target is None or id(target) in _visited:
            return False  # a cycle is taken as not a string
        return may_be_string(target, _visited | {id(target)})
    if isinstance(node, AnyOfSchema):
        return any(may_be_string(c, _visited) for c in node.children)
    if isinstance(node, AllOfSchema):
        any_string = False
        for child in node.children:
            if isinstance(child, AnySchema):
                continue
            if not may_be_string(child, _visited):
                return False
            any_string = True
        return any_string
    return False


__all__ = [
    "AllOfSchema", "AnyOfSchema", "AnySchema", "ArraySchema", "BooleanSchema", "ConstSchema",
    "EnumSchema", "INT64_MAX", "INT64_MIN", "IntegerSchema", "NullSchema", "NumberSchema",
    "ObjectSchema", "RefSchema", "SchemaDocument", "SchemaNode", "SchemaProperty", "StringSchema",
    "TupleSchema", "json_type", "may_be_string", "schema_from_json", "value_types",
]
