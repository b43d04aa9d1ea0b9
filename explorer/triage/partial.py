"""Partial output (streaming, ``is_partial``): what is still being written.

Input: ``Facts`` of a diagnosis made with ``is_partial=True`` and the other checks'
findings. Output: the ``partial-output`` check's info findings (a tool call or reasoning
still being written, and what llama.cpp's partial parse returns meanwhile), and
``in_progress``, which turns a cause about the very end of the output into an info when
that text may still grow into what llama.cpp expects (``<tool_call>`` on its way to
``<tool_call>\\n``, a function name half written, text the parser has not read yet).
"""

from __future__ import annotations

import json
from dataclasses import replace

from explorer.triage.facts import Facts
from explorer.triage.model import Finding, quote, shown

ALWAYS_IN_PROGRESS = ("unconsumed-output", "reasoning-never-closed", "malformed-arguments")


def _could_grow(f: Facts, finding: Finding) -> bool:
    if finding.span is None or finding.span[1] < len(f.output.rstrip()):
        return False
    if finding.check in ALWAYS_IN_PROGRESS:
        return True
    found = finding.found.strip()
    candidates = [finding.expected, *finding.expected.split(", "), *f.tool_names]
    return bool(found) and any(c.strip().startswith(found) or c.startswith(finding.found) for c in candidates if c)


def in_progress(f: Facts, findings: tuple[Finding, ...]) -> tuple[Finding, ...]:
    """With is_partial: causes about text at the end that may still become right (and the
    truncation warnings), as info."""
    if not f.is_partial:
        return findings
    out: list[Finding] = []
    for finding in findings:
        truncation = finding.severity == "warning" and finding.check in ALWAYS_IN_PROGRESS
        if (finding.severity == "cause" or truncation) and _could_grow(f, finding):
            finding = replace(
                finding, severity="info", summary="In progress (the output may still grow): " + finding.summary,
                detail=(finding.detail + " With is_partial the text at the end of the output may still become "
                        "what llama.cpp expects; llama.cpp's partial parse returns what it has so far.").strip())
        out.append(finding)
    return tuple(out)


def _arguments_complete(arguments: str) -> bool:
    try:
        json.loads(arguments)
    except ValueError:
        return False
    return True


def partial_output(f: Facts) -> tuple[Finding, ...]:
    """A call or reasoning still being written when the output is partial."""
    if not f.is_partial or f.message is None or f.partial_failed:
        return ()
    m = f.message
    tail = max(0, len(f.output) - 40)
    end = (tail, len(f.output))  # the place: the end of the output, where it is still being written
    if m.tool_calls:
        last = m.tool_calls[-1]
        if not _arguments_complete(last.arguments) or f.parse.result.need_more_input():
            return (Finding(
                check="partial-output", severity="info",
                summary=f"A tool call to {shown(last.name)} is still being written: llama.cpp's partial parse "
                        f"returns it with the arguments so far ({quote(last.arguments, 40, keep='end')}).",
                detail="With is_partial llama.cpp maps what the parser has read so far; llama-server streams the "
                       "call's name first, then argument deltas, and the final parse (is_partial false) settles it.",
                span=end, expected="the rest of the call", found=f.output[tail:],
                fix_hint="Wait for the output to finish: diagnose the finished output without is_partial to "
                         "see the final parse."),)
    started = [o for o in f.openings if not o.in_prompt and not _in_reasoning(f, o.start)] + [
        o for o in (_opener_at(f, marker.text) for marker in f.openers) if o is not None]
    if started and not m.tool_calls:
        return (Finding(
            check="partial-output", severity="info",
            summary="A tool call has started but is not readable yet: llama.cpp's partial parse returns no call "
                    "until the function name is complete.",
            detail="With is_partial llama.cpp maps what the parser has read so far; a call appears once its name "
                   "has been parsed.", span=end, expected="the rest of the call", found=f.output[tail:],
            fix_hint="Wait for the output to finish (diagnose it without is_partial then)."),)
    if m.reasoning_content and not m.content and f.parse.result.need_more_input():
        return (Finding(
            check="partial-output", severity="info",
            summary="Reasoning is still being written: llama.cpp's partial parse returns it as reasoning_content "
                    "so far.", detail="With is_partial llama.cpp maps what the parser has read so far.",
            span=end, expected="the end of the reasoning", found=f.output[tail:],
            fix_hint="Wait for the output to finish (diagnose it without is_partial then)."),)
    return ()


def _opener_at(f: Facts, marker: str) -> object | None:
    pos = f.output.rfind(marker.strip())
    if pos < 0 or any(c.name and c.name in f.output[pos:] for c in f.calls) or _in_reasoning(f, pos):
        return None
    return pos


def _in_reasoning(f: Facts, pos: int) -> bool:
    """The output from ``pos`` on is reasoning so far: a call written there is reasoning text
    (call-in-reasoning), not a call on its way."""
    rest = f.output[pos:].strip()
    m = f.message
    return m is not None and bool(rest) and m.reasoning_content.rstrip().endswith(rest)
