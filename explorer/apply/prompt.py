"""The prompt llama.cpp renders for a request (``common_chat_templates_apply_jinja``).

Input: a template (text or compiled: the model's default template, patched and given
llama.cpp's fallbacks here; or a ``ChatTemplates`` pair with a tool_use variant) and a
``Request``. Output: ``AppliedPrompt``: the routed handler, the messages after every
workaround, the template context, the full ``prompt``, the ``generation_prompt`` (the
suffix ``add_generation_prompt`` adds, found by rendering twice and diffing byte by
byte, then rewritten by handlers that build it themselves), and whether the route
reports ``supports_thinking``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime

from explorer.analysis import template_analysis, template_caps
from explorer.analysis.model import Reasoning
from explorer.apply import workarounds as wk
from explorer.apply.context import diff_suffix, render_request, template_context
from explorer.apply.continuation import (
    ContinuationInputs,
    continuation_generation_prompt,
    resolve_mode,
)
from explorer.apply.messages import (
    ChatMsg,
    messages_to_template_json,
    normalize_content,
    parse_oaicompat,
    tools_to_template_json,
)
from explorer.apply.request import Request
from explorer.apply.templates import ChatTemplates, as_templates, default_source
from explorer.caps import Caps
from explorer.errors import TemplateError
from explorer.handlers.base import Route
from explorer.handlers.prompting import RenderedPair
from explorer.handlers.registry import handler_named, route_named
from explorer.jsontypes import JsonObject
from explorer.render import FIXED_CLOCK, CompiledTemplate
from explorer.routing import AUTOPARSER, GPT_OSS_MARKER, STEPFUN_MARKER, route_source

AUTOPARSER_FAILURE = (
    "Unable to generate parser for this template. Automatic parser generation failed: "
)


@dataclass(frozen=True)
class AppliedStep:
    """One transformation llama.cpp made on the way to the prompt."""

    name: str
    detail: str


@dataclass(frozen=True)
class AppliedPrompt:
    handler: str
    messages: tuple[JsonObject, ...]  # after the generic workarounds (what the handler gets)
    rendered_messages: tuple[JsonObject, ...]  # what the template actually received
    tools: tuple[JsonObject, ...] | None
    context: JsonObject  # every other template variable
    prompt: str
    prompt_without_generation: str | None  # the add_generation_prompt=false render
    generation_prompt: str
    supports_thinking: bool | None  # None: autoparser route without a reasoning mode
    continuation: str  # "none", "reasoning" or "content" (resolved; "none" when the message continued is empty)
    steps: tuple[AppliedStep, ...]
    source: str  # the template source that was rendered (after patches)
    # the generation prompt before a continuation rewrote it: what llama.cpp's
    # autoparser builds its parser prefix from (equal to generation_prompt otherwise)
    parser_generation_prompt: str = ""


# ``apply_request`` for one template (the request, and the autoparser's reasoning analysis
# or None): what a caller that remembers its prompts (a session) hands the later stages
Prompter = Callable[[Request, Reasoning | None], AppliedPrompt]


def detect_caps_for(tmpl: CompiledTemplate) -> Caps:
    return template_caps(tmpl)


def analysis_reasoning(compiled: CompiledTemplate) -> Reasoning:
    """The autoparser's reasoning analysis of the template (explorer.analysis)."""
    return template_analysis(compiled).reasoning


# --- the messages -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Messages:
    json: list[JsonObject]
    continue_msg: ChatMsg | None
    continuation: str


def _split_continuation(request: Request, parsed: tuple[ChatMsg, ...], json_msgs: list[JsonObject]) -> _Messages:
    mode = request.continue_final_message
    if mode == "none" or not parsed:
        return _Messages(json_msgs, None, mode)
    # the last message is rendered by the handler itself, from the request as sent
    return _Messages(json_msgs[:-1], parsed[-1], resolve_mode(mode, parsed[-1]))


def _generic_messages(
    request: Request, source: str, caps: Caps, steps: list[AppliedStep]
) -> _Messages:
    parsed = parse_oaicompat(list(request.messages))
    to_render = parsed
    if STEPFUN_MARKER in source:
        to_render = wk.trim_all_content(parsed)
        steps.append(AppliedStep("trim_all_content", "StepFun template"))
    split = _split_continuation(request, parsed, messages_to_template_json(to_render, caps))
    messages = split.json
    generic = (
        (GPT_OSS_MARKER not in source, wk.map_developer_role_to_system),
        (not caps.supports_system_role, wk.system_message_not_supported),
        (caps.supports_tool_calls, wk.requires_non_null_content),
        (caps.supports_object_arguments, wk.func_args_not_string),
    )
    for runs, fn in generic:
        if runs:
            name = fn.__name__
            after = fn(messages)
            steps.append(AppliedStep(name, "changed messages" if after != messages else "no change"))
            messages = after
    return replace(split, json=messages)


# --- the apply path ----------------------------------------------------------------------------------


def apply_request(
    tmpl: str | CompiledTemplate | ChatTemplates,
    request: Request,
    *,
    caps: Caps | None = None,
    reasoning: Reasoning | None = None,
    now: datetime = FIXED_CLOCK,
) -> AppliedPrompt:
    """Reproduce ``common_chat_templates_apply`` up to (not including) the parser.

    ``caps``: the rendered template's capabilities; detected when omitted.
    ``reasoning``: the autoparser's reasoning analysis, which decides ``supports_thinking`` on the
    autoparser route (unknown without it) and the markers a continuation re-opens.
    The route is the pair's (``ChatTemplates.route_of``: decided once per template).
    """
    templates = as_templates(tmpl)
    tools = tools_to_template_json(list(request.tools) if request.tools is not None else None)
    compiled = templates.select(tools)
    source = compiled.source
    caps = caps if caps is not None else detect_caps_for(compiled)
    steps: list[AppliedStep] = []
    if templates.default_note and compiled is templates.default:
        steps.append(AppliedStep("template_init", templates.default_note))
    msgs = _generic_messages(request, source, caps, steps)
    handler, _checks = templates.route_of(compiled)
    if request.force_pure_content:
        # chat.cpp renders the template directly, before any handler or continuation step
        handler = AUTOPARSER
        steps.append(AppliedStep("force_pure_content", "--skip-chat-parsing: the template rendered as is"))
    spec = route_named(handler)
    messages = msgs.json
    for workaround in spec.message_workarounds:
        messages = workaround.rewrite(messages)
        steps.append(AppliedStep(workaround.name, workaround.step))
    add_gen = request.add_generation_prompt and msgs.continuation == "none"
    try:
        pair, rendered, without = _render_for_handler(
            compiled, spec, messages, tools, request, caps, now, add_gen, steps
        )
    except TemplateError as exc:
        if handler != AUTOPARSER or request.force_pure_content:
            raise
        # llama.cpp quirk: on the autoparser route the prompt is rendered inside
        # parser generation, so a template error surfaces as a generation failure
        raise type(exc)(AUTOPARSER_FAILURE + exc.message, exc.location) from exc
    info = reasoning
    parser_gen = pair.generation_prompt
    if request.force_pure_content:
        # llama.cpp quirk: the continued message was taken out of the messages and is not
        # appended back on this path, so the prompt ends before it
        info = None
    elif msgs.continue_msg is not None and not _is_empty(msgs.continue_msg):
        needs_markers = info is None or (info.mode != "NONE" and not (info.start or info.end))
        if handler == AUTOPARSER and needs_markers:
            info = analysis_reasoning(compiled)
        pair = _continue(handler, pair, msgs, source, info, steps)
    supports = False if request.force_pure_content else spec.thinking_supported(source)
    if handler == AUTOPARSER and info is not None:
        supports = info.mode != "NONE"
    return AppliedPrompt(
        handler=handler,
        messages=tuple(messages),
        rendered_messages=tuple(rendered),
        tools=tuple(tools) if tools else None,
        context=template_context(request, now, _additional(spec, source, request), add_gen),
        prompt=pair.prompt,
        prompt_without_generation=without,
        generation_prompt=pair.generation_prompt,
        supports_thinking=supports,
        # generation_params::has_continuation: a mode and a message that is not empty
        continuation=msgs.continuation if msgs.continue_msg is not None and not _is_empty(msgs.continue_msg)
        else "none",
        steps=tuple(steps),
        source=source,
        parser_generation_prompt=parser_gen,
    )


def _is_empty(msg: ChatMsg) -> bool:
    return not (
        msg.content or msg.content_parts or msg.tool_calls or msg.reasoning_content
        or msg.tool_name or msg.tool_call_id
    )


def _continue(
    handler: str, pair: RenderedPair, msgs: _Messages, source: str,
    info: Reasoning | None, steps: list[AppliedStep],
) -> RenderedPair:
    assert msgs.continue_msg is not None
    gen = continuation_generation_prompt(
        handler,
        ContinuationInputs(
            generation_prompt=pair.generation_prompt,
            prompt=pair.prompt,
            msg=msgs.continue_msg,
            mode=msgs.continuation,
            source=source,
            reasoning_start=info.start if info else "",
            reasoning_end=info.end if info else "",
        ),
    )
    steps.append(AppliedStep("continue_final_message", f"{msgs.continuation}: prompt += {gen!r}"))
    return RenderedPair(pair.prompt + gen, gen)


def _additional(spec: type[Route], source: str, request: Request) -> JsonObject | None:
    return spec.additional_context(source, request.json_schema) if spec.additional_context else None


def _render_for_handler(
    compiled: CompiledTemplate,
    spec: type[Route],
    messages: list[JsonObject],
    tools: list[JsonObject] | None,
    request: Request,
    caps: Caps,
    now: datetime,
    add_gen: bool,
    steps: list[AppliedStep],
) -> tuple[RenderedPair, list[JsonObject], str | None]:
    source = compiled.source
    override = None
    if spec.messages_override is not None:
        override = spec.messages_override(messages, source, request.json_schema)
    if override is not None:
        steps.append(AppliedStep(f"{spec.name}: messages_override", "handler rewrites the messages"))
        rendered = override
    else:
        # without an override the renderer normalises the content once more
        rendered = normalize_content(messages, caps)
    additional = _additional(spec, source, request)

    def run(flag: bool) -> str:
        return render_request(compiled, rendered, tools, request, now, additional, flag)

    prompt = run(add_gen)
    without: str | None = None
    if spec.fixed_generation_prompt is not None:
        gen = spec.fixed_generation_prompt
    else:
        without = prompt if not add_gen else run(False)
        gen = diff_suffix(without, prompt if add_gen else run(True))
    pair = RenderedPair(prompt, gen)
    if spec.finish is not None:
        pair = spec.finish(pair, add_gen)
        if pair.note:
            steps.append(AppliedStep(f"{spec.name}: finish", pair.note))
    return pair, rendered, without


def generation_prompt(
    tmpl: str | CompiledTemplate | ChatTemplates, request: Request, *, caps: Caps | None = None,
    now: datetime = FIXED_CLOCK,
) -> str:
    """Just the generation prompt of ``apply_request``."""
    return apply_request(tmpl, request, caps=caps, now=now).generation_prompt


def support_check_request() -> Request:
    """The request of ``common_chat_templates_support_enable_thinking``."""
    return Request(
        messages=({"role": "user", "content": "test"},),
        enable_thinking=True,
        add_generation_prompt=True,
        reasoning_format="deepseek",
    )


def supports_enable_thinking(
    tmpl: str | CompiledTemplate | ChatTemplates, *, reasoning_mode: str | None = None
) -> bool:
    """``common_chat_templates_support_enable_thinking``: the route's supports_thinking
    for a tool-less request (so always the default template).

    Specialised handlers decide from constants or the source; the autoparser route
    needs the analysis' reasoning mode (run here when not given).
    """
    if isinstance(tmpl, ChatTemplates):
        source = tmpl.default.source
        handler, _ = tmpl.route_of(tmpl.default)
    else:
        source, _ = default_source(tmpl if isinstance(tmpl, str) else tmpl.source)
        handler, _ = route_source(source)
    if handler != AUTOPARSER:
        return handler_named(handler).thinking_supported(source)
    if reasoning_mode is None:
        reasoning_mode = analysis_reasoning(as_templates(tmpl).default).mode
    return reasoning_mode != "NONE"
