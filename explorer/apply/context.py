"""The template context of ``common_chat_template_direct_apply_impl`` and one render.

Input: a ``Request``, the clock, a handler's additional context, the messages and tools
to render. Output: the context variables (for display) and the rendered text, with
llama.cpp's BOS/EOS trimming; ``diff_suffix`` is its byte-wise generation-prompt diff.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from explorer.apply.request import Request
from explorer.jsontypes import Json, JsonObject
from explorer.render import CompiledTemplate, RenderInputs, render


def extra_context(request: Request, now: datetime) -> JsonObject:
    """``common_chat_extra_context`` plus the request's chat_template_kwargs."""
    ctx: JsonObject = {
        "datetime": now.strftime("%b %d %Y"),
        "date_string": now.strftime("%d %b %Y"),
    }
    # llama.cpp keeps the kwargs in a std::map: they arrive sorted by key
    for key in sorted(request.chat_template_kwargs):
        ctx[key] = request.chat_template_kwargs[key]
    return ctx


def capability_aliases(inp: JsonObject) -> JsonObject:
    """``caps_apply_preserve_reasoning`` / ``caps_apply_reasoning_effort``: the spellings
    templates use for the same switch. Set before the inputs, so explicit keys win."""
    aliases: JsonObject = {}
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
    request: Request, now: datetime, additional: Mapping[str, Json] | None, add_generation_prompt: bool
) -> JsonObject:
    """``inp`` minus messages and tools: the flags, then extra context (dates,
    chat_template_kwargs), then the handler's additional context; add_generation_prompt
    only when true (llama.cpp leaves it undefined otherwise)."""
    inp: JsonObject = {
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
    request: Request, now: datetime, additional: Mapping[str, Json] | None, add_generation_prompt: bool
) -> JsonObject:
    """Every variable besides messages/tools the template sees, aliases included."""
    inp = template_inputs(request, now, additional, add_generation_prompt)
    return {**capability_aliases(inp), **inp}


def render_request(
    tmpl: CompiledTemplate,
    messages: list[JsonObject],
    tools: list[JsonObject] | None,
    request: Request,
    now: datetime,
    additional: Mapping[str, Json] | None,
    add_generation_prompt: bool,
) -> str:
    """One ``common_chat_template_direct_apply_impl`` call.

    explorer.render's llama.cpp dialect builds the rest of the context as llama.cpp
    does (add_generation_prompt undefined when false, the reasoning aliases)."""
    ctx = template_inputs(request, now, additional, add_generation_prompt)
    # chat_template_kwargs may set these to any JSON value: the template gets it as sent
    thinking: Any = ctx.pop("enable_thinking")
    bos: Any = ctx.pop("bos_token")
    eos: Any = ctx.pop("eos_token")
    text = render(
        tmpl,
        RenderInputs(
            messages=messages,
            tools=tools,
            add_generation_prompt=bool(ctx.pop("add_generation_prompt", False)),
            enable_thinking=thinking,
            bos_token=bos,
            eos_token=eos,
            extra_context=ctx or None,
        ),
        clock=lambda: now,
    )
    # the tokenizer adds BOS/EOS itself for such models, so a rendered one is dropped
    if request.add_bos and text.startswith(request.bos_token):
        text = text[len(request.bos_token) :]
    if request.add_eos and request.eos_token and text.endswith(request.eos_token):
        text = text[: len(text) - len(request.eos_token)]
    return text


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
