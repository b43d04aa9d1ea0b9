"""The closer-near-miss check: a closing tag spelt almost right.

Input: ``Facts``. Output: one "cause" finding per place where the output spells a closing
tag of the format (a call's closer, an argument value's closing tag, a reasoning end tag)
almost right: other whitespace or case, a ``-`` for a ``_``, a letter dropped or swapped.
llama.cpp matches closers byte for byte, so a misspelt one is ordinary text: the parse
fails, or a tagged value runs on to the end of the output (and the call comes back with
the rest of the output inside its value). The finding carries a corrected output only when
our own parse of the output with the exact closer gives the calls the model wrote.
``closer_misses`` is worked out once per diagnosis: the cut-off checks read it, so a call
whose closing tag is misspelt is never explained as an output that was cut off.
"""

from __future__ import annotations

from explorer.triage import suggest as sg
from explorer.triage.calls import call_formats, tagged, written_calls
from explorer.triage.facts import Facts
from explorer.triage.model import Finding, cut, quote, shown
from explorer.triage.textscan import describe_difference, near_misses, similar_tags

CHECK = "closer-near-miss"
MIN_CHARS = 3  # a closer shorter than this ("}", "\n") is no tag to misspell
_MEMO: dict[int, tuple[object, tuple[tuple[int, int, str, str, str], ...]]] = {}


def _closers(f: Facts) -> list[tuple[str, str]]:
    """(closer, what it closes) for every closing text of the format, longest first."""
    out: dict[str, str] = {}
    for m in f.closers:
        if len(m.text.strip()) >= MIN_CHARS:
            out.setdefault(m.text.strip(), "a tool call")
    for fmt in call_formats(f.arena).values():
        for c in fmt.arg_closes:
            if len(c.strip()) >= MIN_CHARS:
                out.setdefault(c.strip(), "an argument value")
        for c in fmt.call_closes:
            if len(c.strip()) >= MIN_CHARS:
                out.setdefault(c.strip(), "a tool call")
    for m in f.reasoning_ends:
        if len(m.text.strip()) >= MIN_CHARS:
            out.setdefault(m.text.strip(), "the reasoning")
    return sorted(out.items(), key=lambda kv: -len(kv[0]))


def _first_openings(f: Facts) -> tuple[int, int]:
    """(where the first call markup opens, where reasoning first opens), -1 for never: a
    closer closes something only after it (worked out once, not per candidate)."""
    marks = [m.text.strip() for m in f.openers + f.name_prefixes if m.text.strip()]
    for fmt in call_formats(f.arena).values():
        marks += [o.strip() for o in fmt.arg_openers.values() if o.strip()] + ([fmt.head.strip()] if fmt.head.strip()
                                                                                else [])
    found = [p for p in (f.output.find(m) for m in marks) if p >= 0] + [o.start for o in f.openings]
    starts = [m.text.strip() for m in f.reasoning_starts if m.text.strip()]
    opened = -1 if not any(f.gp.rstrip().endswith(s) for s in starts) else 0
    reasoning = [p for p in (f.output.find(s) for s in starts) if p >= 0]
    return (min(found) if found else -1, opened if opened == 0 else (min(reasoning) if reasoning else -1))


def _opened(f: Facts, start: int, what: str, first: tuple[int, int]) -> bool:
    """What the closer closes was opened before it: a call's opener (or a value's, a call
    head), or reasoning (in the output, or by the generation prompt)."""
    at = first[1] if what == "the reasoning" else first[0]
    return 0 <= at < start or (at == 0 and what == "the reasoning" and start >= 0 and first[1] == 0)


def _explains(f: Facts, start: int, end: int, what: str, first: tuple[int, int]) -> bool:
    """The misspelt closer explains the result: what it closes was opened, and the parse
    failed, the text is in content or dropped, or it sits inside a call's arguments (a value
    that ran on past it)."""
    if not _opened(f, start, what, first):
        return False
    text = f.output[start:end].strip()
    return f.is_cause((start, end)) or any(text in c.arguments for c in f.calls)


def closer_misses(f: Facts) -> tuple[tuple[int, int, str, str, str], ...]:
    """(start, end, what was written, the closer, what it closes) for each misspelt closer
    that explains the parse, earliest first."""
    held = _MEMO.get(id(f))
    if held is not None and held[0] is f:
        return held[1]
    if f.tool_parser_reason is not None and not f.reasoning_ends:
        found: tuple[tuple[int, int, str, str, str], ...] = ()
    else:
        closers = _closers(f)
        first = _first_openings(f)
        known = {c for c, _ in closers} | {m.text.strip() for m in f.openers + f.reasoning_starts}
        known |= set(f.params.preserved_tokens)
        seen: set[int] = set()
        hits: list[tuple[int, int, str, str, str]] = []
        for closer, what in closers:
            misses = list(near_misses(f.output, closer)) + list(similar_tags(f.output, closer, known))
            for m in misses:
                start = m.start + (len(m.text) - len(m.text.lstrip()))
                end = start + len(m.text.strip())
                if start in seen or end <= start or f.output.startswith(closer, start):
                    continue
                if not _explains(f, start, end, what, first):
                    continue
                seen.add(start)
                hits.append((start, end, f.output[start:end], closer, what))
        found = tuple(sorted(hits))
    if len(_MEMO) > 32:
        _MEMO.clear()
    _MEMO[id(f)] = (f, found)
    return found


def _corrected(f: Facts, hits: tuple[tuple[int, int, str, str, str], ...]) -> str:
    text = f.output
    for start, end, _wrote, closer, _what in sorted(hits, reverse=True):
        text = text[:start] + closer + text[end:]
    return text


def _intended(f: Facts, text: str) -> tuple[sg.IntendedCall, ...]:
    formats = call_formats(f.arena)
    if tagged(formats):
        return sg.from_written(written_calls(formats, text))
    return sg.from_json(list(f.call_like_objects))


def _consequence(f: Facts, what: str, wrote: str) -> str:
    if f.failed:
        return "so llama.cpp's parse fails there (llama-server answers with an error, HTTP 500)"
    if any(wrote in c.arguments for c in f.calls) and what != "the reasoning":
        return ("so the value runs on past it to the end of the output, and llama.cpp returns the call with the "
                "rest of the output inside its arguments")
    if what == "the reasoning":
        return "so llama.cpp reads on as reasoning past it"
    return "so llama.cpp does not read it as the closing tag"


def closer_near_miss(f: Facts) -> tuple[Finding, ...]:
    if f.is_partial:
        return ()
    hits = closer_misses(f)
    if not hits:
        return ()
    corrected = _corrected(f, hits)
    fix = sg.corrected_output(f, corrected, "write each closing tag exactly as the template renders it",
                              _intended(f, corrected)) if f.tool_parser_reason is None else None
    out: list[Finding] = []
    for start, end, wrote, closer, what in hits:
        out.append(Finding(
            check=CHECK, severity="cause",
            summary=f"The model wrote {shown(wrote)} where llama.cpp needs exactly {shown(closer)} to close {what} "
                    f"({describe_difference(closer, wrote)}), {_consequence(f, what, wrote)}.",
            detail=f"llama.cpp's parser matches {shown(closer)} byte for byte; any other spelling is ordinary text "
                   f"to it. The output after it: {quote(f.output, 40, start=end)}." if end < len(f.output) else
                   f"llama.cpp's parser matches {shown(closer)} byte for byte; any other spelling is ordinary text.",
            span=(start, end), expected=closer, found=cut(wrote, 60),
            fix_hint=f"Model side: write {shown(closer)} exactly, as the template renders it.",
            fix_where="model", suggestion=fix if not out else None))
    return tuple(out)
