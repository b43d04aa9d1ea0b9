"""Rendering chat templates, in llama.cpp's Jinja dialect or transformers' jinja2.

Input: template text and the render inputs (messages, tools, flags, kwargs). Output: a
``CompiledTemplate`` (compiled once, cached by text and dialect) and rendered strings, or
a located ``TemplateError``. Modules: ``template`` (compile, context, render, budgets),
``jinja_compat`` (the llama.cpp dialect as a jinja2 environment), ``jinja_compat_builtins``
and ``jinja_compat_llama`` (llama.cpp's per-type built-ins, tests and JSON writer),
``jinja_compat_state`` (the per-render state the dialect tracks), ``transformers_context``
and ``transformers_env`` (the context and globals of the transformers release the
transformers dialect follows), ``provenance`` and
``provenance_codegen`` (renders whose spans name the template line that wrote each
character; a separate build, compiled only when asked for).
"""

from explorer.render.provenance import (
    OutputSpan,
    RenderedText,
    render_context_with_provenance,
    render_with_provenance,
)
from explorer.render.provenance_codegen import Piece
from explorer.render.template import (
    FIXED_CLOCK,
    CompiledTemplate,
    Dialect,
    RenderInputs,
    RenderLimits,
    apply_reasoning_switches,
    build_context,
    chat_extra_context,
    compile_template,
    default_clock,
    fixed_clock,
    render,
    render_context,
)
from explorer.render.transformers_context import TRANSFORMERS_RELEASE, transformers_messages

__all__ = [
    "FIXED_CLOCK", "CompiledTemplate", "Dialect", "RenderInputs", "RenderLimits", "apply_reasoning_switches",
    "build_context", "chat_extra_context", "compile_template", "default_clock", "fixed_clock", "render",
    "render_context", "TRANSFORMERS_RELEASE", "transformers_messages",
    "OutputSpan", "Piece", "RenderedText", "render_context_with_provenance", "render_with_provenance",
]
