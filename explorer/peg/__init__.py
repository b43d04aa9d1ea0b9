"""llama.cpp's PEG parser: the arena, its serialized form, the engine and the chat mappers.

Input: the serialized ``parser`` string of a llama.cpp request (or a ``Builder``).
Output: an ``Arena`` that saves back byte-identically, parses text with llama.cpp's
partial-input semantics into an AST, and prints itself as readable PEG rules.
"""

from explorer.peg.arena import Arena, load_arena
from explorer.peg.builder import Builder, build_arena
from explorer.peg.engine import (
    FAIL,
    NEED_MORE_INPUT,
    SUCCESS,
    AstNode,
    Engine,
    ParseResult,
    engine_for,
    parse,
)

__all__ = [
    "FAIL", "NEED_MORE_INPUT", "SUCCESS", "Arena", "AstNode", "Builder", "Engine",
    "ParseResult", "build_arena", "engine_for", "load_arena", "parse",
]
