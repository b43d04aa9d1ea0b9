"""The parse-error check: where llama.cpp's parser stopped and what it wanted there.

Input: ``Facts``. Output: one "cause" finding when ``common_chat_parse`` throws (llama-server
then answers HTTP 500). The expected alternatives come from
``explorer.peg.expectations.furthest_failure``; when that pass fails the finding still
says where llama.cpp reported the mismatch.
"""

from __future__ import annotations

import json
from typing import Any

from explorer.handlers.registry import find_route
from explorer.peg.expectations import furthest_attempt, furthest_failure
from explorer.peg.nodes import End
from explorer.triage.facts import Facts
from explorer.triage.model import Finding, shown
from explorer.triage.textscan import TAG, describe_difference, near_misses


def _furthest(f: Facts) -> Any:
    try:
        return furthest_failure(f.arena, f.gp + f.output)
    except Exception:  # noqa: BLE001 - an explanation must never break the parse it explains
        return None


def _unquoted(item: str) -> str:
    """A quoted literal from the expectation list as its raw text; other items as they are."""
    if len(item) >= 2 and item[0] == '"' and item[-1] == '"':
        try:
            value = json.loads(item)
        except ValueError:
            return item
        if isinstance(value, str):
            return value
    return item


def _near_literal(expected: tuple[str, ...], found: str) -> str:
    """When the parser wanted one literal and the output has it with other whitespace or
    case right there, say which bytes differ."""
    literals = [_unquoted(e) for e in expected if e.startswith('"')]
    for lit in literals:
        if not lit.strip():
            continue
        lead = len(found) - len(found.lstrip())
        if lead and found[lead:].startswith(lit) and not lit[:1].isspace():
            return (f"The output has {shown(found[:lead])} before {shown(lit)}, where the parser allows no "
                    "whitespace.")
        for miss in near_misses(found, lit):
            if found[:miss.start].strip() == "":
                return (f"The output has {shown(miss.text)} where the parser needs {shown(lit)}: "
                        f"{describe_difference(lit, miss.text)}.")
    return ""


def _optional_key_quirk(f: Facts, far: Any) -> str:
    """llama.cpp quirk: a JSON call's optional trailing key (the call id) keeps its ',' outside
    the option, so a call written without that key fails at its closing brace."""
    if far is None or tuple(far.expected) != ('","',) or not far.found.startswith("}"):
        return ""
    optional = [k.name for k in f.call_keys if k.optional]
    if not f.call_keys or not f.call_keys[-1].optional:
        return ""
    return (f"llama.cpp quirk: the parser's call rule puts the ',' before the optional {shown(optional[-1])} key "
            f"outside the option, so a call that leaves {shown(optional[-1])} out fails at its closing brace "
            "(the model must add it).")


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def parse_error(f: Facts) -> tuple[Finding, ...]:
    if not (f.failed or f.partial_failed):
        return ()
    if f.partial_failed:
        return _partial_error(f)
    reported = f"llama.cpp reports: {f.error}."
    far = _furthest(f)
    if far is not None:
        at = max(0, min(len(f.output), int(far.offset) - len(f.gp)))
        expected = " or ".join(_unquoted(e) for e in far.expected)
        wanted = " or ".join(far.expected)
        found = far.found if far.found else f.output[at:at + 20]
        rules = f" (open rules: {' > '.join(far.rules)})" if getattr(far, "rules", ()) else ""
        describe = far.describe().rstrip(".") if hasattr(far, "describe") else ""
        detail = (f"In generation prompt + output, {describe}{rules}. " if describe else "") + reported
    else:
        at = f.stop
        expected = wanted = ""
        found = f.output[at:at + 20]
        detail = (f"{reported} The offset counts bytes of generation prompt + output; the parser could not go on "
                  "from there.")
    near = _near_literal(far.expected if far is not None else (), f.output[at:at + 80]) if far is not None else ""
    quirk = _optional_key_quirk(f, far)
    if quirk:
        detail += " " + quirk
    line, col = _line_col(f.output, at)
    want = f", expecting {wanted}" if wanted else ""
    return (Finding(
        check="parse-error", severity="cause",
        summary=f"llama.cpp's parser could not match the output at character {at} (line {line}, column {col}){want}; "
                f"llama-server answers this request with an error (HTTP 500) instead of a message."
                + (f" {near}" if near else ""),
        detail=detail, span=(at, min(len(f.output), at + max(1, len(found)))) if f.output else None,
        expected=expected, found=found or "(end of output)",
        fix_hint=f"Look at the output at {shown(f.output[at:at + 20])}: the model must write what the template's "
                 "format has there. The other findings say why, when a check recognised the pattern."
                 + (" llama.cpp side: the optional key's ',' belongs inside the option." if quirk else ""),
        fix_where="llama.cpp" if quirk else "model", quirk=bool(quirk),
        llama_cpp="the JSON call rule (common/chat-peg-parser.cpp)" if quirk else ""),)


def _record_at(f: Facts) -> Any:
    """Where the parse got furthest even though it succeeded (``furthest_attempt``), or None."""
    try:
        return furthest_attempt(f.arena, f.gp + f.output)
    except Exception:  # noqa: BLE001 - an explanation must never break the parse it explains
        return None


def unconsumed_output(f: Facts) -> tuple[Finding, ...]:
    """llama.cpp quirk: a parser whose root does not require the end of the text succeeds
    where its tool calls stop matching, and the rest of the output is silently dropped."""
    if f.failed or f.parse.result.end >= len(f.parse.input):
        return ()
    at = f.stop
    rest = f.output[at:]
    if not rest.strip() or f.kept(rest.strip()):
        return ()
    lead = len(rest) - len(rest.lstrip())
    stop = next((s for s in f.params.additional_stops if s and rest.lstrip().startswith(s)), None)
    if stop is not None:
        return (Finding(
            check="unconsumed-output", severity="info",
            summary=f"The parser stops at {shown(stop)}, one of llama-server's stop strings for this template: "
                    "a real server ends generation there, so the text after it never reaches the parser.",
            detail="The chat params list additional stops; llama-server cuts the output at them before parsing.",
            span=(at + lead, len(f.output)), expected="the end of the output", found=rest.strip()[:60],
            fix_hint="Nothing to fix when the output came from llama-server; a raw output from elsewhere should "
                     "be cut at the stop first."),)
    token = rest.strip()
    call_markup = {m.text.strip() for m in f.openers + f.name_prefixes}
    route = find_route(f.params.handler)
    if route is not None and token in route.not_end_of_generation:
        return ()  # handler-format explains it: generation goes on after this token
    reasoning = _reasoning_left(f, at + lead, token)
    if reasoning:
        return reasoning
    if (TAG.fullmatch(token) or token in f.params.preserved_tokens) and token not in call_markup:
        return (Finding(
            check="unconsumed-output", severity="info",
            summary=f"The parser stops before {shown(token)}, a special token at the very end (an end-of-turn "
                    "marker, by its look): llama-server normally stops generating there, so it never reaches "
                    "the parser.",
            detail="llama.cpp maps only what its parser consumed; this parser does not read the end-of-turn "
                   "token, and the model's stop tokens end the reply before it.",
            span=(at + lead, len(f.output)), expected="the end of the output", found=token,
            fix_hint="Nothing to fix when the output came from llama-server; cut a raw output at the "
                     "end-of-turn token first."),)
    far = _record_at(f)
    expected = where = gave_up = ""
    if far is not None and far.offset >= f.parse.result.end:
        expected = " or ".join(_unquoted(e) for e in far.expected)
        at_far = max(0, far.offset - len(f.gp))
        where = f" In generation prompt + output, {far.describe()}."
        gave_up = (f" The parse got furthest at character {at_far}, expecting "
                   f"{' or '.join(far.expected[:4])}{' …' if len(far.expected) > 4 else ''}, found "
                   f"{shown(f.output[at_far:at_far + 12])}.")
    anchored = any(isinstance(p, End) for p in f.arena.parsers)
    quirk = ("" if anchored else " llama.cpp quirk: this parser does not require the end of the output, so when "
             "its tool calls stop matching it succeeds there and returns no error.")
    return (Finding(
        check="unconsumed-output", severity="cause",
        summary=f"llama.cpp's parser stopped at output character {at + lead} without an error and dropped the "
                f"rest of the output ({len(rest.strip())} characters are in neither content nor a tool call)."
                + gave_up,
        detail=("llama.cpp maps only what its parser consumed." + where + quirk).strip(),
        span=(at + lead, len(f.output)), expected=expected, found=rest.strip()[:60],
        fix_hint="Model side: the dropped text must follow the template's format exactly (see what the parser "
                 "expected). The Try it page tints this part as not consumed by the parser."
                 + (" llama.cpp side: the parser drops it without an error." if not anchored else ""),
        quirk=not anchored, llama_cpp="" if anchored else f"the {f.params.handler} parser's root has no end anchor "
        f"({_source(f)}); common_chat_parse maps only the consumed part"),)


def _source(f: Facts) -> str:
    from explorer.handlers.registry import HANDLERS

    handler = HANDLERS.get(f.params.handler)
    return getattr(handler, "reference", "") or "common/chat-auto-parser-generator.cpp"


def _reasoning_left(f: Facts, at: int, rest: str) -> tuple[Finding, ...]:
    """The unread rest starts with a reasoning tag: reasoning after the calls (or a second
    reasoning block), which this parser has no place for; never an end-of-turn marker."""
    from explorer.triage.checks_reasoning import COMMON_ENDS, COMMON_STARTS

    tags = [m.text.strip() for m in f.reasoning_starts + f.reasoning_ends if m.text.strip()]
    tags += [t for t in COMMON_STARTS + COMMON_ENDS if t not in tags]
    tag = next((t for t in sorted(tags, key=len, reverse=True) if rest.startswith(t)), None)
    if tag is None:
        return ()
    more = rest[len(tag):].strip()
    anchored = any(isinstance(p, End) for p in f.arena.parsers)
    source = _source(f)
    after = "after the tool calls" if f.calls else "after the reply"
    opens = tag in COMMON_STARTS or any(tag == m.text.strip() for m in f.reasoning_starts)
    reads = ("this parser reads reasoning only at the start of the reply" if f.reasoning_starts or f.reasoning_ends
             else "this parser has no reasoning rule at all (the template declares no thinking tags)")
    dropped = (f"the tag and the {len(more)} characters after it" if more else "the tag")
    return (Finding(
        check="unconsumed-output", severity="cause" if more else "warning",
        summary=f"The output {'opens reasoning again' if opens else 'closes reasoning'} with {shown(tag)} {after}; "
                f"{reads}, so llama.cpp stops before the tag and "
                f"drops {dropped}: {'they are' if more else 'it is'} in neither reasoning_content nor content.",
        detail="llama.cpp's parser for this request reads one reasoning block, before the content and the calls; "
               f"a reasoning tag {after} matches nothing, and llama.cpp maps only what its parser consumed."
               + ("" if anchored else " llama.cpp quirk: the parser does not require the end of the output, so it "
                  "succeeds before the tag and returns no error."),
        span=(at, len(f.output)), expected="the end of the output", found=rest[:60],
        fix_hint="Model side: reason before the calls and end the turn after them (interleaved thinking after a "
                 "call is not part of this format). llama.cpp side: the parser has no rule for reasoning after the "
                 "calls and drops it without an error.",
        fix_where="model", quirk=not anchored, llama_cpp="" if anchored else f"{f.params.handler} ({source})"),)


def _partial_error(f: Facts) -> tuple[Finding, ...]:
    """llama.cpp quirk: a partial parse that fails past the first character is mapped "to keep
    what was parsed", but a failed result has no nodes: the message comes back empty."""
    far = _furthest(f)
    at = max(0, min(len(f.output), int(far.offset) - len(f.gp))) if far is not None else f.stop
    expected = " or ".join(_unquoted(e) for e in far.expected) if far is not None else ""
    line, col = _line_col(f.output, at)
    return (Finding(
        check="parse-error", severity="cause",
        summary=f"llama.cpp's parser could not match the output at character {at} (line {line}, column {col})"
                + (f", expecting {expected}" if expected else "")
                + "; with is_partial llama.cpp returns an empty message instead of an error.",
        detail="llama.cpp quirk: a partial parse that fails after the first character is mapped to keep what was "
               "parsed, but a failed parse result carries no nodes, so the streamed message is empty; the final "
               "parse of the same text (is_partial false) is an error (HTTP 500).",
        span=(at, min(len(f.output), at + 20)) if f.output else None, expected=expected,
        found=f.output[at:at + 20] or "(end of output)",
        fix_hint=f"Look at the output at {shown(f.output[at:at + 20])}: the model must write what the template's "
                 "format has there."),)
