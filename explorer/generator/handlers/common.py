"""Shared pieces of the specialized handlers: request predicates and the final params.

Input: a built arena and the handler's grammar decisions. Output: ``GeneratedParams``,
with the grammar built exactly as each handler's ``build_grammar`` callback does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from explorer.generator.builder import Arena
from explorer.generator.params import GeneratedParams, GrammarTrigger
from explorer.generator.spec import GenerationRequest
from explorer.grammar.gbnf import emit_arena_grammar, tool_parameters
from explorer.grammar.json_schema import build_grammar
from explorer.grammar.schema import ObjectSchema, SchemaNode, SchemaProperty, schema_from_json


def function_tools(req: GenerationRequest) -> list[Mapping[str, Any]]:
    """foreach_function: tools of type function that carry a function object."""
    return [t for t in req.tools or [] if t.get("type") == "function" and "function" in t]


def parameters(function: Mapping[str, Any]) -> list[SchemaProperty]:
    """foreach_parameter: the properties of an object parameters schema."""
    root = schema_from_json(tool_parameters(function)).root
    return list(root.properties) if isinstance(root, ObjectSchema) else []


def has_tool_calls(req: GenerationRequest) -> bool:
    return req.has_tools and req.tool_choice != "none"


def has_json_schema(req: GenerationRequest) -> bool:
    """Some handlers test only ``is_object()`` (an empty schema counts)."""
    return isinstance(req.json_schema, Mapping)


def finish(req: GenerationRequest, arena: Arena, *, include_grammar: bool, lazy: bool,
           triggers: Sequence[tuple[str, str]] = (), preserved: Sequence[str] = (),
           stops: Sequence[str] = (), generation_prompt: str | None = None,
           schemas: Mapping[int, SchemaNode] | None = None,
           thinking: tuple[str, Sequence[str]] | None = None, supports_thinking: bool | None = None) -> GeneratedParams:
    """``thinking`` is (start tag, end tags); ``supports_thinking`` defaults to having it."""
    grammar, grammar_lazy, trigger_objs = "", False, ()
    if include_grammar:
        grammar_lazy = lazy
        grammar = build_grammar(lambda b: emit_arena_grammar(b, arena.to_json(), lazy=lazy,
                                                             schemas=schemas if schemas is not None else arena.schemas))
        trigger_objs = tuple(GrammarTrigger(kind, value) for kind, value in triggers)
    return GeneratedParams(
        generation_prompt=req.generation_prompt if generation_prompt is None else generation_prompt,
        arena=arena, grammar=grammar, grammar_lazy=grammar_lazy, grammar_triggers=trigger_objs,
        preserved_tokens=tuple(preserved), additional_stops=tuple(stops),
        supports_thinking=thinking is not None if supports_thinking is None else supports_thinking,
        thinking_start_tag=thinking[0] if thinking else "",
        thinking_end_tags=tuple(thinking[1]) if thinking else (),
    )
