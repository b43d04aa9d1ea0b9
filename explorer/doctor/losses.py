"""What a round trip lost, and whose doing it is: the round trip's sentences, classified.

Input: round-trip cases (``explorer.roundtrip``): each case's ``explanation`` sentences
(``explorer.roundtrip.explain``), its comparison and its grammar verdicts. Output:
``Loss``es, one per sentence that says something was lost or changed, each with a kind,
what was lost (``content``, ``reasoning_content``, ``tool_calls``, the whole reply), where
the fix belongs (``template``, ``llama.cpp``, ``request``), a severity, and the template
line when one can be named; and ``GrammarNote``s for grammar verdicts that went against
expectation.

The kinds keep apart what needs a different fix, above all the first two:

- ``template-drops``: the template does not render X in a history turn (X is not in the
  rendered turn, or the template refuses the message), so no parser can give it back;
- ``parser-loses``: X is rendered but llama.cpp's parser does not give it back;
- ``thinking-prompt``: the generation prompt opens (or closes) a thinking block that the
  rendered history turn lacks; a model writes past that prompt, so its replies differ from
  the history turn in exactly this way (the template health parses such a reply);
- ``stop-token``: the turn ends with a stop token the server would stop on;
- ``parallel-off``: the template has no parallel calls, so the request's parser keeps one;
- ``whitespace``: only surrounding whitespace differs;
- ``note``: how the reply was rendered or cut (no loss);
- ``by-design``: a loss the template makes on purpose (``explorer.doctor.intent``: it strips
  reasoning from history, writes content only without calls, opens or closes the thinking
  block in the prompt), told with the lines that show it and never "fixed".

Only ``template-drops``, ``parser-loses``, ``parallel-off`` and ``unclassified`` are
losses (``LOSING_KINDS``); the others are how a history turn differs from a model's reply.

A sentence no rule knows is ``unclassified`` (where ``llama.cpp``, a warning), so a new
sentence in the explainer shows up instead of vanishing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Literal

from explorer.roundtrip import RoundTripCase
from explorer.triage.model import Severity

LossKind = Literal["template-drops", "parser-loses", "thinking-prompt", "stop-token", "parallel-off", "whitespace",
                   "note", "unclassified", "by-design"]
LOSS_KINDS: tuple[LossKind, ...] = ("template-drops", "parser-loses", "thinking-prompt", "stop-token",
                                    "parallel-off", "whitespace", "note", "unclassified", "by-design")
Where = Literal["template", "llama.cpp", "request"]
# What a reply's loss is about: a message field, or the whole reply (a refused render, a parse that threw).
Lost = Literal["content", "reasoning_content", "tool_calls", "reply", ""]

# The kinds that lose something a later turn or the client needs (the verdict's "losses").
LOSING_KINDS: frozenset[LossKind] = frozenset({"template-drops", "parser-loses", "parallel-off", "unclassified"})

KIND_WORDS: dict[LossKind, str] = {
    "template-drops": "the template does not render it in history turns",
    "parser-loses": "rendered, but llama.cpp's parser does not give it back",
    "thinking-prompt": "the generation prompt opens or closes a thinking block the history turn lacks",
    "stop-token": "a stop token is left in the turn",
    "parallel-off": "parallel tool calls are off for this template",
    "whitespace": "only surrounding whitespace differs",
    "note": "how the reply was rendered or cut",
    "unclassified": "a difference the doctor has no rule for",
    "by-design": "the template does this on purpose (a design choice, not a defect)",
}


@dataclass(frozen=True)
class Rule:
    pattern: re.Pattern[str]
    kind: LossKind
    where: Where
    lost: Lost


def _field_in(sentence: str) -> Lost:
    """The message field a sentence names (reasoning before content: "reasoning_content")."""
    if "reasoning" in sentence:
        return "reasoning_content"
    if "tool call" in sentence or "call " in sentence:
        return "tool_calls"
    return "content"


def _rule(pattern: str, kind: LossKind, where: Where, lost: Lost) -> Rule:
    return Rule(re.compile(pattern), kind, where, lost)


# In ``explorer.roundtrip.explain``'s wording; first match wins.
RULES: tuple[Rule, ...] = (
    _rule(r"^round-trips exactly$", "note", "template", ""),
    _rule(r"^the template rejected the tool-call ids", "note", "template", "tool_calls"),
    _rule(r"^the rendered turn and the next-turn prompt part ways", "note", "template", "reply"),
    _rule(r"^the template drops reasoning_content", "template-drops", "template", "reasoning_content"),
    _rule(r"^the template drops tool calls", "template-drops", "template", "tool_calls"),
    _rule(r"^the template drops content", "template-drops", "template", "content"),
    _rule(r"^the template refuses to render this message", "template-drops", "template", "reply"),
    _rule(r"^\S+ cannot render this message", "template-drops", "template", "reply"),  # another engine rendered
    _rule(r"^the generation prompt opens a thinking block", "thinking-prompt", "template", "reasoning_content"),
    _rule(r"^the generation prompt closes the thinking block", "thinking-prompt", "request", "reasoning_content"),
    _rule(r"^the turn ends with .*a stop token is left", "stop-token", "llama.cpp", "content"),
    _rule(r"^parallel tool calls are off", "parallel-off", "request", "tool_calls"),
    _rule(r"^equal once surrounding whitespace is trimmed$", "whitespace", "template", ""),
    _rule(r"^content differs only in surrounding whitespace", "whitespace", "template", "content"),
    _rule(r"^the parser rejected the reply", "parser-loses", "llama.cpp", "reply"),
    _rule(r"^the content is parsed as reasoning", "parser-loses", "llama.cpp", "content"),
    _rule(r"^a rendered tool call is left in content", "parser-loses", "llama.cpp", "tool_calls"),
    _rule(r"^text after a tool call is not parsed", "parser-loses", "llama.cpp", "content"),
    _rule(r"^content keeps extra text", "parser-loses", "llama.cpp", "content"),
    _rule(r"^content: ", "parser-loses", "llama.cpp", "content"),
    _rule(r"^the reasoning is rendered but", "parser-loses", "llama.cpp", "reasoning_content"),
    _rule(r"^reasoning_content: ", "parser-loses", "llama.cpp", "reasoning_content"),
    _rule(r"^the parser found \d+ calls where", "parser-loses", "llama.cpp", "tool_calls"),
    _rule(r"^\d+ rendered tool call\(s\) were not parsed as calls", "parser-loses", "llama.cpp", "tool_calls"),
    _rule(r"^call \d+: ", "parser-loses", "llama.cpp", "tool_calls"),
)

SEVERITY: dict[LossKind, Severity] = {
    "template-drops": "warning", "parser-loses": "warning", "parallel-off": "warning", "unclassified": "warning",
    "thinking-prompt": "info", "stop-token": "info", "whitespace": "info", "note": "info", "by-design": "info",
}


def classify(sentence: str) -> tuple[LossKind, Where, Lost]:
    """One explanation sentence's kind, where its fix belongs and what it is about."""
    for rule in RULES:
        if rule.pattern.search(sentence):
            return rule.kind, rule.where, rule.lost
    return "unclassified", "llama.cpp", _field_in(sentence)


@dataclass(frozen=True)
class Loss:
    """One sentence of one message's round trip under one thinking setting."""

    message_id: str
    enable_thinking: bool
    kind: LossKind
    where: Where
    lost: Lost
    sentence: str
    template_line: int | None = None  # where in the template (see ``TemplateLineHook``)

    @property
    def severity(self) -> Severity:
        return SEVERITY[self.kind]

    @property
    def case_id(self) -> str:
        """``"<message id>/<thinking>"``, as ``RoundTripCount.equal_ids`` spells it."""
        return case_id(self.message_id, self.enable_thinking)

    @property
    def losing(self) -> bool:
        return self.kind in LOSING_KINDS

    def to_json(self) -> dict[str, object]:
        return {"message": self.message_id, "enable_thinking": self.enable_thinking, "kind": self.kind,
                "where": self.where, "lost": self.lost, "severity": self.severity, "sentence": self.sentence,
                "template_line": self.template_line}


def case_id(message_id: str, enable_thinking: bool) -> str:
    return f"{message_id}/{str(enable_thinking).lower()}"


# Where in the template a loss comes from. The render provenance that answers it is being
# built (``explorer.analysis.lines``); until it is wired here every loss says None.
TemplateLineHook = Callable[[RoundTripCase, "Loss"], int | None]


def no_template_line(case: RoundTripCase, loss: Loss) -> int | None:
    return None


def case_losses(case: RoundTripCase, enable_thinking: bool,
                line_of: TemplateLineHook = no_template_line) -> tuple[Loss, ...]:
    """Every sentence of the case as a ``Loss`` (a case that round-trips exactly: none).

    Two readings of a sentence depend on the rest of its case. In a case equal once
    whitespace is trimmed nothing is lost, whatever a sentence says (the explainer names
    ``reasoning_content: 'x\\n' instead of 'x'``): those are ``whitespace``. In a case whose
    generation prompt opens or closes the thinking block the history turn lacks, what the
    parser then does with the reply follows from that prompt (the reasoning read as
    content, a call inside what it read as reasoning): those are ``thinking-prompt`` too,
    the sentence kept."""
    classified = [(sentence, *classify(sentence)) for sentence in case.explanation if sentence != "round-trips exactly"]
    prompt_where = next((where for _, kind, where, _ in classified if kind == "thinking-prompt"), None)
    out: list[Loss] = []
    for sentence, kind, where, lost in classified:
        if case.equal_trimmed and kind in LOSING_KINDS:
            kind, where = "whitespace", "template"
        elif prompt_where is not None and kind == "parser-loses":
            kind, where = "thinking-prompt", prompt_where
        loss = Loss(case.message_id, enable_thinking, kind, where, lost, sentence)
        line = line_of(case, loss)
        out.append(loss if line is None else replace(loss, template_line=line))
    return tuple(out)


# --- grammar verdicts ----------------------------------------------------------------------

GrammarKind = Literal["rejects-own-output", "accepts-mangled", "checkers-disagree", "grammar-error"]


@dataclass(frozen=True)
class GrammarNote:
    """A grammar verdict against expectation, for one message under one thinking setting."""

    message_id: str
    enable_thinking: bool
    kind: GrammarKind
    label: str  # "rendered" or the mangling
    message: str

    @property
    def severity(self) -> Severity:
        # A grammar refusing its own parser's output stops a constrained model from writing it.
        return "warning" if self.kind in ("rejects-own-output", "grammar-error") else "info"

    def to_json(self) -> dict[str, object]:
        return {"message": self.message_id, "enable_thinking": self.enable_thinking, "kind": self.kind,
                "label": self.label, "severity": self.severity, "detail": self.message}


def grammar_notes(case: RoundTripCase, enable_thinking: bool) -> Iterable[GrammarNote]:
    for v in case.grammar:
        if v.label == "grammar error":
            yield GrammarNote(case.message_id, enable_thinking, "grammar-error", v.label, v.message)
        elif v.char_level_accepts is not None and v.char_level_accepts != v.accepted:
            yield GrammarNote(case.message_id, enable_thinking, "checkers-disagree", v.label,
                              f"llguidance {'accepts' if v.accepted else 'refuses'} it, a character-level reading "
                              "of the same GBNF does not")
        elif v.as_expected is False and v.should_accept:
            yield GrammarNote(case.message_id, enable_thinking, "rejects-own-output", v.label,
                              v.message or "the grammar refuses a reply its parser gives back")
        elif v.as_expected is False:
            yield GrammarNote(case.message_id, enable_thinking, "accepts-mangled", v.label,
                              f"the grammar accepts the reply with a {v.label}")


__all__ = [
    "KIND_WORDS", "LOSING_KINDS", "LOSS_KINDS", "RULES", "SEVERITY", "GrammarKind", "GrammarNote", "Loss", "LossKind",
    "Lost", "TemplateLineHook", "Where", "case_id", "case_losses", "classify", "grammar_notes", "no_template_line",
]
