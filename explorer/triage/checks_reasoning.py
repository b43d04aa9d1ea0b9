"""Checks about reasoning: why thinking text landed in content (or broke the parse).

Input: ``Facts``. Output: findings. A reasoning end tag with no start (and a generation
prompt that does not open reasoning); a start tag while thinking is disabled or the
template has no reasoning; a start tag the generation prompt already wrote; a tool call
inside the reasoning block; ``reasoning_format`` none, which keeps reasoning in content
by design.
"""

from __future__ import annotations

from dataclasses import replace

from explorer.output.parse import ChatMessage
from explorer.triage import suggest as sg
from explorer.triage.facts import Facts
from explorer.triage.model import END_OF_OUTPUT, Finding, quote, shown

# Tags models use for thinking when the template declares none.
COMMON_STARTS = ("<think>", "<thinking>", "[THINK]")
COMMON_ENDS = ("</think>", "</thinking>", "[/THINK]")


def _texts(markers) -> tuple[str, ...]:
    return tuple(m.text for m in markers if m.text)


def _opened_by_prompt(f: Facts) -> str | None:
    gp = f.gp.rstrip()
    return next((s for s in _texts(f.reasoning_starts) if gp.endswith(s)), None)


def _origin(markers, tag: str) -> str:
    found = next((m for m in markers if m.text == tag), None)
    return f" ({shown(tag)} comes from {found.origin})" if found is not None else ""


def _thinking_state(f: Facts) -> str:
    return (f"enable_thinking is {str(bool(f.request.enable_thinking)).lower()}, and the generation prompt "
            f"{quote(f.gp, 40, keep='end')} does not open reasoning")


def _flip_opens(f: Facts) -> str | None:
    """The start tag the generation prompt would end with under the other enable_thinking."""
    flipped = f.flipped_generation_prompt
    if flipped is None:
        return None
    starts = _texts(f.reasoning_starts) or COMMON_STARTS
    return next((s for s in starts if flipped.rstrip().endswith(s)), None)


def reasoning_end_without_start(f: Facts) -> tuple[Finding, ...]:
    if f.request.reasoning_format == "none" or _opened_by_prompt(f):
        return ()
    ends = _texts(f.reasoning_ends) or COMMON_ENDS
    starts = _texts(f.reasoning_starts) or COMMON_STARTS
    for end in ends:
        pos = f.output.find(end)
        if pos < 0 or any(0 <= f.output.find(s) < pos for s in starts):
            continue
        if not (f.failed or f.in_content(end)):
            return ()
        start_tag = starts[0]
        return (Finding(
            check="reasoning-end-without-start", severity="cause",
            summary=f"The output closes reasoning with {shown(end)} but never opened it with {shown(start_tag)}, "
                    + ("so llama.cpp does not read the text before it as reasoning (and the parse fails)." if f.failed
                       else "so llama.cpp keeps the reasoning in content."),
            detail=f"llama.cpp reads reasoning only between {shown(start_tag)} and {shown(end)}, or after the "
                   f"generation prompt when the template opens reasoning there; here {_thinking_state(f)}. "
                   "Text before an unopened end tag is ordinary content."
                   + _origin(f.reasoning_starts, start_tag) + _origin(f.reasoning_ends, end),
            span=(pos, pos + len(end)), expected=f"{end} closing a block {start_tag} opened", found=end,
            fix_hint=_end_without_start_hint(f, start_tag), suggestion=_flip_suggestion(f)),)
    return ()


def _flip_suggestion(f: Facts) -> sg.Suggestion | None:
    """enable_thinking the other way, when the template's params for it read the reasoning."""
    flip = str(not f.request.enable_thinking).lower()
    return sg.reasoning_change(f, f.flipped_request, f"enable_thinking {flip}",
                               f"send enable_thinking {flip} (and its chat_template_kwargs)")


def _end_without_start_hint(f: Facts, start_tag: str) -> str:
    opens = _flip_opens(f)
    flip = str(not f.request.enable_thinking).lower()
    if opens is not None:
        return (f"Request side: send enable_thinking {flip}: this template's generation prompt then ends with "
                f"{shown(opens)}, so llama.cpp reads the text up to the end tag as reasoning. Model side: or emit "
                f"{shown(start_tag)} first.")
    if f.flipped_generation_prompt is not None:
        return (f"Model side: emit {shown(start_tag)} first (enable_thinking {flip} does not make this template's "
                "generation prompt open reasoning either).")
    return (f"Model side: emit {shown(start_tag)} first. Request side: if the template opens reasoning in the "
            "generation prompt only with thinking on, send enable_thinking true (and the chat_template_kwargs "
            "the template reads).")


def reasoning_not_extracted(f: Facts) -> tuple[Finding, ...]:
    if f.request.reasoning_format == "none":
        return ()
    starts = _texts(f.reasoning_starts) or COMMON_STARTS
    for tag in starts:
        pos = f.output.find(tag)
        if pos < 0 or not (f.failed or f.in_content(tag)):
            continue
        if not f.params.supports_thinking and not _texts(f.reasoning_starts):
            why = "the template has no reasoning format (llama.cpp found no thinking tags), so its parser has no reasoning rule"
            hint = "Model side: do not emit thinking with this template, or use the model's own template that declares it."
        elif not f.request.enable_thinking:
            why = ("enable_thinking is false: the generation prompt "
                   f"{quote(f.gp, 40, keep='end')} already closed reasoning, so the parser expects the answer right away")
            hint = "Request side: send enable_thinking true (and the chat_template_kwargs the template reads)."
        elif f.output[:pos].strip():
            why = (f"the parser expects {shown(tag)} only at the very start of the reply (after the generation "
                   "prompt); here it comes later")
            hint = "Model side: start the reply with the reasoning block, or leave it out."
        else:
            continue
        return (Finding(
            check="reasoning-not-extracted", severity="cause",
            summary=f"The output starts a reasoning block with {shown(tag)}, but {why.split(':')[0]}; "
                    + ("llama.cpp's parser does not read it as reasoning (and the parse fails)." if f.failed
                       else "the reasoning stays in content."),
            detail=why + "." + _origin(f.reasoning_starts, tag), span=(pos, pos + len(tag)),
            expected="no reasoning block here", found=tag, fix_hint=hint,
            suggestion=_flip_suggestion(f) if not f.request.enable_thinking else None),)
    return ()


def reasoning_format_none(f: Facts) -> tuple[Finding, ...]:
    if f.request.reasoning_format != "none":
        return ()
    for tag in _texts(f.reasoning_starts) + _texts(f.reasoning_ends):
        pos = f.output.find(tag)
        if pos >= 0:
            return (Finding(
                check="reasoning-format-none", severity="warning",
                summary="The request sets reasoning_format \"none\", so llama.cpp leaves the reasoning in content "
                        "(tags included).",
                detail="With reasoning_format none llama.cpp's parser tags reasoning as content by design.",
                span=(pos, pos + len(tag)), expected="reasoning_format deepseek (llama-server's default)",
                found=tag, fix_hint="Request side: use reasoning_format deepseek (or auto) to get reasoning_content.",
                fix_where="request",
                suggestion=sg.reasoning_change(f, replace(f.request, reasoning_format="deepseek"),
                                               "reasoning_format deepseek", "send reasoning_format deepseek")),)
    return ()


def reasoning_start_repeated(f: Facts) -> tuple[Finding, ...]:
    """The prompt opened reasoning and the model opens it again: the tag is kept as text."""
    opened = _opened_by_prompt(f)
    if opened is None or f.request.reasoning_format == "none":
        return ()
    lead = len(f.output) - len(f.output.lstrip())
    if not f.output.startswith(opened, lead):
        return ()
    m = f.message
    kept = m is not None and (opened in m.reasoning_content or opened in m.content)
    if not (kept or f.failed):
        return ()
    return (Finding(
        check="reasoning-start-repeated", severity="warning",
        summary=f"The generation prompt already opens reasoning with {shown(opened)}, and the model writes "
                f"{shown(opened)} again, so llama.cpp keeps the second one as text"
                + (" inside reasoning_content." if m is not None and opened in m.reasoning_content else "."),
        detail=f"llama.cpp parses the generation prompt {quote(f.gp, 40, keep='end')} in front of the output: reasoning is "
               f"already open when the output starts, and a second {shown(opened)} is ordinary reasoning text."
               + _origin(f.reasoning_starts, opened),
        span=(lead, lead + len(opened)), expected="the reasoning itself (the tag is in the prompt)", found=opened,
        fix_hint=f"Model side: do not repeat {shown(opened)} (the chat template already emits it). A client can "
                 "strip the leading tag from reasoning_content."),)


def call_in_reasoning(f: Facts) -> tuple[Finding, ...]:
    """A tool call written before reasoning ends: llama.cpp keeps it as reasoning text."""
    m = f.message
    if m is None or not m.reasoning_content or f.tool_parser_reason is not None or m.tool_calls:
        return ()
    for marker in f.openers:
        text = marker.text.strip()
        inside = m.reasoning_content.find(text)
        pos = f.output.find(text)
        if inside < 0 or pos < 0:
            continue
        end_tag = next((e for e in _texts(f.reasoning_ends) if e in f.output[pos:]), "")
        return (Finding(
            check="call-in-reasoning", severity="cause",
            summary=f"A tool call ({shown(text)}) sits inside the reasoning block"
                    + (f", before {shown(end_tag)}" if end_tag else "")
                    + ", so llama.cpp keeps it as reasoning text, not as a call.",
            detail="llama.cpp reads tool calls only after the reasoning block ends; inside it everything is "
                   f"reasoning_content. The opener {shown(marker.text)} comes from {marker.origin}.",
            span=(pos, pos + len(text)), expected=f"{end_tag} before the call" if end_tag else "the call after the reasoning",
            found=text,
            fix_hint="Model side: close the reasoning before calling a tool."
                     + (" Request side: with thinking forced open by the generation prompt, the model must still "
                        "write the end tag first." if _opened_by_prompt(f) else "")),)
    return _pattern_in_reasoning(f, m)


def _pattern_in_reasoning(f: Facts, m: ChatMessage) -> tuple[Finding, ...]:
    """A regex trigger (a handler's call announcement) matching inside the reasoning ``m`` has."""
    for pat in f.patterns:
        if pat.regex is None or pat.anchored:
            continue
        hit = pat.regex.search(m.reasoning_content)
        if hit is None:
            continue
        text = hit.group(0)
        pos = f.output.find(text)
        return (Finding(
            check="call-in-reasoning", severity="cause",
            summary=f"A tool call ({shown(text)}, matching the trigger pattern {shown(pat.source)}) sits inside the "
                    "reasoning, so llama.cpp keeps it as reasoning text, not as a call.",
            detail="llama.cpp reads tool calls only after the reasoning ends; inside it everything is "
                   f"reasoning_content. The pattern is a {pat.origin}.",
            span=(pos, pos + len(text)) if pos >= 0 else None, expected="the call after the reasoning", found=text,
            fix_hint="Model side: close the reasoning before calling a tool."),)
    return ()


def reasoning_never_closed(f: Facts) -> tuple[Finding, ...]:
    """The prompt opened reasoning and the output never closes it: all of it is reasoning."""
    opened = _opened_by_prompt(f)
    m = f.message
    if opened is None or m is None or m.content or m.tool_calls or not m.reasoning_content.strip():
        return ()
    ends = _texts(f.reasoning_ends)
    if not ends or any(e in f.output for e in ends):
        return ()
    flipped = f.flipped_generation_prompt
    flip = str(not f.request.enable_thinking).lower()
    request_hint = ""
    if flipped is not None and _flip_opens(f) is None:
        request_hint = (f" Request side: with enable_thinking {flip} this template's generation prompt does not "
                        "open reasoning.")
    return (Finding(
        check="reasoning-never-closed", severity="cause",
        summary=f"The generation prompt opens reasoning with {shown(opened)} and the output never closes it with "
                f"{shown(ends[0])}, so llama.cpp returns the whole output as reasoning_content and the content is "
                "empty.",
        detail=f"llama.cpp parses the generation prompt {quote(f.gp, 40, keep='end')} in front of the output, so reasoning is "
               f"open from the first character; only {shown(ends[0])} ends it."
               + _origin(f.reasoning_starts, opened) + _origin(f.reasoning_ends, ends[0]),
        span=(len(f.output), len(f.output)), expected=ends[0], found=END_OF_OUTPUT,
        fix_hint=f"Model side: end the reasoning with {shown(ends[0])} before the answer. An output cut off while "
                 "still reasoning (max_tokens, a stop string) looks exactly like this." + request_hint,
        suggestion=sg.changed_request(f, f.flipped_request, f"enable_thinking {flip}",
                                      f"send enable_thinking {flip}: the generation prompt then opens no reasoning",
                                      sg.calls_as_returned(f), content=f.output) if request_hint else None),)
