"""Continuing the final assistant message (``continue_final_message``).

Input: the routed handler's name and ``ContinuationInputs``: the generation prompt and
prompt it rendered for the conversation without the last message, that last message and
the continuation mode. Output: the generation prompt the handler builds by hand
(reasoning opened, optionally closed, then the content so far); llama.cpp appends it to
the prompt. Each route class declares its turn (``continuation``); this module resolves
the mode and asks the class.
"""

from __future__ import annotations

from explorer.apply.messages import ChatMsg
from explorer.handlers.prompting import ContinuationInputs, render_content
from explorer.handlers.registry import route_named

__all__ = ["ContinuationInputs", "continuation_generation_prompt", "render_content", "resolve_mode"]


def resolve_mode(mode: str, msg: ChatMsg | None) -> str:
    """``auto`` becomes ``reasoning`` for a message with only reasoning, else ``content``."""
    if mode != "auto" or msg is None:
        return mode
    if msg.reasoning_content and not msg.content and not msg.content_parts:
        return "reasoning"
    return "content"


def continuation_generation_prompt(handler: str, inputs: ContinuationInputs) -> str:
    return route_named(handler).continuation(inputs)
