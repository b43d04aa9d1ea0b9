"""A chat request as llama-server hands it to ``common_chat_templates_apply``.

Input: OpenAI-style fields. Output: a frozen ``Request``; ``standard_request`` builds the
request every oracle analysis file was computed with (its ``inputs``). The request rules
the CLI and the app share are here, once: ``thinking_kwargs`` (what a thinking setting
sends as chat_template_kwargs) and ``with_thinking`` (a request under another setting).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from explorer.errors import RequestError
from explorer.jsontypes import Json, JsonObject
from explorer.vocabulary import CONTINUATION_MODES, REASONING_FORMATS, TOOL_CHOICES


@dataclass(frozen=True)
class Request:
    messages: tuple[JsonObject, ...]
    tools: tuple[JsonObject, ...] | None = None
    tool_choice: str = "auto"
    parallel_tool_calls: bool = False
    enable_thinking: bool = True
    reasoning_format: str = "deepseek"
    chat_template_kwargs: JsonObject = field(default_factory=dict)
    add_generation_prompt: bool = True
    json_schema: JsonObject | None = None
    bos_token: str = ""
    eos_token: str = ""
    # llama-server's continue_final_message: "none", "auto", "reasoning", "content"
    continue_final_message: str = "none"
    # the model's tokenizer adds BOS/EOS itself: a rendered leading BOS / trailing EOS is cut
    add_bos: bool = False
    add_eos: bool = False
    # llama-server's --skip-chat-parsing: no handler, no autoparser; all output is content
    force_pure_content: bool = False

    def __post_init__(self) -> None:
        if self.tool_choice not in TOOL_CHOICES:
            # common_chat_tool_choice_parse_oaicompat
            raise RequestError(
                f"Invalid tool_choice: {self.tool_choice!r} (expected one of {TOOL_CHOICES})"
            )
        if self.continue_final_message not in CONTINUATION_MODES:
            raise RequestError(
                f"Unknown continue_final_message: {self.continue_final_message!r} "
                f"(expected one of {CONTINUATION_MODES})"
            )
        if self.reasoning_format not in REASONING_FORMATS:
            raise RequestError(
                f"Unknown reasoning format: {self.reasoning_format!r} "
                f"(expected one of {REASONING_FORMATS})"
            )

    def with_thinking(self, enabled: bool) -> Request:
        return replace(self, enable_thinking=enabled)

    def to_oracle_inputs(self) -> JsonObject:
        """The shape of an oracle analysis file's ``inputs`` (no enable_thinking: the
        oracle applies each request with both settings)."""
        return {
            "messages": [dict(m) for m in self.messages],
            "tools": [dict(t) for t in self.tools] if self.tools is not None else None,
            "tool_choice": self.tool_choice,
            "parallel_tool_calls": self.parallel_tool_calls,
            "reasoning_format": self.reasoning_format,
            "add_generation_prompt": self.add_generation_prompt,
            "bos_token": self.bos_token,
            "eos_token": self.eos_token,
            "chat_template_kwargs": dict(self.chat_template_kwargs),
        }


# The chat_template_kwargs names templates read the thinking switch under: most read
# ``enable_thinking`` (llama-server's own), some ``thinking`` (e.g. DeepSeek V3.1's).
THINKING_KWARGS: tuple[str, ...] = ("enable_thinking", "thinking")


def thinking_kwargs(thinking: bool | None) -> JsonObject:
    """The chat_template_kwargs a thinking setting sends, as the CLI's ``--thinking`` and the
    app's toggle both send it: the flag under every name in ``THINKING_KWARGS``; ``None``
    (the setting left unset: llama-server's default) sends none."""
    if thinking is None:
        return {}
    return {name: bool(thinking) for name in THINKING_KWARGS}


def merged_kwargs(kwargs: Mapping[str, Json] | None, thinking: bool | None) -> JsonObject:
    """A request's chat_template_kwargs: the given ones, the thinking setting's on top (the
    switch wins over a kwarg of the same name)."""
    return {**dict(kwargs or {}), **thinking_kwargs(thinking)}


def with_thinking(request: Request, thinking: bool) -> Request:
    """``request`` under another thinking setting: enable_thinking and its kwargs."""
    return replace(request, enable_thinking=thinking,
                   chat_template_kwargs=merged_kwargs(request.chat_template_kwargs, thinking))


GET_WEATHER_TOOL: JsonObject = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "unit": {"type": "string", "enum": ["c", "f"]},
            },
            "required": ["city"],
        },
    },
}


def standard_request(enable_thinking: bool) -> Request:
    """The oracle's standard request (its README, "Analysis files")."""
    return Request(
        messages=({"role": "user", "content": "Hello"},),
        tools=(copy.deepcopy(GET_WEATHER_TOOL),),
        tool_choice="auto",
        parallel_tool_calls=True,
        enable_thinking=enable_thinking,
        reasoning_format="deepseek",
        chat_template_kwargs={},
        add_generation_prompt=True,
    )
