"""The template pair llama.cpp keeps per model (``common_chat_templates_init``).

Input: the default template text and, optionally, a ``tool_use`` variant. Output:
``ChatTemplates``: the default compiled after llama.cpp's fallbacks (empty or "chatml"
becomes the tool_use variant or the built-in ChatML template) and its init-time source
patches, and the tool_use variant compiled as given (llama.cpp patches only the default).
``select`` picks the one a request renders with.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from explorer.render import CompiledTemplate, Dialect, compile_template
from explorer.routing import RuleCheck, patch_source, route_source

RouteDecision = tuple[str, tuple[RuleCheck, ...]]  # the handler's name, and every rule checked up to it

# llama.cpp's CHATML_TEMPLATE_SRC (the fallback when a model has no template)
CHATML_TEMPLATE_SRC = (
    "{%- for message in messages -%}\n"
    "  {{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>\n' -}}\n"
    "{%- endfor -%}\n"
    "{%- if add_generation_prompt -%}\n"
    "  {{- '<|im_start|>assistant\n' -}}\n"
    "{%- endif -%}"
)


@dataclass(frozen=True)
class ChatTemplates:
    default: CompiledTemplate
    tool_use: CompiledTemplate | None = None
    default_note: str = ""  # which fallback or patch produced the default's text

    def select(self, tools: Any) -> CompiledTemplate:
        """The tool_use variant when the request has tools and the model has one."""
        if tools and self.tool_use is not None:
            return self.tool_use
        return self.default

    @cached_property
    def _default_route(self) -> RouteDecision:
        return route_source(self.default.source)

    @cached_property
    def _tool_use_route(self) -> RouteDecision:
        assert self.tool_use is not None
        return route_source(self.tool_use.source)

    def route_of(self, compiled: CompiledTemplate) -> RouteDecision:
        """The route of ``compiled`` (one of the pair), decided the first time it is asked for."""
        if compiled is self.default:
            return self._default_route
        if compiled is self.tool_use:
            return self._tool_use_route
        raise ValueError("route_of: the template is not one of this pair")


def falls_back(default_src: str) -> bool:
    """Whether llama.cpp replaces the default template's text (none, or "chatml")."""
    return not default_src or default_src == "chatml"


def default_source(default_src: str, tool_use_src: str | None = None) -> tuple[str, str]:
    """The default template's text after the fallbacks and patches, with a note."""
    note = ""
    if falls_back(default_src):
        if tool_use_src:
            default_src, note = tool_use_src, "no default template: the tool_use variant"
        else:
            default_src, note = CHATML_TEMPLATE_SRC, "no template: llama.cpp's built-in ChatML"
    patched = patch_source(default_src)
    if patched != default_src:
        note = (note + "; " if note else "") + "init-time source patch"
    return patched, note


def init_templates(
    default_src: str, tool_use_src: str | None = None, dialect: Dialect = "llama.cpp"
) -> ChatTemplates:
    text, note = default_source(default_src, tool_use_src)
    tool_use = compile_template(tool_use_src, dialect) if tool_use_src else None
    return ChatTemplates(compile_template(text, dialect), tool_use, note)


def as_templates(tmpl: str | CompiledTemplate | ChatTemplates) -> ChatTemplates:
    """Text or a compiled template is the model's default template."""
    if isinstance(tmpl, ChatTemplates):
        return tmpl
    if isinstance(tmpl, str):
        return init_templates(tmpl)
    text, note = default_source(tmpl.source)
    if text == tmpl.source:
        return ChatTemplates(tmpl, None, note)
    return ChatTemplates(compile_template(text, tmpl.dialect), None, note)
