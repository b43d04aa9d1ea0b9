"""What llama.cpp's specialised handler builds vs what the autoparser would have built.

Input: the routed ``ChatParams`` of one request and a way to build the autoparser's for
the same request (forced even when routing picks a handler): a session hands over what it
holds, ``compare_template_routes`` builds both from a template. Output: ``RouteComparison``
(frozen): both params (or the error that stopped the autoparser) and the params fields on
which the two differ; ``parse_both`` parses one output with both (or takes the parses
the caller holds: ``outcome``, ``message_differences``) and lists the message fields on
which they disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from explorer.analysis.model import TemplateAnalysis
from explorer.apply import Request
from explorer.apply.pipeline import ChatParams, apply_autoparser, apply_template
from explorer.apply.templates import ChatTemplates
from explorer.caps import Caps
from explorer.comparison import FieldChange
from explorer.errors import ExplorerError
from explorer.output.parse import ChatMessage, OutputParse, analyse_output
from explorer.render import CompiledTemplate

# a parse result: the message, or the error llama.cpp raises
ParseOutcome = ChatMessage | ExplorerError


@dataclass(frozen=True)
class RouteComparison:
    handler: ChatParams  # what llama.cpp does (may itself be the autoparser route)
    autoparser: ChatParams | None  # what the autoparser would build; None when it could not
    autoparser_error: ExplorerError | None
    differences: tuple[FieldChange, ...]  # a: the handler's value, b: the autoparser's; empty when it failed

    @property
    def routed(self) -> bool:
        """Whether llama.cpp picks a specialised handler for this template."""
        return self.handler.handler != "autoparser"


# The params fields worth comparing: how the two routes would drive generation and parsing.
COMPARED_FIELDS = ("format", "generation_prompt", "grammar_lazy", "grammar_triggers", "preserved_tokens",
                   "additional_stops")
# The message fields parse_both compares (the oracle's result keys).
MESSAGE_FIELDS = ("content", "reasoning_content", "tool_calls")


def params_differences(a: ChatParams, b: ChatParams) -> tuple[FieldChange, ...]:
    """The ``COMPARED_FIELDS`` on which ``a`` (handler) and ``b`` (autoparser) differ (only
    those fields are serialised, once per side)."""
    left, right = a.to_oracle_json(COMPARED_FIELDS), b.to_oracle_json(COMPARED_FIELDS)
    return tuple(FieldChange(name, left[name], right[name]) for name in COMPARED_FIELDS
                 if left[name] != right[name])


def compare_routes(routed: ChatParams, autoparser: Callable[[], ChatParams]) -> RouteComparison:
    """Both routes for one request: the routed params the caller holds, and ``autoparser()``
    (the forced autoparser's params for the same request); its failure is kept in
    ``autoparser_error``."""
    try:
        forced = autoparser()
    except ExplorerError as exc:
        return RouteComparison(routed, None, exc, ())
    return RouteComparison(routed, forced, None, params_differences(routed, forced))


def compare_template_routes(template: str | CompiledTemplate | ChatTemplates, request: Request, *,
                            caps: Caps | None = None, analysis: TemplateAnalysis | None = None) -> RouteComparison:
    """``compare_routes`` for a template without a session: both params built here. The
    handler side raises as ``apply_template`` does."""
    return compare_routes(apply_template(template, request, caps=caps, analysis=analysis),
                          lambda: apply_autoparser(template, request, caps=caps, analysis=analysis))


def outcome(parse: Callable[[], OutputParse]) -> ParseOutcome:
    """A parse as the comparison reads it: the message, or the error llama.cpp raises."""
    try:
        parsed = parse()
    except ExplorerError as exc:
        return exc
    if parsed.error is not None:
        return parsed.error
    assert parsed.message is not None
    return parsed.message


def _message_json(value: Any) -> dict[str, Any]:
    if isinstance(value, ExplorerError) or value is None:
        return {"error": str(value)}
    full = value.to_oracle_json()
    return {k: full[k] for k in MESSAGE_FIELDS}


def message_differences(a: Any, b: Any) -> tuple[FieldChange, ...]:
    """Fields of two parse results (``ChatMessage`` or an error) that differ; an error on
    either side differs from any message under ``error``."""
    left, right = _message_json(a), _message_json(b)
    names = [k for k in (*MESSAGE_FIELDS, "error") if k in left or k in right]
    return tuple(FieldChange(k, left.get(k), right.get(k)) for k in names if left.get(k) != right.get(k))


def parse_both(comparison: RouteComparison, text: str, *, is_partial: bool = False,
               ) -> tuple[ParseOutcome, ParseOutcome | None, tuple[FieldChange, ...]]:
    """Parse ``text`` with both routes: (handler message or error, autoparser message or
    error, the message fields on which they differ). A session parses with what it holds
    instead (``TemplateSession.parse_routes``)."""
    def fresh(params: ChatParams) -> ParseOutcome:
        return outcome(lambda: analyse_output(params.arena, text, generation_prompt=params.generation_prompt,
                                              format=params.format, is_partial=is_partial))
    left = fresh(comparison.handler)
    right = comparison.autoparser_error if comparison.autoparser is None else fresh(comparison.autoparser)
    return left, right, message_differences(left, right)
