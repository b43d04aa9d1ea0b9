"""The parse-error check: where llama.cpp's parser stopped and what it wanted there.

Input: ``Facts``. Output: one "cause" finding when ``common_chat_parse`` throws (llama-server
then answers HTTP 500), at the furthest failure (``explorer.peg.expectations``), with
what the parser expected there; when llama.cpp's own error points elsewhere (the start of
the alternative that failed, its ``result.end``) a second, info finding places that
offset, so a user can match llama-server's log to the output. ``unconsumed-output``: a
parse that succeeds and drops the rest (and, as a second finding, where the parser got
furthest in the dropped text). Every finding has one place, named with ``Place.where``.
"""

from __future__ import annotations

import json
from typing import Any

from explorer.handlers.registry import find_route, source_of
from explorer.peg.expectations import furthest_attempt, furthest_failure
from explorer.peg.nodes import End
from explorer.triage.facts import Facts
from explorer.triage.model import END_OF_OUTPUT, Finding, Place, quote, shown
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


FOUND_CHARS = 40  # how much of the output a finding shows from its place


def _found_at(f: Facts, at: int) -> str:
    return f.output[at:at + FOUND_CHARS] or END_OF_OUTPUT


def _span_of(at: int, found: str) -> tuple[int, int]:
    return (at, at if found == END_OF_OUTPUT else at + len(found))


def _place_span(place: Place) -> tuple[int, int]:
    return (place.char, place.end)


def _in_output(f: Facts, offset: int) -> int:
    """A character offset into generation prompt + output as one into the output (0 when
    it lies in the generation prompt)."""
    return max(0, min(len(f.output), offset - len(f.gp)))


def _expectation(far: Any) -> str:
    """What the parser wanted at the furthest failure, in which rule; no position (the
    finding's place says where)."""
    if not far.expected:
        return ("The output is too large for the diagnostic pass, so what the parser expected there is not "
                "known.")
    sentence = "The parser expected " + " or ".join(far.expected)
    if far.rules:
        sentence += f" in {far.rules[-1]}" + (f" (inside {' > '.join(far.rules[:-1])})" if len(far.rules) > 1 else "")
    return sentence + "."


def parse_error(f: Facts) -> tuple[Finding, ...]:
    if not (f.failed or f.partial_failed):
        return ()
    if f.partial_failed:
        return _partial_error(f)
    reported = f"llama.cpp reports: {f.error}."
    far = _furthest(f)
    at = _in_output(f, int(far.offset)) if far is not None else f.stop
    found = _found_at(f, at)
    place = f.place(*_span_of(at, found))
    wanted = " or ".join(far.expected) if far is not None else ""
    expected = wanted  # the expectation list as llama.cpp's notation has it: literals quoted
    in_prompt = far is not None and far.offset < len(f.gp)
    near = _near_literal(far.expected, f.output[at:at + 80]) if far is not None and not in_prompt else ""
    same_stop = f.parse.result.end == (far.offset if far is not None else f.parse.result.end)
    detail = _expectation(far) if far is not None else "The parser could not go on from there."
    quirk = _optional_key_quirk(f, far)
    if quirk:
        detail += " " + quirk
    if same_stop:
        detail += " " + reported  # its offset is this place
    where = (f"before the output, in the generation prompt ({quote(f.gp, 20, start=far.offset)})"
             if in_prompt else f"at {place.where()}")
    want = f", expecting {wanted}" if wanted else ""
    cause = Finding(
        check="parse-error", severity="cause",
        summary=f"llama.cpp's parser could not match the output {where}{want}; llama-server answers this "
                "request with an error (HTTP 500) instead of a message." + (f" {near}" if near else ""),
        detail=detail, span=_place_span(place), expected=expected, found=found, place=place,
        fix_hint=f"Look at the output at {quote(f.output, 20, start=at)}: the model must write what the template's "
                 "format has there. The other findings say why, when a check recognised the pattern."
                 + (" llama.cpp side: the optional key's ',' belongs inside the option." if quirk else ""),
        fix_where="llama.cpp" if quirk else "model", quirk=bool(quirk),
        llama_cpp="the JSON call rule (common/chat-peg-parser.cpp)" if quirk else "")
    if same_stop:
        return (cause,)
    return (cause, _reported_stop(f, reported))


def _reported_stop(f: Facts, reported: str) -> Finding:
    """Where llama.cpp's error (and its log) points: the start of the part of the parse that
    failed, which is not where the mismatch is."""
    at = f.stop
    found = _found_at(f, at)
    place = f.place(*_span_of(at, found))
    if f.parse.result.end < len(f.gp):
        where = ("points into the generation prompt: its parse gave up before the output (here: the output's "
                 f"start, {place.where()})")
    elif f.is_partial:  # the "unparsed … output:" warning is printed for a final parse only
        where = f"points at {place.where()}"
    else:
        where = (f"points at {place.where()} (its warning \"unparsed {f.params.format} output:\" prints the "
                 "text from there)")
    return Finding(
        check="parse-error", severity="info",
        summary=f"llama.cpp's error {where}: the start of the part that failed to match, not the mismatch "
                "itself (see parse-error).",
        detail=f"{reported} A failed PEG parse returns where the alternative that failed began; the diagnostic "
               "pass above finds how far that alternative got.",
        span=_place_span(place), found=found, place=place)


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
    reasoning = reasoning_left(f, at + lead, token)
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
    if far is not None and far.offset < f.parse.result.end:
        far = None  # an option not taken before the stop: nothing to say about the dropped text
    at_far = _in_output(f, far.offset) if far is not None else None
    anchored = any(isinstance(p, End) for p in f.arena.parsers)
    quirk = ("" if anchored else " llama.cpp quirk: this parser does not require the end of the output, so when "
             "its tool calls stop matching it succeeds there and returns no error.")
    place = f.place(at + lead, len(f.output))
    same_place = far is not None and at_far == at + lead  # the furthest attempt is where the parse stopped
    expected = " or ".join(_unquoted(e) for e in far.expected) if far is not None and same_place else ""
    out = [Finding(
        check="unconsumed-output", severity="cause",
        summary=f"llama.cpp's parser stopped at {place.where()} without an error and dropped the rest of the "
                f"output ({len(rest.strip())} characters are in neither content nor a tool call).",
        detail=("llama.cpp maps only what its parser consumed." + quirk).strip(),
        span=(at + lead, len(f.output)), expected=expected, found=rest.strip()[:60], place=place,
        fix_hint="Model side: the dropped text must follow the template's format exactly (see what the parser "
                 "expected). The Try it page tints this part as not consumed by the parser."
                 + (" llama.cpp side: the parser drops it without an error." if not anchored else ""),
        quirk=not anchored, llama_cpp="" if anchored else f"the {f.params.handler} parser's root has no end anchor "
        f"({_source(f)}); common_chat_parse maps only the consumed part")]
    if far is not None and at_far is not None and not same_place:
        found = _found_at(f, at_far)
        far_place = f.place(*_span_of(at_far, found))
        out.append(Finding(
            check="unconsumed-output", severity="info",
            summary=f"In the dropped text the parser got furthest at {far_place.where()}, expecting "
                    f"{' or '.join(far.expected[:4])}{' …' if len(far.expected) > 4 else ''}: what it tried "
                    "there did not match, so it stopped before it.",
            detail=_expectation(far) + " A parser that does not require the end of the output succeeds where "
                   "this attempt began; llama.cpp drops the rest.",
            span=_place_span(far_place), expected=" or ".join(_unquoted(e) for e in far.expected), found=found,
            place=far_place, fix_hint="Model side: write what the parser expected here."))
    return tuple(out)



def _source(f: Facts) -> str:
    return source_of(f.params.handler)


def reasoning_left(f: Facts, at: int, rest: str) -> tuple[Finding, ...]:
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
    at = _in_output(f, int(far.offset)) if far is not None else f.stop
    expected = " or ".join(_unquoted(e) for e in far.expected) if far is not None else ""
    found = _found_at(f, at)
    place = f.place(*_span_of(at, found))
    return (Finding(
        check="parse-error", severity="cause",
        summary=f"llama.cpp's parser could not match the output at {place.where()}"
                + (f", expecting {expected}" if expected else "")
                + "; with is_partial llama.cpp returns an empty message instead of an error.",
        detail="llama.cpp quirk: a partial parse that fails after the first character is mapped to keep what was "
               "parsed, but a failed parse result carries no nodes, so the streamed message is empty; the final "
               "parse of the same text (is_partial false) is an error (HTTP 500).",
        span=_place_span(place), expected=expected, found=found, place=place,
        fix_hint=f"Look at the output at {quote(f.output, 20, start=at)}: the model must write what the template's "
                 "format has there."),)
