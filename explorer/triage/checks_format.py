"""Checks about the shape of the whole reply: what this template's format does with it.

Input: ``Facts``. Output: findings. A format whose calls are bare JSON objects treats any
``{`` as the start of a call (llama.cpp quirk: prose with JSON in it is rejected); a
Python-style call (``name(arg=...)``) where the format wants JSON; ``tool_choice``
"required" with no call in the output (with the rule, and ``tool_choice "auto"`` as a
suggestion once the template's params for it read the output as a plain answer).
"""

from __future__ import annotations

import re
from dataclasses import replace

from explorer.handlers.registry import source_of
from explorer.triage import markers as mk
from explorer.triage import suggest
from explorer.triage.facts import Facts
from explorer.triage.model import END_OF_OUTPUT, Finding, quote, shown


def _brace_stop(f: Facts) -> str | None:
    return next((s for s in f.content_stops if s.strip() in ("{", "[{")), None)


def json_opens_call(f: Facts) -> tuple[Finding, ...]:
    """llama.cpp quirk: when calls are bare JSON, content ends at the first ``{`` and the rest
    must be calls, so an answer holding JSON that is not a call is rejected outright."""
    if f.tool_parser_reason is not None or not f.failed:
        return ()
    stop = _brace_stop(f)
    if stop is None:
        return ()
    pos = f.output.find(stop.strip())
    if pos < 0:
        return ()
    obj = next((o for o in f.objects if o.start == pos), None)
    if obj is not None and obj.looks_like_call:
        return ()  # a call, just not the one the parser wanted: the other checks say why
    end = obj.end if obj is not None and obj.ok else min(len(f.output), pos + 1)
    return (Finding(
        check="json-opens-call", severity="cause",
        summary=f"In this template's format a tool call is a bare JSON object, so llama.cpp takes the first "
                f"{shown(stop.strip())} in the output as the start of a call; this one is not a call, so the whole "
                "output is rejected.",
        detail=f"llama.cpp quirk: the content rule stops at {shown(stop)} (the start of a call in this format) and "
               "everything after it must parse as tool calls; there is no way back to content, so ordinary JSON "
               "(or a brace in prose) after the start of the reply fails the parse.",
        span=(pos, end), expected="a tool call (or no \"{\" at all)", found=f.output[pos:min(end, pos + 40)],
        fix_hint="llama.cpp side: the content rule cannot return from a brace that is not a call. Request side: "
                 "tool_choice \"none\" when no call is wanted (llama.cpp then builds a content-only parser). Model "
                 "side: avoid JSON in plain answers with this template.",
        fix_where="llama.cpp", quirk=True, llama_cpp="analyze_tools::build_tool_parser_json_native "
        "(common/chat-auto-parser-generator.cpp): content until the call's first character",
        rule=f"In a bare-JSON call format llama.cpp ends the content at the first {shown(stop.strip())}, and "
             "everything from there must be tool calls.",
        suggestion=suggest.changed_request(f, replace(f.request, tool_choice="none"), 'tool_choice "none"',
                                           'send tool_choice "none" when no call is wanted', (),
                                           content=f.output)),)


_PY_CALL = r"\b({names})\s*\("


def _how_parser_reads(f: Facts) -> tuple[str, str]:
    """(how the parser reads a call, in words; the text a call starts with) without the
    template's own rendering: from the parser's markers, never a guess at JSON."""
    opener = f.openers[0].text if f.openers else ""
    json_args = mk.json_arguments(f.arena)
    if opener:
        return (f"starting with {shown(opener)}" + (" and JSON arguments" if json_args else "")), opener
    if json_args:
        return "as JSON objects", "a JSON call"
    mode = f.analysis.tools.format.mode.value if f.analysis is not None else ""
    return (f"in the {mode} format its analysis found" if mode else f"in the {f.params.handler} handler's format"), \
        "the call as the template renders it"


def pythonic_call(f: Facts) -> tuple[Finding, ...]:
    """A Python-style call of an offered tool that the parser does not read as a call: the
    format writes calls otherwise, or (the template's own rendering says so) the template
    writes them Python-style too and llama.cpp's parser for it does not read that."""
    if f.tool_parser_reason is not None or f.calls or not f.tool_names:
        return ()
    if any("(" in m.text for m in f.openers):
        return ()  # the format itself uses parentheses
    pattern = re.compile(_PY_CALL.format(names="|".join(re.escape(n) for n in f.tool_names)))
    m = pattern.search(f.output)
    if m is None or not (f.failed or f.in_content(m.group(0))):
        return ()
    close = f.output.find(")", m.end())
    end = close + 1 if close >= 0 else len(f.output)
    found = f.output[m.start():min(end, m.start() + 40)]
    wrote = shown(m.group(1) + "(…)")
    own = f.template_call
    if own is not None and pattern.search(own):
        return (Finding(
            check="pythonic-call", severity="cause",
            summary=f"The model wrote a Python-style call {wrote}, which is how this template writes calls too (its "
                    f"own rendering: {quote(own, 80)}), but {parser_words(f)} does not read that call, so "
                    "llama.cpp does not return it as one.",
            detail="The template renders calls Python-style; llama.cpp parses only the call format it read from the "
                   "template (the autoparser's analysis) or a routed handler's own format, and its reading of this "
                   "template does not match the template's own call. The template findings say where the reading "
                   "went wrong.",
            span=(m.start(), end), expected=own, found=found,
            rule="llama.cpp reads a tool call only in the format its parser was built for; the autoparser's reading "
                 "of a Python-style call template does not give a parser for these calls.",
            fix_hint="llama.cpp side: a dedicated handler (or an analysis workaround) for this template's Python-style "
                     "calls. Template side: render calls in a format the autoparser reads.",
            fix_where="llama.cpp", quirk=True, llama_cpp=f"{f.params.handler} ({source_of(f.params.handler)})"),)
    if own is not None:
        how, expected = f"like this (its own rendering of a call): {quote(own, 80)}", own
    else:
        how, expected = _how_parser_reads(f)
    return (Finding(
        check="pythonic-call", severity="cause",
        summary=f"The model wrote a Python-style call {wrote}; this template writes calls {how}, so llama.cpp does "
                "not read it as a call.",
        detail="llama.cpp parses only the call format the template renders (the autoparser's analysis or the "
               "routed handler); Python-style calls (as Llama 4 emits them) are ordinary text to it.",
        span=(m.start(), end), expected=expected, found=found,
        fix_hint="Use the model's own chat template (its call format), or a model that calls tools the way this "
                 "template renders them."),)


def parser_words(f: Facts) -> str:
    if f.params.handler == "autoparser":
        mode = f.analysis.tools.format.mode.value if f.analysis is not None else ""
        return f"the parser llama.cpp's autoparser built for it ({mode} format)" if mode else \
            "the parser llama.cpp's autoparser built for it"
    return f"llama.cpp's {f.params.handler} parser"


def required_call_missing(f: Facts) -> tuple[Finding, ...]:
    if f.request.tool_choice != "required" or f.tool_parser_reason is not None or f.calls:
        return ()
    if any(m.text.strip() in f.output for m in f.openers) or f.call_like_objects:
        return ()  # a call was attempted: the other checks say why it did not parse
    if f.failed:
        summary = ("The request sets tool_choice \"required\", so llama.cpp's parser requires a tool call, and the "
                   "output has none: the parse fails.")
        detail = "With tool_choice \"required\" llama.cpp builds a parser whose tool calls are not optional."
    else:
        summary = ("The request sets tool_choice \"required\" but the output has no tool call; llama.cpp still "
                   "returns it as content.")
        detail = ("llama.cpp quirk: the parser's tool calls are required, but the parse is always lenient, so "
                  "output that ends before any call counts as unfinished rather than wrong. In llama-server the "
                  "grammar (not lazy with \"required\") keeps a constrained model from answering without a call.")
    return (Finding(
        check="required-call-missing", severity="cause" if f.failed else "warning",
        summary=summary, detail=detail, span=(0, len(f.output)), expected="a tool call",
        found=f.output[:40] or END_OF_OUTPUT,  # the place is the whole output: it has no call
        rule="With tool_choice \"required\" llama.cpp's parser requires at least one tool call (its tool calls are "
             "not optional).",
        fix_hint="Request side: use tool_choice \"auto\" when a plain answer is acceptable. Model side: with "
                 "\"required\" the model must call a tool (sample with llama-server's grammar on).",
        fix_where="request", quirk=not f.failed,
        llama_cpp="" if f.failed else "common_chat_parse (common/chat.cpp, lenient parse)",
        suggestion=suggest.changed_request(f, replace(f.request, tool_choice="auto"), 'tool_choice "auto"',
                                           'send tool_choice "auto" when a plain answer is acceptable', (),
                                           content=f.message.content if f.message is not None else f.output)),)
