"""An OpenAI chat-completions body as llama-server turns it into a ``Request``.

Input: the request body (a dict), the template's capabilities and llama-server's
options (``--reasoning``, ``--reasoning-format``, ``--chat-template-kwargs``, prefill).
Output: the ``Request`` llama-server hands to ``common_chat_templates_apply``
(``oaicompat_chat_params_parse``), or a ``RequestError`` with llama-server's message.
Media content parts are not loaded: they are kept as the message gave them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from explorer.apply.messages import parse_oaicompat, tools_to_template_json
from explorer.apply.request import Request
from explorer.caps import Caps
from explorer.errors import RequestError
from explorer.jsontypes import Json, JsonObject
from explorer.vocabulary import REASONING_FORMATS, TOOL_CHOICES


@dataclass(frozen=True)
class ServerOptions:
    """The llama-server flags that shape a request."""

    enable_reasoning: int = -1  # --reasoning: 1 on, 0 off, -1 auto (the template decides)
    reasoning_format: str = "deepseek"  # --reasoning-format (llama-server's default)
    prefill_assistant: bool = True  # a trailing assistant message is continued
    chat_template_kwargs: JsonObject = field(default_factory=dict)  # --chat-template-kwargs


def server_enable_thinking(options: ServerOptions, template_supports_thinking: bool) -> bool:
    """llama-server's default: thinking unless ``--reasoning off``, if the template
    supports it (``common_chat_templates_support_enable_thinking``)."""
    return options.enable_reasoning != 0 and template_supports_thinking


def _value(body: Mapping[str, Json], key: str, default: Any, kind: type | tuple[type, ...]) -> Any:
    """llama-server's ``json_value``: null or a value of the wrong type gives the default.

    llama.cpp quirk: a wrong type is only logged, so e.g. an OpenAI ``tool_choice``
    object ({"type": "function", ...}) silently becomes "auto"."""
    value = body.get(key)
    if value is None:
        return default
    if kind is bool and not isinstance(value, bool):
        return default
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        return default
    return value


def _json_schema(body: JsonObject) -> JsonObject | None:
    schema = body.get("json_schema")
    grammar = _value(body, "grammar", "", str)
    if schema is not None and grammar:
        raise RequestError("Cannot use both json_schema and grammar")
    if "response_format" in body:
        fmt = _value(body, "response_format", {}, dict)
        kind = _value(fmt, "type", "", str)
        if kind == "json_object":
            if "schema" in fmt or not schema:
                schema = _value(fmt, "schema", {}, dict)
        elif kind == "json_schema":
            schema = _value(_value(fmt, "json_schema", {}, dict), "schema", {}, dict)
        elif kind and kind != "text":
            raise RequestError(
                'response_format type must be one of "text" or "json_object", but got: ' + kind
            )
    if isinstance(schema, dict) and not schema:
        schema = {"type": "object"}  # an absent or empty schema means any object
    return schema if isinstance(schema, dict) else None


def _check_messages(body: JsonObject) -> list[JsonObject]:
    if "messages" not in body:
        raise RequestError("'messages' is required")
    messages = body["messages"]
    if not isinstance(messages, list):
        raise RequestError("Expected 'messages' to be an array")
    checked: list[JsonObject] = []
    for msg in messages:
        if not isinstance(msg, dict):  # llama-server: a value that is not an object contains no 'content'
            raise RequestError("All non-assistant messages must contain 'content'")
        role = msg.get("role") if isinstance(msg.get("role"), str) else ""
        checked.append(msg)
        if role != "assistant" and "content" not in msg:
            raise RequestError("All non-assistant messages must contain 'content'")
        if role == "assistant":
            if "content" not in msg and "tool_calls" not in msg:
                raise RequestError("Assistant message must contain either 'content' or 'tool_calls'!")
            if "content" not in msg:
                continue
        content = msg["content"]
        if content is not None and not isinstance(content, (str, list)):
            raise RequestError("Expected 'content' to be a string or an array")
    return checked


def _continuation(body: JsonObject) -> str:
    value = body.get("continue_final_message")
    if value is True:
        return "auto"
    if isinstance(value, str):
        return {"reasoning_content": "reasoning", "content": "content"}.get(value, "none")
    return "none"


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def request_from_body(
    body: JsonObject, *, caps: Caps, enable_thinking: bool, options: ServerOptions = ServerOptions()
) -> Request:
    """``oaicompat_chat_params_parse`` up to ``common_chat_templates_apply``.

    ``enable_thinking``: llama-server's default for this template
    (``server_enable_thinking``); the body's kwargs and reasoning_effort override it.
    """
    tools = body.get("tools")
    tool_choice = _value(body, "tool_choice", "auto", str)
    json_schema = _json_schema(body)
    messages = _check_messages(body)
    parsed = parse_oaicompat(messages)
    tools_to_template_json(tools)  # llama-server rejects malformed tools here
    if tool_choice not in TOOL_CHOICES:
        raise RequestError(f"Invalid tool_choice: {tool_choice}")
    parallel = _value(body, "parallel_tool_calls", caps.supports_parallel_tool_calls, bool)
    add_gen = _value(body, "add_generation_prompt", True, bool)
    continuation = _continuation(body)
    if continuation == "none" and options.prefill_assistant and parsed and parsed[-1].role == "assistant":
        if len(parsed) >= 2 and parsed[-2].role == "assistant":
            raise RequestError("Cannot have 2 or more assistant messages at the end of the list.")
        continuation, add_gen = "auto", False
    if continuation != "none" and add_gen:
        raise RequestError("Cannot set both add_generation_prompt and continue_final_message to true.")
    if continuation != "none" and parsed and parsed[-1].role == "assistant" and parsed[-1].tool_calls:
        raise RequestError("Cannot continue an assistant message that contains tool calls.")
    reasoning_format = options.reasoning_format
    if "reasoning_format" in body:
        value = body["reasoning_format"]
        if not isinstance(value, str) or value not in REASONING_FORMATS:
            raise RequestError(f"Unknown reasoning format: {value}")
        reasoning_format = value
    tool_list = tools if isinstance(tools, list) else []
    has_tools = len(tool_list) > 0
    if has_tools and tool_choice != "none" and "grammar" in body:
        raise RequestError("Cannot use custom grammar constraints with tools.")
    kwargs = dict(options.chat_template_kwargs)
    kwargs.update(_value(body, "chat_template_kwargs", {}, dict))
    thinking_kwarg = _dump(kwargs["enable_thinking"]) if "enable_thinking" in kwargs else ""
    if thinking_kwarg == "true":
        enable_thinking = True
    elif thinking_kwarg == "false":
        enable_thinking = False
    elif thinking_kwarg.startswith('"'):
        raise RequestError('invalid type for "enable_thinking" (expected boolean, got string)')
    if "reasoning_effort" in body:
        effort = _value(body, "reasoning_effort", "", str)
        if effort == "none":
            enable_thinking = False
            kwargs.pop("reasoning_effort", None)
        elif effort:
            kwargs["reasoning_effort"] = effort
    return Request(
        messages=tuple(messages),
        tools=tuple(t for t in tool_list if isinstance(t, dict)) if has_tools else None,  # all are: checked above
        tool_choice=tool_choice,
        parallel_tool_calls=parallel,
        enable_thinking=enable_thinking,
        reasoning_format=reasoning_format,
        chat_template_kwargs=kwargs,
        add_generation_prompt=add_gen,
        json_schema=json_schema,
        continue_final_message=continuation,
    )
