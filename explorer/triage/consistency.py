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
  marker with nothing to fix (``checks_parse.reasoning_left`` says it instead);
- one fact, one ``fix_where`` (``explorer.triage.blame``);
- with llama.cpp's reading of the template broken (a template cause), every finding on the
  output deferring to it (``defer_to_template``): its fix belongs where the template's
  does, and no model-side or request-side advice is left that the broken reading makes
  useless;
- every "(see X)" reference resolved against the diagnosis (``references``): one to a
  check with no finding in it is taken out, the others listed in ``Finding.see``.

The tests read the same tables (``tests/triage/test_triage_consistency.py``).
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from dataclasses import dataclass, replace
from typing import Literal

from explorer.apply import Request, with_thinking
from explorer.triage import blame
from explorer.triage.facts import Facts
from explorer.triage.model import SEE, SEVERITY_RANK, Finding

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


def _place_facts(findings: tuple[Finding, ...]) -> tuple[Finding, ...]:
    """Causes at the place of a cause that states a place fact (``blame.PLACE_FACTS``) state it too."""
    stated = [(blame.PLACE_FACTS[f.check], f.span) for f in findings
              if f.check in blame.PLACE_FACTS and f.severity == "cause" and f.span is not None]
    if not stated:
        return findings
    out: list[Finding] = []
    for f in findings:
        fact = next((fact for fact, span in stated if f.severity == "cause" and not f.fact and _overlap(f.span, span)),
                    "")
        out.append(replace(f, fact=fact) if fact else f)
    return tuple(out)


def resolve(findings: tuple[Finding, ...], facts: Facts, context: tuple[Finding, ...] = ()) -> tuple[Finding, ...]:
    """The checks' findings of one diagnosis, de-duplicated and free of contradictions,
    causes first (in check order within a severity). ``context``: the findings that come
    before them (the template's): a cause there also rules out an "all fine" wording."""
    fixed = tuple(blame.with_fact_fix_where(f) for f in _place_facts(tuple(_as_reasoning(facts, f) or f
                                                                           for f in findings)))
    kept = dedupe(fixed)
    kept = tuple(f for f in kept if contradicted_by(f, kept) is None)
    if any(f.severity == "cause" for f in kept + context):
        kept = tuple(f for f in kept if f.severity == "cause" or not says_all_fine(f))
    return tuple(sorted(kept, key=lambda f: SEVERITY_RANK[f.severity]))


# --- the template's reading is broken: the output's findings defer to it -------------------


def _template_cause(template: tuple[Finding, ...]) -> Finding | None:
    return next((t for t in template if t.severity == "cause"), None)


DEFERS = "llama.cpp's reading of this template is broken"


def defer_to_template(findings: tuple[Finding, ...], template: tuple[Finding, ...],
                      facts: Facts) -> tuple[Finding, ...]:
    """With a template cause (the template's own reply of some kind fails), each cause and
    warning on the output defers to it: its fix belongs where the template's does, its
    advice is the template's (a model writing the template's format, or a request change,
    cannot make the misread parser read it), and a suggestion stays only when it is a
    request change verified on the template's own call too."""
    del facts
    lead = _template_cause(template)
    if lead is None:
        return findings
    out: list[Finding] = []
    for f in findings:
        if f.severity == "info" or f.check in blame.FACT_OF_CHECK or blame.fact_of(f):
            out.append(f)  # a note, a template finding, or a fact of its own (an output cut off by max_tokens)
            continue
        keep = f.suggestion if (f.suggestion is not None and f.suggestion.kind == "request"
                                and "template's own call" in f.suggestion.verified) else None
        out.append(replace(
            f, fix_where=blame.fix_where_of(lead), quirk=f.quirk or lead.quirk,
            fix_hint=(f"First the template: {DEFERS} (see {lead.check}), and the template's own reply fails "
                      "the same way, so nothing the model or the request changes here makes it parse; the fix "
                      f"belongs to {blame.fix_where_of(lead)}."),
            summary=f"{f.summary} This follows from the broken reading of the template (see {lead.check}).",
            suggestion=keep))
    return tuple(out)


# --- "(see X)" references --------------------------------------------------------------------


def _unreferenced(text: str, missing: set[str]) -> str:
    return SEE.sub(lambda m: "" if m.group(1) in missing else m.group(0), text)


def references(findings: tuple[Finding, ...]) -> tuple[Finding, ...]:
    """Each finding's "(see X)" references: those to a check with a finding in the diagnosis
    listed in ``see``; any other taken out of the text (it would point at nothing)."""
    present = {f.check for f in findings}
    out: list[Finding] = []
    for f in findings:
        named = [m.group(1) for text in (f.summary, f.detail, f.fix_hint) for m in SEE.finditer(text)]
        missing = {c for c in named if c not in present}
        see = tuple(dict.fromkeys(c for c in named if c in present))
        if missing:
            f = replace(f, summary=_unreferenced(f.summary, missing), detail=_unreferenced(f.detail, missing),
                        fix_hint=_unreferenced(f.fix_hint, missing))
        out.append(f if f.see == see else replace(f, see=see))
    return tuple(out)


# --- request advice: only what a suggestion verified -------------------------------------------

# a request change named in a fix hint
REQUEST_ADVICE = re.compile(r'tool_choice \\?"(?:auto|required|none)\\?"|enable_thinking (?:true|false)|'
                            r'parallel_tool_calls (?:true|false)|reasoning_format \\?"?(?:deepseek|none|auto)')
_SENTENCES = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


_ADVISES = re.compile(r"^Request side\b|\b(?:send|use|set|try|sending|using)\b")  # a sentence that advises


def _covered(advice: str, finding: Finding) -> bool:
    s = finding.suggestion
    change = s.request_change if s is not None and s.kind == "request" and s.verified else ""
    return bool(change) and advice.replace('"', "") in change.replace('"', "")


def _changed(request: Request, advice: str) -> Request | None:
    """The request with the change a piece of advice names."""
    words = advice.replace('\\"', '"').replace('"', "").split()
    if len(words) != 2:
        return None
    key, value = words
    if key == "tool_choice":
        return replace(request, tool_choice=value)
    if key == "parallel_tool_calls":
        return replace(request, parallel_tool_calls=value == "true")
    if key == "reasoning_format":
        return replace(request, reasoning_format=value)
    if key == "enable_thinking":
        return with_thinking(request, value == "true")
    return None


def template_advice(findings: tuple[Finding, ...], facts: Facts) -> tuple[Finding, ...]:
    """A template finding's request advice re-run: the changed request must read this output
    (its calls, or its content) and the template's own call; verified, it is the finding's
    suggestion, else ``verified_advice`` takes the sentence out."""
    from explorer.triage import suggest as sg

    out: list[Finding] = []
    for f in findings:
        advice = [m.group(0) for sentence in sentences(f.fix_hint) if advises(sentence)
                  for m in REQUEST_ADVICE.finditer(sentence)]
        changed = _changed(facts.request, advice[0]) if len(advice) == 1 and f.suggestion is None else None
        if changed is None:
            out.append(f)
            continue
        intended = sg.calls_in_output(facts)
        made = sg.changed_request(facts, changed, advice[0].replace('\\"', '"'), f"send {advice[0]}", intended,
                                  content=None if intended else facts.output)
        out.append(replace(f, suggestion=made) if made is not None and made.verified else f)
    return tuple(out)


def verified_advice(findings: tuple[Finding, ...]) -> tuple[Finding, ...]:
    """Each fix hint without the sentences that advise a request change no verified
    suggestion of the finding re-ran (the change would not give the intended message, or
    was never tried): advice that was not checked is not given. A template finding whose
    only fix was that request change then has its fix where the template's reading is:
    llama.cpp's."""
    out: list[Finding] = []
    for f in findings:
        if not REQUEST_ADVICE.search(f.fix_hint):
            out.append(f)
            continue
        parts = _SENTENCES.split(f.fix_hint)
        kept = [sentence for sentence in parts
                if not _ADVISES.search(sentence)
                or all(_covered(m.group(0), f) for m in REQUEST_ADVICE.finditer(sentence))]
        where = f.fix_where
        if len(kept) < len(parts) and f.fix_where == "request" and f.check.startswith("template-") and \
                not (f.suggestion is not None and f.suggestion.verified):
            where = "llama.cpp"
        out.append(replace(f, fix_hint=" ".join(kept), fix_where=where))
    return tuple(out)


def sentences(text: str) -> list[str]:
    return _SENTENCES.split(text)


def advises(sentence: str) -> bool:
    """Whether a fix hint's sentence advises something (rather than stating what a setting does)."""
    return bool(_ADVISES.search(sentence))
