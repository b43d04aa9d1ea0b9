"""JSON schema -> GBNF rules, byte for byte as llama.cpp's json-schema-to-grammar.

Input: a schema document (``schema.py``) or plain JSON schema. Output: GBNF text, one
``name ::= body`` line per rule, rules sorted by name. ``SchemaConverter`` is also the
rule table the PEG grammar emitter (``gbnf.py``) writes into, through ``GrammarBuilder``,
exactly as llama.cpp's ``build_grammar`` shares one converter between PEG rules and
tool-argument schemas.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from explorer.errors import GrammarError
from explorer.grammar.int_range import build_min_max_int
from explorer.grammar.pattern import InvalidPattern, UnsupportedPattern, pattern_to_rule
from explorer.grammar.repetition import INT_MAX, build_repetition
from explorer.schema import (
    FORMAT_NONE,
    FORMAT_UUID,
    INT64_MAX,
    INT64_MIN,
    AllOfSchema,
    AnyOfSchema,
    AnySchema,
    ArraySchema,
    BooleanSchema,
    ConstSchema,
    EnumSchema,
    IntegerSchema,
    NullSchema,
    NumberSchema,
    ObjectSchema,
    RefSchema,
    SchemaNode,
    StringSchema,
    TupleSchema,
    schema_from_json,
)

SPACE_RULE = r'| " " | "\n"{1,2} [ \t]{0,20}'


@dataclass(frozen=True)
class BuiltinRule:
    content: str
    deps: tuple[str, ...] = ()


PRIMITIVE_RULES: dict[str, BuiltinRule] = {
    "boolean": BuiltinRule(r'("true" | "false")'),
    "decimal-part": BuiltinRule(r"[0-9]{1,16}"),
    "integral-part": BuiltinRule(r"[0] | [1-9] [0-9]{0,15}"),
    "number": BuiltinRule(r'("-"? integral-part) ("." decimal-part)? ([eE] [-+]? integral-part)?',
                          ("integral-part", "decimal-part")),
    "integer": BuiltinRule(r'("-"? integral-part)', ("integral-part",)),
    "value": BuiltinRule("object | array | string | number | boolean | null",
                         ("object", "array", "string", "number", "boolean", "null")),
    "object": BuiltinRule(r'"{" space ( string ":" space value ("," space string ":" space value)* )? space "}"',
                          ("string", "value")),
    "array": BuiltinRule(r'"[" space ( value ("," space value)* )? space "]"', ("value",)),
    "uuid": BuiltinRule(r'"\"" [0-9a-fA-F]{8} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{4} "-" '
                        r'[0-9a-fA-F]{12} "\""'),
    "char": BuiltinRule(r'[^"\\\x7F\x00-\x1F] | [\\] (["\\bfnrt] | "u" [0-9a-fA-F]{4})'),
    "string": BuiltinRule(r'"\"" char* "\""', ("char",)),
    "null": BuiltinRule(r'"null"'),
}

STRING_FORMAT_RULES: dict[str, BuiltinRule] = {
    "date": BuiltinRule(r'[0-9]{4} "-" ( "0" [1-9] | "1" [0-2] ) "-" ( "0" [1-9] | [1-2] [0-9] | "3" [0-1] )'),
    "time": BuiltinRule(r'([01] [0-9] | "2" [0-3]) ":" [0-5] [0-9] ":" [0-5] [0-9] ( "." [0-9]{3} )? '
                        r'( "Z" | ( "+" | "-" ) ( [01] [0-9] | "2" [0-3] ) ":" [0-5] [0-9] )'),
    "date-time": BuiltinRule(r'date "T" time', ("date", "time")),
    "date-string": BuiltinRule(r'"\"" date "\""', ("date",)),
    "time-string": BuiltinRule(r'"\"" time "\""', ("time",)),
    "date-time-string": BuiltinRule(r'"\"" date-time "\""', ("date-time",)),
}

RESERVED_NAMES = frozenset({"root", *PRIMITIVE_RULES, *STRING_FORMAT_RULES})

_INVALID_RULE_CHARS = re.compile(r"[^a-zA-Z0-9-]+")
_LITERAL_ESCAPES = {"\r": "\\r", "\n": "\\n", '"': '\\"', "\\": "\\\\"}
_LITERAL_ESCAPE_RE = re.compile(r'[\r\n"\\]')


def format_literal(literal: str) -> str:
    """A GBNF string literal: quotes, backslashes, CR and LF escaped (llama.cpp's set)."""
    return '"' + _LITERAL_ESCAPE_RE.sub(lambda m: _LITERAL_ESCAPES[m.group(0)], literal) + '"'


def _dump_float(value: float) -> str:
    """nlohmann's number format: shortest digits, fixed notation only up to 10^15."""
    if math.isnan(value) or math.isinf(value):
        return "null"
    text = repr(value)
    if "e" in text or "E" in text:
        return text
    digits = text.lstrip("-").split(".")[0]
    if len(digits) > 15:
        # llama.cpp quirk (nlohmann): 1e15 <= |x| < 1e16 prints with an exponent, Python does not
        mantissa, exponent = f"{value:.17e}".split("e")
        shortest = repr(float(f"{mantissa}e{exponent}"))
        head = shortest.lstrip("-").replace(".", "").rstrip("0").rstrip(".") or "0"
        sign = "-" if value < 0 else ""
        frac = head[1:]
        return f"{sign}{head[0]}{'.' + frac if frac else ''}e+{len(digits) - 1:02d}"
    return text


def json_dump(value: Any) -> str:
    """nlohmann's compact ``dump()``: no spaces, UTF-8 kept, control characters escaped."""
    if isinstance(value, float):
        return _dump_float(value)
    if isinstance(value, dict):
        return "{" + ",".join(json_dump(str(k)) + ":" + json_dump(v) for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(json_dump(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def rule_name(name: str) -> str:
    """Replace every run of characters outside ``[a-zA-Z0-9-]`` by one dash."""
    return _INVALID_RULE_CHARS.sub("-", name)


class SchemaConverter:
    """llama.cpp's converter: a sorted rule table plus the schema visitor."""

    def __init__(self, dotall: bool = False) -> None:
        self.dotall = dotall
        self.rules: dict[str, str] = {"space": SPACE_RULE}
        self._refs_being_resolved: set[str] = set()
        self.errors: list[str] = []
        self.warnings: list[str] = []

    # --- the rule table -----------------------------------------------------------------

    def add_rule(self, name: str, rule: str) -> str:
        """Add a rule; a name already taken by a different body gets a numeric suffix."""
        esc_name = rule_name(name)
        if esc_name not in self.rules or self.rules[esc_name] == rule:
            self.rules[esc_name] = rule
            return esc_name
        i = 0
        while f"{esc_name}{i}" in self.rules and self.rules[f"{esc_name}{i}"] != rule:
            i += 1
        key = f"{esc_name}{i}"
        self.rules[key] = rule
        return key

    def add_primitive(self, name: str, rule: BuiltinRule) -> str:
        n = self.add_rule(name, rule.content)
        for dep in rule.deps:
            dep_rule = PRIMITIVE_RULES.get(dep) or STRING_FORMAT_RULES.get(dep)
            if dep_rule is None:
                self.errors.append(f"Rule {dep} not known")
                continue
            if dep not in self.rules:
                self.add_primitive(dep, dep_rule)
        return n

    def format_grammar(self) -> str:
        return "".join(f"{name} ::= {body}\n" for name, body in sorted(self.rules.items(), key=_byte_key))

    def check_errors(self) -> None:
        if self.errors:
            raise GrammarError("JSON schema conversion failed:\n" + "\n".join(self.errors))

    # --- visitors -----------------------------------------------------------------------

    def add_schema(self, name: str, schema: SchemaNode) -> str:
        return self.visit(schema, name)

    def visit_primitive(self, rule_name_: str, type_: str) -> str:
        return self.add_primitive("root" if rule_name_ == "root" else type_, PRIMITIVE_RULES[type_])

    def visit(self, schema: SchemaNode, name: str) -> str:
        rule_name_ = name + "-" if name in RESERVED_NAMES else (name or "root")
        handler = _VISITORS[type(schema)]
        return handler(self, schema, name, rule_name_)

    def _visit_ref(self, schema: RefSchema, name: str, rn: str) -> str:
        return self.add_rule(rn, self._resolve_ref(schema))

    def _visit_any_of(self, schema: AnyOfSchema, name: str, rn: str) -> str:
        alts = [
            self.visit(child, name + ("alternative-" if not name else "-") + str(i))
            for i, child in enumerate(schema.children)
        ]
        return self.add_rule(rn, " | ".join(alts))

    def _visit_const(self, schema: ConstSchema, name: str, rn: str) -> str:
        return self.add_rule(rn, format_literal(json_dump(schema.value)))

    def _visit_enum(self, schema: EnumSchema, name: str, rn: str) -> str:
        return self.add_rule(rn, "(" + " | ".join(format_literal(json_dump(v)) for v in schema.values) + ")")

    def _visit_object(self, schema: ObjectSchema, name: str, rn: str) -> str:
        if not schema.properties and isinstance(schema.additional_properties, AnySchema):
            return self.add_rule(rn, self.add_primitive("object", PRIMITIVE_RULES["object"]))
        props = [(p.name, p.schema) for p in schema.properties]
        required = {p.name for p in schema.properties if p.required}
        return self.add_rule(rn, self._build_object_rule(props, required, name, schema.additional_properties))

    def _visit_tuple(self, schema: TupleSchema, name: str, rn: str) -> str:
        sub_name = name + ("-" if name else "")
        parts = [self.visit(item, f"{sub_name}tuple-{i}") for i, item in enumerate(schema.items)]
        return self.add_rule(rn, '"[" space ' + ' "," space '.join(parts) + ' space "]"')

    def _visit_array(self, schema: ArraySchema, name: str, rn: str) -> str:
        if isinstance(schema.items, AnySchema) and schema.min_items == 0 and schema.max_items < 0:
            return self.visit_primitive(rn, "array")
        sub_name = name + ("-" if name else "")
        item_rule = self.visit(schema.items, sub_name + "item")
        max_items = INT_MAX if schema.max_items < 0 else schema.max_items
        body = build_repetition(item_rule, schema.min_items, max_items, '"," space')
        return self.add_rule(rn, f'"[" space {body} space "]"')

    def _visit_string(self, schema: StringSchema, name: str, rn: str) -> str:
        if schema.pattern:
            return self._visit_pattern(schema.pattern, rn)
        if schema.format == FORMAT_UUID:
            return self.visit_primitive(rn, "uuid")
        if schema.format != FORMAT_NONE:
            prim = schema.format + "-string"
            return self.add_rule(rn, self.add_primitive(prim, STRING_FORMAT_RULES[prim]))
        if schema.min_length > 0 or schema.max_length >= 0:
            char_rule = self.add_primitive("char", PRIMITIVE_RULES["char"])
            max_len = INT_MAX if schema.max_length < 0 else schema.max_length
            return self.add_rule(rn, '"\\"" ' + build_repetition(char_rule, schema.min_length, max_len) + ' "\\""')
        return self.visit_primitive(rn, "string")

    def _visit_integer(self, schema: IntegerSchema, name: str, rn: str) -> str:
        if schema.minimum == INT64_MIN and schema.maximum == INT64_MAX:
            return self.visit_primitive(rn, "integer")
        return self.add_rule(rn, "(" + build_min_max_int(schema.minimum, schema.maximum) + ")")

    def _visit_any(self, schema: AnySchema, name: str, rn: str) -> str:
        return self.add_rule(rn, self.add_primitive("value", PRIMITIVE_RULES["value"]))

    def _visit_all_of(self, schema: AllOfSchema, name: str, rn: str) -> str:
        required: set[str] = set()
        properties: list[tuple[str, SchemaNode]] = []
        enum_values: dict[str, int] = {}

        def add_component(comp: SchemaNode, is_required: bool) -> None:
            if isinstance(comp, RefSchema):
                if comp.target is not None:
                    add_component(comp.target, is_required)
            elif isinstance(comp, ObjectSchema):
                for prop in comp.properties:
                    properties.append((prop.name, prop.schema))
                    if is_required:
                        required.add(prop.name)
            elif isinstance(comp, EnumSchema):
                for v in comp.values:
                    key = format_literal(json_dump(v))
                    enum_values[key] = enum_values.get(key, 0) + 1

        for child in schema.children:
            if isinstance(child, AnyOfSchema):
                for alt in child.children:
                    add_component(alt, False)
            else:
                add_component(child, True)
        if enum_values:
            # std::map order: the literals sorted bytewise
            common = [k for k, n in sorted(enum_values.items(), key=lambda kv: kv[0].encode()) if n == len(schema.children)]
            if common:
                return self.add_rule(rn, "(" + " | ".join(common) + ")")
        return self.add_rule(rn, self._build_object_rule(properties, required, name, None))

    # --- helpers ------------------------------------------------------------------------

    def _visit_pattern(self, pattern: str, name: str) -> str:
        snapshot = dict(self.rules)
        try:
            return pattern_to_rule(pattern, name, self.add_rule, self.dotall)
        except UnsupportedPattern as err:
            self.rules = snapshot
            self.warnings.append(f"pattern {pattern} is not supported ({err}), accepting any string")
            return self.add_rule(name, self.add_primitive("string", PRIMITIVE_RULES["string"]))
        except InvalidPattern as err:
            self.rules = snapshot
            self.errors.append(f"Invalid pattern {pattern}: {err}")
            return ""

    def _resolve_ref(self, schema: RefSchema) -> str:
        ref = schema.ref
        fragment = ref[ref.index("#") + 1:] if "#" in ref else ref
        ref_name = "ref" + rule_name(fragment)
        if ref_name not in self.rules and ref not in self._refs_being_resolved:
            target = schema.target
            if target is None:
                self.errors.append(f"Unresolved $ref {ref}")
                return ""
            self._refs_being_resolved.add(ref)
            ref_name = self.visit(target, ref_name)
            self._refs_being_resolved.discard(ref)
        return ref_name

    def _not_strings(self, strings: list[str]) -> str:
        """A JSON string that is none of ``strings`` (a trie of their code points)."""
        trie = _Trie(strings)
        char_rule = self.add_primitive("char", PRIMITIVE_RULES["char"])
        out: list[str] = ['["] ( ']

        def visit(node: _TrieNode) -> None:
            rejects = ""
            first = True
            for ch, child in sorted(node.children.items()):
                rejects += ch
                if not first:
                    out.append(" | ")
                first = False
                out.append(f"[{ch}]")
                if child.children:
                    out.append(" (")
                    visit(child)
                    out.append(")")
                else:
                    out.append(f" {char_rule}+")
            if node.children:
                out.append(f' | [^"{rejects}] {char_rule}*')

        visit(trie.root)
        out.append(" )")
        if not trie.root.terminal:
            out.append("?")
        out.append(' ["]')
        return "".join(out)

    def _build_object_rule(self, properties: list[tuple[str, SchemaNode]], required: set[str], name: str,
                           additional: SchemaNode | None) -> str:
        required_props: list[str] = []
        optional_props: list[str] = []
        kv_rules: dict[str, str] = {}
        prop_names: list[str] = []
        dash = "-" if name else ""
        for prop_name, prop_schema in properties:
            prop_rule = self.visit(prop_schema, f"{name}{dash}{prop_name}")
            kv_rules[prop_name] = self.add_rule(
                f"{name}{dash}{prop_name}-kv",
                format_literal(json_dump(prop_name)) + ' space ":" space ' + prop_rule,
            )
            (required_props if prop_name in required else optional_props).append(prop_name)
            prop_names.append(prop_name)
        if additional is not None:
            sub_name = f"{name}{dash}additional"
            if not isinstance(additional, AnySchema):
                value_rule = self.visit(additional, sub_name + "-value")
            else:
                value_rule = self.add_primitive("value", PRIMITIVE_RULES["value"])
            if not prop_names:
                key_rule = self.add_primitive("string", PRIMITIVE_RULES["string"])
            else:
                key_rule = self.add_rule(sub_name + "-k", self._not_strings(prop_names))
            kv_rules["*"] = self.add_rule(sub_name + "-kv", f'{key_rule} ":" space {value_rule}')
            optional_props.append("*")
        if not required_props and not optional_props:
            return '"{" space "}"'
        rule = '"{" space ' + ' "," space '.join(kv_rules[p] for p in required_props)
        if optional_props:
            rule += " ("
            if required_props:
                rule += ' "," space ( '

            def recursive_refs(keys: list[str], first_is_optional: bool) -> str:
                if not keys:
                    return ""
                k = keys[0]
                kv = kv_rules[k]
                comma_ref = f'( "," space {kv} )'
                if first_is_optional:
                    res = comma_ref + ("*" if k == "*" else "?")
                else:
                    res = kv + (" " + comma_ref + "*" if k == "*" else "")
                if len(keys) > 1:
                    res += " " + self.add_rule(f"{name}{dash}{k}-rest", recursive_refs(keys[1:], True))
                return res

            rule += " | ".join(recursive_refs(optional_props[i:], False) for i in range(len(optional_props)))
            if required_props:
                rule += " )"
            rule += " )?"
        rule += ' space "}"'
        return rule


_VISITORS: dict[type, Callable[..., str]] = {
    RefSchema: SchemaConverter._visit_ref,
    AnyOfSchema: SchemaConverter._visit_any_of,
    AllOfSchema: SchemaConverter._visit_all_of,
    ConstSchema: SchemaConverter._visit_const,
    EnumSchema: SchemaConverter._visit_enum,
    ObjectSchema: SchemaConverter._visit_object,
    TupleSchema: SchemaConverter._visit_tuple,
    ArraySchema: SchemaConverter._visit_array,
    StringSchema: SchemaConverter._visit_string,
    IntegerSchema: SchemaConverter._visit_integer,
    NumberSchema: lambda self, s, n, rn: self.visit_primitive(rn, "number"),
    BooleanSchema: lambda self, s, n, rn: self.visit_primitive(rn, "boolean"),
    NullSchema: lambda self, s, n, rn: self.visit_primitive(rn, "null"),
    AnySchema: SchemaConverter._visit_any,
}


class _TrieNode:
    __slots__ = ("children", "terminal")

    def __init__(self) -> None:
        self.children: dict[str, _TrieNode] = {}
        self.terminal = False


class _Trie:
    def __init__(self, words: list[str]) -> None:
        self.root = _TrieNode()
        for word in words:
            node = self.root
            for ch in word:
                node = node.children.setdefault(ch, _TrieNode())
            node.terminal = True


def _byte_key(item: tuple[str, str]) -> bytes:
    return item[0].encode("utf-8", "surrogatepass")


@dataclass(frozen=True)
class GrammarBuilder:
    """What llama.cpp hands to ``build_grammar`` callbacks: add_rule and add_schema."""

    converter: SchemaConverter

    def add_rule(self, name: str, rule: str) -> str:
        return self.converter.add_rule(name, rule)

    def add_schema(self, name: str, schema: SchemaNode) -> str:
        return self.converter.add_schema("" if name == "root" else name, schema)


def build_grammar(callback: Callable[[GrammarBuilder], object], *, dotall: bool = False) -> str:
    """Run ``callback`` against a fresh rule table and return the GBNF text (what the
    callback returns is not used)."""
    converter = SchemaConverter(dotall)
    try:
        callback(GrammarBuilder(converter))
    except RecursionError:
        raise GrammarError("grammar nested too deeply to build") from None
    converter.check_errors()
    return converter.format_grammar()


def json_schema_to_grammar(schema: Any) -> str:
    """A JSON schema (parsed JSON) as GBNF whose ``root`` accepts matching JSON text."""
    doc = schema_from_json(schema)
    return build_grammar(lambda b: b.add_schema("", doc.root))


__all__ = [
    "GrammarBuilder", "SchemaConverter", "build_grammar", "build_repetition", "format_literal",
    "json_dump", "json_schema_to_grammar", "rule_name",
]
