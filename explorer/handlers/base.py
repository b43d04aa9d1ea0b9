"""What a specialised handler is: declared data plus one parser-building function.

Input: a ``GenerationParams`` (llama.cpp's ``generation_params`` as the handlers read them,
with the generation prompt the apply stage found). Output: ``GeneratedParams`` (the
autoparser generator's type, also named ``HandlerParams`` here): the serialized PEG
arena, GBNF grammar, laziness, triggers, preserved tokens, additional stops, format
name, thinking tags and message delimiters -- what the handler's
``common_chat_params_init_*`` returns beside the prompt.

Each handler module declares a ``Handler``: the constant parts of its result as fields,
the grammar policy as named rules (``include``/``lazy``), and ``build`` for the parser,
written against ``HandlerPeg`` in llama.cpp's creation order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable, Union

from explorer.errors import GrammarError
from explorer.generator.params import PEG_NATIVE, Delimiter, GeneratedParams, GrammarTrigger, arena_grammar
from explorer.generator.spec import GenerationParams
from explorer.handlers.peg import HandlerPeg

PEG_GEMMA4 = "peg-gemma4"
PEG_MINIMAX_M3 = "peg-minimax-m3"


# --- grammar policies (how each handler sets include_grammar and grammar_lazy) ---------

Policy = Callable[[GenerationParams, bool], bool]  # (inputs, has_response_format) -> bool


def include_tools(i: GenerationParams, rf: bool) -> bool:
    return i.wants_tools


def include_tools_or_format(i: GenerationParams, rf: bool) -> bool:
    return rf or i.wants_tools


def lazy_tools_auto(i: GenerationParams, rf: bool) -> bool:
    return i.has_tools and i.tool_choice == "auto"


def lazy_auto(i: GenerationParams, rf: bool) -> bool:
    return i.tool_choice == "auto"


def lazy_unless_forced(i: GenerationParams, rf: bool) -> bool:
    """Lazy unless a response format or required tool calls force the grammar."""
    return not (rf or (i.has_tools and i.required))


def lazy_unless_required(i: GenerationParams, rf: bool) -> bool:
    return not i.required


def lazy_auto_without_format(i: GenerationParams, rf: bool) -> bool:
    return not rf and i.tool_choice == "auto"


def lazy_tools_unless_required(i: GenerationParams, rf: bool) -> bool:
    return i.has_tools and not i.required


def word(value: str) -> GrammarTrigger:
    return GrammarTrigger("WORD", value)


def pattern(value: str) -> GrammarTrigger:
    return GrammarTrigger("PATTERN", value)


def delimiters(*pairs: tuple[str, str]) -> tuple[Delimiter, ...]:
    return tuple(Delimiter(r, d) for r, d in pairs)


Dynamic = Union[Any, Callable[[GenerationParams], Any]]


def resolve(value: Dynamic, inputs: GenerationParams) -> Any:
    return value(inputs) if callable(value) else value


@dataclass(frozen=True)
class Handler:
    """One specialised handler, declared.

    ``response_format``: which test of ``json_schema`` the handler uses ("object": any
    object, "nonempty": a non-empty object). ``triggers_when_lazy_only``: the handler
    sets triggers only for a lazy grammar (Qwen3-Coder). Fields typed ``Dynamic`` may be
    a function of the inputs.
    """

    name: str
    build: Callable[[HandlerPeg, GenerationParams], int]
    include: Policy
    lazy: Policy
    triggers: Dynamic = ()
    format: str = PEG_NATIVE
    preserved_tokens: Dynamic = ()
    thinking_start_tag: Dynamic = ""
    thinking_end_tags: Dynamic = ()
    additional_stops: tuple[str, ...] = ()
    message_delimiters: tuple[Delimiter, ...] = ()
    response_format: str = "object"
    triggers_when_lazy_only: bool = False
    reference: str = ""  # llama.cpp source of the handler
    note: str = ""

    @property
    def detection(self) -> Any:
        """The routing rule that sends a template here (``explorer.routing``'s table)."""
        from explorer.routing import HANDLER_RULES

        return next(rule for rule in HANDLER_RULES if rule.name == self.name)

    def describe(self, inputs: GenerationParams | None = None) -> dict[str, Any]:
        """The declaration as data (dynamic fields resolved for ``inputs``), for display."""
        inputs = inputs or GenerationParams()
        rule = self.detection
        return {
            "name": self.name,
            "reference": self.reference,
            "detects": {"required": list(rule.required), "forbidden": list(rule.forbidden),
                        "any_of": [list(group) for group in rule.any_of]},
            "format": self.format,
            "preserved_tokens": list(resolve(self.preserved_tokens, inputs)),
            "thinking_start_tag": resolve(self.thinking_start_tag, inputs),
            "thinking_end_tags": list(resolve(self.thinking_end_tags, inputs)),
            "additional_stops": list(self.additional_stops),
            "grammar": {"include": self.include.__name__, "lazy": self.lazy.__name__,
                        "triggers": [t.to_json() for t in resolve(self.triggers, inputs)],
                        "triggers_when_lazy_only": self.triggers_when_lazy_only,
                        "response_format": self.response_format},
            "message_delimiters": [d.to_json() for d in self.message_delimiters],
            "note": self.note,
        }

    def has_response_format(self, inputs: GenerationParams) -> bool:
        return inputs.has_nonempty_schema if self.response_format == "nonempty" else inputs.has_schema_object

    def params(self, inputs: GenerationParams) -> GeneratedParams:
        """The handler's parser, grammar and declared constants for these inputs."""
        p = HandlerPeg()
        try:
            arena = p.build(self.build(p, inputs))
        except RecursionError:
            raise GrammarError(f"the '{self.name}' parser for these tools is nested too deeply to build") from None
        rf = self.has_response_format(inputs)
        grammar, lazy, triggers = "", False, ()
        if self.include(inputs, rf):
            lazy = self.lazy(inputs, rf)
            grammar = arena_grammar(arena, lazy)
            if lazy or not self.triggers_when_lazy_only:
                triggers = tuple(resolve(self.triggers, inputs))
        return GeneratedParams(
            format=self.format,
            generation_prompt=inputs.generation_prompt,
            arena=arena,
            grammar=grammar,
            grammar_lazy=lazy,
            grammar_triggers=triggers,
            preserved_tokens=tuple(resolve(self.preserved_tokens, inputs)),
            additional_stops=self.additional_stops,
            thinking_start_tag=resolve(self.thinking_start_tag, inputs),
            thinking_end_tags=tuple(resolve(self.thinking_end_tags, inputs)),
            message_delimiters=self.message_delimiters,
        )


# A handler returns the same chat params as the autoparser's generator.
HandlerParams = GeneratedParams
