"""Rule-stating checks: where the parser's expectation comes from a rule, say the rule.

Input: ``Facts`` of a parse that failed, or that stopped early and dropped the rest
(``common_chat_parse`` succeeding before the end on a parser without an end anchor).
Output: findings that state the rule in one sentence (``rule``), show the expected
sequence beside the model's (``expected``/``found``), say where the fix belongs, and carry
a suggestion only after it was re-parsed to the intended message (``explorer.triage.suggest``):

- ``parameter-order``: llama.cpp's tagged-argument parsers read a call's required
  parameters first (in the schema's order, or in any order where the parser permutes
  them), then the optional ones; an optional one first ends the call (llama.cpp quirk);
- ``newline-rule`` / ``whitespace-rule``: the call markup the parser stopped at differs
  from the output only in whitespace (a newline the markup needs is missing; whitespace
  the parser does not skip there, or other whitespace, is written);
- ``one-call-only``: parallel_tool_calls false and a second call after the first;
- ``marker-in-prose``: the call opener written inside prose: content ends at the first
  opener and the rest must be a call (llama.cpp quirk).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from explorer.generator.chat_builder import function_tools, tool_properties
from explorer.handlers.registry import find_route, source_of
from explorer.peg.expectations import FurthestFailure, furthest_attempt, furthest_failure
from explorer.triage import suggest as sg
from explorer.triage.calls import FunctionFormat, WrittenCall, call_formats, tagged, written_calls
from explorer.triage.checks_success import parser_name
from explorer.triage.facts import Facts
from explorer.triage.model import Finding, Suggestion, shown

MAX_ROUNDS = 8  # whitespace repairs tried on one output, one re-parse each


@dataclass(frozen=True)
class Stop:
    """Where llama.cpp's parse stopped matching, in output coordinates."""

    at: int
    expected: tuple[str, ...]  # the expectation list (quoted literals and rule notation)
    rules: tuple[str, ...]
    dropped: bool  # the parse succeeded there and the rest was dropped (no error)


def _far(f: Facts, text: str, failed: bool) -> FurthestFailure | None:
    try:
        return (furthest_failure if failed else furthest_attempt)(f.arena, f.gp + text)
    except Exception:  # noqa: BLE001 - an explanation must never break the parse it explains
        return None


_STOPS: dict[int, tuple[object, Stop | None]] = {}


def stop_of(f: Facts) -> Stop | None:
    """The furthest point of a failed parse, or of one that dropped the rest of the output."""
    held = _STOPS.get(id(f.parse))
    if held is not None and held[0] is f.parse:
        return held[1]
    stop = _stop(f, f.output, f.parse.error is not None, f.parse.result.end)
    if len(_STOPS) > 32:
        _STOPS.clear()
    _STOPS[id(f.parse)] = (f.parse, stop)
    return stop


def _stop(f: Facts, text: str, failed: bool, end: int) -> Stop | None:
    if f.is_partial:
        return None
    if not failed and end >= len(f.gp) + len(text):
        return None
    far = _far(f, text, failed)
    if far is None or (not failed and far.offset < end):
        return Stop(max(0, end - len(f.gp)), (), (), not failed) if not failed else None
    return Stop(max(0, far.offset - len(f.gp)), tuple(far.expected), tuple(far.rules), not failed)


def _literal(item: str) -> str | None:
    """A quoted literal of the expectation list as its text; None for anything else."""
    if len(item) >= 2 and item[0] == '"' and item[-1] == '"':
        try:
            value = json.loads(item)
        except ValueError:
            return None
        return value if isinstance(value, str) else None
    return None


def _outcome(stop: Stop, f: Facts) -> str:
    """What llama.cpp does about the mismatch at ``stop``. A dropped parse stops where the
    part that failed began (``f.stop``), which may lie before this place: then "stops
    there" would contradict unconsumed-output's place, so the words say "before it"."""
    if not stop.dropped:
        return "llama.cpp rejects the output (HTTP 500)"
    if f.stop < stop.at:
        return ("that part of the output does not match, so llama.cpp stops without an error where it begins "
                "(before this place) and drops the rest of the output")
    return "llama.cpp stops there without an error and drops the rest of the output"


def _source(f: Facts) -> str:
    return source_of(f.params.handler)


def _intended(f: Facts, text: str) -> tuple[sg.IntendedCall, ...]:
    formats = call_formats(f.arena)
    if tagged(formats):
        return sg.from_written(written_calls(formats, text))
    return sg.from_json([o for o in f.call_like_objects if o.end <= len(text)])


# --- parameter-order ---------------------------------------------------------------------------


def _schema(f: Facts, name: str) -> tuple[list[str], set[str]] | None:
    """(every parameter in schema order, the required ones) of the request's tool."""
    for tool in function_tools(f.request.tools):
        fn = tool["function"]
        if isinstance(fn, dict) and fn.get("name") == name:
            _doc, props = tool_properties(fn)
            return [p.name for p in props], {p.name for p in props if p.required}
    return None


def _wanted_order(written: list[str], schema: list[str], required: set[str], permuted: bool) -> list[str]:
    req = [n for n in written if n in required]
    if not permuted:
        req = [n for n in schema if n in req]
    return req + [n for n in written if n not in required]


def _reordered(text: str, call: WrittenCall, order: list[str]) -> str:
    """The call with its argument blocks in ``order``; each slot keeps its whitespace."""
    blocks = {a.name: text[a.start:a.end] for a in call.args}
    slots = [text[a.start:a.end] for a in call.args]
    cores = [blocks[n].rstrip() for n in order]
    body = "".join(core + slot[len(slot.rstrip()):] for core, slot in zip(cores, slots))
    return text[:call.args[0].start] + body + text[call.args[-1].end:]


def _argument_order(f: Facts) -> str | None:
    """Where the route's parser reads tagged arguments required-first (its declaration)."""
    route = find_route(f.params.handler)
    return route.argument_order if route is not None else None


def parameter_order(f: Facts) -> tuple[Finding, ...]:
    ordered_by = _argument_order(f)
    if ordered_by is None or f.tool_parser_reason is not None:
        return ()
    stop = stop_of(f)
    formats = call_formats(f.arena)
    if stop is None or not tagged(formats):
        return ()
    calls = written_calls(formats, f.output)
    call = next((c for c in calls if c.start <= stop.at <= c.end and c.args), None)
    schema = _schema(f, call.name) if call is not None else None
    if call is None or schema is None or len({a.name for a in call.args}) != len(call.args):
        return ()
    order = [a.name for a in call.args]
    fmt = formats[call.name]
    wanted = _wanted_order(order, schema[0], schema[1], fmt.permuted)
    if wanted == order:
        return ()
    first = next(i for i, (a, b) in enumerate(zip(order, wanted)) if a != b)
    missing = [n for n in schema[0] if n in schema[1] and n not in order]
    arg = call.args[first]
    opener = fmt.arg_prefixes[arg.name].strip()
    if not f.output.startswith(opener, arg.start):
        opener = fmt.arg_openers[arg.name].strip()
    return (Finding(
        check="parameter-order", severity="cause",
        summary=f"The call to {shown(call.name)} writes {shown(arg.name)} where llama.cpp's parser expects "
                f"{shown(wanted[first])}: it reads the required parameters first, then the optional ones, so the "
                f"call ends at {shown(opener)} and {_outcome(stop, f)}.",
        detail=f"Written order: {', '.join(order)}; the order the parser accepts: {', '.join(wanted)} (required: "
               f"{', '.join(n for n in schema[0] if n in schema[1]) or 'none'}). A JSON object has no key order and "
               "the template renders the arguments in the order the call has them, but the parser does not."
               + (f" The call also lacks the required {', '.join(missing)}, which the parser needs as well."
                  if missing else ""),
        # the one place: the opener written where the parser wanted another (the two orders are in the detail)
        span=(arg.start, arg.start + len(opener)), expected=_opener_of(fmt, wanted[first]),
        found=f.output[arg.start:arg.start + len(opener)],
        rule=_order_rule(f, fmt, schema),
        fix_hint="Model side: write the required parameters first (a system prompt can ask for it). llama.cpp side: "
                 "its parser imposes an argument order the tool schema does not have.",
        fix_where="llama.cpp", quirk=True, llama_cpp=ordered_by or f"{f.params.handler} ({_source(f)})",
        suggestion=_order_suggestion(f, formats, calls, schema_of=lambda n: _schema(f, n))),)


def _opener_of(fmt: FunctionFormat, name: str) -> str:
    return (fmt.arg_prefixes.get(name) or fmt.arg_openers.get(name) or name).strip()


def _order_rule(f: Facts, fmt: FunctionFormat, schema: tuple[list[str], set[str]]) -> str:
    who = parser_name(f)
    req = [n for n in schema[0] if n in schema[1]]
    if fmt.permuted:
        return (f"{who} reads a call's required parameters ({', '.join(req)}) first, in any order, then the "
                "optional ones in any order; an optional parameter before a required one ends the call.")
    return (f"{who} reads a call's required parameters first, in the tool schema's order ({', '.join(req)}), then "
            "the optional ones in any order; a parameter out of that order ends the call.")


def _order_suggestion(f: Facts, formats: dict[str, FunctionFormat], calls: tuple[WrittenCall, ...],
                      schema_of: Callable[[str], tuple[list[str], set[str]] | None]) -> Suggestion | None:
    text = f.output
    for call in reversed(calls):  # from the end, so earlier positions stay valid
        schema = schema_of(call.name)
        if schema is None or not call.args:
            continue
        order = [a.name for a in call.args]
        wanted = _wanted_order(order, schema[0], schema[1], formats[call.name].permuted)
        if wanted != order:
            text = _reordered(text, call, wanted)
    return sg.corrected_output(f, text, "write the required parameters first", sg.from_written(calls))


# --- newline-rule / whitespace-rule -----------------------------------------------------------


def _align(literal: str, found: str) -> tuple[str, int, list[str]] | None:
    """How ``found`` differs from ``literal`` in whitespace only: (the literal, how many
    characters of ``found`` it replaces, the edits in words); None for any other difference."""
    i = j = 0
    edits: list[str] = []
    while i < len(literal):
        a = literal[i]
        b = found[j] if j < len(found) else ""
        if a == b:
            i, j = i + 1, j + 1
        elif a.isspace() and b.isspace() and b:
            edits.append(f"{shown(b)} instead of {shown(a)}")
            i, j = i + 1, j + 1
        elif a.isspace():
            edits.append(f"missing {shown(a)}")
            i += 1
        elif b.isspace() and b:
            edits.append(f"extra {shown(b)}")
            j += 1
        else:
            return None
    return (literal, j, edits) if edits and literal.strip() else None


def _whitespace_fix(f: Facts, text: str, stop: Stop) -> tuple[str, str, str, list[str]] | None:
    """(corrected text, the literal, what was written, the edits) at ``stop``."""
    if not any("tool" in r for r in stop.rules):
        return None  # inside the call markup only; the opener near misses say the rest
    for item in stop.expected:
        lit = _literal(item)
        if not lit:
            continue
        window = text[stop.at:stop.at + len(lit) + 8]
        aligned = _align(lit, window)
        if aligned is None:
            continue
        _lit, used, edits = aligned
        return text[:stop.at] + lit + text[stop.at + used:], lit, text[stop.at:stop.at + used], edits
    return None


def whitespace_rules(f: Facts) -> tuple[Finding, ...]:
    if f.tool_parser_reason is not None:
        return ()
    stop = stop_of(f)
    if stop is None:
        return ()
    fix = _whitespace_fix(f, f.output, stop)
    if fix is None:
        return ()
    corrected, lit, written, edits = fix
    newline = any(e.startswith("missing") and "\\n" in e for e in edits)
    check = "newline-rule" if newline else "whitespace-rule"
    who = parser_name(f)
    rule = (f"{who} matches {shown(lit)} byte for byte, its newline included: the format puts a newline there and "
            "the parser does not accept the markup without it." if newline else
            f"{who} matches {shown(lit)} byte for byte here and skips no whitespace around it: only the whitespace "
            "the format itself writes is accepted at this point.")
    return (Finding(
        check=check, severity="cause",
        summary=f"At {f.place(stop.at, stop.at + max(1, len(written))).where()} the parser needs {shown(lit)} and "
                f"the model wrote {shown(written)} "
                f"({'; '.join(edits)}), so {_outcome(stop, f)}.",
        detail=f"Open rules there: {' > '.join(stop.rules[-4:])}." if stop.rules else "",
        span=(stop.at, stop.at + max(1, len(written))), expected=lit, found=written, rule=rule,
        fix_hint=f"Model side: write {shown(lit)} exactly as the template renders it.", fix_where="model",
        suggestion=_whitespace_suggestion(f, corrected, stop)),)


def _whitespace_suggestion(f: Facts, text: str, first: Stop) -> Suggestion | None:
    del first
    for _ in range(MAX_ROUNDS):
        parse = sg.parse_with(f.params, text)
        stop = _stop(f, text, parse.error is not None, parse.result.end)
        if stop is None:
            break
        fix = _whitespace_fix(f, text, stop)
        if fix is None:
            return None
        text = fix[0]
    return sg.corrected_output(f, text, "write the call markup's whitespace as the template does",
                               _intended(f, f.output))


# --- one-call-only ------------------------------------------------------------------------------


def one_call_only(f: Facts) -> tuple[Finding, ...]:
    if f.request.parallel_tool_calls or f.tool_parser_reason is not None:
        return ()
    stop = stop_of(f)
    if stop is None:
        return ()
    lead = len(f.output[stop.at:]) - len(f.output[stop.at:].lstrip())
    at = stop.at + lead
    formats = call_formats(f.arena)
    openers = [m.text.strip() for m in f.openers] + [c.head.strip() for c in formats.values() if c.head.strip()]
    opener = next((o for o in openers if o and f.output.startswith(o, at)), None)
    before = f.output[:at]
    if opener is None or not any(o and o in before for o in openers):
        return ()
    who = parser_name(f)
    intended = _intended(f, f.output)
    first = _intended(f, before)
    fixes = [s for s in (
        sg.changed_request(f, replace(f.request, parallel_tool_calls=True), "parallel_tool_calls true",
                           "send parallel_tool_calls true to get every call", intended),
        sg.corrected_output(f, before.rstrip(), "keep the first call only", first)) if s is not None]
    return (Finding(
        check="one-call-only", severity="cause",
        summary=f"The request sets parallel_tool_calls false, so llama.cpp's parser reads one tool call; the "
                f"output starts another call at {f.place(at, len(f.output)).where()} ({shown(opener)}), and "
                f"{_outcome(stop, f)}.",
        detail="With parallel_tool_calls false llama.cpp builds the tool-call part of the parser for a single "
               "call; what follows it must be the end of the output.",
        span=(at, len(f.output)), expected="the end of the output (one call)", found=f.output[at:at + 40],
        rule=f"With parallel_tool_calls false, {who} accepts exactly one tool call per reply.",
        fix_hint="Request side: send parallel_tool_calls true when several calls are fine. Model side: make one "
                 "call per turn.",
        fix_where="request" if fixes and fixes[0].kind == "request" else "model",
        suggestion=fixes[0] if fixes else None),)


# --- marker-in-prose -------------------------------------------------------------------------------

_PROSE = re.compile(r"[A-Za-z][a-z']*[ ,;]+[A-Za-z][a-z']*\b")


def _markup_after(f: Facts, text: str) -> bool:
    """Whether the format's call markup (or a tool name) follows: then it is a call attempt."""
    marks = {m.text.strip() for m in f.openers + f.closers + f.name_prefixes}
    for fmt in call_formats(f.arena).values():
        marks |= {o.strip() for o in fmt.arg_openers.values()} | {c.strip() for c in fmt.call_closes}
    return any(m and m in text for m in marks) or any(text.startswith(n) for n in f.tool_names)


def marker_in_prose(f: Facts) -> tuple[Finding, ...]:
    if f.tool_parser_reason is not None:
        return ()
    stop = stop_of(f)
    if stop is None:
        return ()
    for m in f.openers:
        core = m.text.strip()
        pos = f.output.rfind(core, 0, stop.at + 1)
        if pos < 0 or core.startswith("{") or f.output[pos + len(core):stop.at].strip():
            continue
        after = f.output[stop.at:].lstrip()
        if not (f.output[:pos].strip() and _PROSE.match(after)) or _markup_after(f, after):
            continue  # no prose around it: a call written wrongly, which other checks explain
        suggestion = sg.changed_request(f, replace(f.request, tool_choice="none"), 'tool_choice "none"',
                                        'send tool_choice "none" when no call is wanted', (),
                                        content=f.output)
        return (Finding(
            check="marker-in-prose", severity="cause",
            summary=f"The output writes the call opener {shown(core)} at {f.place(pos, pos + len(core)).where()} inside "
                    "prose; llama.cpp ends "
                    f"the content there and reads a call, finds text instead, and {_outcome(stop, f)}.",
            detail=f"{shown(core)} comes from {m.origin}. The parser has no way back to content once the opener "
                   "matched, even when the text after it is plain prose.",
            span=(pos, pos + len(core)), expected="a tool call after the opener", found=f.output[pos:pos + len(core)],
            rule=f"{parser_name(f)} ends the content at the first {shown(core)}: from there the output must be a "
                 "tool call.",
            fix_hint="llama.cpp side: a literal opener in the text is taken as a call, without a way back. Request "
                     "side: tool_choice \"none\" when no call is wanted. Model side: avoid writing the opener "
                     "itself in prose.",
            fix_where="llama.cpp", quirk=True, llama_cpp=f"the content rule of {f.params.handler} ({_source(f)})",
            suggestion=suggestion),)
    return ()


def newline_rule(f: Facts) -> tuple[Finding, ...]:
    return tuple(x for x in whitespace_rules(f) if x.check == "newline-rule")


def whitespace_rule(f: Facts) -> tuple[Finding, ...]:
    return tuple(x for x in whitespace_rules(f) if x.check == "whitespace-rule")
