"""The round-trip self-test: render assistant messages, cut the reply out, parse it back.

Input: a chat template's text, the thinking setting, assistant messages and tools.
Output: ``RoundTripReport`` (frozen): the next-turn request llama.cpp would build (format,
generation prompt, parser, grammar) and one ``RoundTripCase`` per message with every step
of the oracle harness (rendering, cut, end marker, strip, parse, comparison), a plain
explanation of what was lost, and grammar verdicts.

Each step is llama.cpp's: ``explorer.apply`` renders (chat.cpp's message workarounds
included), ``explorer.handlers.pipeline.apply_template`` builds the request's parser, and
the cutting rules are the oracle README's ("Round-trip cases").
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

from explorer.apply import AppliedPrompt, Request, apply_request
from explorer.apply.messages import tools_to_template_json
from explorer.apply.templates import ChatTemplates, as_templates
from explorer.errors import ExplorerError, RequestError
from explorer.roundtrip.cases import DEFAULT_MESSAGES, DEFAULT_TOOLS
from explorer.roundtrip.compare import Comparison, compare
from explorer.roundtrip.cut import Cut, EndMarker, Strip, cut_reply, probe_end_marker, strip_end

if TYPE_CHECKING:
    from explorer.roundtrip.dialect import DialectComparison

DIALECTS = ("llama.cpp", "transformers")

USER = {"role": "user", "content": "Hello"}
RETRY_IDS = ("call00001", "call00002", "call00003", "call00004")


@dataclass(frozen=True)
class GrammarVerdict:
    """One text run through the request's GBNF grammar."""

    label: str  # "rendered" or the mangling ("misspelled function name", "broken JSON")
    text: str
    accepted: bool
    should_accept: bool | None  # None: no expectation (the reply does not round-trip its calls)
    message: str = ""
    # when llguidance disagrees with the expectation: does a plain character-level reading
    # of the same GBNF (llama.cpp's engine has no lexer) accept the text? None: not checked
    char_level_accepts: bool | None = None

    @property
    def as_expected(self) -> bool | None:
        return None if self.should_accept is None else self.accepted == self.should_accept

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "text": self.text, "accepted": self.accepted,
                "should_accept": self.should_accept, "as_expected": self.as_expected, "message": self.message,
                "char_level_accepts": self.char_level_accepts}


@dataclass(frozen=True)
class RoundTripCase:
    message_id: str
    message: dict[str, Any]  # as rendered (ids rewritten on a retry)
    rendering: str | None  # R
    prompt: str  # P
    generation_prompt: str  # G
    render_exception: dict[str, str] | None = None
    render_exception_first: dict[str, str] | None = None
    tool_call_ids_rewritten: bool | None = None
    cut: Cut | None = None
    end_marker: EndMarker | None = None
    end_marker_exception: dict[str, str] | None = None
    strip: Strip | None = None
    result: dict[str, Any] | None = None
    exception: dict[str, str] | None = None
    comparison: Comparison | None = None
    explanation: tuple[str, ...] = ()
    grammar: tuple[GrammarVerdict, ...] = ()

    @property
    def cut_rule(self) -> str | None:
        return self.cut.rule if self.cut else None

    @property
    def raw_output(self) -> str | None:
        return self.cut.raw_output if self.cut else None

    @property
    def raw_output_stripped(self) -> str | None:
        return self.strip.text if self.strip else None

    @property
    def strip_rule(self) -> str | None:
        return self.strip.rule if self.strip else None

    @property
    def equal(self) -> bool | None:
        return self.comparison.equal if self.comparison else None

    @property
    def equal_trimmed(self) -> bool | None:
        return self.comparison.equal_trimmed if self.comparison else None

    @property
    def diff(self) -> tuple[str, ...] | None:
        return self.comparison.diff if self.comparison else None

    @property
    def grammar_rejects_own_output(self) -> bool:
        """The grammar refuses a reply that round-trips, and the character-level reading agrees."""
        return any(v.label == "rendered" and v.should_accept is True and not v.accepted
                   and v.char_level_accepts is not True for v in self.grammar)

    @property
    def grammar_checker_disagrees(self) -> bool:
        """llguidance and the character-level reading of the same GBNF disagree on a reply."""
        return any(v.char_level_accepts is not None and v.char_level_accepts != v.accepted for v in self.grammar)

    def to_json(self) -> dict[str, Any]:
        """The oracle's field names where it has them."""
        return {
            "id": self.message_id, "message": self.message, "rendering": self.rendering,
            "prompt": self.prompt, "generation_prompt": self.generation_prompt,
            "render_exception": self.render_exception, "render_exception_first": self.render_exception_first,
            "tool_call_ids_rewritten": self.tool_call_ids_rewritten,
            "prompt_is_prefix": self.cut.prompt_is_prefix if self.cut else None,
            "prompt_unmatched": self.cut.prompt_unmatched if self.cut else None,
            "cut_rule": self.cut_rule,
            "raw_output_simple": self.cut.raw_output_simple if self.cut else None,
            "end_marker": self.end_marker.marker if self.end_marker else None,
            "end_marker_probe": self.end_marker.probe if self.end_marker else ("threw" if self.end_marker_exception else None),
            "end_marker_exception": self.end_marker_exception,
            "raw_output": self.raw_output, "raw_output_stripped": self.raw_output_stripped,
            "strip_rule": self.strip_rule, "stripped_suffix": self.strip.suffix if self.strip else None,
            "result": self.result, "exception": self.exception,
            "roundtrip_equal": self.equal, "roundtrip_equal_trimmed": self.equal_trimmed,
            "roundtrip_diff": list(self.diff) if self.diff is not None else None,
            "explanation": list(self.explanation),
            "grammar": [v.to_json() for v in self.grammar],
            "grammar_rejects_own_output": self.grammar_rejects_own_output,
            "grammar_checker_disagrees": self.grammar_checker_disagrees,
        }


@dataclass(frozen=True)
class RoundTripReport:
    enable_thinking: bool
    handler: str
    format: str
    generation_prompt: str
    additional_stops: tuple[str, ...]
    parallel_tool_calls: bool
    grammar_lazy: bool
    has_grammar: bool
    cases: tuple[RoundTripCase, ...]
    tools: tuple[dict[str, Any], ...] = field(default=(), repr=False)
    # the engine that rendered the replies in ``cases``; the parser is always llama.cpp's
    dialect: str = "llama.cpp"
    # transformers dialect: per message, llama.cpp's own round trip next to this one
    versus: tuple["DialectComparison", ...] = ()
    dialect_notes: tuple[str, ...] = ()  # e.g. the next-turn prompt transformers could not render

    @property
    def equal_count(self) -> int:
        return sum(1 for c in self.cases if c.equal)

    def to_json(self) -> dict[str, Any]:
        out = {
            "enable_thinking": self.enable_thinking, "handler": self.handler, "format": self.format,
            "generation_prompt": self.generation_prompt, "additional_stops": list(self.additional_stops),
            "parallel_tool_calls": self.parallel_tool_calls, "grammar_lazy": self.grammar_lazy,
            "has_grammar": self.has_grammar, "equal": self.equal_count, "total": len(self.cases),
            "cases": [c.to_json() for c in self.cases],
        }
        if self.dialect != "llama.cpp":  # llama.cpp's report keeps its exact shape
            out.update(dialect=self.dialect, dialect_notes=list(self.dialect_notes),
                       versus=[v.to_json() for v in self.versus])
        return out


def exception_json(exc: BaseException) -> dict[str, str]:
    return {"type": getattr(exc, "cpp_type", type(exc).__name__), "message": str(exc)}


@dataclass(frozen=True)
class LlamaSetting:
    """How llama.cpp renders the round trip's conversations (chat.cpp's apply path)."""

    templates: ChatTemplates
    tools: tuple[dict[str, Any], ...]
    caps: Any
    enable_thinking: bool

    def request(self, messages: tuple[dict, ...], add_generation_prompt: bool) -> Request:
        flag = self.enable_thinking
        return Request(messages=messages, tools=self.tools, tool_choice="auto",
                       parallel_tool_calls=bool(self.caps.supports_parallel_tool_calls),
                       enable_thinking=flag, reasoning_format="deepseek",
                       chat_template_kwargs={"enable_thinking": flag, "thinking": flag},
                       add_generation_prompt=add_generation_prompt)

    def applied(self, messages: tuple[dict, ...], add_generation_prompt: bool) -> AppliedPrompt:
        """``messages`` after a user turn, through the whole apply path (messages and prompt)."""
        return apply_request(self.templates, self.request((USER, *messages), add_generation_prompt), caps=self.caps)

    def render(self, *messages: dict) -> str:
        return self.applied(messages, False).prompt


def _with_retry_ids(message: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(message)
    for call, new_id in zip(out.get("tool_calls") or [], RETRY_IDS):
        call["id"] = new_id
    return out


def _render_case(setting: Any, message: dict[str, Any]
                 ) -> tuple[dict, str | None, dict | None, dict | None, bool | None]:
    """(message used, R, render_exception, render_exception_first, ids rewritten)."""
    try:
        return message, setting.render(message), None, None, None
    except ExplorerError as exc:
        first = exception_json(exc)
    if not message.get("tool_calls"):
        return message, None, first, None, None
    # Mistral templates accept only nine-character alphanumeric ids: the harness retries once.
    retried = _with_retry_ids(message)
    try:
        return retried, setting.render(retried), None, first, True
    except ExplorerError:
        return message, None, first, None, None


def render_end_marker(setting: Any) -> tuple[EndMarker | None, dict | None]:
    try:
        one = setting.render({"role": "assistant", "content": "X"})
        two = setting.render({"role": "assistant", "content": "XY"})
    except ExplorerError as exc:
        return None, exception_json(exc)
    return probe_end_marker(one, two), None


def _parse(params: Any, text: str) -> tuple[dict | None, dict | None]:
    from explorer.chat_output import exception_json as parse_exception_json
    from explorer.errors import OutputParseError

    try:
        return params.parse(text).to_oracle_json(), None
    except OutputParseError as exc:
        return None, parse_exception_json(exc)
    except ExplorerError as exc:
        return None, exception_json(exc)


def run_case(setting: Any, params: Any, marker: tuple[EndMarker | None, dict | None],
             message_id: str, message: dict[str, Any], next_turn: tuple[str, str] | None = None) -> RoundTripCase:
    """One message: render with ``setting``, cut with ``next_turn`` (P, G; default the
    request's own), strip, parse with ``params`` (llama.cpp's parser), compare."""
    prompt, gen = next_turn if next_turn is not None else (params.prompt, params.generation_prompt)
    used, rendering, exc, first, rewritten = _render_case(setting, message)
    base = dict(message_id=message_id, message=used, rendering=rendering, prompt=prompt,
                generation_prompt=gen, render_exception=exc,
                render_exception_first=first, tool_call_ids_rewritten=rewritten,
                end_marker=marker[0], end_marker_exception=marker[1])
    if rendering is None:
        return RoundTripCase(**base)
    cut = cut_reply(rendering, prompt, gen)
    strip = strip_end(cut.raw_output, marker[0].marker if marker[0] else None, tuple(params.additional_stops))
    result, parse_exc = _parse(params, strip.text)
    return RoundTripCase(**base, cut=cut, strip=strip, result=result, exception=parse_exc,
                         comparison=compare(used, result))


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
                     tools: Sequence[dict[str, Any]] = DEFAULT_TOOLS,
                     grammar: bool = True, explain: bool = True, dialect: str = "llama.cpp") -> RoundTripReport:
    """The round trip of every message through ``template_text``.

    ``messages``: (id, assistant message) pairs, or bare messages (numbered from 1).
    ``grammar``: run the grammar verdicts (llguidance); ``explain``: add explanations.
    ``dialect``: the engine that renders the replies. "llama.cpp" (llama.cpp's own round
    trip) or "transformers" (the text the model was trained on, see
    ``explorer.roundtrip.dialect``; the report's ``versus`` sets it next to llama.cpp's).
    The parser is llama.cpp's next-turn parser either way.
    Raises ``ExplorerError`` when the template cannot be loaded or the next-turn request
    itself fails (nothing can be parsed then).
    """
    from explorer.analysis import template_caps
    from explorer.handlers.pipeline import apply_template

    if dialect not in DIALECTS:
        raise RequestError(f"unknown round-trip dialect {dialect!r}: expected one of {', '.join(DIALECTS)}")
    templates = as_templates(template_text)
    tools = tuple(copy.deepcopy(list(tools)))
    caps = template_caps(templates.select(tools_to_template_json(list(tools) or None)))
    setting = LlamaSetting(templates, tools, caps, enable_thinking)
    params = apply_template(templates, setting.request((USER,), True), caps=caps)
    marker = render_end_marker(setting)
    numbered = _normalise_messages(messages)
    cases = [run_case(setting, params, marker, mid, msg) for mid, msg in numbered]
    parallel = bool(caps.supports_parallel_tool_calls)
    if explain:
        cases = _explained(cases, params, parallel)
    versus: tuple[Any, ...] = ()
    notes: tuple[str, ...] = ()
    if dialect == "transformers":
        from explorer.roundtrip.dialect import compare_dialects, transformers_cases

        trained, notes = transformers_cases(template_text, setting, params, numbered)
        if explain:
            trained = _explained(trained, params, parallel, engine="transformers")
        versus = tuple(compare_dialects(own, other) for own, other in zip(cases, trained))
        cases = trained
    if grammar:
        from explorer.roundtrip.verdicts import with_grammar_verdicts

        cases = with_grammar_verdicts(cases, params)
    return RoundTripReport(enable_thinking, params.handler, params.format, params.generation_prompt,
                           tuple(params.additional_stops), parallel,
                           params.grammar_lazy, bool(params.grammar), tuple(cases), tools,
                           dialect=dialect, versus=versus, dialect_notes=notes)


def _explained(cases: list[RoundTripCase], params: Any, parallel: bool,
               engine: str | None = None) -> list[RoundTripCase]:
    from explorer.roundtrip.explain import explain_case

    return [explain_case(c, params, parallel, engine) for c in cases]
