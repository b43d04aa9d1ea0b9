"""The whole of llama.cpp's ``common_chat_templates_apply``: template + request -> chat params.

Input: a chat template (text, ``CompiledTemplate`` or ``ChatTemplates`` pair) and an
``explorer.apply.Request``. Output: ``ChatParams`` (frozen): format name, prompt,
generation prompt, GBNF grammar and laziness, grammar triggers, preserved tokens, the
serialized PEG parser, additional stops, thinking support and tags, message delimiters,
and which handler built them and why.

The route comes from ``explorer.routing`` (decided once per template: ``ChatTemplates.route_of``);
the prompt and generation prompt from ``explorer.apply`` (or from the caller's ``prompts``, a
``Prompter`` that remembers them: a session's); then either a specialised handler
(``explorer.handlers.registry``) or the autoparser (``explorer.analysis`` +
``explorer.generator``) builds the parser.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields, replace
from datetime import datetime

from explorer.analysis import TemplateAnalysis, template_analysis, template_caps
from explorer.analysis.model import Reasoning
from explorer.apply import Request, apply_request
from explorer.apply.messages import tools_to_template_json
from explorer.apply.prompt import AppliedPrompt, Prompter
from explorer.apply.templates import ChatTemplates, as_templates
from explorer.caps import Caps
from explorer.generator.params import ORACLE_JSON, GeneratedParams, generate_params
from explorer.generator.spec import GenerationParams
from explorer.handlers.registry import handler_named
from explorer.jsontypes import JsonObject
from explorer.output.parse import ChatMessage, OutputParse, parse_output
from explorer.peg.builder import build_arena
from explorer.render import FIXED_CLOCK, CompiledTemplate
from explorer.routing import AUTOPARSER, RuleCheck


@dataclass(frozen=True, kw_only=True)
class ChatParams(GeneratedParams):
    """What ``common_chat_templates_apply`` returns, in the oracle's field names: the params
    the route's builder generated (``GeneratedParams``: the autoparser's or a handler's; the
    ``arena`` is the PEG parser llama-server parses with), with the route that built them,
    the prompt, and the thinking support the apply stage decided."""

    handler: str  # as the oracle's routed.handler
    why: str  # the substrings that decided the route
    prompt: str
    supports_thinking: bool = False
    checks: tuple[RuleCheck, ...] = field(default=(), compare=False, repr=False)

    def parse(self, text: str, *, is_partial: bool = False) -> ChatMessage:
        """``common_chat_parse`` of model output with these params (raises
        ``OutputParseError`` as llama.cpp throws)."""
        return parse_output(self.arena, text, generation_prompt=self.generation_prompt,
                            is_partial=is_partial, format=self.format)

    def to_oracle_json(self, fields: Iterable[str] | None = None) -> JsonObject:
        """The oracle's ``apply.*`` keys (timings, ids and exceptions aside; the prompt after
        the generation prompt); ``fields``: only those keys (the others are not serialised)."""
        return {name: self.prompt if name == "prompt" else ORACLE_JSON[name](self)
                for name in (fields if fields is not None else _APPLY_KEYS)}


_APPLY_KEYS = ("format", "generation_prompt", "prompt", *tuple(k for k in ORACLE_JSON if k not in (
    "format", "generation_prompt")))


@dataclass(frozen=True)
class Held:
    """What a caller remembers for one template (a session's memo), handed to the stages
    after the apply so they take it instead of applying, building or parsing again:
    ``params`` (``apply_template`` of a request), ``prompts`` (``apply_request``), ``parse``
    (the request's parser on an output, never raising for a mismatch)."""

    params: Callable[[Request], ChatParams]
    prompts: Prompter
    parse: Callable[[Request, str], OutputParse]


def _why(checks: tuple[RuleCheck, ...], handler: str) -> str:
    if handler == AUTOPARSER:
        return "no specialised handler's substrings matched: the differential autoparser"
    winner = checks[-1]
    return f"{handler}: " + "; ".join(e.describe() for e in winner.evidence)


@dataclass(frozen=True)
class _Routed:
    """The template llama.cpp picks for the request's tools, its caps, its route, and how
    its prompts are rendered."""

    compiled: CompiledTemplate
    caps: Caps
    handler: str
    checks: tuple[RuleCheck, ...]
    prompts: Prompter

    def prompt(self, request: Request, reasoning: Reasoning | None = None) -> AppliedPrompt:
        return self.prompts(request, reasoning)


def _route(template: str | CompiledTemplate | ChatTemplates, request: Request, caps: Caps | None,
           prompts: Prompter | None, now: datetime) -> _Routed:
    templates = as_templates(template)
    tools = tools_to_template_json(list(request.tools) if request.tools is not None else None)
    compiled = templates.select(tools)
    handler, checks = templates.route_of(compiled)
    known: Caps = caps if caps is not None else template_caps(compiled)

    def fresh(req: Request, reasoning: Reasoning | None) -> AppliedPrompt:
        return apply_request(templates, req, caps=known, reasoning=reasoning, now=now)
    return _Routed(compiled, known, handler, checks, prompts if prompts is not None else fresh)


def apply_template(
    template: str | CompiledTemplate | ChatTemplates,
    request: Request,
    *,
    caps: Caps | None = None,
    analysis: TemplateAnalysis | None = None,
    now: datetime = FIXED_CLOCK,
    prompts: Prompter | None = None,
) -> ChatParams:
    """Route, render and build the parser exactly as llama.cpp does for this request.

    ``caps``: the template's nine capability flags (detected when omitted).
    ``analysis``: the autoparser analysis (read an oracle ``autoparser`` dict with
    ``TemplateAnalysis.from_oracle_json`` first), computed when the route needs it and
    it is omitted.
    ``prompts``: ``apply_request`` for this template as the caller remembers it (a
    session's); ``now`` is then the caller's.
    """
    routed = _route(template, request, caps, prompts, now)
    if request.force_pure_content:
        return _pure_content(routed, request)
    if routed.handler == AUTOPARSER:
        return _autoparser(routed, request, analysis)
    handler, checks = routed.handler, routed.checks
    applied = routed.prompt(request)
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


def _pure_content(routed: _Routed, request: Request) -> ChatParams:
    """llama-server's ``--skip-chat-parsing`` (``force_pure_content``): the template rendered
    directly, and a parser that reads the generation prompt then takes everything as content;
    no grammar, stops, preserved tokens or thinking tags."""
    checks = routed.checks
    applied = routed.prompt(replace(request, reasoning_format="none"))
    gen = applied.generation_prompt
    # chat.cpp: p.literal(gen) << p.content(p.rest())
    arena = build_arena(lambda p: p.shl(lambda: p.literal(gen), lambda: p.tag("content", p.rest())))
    return ChatParams(
        handler=PURE_CONTENT, why="force_pure_content (--skip-chat-parsing): no handler and no autoparser",
        format="peg-native", prompt=applied.prompt, generation_prompt=gen, grammar="", grammar_lazy=False,
        grammar_triggers=(), preserved_tokens=(), arena=arena, additional_stops=(),
        supports_thinking=False, thinking_start_tag="", thinking_end_tags=(), checks=checks)


def _chat_params(handler: str, checks: tuple[RuleCheck, ...], prompt: str, out: GeneratedParams) -> ChatParams:
    """The generated params as the apply stage returns them (a handler's thinking support,
    None in ``out``, is false here)."""
    generated = {f.name: getattr(out, f.name) for f in fields(GeneratedParams) if f.name != "supports_thinking"}
    return ChatParams(**generated, supports_thinking=bool(out.supports_thinking), handler=handler,
                      why=_why(checks, handler), prompt=prompt, checks=checks)


def apply_autoparser(
    template: str | CompiledTemplate | ChatTemplates,
    request: Request,
    *,
    caps: Caps | None = None,
    analysis: TemplateAnalysis | None = None,
    now: datetime = FIXED_CLOCK,
    prompts: Prompter | None = None,
) -> ChatParams:
    """The autoparser route for this request even when routing picks a specialised handler:
    what llama.cpp would build had no handler's substrings matched (for comparisons)."""
    routed = _route(template, request, caps, prompts, now)
    params = _autoparser(routed, request, analysis)
    if routed.handler == AUTOPARSER:
        return params
    return replace(params, why=f"forced: routing picks {routed.handler}, this is what the autoparser would build")


def _parser_generation_prompt(routed: _Routed, request: Request, generation_prompt: str) -> str:
    """The autoparser builds its parser on the generation prompt of the messages before
    the one being continued, not on the continued prompt (``parser_generation_prompt``)."""
    if request.continue_final_message == "none" or not request.messages:
        return generation_prompt
    plain = replace(request, messages=request.messages[:-1], continue_final_message="none",
                    add_generation_prompt=True)
    return routed.prompt(plain).generation_prompt


def _autoparser(routed: _Routed, request: Request, analysis: TemplateAnalysis | None) -> ChatParams:
    checks = routed.checks
    if analysis is None:
        analysis = template_analysis(routed.compiled, routed.caps)
    applied = routed.prompt(request, analysis.reasoning)
    gen = generate_params(analysis, GenerationParams(
        tools=applied.tools or None,
        tool_choice=request.tool_choice,
        parallel_tool_calls=request.parallel_tool_calls,
        reasoning_format=request.reasoning_format,
        json_schema=request.json_schema,
        generation_prompt=_parser_generation_prompt(routed, request, applied.generation_prompt),
        enable_thinking=request.enable_thinking,
    ))
    # the parser was built on the plain generation prompt; the params carry the continued one
    gen = replace(gen, generation_prompt=applied.generation_prompt)
    return _chat_params(AUTOPARSER, checks, applied.prompt, gen)
