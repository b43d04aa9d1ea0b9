"""Grammar verdicts for round-trip replies: would llama.cpp's grammar let a model say this?

Input: round-trip cases and the request's ``ChatParams`` (GBNF, laziness, triggers,
generation prompt, thinking tags). Output: the cases with ``grammar`` verdicts for the
rendered reply and for mangled copies (a misspelled function name, broken JSON) that a
grammar for these tools must refuse. A rendered reply that parses back to the same calls
but that the grammar refuses is the case llama.cpp users hit: a grammar rejecting its own
parser's output (``RoundTripCase.grammar_rejects_own_output``).
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

from explorer.apply.pipeline import ChatParams
from explorer.errors import GrammarError
from explorer.grammar.check import check_grammar
from explorer.grammar.triggers import lazy_feed
from explorer.roundtrip.compare import expected_calls
from explorer.roundtrip.gbnf_earley import recognize
from explorer.roundtrip.model import GrammarVerdict, RoundTripCase


def misspell(name: str) -> str:
    """Swap two inner letters: a name no tool has, as long as the name has four letters."""
    if len(name) < 4:
        return name + "_x"
    i = len(name) // 2
    swapped = name[:i] + name[i + 1] + name[i] + name[i + 2:]
    return swapped if swapped != name else name + "_x"


def _own_texts(case: RoundTripCase) -> list[str]:
    return [v for v in (case.message.get("reasoning_content"), case.message.get("content")) if isinstance(v, str) and v]


def mangled(case: RoundTripCase) -> list[tuple[str, str]]:
    """(label, text) pairs a tool grammar must refuse."""
    text, calls = case.raw_output_stripped or "", expected_calls(case.message)
    out: list[tuple[str, str]] = []
    if not calls:
        return out
    name, args = calls[0]
    # the call comes after the message's own texts, which may mention the name
    after = max((text.find(t) + len(t) for t in _own_texts(case) if t in text), default=0)
    if name and name in text[after:]:  # every mention: some formats name a call twice
        out.append(("misspelled function name", text[:after] + text[after:].replace(name, misspell(name))))
    if isinstance(args, dict) and args:
        key = json.dumps(next(iter(args)), ensure_ascii=False)
        at = text.find(key + ":", after)
        if at < 0:
            at = text.find(key, after)
        if at >= 0:  # drop the key's closing quote: no JSON parser reads that
            out.append(("broken JSON", text[: at + len(key) - 1] + text[at + len(key):]))
    return out


def _own_expected(case: RoundTripCase) -> bool | None:
    """The grammar must accept the reply when it parses back to the very message rendered
    (whitespace aside); a reply that does not round-trip sets no expectation."""
    return True if case.equal_trimmed else None


# A special token at the very end of a reply: llama.cpp stops on it as an end-of-generation
# token, so the grammar never has to accept it.
_TRAILING_TOKEN = re.compile(r"<[^<>\s]{1,40}>\s*$")


def _without_stop_token(case: RoundTripCase, text: str, consumed: int) -> str | None:
    """``consumed``: bytes of the text the grammar took, counted from the text's start."""
    if case.strip is None or case.strip.rule != "none":
        return None
    match = _TRAILING_TOKEN.search(text)
    if match is None or consumed < len(text[: match.start()].encode("utf-8")):
        return None
    return text[: match.start()]


def _char_level(params: ChatParams, text: str, thinking: Any) -> bool | None:
    """The character-level recognizer's verdict on what the grammar is fed (None if it cannot run)."""

    if params.grammar_lazy:
        feed = lazy_feed(text, _triggers(params) or [], generation_prompt=params.generation_prompt, thinking=thinking)
        if feed.start is None:
            return True
        fed = feed.text
    else:
        fed = params.generation_prompt + text
    try:
        return recognize(params.grammar, fed).accepted
    except (GrammarError, IndexError, RecursionError):
        return None


def _triggers(params: ChatParams) -> list[dict[str, Any]] | None:
    return [t.to_json() for t in params.grammar_triggers] if params.grammar_lazy else None


def with_grammar_verdicts(cases: list[RoundTripCase], params: ChatParams) -> list[RoundTripCase]:
    if not params.grammar:
        return cases

    jobs: list[tuple[int, str, str, bool | None]] = []
    for i, case in enumerate(cases):
        if case.raw_output_stripped is None:
            continue
        jobs.append((i, "rendered", case.raw_output_stripped, _own_expected(case)))
        jobs += [(i, label, text, False) for label, text in mangled(case)]
    if not jobs:
        return cases
    thinking = ((params.thinking_start_tag, tuple(params.thinking_end_tags))
                if params.thinking_start_tag else None)
    try:
        verdicts = check_grammar(params.grammar, [j[2] for j in jobs], triggers=_triggers(params),
                                 prefill=params.generation_prompt, thinking=thinking)
    except GrammarError as exc:
        bad = GrammarVerdict("grammar error", "", False, None, str(exc))
        return [replace(c, grammar=(bad,)) if c.raw_output_stripped is not None else c for c in cases]
    per_case: dict[int, list[GrammarVerdict]] = {}
    for (i, label, text, expected), v in zip(jobs, verdicts):
        if label != "rendered" and v.constrained_from is None:
            expected = None  # the mangling dodged every trigger: the lazy grammar never applies
        verdict = GrammarVerdict(label, text, v.accepted, expected, v.message)
        shorter = None if v.accepted or label != "rendered" else _without_stop_token(cases[i], text, (v.constrained_from or 0) + v.consumed_bytes)
        if shorter is not None:
            again = check_grammar(params.grammar, [shorter], triggers=_triggers(params),
                                  prefill=params.generation_prompt, thinking=thinking)[0]
            if again.accepted:
                token = text[len(shorter):].strip()
                verdict = GrammarVerdict(label, shorter, True, expected,
                                         f"accepted once the trailing stop token {token!r} is removed "
                                         "(llama.cpp stops on it; the grammar need not take it)")
        if verdict.should_accept is not None and verdict.accepted != verdict.should_accept:
            verdict = replace(verdict, char_level_accepts=_char_level(params, verdict.text, thinking))
        per_case.setdefault(i, []).append(verdict)
    return [replace(c, grammar=tuple(per_case.get(i, ()))) for i, c in enumerate(cases)]
