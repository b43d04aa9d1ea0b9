"""The Grammar page's data: the PEG rules as rows, why a request gets no grammar, and what
the generated GBNF rules stand for.

Input: a ``ChatParams`` (``session.params(request)``: its arena, grammar and route), the
``Request`` and the analysis' tool format. Output: ``notation_rows`` (the arena's PEG
notation as (rule name, expression) pairs, ``Arena.notation``'s own lines), ``no_grammar_reason``
(why llama.cpp sends no grammar: the include rule of the route that built it, the
autoparser's generator or the handler's policy, which differ), and ``rule_notes``
(``explorer.grammar.explain``: each "until this literal" automaton family of the GBNF in a
sentence).
"""

from __future__ import annotations

import html

from explorer.analysis.model import ToolFormatAnalysis
from explorer.apply import Request
from explorer.apply.pipeline import PURE_CONTENT, ChatParams
from explorer.grammar.explain import GeneratedRule, generated_rules
from explorer.handlers.base import include_tools
from explorer.handlers.registry import handler_named
from explorer.peg import Arena
from explorer.routing import AUTOPARSER
from explorer.ui_support.text import visible_whitespace_html


def notation_rows(arena: Arena) -> list[tuple[str, str]]:
    """The parser as named rules: (name, expression); a line without `` = `` is an
    expression of its own (the name empty)."""
    rows = []
    for line in arena.notation().splitlines():
        name, sep, expr = line.partition(" = ")
        rows.append((name, expr) if sep else ("", line))
    return rows


def notation_html(arena: Arena) -> str:
    """The rules as an HTML table: names in bold, expressions with whitespace visible (escaped)."""
    rows = "".join(f'<tr><td style="padding:2px 8px;vertical-align:top;white-space:nowrap"><b>{html.escape(name)}'
                   f'</b></td><td style="padding:2px 8px">{visible_whitespace_html(expr)}</td></tr>'
                   for name, expr in notation_rows(arena))
    return f'<table style="border-collapse:collapse">{rows}</table>'


def no_grammar_reason(params: ChatParams, request: Request, tool_format: ToolFormatAnalysis | None) -> str:
    """Why ``params`` carries no grammar, by the rule of the route that built it (call only
    when ``params.grammar`` is empty)."""
    if params.handler == PURE_CONTENT:
        return "llama-server runs with --skip-chat-parsing, which sends no grammar"
    has_schema = request.json_schema is not None
    if params.handler != AUTOPARSER:
        policy = handler_named(params.handler).include
        needs = "tools and a tool_choice other than none" + ("" if policy is include_tools else
                                                             ", or a response format")
        if not request.tools:
            return f"the request has no tools; the {params.handler} handler includes a grammar only for {needs}"
        if request.tool_choice == "none":
            return f"tool_choice is none; the {params.handler} handler includes a grammar only for {needs}"
        return f"the {params.handler} handler includes no grammar for this request (it needs {needs})"
    if has_schema:
        return "the response format's schema gives no grammar rules"
    if not request.tools:
        return "the request has no tools (and no response format)"
    if request.tool_choice == "none":
        return "tool_choice is none"
    if tool_format is None or tool_format.mode.value == "NONE":
        return "the analysis found no tool-call format (tools.format.mode is NONE), so the autoparser writes no " \
               "tool-call grammar"
    if request.tool_choice == "auto" and not (tool_format.section_start or tool_format.per_call_start):
        return "tool_choice is auto and the tool format has neither a section_start nor a per_call_start marker, " \
               "so a lazy grammar would have no word to trigger on (with tool_choice required it is sent, not lazy)"
    return "the autoparser's generator includes no grammar for this request"


def rule_notes(params: ChatParams) -> tuple[GeneratedRule, ...]:
    """The generated automaton rules of the request's GBNF, each with its sentence."""
    return generated_rules(params.grammar, params.arena) if params.grammar else ()


__all__ = ["no_grammar_reason", "notation_html", "notation_rows", "rule_notes"]
