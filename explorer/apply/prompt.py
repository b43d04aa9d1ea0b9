"""The prompt llama.cpp renders for a request (``common_chat_templates_apply_jinja``).

Input: a template (text, patched here as llama.cpp patches it at init, or an already
compiled one) and a ``Request``. Output: ``AppliedPrompt``: the routed handler, the
messages after every workaround, the template context, the full ``prompt``, the
``generation_prompt`` (the suffix that ``add_generation_prompt`` adds, found by
rendering twice and diffing byte by byte, exactly as llama.cpp does), and whether the
route reports ``supports_thinking``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from explorer.apply import workarounds as wk
from explorer.apply.handlers import HANDLER_APPLY, HandlerApply, RenderedPair
from explorer.apply.messages import (
    messages_to_template_json,
    normalize_content,
    parse_oaicompat,
    tools_to_template_json,
)
from explorer.apply.request import Request
from explorer.errors import RequestError
from explorer.render import FIXED_CLOCK, CompiledTemplate, RenderInputs, compile_template, render
from explorer.routing import AUTOPARSER, STEPFUN_MARKER, patch_source, route_source


@dataclass(frozen=True)
class AppliedStep:
    """One transformation llama.cpp made on the way to the prompt."""

    name: str
    detail: str


@dataclass(frozen=True)
class AppliedPrompt:
    handler: str
    messages: tuple[dict, ...]  # after the generic workarounds (what the handler gets)
    rendered_messages: tuple[dict, ...]  # what the template actually received
    tools: tuple[dict, ...] | None
    context: dict[str, Any]  # every other template variable
    prompt: str
    prompt_without_generation: str | None  # the add_generation_prompt=false render
    generation_prompt: str
    supports_thinking: bool | None  # None: autoparser route without a reasoning mode
    steps: tuple[AppliedStep, ...]
    source: str  # the patched template source that was rendered


# --- template and caps ---------------------------------------------------------------------


def patched_template(tmpl: str | CompiledTemplate) -> CompiledTemplate:
    """Compile the text llama.cpp compiles (after its init-time source patches)."""
    text = tmpl if isinstance(tmpl, str) else tmpl.source
    patched = patch_source(text)
    if isinstance(tmpl, CompiledTemplate) and patched == tmpl.source:
        return tmpl
    dialect = tmpl.dialect if isinstance(tmpl, CompiledTemplate) else "llama.cpp"
    return compile_template(patched, dialect=dialect)


def _detect_caps(tmpl: CompiledTemplate) -> Any:
    try:
        from explorer.caps import detect_caps
    except ImportError as exc:  # explorer.caps is built separately
        raise RequestError(
            "capabilities are needed to apply a request: pass caps= "
            "(explorer.caps.detect_caps is not available)"
        ) from exc
    return detect_caps(tmpl)


def _cap(caps: Any, name: str) -> bool:
    return bool(caps.get(name) if isinstance(caps, dict) else getattr(caps, name))


# --- context -----------------------------------------------------------------------------------


def extra_context(request: Request, now: datetime) -> dict[str, Any]:
    """``common_chat_extra_context`` plus the request's chat_template_kwargs."""
    ctx: dict[str, Any] = {
        "datetime": now.strftime("%b %d %Y"),
        "date_string": now.strftime("%d %b %Y"),
    }
    ctx.update(request.chat_template_kwargs)
    return ctx


def capability_aliases(inp: dict[str, Any]) -> dict[str, Any]:
    """``caps_apply_preserve_reasoning`` / ``caps_apply_reasoning_effort``: the spellings
    templates use for the same switch. Set before the inputs, so explicit keys win."""
    aliases: dict[str, Any] = {}
    preserve = inp.get("preserve_reasoning")
    if isinstance(preserve, bool):
        aliases.update(
            preserve_thinking=preserve,
            clear_thinking=not preserve,
            truncate_history_thinking=not preserve,
            drop_thinking=not preserve,
        )
    effort = inp.get("reasoning_effort")
    if isinstance(effort, str) and effort:
        aliases.update(reasoning_effort=effort, reasoning_strength=effort)
    return aliases


def template_inputs(
    request: Request, now: datetime, additional: dict | None, add_generation_prompt: bool
) -> dict[str, Any]:
    """``inp`` of ``common_chat_template_direct_apply_impl`` minus messages and tools:
    the flags, then extra context (dates, chat_template_kwargs), then the handler's
    additional context; add_generation_prompt only when true (else undefined)."""
    inp: dict[str, Any] = {
        "bos_token": request.bos_token,
        "eos_token": request.eos_token,
        "enable_thinking": request.enable_thinking,
    }
    inp.update(extra_context(request, now))
    if additional:
        inp.update(additional)
    if add_generation_prompt:
        inp["add_generation_prompt"] = True
    return inp


def template_context(
    request: Request, now: datetime, additional: dict | None, add_generation_prompt: bool
) -> dict[str, Any]:
    """Every variable besides messages/tools the template sees, aliases included."""
    inp = template_inputs(request, now, additional, add_generation_prompt)
    return {**capability_aliases(inp), **inp}


def _render(
    tmpl: CompiledTemplate,
    messages: list[dict],
    tools: list[dict] | None,
    request: Request,
    now: datetime,
    additional: dict | None,
    add_generation_prompt: bool,
) -> str:
    # explorer.render's llama.cpp dialect builds the rest as direct_apply_impl does:
    # add_generation_prompt left undefined when false, reasoning aliases added
    ctx = template_inputs(request, now, additional, add_generation_prompt)
    return render(
        tmpl,
        RenderInputs(
            messages=messages,
            tools=tools,
            add_generation_prompt=bool(ctx.pop("add_generation_prompt", False)),
            enable_thinking=ctx.pop("enable_thinking"),
            bos_token=ctx.pop("bos_token"),
            eos_token=ctx.pop("eos_token"),
            extra_context=ctx or None,
        ),
        clock=lambda: now,
    )


def diff_suffix(without: str, with_prompt: str) -> str:
    """The text after the longest common prefix, counted in UTF-8 bytes as in C++.

    llama.cpp quirk: a prefix ending inside a multi-byte character cuts it; the broken
    bytes are kept here as surrogate escapes so nothing is silently repaired."""
    a = without.encode("utf-8", "surrogateescape")
    b = with_prompt.encode("utf-8", "surrogateescape")
    n = 0
    limit = min(len(a), len(b))
    while n < limit and a[n] == b[n]:
        n += 1
    return b[n:].decode("utf-8", "surrogateescape")


# --- the apply path ----------------------------------------------------------------------------------


def _generic_messages(
    request: Request, source: str, caps: Any, steps: list[AppliedStep]
) -> list[dict]:
    msgs = parse_oaicompat(list(request.messages))
    if STEPFUN_MARKER in source:
        msgs = wk.trim_all_content(msgs)
        steps.append(AppliedStep("trim_all_content", "StepFun template"))
    messages = messages_to_template_json(msgs, caps)
    generic = (
        ("map_developer_role_to_system", "<|channel|>" not in source, wk.map_developer_role_to_system),
        ("system_message_not_supported", not _cap(caps, "supports_system_role"), wk.system_message_not_supported),
        ("requires_non_null_content", _cap(caps, "supports_tool_calls"), wk.requires_non_null_content),
        ("func_args_not_string", _cap(caps, "supports_object_arguments"), wk.func_args_not_string),
    )
    for name, runs, fn in generic:
        if runs:
            after = fn(messages)
            steps.append(AppliedStep(name, "changed messages" if after != messages else "no change"))
            messages = after
    return messages


def apply_request(
    tmpl: str | CompiledTemplate,
    request: Request,
    *,
    caps: Any = None,
    reasoning_mode: str | None = None,
    now: datetime = FIXED_CLOCK,
) -> AppliedPrompt:
    """Reproduce ``common_chat_templates_apply`` up to (not including) the parser.

    ``caps``: the template's capabilities (a ``Caps`` or a dict of the nine flags);
    detected when omitted. ``reasoning_mode``: the autoparser's reasoning mode, which
    decides ``supports_thinking`` on the autoparser route (None leaves it unknown).
    """
    compiled = patched_template(tmpl)
    source = compiled.source
    caps = caps if caps is not None else _detect_caps(compiled)
    steps: list[AppliedStep] = []
    if source != (tmpl if isinstance(tmpl, str) else tmpl.source):
        steps.append(AppliedStep("source_patch", "llama.cpp's init-time template patch"))
    tools = tools_to_template_json(list(request.tools) if request.tools is not None else None)
    messages = _generic_messages(request, source, caps, steps)
    handler, _checks = route_source(source)
    spec = HANDLER_APPLY[handler]
    if handler == "gemma4(outdated-template-workarounds)":
        messages = wk.convert_tool_responses_gemma4(messages)
        steps.append(AppliedStep("convert_tool_responses_gemma4", "outdated Gemma 4 template"))
    pair, rendered, without = _render_for_handler(
        compiled, spec, messages, tools, request, caps, now, steps
    )
    supports = spec.thinking_supported(source)
    if handler == AUTOPARSER and reasoning_mode is not None:
        supports = reasoning_mode != "NONE"
    return AppliedPrompt(
        handler=handler,
        messages=tuple(messages),
        rendered_messages=tuple(rendered),
        tools=tuple(tools) if tools else None,
        context=template_context(request, now, _additional(spec, source, request), request.add_generation_prompt),
        prompt=pair.prompt,
        prompt_without_generation=without,
        generation_prompt=pair.generation_prompt,
        supports_thinking=supports,
        steps=tuple(steps),
        source=source,
    )


def _additional(spec: HandlerApply, source: str, request: Request) -> dict | None:
    return spec.additional_context(source, request.json_schema) if spec.additional_context else None


def _render_for_handler(
    compiled: CompiledTemplate,
    spec: HandlerApply,
    messages: list[dict],
    tools: list[dict] | None,
    request: Request,
    caps: Any,
    now: datetime,
    steps: list[AppliedStep],
) -> tuple[RenderedPair, list[dict], str | None]:
    source = compiled.source
    override = spec.messages_override(messages, source, request.json_schema) if spec.messages_override else None
    if override is not None:
        steps.append(AppliedStep(f"{spec.name}: messages_override", "handler rewrites the messages"))
        rendered = override
    else:
        # without an override the renderer normalises the content once more
        rendered = normalize_content(messages, caps)
    additional = _additional(spec, source, request)

    def run(add_gen: bool) -> str:
        return _render(compiled, rendered, tools, request, now, additional, add_gen)

    prompt = run(request.add_generation_prompt)
    without: str | None = None
    if spec.fixed_generation_prompt is not None:
        gen = spec.fixed_generation_prompt
    else:
        without = prompt if not request.add_generation_prompt else run(False)
        with_gen = prompt if request.add_generation_prompt else run(True)
        gen = diff_suffix(without, with_gen)
    pair = RenderedPair(prompt, gen)
    if spec.finish is not None:
        pair = spec.finish(pair, request.add_generation_prompt)
        if pair.note:
            steps.append(AppliedStep(f"{spec.name}: finish", pair.note))
    return pair, rendered, without


def generation_prompt(
    tmpl: str | CompiledTemplate, request: Request, *, caps: Any = None, now: datetime = FIXED_CLOCK
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
    tmpl: str | CompiledTemplate, *, reasoning_mode: str | None = None
) -> bool | None:
    """``common_chat_templates_support_enable_thinking``: the route's supports_thinking.

    Specialised handlers decide from constants or the source; the autoparser route
    needs the analysis' reasoning mode (run here when not given, if available).
    """
    source = patch_source(tmpl if isinstance(tmpl, str) else tmpl.source)
    handler, _ = route_source(source)
    if handler != AUTOPARSER:
        return HANDLER_APPLY[handler].thinking_supported(source)
    if reasoning_mode is None:
        reasoning_mode = _analysis_reasoning_mode(patched_template(tmpl))
    return None if reasoning_mode is None else reasoning_mode != "NONE"


def _analysis_reasoning_mode(compiled: CompiledTemplate) -> str | None:
    try:
        from explorer.analysis import analyze_template
    except ImportError:
        return None
    return analyze_template(compiled).to_oracle_json()["reasoning"]["mode"]
