"""Rendering: the one place chat templates are rendered.

Input: template text (compiled once into a ``CompiledTemplate``) and ``RenderInputs``
(messages, tools, flags, extra context). Output: the rendered string, or a
``TemplateError`` subclass that quotes the template line.

PROVISIONAL minimal version: the full llama.cpp-compatible environment, limits and
dialect switch are being built (issue 2). The public API below is the contract.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Literal

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment

from explorer.errors import TemplateRaisedError, TemplateRuntimeError, TemplateSyntaxError

Dialect = Literal["llama.cpp", "transformers"]

FIXED_CLOCK = datetime(2026, 11, 29, 12, 0, 0)


@dataclass(frozen=True)
class RenderLimits:
    wall_seconds: float = 2.0
    max_output_chars: int = 2_000_000
    max_call_depth: int = 200


@dataclass(frozen=True)
class RenderInputs:
    """The context llama.cpp passes to a template."""

    messages: tuple[Any, ...] | list[Any] = ()
    tools: tuple[Any, ...] | list[Any] | None = None
    add_generation_prompt: bool = False
    enable_thinking: bool = True
    bos_token: str = ""
    eos_token: str = ""
    extra_context: dict[str, Any] | None = None


@dataclass(frozen=True, eq=False)
class CompiledTemplate:
    source: str
    sha256: str
    dialect: Dialect
    template: jinja2.Template = field(repr=False)


class _RaisedByTemplate(Exception):
    pass


def _raise_exception(message: str) -> None:
    raise _RaisedByTemplate(message)


def _environment() -> ImmutableSandboxedEnvironment:
    env = ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"]
    )
    env.policies["json.dumps_kwargs"] = {"ensure_ascii": False, "sort_keys": False}
    env.filters["tojson"] = lambda v, indent=None, **kw: json.dumps(
        v, ensure_ascii=False, indent=indent
    )
    env.globals["raise_exception"] = _raise_exception
    return env


def compile_template(text: str, dialect: Dialect = "llama.cpp") -> CompiledTemplate:
    try:
        tmpl = _environment().from_string(text)
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateSyntaxError(f"template syntax error: {exc.message}") from exc
    sha = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return CompiledTemplate(source=text, sha256=sha, dialect=dialect, template=tmpl)


def render(
    tmpl: CompiledTemplate,
    inputs: RenderInputs,
    *,
    limits: RenderLimits = RenderLimits(),
    clock: Callable[[], datetime] = lambda: FIXED_CLOCK,
) -> str:
    ctx: dict[str, Any] = {
        "messages": list(inputs.messages),
        "bos_token": inputs.bos_token,
        "eos_token": inputs.eos_token,
        "enable_thinking": inputs.enable_thinking,
        "add_generation_prompt": inputs.add_generation_prompt,
        "strftime_now": lambda fmt: clock().strftime(fmt),
    }
    if inputs.tools:
        ctx["tools"] = list(inputs.tools)
    if inputs.extra_context:
        ctx.update(inputs.extra_context)
    try:
        return tmpl.template.render(ctx)
    except _RaisedByTemplate as exc:
        raise TemplateRaisedError(str(exc)) from exc
    except jinja2.TemplateError as exc:
        raise TemplateRuntimeError(f"template error: {exc}") from exc
