"""The round-trip self-test: render assistant messages, cut the reply out, parse it back.

Input: a chat template's text, the thinking setting, assistant messages and tools (and
optionally a ``RequestChange``: a client's changes to the oracle's request). Output:
``RoundTripReport`` (frozen): the next-turn request llama.cpp would build (format,
generation prompt, parser, grammar) and one ``RoundTripCase`` per message with every step
of the oracle harness (rendering, cut, end marker, strip, parse, comparison), a plain
explanation of what was lost, and grammar verdicts.

Each step is llama.cpp's: ``explorer.apply`` renders (chat.cpp's message workarounds
included), ``explorer.apply.pipeline.apply_template`` builds the request's parser, and
the cutting rules are the oracle README's ("Round-trip cases").
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from explorer.analysis import TemplateAnalysis, template_caps
from explorer.apply import Request
from explorer.apply.messages import tools_to_template_json
from explorer.apply.pipeline import ChatParams, Held, apply_template
from explorer.apply.templates import ChatTemplates, as_templates
from explorer.caps import Caps
from explorer.errors import RequestError
from explorer.jsontypes import Json
from explorer.roundtrip.cases import DEFAULT_MESSAGES, DEFAULT_TOOLS
from explorer.roundtrip.dialect import TransformersCall, compare_dialects, transformers_cases
from explorer.roundtrip.explain import explain_case
from explorer.roundtrip.model import RoundTripCase, RoundTripReport
from explorer.roundtrip.run import USER, LlamaSetting, RequestChange, render_end_marker, run_case
from explorer.roundtrip.verdicts import with_grammar_verdicts

DIALECTS = ("llama.cpp", "transformers")


def _normalise_messages(messages: Sequence[Any]) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for i, item in enumerate(messages):
        if isinstance(item, dict):
            out.append((str(i + 1), item))
        else:
            out.append((str(item[0]), item[1]))
    return out


def roundtrip_report(template_text: str, *, enable_thinking: bool,
                     messages: Sequence[Any] = DEFAULT_MESSAGES,
                     tools: Sequence[Mapping[str, Json]] = DEFAULT_TOOLS,
                     grammar: bool = True, explain: bool = True, dialect: str = "llama.cpp",
                     templates: ChatTemplates | None = None, caps: Caps | None = None,
                     analysis: TemplateAnalysis | None = None,
                     change: RequestChange | None = None, held: Held | None = None,
                     trained_as: TransformersCall = TransformersCall()) -> RoundTripReport:
    """The round trip of every message through ``template_text``.

    ``messages``: (id, assistant message) pairs, or bare messages (numbered from 1).
    ``grammar``: run the grammar verdicts (llguidance); ``explain``: add explanations.
    ``dialect``: the engine that renders the replies. "llama.cpp" (llama.cpp's own round
    trip) or "transformers" (the text the model was trained on, see
    ``explorer.roundtrip.dialect``; the report's ``versus`` sets it next to llama.cpp's).
    The parser is llama.cpp's next-turn parser either way.
    ``templates``, ``caps``, ``analysis``: the template's, when the caller has them
    (``explorer.session``); made from ``template_text`` otherwise. ``held``: the caller's
    params, prompts and parses of that template (a session's), taken instead of made again.
    ``change``: what the client changes in the oracle's request (thinking, template kwargs,
    reasoning format, parallel calls), for the renderings and the next-turn request alike.
    ``trained_as``: how the transformers dialect calls apply_chat_template (enable_thinking
    passed or not, a fixed date). Raises ``ExplorerError`` when the template cannot be loaded or the next-turn request
    itself fails (nothing can be parsed then).
    """
    if dialect not in DIALECTS:
        raise RequestError(f"unknown round-trip dialect {dialect!r}: expected one of {', '.join(DIALECTS)}")
    templates = templates if templates is not None else as_templates(template_text)
    copied = tuple(copy.deepcopy(dict(t)) for t in tools)
    compiled = templates.select(tools_to_template_json(list(copied) or None))
    if caps is None or compiled is not templates.default:
        caps = template_caps(compiled)
    held = held if compiled is templates.default else None  # a session holds its default template's
    setting = LlamaSetting(templates, copied, caps, enable_thinking, change or RequestChange(),
                           prompts=held.prompts if held else None)
    next_turn = setting.request((USER,), True)
    params = _next_turn_params(templates, next_turn, caps, analysis if compiled is templates.default else None, held)
    marker = render_end_marker(setting)
    numbered = _normalise_messages(messages)
    parse = (lambda text: held.parse(next_turn, text)) if held else None
    cases = [run_case(setting, params, marker, mid, msg, parse=parse) for mid, msg in numbered]
    parallel = next_turn.parallel_tool_calls
    if explain:
        cases = _explained(cases, params, parallel)
    versus: tuple[Any, ...] = ()
    notes: tuple[str, ...] = ()
    if dialect == "transformers":
        trained, notes = transformers_cases(template_text, setting, params, numbered, trained_as)
        if explain:
            trained = _explained(trained, params, parallel, engine="transformers")
        versus = tuple(compare_dialects(own, other) for own, other in zip(cases, trained))
        cases = trained
    if grammar:
        cases = with_grammar_verdicts(cases, params)
    return RoundTripReport(enable_thinking, params.handler, params.format, params.generation_prompt,
                           tuple(params.additional_stops), parallel,
                           params.grammar_lazy, bool(params.grammar), tuple(cases), copied,
                           dialect=dialect, versus=versus, dialect_notes=notes)


def _next_turn_params(templates: ChatTemplates, request: Request, caps: Caps, analysis: TemplateAnalysis | None,
                      held: Held | None) -> ChatParams:
    return held.params(request) if held else apply_template(templates, request, caps=caps, analysis=analysis)


def with_grammar(report: RoundTripReport, template_text: str, *, templates: ChatTemplates | None = None,
                 caps: Caps | None = None, analysis: TemplateAnalysis | None = None,
                 change: RequestChange | None = None, held: Held | None = None) -> RoundTripReport:
    """``report`` (made with ``grammar=False``, llama.cpp's dialect) with the grammar
    verdicts ``roundtrip_report(..., grammar=True)`` would have given it: the same
    next-turn request is built again (from the same template, tools, thinking setting and
    change) and its grammar judges the same cases, so the replies are not rendered and
    parsed twice."""
    templates = templates if templates is not None else as_templates(template_text)
    tools = report.tools
    compiled = templates.select(tools_to_template_json(list(tools) or None))
    if caps is None or compiled is not templates.default:
        caps = template_caps(compiled)
    setting = LlamaSetting(templates, tools, caps, report.enable_thinking, change or RequestChange())
    default = compiled is templates.default
    params = _next_turn_params(templates, setting.request((USER,), True), caps, analysis if default else None,
                               held if default else None)
    return replace(report, cases=tuple(with_grammar_verdicts(list(report.cases), params)))


def _explained(cases: list[RoundTripCase], params: ChatParams, parallel: bool,
               engine: str | None = None) -> list[RoundTripCase]:
    return [explain_case(c, params, parallel, engine) for c in cases]
