"""The checks, registered in one place, and ``diagnose`` which runs them all.

Input: ``ChatParams``, the ``Request``, the raw output and optionally the
``TemplateAnalysis``. Output: a ``Diagnosis``: llama.cpp's parse (untouched) and every
check's findings, causes first. Add a check by writing a pure ``Facts -> findings``
function and one ``Check`` line in ``CHECKS``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from explorer.analysis import TemplateAnalysis
from explorer.apply import Request
from explorer.apply.pipeline import ChatParams
from explorer.output.parse import OutputParse
from explorer.triage import (
    blame,
    checks_closers,
    checks_format,
    checks_grammar,
    checks_handlers,
    checks_parse,
    checks_reasoning,
    checks_rules,
    checks_success,
    checks_tools,
    consistency,
    partial,
)
from explorer.triage.facts import Facts, build_facts
from explorer.triage.model import CUT, SEVERITY_RANK, Check, Diagnosis, Finding, Place

CHECKS: tuple[Check, ...] = (
    # first: a grammar llama.cpp cannot load means the request never generated (its cause leads)
    Check("grammar-build", "a request grammar llama.cpp cannot load (its GBNF parser's repetition limits, an eager "
          "grammar refusing its own generation prompt): llama-server errors before generating",
          checks_grammar.grammar_build),
    Check("no-tool-parser", "a tool call in the output of a request that builds no tool parser",
          checks_tools.no_tool_parser),
    Check("opener-near-miss", "the tool-call opener (or the markup before a function name) spelled almost right, "
          "a similar tag, a Markdown fence, or bare JSON without the opener",
          checks_tools.opener_near_miss),
    Check("closer-near-miss", "a closing tag (a call's, an argument value's, the reasoning's) spelled almost right",
          checks_closers.closer_near_miss),
    Check("handler-format", "a slip in a routed handler's own call markup (GPT-OSS recipient, channel, "
          "<|message|>, <|call|>; Functionary v3.2 >>>NAME; Muse Glimmer's ATEM wrapper)",
          checks_handlers.handler_format),
    Check("unknown-function", "a call to a function the request does not offer", checks_tools.unknown_function),
    Check("call-json-keys", "call JSON with other keys or another key order than the parser's",
          checks_tools.call_json_keys),
    Check("malformed-arguments", "call JSON that does not decode", checks_tools.malformed_arguments),
    Check("json-opens-call", "a '{' that starts a call in a bare-JSON format, but is no call",
          checks_format.json_opens_call),
    Check("pythonic-call", "a Python-style call where the format writes calls otherwise", checks_format.pythonic_call),
    Check("required-call-missing", 'tool_choice "required" and no call', checks_format.required_call_missing),
    Check("reasoning-end-without-start", "a reasoning end tag that nothing opened",
          checks_reasoning.reasoning_end_without_start),
    Check("reasoning-not-extracted", "a reasoning block the parser has no place for",
          checks_reasoning.reasoning_not_extracted),
    Check("reasoning-start-repeated", "a reasoning start tag the generation prompt already wrote",
          checks_reasoning.reasoning_start_repeated),
    Check("reasoning-never-closed", "reasoning the generation prompt opened and the output never closed",
          checks_reasoning.reasoning_never_closed),
    Check("call-in-reasoning", "a tool call written inside the reasoning block", checks_reasoning.call_in_reasoning),
    Check("reasoning-format-none", "reasoning kept in content by reasoning_format none",
          checks_reasoning.reasoning_format_none),
    Check("content-after-calls", "text after the tool calls", checks_tools.content_after_calls),
    Check("arguments-json", "a returned call whose arguments do not decode as JSON", checks_success.arguments_json),
    Check("value-swallowed", "a tagged argument value holding the format's closing tag (it swallowed what "
          "followed)", checks_success.value_swallowed),
    Check("call-cut-off", "an output that ends inside a call, returned as a complete call",
          checks_success.call_cut_off),
    Check("parameter-order", "tagged arguments out of the order the parser reads them (required first)",
          checks_rules.parameter_order),
    Check("newline-rule", "call markup missing a newline the parser needs", checks_rules.newline_rule),
    Check("whitespace-rule", "call markup with whitespace the parser does not skip there",
          checks_rules.whitespace_rule),
    Check("one-call-only", "a second call while parallel_tool_calls is false", checks_rules.one_call_only),
    Check("marker-in-prose", "the call opener written inside prose", checks_rules.marker_in_prose),
    Check("parse-error", "where the parser stopped when llama.cpp throws", checks_parse.parse_error),
    Check("unconsumed-output", "output the parser stopped before, without an error (dropped)",
          checks_parse.unconsumed_output),
    Check("tool-mentioned", "a tool named in an output with no calls", checks_tools.tool_mentioned),
    Check("grammar-trigger", "where the lazy grammar wakes (trigger, origin, character), and a call it never woke "
          "for, woke late for, or a trigger inside content or reasoning", checks_grammar.grammar_trigger),
    Check("grammar-accepts", "where llguidance's reading of the request grammar refuses the output when the parser "
          "does too, or a grammar check cut short for size", checks_grammar.grammar_accepts),
    Check("grammar-vs-parser", "the parser and the GBNF built from it disagree on the output (a llama.cpp "
          "inconsistency)", checks_grammar.grammar_vs_parser),
    Check("partial-output", "with is_partial: a tool call or reasoning still being written, and what llama.cpp's "
          "partial parse returns meanwhile", partial.partial_output),
)

CHECK_IDS: tuple[str, ...] = tuple(c.id for c in CHECKS)


MAX_PER_CHECK = 10  # a long output can repeat one mistake thousands of times


def _capped(findings: tuple[Finding, ...]) -> tuple[Finding, ...]:
    if len(findings) <= MAX_PER_CHECK:
        return findings
    first = findings[0]
    more = Finding(check=first.check, severity="info",
                   summary=f"…and {len(findings) - MAX_PER_CHECK} more findings like these.",
                   detail=f"Only the first {MAX_PER_CHECK} findings of a check are listed.")
    return findings[:MAX_PER_CHECK] + (more,)


def run_checks(facts: Facts, checks: tuple[Check, ...] = CHECKS) -> tuple[Finding, ...]:
    found: list[Finding] = []
    for check in checks:
        found.extend(_capped(check.run(facts)))
    found = list(partial.in_progress(facts, tuple(found)))
    return tuple(sorted(found, key=lambda f: SEVERITY_RANK[f.severity]))  # stable: check order within a severity


def diagnose(params: ChatParams, request: Request, output: str, *, analysis: TemplateAnalysis | None = None,
             apply: Callable[[Request], ChatParams] | None = None, is_partial: bool = False,
             checks: tuple[Check, ...] = CHECKS, template_findings: tuple[Finding, ...] = (),
             sample_call: Callable[[], str | None] | None = None,
             own_call: Callable[[Request], str | None] | None = None, parse: OutputParse | None = None) -> Diagnosis:
    """llama.cpp's parse of ``output`` for this request, and why it came out that way.

    ``apply`` (the template's params for another request, optional: a session's
    ``params``): lets the reasoning checks say whether the other enable_thinking setting
    would open reasoning. ``template_findings``: what is wrong with llama.cpp's reading of
    the template itself (``explorer.triage.health``); they come first, whatever the output.
    ``is_partial``: the output may still grow (streaming); the parse is llama.cpp's partial
    parse, and what is still being written is reported as in progress, not as a cause.
    ``sample_call`` (optional: a session's ``sample_reply("call", request)``): the template's
    own reply with a call, so a finding can say how the template writes calls; ``own_call``
    (a session's ``own_call``): that reply for another request, so a request change is
    verified on the template's own call too. ``parse``: the caller's parse of ``output`` with
    ``params`` (a session's), taken instead of parsing again.
    """
    facts = build_facts(params, request, output, analysis, apply, is_partial=is_partial, sample_call=sample_call,
                        own_call=own_call, parse=parse)
    template_findings = consistency.template_advice(tuple(blame.with_fact_fix_where(t) for t in template_findings),
                                                    facts)
    # one story: duplicates dropped, contradictions resolved by consistency's rules
    found = consistency.resolve(run_checks(facts, checks), facts, context=template_findings)
    found = consistency.defer_to_template(found, template_findings, facts)
    unparsed = _unparsed_char(facts)
    findings = consistency.references(consistency.verified_advice(template_findings + tuple(
        _placed(f, output, params.generation_prompt, unparsed) for f in found)))
    return Diagnosis(output=output, generation_prompt=params.generation_prompt, handler=params.handler,
                     message=facts.message, error=facts.error, findings=findings, is_partial=is_partial)


def _unparsed_char(facts: Facts) -> int | None:
    """The output character llama.cpp 0c1e5709's "unparsed … output:" text starts at: a final
    parse that failed prints generation prompt + output from ``result.end`` (None otherwise)."""
    if not facts.failed or facts.is_partial or facts.parse.result.end < len(facts.gp):
        return None  # (a parse that stopped in the generation prompt prints no output text first)
    return facts.stop


def _placed(finding: Finding, output: str, generation_prompt: str, unparsed: int | None) -> Finding:
    """The finding with its one place, its span in every coordinate (whatever place a check
    made), marked where llama.cpp's "unparsed" text starts when that is this place."""
    if finding.span is None:
        return replace(finding, place=None)
    start, end = finding.span
    whole = output[start:end]
    if finding.found and finding.found != whole and not finding.found.endswith(CUT) and whole.startswith(finding.found):
        finding = replace(finding, found=finding.found + CUT)  # a check's prefix of the span: say it is cut
    place = Place.of(output, generation_prompt, start, end)
    if unparsed is not None and place.char == unparsed:
        place = replace(place, unparsed=True)
    return finding if finding.place == place else replace(finding, place=place)
