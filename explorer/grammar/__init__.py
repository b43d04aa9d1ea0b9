"""Grammars: JSON schema -> GBNF, GBNF from a serialized PEG arena, and grammar checks.

Input: JSON schemas, llama.cpp's serialized PEG parsers, texts. Output: GBNF text
identical to llama.cpp's, and verdicts from a real grammar engine (llguidance).
"""

from explorer.grammar.check import Verdict, check_grammar
from explorer.grammar.gbnf import arena_to_gbnf, request_grammar, schemas_by_name
from explorer.grammar.json_schema import build_grammar, format_literal, json_schema_to_grammar
from explorer.grammar.schema import SchemaDocument, schema_from_json

__all__ = [
    "SchemaDocument", "Verdict", "arena_to_gbnf", "build_grammar", "check_grammar", "format_literal",
    "json_schema_to_grammar", "request_grammar", "schema_from_json", "schemas_by_name",
]
