"""Our own conversations for comparing the transformers dialect with real transformers.

Input: nothing. Output: ``CONVERSATIONS`` (name -> ``Conversation``: messages, tools,
documents, whether a generation prompt follows), ``THINKING`` (the three ways a caller
sets ``enable_thinking``: true, false, not passed), ``FIXED_DATE`` (the date both sides
render with, so ``strftime_now`` agrees) and ``project_templates()`` (every template the
project writes itself: tests/cases.py, benchmarks/templates, explorer/examples,
tests/hostile). Shared by tests/render/test_transformers_parity.py and
benchmarks/bench_render.py.

The set covers what ``apply_chat_template`` preprocesses: ``content`` null (dropped by
transformers) and absent, ``reasoning_content`` and ``thinking`` (aliased to each other),
tool-call arguments as a dict and as a JSON string, parallel calls, ``tool_call_id``,
nested tool schemas, long non-ASCII text and ``documents``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

FIXED_DATE = datetime(2031, 3, 7, 9, 15, 0)

# enable_thinking as the caller passes it: None is "not passed" (apply_chat_template's default)
THINKING: tuple[bool | None, ...] = (True, False, None)

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Get the current weather for a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City name"},
                                                    "unit": {"type": "string", "enum": ["c", "f"]}},
                   "required": ["city"]}}}
BOOK = {"type": "function", "function": {
    "name": "book_trip", "description": "Book a trip with legs and travellers.",
    "parameters": {"type": "object", "properties": {
        "legs": {"type": "array", "description": "Ordered legs", "items": {
            "type": "object", "properties": {
                "from": {"type": "string"}, "to": {"type": "string"},
                "when": {"type": "object", "properties": {"date": {"type": "string", "format": "date"},
                                                          "flexible_days": {"type": "integer", "minimum": 0}},
                         "required": ["date"]}},
            "required": ["from", "to"]}},
        "travellers": {"type": "integer", "default": 1},
        "class": {"anyOf": [{"type": "string", "enum": ["economy", "business"]}, {"type": "null"}]},
        "budget": {"type": "number"}, "refundable": {"type": "boolean"}},
        "required": ["legs"]}}}
SEARCH = {"type": "function", "function": {"name": "search", "description": "Search the web.",
                                           "parameters": {"type": "object", "properties": {
                                               "query": {"type": "string"}}, "required": ["query"]}}}

SYSTEM = {"role": "system", "content": "You are a helpful assistant."}
USER = {"role": "user", "content": "What is the weather in Paris?"}
CALL_DICT = {"id": "call_a1", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}
CALL_STR = {"id": "call_b2", "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Paris", "unit": "c"}'}}
RESULT = {"role": "tool", "tool_call_id": "call_a1", "content": '{"temp": 21, "sky": "clear"}'}
LONG = ("Grüße aus Zürich! 東京の天気はどうですか？ Привет, как дела? مرحبا بالعالم. Ελληνικά κείμενα. "
        "emoji 🌦️🚀 — «quotes» ‘single’ “double”\u00a0nbsp. ") * 24


@dataclass(frozen=True)
class Conversation:
    messages: tuple[dict[str, Any], ...]
    tools: tuple[dict[str, Any], ...] | None = None
    documents: tuple[dict[str, Any], ...] | None = None
    add_generation_prompt: bool = True

    def copy(self) -> dict[str, Any]:
        """Fresh lists and dicts (JSON round trip): neither side can see the other's edits."""
        import json
        return json.loads(json.dumps({"messages": list(self.messages), "tools": None if self.tools is None else
                                      list(self.tools), "documents": None if self.documents is None else
                                      list(self.documents)}))


CONVERSATIONS: dict[str, Conversation] = {
    "plain": Conversation((SYSTEM, {"role": "user", "content": "Hello"})),
    "multi_turn": Conversation((
        SYSTEM, {"role": "user", "content": "Hi!"}, {"role": "assistant", "content": "Hello, how can I help?"},
        {"role": "user", "content": "Tell me a joke."}, {"role": "assistant", "content": "Why did the chicken..."}),
        add_generation_prompt=False),
    "tool_dict": Conversation((USER, {"role": "assistant", "content": "", "tool_calls": [CALL_DICT]}, RESULT),
                              tools=(WEATHER,)),
    "tool_string": Conversation((USER, {"role": "assistant", "content": "Let me check.", "tool_calls": [CALL_STR]},
                                 {"role": "tool", "tool_call_id": "call_b2", "content": "21 C, clear"},
                                 {"role": "assistant", "content": "It is 21 C and clear."},
                                 {"role": "user", "content": "Thanks"}), tools=(WEATHER, SEARCH)),
    "parallel": Conversation((
        {"role": "user", "content": "Weather in Paris and Rome, and search news."},
        {"role": "assistant", "content": None, "tool_calls": [
            CALL_DICT, {"id": "call_c3", "type": "function", "function": {"name": "get_weather",
                                                                        "arguments": {"city": "Rome", "unit": "f"}}},
            {"id": "call_d4", "type": "function", "function": {"name": "search", "arguments": '{"query": "news"}'}}]},
        RESULT, {"role": "tool", "tool_call_id": "call_c3", "content": "70 F"},
        {"role": "tool", "tool_call_id": "call_d4", "name": "search", "content": "No news."}),
        tools=(WEATHER, SEARCH)),
    "reasoning_content": Conversation((
        {"role": "user", "content": "2+2?"},
        {"role": "assistant", "reasoning_content": "Two plus two is four.", "content": "4"},
        {"role": "user", "content": "And 3+3?"})),
    "thinking_field": Conversation((
        {"role": "user", "content": "Capital of France?"},
        {"role": "assistant", "thinking": "The user asks about France.", "content": "Paris."},
        {"role": "user", "content": "And Italy?"},
        {"role": "assistant", "content": "Rome.", "reasoning_content": None, "thinking": None},
        {"role": "user", "content": "Spain?"})),
    "nested_tools": Conversation((
        SYSTEM, {"role": "user", "content": "Book Paris to Rome on 2031-04-01 for two."},
        {"role": "assistant", "content": "Booking.", "tool_calls": [{"id": "call_e5", "type": "function", "function": {
            "name": "book_trip", "arguments": {"legs": [{"from": "Paris", "to": "Rome",
                                                         "when": {"date": "2031-04-01", "flexible_days": 2}}],
                                               "travellers": 2, "class": None, "budget": 1250.5,
                                               "refundable": True}}}]},
        {"role": "tool", "tool_call_id": "call_e5", "content": "booked"}), tools=(BOOK, WEATHER, SEARCH)),
    "long_unicode": Conversation((SYSTEM, {"role": "user", "content": LONG},
                                  {"role": "assistant", "content": LONG[::-1]},
                                  {"role": "user", "content": "Übersetze das bitte — danke! 谢谢"})),
    "content_absent": Conversation((
        USER, {"role": "assistant", "tool_calls": [CALL_DICT]}, RESULT,
        {"role": "assistant", "content": "Sunny.", "tool_calls": None}), tools=(WEATHER,),
        add_generation_prompt=False),
    "documents": Conversation(
        ({"role": "user", "content": "Summarise the documents."},),
        documents=({"title": "Paris", "text": "Paris is the capital of France."},
                   {"title": "Rome", "text": "Rome is the capital of Italy.", "source": "atlas"})),
}


# --- the project's own templates ------------------------------------------------------------


def project_templates() -> dict[str, str]:
    """name -> text of every template the project writes itself (hostile ones under ``hostile/``)."""
    import cases

    out: dict[str, str] = {
        "cases/TAGGED": cases.TAGGED, "cases/GPT_OSS_MINI": cases.GPT_OSS_MINI,
        "cases/FUNCTIONARY_MINI": cases.FUNCTIONARY_MINI, "cases/LLAMA32_PYTHONIC": cases.LLAMA32_PYTHONIC,
    }
    for call in cases.CALLS:
        out[f"cases/dialect_template({call})"] = cases.dialect_template(call)
    for folder, prefix in ((ROOT / "benchmarks" / "templates", "bench/"), (ROOT / "explorer" / "examples", "example/"),
                           (ROOT / "tests" / "hostile", "hostile/"), (ROOT / "tests" / "hostile" / "extra",
                                                                      "hostile/extra/")):
        for path in sorted(folder.glob("*.jinja")):
            out[prefix + path.stem] = path.read_text(encoding="utf-8", errors="surrogateescape")
    return out
