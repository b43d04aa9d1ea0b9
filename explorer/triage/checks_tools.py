"""Checks about tool calls: why a call the model meant was not read as one.

Input: ``Facts``. Output: findings, one tuple per check function. Each check is pure and
reads only the facts: no tool parser for the request, an opener spelled almost right,
a function name the request does not offer, JSON keys the parser does not take,
malformed argument JSON, text after the calls, a tool named but never called.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import replace

from explorer.jsonscan import JsonObject, json_object_at
from explorer.peg.chat_mappers import json_brace_depth
from explorer.triage import checks_format
from explorer.triage import markers as mk
from explorer.triage import patterns as pt
from explorer.triage import suggest as sg
from explorer.triage.checks_handlers import handler_format
from explorer.triage.facts import Facts
from explorer.triage.model import END_OF_OUTPUT, Finding, FixWhere, shown
from explorer.triage.textscan import FENCE, describe_difference, near_misses, similar_tags

_IDENT = re.compile(r"[A-Za-z_][\w.\-]*")
_HINT_KEYWORDS = ("tool", "call", "function", "action")


def _preserved_note(f: Facts, marker: str) -> str:
    if marker.strip() in f.params.preserved_tokens:
        return (f" {shown(marker.strip())} is a preserved token: the model normally emits it as one special "
                "token, so a spelling with other bytes is plain text to llama.cpp.")
    return ""


# --- 1. no tool parser ------------------------------------------------------------------


def _call_evidence(f: Facts) -> tuple[tuple[int, int], str] | None:
    """The first place the output looks like a tool call, and what it is."""
    candidates = [m.text for m in f.openers]
    candidates += [t for t in f.params.preserved_tokens
                   if not t.startswith("</") and any(k in t.lower() for k in _HINT_KEYWORDS)]
    for marker in candidates:
        pos = f.output.find(marker.strip())
        if pos >= 0:
            return (pos, pos + len(marker.strip())), f"the tool-call marker {shown(marker.strip())}"
    for o in f.openings:
        return ((o.start, max(o.end, o.start + 1)),
                f"{shown(f.output[o.start:max(o.end, o.start + 1)])}, which matches the trigger pattern "
                f"{shown(o.pattern.source)} ({o.pattern.origin})")
    for obj in f.call_like_objects:
        return (obj.start, obj.end), f"a JSON object naming {shown(obj.call_name() or '')} with arguments"
    return None


def no_tool_parser(f: Facts) -> tuple[Finding, ...]:
    reason = f.tool_parser_reason
    if reason is None:
        return ()
    evidence = _call_evidence(f)
    if evidence is None:
        return ()
    span, what = evidence
    where: FixWhere = ("request" if reason in ("the request lists no tools", 'the request sets tool_choice "none"')
                       or "skip" in reason or "force_pure_content" in reason
                       else "template" if "does not render tool calls" in reason else "llama.cpp")
    fix = (sg.changed_request(f, replace(f.request, tool_choice="auto"), 'tool_choice "auto"',
                              'send tool_choice "auto" (the request\'s tools stay)', sg.calls_in_output(f))
           if reason == 'the request sets tool_choice "none"' else None)
    hint = {
        "the request lists no tools": "Send the tools in the request (tool_choice auto or required).",
        'the request sets tool_choice "none"': 'Use tool_choice "auto" or "required" when calls are wanted.',
    }.get(reason, "Start llama-server without --skip-chat-parsing." if "skip" in reason else
          "Use a template llama.cpp can read a tool-call format from, or a model whose template it routes to a handler.")
    return (Finding(
        check="no-tool-parser", severity="cause",
        summary=f"The output looks like a tool call ({what}), but {reason}, so llama.cpp parses no tool calls "
                "and returns the text as content.",
        detail="llama.cpp builds the tool-call part of its parser only when the request offers tools and "
               "tool_choice is not \"none\" (and the template has a tool-call format); otherwise the parser "
               "is reasoning + content only.",
        span=span, expected="a request with tools", found=f.output[span[0]:min(span[1], span[0] + 60)],
        fix_hint=hint, fix_where=where, suggestion=fix),)


# --- 2. opener near miss ----------------------------------------------------------------


def _opener_here(f: Facts, pos: int, marker: str) -> bool:
    """An opener at least as long as ``marker`` starts exactly here (after whitespace), or a
    trigger pattern matches here (the text is a legitimate spelling of the pattern)."""
    if any(_pattern_at(p, f.output, pos) for p in f.patterns):
        return True
    while pos < len(f.output) and f.output[pos].isspace():
        pos += 1
    return any(len(m.text) >= len(marker) and f.output.startswith(m.text.lstrip(), pos) for m in f.openers)


def _pattern_at(pat: pt.TriggerPattern, text: str, pos: int) -> bool:
    if pat.regex is None:
        return False
    if pat.anchored:
        return pos == 0 and any(pat.regex.fullmatch(text, 0, k) for k in range(1, min(len(text), 400) + 1))
    return pat.regex.match(text, pos) is not None


def pattern_markers(f: Facts) -> tuple[mk.Marker, ...]:
    """A literal spelling of each regex trigger (its fixed parts), to look for near misses of."""
    out: list[mk.Marker] = []
    for pat in f.patterns:
        example = pt.example_text(pat)
        if len(example.strip()) >= 4 and all(m.text != example for m in out):
            out.append(mk.Marker(example, (f"{pat.origin} ({shown(pat.source)})",)))
    return tuple(out)


def _miss_finding(f: Facts, marker, start: int, end: int, found: str, kind: str, role: str = "a tool call") -> Finding:
    diff = describe_difference(marker.text, found) if kind != "similar tag" else "a different tag"
    return Finding(
        check="opener-near-miss", severity="cause",
        summary=f"The model wrote {shown(found)} where llama.cpp needs exactly {shown(marker.text)} to start "
                f"{role} ({diff}), so the call is not recognised.",
        detail=f"The marker {shown(marker.text)} comes from {marker.origin}. llama.cpp's parser matches it byte "
               f"for byte; any other spelling is ordinary text.{_preserved_note(f, marker.text)}",
        span=(start, end), expected=marker.text, found=found,
        fix_hint=f"Model/template side: the model must emit {shown(marker.text)} exactly as the template renders "
                 "it (check the prompt shows calls that way and the tokenizer has the token). Request side: "
                 "nothing loosens the match.")


def _marker_misses(f: Facts) -> list[tuple[tuple[int, int], Finding]]:
    """(span, its finding's wording) per near miss: one wording per kind of mistake."""
    out: list[tuple[tuple[int, int], Finding]] = []
    seen: set[int] = set()
    # one mistake repeats through a long output: its wording is made once, each place reuses it
    worded: dict[tuple[str, str, str, str, str], Finding] = {}
    known = {m.text for m in f.openers + f.closers + f.reasoning_starts + f.reasoning_ends}
    known |= set(f.params.preserved_tokens)
    known |= {m.text for m in f.name_prefixes}
    roles = [(m, "a tool call") for m in f.openers + pattern_markers(f)]
    roles += [(m, "a function name") for m in f.name_prefixes]
    for marker, role in roles:
        misses = [(m.start, m.end, m.text, "whitespace/case") for m in near_misses(f.output, marker.text)]
        if role == "a tool call":
            misses += [(m.start, m.end, m.text, "similar tag") for m in similar_tags(f.output, marker.text, known)]
        for start, end, found, kind in misses:
            if start in seen or _opener_here(f, start, marker.text) or not f.is_cause((start, end)):
                continue
            if not _call_follows(f, end):
                continue  # the markup named in prose ("write <tool_call> then…"): no call to fix
            seen.add(start)
            key = (marker.text, marker.origin, found, kind, role)
            if key not in worded:
                worded[key] = _with_fix(f, _miss_finding(f, marker, start, end, found, kind, role), start, end, marker)
            out.append(((start, end), worded[key]))
    return out


def _call_follows(f: Facts, end: int) -> bool:
    """What follows a near miss starts like a call: JSON, markup, a tool's name or the
    format's call head (a sentence after it is prose, whatever the near miss looks like)."""
    at = end
    while at < len(f.output) and f.output[at].isspace():
        at += 1
    if at >= len(f.output):
        return True  # the output ends there: a call may have been on its way
    rest = f.output[at:at + 120]
    heads = [m.text.strip() for m in f.name_prefixes if m.text.strip()]
    if any(rest.startswith(n) for n in f.tool_names + tuple(heads)):
        return True
    return not rest[:1].isalpha()  # a word after it is prose; JSON, markup, "." NAME and the like are a call


def _with_fix(f: Facts, finding: Finding, start: int, end: int, marker: mk.Marker) -> Finding:
    """The near miss with the corrected output when our parse of it (this place written as the
    marker) reads a call the output did not give: then "write it exactly" is verified."""
    text = f.output[:start] + marker.text + f.output[end:]
    intended = sg.calls_in(f, text)
    if not intended or len(intended) <= len(f.calls):
        return finding
    fix = sg.corrected_output(f, text, f"write {shown(marker.text)} exactly", intended)
    return replace(finding, suggestion=fix) if fix is not None else finding


def _fence_misses(f: Facts) -> list[Finding]:
    if not f.openers or any("```" in m.text for m in f.openers):
        return []
    out: list[Finding] = []
    for m in FENCE.finditer(f.output):
        body = m.end()
        while body < len(f.output) and f.output[body].isspace():
            body += 1
        if not f.output.startswith(("{", "["), body):
            continue
        obj = json_object_at(f.output, body if f.output[body] == "{" else body + 1)
        if not obj.looks_like_call:
            continue
        close = f.output.find("```", obj.end)
        end = close + 3 if close >= 0 else obj.end
        if not f.is_cause((m.start(), end)):
            continue
        marker = f.openers[0]
        out.append(Finding(
            check="opener-near-miss", severity="cause",
            summary=f"The model wrapped the call in a Markdown {shown(m.group(0).strip())} fence instead of "
                    f"starting it with {shown(marker.text)}, so {_not_a_call(f)}.",
            detail=f"This template's calls start with {shown(marker.text)} ({marker.origin}); a fenced JSON "
                   "block is just text to llama.cpp's parser.",
            span=(m.start(), end), expected=marker.text, found=f.output[m.start():body],
            fix_hint=f"The model must emit {shown(marker.text)} before the call JSON, as the template renders "
                     "calls; a fine-tune or a system prompt that shows the format helps."))
    return out


def _not_a_call(f: Facts) -> str:
    """What llama.cpp makes of a call written without its opener: content when the parse
    succeeds; when it fails (something later in the output), only that it is no call."""
    if f.parse.message is not None:
        return "llama.cpp reads it as content"
    return "llama.cpp does not read it as a call"


def _bare_json_misses(f: Facts) -> list[Finding]:
    if not f.openers:
        return []
    out: list[Finding] = []
    marker = f.openers[0]
    for obj in f.call_like_objects:
        before = f.output[max(0, obj.start - 200):obj.start].rstrip()
        if any(before.endswith(m.text.strip()) for m in f.openers) or before.endswith(("```json", "```", "[")):
            continue
        if any(m.text.strip() in before[-80:] for m in f.openers) or not f.is_cause((obj.start, obj.end)):
            continue  # inside a call that has an opener (e.g. after the function name)
        out.append(Finding(
            check="opener-near-miss", severity="cause",
            summary=f"The model wrote the call as bare JSON without the opener {shown(marker.text)}, so "
                    f"{_not_a_call(f)}.",
            detail=f"This template's calls start with {shown(marker.text)} ({marker.origin}); llama.cpp does not "
                   "look for tool calls in plain JSON.",
            span=(obj.start, obj.end), expected=marker.text, found=f.output[obj.start:min(obj.end, obj.start + 40)],
            fix_hint=f"The model must emit {shown(marker.text)} before the call, as the template renders calls."))
    return out


_MISSES: dict[int, tuple[object, tuple[Finding, ...]]] = {}
MAX_SHOWN = 10  # explorer.triage.registry.MAX_PER_CHECK (findings past it are only counted)


def opener_near_miss(f: Facts) -> tuple[Finding, ...]:
    """The near misses, worked out once per diagnosis (tool-mentioned asks again)."""
    held = _MISSES.get(id(f))
    if held is not None and held[0] is f:
        return held[1]
    found = _opener_near_miss(f)
    if len(_MISSES) > 32:
        _MISSES.clear()
    _MISSES[id(f)] = (f, found)
    return found


def _opener_near_miss(f: Facts) -> tuple[Finding, ...]:
    if f.tool_parser_reason is not None:
        return ()
    found = _marker_misses(f)
    covered = [span for span, _ in found]
    ends = sorted(e for _, e in covered)
    for extra in _fence_misses(f) + _bare_json_misses(f):
        assert extra.span is not None
        a, b = extra.span
        prior = [e for e in ends if e <= a][-1:]  # the nearest miss ending before it (after it: nothing but space?)
        after_miss = any(f.output[e:a].strip() == "" for e in prior)
        if not after_miss and not any(s[0] < b and a < s[1] for s in covered):
            found.append((extra.span, extra))
            covered.append(extra.span)
    found.sort(key=lambda pair: pair[0])
    # each place's finding; past the cap only the count matters (the registry shows MAX_PER_CHECK, then "…and N more")
    return tuple(proto.at(span) if proto.span != span and i <= MAX_SHOWN else proto
                 for i, (span, proto) in enumerate(found))


# --- 3. unknown function name -----------------------------------------------------------


def _names_after_affixes(f: Facts) -> list[tuple[int, int, str]]:
    out: list[tuple[int, int, str]] = []
    for before, after in f.name_affixes:
        pos = f.output.find(before)
        while pos >= 0:
            start = pos + len(before)
            end = f.output.find(after, start, start + 120) if after.strip() else -1
            if end >= 0 and re.search(r"[<>]", f.output[start:end]):
                end = -1  # the suffix belongs to later markup: the name is what stands before the markup
            if end < 0:
                m = _IDENT.match(f.output, start)
                end = m.end() if m else start
            name = f.output[start:end]
            if name and "\n" not in name.strip():
                out.append((start, end, name))
            pos = f.output.find(before, start)
    return out


def _names_in_json(f: Facts) -> list[tuple[int, int, str]]:
    out: list[tuple[int, int, str]] = []
    name_keys = tuple(k.name for k in f.call_keys if "name" in k.name) or ("name",)
    for obj in f.call_like_objects:
        name = obj.call_name(name_keys + ("name",))
        if name is None:
            continue
        at = f.output.find(f'"{name}"', obj.start, obj.end)
        if at >= 0:  # (a name written with JSON escapes is not in the text as decoded)
            out.append((at + 1, at + 1 + len(name), name))
    return out


def unknown_function(f: Facts) -> tuple[Finding, ...]:
    if f.tool_parser_reason is not None:
        return ()
    out: list[Finding] = []
    seen: set[int] = set()
    for start, end, name in _names_after_affixes(f) + _names_in_json(f):
        if name in f.tool_names or start in seen or not f.is_cause((start, end)):
            continue
        seen.add(start)
        close = difflib.get_close_matches(name, f.tool_names, n=1, cutoff=0.5)
        offered = ", ".join(f.tool_names)
        out.append(Finding(
            check="unknown-function", severity="cause",
            summary=f"The call names {shown(name)}, which is not one of the request's tools"
                    + (f" (did the model mean {shown(close[0])}?)" if close else "") + ".",
            detail=f"llama.cpp builds one parser rule per tool of the request ({offered}) and accepts only "
                   "those exact names, so a call to any other name does not match.",
            span=(start, end), expected=close[0] if close else offered, found=name,
            fix_hint="Model side: the model must use a name from the tools it was given. Request side: add "
                     f"{shown(name)} to the request's tools if the call is legitimate."))
    return tuple(out)


# --- 4. call JSON keys and malformed arguments ------------------------------------------


def _uses_json(f: Facts) -> bool:
    return mk.json_arguments(f.arena)


def call_json_keys(f: Facts) -> tuple[Finding, ...]:
    if f.tool_parser_reason is not None or not f.call_keys:
        return ()
    wanted = [k.name for k in f.call_keys]
    required = [k.name for k in f.call_keys if not k.optional]
    out: list[Finding] = []
    for obj in f.call_like_objects:
        keys = list(obj.value.keys()) if isinstance(obj.value, dict) else []
        unknown = [k for k in keys if k not in wanted]
        missing = [k for k in required if k not in keys]
        shared = [k for k in keys if k in wanted]
        misordered = shared != [k for k in wanted if k in shared]
        if not (unknown or missing or misordered) or not f.is_cause((obj.start, obj.end)):
            continue
        problems = []
        if unknown:
            problems.append("keys it does not take: " + ", ".join(shown(k) for k in unknown))
        if missing:
            problems.append("missing " + ", ".join(shown(k) for k in missing))
        if misordered:
            problems.append("keys in another order")
        expect = ", ".join(k.name + ("?" if k.optional else "") for k in f.call_keys)
        order_only = misordered and not unknown and not missing
        out.append(Finding(
            check="call-json-keys", severity="cause",
            summary=f"The call's JSON has {'; '.join(problems)} (it has {', '.join(keys)}): llama.cpp's parser "
                    f"for this template expects the keys {expect} in that order.",
            detail="llama.cpp's tool-call rule spells each key as a fixed string in a fixed order (optional "
                   "ones marked ?); a JSON object with other keys or another order is not a call to it.",
            span=(obj.start, obj.end), expected=f"a call object with the keys {expect}",
            found=f.output[obj.start:min(obj.end, obj.start + 60)],
            fix_hint="Model side: emit the call with exactly these keys in this order, as the template renders it."
                     + (" llama.cpp side: a JSON object's keys have no order, but this parser spells them in one."
                        if order_only else ""),
            # keys in another order only: JSON has no key order, llama.cpp's parser imposes one
            fix_where="llama.cpp" if order_only else "model", quirk=order_only,
            llama_cpp="common_chat_peg_builder::build_json_tools_flat_keys / _nested_keys (common/chat-peg-parser.cpp)"
            if order_only else ""))
    return tuple(out)


def _argument_starts(f: Facts) -> list[int]:
    """Where a call's JSON should begin: the first ``{`` after each exact opener, and
    each top-level object that starts like a call."""
    starts: list[int] = []
    for marker in f.openers:
        pos = f.output.find(marker.text)
        while pos >= 0:
            brace = f.output.find("{", pos + len(marker.text), pos + len(marker.text) + 200)
            if brace >= 0:
                starts.append(brace)
            pos = f.output.find(marker.text, pos + 1)
    for o in f.openings:  # calls a regex trigger announces (GPT-OSS headers, Functionary recipients)
        brace = f.output.find("{", o.start, o.start + 200)
        if brace >= 0:
            starts.append(brace)
    for obj in f.objects:
        head = f.output[obj.start:obj.start + 80]
        if not obj.ok and ('"name"' in head or '"arguments"' in head):
            starts.append(obj.start)
    return sorted(set(starts))


TRUNCATION_STARTS = 16


def malformed_arguments(f: Facts) -> tuple[Finding, ...]:
    if f.tool_parser_reason is not None or not _uses_json(f):
        return ()
    out: list[Finding] = []
    starts = _argument_starts(f)
    # a call cut short by the end of the output starts near it: only the last starts are read to the end
    # (each reading costs the rest of the output; a 100 KB output holds thousands of starts)
    near_end = set(starts[-TRUNCATION_STARTS:])
    for start in starts:
        obj: JsonObject = json_object_at(f.output, start)
        if obj.ok:
            continue
        at = min(obj.end, len(f.output))
        rest = f.output[start:]
        if not f.failed and start in near_end and not any(m.text.strip() in rest for m in f.closers) \
                and json_brace_depth(rest) > 0:
            if f.calls or not f.kept(rest.strip()):
                out.append(_truncated(f, start))
                break  # every later start lies inside this cut-short call
            continue
        if not f.is_cause((start, at)):
            continue
        found = f.output[at:at + 12] or END_OF_OUTPUT
        place = f.place(at, at if found == END_OF_OUTPUT else at + len(found))
        out.append(Finding(
            check="malformed-arguments", severity="cause",
            summary=f"The call's JSON is broken: {obj.error.lower()} at {place.where()}.",
            detail="llama.cpp parses a call's arguments with its JSON rules (and the tool's schema); JSON that "
                   "does not parse makes the call fail to match.",
            span=(place.char, place.end), expected="valid JSON (" + obj.error.lower() + ")", found=found,
            place=place,
            fix_hint="Model side: the arguments must be complete, valid JSON."))
    return tuple(out)


def _truncated(f: Facts, start: int) -> Finding:
    place = f.place(start, len(f.output))
    return Finding(
        check="malformed-arguments", severity="warning",
        summary=f"The call's JSON, from {place.where()}, is cut short at the end of the output (still open "
                "braces); llama.cpp's lenient parse returns what it has, a partial call.",
        detail="llama.cpp quirk: it parses every output leniently: running out of text is \"need more input\", "
               "not an error, so a call cut off mid-arguments comes back, as a complete call, with incomplete "
               "arguments.",
        span=(start, len(f.output)), expected="the call's JSON, complete", found=f.output[start:start + 40],
        place=place,
        fix_hint="Request side: the output was truncated (max_tokens, or a stop string inside the call); "
                 "raise the limit or check the stops. llama.cpp side: the final parse returns the open call "
                 "without an error.",
        fix_where="request", quirk=True, fact="output-cut-off",
        llama_cpp="common_chat_parse (common/chat.cpp, lenient parse) and the PEG mapper (common/chat-peg-parser.cpp)")


# --- 7. text after the calls --------------------------------------------------------------


def content_after_calls(f: Facts) -> tuple[Finding, ...]:
    if f.tool_parser_reason is not None or not f.closers or not f.openers:
        return ()
    last_end = -1
    for marker in f.closers:
        pos = f.output.rfind(marker.text)
        if pos >= 0:
            last_end = max(last_end, pos + len(marker.text))
    first_open = min((p for p in (f.output.find(m.text) for m in f.openers) if p >= 0), default=-1)
    if last_end < 0 or first_open < 0 or first_open > last_end:
        return ()
    between = _text_between_calls(f)
    if between:
        return between
    tail = f.output[last_end:]
    if not tail.strip() or any(m.text.strip() in tail for m in f.openers):
        return ()
    lead = len(tail) - len(tail.lstrip())
    span = (last_end + lead, len(f.output))
    if f.failed:
        return (Finding(
            check="content-after-calls", severity="cause",
            summary="Text follows the tool calls; this template's format allows nothing after them, so "
                    "llama.cpp rejects the whole output.",
            detail="llama.cpp's parser for this template ends with the tool calls (then the end of the output); "
                   "text after the last call matches nothing.",
            span=span, expected="the end of the output", found=tail.strip()[:60],
            fix_hint="Model side: stop after the last call (the template's end-of-turn token is a stop)."),)
    unconsumed = f.parse.result.end < len(f.parse.input)  # the unconsumed-output check says it
    if (f.message is not None and not unconsumed and tail.strip() not in f.message.content
            and not _looks_like_markup(tail, f)):
        return (Finding(
            check="content-after-calls", severity="warning",
            summary="Text after the tool calls is dropped: it is in neither content nor the calls.",
            detail="llama.cpp's parser for this template consumes what follows the calls without keeping it.",
            span=span, expected="nothing after the calls", found=tail.strip()[:60],
            fix_hint="Model side: stop after the last call, or put the text before the calls."),)
    return ()


def _text_between_calls(f: Facts) -> tuple[Finding, ...]:
    """Prose between one call's closer and the next call's opener, when the parse failed."""
    if not f.failed:
        return ()
    closers = [m.text for m in f.closers]
    openers = [m.text.strip() for m in f.openers]
    for closer in closers:
        pos = f.output.find(closer)
        while pos >= 0:
            end = pos + len(closer)
            nxt = min((p for p in (f.output.find(o, end) for o in openers) if p >= 0), default=-1)
            gap = f.output[end:nxt] if nxt >= 0 else ""
            if gap.strip() and not any(c in gap for c in closers):
                lead = len(gap) - len(gap.lstrip())
                span = (end + lead, end + len(gap.rstrip()))
                return (Finding(
                    check="content-after-calls", severity="cause",
                    summary="Text stands between two tool calls; this template's format allows only whitespace "
                            "there, so llama.cpp rejects the whole output.",
                    detail="llama.cpp's parser reads the calls as one run (calls separated by whitespace, then the "
                           "end of the output); prose between them matches nothing.",
                    span=span, expected="whitespace, then the next call", found=gap.strip()[:60],
                    fix_hint="Model side: put all text before the first call."),)
            pos = f.output.find(closer, end)
    return ()


def _looks_like_markup(tail: str, f: Facts) -> bool:
    """A cut-short call (or JSON) rather than prose: llama.cpp keeps that as a partial call."""
    return bool(re.search(r"[<{\[]|｜", tail)) or any(c.name and c.name in tail for c in f.calls)


# --- 8. a tool named, never called --------------------------------------------------------


def tool_mentioned(f: Facts) -> tuple[Finding, ...]:
    if f.failed or f.calls or f.tool_parser_reason is not None or f.parse.result.end < len(f.parse.input):
        return ()
    if any(m.text.strip() and m.text.strip() in f.output for m in f.openers):
        return ()  # "nothing matched the start of a call" would be false: the opener is there (in reasoning)
    for name in f.tool_names:
        pos = f.output.find(name)
        if pos < 0 or any(o.start <= pos < o.end for o in f.objects):
            continue
        # (the mention first: the checks that explain it cost far more on a long output)
        if opener_near_miss(f) or checks_format.pythonic_call(f) or handler_format(f):
            return ()  # those explain it
        return (Finding(
            check="tool-mentioned", severity="info",
            summary=f"The output mentions the tool {shown(name)}, but llama.cpp found no tool call in it.",
            detail="Nothing in the output matched the start of a tool call"
                   + (f" ({', '.join(shown(m.text) for m in f.openers)})" if f.openers else "")
                   + "; the text is content.",
            span=(pos, pos + len(name)), expected=f.openers[0].text if f.openers else "", found=name,
            fix_hint="If a call was meant, the model must write it in the template's tool-call format."),)
    return ()
