"""Does streaming end where the final parse does? The Try-it page's warning, in words.

Input: the partial parse of the whole output (``is_partial=True``: the last message a
streaming client has been sent deltas for, as the oracle's ``streaming_final``) and the
final non-partial parse (the oracle's ``result``), each a ChatMessage or the error it
raised. Output: None when they agree, else one sentence saying how they differ.
"""

from __future__ import annotations

from typing import Any


def _short(text: str, n: int = 50) -> str:
    return repr(text if len(text) <= n else text[: n - 1] + "…")


def message_summary(message: Any) -> str:
    """'an empty message' or "content 'It is…', 1 tool call (get_weather)"."""
    parts = []
    if message.reasoning_content:
        parts.append(f"reasoning_content {_short(message.reasoning_content)}")
    if message.content:
        parts.append(f"content {_short(message.content)}")
    if message.tool_calls:
        names = ", ".join(c.name for c in message.tool_calls)
        parts.append(f"{len(message.tool_calls)} tool call{'s' if len(message.tool_calls) > 1 else ''} ({names})")
    return ", ".join(parts) or "an empty message"


def differing_fields(a: Any, b: Any) -> list[str]:
    """The message fields two parses differ in (tool calls by name, arguments and id)."""
    out = [f for f in ("content", "reasoning_content") if getattr(a, f) != getattr(b, f)]
    calls_a, calls_b = list(a.tool_calls), list(b.tool_calls)
    if len(calls_a) != len(calls_b):
        out.append(f"tool_calls (count {len(calls_a)} vs {len(calls_b)})")
    else:
        for i, (x, y) in enumerate(zip(calls_a, calls_b)):
            out += [f"tool_calls[{i}].{f}" for f in ("name", "arguments", "id") if getattr(x, f) != getattr(y, f)]
    return out


def disagreement(stream_message: Any | None, stream_error: Any | None,
                 final_message: Any | None, final_error: Any | None) -> str | None:
    """How the end of streaming differs from the final parse (None: they agree).

    Both throwing counts as agreement: the client gets an error either way.
    """
    if stream_error is not None and final_error is not None:
        return None
    if final_error is not None:
        return (f"while streaming, the whole output parses as {message_summary(stream_message)} (a client has been "
                f"sent deltas for it), but the final parse throws: {final_error}")
    if stream_error is not None:
        return (f"the partial parse of the whole output throws ({stream_error}), but the final parse gives "
                f"{message_summary(final_message)}")
    fields = differing_fields(stream_message, final_message)
    if not fields:
        return None
    return (f"streaming ends on {message_summary(stream_message)}, the final parse gives "
            f"{message_summary(final_message)}: they differ in {', '.join(fields)}")
