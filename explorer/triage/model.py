"""What a triage says: findings about one parse, and the diagnosis that holds them.

Input: nothing (definitions). Output: ``Finding`` (one explained observation about the
output: a stable check id, a severity, a one-sentence summary, llama.cpp's side of the
story, where in the output, expected vs found bytes, and what would make it parse),
``Diagnosis`` (llama.cpp's parse -- message or error -- plus the findings), and ``Check``
(one registered check: an id and a pure function from ``Facts`` to findings).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from explorer.chat_output import ChatMessage
    from explorer.errors import OutputParseError
    from explorer.triage.facts import Facts

Severity = Literal["cause", "warning", "info"]
SEVERITIES: tuple[str, ...] = ("cause", "warning", "info")


@dataclass(frozen=True)
class Finding:
    """One reason (or hint) behind llama.cpp's answer for this output.

    ``span`` is (start, end) in the model output (generation prompt excluded), or None
    when the finding is about the request rather than a place in the text.
    """

    check: str
    severity: Severity
    summary: str
    detail: str = ""
    span: tuple[int, int] | None = None
    expected: str = ""
    found: str = ""
    fix_hint: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"check": self.check, "severity": self.severity, "summary": self.summary,
                "detail": self.detail, "span": list(self.span) if self.span else None,
                "expected": self.expected, "found": self.found, "fix_hint": self.fix_hint}


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
    ``common_chat_parse`` gives for this request.
    """

    output: str
    generation_prompt: str
    handler: str
    message: "ChatMessage | None"
    error: "OutputParseError | None"
    findings: tuple[Finding, ...]
    is_partial: bool = False  # explained as llama.cpp's partial (streaming) parse

    @property
    def causes(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == "cause")

    def by_check(self, check: str) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.check == check)

    @property
    def verdict(self) -> str:
        """One line: what llama-server answers, in words."""
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

    def to_json(self) -> dict[str, Any]:
        from explorer.chat_output import exception_json

        return {
            "handler": self.handler,
            "generation_prompt": self.generation_prompt,
            "result": self.message.to_oracle_json() if self.message is not None else None,
            "exception": exception_json(self.error) if self.error is not None else None,
            "verdict": self.verdict,
            "is_partial": self.is_partial,
            "findings": [f.to_json() for f in self.findings],
        }

    def to_text(self) -> str:
        lines = [self.verdict, ""]
        if not self.findings:
            lines.append(self.nothing_found)
        for f in self.findings:
            lines.append(f"[{f.severity}] {f.check}: {f.summary}")
            if f.span is not None:
                lines.append(f"    at output characters {f.span[0]}..{f.span[1]}")
            if f.expected or f.found:
                lines.append(f"    expected: {shown(f.expected)}")
                lines.append(f"    found:    {shown(f.found)}")
            if f.detail:
                lines.append(f"    why: {f.detail}")
            if f.fix_hint:
                lines.append(f"    fix: {f.fix_hint}")
        return "\n".join(lines) + "\n"


def shown(text: str) -> str:
    """A string quoted with its whitespace escaped (``"<tool_call>\\n"``)."""
    return json.dumps(text, ensure_ascii=False)
