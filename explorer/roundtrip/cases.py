"""The default round-trip inputs: the oracle's tools and assistant messages, plus extras.

Output: ``ORACLE_TOOLS`` / ``ORACLE_MESSAGES`` (the same texts as the oracle README's
"Round-trip cases": two tools, messages ``a``-``f``), and ``DEFAULT_TOOLS`` /
``DEFAULT_MESSAGES``, which add a tool with nested parameters and three harder messages
(quotes, backslashes and newlines in arguments; non-ASCII text; nested objects and arrays).
"""

from __future__ import annotations

from typing import Literal

from explorer.apply.request import GET_WEATHER_TOOL
from explorer.jsontypes import JsonObject

# the oracle's get_weather tool, as the apply stage's standard request sends it
GET_WEATHER: JsonObject = GET_WEATHER_TOOL
SEARCH: JsonObject = {
    "type": "function",
    "function": {
        "name": "search",
        "description": "Search the web.",
        "parameters": {
            "type": "object",
            "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
            "required": ["query"],
        },
    },
}
# Nested arguments need a schema that allows them: llama.cpp's schema grammar admits no
# property a schema does not name.
CREATE_EVENT: JsonObject = {
    "type": "function",
    "function": {
        "name": "create_event",
        "description": "Create a calendar event.",
        "parameters": {
            "type": "object",
            "properties": {
                "title": {"type": "string"},
                "when": {
                    "type": "object",
                    "properties": {"date": {"type": "string"}, "times": {"type": "array", "items": {"type": "string"}}},
                    "required": ["date"],
                },
                "attendees": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"name": {"type": "string"}, "vip": {"type": "boolean"}},
                        "required": ["name"],
                    },
                },
            },
            "required": ["title", "when"],
        },
    },
}


def _call(n: int, name: str, arguments: JsonObject) -> JsonObject:
    return {"id": f"call_{n}", "type": "function", "function": {"name": name, "arguments": arguments}}


PARIS: JsonObject = {"city": "Paris", "unit": "c"}

ORACLE_TOOLS: tuple[JsonObject, ...] = (GET_WEATHER, SEARCH)
ORACLE_MESSAGES: tuple[tuple[str, JsonObject], ...] = (
    ("a", {"role": "assistant", "content": "The weather in Paris is sunny."}),
    ("b", {"role": "assistant", "reasoning_content": "The user wants weather. I should answer.",
           "content": "It is sunny."}),
    ("c", {"role": "assistant", "content": "", "tool_calls": [_call(1, "get_weather", PARIS)]}),
    ("d", {"role": "assistant", "content": "", "tool_calls": [
        _call(1, "get_weather", {"city": "Zürich"}),
        _call(2, "search", {"query": "he said \"hi\"\nnew line", "limit": 3})]}),
    ("e", {"role": "assistant", "reasoning_content": "The user wants weather. I should call get_weather.",
           "content": "", "tool_calls": [_call(1, "get_weather", PARIS)]}),
    ("f", {"role": "assistant", "content": "Let me check the weather.",
           "tool_calls": [_call(1, "get_weather", PARIS)]}),
)

EXTRA_MESSAGES: tuple[tuple[str, JsonObject], ...] = (
    ("g-escapes", {"role": "assistant", "content": "", "tool_calls": [_call(1, "search", {
        "query": "she wrote \"ok\" \\ then\n\ta <tag> & {brace}", "limit": 10})]}),
    ("h-unicode", {"role": "assistant", "content": "Checking… ☀ Zoë",
                   "tool_calls": [_call(1, "get_weather", {"city": "São Paulo 東京 🌧"})]}),
    ("i-nested", {"role": "assistant", "content": "", "tool_calls": [_call(1, "create_event", {
        "title": "Lunch", "when": {"date": "2025-01-02", "times": ["12:00", "13:30"]},
        "attendees": [{"name": "Zoë", "vip": True}, {"name": "Al"}]})]}),
)

DEFAULT_TOOLS: tuple[JsonObject, ...] = (*ORACLE_TOOLS, CREATE_EVENT)
DEFAULT_MESSAGES: tuple[tuple[str, JsonObject], ...] = (*ORACLE_MESSAGES, *EXTRA_MESSAGES)


# The kinds of assistant turn a session cuts a sample reply out of (``TemplateSession.sample_reply``).
ReplyKind = Literal["reply", "call", "reasoning+call"]
REPLY_KINDS: tuple[ReplyKind, ...] = ("reply", "call", "reasoning+call")
