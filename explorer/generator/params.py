"""Analysis + request -> llama.cpp's chat params: parser, grammar, triggers, tokens.

Input: a ``TemplateAnalysis`` and a ``GenerationParams`` (the generation prompt comes from the
apply stage). Output: ``GeneratedParams`` with the oracle's apply keys: the serialized
parser, the GBNF grammar and whether it is lazy, grammar triggers, preserved tokens and
additional stops -- what ``peg_generator::generate_parser`` returns -- plus what chat.cpp
adds from the analysis right after (thinking support and tags, message delimiters).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from explorer.analysis.diff import trim_whitespace
from explorer.analysis.model import TemplateAnalysis
from explorer.errors import GrammarError
from explorer.generator.autoparser import build_parser
from explorer.generator.spec import GenerationParams
from explorer.grammar.gbnf import emit_arena_grammar
from explorer.grammar.json_schema import build_grammar
from explorer.jsontypes import Json, JsonObject
from explorer.peg.arena import Arena
from explorer.peg.chat_mappers import GenericMapper

OPENAI_WRAPPER_TRIGGER = '{"type": "function",'
PEG_NATIVE = GenericMapper.format


@dataclass(frozen=True)
class GrammarTrigger:
    type: str  # TOKEN, WORD, PATTERN or PATTERN_FULL
    value: str
    token: int = -1

    def to_json(self) -> JsonObject:
        return {"type": self.type, "value": self.value, "token": self.token}


@dataclass(frozen=True)
class Delimiter:
    """Where a role's turn starts in the prompt (llama.cpp's message delimiters)."""

    role: str
    delimiter: str

    def to_json(self) -> dict[str, str]:
        return {"role": self.role, "delimiter": self.delimiter}


@dataclass(frozen=True)
class GeneratedParams:
    """The chat params a parser generator returns beside the prompt: the autoparser's
    (``generate_params``) or a specialised handler's (``Handler.params``).

    ``supports_thinking``: the autoparser's comes from the analysis; a handler's is the
    apply stage's to decide (``explorer.apply``), so it stays None here. The apply stage's
    ``ChatParams`` is these params with the route and the prompt added.
    """

    generation_prompt: str
    arena: Arena
    grammar: str
    grammar_lazy: bool
    grammar_triggers: tuple[GrammarTrigger, ...]
    preserved_tokens: tuple[str, ...]
    additional_stops: tuple[str, ...]
    supports_thinking: bool | None = None
    thinking_start_tag: str = ""
    thinking_end_tags: tuple[str, ...] = ()
    format: str = PEG_NATIVE
    message_delimiters: tuple[Delimiter, ...] = ()

    @property
    def parser(self) -> str:
        """The serialized arena, the string llama-server hands to ``common_chat_parse``."""
        return self.arena.dumps()

    def to_oracle_json(self, fields: Iterable[str] | None = None) -> JsonObject:
        """The oracle's apply keys, in its field names and order; ``fields``: only those keys
        (the others are not serialised)."""
        return {name: ORACLE_JSON[name](self) for name in (fields if fields is not None else ORACLE_JSON)}


# each oracle apply key of the params as JSON, in the oracle's order
ORACLE_JSON: dict[str, Callable[[GeneratedParams], Json]] = {
    "format": lambda p: p.format,
    "generation_prompt": lambda p: p.generation_prompt,
    "grammar": lambda p: p.grammar,
    "grammar_lazy": lambda p: p.grammar_lazy,
    "grammar_triggers": lambda p: [t.to_json() for t in p.grammar_triggers],
    "preserved_tokens": lambda p: list(p.preserved_tokens),
    "additional_stops": lambda p: list(p.additional_stops),
    "supports_thinking": lambda p: p.supports_thinking,
    "thinking_start_tag": lambda p: p.thinking_start_tag,
    "thinking_end_tags": lambda p: list(p.thinking_end_tags),
    "message_delimiters": lambda p: [d.to_json() for d in p.message_delimiters],
    "parser": lambda p: p.parser,
}


def arena_grammar(arena: Arena, lazy: bool) -> str:
    """The GBNF grammar of a built parser (lazy: only the trigger rules are roots)."""
    return build_grammar(lambda b: emit_arena_grammar(b, arena, lazy=lazy, schemas=arena.schemas))


def generate_params(spec: TemplateAnalysis, req: GenerationParams) -> GeneratedParams:
    """llama.cpp's ``peg_generator::generate_parser`` without the prompt rendering."""
    try:
        arena = build_parser(spec, req)
    except RecursionError:
        raise GrammarError("the parser for these tools is nested too deeply to build") from None
    fmt = spec.tools.format
    has_tools = fmt.mode != "NONE" and req.has_tools
    trigger_marker = fmt.section_start or fmt.per_call_start
    include_grammar = req.has_response_format or (
        has_tools and ((req.tool_choice == "auto" and bool(trigger_marker)) or req.tool_choice == "required")
    )
    grammar, lazy = "", False
    triggers: tuple[GrammarTrigger, ...] = ()
    if include_grammar:
        lazy = not req.has_response_format and req.tool_choice == "auto"
        grammar = arena_grammar(arena, lazy)
        if lazy:
            triggers = (GrammarTrigger("WORD", trigger_marker),)
            if fmt.openai_wrapper_trigger:
                triggers += (GrammarTrigger("WORD", OPENAI_WRAPPER_TRIGGER),)
    # chat.cpp sets these after generate_parser, from the analysis
    supports_thinking = spec.reasoning.mode != "NONE"
    start_tag = ""
    end_tags: tuple[str, ...] = ()
    if supports_thinking:
        start_tag = trim_whitespace(spec.reasoning.start)
        end = trim_whitespace(spec.reasoning.end)
        end_tags = (end,) if end else ()
    delimiters = tuple(Delimiter(role, start) for role, start in
                       (("assistant", spec.assistant_start), ("user", spec.user_start)) if start)
    return GeneratedParams(
        generation_prompt=req.generation_prompt,
        arena=arena,
        grammar=grammar,
        grammar_lazy=lazy,
        grammar_triggers=triggers,
        preserved_tokens=spec.preserved_tokens,
        additional_stops=spec.additional_stops,
        supports_thinking=supports_thinking,
        thinking_start_tag=start_tag,
        thinking_end_tags=end_tags,
        message_delimiters=delimiters,
    )
