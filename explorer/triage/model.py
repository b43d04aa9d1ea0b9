"""What a triage says: findings about one parse, and the diagnosis that holds them.

Input: nothing (definitions). Output: ``Finding`` (one explained observation about the
output: a stable check id, a severity, a one-sentence summary, llama.cpp's side of the
story, where in the output, expected vs found bytes, and what would make it parse),
``Diagnosis`` (llama.cpp's parse -- message or error -- plus the findings), and ``Check``
(one registered check: an id and a pure function from ``Facts`` to findings).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal, get_args

from explorer.errors import exception_json
from explorer.jsontypes import JsonObject
from explorer.vocabulary import SEVERITIES as SEVERITIES  # re-exported for the triage's users
from explorer.vocabulary import Severity as Severity

if TYPE_CHECKING:
    from explorer.apply import Request
    from explorer.errors import GrammarError, OutputParseError
    from explorer.output.parse import ChatMessage
    from explorer.triage.facts import Facts

# findings are listed by severity, causes first (a stable sort keeps the order within one)
SEVERITY_RANK: Mapping[str, int] = MappingProxyType({s: i for i, s in enumerate(SEVERITIES)})

# Where the fix belongs: the model or its prompt, the request (tools, tool_choice, kwargs),
# the chat template, or llama.cpp itself (a parser limitation or bug).
FixWhere = Literal["model", "request", "template", "llama.cpp"]
FIX_WHERE: tuple[FixWhere, ...] = get_args(FixWhere)

# ``found`` of a finding whose place is the end of the output: there is no text to show.
END_OF_OUTPUT = "(end of output)"
# Where an excerpt was cut: a ``found`` longer than the finding shows ends with it, and a
# quoted excerpt has it at each side that was cut (``quote`` also says the whole length).
CUT = "…"
# A reference to another check's finding, in a sentence: ``(see grammar-accepts)``.
SEE = re.compile(r" ?\(see ([a-z][a-z0-9-]*)\)")


def cut(text: str, limit: int) -> str:
    """``text`` whole when it has at most ``limit`` characters, else its first ``limit``
    characters and ``CUT``: how a finding's ``found`` shows a long stretch of output."""
    return text if len(text) <= limit else text[:limit] + CUT


def is_cut_of(shown_text: str, whole: str) -> bool:
    """Whether ``shown_text`` is ``whole``, or ``cut(whole, n)`` for some n."""
    if shown_text == whole:
        return True
    return shown_text.endswith(CUT) and len(shown_text) - 1 < len(whole) and whole.startswith(shown_text[:-1])


def quote(text: str, limit: int = 60, *, keep: Literal["start", "end"] = "start", around: int | None = None,
          start: int | None = None) -> str:
    """``text`` quoted for a sentence (as ``shown``): whole when it fits in ``limit``
    characters, else cut, with ``CUT`` at each cut side and which characters of how many
    are shown: the first ones (``keep`` "start"), the last ones ("end"), a window around
    character ``around``, or the ``limit`` characters from character ``start`` on."""
    n = len(text)
    if start is not None and start > 0:
        start = min(start, n)
        end = min(n, start + limit)
        piece = CUT + text[start:end] + (CUT if end < n else "")
        return f"{shown(piece)} (characters {start}–{end} of {n})"
    if n <= limit:
        return shown(text)
    if around is not None:
        start = max(0, min(n - limit, around - limit // 2))
        end = start + limit
        piece = (CUT if start else "") + text[start:end] + (CUT if end < n else "")
        which = f"characters {start}–{end}" if start else (
            f"the first {limit}" if not start else f"the last {limit}")
        return f"{shown(piece)} ({which} of {n} characters)"
    if keep == "end":
        return f"{shown(CUT + text[-limit:])} (the last {limit} of {n} characters)"
    return f"{shown(text[:limit] + CUT)} (the first {limit} of {n} characters)"


@dataclass(frozen=True)
class Place:
    """One place in the model output, in every coordinate a user meets.

    ``char``/``end``: code points into the output alone (what the triage's spans count).
    ``llama_offset``: bytes into the generation prompt + the output, what llama.cpp's
    parser counts (``result.end`` at 0c1e5709) and what the explorer's parse error prints.
    ``pos``: bytes into the output alone, older llama-server builds' "Failed to parse
    input at pos N". ``line``/``column``: 1-based, in the output, columns in characters.
    """

    char: int
    end: int
    llama_offset: int
    pos: int
    line: int
    column: int
    # llama.cpp 0c1e5709's warning "unparsed … output:" prints the text from here: true of one
    # place only, where a final parse that failed stopped (``result.end``); set by the diagnosis
    unparsed: bool = False

    @classmethod
    def of(cls, output: str, generation_prompt: str, start: int, end: int | None = None) -> Place:
        start = max(0, min(start, len(output)))
        stop = start if end is None else max(start, min(end, len(output)))
        pos = len(output[:start].encode("utf-8", "surrogatepass"))
        gp_bytes = len(generation_prompt.encode("utf-8", "surrogatepass"))
        line = output.count("\n", 0, start) + 1
        column = start - (output.rfind("\n", 0, start) + 1) + 1
        return cls(start, stop, gp_bytes + pos, pos, line, column)

    def where(self) -> str:
        """The place as a summary names it (the one wording the triage uses): llama-server's
        own numbers first, as a user finds them in its log, then the output's."""
        return (f"llama.cpp offset {self.llama_offset} (older builds' pos {self.pos}; output character {self.char}, "
                f"line {self.line}, column {self.column})")

    def server_where(self) -> str:
        """llama-server's own numbers only (what a headline names)."""
        return f"llama.cpp offset {self.llama_offset} (older builds' pos {self.pos})"

    def coordinates(self) -> tuple[tuple[str, str], ...]:
        """(coordinate, how to read it) for each coordinate a user meets, for display."""
        chars = f"{self.char}" if self.end <= self.char + 1 else f"{self.char}–{self.end}"
        unparsed = (" llama.cpp 0c1e5709's warning \"unparsed … output:\" prints the text from here, and its "
                    f"explorer error says \"(offset {self.llama_offset})\"." if self.unparsed else "")
        return (
            ("llama.cpp offset", f"{self.llama_offset} (bytes into generation prompt + output, as llama.cpp 0c1e5709 "
                                 f"counts result.end).{unparsed}"),
            ("older builds' pos", (f"{self.pos} (bytes into the output alone: \"Failed to parse input at pos "
                                   f"{self.pos}\")")),
            ("output character", f"{chars} (code points into the model output, from 0)"),
            ("line:column", f"{self.line}:{self.column} (in the output, from 1; columns in characters)"),
        )

    def describe(self) -> str:
        """The place on one line, every coordinate; "starts here" only where it does."""
        here = "; 0c1e5709's \"unparsed … output:\" starts here" if self.unparsed else ""
        return (f"llama.cpp offset {self.llama_offset} (generation prompt + output, bytes{here}); older builds' pos "
                f"{self.pos} (output, bytes); output character {self.char} (line {self.line}, column {self.column})")

    def to_json(self) -> dict[str, int]:
        return {"char": self.char, "end": self.end, "llama_offset": self.llama_offset, "pos": self.pos,
                "line": self.line, "column": self.column, "unparsed": self.unparsed}


@dataclass(frozen=True)
class Suggestion:
    """A corrected output or a changed request, shown only after our own parse of it gave
    the intended message (``verified``: what that parse returned, in words)."""

    kind: Literal["output", "request"]
    summary: str
    text: str = ""  # the corrected output (kind "output")
    request_change: str = ""  # e.g. 'tool_choice "auto"' or 'parallel_tool_calls true' (kind "request")
    verified: str = ""
    request: Request | None = None  # the changed request itself (kind "request"), to re-run it

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "summary": self.summary, "text": self.text,
                "request_change": self.request_change, "verified": self.verified}


@dataclass(frozen=True)
class Finding:
    """One reason (or hint) behind llama.cpp's answer for this output.

    ``span`` is (start, end) in the model output (generation prompt excluded), or None
    when the finding is about the request or the template rather than a place in the
    text; ``expected``, ``found`` and ``span`` always describe the same place: ``found``
    is the output text at ``span`` (or a prefix of it), or ``END_OF_OUTPUT`` for an empty
    span at the end. ``place`` (filled in by the diagnosis) is that place in every
    coordinate; a summary that says where names it with ``Place.where()``. A finding
    about two places is two findings.
    ``fix_where`` says where the fix belongs; ``quirk`` marks a llama.cpp quirk (its
    behaviour, named in ``llama_cpp``: the function or handler); ``rule`` states the
    parser's rule behind the finding in one sentence. ``field``, ``probe`` and
    ``template_line`` locate a finding about the template's analysis.
    """

    check: str
    severity: Severity
    summary: str
    detail: str = ""
    span: tuple[int, int] | None = None
    expected: str = ""
    found: str = ""
    fix_hint: str = ""
    fix_where: FixWhere = "model"
    quirk: bool = False
    llama_cpp: str = ""
    rule: str = ""
    suggestion: Suggestion | None = None
    field: str = ""
    probe: str = ""
    template_line: int | None = None
    place: Place | None = None
    see: tuple[str, ...] = ()  # the checks its "(see X)" references name, each one present in the diagnosis
    fact: str = ""  # the fact it states, when other findings state it too (one fact, one fix_where)

    def to_json(self) -> JsonObject:
        return {"check": self.check, "severity": self.severity, "summary": self.summary,
                "detail": self.detail, "span": list(self.span) if self.span else None,
                "place": self.place.to_json() if self.place else None,
                "expected": self.expected, "found": self.found, "fix_hint": self.fix_hint,
                "fix_where": self.fix_where, "quirk": self.quirk, "llama_cpp": self.llama_cpp, "rule": self.rule,
                "suggestion": self.suggestion.to_json() if self.suggestion else None,
                "field": self.field, "probe": self.probe, "template_line": self.template_line,
                "see": list(self.see), "fact": self.fact}

    def at(self, span: tuple[int, int]) -> Finding:
        """The same finding at another span (one mistake repeated through a long output: its
        wording is made once; a shallow copy, far cheaper than ``dataclasses.replace``)."""
        new = copy.copy(self)
        object.__setattr__(new, "span", span)
        object.__setattr__(new, "place", None)
        return new

    @property
    def found_cut(self) -> tuple[int, int] | None:
        """(characters shown, characters at the span) when ``found`` is a cut of the span's text."""
        if self.span is None or not self.found.endswith(CUT):
            return None
        whole = self.span[1] - self.span[0]
        shown_chars = len(self.found) - 1
        return (shown_chars, whole) if shown_chars < whole else None

    def found_text(self) -> str:
        """``found`` quoted, with how much of the span it shows when it is a cut."""
        if self.found == END_OF_OUTPUT:
            return END_OF_OUTPUT
        part = self.found_cut
        return shown(self.found) + (f" (the first {part[0]} of {part[1]} characters)" if part else "")


@dataclass(frozen=True)
class Check:
    """A registered check: a stable id, what it looks for, and the pure function."""

    id: str
    looks_for: str
    run: Callable[[Facts], tuple[Finding, ...]]


@dataclass(frozen=True)
class Diagnosis:
    """llama.cpp's parse of the output and the findings that explain it.

    Findings never change the parse: ``message`` / ``error`` are exactly what
    ``common_chat_parse`` gives for this request. ``build_error``: the request's params
    (its grammar) could not be built, so nothing was parsed (``message`` and ``error`` None).
    """

    output: str
    generation_prompt: str
    handler: str
    message: ChatMessage | None
    error: OutputParseError | None
    findings: tuple[Finding, ...]
    is_partial: bool = False  # explained as llama.cpp's partial (streaming) parse
    build_error: GrammarError | None = None  # llama-server errors before generating; nothing parsed

    @property
    def causes(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == "cause")

    def by_check(self, check: str) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.check == check)

    @property
    def verdict(self) -> str:
        """One line: what llama-server answers, in words."""
        if self.build_error is not None:
            return f"llama-server answers with an error before generating (the request's grammar cannot be built): " \
                   f"{self.build_error}"
        if self.error is not None:
            return f"llama-server answers with an error (HTTP 500): {self.error}"
        assert self.message is not None
        calls = len(self.message.tool_calls)
        parts = [f"{calls} tool call{'s' if calls != 1 else ''}"]
        parts.append("content" if self.message.content else "no content")
        parts.append("reasoning" if self.message.reasoning_content else "no reasoning")
        head = "Parsed so far (partial output): " if self.is_partial else "Parsed: "
        return head + ", ".join(parts) + "."

    @property
    def nothing_found(self) -> str:
        return ("No check found anything to explain: llama.cpp's parser read this output the way the "
                "template's format describes it.")

    @property
    def all_clear(self) -> bool:
        """Findings there may be, but only notes: no cause, no warning."""
        return not any(f.severity in ("cause", "warning") for f in self.findings)

    @property
    def nothing_wrong(self) -> str:
        """What an all-clear diagnosis with notes says (never said beside a cause)."""
        return ("No check found anything wrong: llama.cpp's parser read this output the way the template's format "
                "describes it. The notes below only say where things are (e.g. where the lazy grammar wakes).")

    @property
    def lead(self) -> Finding | None:
        """The finding the headline tells: the first cause (a broken template's first), else the
        first warning; None when there are only notes."""
        return next((f for f in self.findings if f.severity == "cause"),
                    next((f for f in self.findings if f.severity == "warning"), None))

    @property
    def unparsed_place(self) -> Place | None:
        """Where llama.cpp 0c1e5709's "unparsed … output:" text starts (a failed final parse)."""
        return next((f.place for f in self.findings if f.place is not None and f.place.unparsed), None)

    @property
    def headline(self) -> str:
        """One sentence: what the model wrote, what llama.cpp expected there, at llama-server's
        position, and where the fix belongs (``headline_of``)."""
        return headline_of(self)

    @property
    def notes(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == "info")

    @property
    def folded(self) -> tuple[Finding, ...]:
        """What the short form shows on one line each: the notes, and the template's findings
        after its first cause (a broken reading of the template is told once, in full)."""
        template = [f for f in self.findings if f.check.startswith("template-") and f.severity != "info"]
        lead = next((f for f in template if f.severity == "cause"), template[0] if template else None)
        return tuple(f for f in self.findings if f.severity == "info" or (f in template and f is not lead))

    def to_json(self) -> JsonObject:
        return {
            "handler": self.handler,
            "generation_prompt": self.generation_prompt,
            "result": self.message.to_oracle_json() if self.message is not None else None,
            "exception": exception_json(self.error) if self.error is not None else None,
            "headline": self.headline,
            "verdict": self.verdict,
            "is_partial": self.is_partial,
            "build_error": str(self.build_error) if self.build_error is not None else None,
            "findings": [f.to_json() for f in self.findings],
        }

    def to_text(self, verbose: bool = False, also: tuple[str, ...] = ()) -> str:
        """The headline first; then (unless the parse is clean) the verdict, every cause and
        warning with its place on one line, and each note on one line. ``verbose``: every
        finding in full, with its place in every coordinate. ``also``: short remarks (what
        the request was given) put in the clean parse's one line, else after the findings."""
        if self.lead is None and not verbose:
            notes = len(self.notes)
            said = ([f"{notes} note{'s' if notes != 1 else ''}: --verbose shows them"] if notes else []) + list(also)
            return self.headline[:-1] + (f" ({'; '.join(said)})" if said else "") + ".\n"
        lines = [self.headline, "", self.verdict, ""]
        if not self.findings:
            lines.append(self.nothing_found)
        folded = set(map(id, self.folded)) if not verbose else set()
        for f in self.findings:
            if id(f) in folded:
                lines.append(f"[{f.severity}] {f.check}: {_sentence(f.summary)}.")
                continue
            lines += finding_lines(f, verbose)
        if not verbose and (self.folded or any(f.place is not None for f in self.findings)):
            lines += ["", "(--verbose: every finding in full, and every place in every coordinate)"]
        lines += [f"request: {a}" for a in also]
        return "\n".join(lines) + "\n"


FIX_WHERE_WORDS: dict[str, str] = {
    "model": "the model or its prompt",
    "request": "the request (tools, tool_choice, parallel_tool_calls, chat_template_kwargs)",
    "template": "the chat template",
    "llama.cpp": "llama.cpp",
}
_FIX_SHORT: dict[str, str] = {"model": "the model (or its prompt)", "request": "the request",
                              "template": "the chat template", "llama.cpp": "llama.cpp"}


def finding_lines(f: Finding, verbose: bool) -> list[str]:
    """One finding as text: its summary, place, rule, expected/found, why, fix, suggestion."""
    quirk = " (llama.cpp quirk)" if f.quirk else ""
    lines = [f"[{f.severity}] {f.check}{quirk}: {f.summary}"]
    if f.place is not None:
        lines.append(f"    at {f.place.describe() if verbose else f.place.where()}")
    elif f.span is not None:
        lines.append(f"    at output characters {f.span[0]}..{f.span[1]}")
    if f.field:
        where = f"    field {f.field}" + (f", set by probe {f.probe}" if f.probe else "")
        lines.append(where + (f", template line {f.template_line}" if f.template_line else ""))
    if f.rule:
        lines.append(f"    rule: {f.rule}")
    if f.expected or f.found:
        lines.append(f"    expected: {shown(f.expected)}")
        lines.append(f"    found:    {f.found_text()}")
    if f.detail:
        lines.append(f"    why: {f.detail}")
    if f.fix_hint:
        lines.append(f"    fix ({f.fix_where}{': ' + f.llama_cpp if f.llama_cpp else ''}): {f.fix_hint}")
    if f.suggestion is not None:
        lines.append(f"    suggestion (verified: {f.suggestion.verified}): {f.suggestion.summary}")
        if f.suggestion.text:
            lines.append(f"        {shown(f.suggestion.text)}")
    return lines


HEADLINE_CHARS = 40  # how much of the output a headline quotes


_MARKUP = re.compile(r"<[^<>\s]+>|\[/?[A-Z][A-Z_]*\]")


def _expected_words(expected: str) -> str:
    """What llama.cpp expected, for a sentence: a description in words as it is (its markup
    quoted), literal text quoted (an expectation list of quoted literals is already quoted)."""
    if expected.startswith('"') or " or \"" in expected:
        return expected
    tokens = expected.split()
    words = [t for t in tokens if re.fullmatch(r"[a-z][a-z'_-]*", t.strip("()',.:;"))]
    markup = [t for t in tokens if _MARKUP.fullmatch(t)]
    if len(tokens) > 1 and len(words) >= 2 and len(words) + len(markup) >= 0.6 * len(tokens) \
            and len(words) + len(markup) >= len(tokens) - 2:
        return _MARKUP.sub(lambda m: shown(m.group(0)), expected)  # a description: its markup quoted
    return shown(expected)


def _sentence(summary: str) -> str:
    """The summary's first sentence, without its final full stop."""
    m = re.search(r"(?<=[a-z)\]\"'])\. (?=[A-Z])", summary)
    return (summary[:m.start()] if m else summary).rstrip(". ")


def headline_of(d: Diagnosis) -> str:
    lead = d.lead
    if lead is None:
        return f"{d.verdict.rstrip('.')}; no check found anything wrong."
    fix = _FIX_SHORT.get(lead.fix_where, lead.fix_where)
    if lead.span is None or lead.place is None or not (lead.found or lead.expected):
        return f"{_sentence(lead.summary)}; the fix belongs to {fix}."
    place = lead.place
    start, end = lead.span
    where = f"at {place.server_where()}"
    log = d.unparsed_place
    if log is not None and log.char != place.char:
        where += f" (llama-server's \"unparsed … output:\" warning starts at llama.cpp offset {log.llama_offset})"
    wrote = d.output[start:end]
    expects = f"where llama.cpp expects {_expected_words(lead.expected)}" if lead.expected else \
        "where llama.cpp's parser reads something else"
    if lead.found == END_OF_OUTPUT or not wrote:
        return f"The output ends {where}, {expects}; the fix belongs to {fix}."
    return f"The model wrote {quote(wrote, HEADLINE_CHARS)} {where}, {expects}; the fix belongs to {fix}."


def shown(text: str) -> str:
    """A string quoted with its whitespace escaped (``"<tool_call>\\n"``)."""
    return json.dumps(text, ensure_ascii=False)
