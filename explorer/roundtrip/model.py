"""What the round trip records: one case per assistant message, and the report.

Input: nothing (definitions). Output: ``GrammarVerdict`` (one text through the request's
GBNF grammar), ``RoundTripCase`` (every step of the oracle harness for one message:
rendering, cut, end marker, strip, parse, comparison, explanation, grammar verdicts) and
``RoundTripReport`` (the next-turn request's settings and every case), with their JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from explorer.jsontypes import JsonObject
from explorer.roundtrip.compare import Comparison
from explorer.roundtrip.cut import Cut, EndMarker, Strip

if TYPE_CHECKING:
    from explorer.roundtrip.dialect import DialectComparison


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

    def to_json(self) -> JsonObject:
        return {"label": self.label, "text": self.text, "accepted": self.accepted,
                "should_accept": self.should_accept, "as_expected": self.as_expected, "message": self.message,
                "char_level_accepts": self.char_level_accepts}


@dataclass(frozen=True)
class RoundTripCase:
    message_id: str
    message: JsonObject  # as rendered (ids rewritten on a retry)
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
    result: JsonObject | None = None
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

    def to_json(self) -> JsonObject:
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
    tools: tuple[JsonObject, ...] = field(default=(), repr=False)
    # the engine that rendered the replies in ``cases``; the parser is always llama.cpp's
    dialect: str = "llama.cpp"
    # transformers dialect: per message, llama.cpp's own round trip next to this one
    versus: tuple[DialectComparison, ...] = ()
    dialect_notes: tuple[str, ...] = ()  # e.g. the next-turn prompt transformers could not render

    @property
    def equal_count(self) -> int:
        return sum(1 for c in self.cases if c.equal)

    def to_json(self) -> JsonObject:
        out: JsonObject = {
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

