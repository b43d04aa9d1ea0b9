"""How a generation prompt pre-fills reasoning, and what the parser keeps of it.

Input: the generation prompt and the reasoning start/end markers (from the analysis).
Output: ``ReasoningPrefill``: which of docs/autoparser.md's outcomes applies, and the
literal the autoparser puts in front of its parser (``p.prefix(generation_prompt,
trim(reasoning.start))``: the generation prompt up to the first start marker; that
function is the PEG builder's, ``explorer.generator.chat_builder.parser_prefix``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from explorer.analysis.diff import trim_whitespace
from explorer.generator.chat_builder import parser_prefix

__all__ = ["PrefillOutcome", "ReasoningPrefill", "classify_reasoning_prefill", "parser_prefix"]


class PrefillOutcome(str, Enum):
    NONE = "none"  # no start marker in the generation prompt
    START_AND_END = "start_and_end"  # e.g. "<think></think>\n": opened and closed
    START_ONLY = "start_only"  # e.g. "<think>\n": the model continues inside reasoning
    START_NOT_AT_END = "start_not_at_end"  # marker followed by boilerplate: an artifact
    END_ONLY = "end_only"  # delimiter style: only an end marker, reasoning closed


@dataclass(frozen=True)
class ReasoningPrefill:
    outcome: PrefillOutcome
    start: str  # trimmed, as the parser uses it
    end: str
    start_pos: int | None  # position of the last start marker in the generation prompt
    after_start: str  # generation prompt text after that marker
    parser_prefix: str  # literal the autoparser expects before the model output

    def describe(self) -> str:
        return {
            PrefillOutcome.NONE: "the generation prompt does not open reasoning",
            PrefillOutcome.START_AND_END: "reasoning is opened and immediately closed; "
            "whitespace-only reasoning is discarded",
            PrefillOutcome.START_ONLY: "reasoning is already open: model output starts "
            "inside the reasoning block",
            PrefillOutcome.START_NOT_AT_END: "the start marker is followed by other text: "
            "a template artifact, reasoning is delimiter-style (end marker only)",
            PrefillOutcome.END_ONLY: "the generation prompt only closes reasoning",
        }[self.outcome]


def classify_reasoning_prefill(
    generation_prompt: str, reasoning_start: str, reasoning_end: str
) -> ReasoningPrefill:
    start = trim_whitespace(reasoning_start)
    end = trim_whitespace(reasoning_end)
    prefix = parser_prefix(generation_prompt, start)
    pos = generation_prompt.rfind(start) if start else -1
    if pos < 0:
        outcome = (
            PrefillOutcome.END_ONLY
            if end and end in generation_prompt
            else PrefillOutcome.NONE
        )
        return ReasoningPrefill(outcome, start, end, None, "", prefix)
    after = generation_prompt[pos + len(start) :]
    if end and end in after:
        outcome = PrefillOutcome.START_AND_END
    elif trim_whitespace(after) == "":
        outcome = PrefillOutcome.START_ONLY
    else:
        outcome = PrefillOutcome.START_NOT_AT_END
    return ReasoningPrefill(outcome, start, end, pos, after, prefix)
