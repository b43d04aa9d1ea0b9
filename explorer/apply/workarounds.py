"""llama.cpp's ``workaround::`` functions as pure functions on message lists.

Input: the message dicts llama.cpp hands to a template (or, for ``trim_all_content``,
parsed ``ChatMsg`` values). Output: a new list; the input is never modified. Which of
them run for a template is decided in ``explorer.routing.message_workarounds``.
``convert_tool_responses_gemma4`` runs on one route only, so the Gemma 4 handler class
declares it (``explorer.handlers.gemma4``); it is re-exported here with the others.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from explorer.apply.messages import ChatMsg
from explorer.errors import RequestError
from explorer.handlers.gemma4 import convert_tool_responses_gemma4
from explorer.jsontypes import JsonObject

__all__ = [
    "convert_tool_responses_gemma4", "func_args_not_string", "map_developer_role_to_system",
    "requires_non_null_content", "system_message_not_supported", "trim_all_content",
]


def _copy(messages: list[JsonObject]) -> list[JsonObject]:
    return copy.deepcopy(list(messages))


def map_developer_role_to_system(messages: list[JsonObject]) -> list[JsonObject]:
    """Role ``developer`` becomes ``system`` (skipped by llama.cpp for GPT-OSS)."""
    out = _copy(messages)
    for msg in out:
        if msg.get("role") == "developer":
            msg["role"] = "system"
    return out


def system_message_not_supported(messages: list[JsonObject]) -> list[JsonObject]:
    """A leading system message is merged into the next one as ``system + "\\n" + next``,
    or dropped when it is the only message. Only the first message is looked at."""
    out = _copy(messages)
    if not out or out[0].get("role") != "system":
        return out
    if len(out) > 1:
        first, second = out[0], out[1]
        sys_text, next_text = first.get("content"), second.get("content")
        if not isinstance(sys_text, str) or not isinstance(next_text, str):
            # llama.cpp quirk: the merge reads both contents as strings, so typed
            # (array) content makes it throw instead of merging
            raise RequestError(
                "system_message_not_supported: expected string contents to merge the "
                f"system message, found {type(sys_text).__name__} and "
                f"{type(next_text).__name__}"
            )
        second["content"] = sys_text + "\n" + next_text
    return out[1:]


def requires_non_null_content(messages: list[JsonObject]) -> list[JsonObject]:
    """A message with ``tool_calls`` and no ``content`` key gets ``content: ""``.
    (A present-but-null content is left alone: the test is on the key.)"""
    out = _copy(messages)
    for msg in out:
        if "tool_calls" in msg and "content" not in msg:
            msg["content"] = ""
    return out


def func_args_not_string(messages: list[JsonObject]) -> list[JsonObject]:
    """Tool-call arguments given as JSON text become JSON values, for templates that
    iterate over argument objects. Text that is not JSON is an error, as in llama.cpp."""
    out = _copy(messages)
    for msg in out:
        calls = msg.get("tool_calls")
        for call in calls if isinstance(calls, list) else ():  # the template JSON's calls are a list
            fn = call.get("function") if isinstance(call, dict) else None
            if not isinstance(fn, dict) or "arguments" not in fn:
                continue
            if isinstance(fn["arguments"], str):
                try:
                    fn["arguments"] = json.loads(fn["arguments"], parse_constant=_reject)
                except ValueError as exc:
                    raise RequestError(
                        f"Failed to parse tool call arguments as JSON: {exc} "
                        f"(arguments of {fn.get('name', '?')!r}: {fn['arguments'][:80]!r})"
                    ) from exc
    return out


def _reject(token: str) -> Any:
    raise ValueError(f"invalid literal {token}")  # NaN/Infinity are not JSON


def trim_all_content(messages: tuple[ChatMsg, ...]) -> tuple[ChatMsg, ...]:
    """Strip C whitespace from content, reasoning and text parts (StepFun templates).

    Runs on parsed messages, before string-only templates join the parts, so each
    part is trimmed on its own."""
    return tuple(m.with_trimmed_content() for m in messages)
