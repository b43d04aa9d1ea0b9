"""One diagnosis, one story: findings de-duplicated and never contradicting each other.

Input: every finding of a diagnosis (the template's first, then the checks', causes first)
and the ``Facts`` they were made from. Output: the same findings with

- duplicates dropped: two findings of one check family about one place (the same span;
  for a finding without a span, the same field and summary) say the same thing, and the
  first one (the higher severity: the list is sorted) stays;
- contradictions resolved by the rules below, as data: where a finding of a ``winner``
  check stands (anywhere in the output, or on an overlapping span), a ``loser`` finding
  that says otherwise is dropped; a loser is never a cause, so no cause is ever lost;
- an "all fine" wording (``ALL_FINE_WORDING``: "nothing to fix", "read this output the
  way the template's format describes it") never beside a cause;
- a reasoning tag left unconsumed always explained as reasoning, never as an end-of-turn
  marker with nothing to fix (``checks_parse.reasoning_left`` says it instead).

The tests read the same tables (``tests/triage/test_triage_consistency.py``).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Literal

from explorer.triage.facts import Facts
from explorer.triage.model import SEVERITY_RANK, Finding

Scope = Literal["output", "span"]

# checks of one family say the same thing when they point at the same place
FAMILIES: dict[str, str] = {"newline-rule": "whitespace", "whitespace-rule": "whitespace"}

# checks whose findings say the output holds tool-call markup (an opener, a call's JSON, a
# trigger that fired): beside them "nothing matched the start of a tool call" is false
CALL_SEEN: frozenset[str] = frozenset({
    "call-in-reasoning", "opener-near-miss", "pythonic-call", "handler-format", "unknown-function",
    "call-json-keys", "malformed-arguments", "json-opens-call", "marker-in-prose", "content-after-calls",
    "one-call-only", "call-cut-off", "value-swallowed", "arguments-json", "parameter-order", "newline-rule",
    "whitespace-rule", "grammar-trigger",
})

# checks that explain a reasoning tag as reasoning
REASONING: frozenset[str] = frozenset({
    "reasoning-end-without-start", "reasoning-not-extracted", "reasoning-start-repeated", "reasoning-never-closed",
    "reasoning-format-none", "call-in-reasoning",
})


@dataclass(frozen=True)
class Outranks:
    """Where a finding of a ``winners`` check stands, a ``loser`` finding (of that check,
    and saying ``loser_says`` when given) contradicts it and goes. ``scope``: "output"
    anywhere in the output, "span" only where the two spans overlap (or touch)."""

    winners: frozenset[str]
    loser: str
    scope: Scope
    why: str
    loser_says: str = ""

    def loses(self, finding: Finding) -> bool:
        return finding.check == self.loser and finding.severity != "cause" and \
            self.loser_says.lower() in (finding.summary + " " + finding.detail).lower()


RULES: tuple[Outranks, ...] = (
    Outranks(CALL_SEEN, "tool-mentioned", "output",
             "tool-mentioned says nothing in the output matched the start of a tool call, and these checks found "
             "call markup in it (a call written inside the reasoning, a near miss, a trigger that fired)"),
    Outranks(REASONING, "unconsumed-output", "span",
             "a reasoning tag the parser left is reasoning, never an end-of-turn marker with nothing to fix",
             loser_says="end-of-turn marker"),
    Outranks(REASONING, "unconsumed-output", "span",
             "a reasoning tag the parser left is reasoning, not one of llama-server's stop strings",
             loser_says="stop strings"),
    Outranks(frozenset({"call-in-reasoning"}), "partial-output", "output",
             "a call written inside the reasoning stays reasoning text: it is not a call on its way",
             loser_says="A tool call has started"),
)

# wording that says the output is fine as it is: never beside a cause
ALL_FINE_WORDING: tuple[str, ...] = (
    "nothing to fix",
    "read this output the way the template's format describes it",
    "no check found anything",
)


def says_all_fine(finding: Finding) -> bool:
    text = " ".join((finding.summary, finding.detail, finding.fix_hint)).lower()
    return any(w in text for w in ALL_FINE_WORDING)


def family(check: str) -> str:
    return FAMILIES.get(check, check)


def same_thing(finding: Finding) -> Hashable:
    """What makes two findings say the same thing: the family and the place."""
    if finding.span is not None:
        return (family(finding.check), finding.span)
    return (family(finding.check), finding.field, finding.summary)


def _overlap(a: tuple[int, int] | None, b: tuple[int, int] | None) -> bool:
    if a is None or b is None:
        return False
    return a[0] <= b[1] and b[0] <= a[1]


def contradicted_by(finding: Finding, others: tuple[Finding, ...]) -> tuple[Outranks, Finding] | None:
    """The rule and the finding that outrank ``finding``, or None."""
    for rule in RULES:
        if not rule.loses(finding):
            continue
        for other in others:
            if other is finding or other.check not in rule.winners:
                continue
            if rule.scope == "output" or _overlap(finding.span, other.span):
                return rule, other
    return None


def dedupe(findings: tuple[Finding, ...]) -> tuple[Finding, ...]:
    seen: set[Hashable] = set()
    out: list[Finding] = []
    for f in findings:
        key = same_thing(f)
        if key in seen:
            continue
        seen.add(key)
        out.append(f)
    return tuple(out)


def _reasoning_tags(facts: Facts) -> set[str]:
    from explorer.triage.checks_reasoning import COMMON_ENDS, COMMON_STARTS

    tags = {m.text.strip() for m in facts.reasoning_starts + facts.reasoning_ends if m.text.strip()}
    return tags | set(COMMON_STARTS) | set(COMMON_ENDS)


def _as_reasoning(facts: Facts, finding: Finding) -> Finding | None:
    """An unconsumed-output finding that took a reasoning tag for an end-of-turn marker (or a
    stop string), said again as the reasoning verdict; None when it is not such a finding."""
    if finding.check != "unconsumed-output" or finding.span is None:
        return None
    rest = facts.output[finding.span[0]:]
    if not any(rest.startswith(t) for t in _reasoning_tags(facts)):
        return None
    if "reasoning" in finding.summary:
        return None
    from explorer.triage.checks_parse import reasoning_left

    said = reasoning_left(facts, finding.span[0], rest.strip())
    return said[0] if said else None


def resolve(findings: tuple[Finding, ...], facts: Facts, context: tuple[Finding, ...] = ()) -> tuple[Finding, ...]:
    """The checks' findings of one diagnosis, de-duplicated and free of contradictions,
    causes first (in check order within a severity). ``context``: the findings that come
    before them (the template's): a cause there also rules out an "all fine" wording."""
    fixed = tuple((_as_reasoning(facts, f) or f) for f in findings)
    kept = dedupe(fixed)
    kept = tuple(f for f in kept if contradicted_by(f, kept) is None)
    if any(f.severity == "cause" for f in kept + context):
        kept = tuple(f for f in kept if f.severity == "cause" or not says_all_fine(f))
    return tuple(sorted(kept, key=lambda f: SEVERITY_RANK[f.severity]))
