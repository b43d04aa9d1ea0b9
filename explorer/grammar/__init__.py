"""Grammars: JSON schema -> GBNF, and grammar checks.

Input: JSON schemas, texts. Output: GBNF text identical to llama.cpp's, and verdicts from
a real grammar engine (llguidance). GBNF from a PEG arena is ``explorer.grammar.gbnf``,
not re-exported here: it reads ``explorer.peg`` arenas, and ``explorer.peg``'s builder
reads this package's schema nodes, so importing it from this package's ``__init__`` would
make the two packages import each other.
"""

from explorer.grammar.check import Verdict, check_grammar
from explorer.grammar.json_schema import build_grammar, format_literal, json_schema_to_grammar
from explorer.schema import SchemaDocument, schema_from_json

__all__ = [
    "SchemaDocument", "Verdict", "build_grammar", "check_grammar", "format_literal", "json_schema_to_grammar",
    "schema_from_json",
]
