"""The prompt-side vocabulary handler classes declare their behaviour in.

Input: nothing (types and small shared pieces). Output: what a handler class may set for
the apply stage (``explorer.apply.prompt``): a ``MessageWorkaround`` llama.cpp runs on
the messages for that route, a messages override, extra template context, a touch-up of
the rendered ``RenderedPair``, and the assistant turn it writes by hand to continue the
final message (``TaggedTurn``, ``ContentOnlyTurn`` or a function of
``ContinuationInputs``). Nothing here imports the apply stage: it reads these
declarations, so they live below it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from explorer.jsontypes import Json, JsonObject

Message = JsonObject
Messages = list[Message]
JsonSchema = Mapping[str, Json] | None


@dataclass(frozen=True)
class RenderedPair:
    """The handler's final prompt and generation prompt."""

    prompt: str
    generation_prompt: str
    note: str = ""


# The functions a handler class declares are protocols, not Callable aliases: a class
# attribute of a Callable type reads as a method to mypy (its first argument bound), while
# a handler sets a staticmethod or a callable object. Arguments are positional.


class MessagesOverride(Protocol):
    """(messages after the generic workarounds, patched source, the request's json_schema)
    -> the messages the handler renders itself (not normalised again), or None to render those."""

    def __call__(self, messages: Messages, source: str, json_schema: JsonSchema, /) -> Messages | None: ...


class AdditionalContext(Protocol):
    """(patched source, json_schema) -> extra template variables, or None."""

    def __call__(self, source: str, json_schema: JsonSchema, /) -> JsonObject | None: ...


class Finish(Protocol):
    """(the rendered pair, add_generation_prompt) -> the pair the handler returns."""

    def __call__(self, rendered: RenderedPair, add_generation_prompt: bool, /) -> RenderedPair: ...


@dataclass(frozen=True)
class MessageWorkaround:
    """A ``workaround::`` function llama.cpp runs only on this handler's route.

    ``step`` is the detail the apply stage records; ``applies_reason`` and
    ``skipped_reason`` are what the routing report says on and off this route.
    """

    rewrite: Callable[[Messages], Messages]
    step: str
    applies_reason: str
    skipped_reason: str

    @property
    def name(self) -> str:
        return self.rewrite.__name__


# --- continue_final_message ------------------------------------------------------------------


class TextPart(Protocol):
    @property
    def type(self) -> str: ...

    @property
    def text(self) -> str: ...


class ContinuedMessage(Protocol):
    """What a continuation reads of the message being continued (a ``ChatMsg``)."""

    @property
    def content(self) -> str: ...

    @property
    def content_parts(self) -> Sequence[TextPart]: ...

    @property
    def reasoning_content(self) -> str: ...


def render_content(msg: ContinuedMessage, delimiter: str = "\n\n") -> str:
    """``common_chat_msg::render_content``: the content, or its text parts joined."""
    if msg.content:
        return msg.content
    return delimiter.join(p.text for p in msg.content_parts if p.type == "text")


@dataclass(frozen=True)
class ContinuationInputs:
    generation_prompt: str  # the rendered diff (before the handler's rewrite)
    prompt: str
    msg: ContinuedMessage
    mode: str  # "reasoning" or "content"
    source: str
    reasoning_start: str = ""  # autoparser only
    reasoning_end: str = ""


class Continuation(Protocol):
    """The assistant turn a route writes to continue the final message."""

    def __call__(self, inputs: ContinuationInputs, /) -> str: ...



@dataclass(frozen=True)
class TaggedTurn:
    """prefix + think_start + reasoning [+ think_end + content_start + content]."""

    prefix: str
    think_start: str
    think_end: str
    content_start: str = ""

    def __call__(self, c: ContinuationInputs) -> str:
        gen = self.prefix + self.think_start + c.msg.reasoning_content
        if c.mode == "content":
            gen += self.think_end + self.content_start + render_content(c.msg)
        return gen


@dataclass(frozen=True)
class ContentOnlyTurn:
    """Handlers without reasoning: prefix + content, whatever the mode."""

    prefix: str

    def __call__(self, c: ContinuationInputs) -> str:
        return self.prefix + render_content(c.msg)


# --- shared message rewrites -------------------------------------------------------------------


def reasoning_to_thinking(drop_content_with_calls: bool) -> MessagesOverride:
    """The templates read ``thinking``; GPT-OSS also drops the content of a turn with calls."""

    def adjust(messages: Messages, source: str, json_schema: JsonSchema) -> Messages:
        out = []
        for msg in copy.deepcopy(messages):
            if isinstance(msg.get("reasoning_content"), str):
                msg["thinking"] = msg["reasoning_content"]
                calls = msg.get("tool_calls")
                if drop_content_with_calls and isinstance(calls, list) and calls:
                    msg.pop("content", None)
            out.append(msg)
        return out

    return adjust
