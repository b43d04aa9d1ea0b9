"""What a triage says: findings about one parse, and the diagnosis that holds them.

Input: nothing (definitions). Output: ``Finding`` (one explained observation about the
output: a stable check id, a severity, a one-sentence summary, llama.cpp's side of the
story, where in the output, expected vs found bytes, and what would make it parse),
``Diagnosis`` (llama.cpp's parse -- message or error -- plus the findings), and ``Check``
(one registered check: an id and a pure function from ``Facts`` to findings).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from types import MappingProxyType
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, get_args

from explorer.errors import exception_json

if TYPE_CHECKING:
    from explorer.output.parse import ChatMessage
    from explorer.errors import GrammarError, OutputParseError
    from explorer.triage.facts import Facts

Severity = Literal["cause", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = get_args(Severity)
# findings are listed by severity, causes first (a stable sort keeps the order within one)
SEVERITY_RANK: Mapping[str, int] = MappingProxyType({s: i for i, s in enumerate(SEVERITIES)})

# Where the fix belongs: the model or its prompt, the request (tools, tool_choice, kwargs),
# the chat template, or llama.cpp itself (a parser limitation or bug).
FixWhere = Literal["model", "request", "template", "llama.cpp"]
FIX_WHERE: tuple[FixWhere, ...] = get_args(FixWhere)

# ``found`` of a finding whose place is the end of the output: there is no text to show.
END_OF_OUTPUT = "(end of output)"


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

    def coordinates(self) -> tuple[tuple[str, str], ...]:
        """(coordinate, how to read it) for each coordinate a user meets, for display."""
        chars = f"{self.char}" if self.end <= self.char + 1 else f"{self.char}–{self.end}"
        return (
            ("llama.cpp offset", (f"{self.llama_offset} (bytes into generation prompt + output: llama.cpp "
                                  f"0c1e5709's result.end, whose warning \"unparsed … output:\" prints the text "
                                  f"from here; the explorer's error prints it as \"(offset {self.llama_offset})\")")),
            ("older builds' pos", (f"{self.pos} (bytes into the output alone: \"Failed to parse input at pos "
                                   f"{self.pos}\")")),
            ("output character", f"{chars} (code points into the model output, from 0)"),
            ("line:column", f"{self.line}:{self.column} (in the output, from 1; columns in characters)"),
        )

    def describe(self) -> str:
        return (f"llama.cpp offset {self.llama_offset} (generation prompt + output, bytes; 0c1e5709's "
                f"\"unparsed … output:\" starts here); older builds' pos {self.pos} (output, bytes); output "
                f"character {self.char} (line {self.line}, column {self.column})")

    def to_json(self) -> dict[str, int]:
        return {"char": self.char, "end": self.end, "llama_offset": self.llama_offset, "pos": self.pos,
                "line": self.line, "column": self.column}


@dataclass(frozen=True)
class Suggestion:
    """A corrected output or a changed request, shown only after our own parse of it gave
    the intended message (``verified``: what that parse returned, in words)."""

    kind: Literal["output", "request"]
    summary: str
    text: str = ""  # the corrected output (kind "output")
    request_change: str = ""  # e.g. 'tool_choice "auto"' or 'parallel_tool_calls true' (kind "request")
    verified: str = ""

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

    def to_json(self) -> dict[str, Any]:
        return {"check": self.check, "severity": self.severity, "summary": self.summary,
                "detail": self.detail, "span": list(self.span) if self.span else None,
                "place": self.place.to_json() if self.place else None,
                "expected": self.expected, "found": self.found, "fix_hint": self.fix_hint,
                "fix_where": self.fix_where, "quirk": self.quirk, "llama_cpp": self.llama_cpp, "rule": self.rule,
                "suggestion": self.suggestion.to_json() if self.suggestion else None,
                "field": self.field, "probe": self.probe, "template_line": self.template_line}


@dataclass(frozen=True)
class Check:
    """A registered check: a stable id, what it looks for, and the pure function."""

    id: str
    looks_for: str
    run: Callable[["Facts"], tuple[Finding, ...]]


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
    message: "ChatMessage | None"
    error: "OutputParseError | None"
    findings: tuple[Finding, ...]
    is_partial: bool = False  # explained as llama.cpp's partial (streaming) parse
    build_error: "GrammarError | None" = None  # llama-server errors before generating; nothing parsed

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

    def to_json(self) -> dict[str, Any]:
        return {
            "handler": self.handler,
            "generation_prompt": self.generation_prompt,
            "result": self.message.to_oracle_json() if self.message is not None else None,
            "exception": exception_json(self.error) if self.error is not None else None,
            "verdict": self.verdict,
            "is_partial": self.is_partial,
            "build_error": str(self.build_error) if self.build_error is not None else None,
            "findings": [f.to_json() for f in self.findings],
        }

    def to_text(self) -> str:
        lines = [self.verdict, ""]
        if not self.findings:
            lines.append(self.nothing_found)
        for f in self.findings:
            quirk = " (llama.cpp quirk)" if f.quirk else ""
            lines.append(f"[{f.severity}] {f.check}{quirk}: {f.summary}")
            if f.place is not None:
                lines.append(f"    at {f.place.describe()}")
            elif f.span is not None:
                lines.append(f"    at output characters {f.span[0]}..{f.span[1]}")
            if f.field:
                where = f"    field {f.field}" + (f", set by probe {f.probe}" if f.probe else "")
                lines.append(where + (f", template line {f.template_line}" if f.template_line else ""))
            if f.rule:
                lines.append(f"    rule: {f.rule}")
            if f.expected or f.found:
                lines.append(f"    expected: {shown(f.expected)}")
                lines.append(f"    found:    {shown(f.found)}")
            if f.detail:
                lines.append(f"    why: {f.detail}")
            if f.fix_hint:
                lines.append(f"    fix ({f.fix_where}{': ' + f.llama_cpp if f.llama_cpp else ''}): {f.fix_hint}")
            if f.suggestion is not None:
                lines.append(f"    suggestion (verified: {f.suggestion.verified}): {f.suggestion.summary}")
                if f.suggestion.text:
                    lines.append(f"        {shown(f.suggestion.text)}")
        return "\n".join(lines) + "\n"


def shown(text: str) -> str:
    """A string quoted with its whitespace escaped (``"<tool_call>\\n"``)."""
    return json.dumps(text, ensure_ascii=False)
