"""llama.cpp's request enumerations, each written once.

Input: nothing. Output: one ``Literal`` type and the tuple of its values (in the order the
CLI, the app and the error messages list them) per enumeration of a chat request:
``tool_choice`` (``common_chat_tool_choice``), ``reasoning_format``
(``common_reasoning_format``, as llama-server spells it) and ``continue_final_message``.
The library checks requests against these tuples, the CLI's argparse ``choices`` and the
app's widgets list them; nothing else spells the values out as a list. Beside them, the
triage's finding severities (``Severity``, most severe first), here so that the handler
classes, below the triage, declare their garbles' severities in the same type.
"""

from __future__ import annotations

from typing import Literal, get_args

ToolChoice = Literal["auto", "required", "none"]
TOOL_CHOICES: tuple[ToolChoice, ...] = get_args(ToolChoice)

ReasoningFormat = Literal["none", "auto", "deepseek", "deepseek-legacy"]
REASONING_FORMATS: tuple[ReasoningFormat, ...] = get_args(ReasoningFormat)

ContinuationMode = Literal["none", "auto", "reasoning", "content"]
CONTINUATION_MODES: tuple[ContinuationMode, ...] = get_args(ContinuationMode)

Severity = Literal["cause", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = get_args(Severity)

__all__ = [
    "CONTINUATION_MODES", "REASONING_FORMATS", "SEVERITIES", "TOOL_CHOICES", "ContinuationMode", "ReasoningFormat",
    "Severity", "ToolChoice",
]
