"""What llama.cpp's specialised handler builds vs what the autoparser would have built.

Input: a chat template and an ``explorer.apply.Request`` (and, for ``parse_both``, model
output). Output: ``RouteComparison`` (frozen): the routed ``ChatParams``, the autoparser's
``ChatParams`` for the same request (forced even when routing picks a handler) or the
error that stopped it, and the params fields on which the two differ; ``parse_both``
parses one output with both and lists the message fields on which they disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from explorer.apply import Request
from explorer.apply.templates import ChatTemplates
from explorer.errors import ExplorerError
from explorer.apply.pipeline import ChatParams, apply_autoparser, apply_template
from explorer.render import CompiledTemplate
from explorer.analysis.model import TemplateAnalysis
from explorer.caps import Caps


@dataclass(frozen=True)
class FieldDifference:
    """One field on which the handler and the autoparser disagree (values as JSON)."""

    field: str
    handler: Any
    autoparser: Any


@dataclass(frozen=True)
class RouteComparison:
    handler: ChatParams  # what llama.cpp does (may itself be the autoparser route)
    autoparser: ChatParams | None  # what the autoparser would build; None when it could not
    autoparser_error: ExplorerError | None
    differences: tuple[FieldDifference, ...]  # empty when the autoparser failed

    @property
    def routed(self) -> bool:
        """Whether llama.cpp picks a specialised handler for this template."""
        return self.handler.handler != "autoparser"


# The params fields worth comparing: how the two routes would drive generation and parsing.
COMPARED_FIELDS = ("format", "generation_prompt", "grammar_lazy", "grammar_triggers", "preserved_tokens",
                   "additional_stops")
# The message fields parse_both compares (the oracle's result keys).
MESSAGE_FIELDS = ("content", "reasoning_content", "tool_calls")


def _field_json(params: ChatParams, name: str) -> Any:
    return params.to_oracle_json()[name]


def params_differences(a: ChatParams, b: ChatParams) -> tuple[FieldDifference, ...]:
    """The ``COMPARED_FIELDS`` on which ``a`` (handler) and ``b`` (autoparser) differ."""
    out = []
    for name in COMPARED_FIELDS:
        left, right = _field_json(a, name), _field_json(b, name)
        if left != right:
            out.append(FieldDifference(name, left, right))
    return tuple(out)


def compare_routes(template_text: str | CompiledTemplate | ChatTemplates, request: Request, *, caps: Caps | None = None,
                   analysis: TemplateAnalysis | None = None) -> RouteComparison:
    """Both routes for one request. The handler side raises as ``apply_template`` does;
    an autoparser failure is kept in ``autoparser_error``."""
    routed = apply_template(template_text, request, caps=caps, analysis=analysis)
    try:
        forced = apply_autoparser(template_text, request, caps=caps, analysis=analysis)
    except ExplorerError as exc:
        return RouteComparison(routed, None, exc, ())
    return RouteComparison(routed, forced, None, params_differences(routed, forced))


def _parse(params: ChatParams | None, error: ExplorerError | None, text: str, is_partial: bool) -> Any:
    if params is None:
        return error
    try:
        return params.parse(text, is_partial=is_partial)
    except ExplorerError as exc:
        return exc


def _message_json(value: Any) -> dict[str, Any]:
    if isinstance(value, ExplorerError) or value is None:
        return {"error": str(value)}
    full = value.to_oracle_json()
    return {k: full[k] for k in MESSAGE_FIELDS}


def message_differences(a: Any, b: Any) -> tuple[FieldDifference, ...]:
    """Fields of two parse results (``ChatMessage`` or an error) that differ; an error on
    either side differs from any message under ``error``."""
    left, right = _message_json(a), _message_json(b)
    names = [k for k in (*MESSAGE_FIELDS, "error") if k in left or k in right]
    return tuple(FieldDifference(k, left.get(k), right.get(k)) for k in names if left.get(k) != right.get(k))


def parse_both(comparison: RouteComparison, text: str, *, is_partial: bool = False,
               ) -> tuple[Any, Any, tuple[FieldDifference, ...]]:
    """Parse ``text`` with both routes: (handler message or error, autoparser message or
    error, the message fields on which they differ)."""
    left = _parse(comparison.handler, None, text, is_partial)
    right = _parse(comparison.autoparser, comparison.autoparser_error, text, is_partial)
    return left, right, message_differences(left, right)
