"""The whole of llama.cpp's ``common_chat_templates_apply``: template + request -> chat params.

Input: a chat template (text, ``CompiledTemplate`` or ``ChatTemplates`` pair) and an
``explorer.apply.Request``. Output: ``ChatParams`` (frozen): format name, prompt,
generation prompt, GBNF grammar and laziness, grammar triggers, preserved tokens, the
serialized PEG parser, additional stops, thinking support and tags, message delimiters,
and which handler built them and why.

The route comes from ``explorer.routing``; the prompt and generation prompt from
``explorer.apply``; then either a specialised handler (``explorer.handlers.registry``)
or the autoparser (``explorer.analysis`` + ``explorer.generator``) builds the parser.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from explorer.analysis import TemplateAnalysis, template_analysis, template_caps
from explorer.apply import Request, apply_request
from explorer.caps import Caps
from explorer.output.parse import ChatMessage, parse_output
from explorer.apply.messages import tools_to_template_json
from explorer.apply.templates import ChatTemplates, as_templates
from explorer.generator.params import Delimiter, GeneratedParams, GrammarTrigger, generate_params
from explorer.generator.spec import GenerationParams
from explorer.handlers.registry import handler_named
from explorer.peg.arena import Arena
from explorer.peg.builder import build_arena
from explorer.render import FIXED_CLOCK, CompiledTemplate
from explorer.routing import AUTOPARSER, RuleCheck, route_source


@dataclass(frozen=True)
class ChatParams:
    """What ``common_chat_templates_apply`` returns, in the oracle's field names."""

    handler: str  # as the oracle's routed.handler
    why: str  # the substrings that decided the route
    format: str
    prompt: str
    generation_prompt: str
    grammar: str
    grammar_lazy: bool
    grammar_triggers: tuple[GrammarTrigger, ...]
    preserved_tokens: tuple[str, ...]
    arena: Arena  # the PEG parser llama-server parses with (``parser`` is its serialized form)
    additional_stops: tuple[str, ...]
    supports_thinking: bool
    thinking_start_tag: str
    thinking_end_tags: tuple[str, ...]
    message_delimiters: tuple[Delimiter, ...] = ()
    checks: tuple[RuleCheck, ...] = field(default=(), compare=False, repr=False)

    @property
    def parser(self) -> str:
        """The serialized arena, the string llama-server hands to ``common_chat_parse``."""
        return self.arena.dumps()

    def parse(self, text: str, *, is_partial: bool = False) -> ChatMessage:
        """``common_chat_parse`` of model output with these params (raises
        ``OutputParseError`` as llama.cpp throws)."""
        return parse_output(self.arena, text, generation_prompt=self.generation_prompt,
                            is_partial=is_partial, format=self.format)

    def to_oracle_json(self) -> dict[str, Any]:
        """The oracle's ``apply.*`` keys (timings, ids and exceptions aside)."""
        return {
            "format": self.format,
            "generation_prompt": self.generation_prompt,
            "prompt": self.prompt,
            "grammar": self.grammar,
            "grammar_lazy": self.grammar_lazy,
            "grammar_triggers": [t.to_json() for t in self.grammar_triggers],
            "preserved_tokens": list(self.preserved_tokens),
            "additional_stops": list(self.additional_stops),
            "supports_thinking": self.supports_thinking,
            "thinking_start_tag": self.thinking_start_tag,
            "thinking_end_tags": list(self.thinking_end_tags),
            "message_delimiters": [d.to_json() for d in self.message_delimiters],
            "parser": self.parser,
        }


def _why(checks: tuple[RuleCheck, ...], handler: str) -> str:
    if handler == AUTOPARSER:
        return "no specialised handler's substrings matched: the differential autoparser"
    winner = checks[-1]
    return f"{handler}: " + "; ".join(e.describe() for e in winner.evidence)


def _route(template: str | CompiledTemplate | ChatTemplates, request: Request, caps: Caps | None) -> tuple[
        ChatTemplates, CompiledTemplate, Caps, str, tuple[RuleCheck, ...]]:
    """The template llama.cpp picks for the request's tools, its caps, and its route."""
    templates = as_templates(template)
    tools = tools_to_template_json(list(request.tools) if request.tools is not None else None)
    compiled = templates.select(tools)
    handler, checks = route_source(compiled.source)
    return templates, compiled, caps if caps is not None else template_caps(compiled), handler, checks


def apply_template(
    template: str | CompiledTemplate | ChatTemplates,
    request: Request,
    *,
    caps: Caps | None = None,
    analysis: TemplateAnalysis | None = None,
    now: datetime = FIXED_CLOCK,
) -> ChatParams:
    """Route, render and build the parser exactly as llama.cpp does for this request.

    ``caps``: the template's nine capability flags (detected when omitted).
    ``analysis``: the autoparser analysis (read an oracle ``autoparser`` dict with
    ``TemplateAnalysis.from_oracle_json`` first), computed when the route needs it and
    it is omitted.
    """
    templates, compiled, caps, handler, checks = _route(template, request, caps)
    if request.force_pure_content:
        return _pure_content(templates, request, caps, now, checks)
    if handler == AUTOPARSER:
        return _autoparser(templates, compiled, request, caps, analysis, now, checks)
    applied = apply_request(templates, request, caps=caps, now=now)
    spec = handler_named(handler)
    inputs = GenerationParams(
        source=applied.source,
        tools=applied.tools,
        tool_choice=request.tool_choice,
        parallel_tool_calls=request.parallel_tool_calls,
        reasoning_format=request.reasoning_format,
        enable_thinking=request.enable_thinking,
        json_schema=request.json_schema,
        generation_prompt=applied.generation_prompt,
        continuation=applied.continuation,
    )
    out = replace(spec.params(inputs), supports_thinking=bool(applied.supports_thinking))
    return _chat_params(handler, checks, applied.prompt, out)


PURE_CONTENT = "pure-content"


def _pure_content(templates: ChatTemplates, request: Request, caps: Caps, now: datetime,
                  checks: tuple[RuleCheck, ...]) -> ChatParams:
    """llama-server's ``--skip-chat-parsing`` (``force_pure_content``): the template rendered
    directly, and a parser that reads the generation prompt then takes everything as content;
    no grammar, stops, preserved tokens or thinking tags."""
    applied = apply_request(templates, replace(request, reasoning_format="none"), caps=caps, now=now)
    gen = applied.generation_prompt
    # chat.cpp: p.literal(gen) << p.content(p.rest())
    arena = build_arena(lambda p: p.shl(lambda: p.literal(gen), lambda: p.tag("content", p.rest())))
    return ChatParams(
        handler=PURE_CONTENT, why="force_pure_content (--skip-chat-parsing): no handler and no autoparser",
        format="peg-native", prompt=applied.prompt, generation_prompt=gen, grammar="", grammar_lazy=False,
        grammar_triggers=(), preserved_tokens=(), arena=arena, additional_stops=(),
        supports_thinking=False, thinking_start_tag="", thinking_end_tags=(), checks=checks)


def _chat_params(handler: str, checks: tuple[RuleCheck, ...], prompt: str, out: GeneratedParams) -> ChatParams:
    return ChatParams(
        handler=handler,
        why=_why(checks, handler),
        format=out.format,
        prompt=prompt,
        generation_prompt=out.generation_prompt,
        grammar=out.grammar,
        grammar_lazy=out.grammar_lazy,
        grammar_triggers=out.grammar_triggers,
        preserved_tokens=out.preserved_tokens,
        arena=out.arena,
        additional_stops=out.additional_stops,
        supports_thinking=bool(out.supports_thinking),
        thinking_start_tag=out.thinking_start_tag,
        thinking_end_tags=out.thinking_end_tags,
        message_delimiters=out.message_delimiters,
        checks=checks,
    )


def apply_autoparser(
    template: str | CompiledTemplate | ChatTemplates,
    request: Request,
    *,
    caps: Caps | None = None,
    analysis: TemplateAnalysis | None = None,
    now: datetime = FIXED_CLOCK,
) -> ChatParams:
    """The autoparser route for this request even when routing picks a specialised handler:
    what llama.cpp would build had no handler's substrings matched (for comparisons)."""
    templates, compiled, caps, handler, checks = _route(template, request, caps)
    params = _autoparser(templates, compiled, request, caps, analysis, now, checks)
    if handler == AUTOPARSER:
        return params
    return replace(params, why=f"forced: routing picks {handler}, this is what the autoparser would build")


def _parser_generation_prompt(templates: ChatTemplates, request: Request, generation_prompt: str, caps: Caps,
                              now: datetime) -> str:
    """The autoparser builds its parser on the generation prompt of the messages before
    the one being continued, not on the continued prompt (``parser_generation_prompt``)."""
    if request.continue_final_message == "none" or not request.messages:
        return generation_prompt
    plain = replace(request, messages=request.messages[:-1], continue_final_message="none",
                    add_generation_prompt=True)
    return apply_request(templates, plain, caps=caps, now=now).generation_prompt


def _autoparser(
    templates: ChatTemplates, compiled: CompiledTemplate, request: Request, caps: Caps,
    analysis: TemplateAnalysis | None, now: datetime, checks: tuple[RuleCheck, ...],
) -> ChatParams:
    if analysis is None:
        analysis = template_analysis(compiled, caps)
    applied = apply_request(templates, request, caps=caps, reasoning=analysis.reasoning, now=now)
    gen = generate_params(analysis, GenerationParams(
        tools=list(applied.tools) if applied.tools else None,
        tool_choice=request.tool_choice,
        parallel_tool_calls=request.parallel_tool_calls,
        reasoning_format=request.reasoning_format,
        json_schema=request.json_schema,
        generation_prompt=_parser_generation_prompt(templates, request, applied.generation_prompt, caps, now),
        enable_thinking=request.enable_thinking,
    ))
    # the parser was built on the plain generation prompt; the params carry the continued one
    gen = replace(gen, generation_prompt=applied.generation_prompt)
    return _chat_params(AUTOPARSER, checks, applied.prompt, gen)
