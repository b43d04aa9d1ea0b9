"""What a route of llama.cpp's chat apply is: one class of declared data per handler.

Input: for routing, the patched template source; for the prompt, what
``explorer.apply.prompt`` passes (messages, source, json_schema, the rendered pair,
the message being continued); for the parser, a ``GenerationParams`` (llama.cpp's
``generation_params`` with the generation prompt the apply stage found). Output: per
class, a ``RuleCheck`` (does ``common_chat_try_specialized_template`` pick it), its
prompt behaviour, its typical garbles for the triage, and for a specialised ``Handler``
the ``GeneratedParams``: serialized PEG arena, GBNF
grammar, laziness, triggers, preserved tokens, additional stops, format name, thinking
tags and message delimiters, what its ``common_chat_params_init_*`` returns beside the
prompt.

``Route`` holds what every route declares (the autoparser fallback is one too);
``Handler`` adds the parser (``build``, written against ``ChatPeg`` in llama.cpp's
creation order) and the grammar policy as named rules (``include``/``lazy``). The
classes are never instantiated: the class is the declaration, and
``explorer.handlers.registry`` lists them in llama.cpp's routing order.
"""

from __future__ import annotations

from typing import ClassVar, Protocol

from explorer.errors import GrammarError
from explorer.generator.chat_builder import ChatPeg
from explorer.generator.params import Delimiter, GeneratedParams, GrammarTrigger, arena_grammar
from explorer.generator.spec import GenerationParams
from explorer.handlers.detection import RuleCheck, check_rule
from explorer.handlers.garbles import Garble
from explorer.handlers.prompting import AdditionalContext, Continuation, Finish, MessagesOverride, MessageWorkaround
from explorer.peg.chat_mappers import ChatMapper, GenericMapper

# --- grammar policies (how each handler sets include_grammar and grammar_lazy) ---------

class Policy(Protocol):
    """(inputs, has_response_format) -> bool; a named function (``describe`` shows its name)."""

    __name__: str

    def __call__(self, inputs: GenerationParams, has_response_format: bool, /) -> bool: ...



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


class ParserBuild(Protocol):
    """(the builder, the inputs) -> the root parser's id: a handler's ``build``."""

    def __call__(self, p: ChatPeg, inputs: GenerationParams, /) -> int: ...

Describe = dict[str, object]


class Route:
    """Everything one route of ``common_chat_templates_apply`` declares but its parser.

    Routing: ``required`` substrings must all be in the source, ``forbidden`` ones all
    absent, and each ``any_of`` group needs one; ``note`` says why the rule reads so.
    Prompt: ``supports_thinking`` (None: the autoparser decides from its analysis),
    ``message_workarounds`` run on the messages first, then ``messages_override``,
    ``additional_context``, ``fixed_generation_prompt`` (no render diff) and ``finish``
    (a touch-up of the rendered prompt) where set; ``continuation`` is the assistant turn
    the handler writes to continue the final message. Triage: ``garbles`` are the typical
    slips of its markup; ``not_end_of_generation`` the tokens that end a message but do
    not stop llama-server; ``argument_order`` where the route's parser reads a call's
    tagged arguments required-first (the llama.cpp function; "" for the route's own
    source), None when it takes them in any order.
    """

    name: ClassVar[str]
    required: ClassVar[tuple[str, ...]] = ()
    forbidden: ClassVar[tuple[str, ...]] = ()
    any_of: ClassVar[tuple[tuple[str, ...], ...]] = ()
    note: ClassVar[str] = ""

    supports_thinking: ClassVar[bool | None] = True
    message_workarounds: ClassVar[tuple[MessageWorkaround, ...]] = ()
    messages_override: ClassVar[MessagesOverride | None] = None
    additional_context: ClassVar[AdditionalContext | None] = None
    fixed_generation_prompt: ClassVar[str | None] = None
    finish: ClassVar[Finish | None] = None
    continuation: ClassVar[Continuation]

    garbles: ClassVar[tuple[Garble, ...]] = ()
    not_end_of_generation: ClassVar[tuple[str, ...]] = ()
    argument_order: ClassVar[str | None] = None

    @classmethod
    def check(cls, source: str) -> RuleCheck:
        """This class's ``src.find`` tests on the patched source."""
        return check_rule(cls.name, source, cls.required, cls.forbidden, cls.any_of)

    @classmethod
    def thinking_supported(cls, source: str) -> bool | None:
        return cls.supports_thinking


class Handler(Route):
    """A specialised handler: a ``Route`` with its own parser and grammar policy.

    ``mapper``: how llama.cpp maps the handler's parse tree to a message (a
    ``ChatMapper`` subclass; its ``format`` is the chat format name the params carry).
    ``response_format``: which test of ``json_schema`` the handler uses ("object": any
    object, "nonempty": a non-empty object). ``triggers_when_lazy_only``: the handler
    sets triggers only for a lazy grammar (Qwen3-Coder). A handler whose triggers,
    preserved tokens or thinking tags depend on the request overrides the ``*_for``
    method instead of setting the constant.
    """

    supports_thinking: ClassVar[bool] = True  # a handler decides (only the autoparser leaves it to its analysis)
    build: ClassVar[ParserBuild]
    include: ClassVar[Policy]
    lazy: ClassVar[Policy]
    triggers: ClassVar[tuple[GrammarTrigger, ...]] = ()
    mapper: ClassVar[type[ChatMapper]] = GenericMapper
    format: ClassVar[str] = GenericMapper.format  # the mapper's (set for each subclass)
    preserved_tokens: ClassVar[tuple[str, ...]] = ()
    thinking_start_tag: ClassVar[str] = ""
    thinking_end_tags: ClassVar[tuple[str, ...]] = ()
    additional_stops: ClassVar[tuple[str, ...]] = ()
    message_delimiters: ClassVar[tuple[Delimiter, ...]] = ()
    response_format: ClassVar[str] = "object"
    triggers_when_lazy_only: ClassVar[bool] = False
    reference: ClassVar[str] = ""  # llama.cpp source of the handler
    describe_note: ClassVar[str] = ""  # shown by describe() only

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        cls.format = cls.mapper.format

    @classmethod
    def thinking_supported(cls, source: str) -> bool:
        return cls.supports_thinking

    @classmethod
    def triggers_for(cls, inputs: GenerationParams) -> tuple[GrammarTrigger, ...]:
        return cls.triggers

    @classmethod
    def preserved_tokens_for(cls, inputs: GenerationParams) -> tuple[str, ...]:
        return cls.preserved_tokens

    @classmethod
    def thinking_start_tag_for(cls, inputs: GenerationParams) -> str:
        return cls.thinking_start_tag

    @classmethod
    def thinking_end_tags_for(cls, inputs: GenerationParams) -> tuple[str, ...]:
        return cls.thinking_end_tags

    @classmethod
    def describe(cls, inputs: GenerationParams | None = None) -> Describe:
        """The declaration as data (request-dependent parts for ``inputs``), for display."""
        inputs = inputs or GenerationParams()
        return {
            "name": cls.name,
            "reference": cls.reference,
            "detects": {"required": list(cls.required), "forbidden": list(cls.forbidden),
                        "any_of": [list(group) for group in cls.any_of]},
            "format": cls.format,
            "preserved_tokens": list(cls.preserved_tokens_for(inputs)),
            "thinking_start_tag": cls.thinking_start_tag_for(inputs),
            "thinking_end_tags": list(cls.thinking_end_tags_for(inputs)),
            "additional_stops": list(cls.additional_stops),
            "grammar": {"include": cls.include.__name__, "lazy": cls.lazy.__name__,
                        "triggers": [t.to_json() for t in cls.triggers_for(inputs)],
                        "triggers_when_lazy_only": cls.triggers_when_lazy_only,
                        "response_format": cls.response_format},
            "message_delimiters": [d.to_json() for d in cls.message_delimiters],
            "note": cls.describe_note,
        }

    @classmethod
    def has_response_format(cls, inputs: GenerationParams) -> bool:
        return inputs.has_nonempty_schema if cls.response_format == "nonempty" else inputs.has_schema_object

    @classmethod
    def params(cls, inputs: GenerationParams) -> GeneratedParams:
        """The handler's parser, grammar and declared constants for these inputs."""
        p = ChatPeg()
        try:
            arena = p.build(cls.build(p, inputs))
        except RecursionError:
            raise GrammarError(f"the '{cls.name}' parser for these tools is nested too deeply to build") from None
        rf = cls.has_response_format(inputs)
        grammar, lazy = "", False
        triggers: tuple[GrammarTrigger, ...] = ()
        if cls.include(inputs, rf):
            lazy = cls.lazy(inputs, rf)
            grammar = arena_grammar(arena, lazy)
            if lazy or not cls.triggers_when_lazy_only:
                triggers = cls.triggers_for(inputs)
        return GeneratedParams(
            format=cls.format,
            generation_prompt=inputs.generation_prompt,
            arena=arena,
            grammar=grammar,
            grammar_lazy=lazy,
            grammar_triggers=triggers,
            preserved_tokens=cls.preserved_tokens_for(inputs),
            additional_stops=cls.additional_stops,
            thinking_start_tag=cls.thinking_start_tag_for(inputs),
            thinking_end_tags=cls.thinking_end_tags_for(inputs),
            message_delimiters=cls.message_delimiters,
        )
