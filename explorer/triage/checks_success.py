"""Checks on parses that succeed: a call came back, but not the call the model meant.

Input: ``Facts`` of a parse without an error (never with ``is_partial``: the partial
checks say what is still being written). Output: findings:

- ``arguments-json``: a call llama.cpp returns whose arguments do not decode as JSON, with
  where in the output the argument text sits, where the JSON stops and why;
- ``value-swallowed``: a tagged argument value that holds the format's own closing tag:
  the value ran on past it (the model closed the value with other whitespace than the
  parser's closing text) and swallowed what followed, often the next call; with the
  closing text the parser needed, what the model wrote, and a verified corrected output;
- ``call-cut-off``: the output ends inside an open call; llama.cpp returns the partial
  call as a complete one (a llama.cpp quirk).
"""

from __future__ import annotations

import json
from dataclasses import replace

from explorer.triage import checks_tools
from explorer.triage import suggest as sg
from explorer.triage.calls import FunctionFormat, ParsedArg, ParsedCall, call_formats, parsed_calls, written_calls
from explorer.triage.checks_closers import closer_misses
from explorer.triage.facts import Facts
from explorer.triage.model import END_OF_OUTPUT, Finding, cut, quote, shown

MAX_ROUNDS = 8  # closing tags a corrected output repairs, one re-parse each
LENIENT_PARSE = "common_chat_parse (common/chat.cpp, lenient parse) and the PEG mapper (common/chat-peg-parser.cpp)"
LENIENT_WHY = ("llama.cpp quirk: common_chat_parse parses every output leniently, so running out of text inside a "
               "call is \"need more input\", not an error, and the PEG mapper maps the open call like a finished "
               "one.")


def _calls(f: Facts) -> tuple[ParsedCall, ...]:
    return parsed_calls(f.parse.result, len(f.gp))


def _applies(f: Facts) -> bool:
    return not f.is_partial and f.message is not None and bool(f.calls)


# --- arguments-json ------------------------------------------------------------------------

_WHY = (
    ("Unterminated string", "a string is still open (no closing quote)"),
    ("Expecting property name", "an object is open with no member after it (\"{\" alone, or a trailing \",\")"),
    ("Expecting ',' delimiter", "an object or array is still open (no closing brace or bracket)"),
    ("Expecting ':' delimiter", "a key has no ':' and value after it"),
    ("Expecting value", "a value is missing"),
    ("Extra data", "more text follows the JSON value"),
)


def _why(msg: str) -> str:
    return next((why for key, why in _WHY if msg.startswith(key)), msg.lower())


def arguments_json(f: Facts) -> tuple[Finding, ...]:
    if not _applies(f):
        return ()
    parsed = _calls(f)
    paired = len(parsed) == len(f.calls)
    formats = call_formats(f.arena)
    out: list[Finding] = []
    for i, call in enumerate(f.calls):
        if paired and _swallowed_any(parsed[i], formats, f.output):
            continue  # value-swallowed: the closing tags are inside a value, the call is not cut off
        try:
            json.loads(call.arguments)
            continue
        except json.JSONDecodeError as exc:
            err = exc
        pc = parsed[i] if paired else None
        span, stop = _argument_place(f, pc, call.arguments, err.pos)
        misspelt = pc is not None and any(pc.start <= m[0] for m in closer_misses(f))
        cut = pc is not None and (pc.partial or pc.end >= len(f.output.rstrip())) and not misspelt
        # the finding's one place is the argument text; where its JSON stops is counted inside it
        at = (f" (the arguments at {f.place(*span).where()}: their JSON stops after {err.pos} of "
              f"{len(call.arguments)} characters)") if stop is not None and span is not None else ""
        detail = (f"llama.cpp returns the arguments {quote(call.arguments, 80, around=err.pos)}; a client's JSON "
                  f"decoder stops at character {err.pos} of them: {err.msg}.")
        if cut:
            detail += " The output ends inside this call. " + LENIENT_WHY
        ending = (" (the output ends inside the call)." if cut else
                  ": a closing tag in it is misspelt, so its value runs on to the end (see closer-near-miss)."
                  if misspelt else ".")
        out.append(Finding(
            check="arguments-json", severity="cause",
            summary=f"The call to {shown(call.name)} that llama.cpp returns has arguments that are not JSON: "
                    f"{_why(err.msg)}{at}" + ending,
            detail=detail, span=span, expected="a complete JSON object",
            found=(f.output[span[0]:span[1]][:40] or END_OF_OUTPUT) if span is not None else "",
            fix_hint=("Request side: the generation stopped inside the call; raise max_tokens (n_predict) or check "
                      "the stop strings (llama-server's finish_reason is \"length\" then). llama.cpp side: it "
                      "returns the partial call without an error." if cut else
                      "Model side: write the closing tag exactly as the template renders it (see closer-near-miss)."
                      if misspelt else
                      "llama.cpp side: its mapper built arguments that do not decode; report it with this output."),
            fix_where="request" if cut else "model" if misspelt else "llama.cpp", quirk=True, llama_cpp=LENIENT_PARSE,
            fact="output-cut-off" if cut else ""))
    return tuple(out)


def _argument_place(f: Facts, pc: ParsedCall | None, arguments: str,
                    err_pos: int) -> tuple[tuple[int, int] | None, int | None]:
    """Where the argument text sits in the output, and where its JSON stops there."""
    if pc is None:
        return None, None
    if pc.args_start >= 0 and f.output[pc.args_start:pc.args_end] == arguments:
        return (pc.args_start, pc.args_end), pc.args_start + err_pos  # verbatim JSON
    if pc.args:
        last = pc.args[-1]
        return (pc.args[0].start, max(last.end, last.value_end)), max(last.end, last.value_end)
    start = pc.args_start if pc.args_start >= 0 else pc.start
    return (start, pc.end), pc.end


# --- value-swallowed -------------------------------------------------------------------------


def _swallowed_any(pc: ParsedCall, formats: dict[str, FunctionFormat], output: str) -> bool:
    fmt = formats.get(pc.name)
    return fmt is not None and any(_swallow(a, fmt, output) is not None for a in pc.args)


def _swallow(arg: ParsedArg, fmt: FunctionFormat, output: str) -> tuple[int, str] | None:
    """Where a closing tag inside a string value ends the value the model meant (output
    position), and the closing text the parser needed; None when the value holds none.

    A closing tag in running text (``use </parameter> to close``) is the value's own text:
    only one that the format's next markup (another argument, the call's close) or the end
    of the output follows, past whitespace, is where the model closed the value."""
    if not arg.is_string or arg.value_start < 0:
        return None
    nxt = tuple(m for m in {o.strip() for o in fmt.arg_openers.values()} | {c.strip() for c in fmt.call_closes}
                | {c.strip() for c in fmt.arg_closes} if m)
    for close in fmt.arg_closes:
        core = close.strip()
        q = arg.value.find(core) if core else -1
        while q >= 0:
            pos = arg.value_start + q
            after = pos + len(core)
            while after < len(output) and output[after].isspace():
                after += 1
            if output.startswith(core, pos) and (after >= len(output) or output.startswith(nxt, after)):
                return pos, close
            q = arg.value.find(core, q + 1)
    return None


def _swallowed_markup(f: Facts, formats: dict[str, FunctionFormat], text: str) -> list[str]:
    """The format's own markup inside swallowed text, in the order it appears."""
    marks: set[str] = set()
    for fmt in formats.values():
        marks |= {c.strip() for c in fmt.arg_closes + fmt.call_closes}
        marks |= {o.strip() for o in fmt.arg_openers.values()}
        if fmt.head.strip():
            marks.add(fmt.head.strip())
    marks |= {m.text.strip() for m in f.openers + f.closers}
    marks = {m for m in marks if len(m) >= 3}
    hits = sorted((text.find(m), m) for m in marks if m in text)
    seen: list[str] = []
    for _, m in hits:
        if m not in seen and not any(m in s for s in seen):
            seen.append(m)
    return seen


def _close_fix(output: str, pos: int, close: str) -> str:
    """``output`` with the closing tag at ``pos`` written as the parser needs ``close``."""
    core = close.strip()
    lead = close[:len(close) - len(close.lstrip())]
    trail = close[len(close.rstrip()):]
    start = pos - len(lead) if lead and output[:pos].endswith(lead) else pos
    end = pos + len(core)
    while end < len(output) and output[end] in " \t\r\n" and output[end:end + 1] in trail:
        end += 1
    return output[:start] + close + output[end:]


def _repaired(f: Facts, formats: dict[str, FunctionFormat]) -> str | None:
    """The output with every swallowed closing tag rewritten, re-parsing after each."""
    text = f.output
    for _ in range(MAX_ROUNDS):
        parse = sg.parse_with(f.params, text)
        if parse.message is None:
            return None
        hit = next((h for pc in parsed_calls(parse.result, len(f.gp)) if pc.name in formats
                    for h in [_swallow(a, formats[pc.name], text) for a in pc.args] if h is not None), None)
        if hit is None:
            return text if text != f.output else None
        text = _close_fix(text, *hit)
    return None


def value_swallowed(f: Facts) -> tuple[Finding, ...]:
    if f.is_partial or f.message is None:
        return ()
    formats = call_formats(f.arena)
    out: list[Finding] = []
    parsed = _calls(f)
    paired = len(parsed) == len(f.calls)
    for i, pc in enumerate(parsed):
        fmt = formats.get(pc.name)
        if fmt is None:
            continue
        for arg in pc.args:
            hit = _swallow(arg, fmt, f.output)
            if hit is None:
                continue
            pos, close = hit
            found = _swallow_finding(f, formats, fmt, pc, arg, pos, close, suggestion=not out)
            json_words = _arguments_words(f.calls[i].arguments) if paired else ""
            out.append(replace(found, detail=found.detail + json_words) if json_words else found)
    return tuple(out)


def _arguments_words(arguments: str) -> str:
    """What a client gets from the swallowed call's arguments, when they no longer decode."""
    try:
        json.loads(arguments)
    except json.JSONDecodeError as err:
        return (f" The arguments llama.cpp returns for this call are not JSON either: {_why(err.msg)} (a client's "
                f"JSON decoder stops at character {err.pos} of {len(arguments)}, at "
                f"{quote(arguments, 40, around=err.pos)}).")
    return ""


def _swallow_finding(f: Facts, formats: dict[str, FunctionFormat], fmt: FunctionFormat, pc: ParsedCall,
                     arg: ParsedArg, pos: int, close: str, suggestion: bool) -> Finding:
    core = close.strip()
    lead = close[:len(close) - len(close.lstrip())]
    trail = close[len(close.rstrip()):]
    before, after = pos, pos + len(core)
    while before > max(0, pos - len(lead)) and f.output[before - 1].isspace():
        before -= 1
    while after < min(len(f.output), pos + len(core) + len(trail)) and f.output[after].isspace():
        after += 1
    written = f.output[before:after]  # the closing tag with the whitespace the model put around it
    swallowed = f.output[pos:arg.value_end]
    markup = _swallowed_markup(f, formats, swallowed)
    next_calls = [c for c in written_calls(formats, f.output, pos) if c.start < arg.value_end]
    what = ", ".join(shown(m) for m in markup[:6])
    if next_calls:
        what += f" and {len(next_calls)} whole call{'s' if len(next_calls) != 1 else ''} " \
                f"({', '.join(c.name for c in next_calls)})"
    who = parser_name(f)
    fix = None
    if suggestion:
        repaired = _repaired(f, formats)
        if repaired is not None:
            intended = sg.from_written(written_calls(formats, repaired))
            fix = sg.corrected_output(f, repaired, f"write each value's closing tag as {shown(close)}", intended)
    return Finding(
        check="value-swallowed", severity="cause",
        summary=f"The value of {shown(arg.name)} in the call to {shown(pc.name)} swallowed what followed: the model "
                f"closed it with {shown(written)}, but the parser ends a value only at {shown(close)}, so the value "
                f"runs on over {what or 'the rest of the output'}.",
        detail=f"llama.cpp returns {shown(arg.name)} = {quote(arg.value, 80)}"
               f"; the value starts at output character {arg.value_start} and the closing tag the model meant is at "
               f"character {pos}.",
        span=(before, after), expected=close, found=written,
        rule=f"{who} reads a string value as raw text up to the first {shown(close)} (the closing tag with exactly "
             "that whitespace); everything before it, markup included, is the value.",
        fix_hint=f"Model side: close each value exactly as the template renders it, {shown(close)}.",
        fix_where="model", suggestion=fix)


def parser_name(f: Facts) -> str:
    """The parser in words: the autoparser with its tool-call format, or the handler."""
    if f.params.handler == "autoparser":
        mode = f.analysis.tools.format.mode.value if f.analysis is not None else ""
        return f"llama.cpp's autoparser ({mode} format)" if mode else "llama.cpp's autoparser"
    return f"llama.cpp's {f.params.handler} parser"


# --- call-cut-off -------------------------------------------------------------------------


def call_cut_off(f: Facts) -> tuple[Finding, ...]:
    if not _applies(f):
        return ()
    parsed = _calls(f)
    if not parsed:
        return ()
    last = parsed[-1]
    if not (last.partial or last.wrapper_partial):
        return ()
    if _swallowed_any(last, call_formats(f.arena), f.output):
        return ()  # value-swallowed: the closing tags are there, inside a value
    if any(x.severity == "warning" for x in checks_tools.malformed_arguments(f)):
        return ()  # malformed-arguments says it for JSON cut short
    if any(last.start <= m[0] for m in closer_misses(f)):
        return ()  # not cut off: a closing tag is misspelt (closer-near-miss), the value ran on to the end
    where = "in the arguments of" if last.partial and (last.args_start >= 0 or last.args) else "inside"
    open_arg = next((a for a in reversed(last.args) if not a.closed), None)
    if open_arg is not None and last.partial:
        where = f"inside the value of {shown(open_arg.name)} in"
    if not last.partial:
        where = "before the closing text of"
    call = f.calls[-1]
    return (Finding(
        check="call-cut-off", severity="warning" if last.partial else "info",
        summary=f"The output ends {where} the call to {shown(last.name)}: generation stopped inside the call, "
                f"and llama.cpp returns the partial call as if it were complete (arguments {quote(call.arguments, 60, keep='end')}).",
        detail=LENIENT_WHY + " A final parse (is_partial false) of an output cut off inside a call is not an error; "
               "the call comes back with what was written so far, and nothing in the response marks it as partial "
               "except llama-server's finish_reason.",
        span=(last.start, len(f.output)), expected="the rest of the call", found=cut(f.output[last.start:], 40),
        fix_hint="Request side: raise max_tokens (n_predict), or check that no stop string occurs inside a call; "
                 "a client should not run a call from a response whose finish_reason is \"length\". llama.cpp side: "
                 "the final parse accepts the open call.",
        fix_where="request", quirk=True, llama_cpp=LENIENT_PARSE, fact="output-cut-off"),)
