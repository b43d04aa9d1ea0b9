"""Messages and tools as llama.cpp sees them before any workaround.

Input: OpenAI-style message and tool dicts (a request body). Output: the JSON values
llama.cpp hands to a template: messages go through ``common_chat_msgs_parse_oaicompat``
into ``common_chat_msg`` (``ChatMsg`` here) and back through ``to_json_oaicompat``, then
the content normaliser of the template's caps; tools go through
``common_chat_tools_parse_oaicompat`` and back. The round trip matters: it drops unknown
keys, turns a null content into ``""``, serialises object arguments to a compact JSON
string, and orders keys as llama.cpp does.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from explorer.analysis.diff import trim_whitespace
from explorer.caps import Caps
from explorer.errors import RequestError
from explorer.jsontypes import Json, JsonObject


def dump_compact(value: Any) -> str:
    """nlohmann's ``dump()``: no spaces, non-ASCII kept as UTF-8."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class ContentPart:
    type: str  # "text" or "media_marker"
    text: str


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: str  # always the raw JSON text, as llama.cpp stores it
    id: str = ""


@dataclass(frozen=True)
class ChatMsg:
    """llama.cpp's ``common_chat_msg``: every field a string or tuple, empty when absent."""

    role: str
    content: str = ""
    content_parts: tuple[ContentPart, ...] = ()
    reasoning_content: str = ""
    tool_name: str = ""
    tool_call_id: str = ""
    tool_calls: tuple[ToolCall, ...] = ()

    def contains_media(self) -> bool:
        return any(p.type == "media_marker" for p in self.content_parts)

    def with_trimmed_content(self) -> ChatMsg:
        parts = tuple(
            ContentPart(p.type, trim_whitespace(p.text)) if p.type == "text" else p
            for p in self.content_parts
        )
        return replace(
            self,
            content=trim_whitespace(self.content),
            reasoning_content=trim_whitespace(self.reasoning_content),
            content_parts=parts,
        )


def _fail(what: str, found: Any) -> RequestError:
    return RequestError(f"Failed to parse messages: {what}, got {dump_compact(found)[:200]}")


def _string_field(message: Mapping[str, Json], key: str) -> str:
    value = message[key]
    if not isinstance(value, str):
        raise _fail(f"expected '{key}' to be a string", value)
    return value


def _parse_tool_call(tool_call: Any) -> ToolCall:
    if not isinstance(tool_call, dict) or "type" not in tool_call:
        raise _fail("missing tool call type", tool_call)
    if tool_call["type"] != "function":
        raise _fail("unsupported tool call type", tool_call)
    fc = tool_call.get("function")
    if not isinstance(fc, dict):
        raise _fail("missing tool call function", tool_call)
    if "name" not in fc:
        raise _fail("missing tool call name", tool_call)
    if "arguments" not in fc:
        raise _fail("missing tool call arguments", tool_call)
    args = fc["arguments"]
    arguments = args if isinstance(args, str) else dump_compact(args)
    call_id = tool_call.get("id", "")
    return ToolCall(name=fc["name"], arguments=arguments, id=call_id if call_id else "")


def _parse_content(content: Any) -> tuple[str, tuple[ContentPart, ...]]:
    if isinstance(content, str):
        return content, ()
    if isinstance(content, list):
        parts = []
        for part in content:
            if not isinstance(part, dict) or "type" not in part:
                raise _fail("missing content part type", part)
            if part["type"] not in ("text", "media_marker"):
                raise _fail("unsupported content part type", part["type"])
            if not isinstance(part.get("text"), str):
                raise _fail("content part without text", part)
            parts.append(ContentPart(part["type"], part["text"]))
        return "", tuple(parts)
    if content is None:
        return "", ()
    raise _fail("invalid 'content' type: expected string or array", content)


def parse_oaicompat(messages: object) -> tuple[ChatMsg, ...]:
    """``common_chat_msgs_parse_oaicompat``."""
    if not isinstance(messages, (list, tuple)):
        raise _fail("expected 'messages' to be an array", messages)
    result = []
    for message in messages:
        if not isinstance(message, dict):
            raise _fail("expected 'message' to be an object", message)
        if "role" not in message:
            raise _fail("missing 'role' in message", message)
        has_content = "content" in message
        has_tool_calls = "tool_calls" in message
        content, parts = _parse_content(message["content"]) if has_content else ("", ())
        calls: tuple[ToolCall, ...] = ()
        if has_tool_calls:
            calls = tuple(_parse_tool_call(tc) for tc in message["tool_calls"] or ())
        if not has_content and not has_tool_calls:
            raise _fail("expected 'content' or 'tool_calls'", message)
        result.append(
            ChatMsg(
                role=_string_field(message, "role"),
                content=content,
                content_parts=parts,
                reasoning_content=_string_field(message, "reasoning_content")
                if "reasoning_content" in message
                else "",
                tool_name=_string_field(message, "name") if "name" in message else "",
                tool_call_id=_string_field(message, "tool_call_id")
                if "tool_call_id" in message
                else "",
                tool_calls=calls,
            )
        )
    return tuple(result)


def concat_content_parts(parts: Sequence[Any]) -> str:
    """Join text parts with newlines, never next to a media marker (``ContentPart``s, or the
    template JSON's part objects, read as llama.cpp reads them)."""
    text = ""
    last_was_media = False
    for part in parts:
        ptype = part.type if isinstance(part, ContentPart) else part.get("type", "")
        ptext = part.text if isinstance(part, ContentPart) else part.get("text", "")
        if ptype == "text":
            add_newline = not last_was_media and text != ""
            last_was_media = False
        elif ptype == "media_marker":
            add_newline = False
            last_was_media = True
        else:
            continue  # llama.cpp logs and ignores other part types
        if add_newline:
            text += "\n"
        text += ptext
    return text


def to_json_oaicompat(msg: ChatMsg, concat_typed_text: bool = False) -> JsonObject:
    """``common_chat_msg::to_json_oaicompat``: the dict a template receives."""
    if msg.content and msg.content_parts:
        raise RequestError("Cannot specify both content and content_parts")
    out: JsonObject = {"role": msg.role}
    if msg.content:
        out["content"] = msg.content
    elif msg.content_parts:
        if concat_typed_text or msg.contains_media():
            out["content"] = concat_content_parts(msg.content_parts)
        else:
            out["content"] = [{"type": p.type, "text": p.text} for p in msg.content_parts]
    else:
        out["content"] = ""
    if msg.reasoning_content:
        out["reasoning_content"] = msg.reasoning_content
    if msg.tool_name:
        out["name"] = msg.tool_name
    if msg.tool_call_id:
        out["tool_call_id"] = msg.tool_call_id
    if msg.tool_calls:
        calls: list[Json] = []
        for tc in msg.tool_calls:
            call: JsonObject = {
                "type": "function",
                "function": {"name": tc.name, "arguments": tc.arguments},
            }
            if tc.id:
                call["id"] = tc.id
            calls.append(call)
        out["tool_calls"] = calls
    return out


def normalize_content(messages: Sequence[Mapping[str, Json]], caps: Caps) -> list[JsonObject]:
    """``messages_inp_normalizer``: string-only templates get joined text, typed-only
    templates get ``[{"type": "text", ...}]``; templates that take both are left alone."""
    string_ok = caps.supports_string_content
    typed_ok = caps.supports_typed_content
    only_string = string_ok and not typed_ok
    only_typed = typed_ok and not string_ok
    if not only_string and not only_typed:
        return [dict(m) for m in messages]
    out: list[JsonObject] = []
    for msg in messages:
        copy = dict(msg)
        if "content" in copy:
            content = copy["content"]
            if only_typed and isinstance(content, str):
                copy["content"] = [{"type": "text", "text": content}]
            elif only_string and isinstance(content, list):
                copy["content"] = concat_content_parts(content)
        out.append(copy)
    return out


def messages_to_template_json(msgs: tuple[ChatMsg, ...], caps: Caps) -> list[JsonObject]:
    """``render_message_to_json``: to_json_oaicompat (typed parts kept) + normaliser."""
    return normalize_content([to_json_oaicompat(m) for m in msgs], caps)


def tools_to_template_json(tools: object) -> list[JsonObject] | None:
    """``common_chat_tools_parse_oaicompat`` then ``common_chat_tools_to_json_oaicompat``.

    None when there are no tools (llama.cpp then leaves ``tools`` out of the context).
    """
    if tools is None:
        return None
    if not isinstance(tools, (list, tuple)):
        raise RequestError(f"Failed to parse tools: expected 'tools' to be an array, got {tools!r}")
    result: list[JsonObject] = []
    for tool in tools:
        if not isinstance(tool, dict) or "type" not in tool:
            raise RequestError(f"Failed to parse tools: missing tool type: {tool!r}")
        if tool["type"] != "function":
            raise RequestError(f"Failed to parse tools: unsupported tool type: {tool!r}")
        fn = tool.get("function")
        if not isinstance(fn, dict) or "name" not in fn:
            raise RequestError(f"Failed to parse tools: missing tool function: {tool!r}")
        params = fn.get("parameters", {})
        result.append(
            {
                "type": "function",
                "function": {
                    "name": fn["name"],
                    "description": fn.get("description", ""),
                    "parameters": json.loads(dump_compact(params)),
                },
            }
        )
    return result or None
