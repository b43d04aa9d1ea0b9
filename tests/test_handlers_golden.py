"""Specialised handlers beyond the oracle's standard request: llama.cpp's own outputs.

The oracle applies one request per template. Here every template llama.cpp routes to a
specialised handler gets 58 requests: no tools, or two tools (one with a mixed-type, an
object and an array parameter) with each tool_choice and with and without parallel calls;
with and without a JSON-schema response format; reasoning_format deepseek and none;
thinking on and off; plus a multi-turn conversation with a tool call, a tool result and a
system message. The expected values were produced by llama.cpp itself (commit
0c1e5709's common/ built unmodified, a driver calling ``common_chat_templates_init`` and
``common_chat_templates_apply`` with now = 29 Nov 2026, as the oracle) and are kept as
short digests: the serialized parser, the grammar, and the other fields together (format,
prompt, generation prompt, laziness, triggers, preserved tokens, stops, thinking fields),
or ``x`` where llama.cpp threw.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from typing import Any, Iterator

from conftest import ORACLE, requires_oracle

from explorer.apply import Request
from explorer.handlers import apply_template

pytestmark = requires_oracle

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Get the current weather for a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"},
                                                    "unit": {"type": "string", "enum": ["c", "f"]}},
                   "required": ["city"]}}}
SEARCH = {"type": "function", "function": {
    "name": "search", "description": "Search the web.",
    "parameters": {"type": "object", "properties": {
        "query": {"type": "string"}, "limit": {"type": "integer"},
        "mode": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        "filters": {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}},
                                                     "min": {"type": "number"}}, "required": ["tags"]}},
        "required": ["query", "filters"]}}}
INVOICE = {"type": "object", "properties": {"amount": {"type": "number"}, "date": {"type": "string"}},
           "required": ["amount"]}
HELLO = [{"role": "user", "content": "Hello"}]
HISTORY = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": "", "reasoning_content": "Need the tool.", "tool_calls": [
        {"id": "call00001", "type": "function",
         "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
    {"role": "tool", "tool_call_id": "call00001", "content": "{\"temp\": 21}"},
    {"role": "user", "content": "And tomorrow?"},
]

TEMPLATES = (
    "Cohere2MoE", "GigaChat3-10B-A1.8B", "Kimi-K2-Instruct", "Kimi-K2-Thinking", "Kimi-K3", "LFM2-8B-A1B",
    "LFM2.5-8B-A1B", "LFM2.5-Instruct", "MiniMax-M3", "NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "Qwen3-Coder",
    "Qwen3.5-4B", "StepFun3.5-Flash", "deepseek-ai-DeepSeek-V3.2", "deepseek-ai-DeepSeek-V4-Flash-0731",
    "deepseek-ai-DeepSeek-V4", "google-gemma-4-31B-it-interleaved", "google-gemma-4-31B-it",
    "inclusionai-ling-3.0-flash", "meetkai-functionary-medium-v3.2", "mistralai-Ministral-3-14B-Reasoning-2512",
    "moonshotai-Kimi-K2", "muse-glimmer", "openai-gpt-oss-120b", "openbmb-MiniCPM5-1B",
    "unsloth-mistral-Devstral-Small-2507",
)

# Templates whose rendering differs from llama.cpp's for these requests (explorer.render's
# area), with the cause; their rows where llama.cpp threw and we did not are reported, not failed.
# (A "type" given as a list is avoided above: llama.cpp's Jinja raises 'Unknown operator "in"
# between Array and Array' on GigaChat 3's `ty in [...]` for it, and explorer.render does not.)
KNOWN_RENDER_GAPS: dict[str, str] = {}


def cases(template: str) -> Iterator[dict[str, Any]]:
    tool_cfgs = [(None, "auto", False)] + [([WEATHER, SEARCH], choice, par)
                                           for choice in ("auto", "required", "none") for par in (True, False)]
    for (tools, choice, par), schema, fmt, thinking in itertools.product(
            tool_cfgs, (None, INVOICE), ("deepseek", "none"), (False, True)):
        yield {"messages": HELLO, "tools": tools, "tool_choice": choice, "parallel": par, "thinking": thinking,
               "reasoning_format": fmt, "json_schema": schema,
               "id": f"{template}|{'T' if tools else '-'}|{choice}|{int(par)}|{'rf' if schema else '-'}|{fmt}|"
                     f"{int(thinking)}|hello"}
    for thinking in (False, True):
        yield {"messages": HISTORY, "tools": [WEATHER, SEARCH], "tool_choice": "auto", "parallel": True,
               "thinking": thinking, "reasoning_format": "deepseek", "json_schema": None,
               "id": f"{template}|T|auto|1|-|deepseek|{int(thinking)}|history"}


def request(case: dict[str, Any]) -> Request:
    return Request(
        messages=tuple(case["messages"]), tools=tuple(case["tools"]) if case["tools"] else None,
        tool_choice=case["tool_choice"], parallel_tool_calls=case["parallel"], enable_thinking=case["thinking"],
        reasoning_format=case["reasoning_format"], json_schema=case["json_schema"],
        chat_template_kwargs={"enable_thinking": case["thinking"], "thinking": case["thinking"]})


REST = ("format", "generation_prompt", "prompt", "grammar_lazy", "grammar_triggers", "preserved_tokens",
        "additional_stops", "supports_thinking", "thinking_start_tag", "thinking_end_tags")


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, ensure_ascii=False, sort_keys=True).encode()).hexdigest()[:8]


def digest(params: dict[str, Any] | None) -> str:
    """parser + grammar + the other fields, 8 hex digits each; 'x' * 24 for an exception."""
    if params is None:
        return "x" * 24
    return _digest(params["parser"]) + _digest(params["grammar"]) + _digest({k: params[k] for k in REST})


def test_handlers_match_llama_cpp_on_58_requests_per_template() -> None:
    total = matched = explained = 0
    mismatches: list[str] = []
    for template in TEMPLATES:
        source = (ORACLE / "templates" / f"{template}.jinja").read_text(encoding="utf-8")
        golden = GOLDEN[template].split()
        rows = list(cases(template))
        assert len(rows) == len(golden) == 58, template
        for case, want in zip(rows, golden):
            total += 1
            try:
                got = digest(apply_template(source, request(case)).to_oracle_json())
            except Exception:  # noqa: BLE001 - llama.cpp threw too, or it is reported below
                got = digest(None)
            if got == want:
                matched += 1
                continue
            parts = [name for name, k in (("parser", 0), ("grammar", 8), ("other fields", 16))
                     if got[k:k + 8] != want[k:k + 8]]
            if want == "x" * 24 and template in KNOWN_RENDER_GAPS:
                explained += 1
                continue
            mismatches.append(f"{case['id']}: {', '.join(parts)} differ"
                              + (" (llama.cpp threw)" if want == "x" * 24 else "")
                              + (" (we threw)" if got == "x" * 24 else ""))
    print(f"\nspecialised handlers, {len(TEMPLATES)} templates x 58 requests: {matched}/{total} identical to "
          f"llama.cpp, {explained} explained by known rendering gaps")
    for template, cause in KNOWN_RENDER_GAPS.items():
        print(f"  known gap {template}: {cause}")
    for line in mismatches[:10]:
        print("  ", line)
    assert mismatches == []


# Generated from llama.cpp's outputs (see the module docstring); one 24-hex digest per case,
# in the order of cases().
GOLDEN: dict[str, str] = {
    "Cohere2MoE": (
        "838ed82312ae32cbfdfb63ac 838ed82312ae32cbfdfb63ac 249c5e9e12ae32cbfdfb63ac 249c5e9e12ae32cbfdfb63ac "
        "20807f2310c812b27adc51cd 20807f2310c812b27adc51cd 5280cc7910c812b27adc51cd 5280cc7910c812b27adc51cd "
        "a2080751294e502998c10678 a2080751294e502998c10678 562dbe6e294e502998c10678 562dbe6e294e502998c10678 "
        "0592a103233b6bb82370b2a6 0592a103233b6bb82370b2a6 a807f225233b6bb82370b2a6 a807f225233b6bb82370b2a6 "
        "27266e43b569ad0b98c10678 27266e43b569ad0b98c10678 26c8377db569ad0b98c10678 26c8377db569ad0b98c10678 "
        "47793955614333b22370b2a6 47793955614333b22370b2a6 a2b726f9614333b22370b2a6 a2b726f9614333b22370b2a6 "
        "11a3c6f1c13ce2112370b2a6 11a3c6f1c13ce2112370b2a6 3a10f249c13ce2112370b2a6 3a10f249c13ce2112370b2a6 "
        "c8e3f704c13ce2112370b2a6 c8e3f704c13ce2112370b2a6 c5a8c6a1c13ce2112370b2a6 c5a8c6a1c13ce2112370b2a6 "
        "f16d484eb3cfe65d2370b2a6 f16d484eb3cfe65d2370b2a6 8cf719e1b3cfe65d2370b2a6 8cf719e1b3cfe65d2370b2a6 "
        "eaf15c03b3cfe65d2370b2a6 eaf15c03b3cfe65d2370b2a6 65f30540b3cfe65d2370b2a6 65f30540b3cfe65d2370b2a6 "
        "838ed82312ae32cb43704319 838ed82312ae32cb43704319 249c5e9e12ae32cb43704319 249c5e9e12ae32cb43704319 "
        "20807f2310c812b22370b2a6 20807f2310c812b22370b2a6 5280cc7910c812b22370b2a6 5280cc7910c812b22370b2a6 "
        "838ed82312ae32cb43704319 838ed82312ae32cb43704319 249c5e9e12ae32cb43704319 249c5e9e12ae32cb43704319 "
        "20807f2310c812b22370b2a6 20807f2310c812b22370b2a6 5280cc7910c812b22370b2a6 5280cc7910c812b22370b2a6 "
        "a2080751294e502991ba5ce1 a2080751294e502991ba5ce1"
    ),
    "GigaChat3-10B-A1.8B": (
        "7a87c4c912ae32cb560118b4 7a87c4c912ae32cb560118b4 7a87c4c912ae32cb560118b4 7a87c4c912ae32cb560118b4 "
        "7a87c4c912ae32cb560118b4 7a87c4c912ae32cb560118b4 7a87c4c912ae32cb560118b4 7a87c4c912ae32cb560118b4 "
        "afac3f09f4715ed2d799db42 afac3f09f4715ed2d799db42 afac3f09f4715ed2d799db42 afac3f09f4715ed2d799db42 "
        "afac3f09f4715ed2d799db42 afac3f09f4715ed2d799db42 afac3f09f4715ed2d799db42 afac3f09f4715ed2d799db42 "
        "afac3f09f4715ed2d799db42 afac3f09f4715ed2d799db42 afac3f09f4715ed2d799db42 afac3f09f4715ed2d799db42 "
        "afac3f09f4715ed2d799db42 afac3f09f4715ed2d799db42 afac3f09f4715ed2d799db42 afac3f09f4715ed2d799db42 "
        "4c2fd0bdc36b6a2a3900f4e8 4c2fd0bdc36b6a2a3900f4e8 4c2fd0bdc36b6a2a3900f4e8 4c2fd0bdc36b6a2a3900f4e8 "
        "4c2fd0bdc36b6a2a3900f4e8 4c2fd0bdc36b6a2a3900f4e8 4c2fd0bdc36b6a2a3900f4e8 4c2fd0bdc36b6a2a3900f4e8 "
        "4c2fd0bdc36b6a2a3900f4e8 4c2fd0bdc36b6a2a3900f4e8 4c2fd0bdc36b6a2a3900f4e8 4c2fd0bdc36b6a2a3900f4e8 "
        "4c2fd0bdc36b6a2a3900f4e8 4c2fd0bdc36b6a2a3900f4e8 4c2fd0bdc36b6a2a3900f4e8 4c2fd0bdc36b6a2a3900f4e8 "
        "7a87c4c912ae32cb3937200f 7a87c4c912ae32cb3937200f 7a87c4c912ae32cb3937200f 7a87c4c912ae32cb3937200f "
        "7a87c4c912ae32cb3937200f 7a87c4c912ae32cb3937200f 7a87c4c912ae32cb3937200f 7a87c4c912ae32cb3937200f "
        "7a87c4c912ae32cb3937200f 7a87c4c912ae32cb3937200f 7a87c4c912ae32cb3937200f 7a87c4c912ae32cb3937200f "
        "7a87c4c912ae32cb3937200f 7a87c4c912ae32cb3937200f 7a87c4c912ae32cb3937200f 7a87c4c912ae32cb3937200f "
        "afac3f09f4715ed273a96db4 afac3f09f4715ed273a96db4"
    ),
    "Kimi-K2-Instruct": (
        "511413cf12ae32cb37ef9c8f 511413cf12ae32cb37ef9c8f dc9f827512ae32cb37ef9c8f dc9f827512ae32cb37ef9c8f "
        "511413cf12ae32cb37ef9c8f 511413cf12ae32cb37ef9c8f dc9f827512ae32cb37ef9c8f dc9f827512ae32cb37ef9c8f "
        "5474096c85347352be86048c 5474096c85347352be86048c e3be982385347352be86048c e3be982385347352be86048c "
        "5474096c85347352be86048c 5474096c85347352be86048c e3be982385347352be86048c e3be982385347352be86048c "
        "6601a803e943d9a8be86048c 6601a803e943d9a8be86048c a4c114c4e943d9a8be86048c a4c114c4e943d9a8be86048c "
        "6601a803e943d9a8be86048c 6601a803e943d9a8be86048c a4c114c4e943d9a8be86048c a4c114c4e943d9a8be86048c "
        "b82409f7312c6d0b92b2d9d9 b82409f7312c6d0b92b2d9d9 000e7da1ace6c53192b2d9d9 000e7da1ace6c53192b2d9d9 "
        "b82409f7312c6d0b92b2d9d9 b82409f7312c6d0b92b2d9d9 000e7da1ace6c53192b2d9d9 000e7da1ace6c53192b2d9d9 "
        "7c8747769345f91f92b2d9d9 7c8747769345f91f92b2d9d9 b4ac3b476f3a54d292b2d9d9 b4ac3b476f3a54d292b2d9d9 "
        "7c8747769345f91f92b2d9d9 7c8747769345f91f92b2d9d9 b4ac3b476f3a54d292b2d9d9 b4ac3b476f3a54d292b2d9d9 "
        "511413cf12ae32cb296b4cf7 511413cf12ae32cb296b4cf7 dc9f827512ae32cb296b4cf7 dc9f827512ae32cb296b4cf7 "
        "511413cf12ae32cb296b4cf7 511413cf12ae32cb296b4cf7 dc9f827512ae32cb296b4cf7 dc9f827512ae32cb296b4cf7 "
        "511413cf12ae32cb296b4cf7 511413cf12ae32cb296b4cf7 dc9f827512ae32cb296b4cf7 dc9f827512ae32cb296b4cf7 "
        "511413cf12ae32cb296b4cf7 511413cf12ae32cb296b4cf7 dc9f827512ae32cb296b4cf7 dc9f827512ae32cb296b4cf7 "
        "5474096c853473524e7107e6 5474096c853473524e7107e6"
    ),
    "Kimi-K2-Thinking": (
        "511413cf12ae32cb706bc51e 511413cf12ae32cb706bc51e dc9f827512ae32cb706bc51e dc9f827512ae32cb706bc51e "
        "511413cf12ae32cb706bc51e 511413cf12ae32cb706bc51e dc9f827512ae32cb706bc51e dc9f827512ae32cb706bc51e "
        "5474096c85347352ebb522a1 5474096c85347352ebb522a1 e3be982385347352ebb522a1 e3be982385347352ebb522a1 "
        "5474096c85347352ebb522a1 5474096c85347352ebb522a1 e3be982385347352ebb522a1 e3be982385347352ebb522a1 "
        "6601a803e943d9a8ebb522a1 6601a803e943d9a8ebb522a1 a4c114c4e943d9a8ebb522a1 a4c114c4e943d9a8ebb522a1 "
        "6601a803e943d9a8ebb522a1 6601a803e943d9a8ebb522a1 a4c114c4e943d9a8ebb522a1 a4c114c4e943d9a8ebb522a1 "
        "b82409f7312c6d0bd45ad428 b82409f7312c6d0bd45ad428 000e7da1ace6c531d45ad428 000e7da1ace6c531d45ad428 "
        "b82409f7312c6d0bd45ad428 b82409f7312c6d0bd45ad428 000e7da1ace6c531d45ad428 000e7da1ace6c531d45ad428 "
        "7c8747769345f91fd45ad428 7c8747769345f91fd45ad428 b4ac3b476f3a54d2d45ad428 b4ac3b476f3a54d2d45ad428 "
        "7c8747769345f91fd45ad428 7c8747769345f91fd45ad428 b4ac3b476f3a54d2d45ad428 b4ac3b476f3a54d2d45ad428 "
        "511413cf12ae32cba5578bb3 511413cf12ae32cba5578bb3 dc9f827512ae32cba5578bb3 dc9f827512ae32cba5578bb3 "
        "511413cf12ae32cba5578bb3 511413cf12ae32cba5578bb3 dc9f827512ae32cba5578bb3 dc9f827512ae32cba5578bb3 "
        "511413cf12ae32cba5578bb3 511413cf12ae32cba5578bb3 dc9f827512ae32cba5578bb3 dc9f827512ae32cba5578bb3 "
        "511413cf12ae32cba5578bb3 511413cf12ae32cba5578bb3 dc9f827512ae32cba5578bb3 dc9f827512ae32cba5578bb3 "
        "5474096c8534735280b77690 5474096c8534735280b77690"
    ),
    "Kimi-K3": (
        "4490580912ae32cbb1ce1baa 4490580912ae32cb06836ede 31db857812ae32cbb1ce1baa 31db857812ae32cb06836ede "
        "4490580912ae32cbb1ce1baa 4490580912ae32cb06836ede 31db857812ae32cbb1ce1baa 31db857812ae32cb06836ede "
        "dfdd1e062cccd09cb84102a5 dfdd1e062cccd09c71044453 ba5aaed82cccd09cb84102a5 ba5aaed82cccd09c71044453 "
        "dfdd1e062cccd09cb84102a5 dfdd1e062cccd09c71044453 ba5aaed82cccd09cb84102a5 ba5aaed82cccd09c71044453 "
        "dfdd1e062cccd09cb84102a5 dfdd1e062cccd09c71044453 ba5aaed82cccd09cb84102a5 ba5aaed82cccd09c71044453 "
        "dfdd1e062cccd09cb84102a5 dfdd1e062cccd09c71044453 ba5aaed82cccd09cb84102a5 ba5aaed82cccd09c71044453 "
        "38cae3cf9ce11190b80af42f 38cae3cf9ce111907c92b59f 4cd335929ce11190b80af42f 4cd335929ce111907c92b59f "
        "38cae3cf9ce11190b80af42f 38cae3cf9ce111907c92b59f 4cd335929ce11190b80af42f 4cd335929ce111907c92b59f "
        "38cae3cf9ce11190b80af42f 38cae3cf9ce111907c92b59f 4cd335929ce11190b80af42f 4cd335929ce111907c92b59f "
        "38cae3cf9ce11190b80af42f 38cae3cf9ce111907c92b59f 4cd335929ce11190b80af42f 4cd335929ce111907c92b59f "
        "4490580912ae32cb0fef76db 4490580912ae32cbb6da7e3c 31db857812ae32cb0fef76db 31db857812ae32cbb6da7e3c "
        "4490580912ae32cb0fef76db 4490580912ae32cbb6da7e3c 31db857812ae32cb0fef76db 31db857812ae32cbb6da7e3c "
        "4490580912ae32cb0fef76db 4490580912ae32cbb6da7e3c 31db857812ae32cb0fef76db 31db857812ae32cbb6da7e3c "
        "4490580912ae32cb0fef76db 4490580912ae32cbb6da7e3c 31db857812ae32cb0fef76db 31db857812ae32cbb6da7e3c "
        "dfdd1e062cccd09cac85761a dfdd1e062cccd09ced83727c"
    ),
    "LFM2-8B-A1B": (
        "bc4009c912ae32cb603b3ad2 bc4009c912ae32cb603b3ad2 bc4009c912ae32cb603b3ad2 bc4009c912ae32cb603b3ad2 "
        "82c10a22eda9f5cf6b3944c2 82c10a22eda9f5cf6b3944c2 82c10a22eda9f5cf6b3944c2 82c10a22eda9f5cf6b3944c2 "
        "e9738c8d8263a25bbf9ec233 e9738c8d8263a25bbf9ec233 e9738c8d8263a25bbf9ec233 e9738c8d8263a25bbf9ec233 "
        "e9738c8d05fddce7832d6f1a e9738c8d05fddce7832d6f1a e9738c8d05fddce7832d6f1a e9738c8d05fddce7832d6f1a "
        "b6dd9c3295f1f9e7bf9ec233 b6dd9c3295f1f9e7bf9ec233 b6dd9c3295f1f9e7bf9ec233 b6dd9c3295f1f9e7bf9ec233 "
        "b6dd9c3225be87e0832d6f1a b6dd9c3225be87e0832d6f1a b6dd9c3225be87e0832d6f1a b6dd9c3225be87e0832d6f1a "
        "e9738c8d05fddce7832d6f1a e9738c8d05fddce7832d6f1a e9738c8d05fddce7832d6f1a e9738c8d05fddce7832d6f1a "
        "e9738c8d05fddce7832d6f1a e9738c8d05fddce7832d6f1a e9738c8d05fddce7832d6f1a e9738c8d05fddce7832d6f1a "
        "b6dd9c3225be87e0832d6f1a b6dd9c3225be87e0832d6f1a b6dd9c3225be87e0832d6f1a b6dd9c3225be87e0832d6f1a "
        "b6dd9c3225be87e0832d6f1a b6dd9c3225be87e0832d6f1a b6dd9c3225be87e0832d6f1a b6dd9c3225be87e0832d6f1a "
        "bc4009c912ae32cb03c5cdd9 bc4009c912ae32cb03c5cdd9 bc4009c912ae32cb03c5cdd9 bc4009c912ae32cb03c5cdd9 "
        "82c10a22eda9f5cf832d6f1a 82c10a22eda9f5cf832d6f1a 82c10a22eda9f5cf832d6f1a 82c10a22eda9f5cf832d6f1a "
        "bc4009c912ae32cb03c5cdd9 bc4009c912ae32cb03c5cdd9 bc4009c912ae32cb03c5cdd9 bc4009c912ae32cb03c5cdd9 "
        "82c10a22eda9f5cf832d6f1a 82c10a22eda9f5cf832d6f1a 82c10a22eda9f5cf832d6f1a 82c10a22eda9f5cf832d6f1a "
        "e9738c8d8263a25b4b3ab135 e9738c8d8263a25b4b3ab135"
    ),
    "LFM2.5-8B-A1B": (
        "8444f7c612ae32cbfe56b5df 8444f7c612ae32cbfe56b5df bc4009c912ae32cbfe56b5df bc4009c912ae32cbfe56b5df "
        "c3d100c91b1e248b8ea4c27c c3d100c91b1e248b8ea4c27c 82c10a22eda9f5cf8ea4c27c 82c10a22eda9f5cf8ea4c27c "
        "4d5a3bc98263a25badbe6a67 4d5a3bc98263a25badbe6a67 e9738c8d8263a25badbe6a67 e9738c8d8263a25badbe6a67 "
        "4d5a3bc9bd6c493987259301 4d5a3bc9bd6c493987259301 e9738c8d05fddce787259301 e9738c8d05fddce787259301 "
        "d868329e95f1f9e7adbe6a67 d868329e95f1f9e7adbe6a67 b6dd9c3295f1f9e7adbe6a67 b6dd9c3295f1f9e7adbe6a67 "
        "d868329ed61c101f87259301 d868329ed61c101f87259301 b6dd9c3225be87e087259301 b6dd9c3225be87e087259301 "
        "4d5a3bc9bd6c493987259301 4d5a3bc9bd6c493987259301 e9738c8d05fddce787259301 e9738c8d05fddce787259301 "
        "4d5a3bc9bd6c493987259301 4d5a3bc9bd6c493987259301 e9738c8d05fddce787259301 e9738c8d05fddce787259301 "
        "d868329ed61c101f87259301 d868329ed61c101f87259301 b6dd9c3225be87e087259301 b6dd9c3225be87e087259301 "
        "d868329ed61c101f87259301 d868329ed61c101f87259301 b6dd9c3225be87e087259301 b6dd9c3225be87e087259301 "
        "8444f7c612ae32cbb0350910 8444f7c612ae32cbb0350910 bc4009c912ae32cbb0350910 bc4009c912ae32cbb0350910 "
        "c3d100c91b1e248b87259301 c3d100c91b1e248b87259301 82c10a22eda9f5cf87259301 82c10a22eda9f5cf87259301 "
        "8444f7c612ae32cbb0350910 8444f7c612ae32cbb0350910 bc4009c912ae32cbb0350910 bc4009c912ae32cbb0350910 "
        "c3d100c91b1e248b87259301 c3d100c91b1e248b87259301 82c10a22eda9f5cf87259301 82c10a22eda9f5cf87259301 "
        "4d5a3bc98263a25ba039adbe 4d5a3bc98263a25ba039adbe"
    ),
    "LFM2.5-Instruct": (
        "bc4009c912ae32cbfe56b5df bc4009c912ae32cbfe56b5df bc4009c912ae32cbfe56b5df bc4009c912ae32cbfe56b5df "
        "82c10a22eda9f5cf8ea4c27c 82c10a22eda9f5cf8ea4c27c 82c10a22eda9f5cf8ea4c27c 82c10a22eda9f5cf8ea4c27c "
        "e9738c8d8263a25badbe6a67 e9738c8d8263a25badbe6a67 e9738c8d8263a25badbe6a67 e9738c8d8263a25badbe6a67 "
        "e9738c8d05fddce787259301 e9738c8d05fddce787259301 e9738c8d05fddce787259301 e9738c8d05fddce787259301 "
        "b6dd9c3295f1f9e7adbe6a67 b6dd9c3295f1f9e7adbe6a67 b6dd9c3295f1f9e7adbe6a67 b6dd9c3295f1f9e7adbe6a67 "
        "b6dd9c3225be87e087259301 b6dd9c3225be87e087259301 b6dd9c3225be87e087259301 b6dd9c3225be87e087259301 "
        "e9738c8d05fddce787259301 e9738c8d05fddce787259301 e9738c8d05fddce787259301 e9738c8d05fddce787259301 "
        "e9738c8d05fddce787259301 e9738c8d05fddce787259301 e9738c8d05fddce787259301 e9738c8d05fddce787259301 "
        "b6dd9c3225be87e087259301 b6dd9c3225be87e087259301 b6dd9c3225be87e087259301 b6dd9c3225be87e087259301 "
        "b6dd9c3225be87e087259301 b6dd9c3225be87e087259301 b6dd9c3225be87e087259301 b6dd9c3225be87e087259301 "
        "bc4009c912ae32cbb0350910 bc4009c912ae32cbb0350910 bc4009c912ae32cbb0350910 bc4009c912ae32cbb0350910 "
        "82c10a22eda9f5cf87259301 82c10a22eda9f5cf87259301 82c10a22eda9f5cf87259301 82c10a22eda9f5cf87259301 "
        "bc4009c912ae32cbb0350910 bc4009c912ae32cbb0350910 bc4009c912ae32cbb0350910 bc4009c912ae32cbb0350910 "
        "82c10a22eda9f5cf87259301 82c10a22eda9f5cf87259301 82c10a22eda9f5cf87259301 82c10a22eda9f5cf87259301 "
        "e9738c8d8263a25be8522bb3 e9738c8d8263a25be8522bb3"
    ),
    "MiniMax-M3": (
        "515b581512ae32cb1dd8c887 7eff837812ae32cb1dd8c887 969fa3a912ae32cb1dd8c887 969fa3a912ae32cb1dd8c887 "
        "4ee6824419f408dcb833f79f 0a48c822981a7f84b833f79f fc86766057a5d593b833f79f fc86766057a5d593b833f79f "
        "4d60bcee281a37dceb3d6831 ef6a744e046d3e8eeb3d6831 fbc4ff0d9f6180f5eb3d6831 fbc4ff0d9f6180f5eb3d6831 "
        "4ee6824419f408dc1879dfb6 0a48c822981a7f841879dfb6 fc86766057a5d5931879dfb6 fc86766057a5d5931879dfb6 "
        "6c726536ca20c957eb3d6831 1fddc3f8ec41ff63eb3d6831 3f5b2b97738a975feb3d6831 3f5b2b97738a975feb3d6831 "
        "4ee6824419f408dc1879dfb6 0a48c822981a7f841879dfb6 fc86766057a5d5931879dfb6 fc86766057a5d5931879dfb6 "
        "64c6744658f52a7d1879dfb6 0c6b0aad2ee49e681879dfb6 19c3ee1f57d18a5e1879dfb6 19c3ee1f57d18a5e1879dfb6 "
        "4ee6824419f408dc1879dfb6 0a48c822981a7f841879dfb6 fc86766057a5d5931879dfb6 fc86766057a5d5931879dfb6 "
        "a5a27b39449f309a1879dfb6 2efcf2e63d523d841879dfb6 f055f59a7a07e4911879dfb6 f055f59a7a07e4911879dfb6 "
        "4ee6824419f408dc1879dfb6 0a48c822981a7f841879dfb6 fc86766057a5d5931879dfb6 fc86766057a5d5931879dfb6 "
        "515b581512ae32cb50de47fa 7eff837812ae32cb50de47fa 969fa3a912ae32cb50de47fa 969fa3a912ae32cb50de47fa "
        "4ee6824419f408dc1879dfb6 0a48c822981a7f841879dfb6 fc86766057a5d5931879dfb6 fc86766057a5d5931879dfb6 "
        "515b581512ae32cb50de47fa 7eff837812ae32cb50de47fa 969fa3a912ae32cb50de47fa 969fa3a912ae32cb50de47fa "
        "4ee6824419f408dc1879dfb6 0a48c822981a7f841879dfb6 fc86766057a5d5931879dfb6 fc86766057a5d5931879dfb6 "
        "4d60bcee281a37dc77d4fb1e ef6a744e046d3e8e77d4fb1e"
    ),
    "NVIDIA-Nemotron-3-Nano-30B-A3B-BF16": (
        "b1a42fc912ae32cbc0005e62 b1a42fc912ae32cb14b3c909 35fdfbf712ae32cbc0005e62 35fdfbf712ae32cb14b3c909 "
        "04e90369c0d27699c0005e62 04e90369c0d2769914b3c909 9e60b93b212ab8d7c0005e62 9e60b93b212ab8d714b3c909 "
        "b92d4ebc67a4dee9b92d79b0 b92d4ebc67a4dee9612c9fbe 0123d974d743a9ceb92d79b0 0123d974d743a9ce612c9fbe "
        "04e9036916cc9945b92d79b0 04e9036916cc9945612c9fbe 9e60b93b16cc9945b92d79b0 9e60b93b16cc9945612c9fbe "
        "c07d5318fc76c2bcb92d79b0 c07d5318fc76c2bc612c9fbe 8d1e6196e1cba4a3b92d79b0 8d1e6196e1cba4a3612c9fbe "
        "04e9036916cc9945b92d79b0 04e9036916cc9945612c9fbe 9e60b93b16cc9945b92d79b0 9e60b93b16cc9945612c9fbe "
        "bd0f50ce391582139ee9cfc7 bd0f50ce3915821317267e6f 4008266510a00f0a9ee9cfc7 4008266510a00f0a17267e6f "
        "04e90369c0d276999ee9cfc7 04e90369c0d2769917267e6f 9e60b93b212ab8d79ee9cfc7 9e60b93b212ab8d717267e6f "
        "5f11d3dc82e78b8d9ee9cfc7 5f11d3dc82e78b8d17267e6f 7b1d6e7ceba473a89ee9cfc7 7b1d6e7ceba473a817267e6f "
        "04e90369c0d276999ee9cfc7 04e90369c0d2769917267e6f 9e60b93b212ab8d79ee9cfc7 9e60b93b212ab8d717267e6f "
        "b1a42fc912ae32cb9ee9cfc7 b1a42fc912ae32cb17267e6f 35fdfbf712ae32cb9ee9cfc7 35fdfbf712ae32cb17267e6f "
        "04e90369c0d276999ee9cfc7 04e90369c0d2769917267e6f 9e60b93b212ab8d79ee9cfc7 9e60b93b212ab8d717267e6f "
        "b1a42fc912ae32cb9ee9cfc7 b1a42fc912ae32cb17267e6f 35fdfbf712ae32cb9ee9cfc7 35fdfbf712ae32cb17267e6f "
        "04e90369c0d276999ee9cfc7 04e90369c0d2769917267e6f 9e60b93b212ab8d79ee9cfc7 9e60b93b212ab8d717267e6f "
        "b92d4ebc67a4dee9b3771a8f b92d4ebc67a4dee9f40c4a40"
    ),
    "Qwen3-Coder": (
        "35fdfbf712ae32cbc6a16596 35fdfbf712ae32cbc6a16596 35fdfbf712ae32cbc6a16596 35fdfbf712ae32cbc6a16596 "
        "9e60b93b212ab8d7c6a16596 9e60b93b212ab8d7c6a16596 9e60b93b212ab8d7c6a16596 9e60b93b212ab8d7c6a16596 "
        "ead04f7599c860034157edd4 ead04f7599c860034157edd4 ead04f7599c860034157edd4 ead04f7599c860034157edd4 "
        "9e60b93b16cc99454157edd4 9e60b93b16cc99454157edd4 9e60b93b16cc99454157edd4 9e60b93b16cc99454157edd4 "
        "8c10d0b81edab0934157edd4 8c10d0b81edab0934157edd4 8c10d0b81edab0934157edd4 8c10d0b81edab0934157edd4 "
        "9e60b93b16cc99454157edd4 9e60b93b16cc99454157edd4 9e60b93b16cc99454157edd4 9e60b93b16cc99454157edd4 "
        "88048e1d718bf0d92ce14989 88048e1d718bf0d92ce14989 88048e1d718bf0d92ce14989 88048e1d718bf0d92ce14989 "
        "9e60b93b212ab8d72ce14989 9e60b93b212ab8d72ce14989 9e60b93b212ab8d72ce14989 9e60b93b212ab8d72ce14989 "
        "1fcf094acf70f5702ce14989 1fcf094acf70f5702ce14989 1fcf094acf70f5702ce14989 1fcf094acf70f5702ce14989 "
        "9e60b93b212ab8d72ce14989 9e60b93b212ab8d72ce14989 9e60b93b212ab8d72ce14989 9e60b93b212ab8d72ce14989 "
        "35fdfbf712ae32cb2ce14989 35fdfbf712ae32cb2ce14989 35fdfbf712ae32cb2ce14989 35fdfbf712ae32cb2ce14989 "
        "9e60b93b212ab8d72ce14989 9e60b93b212ab8d72ce14989 9e60b93b212ab8d72ce14989 9e60b93b212ab8d72ce14989 "
        "35fdfbf712ae32cb2ce14989 35fdfbf712ae32cb2ce14989 35fdfbf712ae32cb2ce14989 35fdfbf712ae32cb2ce14989 "
        "9e60b93b212ab8d72ce14989 9e60b93b212ab8d72ce14989 9e60b93b212ab8d72ce14989 9e60b93b212ab8d72ce14989 "
        "ead04f7599c86003c6fccd87 ead04f7599c86003c6fccd87"
    ),
    "Qwen3.5-4B": (
        "b1a42fc912ae32cbccac85ec b1a42fc912ae32cb7a6f3e23 35fdfbf712ae32cbccac85ec 35fdfbf712ae32cb7a6f3e23 "
        "04e90369c0d27699ccac85ec 04e90369c0d276997a6f3e23 9e60b93b212ab8d7ccac85ec 9e60b93b212ab8d77a6f3e23 "
        "b92d4ebc67a4dee91a933528 b92d4ebc67a4dee9ab887fb9 0123d974d743a9ce1a933528 0123d974d743a9ceab887fb9 "
        "04e9036916cc99451a933528 04e9036916cc9945ab887fb9 9e60b93b16cc99451a933528 9e60b93b16cc9945ab887fb9 "
        "c07d5318fc76c2bc1a933528 c07d5318fc76c2bcab887fb9 8d1e6196e1cba4a31a933528 8d1e6196e1cba4a3ab887fb9 "
        "04e9036916cc99451a933528 04e9036916cc9945ab887fb9 9e60b93b16cc99451a933528 9e60b93b16cc9945ab887fb9 "
        "bd0f50ce3915821366d5492d bd0f50ce3915821384b5d309 4008266510a00f0a66d5492d 4008266510a00f0a84b5d309 "
        "04e90369c0d2769966d5492d 04e90369c0d2769984b5d309 9e60b93b212ab8d766d5492d 9e60b93b212ab8d784b5d309 "
        "5f11d3dc82e78b8d66d5492d 5f11d3dc82e78b8d84b5d309 7b1d6e7ceba473a866d5492d 7b1d6e7ceba473a884b5d309 "
        "04e90369c0d2769966d5492d 04e90369c0d2769984b5d309 9e60b93b212ab8d766d5492d 9e60b93b212ab8d784b5d309 "
        "b1a42fc912ae32cb66d5492d b1a42fc912ae32cb84b5d309 35fdfbf712ae32cb66d5492d 35fdfbf712ae32cb84b5d309 "
        "04e90369c0d2769966d5492d 04e90369c0d2769984b5d309 9e60b93b212ab8d766d5492d 9e60b93b212ab8d784b5d309 "
        "b1a42fc912ae32cb66d5492d b1a42fc912ae32cb84b5d309 35fdfbf712ae32cb66d5492d 35fdfbf712ae32cb84b5d309 "
        "04e90369c0d2769966d5492d 04e90369c0d2769984b5d309 9e60b93b212ab8d766d5492d 9e60b93b212ab8d784b5d309 "
        "b92d4ebc67a4dee91d09279e b92d4ebc67a4dee9112f2701"
    ),
    "StepFun3.5-Flash": (
        "b1a42fc912ae32cb7a6f3e23 b1a42fc912ae32cb7a6f3e23 35fdfbf712ae32cb7a6f3e23 35fdfbf712ae32cb7a6f3e23 "
        "04e90369c0d276997a6f3e23 04e90369c0d276997a6f3e23 9e60b93b212ab8d77a6f3e23 9e60b93b212ab8d77a6f3e23 "
        "b92d4ebc67a4dee9902fc3a7 b92d4ebc67a4dee9902fc3a7 0123d974d743a9ce902fc3a7 0123d974d743a9ce902fc3a7 "
        "04e9036916cc9945902fc3a7 04e9036916cc9945902fc3a7 9e60b93b16cc9945902fc3a7 9e60b93b16cc9945902fc3a7 "
        "c07d5318fc76c2bc902fc3a7 c07d5318fc76c2bc902fc3a7 8d1e6196e1cba4a3902fc3a7 8d1e6196e1cba4a3902fc3a7 "
        "04e9036916cc9945902fc3a7 04e9036916cc9945902fc3a7 9e60b93b16cc9945902fc3a7 9e60b93b16cc9945902fc3a7 "
        "bd0f50ce391582135e62a295 bd0f50ce391582135e62a295 4008266510a00f0a5e62a295 4008266510a00f0a5e62a295 "
        "04e90369c0d276995e62a295 04e90369c0d276995e62a295 9e60b93b212ab8d75e62a295 9e60b93b212ab8d75e62a295 "
        "5f11d3dc82e78b8d5e62a295 5f11d3dc82e78b8d5e62a295 7b1d6e7ceba473a85e62a295 7b1d6e7ceba473a85e62a295 "
        "04e90369c0d276995e62a295 04e90369c0d276995e62a295 9e60b93b212ab8d75e62a295 9e60b93b212ab8d75e62a295 "
        "b1a42fc912ae32cb5e62a295 b1a42fc912ae32cb5e62a295 35fdfbf712ae32cb5e62a295 35fdfbf712ae32cb5e62a295 "
        "04e90369c0d276995e62a295 04e90369c0d276995e62a295 9e60b93b212ab8d75e62a295 9e60b93b212ab8d75e62a295 "
        "b1a42fc912ae32cb5e62a295 b1a42fc912ae32cb5e62a295 35fdfbf712ae32cb5e62a295 35fdfbf712ae32cb5e62a295 "
        "04e90369c0d276995e62a295 04e90369c0d276995e62a295 9e60b93b212ab8d75e62a295 9e60b93b212ab8d75e62a295 "
        "b92d4ebc67a4dee9fbfad83c b92d4ebc67a4dee9fbfad83c"
    ),
    "deepseek-ai-DeepSeek-V3.2": (
        "7ae3ee5e12ae32cbfa09abca 3d1ec6d212ae32cb87f99fbc 78f72c0f12ae32cbfa09abca 78f72c0f12ae32cb87f99fbc "
        "2a5331c08d30ec592cc8da51 10b682ecd173b5ff2e0dd8f2 4ea39f772c61c3982cc8da51 4ea39f772c61c3982e0dd8f2 "
        "94a6c28ebe392ef7798e598f e72318bbbe392ef7708d565c 477792f4be392ef7798e598f 477792f4be392ef7708d565c "
        "593d5173be392ef7798e598f 7ff70f49be392ef7708d565c 375479e2be392ef7798e598f 375479e2be392ef7708d565c "
        "7041c7cab7a409ef798e598f bc70142ab7a409ef708d565c 2c9c4f12b7a409ef798e598f 2c9c4f12b7a409ef708d565c "
        "dca5e015b7a409ef798e598f 0f80af61b7a409ef708d565c e300a80bb7a409ef798e598f e300a80bb7a409ef708d565c "
        "5431821488abfd90c22826e6 a04af5de3a6d78f73fc57007 19c713e9c0649363c22826e6 19c713e9c06493633fc57007 "
        "279193d7b4c67066c22826e6 5c5af46361e4e2533fc57007 dd3d61782c61c398c22826e6 dd3d61782c61c3983fc57007 "
        "91f8f2be53edb19ec22826e6 0505e5104576ca123fc57007 892904bbbc503bb2c22826e6 892904bbbc503bb23fc57007 "
        "6e37b087af46740bc22826e6 f14c80348d3c5d753fc57007 89bd5eca2c61c398c22826e6 89bd5eca2c61c3983fc57007 "
        "1e8223e312ae32cb1b33ab72 2e77930e12ae32cb231e794c ee01ba0112ae32cb1b33ab72 ee01ba0112ae32cb231e794c "
        "76530930e6cd1b02798e598f 58064f98e6cd1b02708d565c 7d0b7fa3e6cd1b02798e598f 7d0b7fa3e6cd1b02708d565c "
        "7ae3ee5e12ae32cb1b33ab72 3d1ec6d212ae32cb231e794c 78f72c0f12ae32cb1b33ab72 78f72c0f12ae32cb231e794c "
        "2a5331c04df496bb798e598f 10b682ec4df496bb708d565c 4ea39f774df496bb798e598f 4ea39f774df496bb708d565c "
        "94a6c28ebe392ef7a2762c46 e72318bbbe392ef7e7c572f5"
    ),
    "deepseek-ai-DeepSeek-V4-Flash-0731": (
        "5e1c45c612ae32cb36a3a56f f70e0b7e12ae32cb82c380bc 4902355812ae32cb36a3a56f 4902355812ae32cb82c380bc "
        "565914b7568f0e828e1941d1 2fc54df4d173b5ffac3b99e0 a804ddf22c61c3988e1941d1 a804ddf22c61c398ac3b99e0 "
        "f7740f011388cdf6a0dfc4df b8fe43561388cdf68171b451 60bfde721388cdf6a0dfc4df 60bfde721388cdf68171b451 "
        "9127eec51388cdf6fe5754f4 cbacc6091388cdf617ad7968 51b56a111388cdf6fe5754f4 51b56a111388cdf617ad7968 "
        "0022c20e17207b57a0dfc4df 6319d3f417207b578171b451 f047c16917207b57a0dfc4df f047c16917207b578171b451 "
        "43a4888717207b57fe5754f4 d86d71f617207b5717ad7968 ec1f501f17207b57fe5754f4 ec1f501f17207b5717ad7968 "
        "8e55d2cd73dc9ddffc058c50 23ef8d4d242835f24c002f0e dcfa690974d0d7a5fc058c50 dcfa690974d0d7a54c002f0e "
        "11f5a105568f0e82228109da 47ce41c161e4e2533b464c75 7e2cad662c61c398228109da 7e2cad662c61c3983b464c75 "
        "b600bd04e766b87ffc058c50 dc9eb3bf8c8b7c994c002f0e f850ffbec94a7ce6fc058c50 f850ffbec94a7ce64c002f0e "
        "f3a80a57568f0e82228109da e9d0b95b8d3c5d753b464c75 c466383d2c61c398228109da c466383d2c61c3983b464c75 "
        "a95e9c8412ae32cbd5185dc1 e385f6c912ae32cb164cdee7 4803ffd512ae32cbd5185dc1 4803ffd512ae32cb164cdee7 "
        "2f2b0058b28b5df5fe5754f4 12922c13b28b5df517ad7968 8c22adf2b28b5df5fe5754f4 8c22adf2b28b5df517ad7968 "
        "5e1c45c612ae32cbd5185dc1 f70e0b7e12ae32cb164cdee7 4902355812ae32cbd5185dc1 4902355812ae32cb164cdee7 "
        "565914b7c85a12e7fe5754f4 2fc54df4c85a12e717ad7968 a804ddf2c85a12e7fe5754f4 a804ddf2c85a12e717ad7968 "
        "f7740f011388cdf630f21173 b8fe43561388cdf6f80bdf71"
    ),
    "deepseek-ai-DeepSeek-V4": (
        "5e1c45c612ae32cb36a3a56f f70e0b7e12ae32cb82c380bc 4902355812ae32cb36a3a56f 4902355812ae32cb82c380bc "
        "565914b7568f0e828e1941d1 2fc54df4d173b5ffac3b99e0 a804ddf22c61c3988e1941d1 a804ddf22c61c398ac3b99e0 "
        "f7740f011388cdf6a0dfc4df b8fe43561388cdf68171b451 60bfde721388cdf6a0dfc4df 60bfde721388cdf68171b451 "
        "9127eec51388cdf6fe5754f4 cbacc6091388cdf617ad7968 51b56a111388cdf6fe5754f4 51b56a111388cdf617ad7968 "
        "0022c20e17207b57a0dfc4df 6319d3f417207b578171b451 f047c16917207b57a0dfc4df f047c16917207b578171b451 "
        "43a4888717207b57fe5754f4 d86d71f617207b5717ad7968 ec1f501f17207b57fe5754f4 ec1f501f17207b5717ad7968 "
        "8e55d2cd73dc9ddffc058c50 23ef8d4d242835f24c002f0e dcfa690974d0d7a5fc058c50 dcfa690974d0d7a54c002f0e "
        "11f5a105568f0e82228109da 47ce41c161e4e2533b464c75 7e2cad662c61c398228109da 7e2cad662c61c3983b464c75 "
        "b600bd04e766b87ffc058c50 dc9eb3bf8c8b7c994c002f0e f850ffbec94a7ce6fc058c50 f850ffbec94a7ce64c002f0e "
        "f3a80a57568f0e82228109da e9d0b95b8d3c5d753b464c75 c466383d2c61c398228109da c466383d2c61c3983b464c75 "
        "a95e9c8412ae32cbd5185dc1 e385f6c912ae32cb164cdee7 4803ffd512ae32cbd5185dc1 4803ffd512ae32cb164cdee7 "
        "2f2b0058b28b5df5fe5754f4 12922c13b28b5df517ad7968 8c22adf2b28b5df5fe5754f4 8c22adf2b28b5df517ad7968 "
        "5e1c45c612ae32cbd5185dc1 f70e0b7e12ae32cb164cdee7 4902355812ae32cbd5185dc1 4902355812ae32cb164cdee7 "
        "565914b7c85a12e7fe5754f4 2fc54df4c85a12e717ad7968 a804ddf2c85a12e7fe5754f4 a804ddf2c85a12e717ad7968 "
        "f7740f011388cdf630f21173 b8fe43561388cdf6f80bdf71"
    ),
    "google-gemma-4-31B-it-interleaved": (
        "4116907f12ae32cb6a01b6a3 4116907f12ae32cba27442ca 771f551e12ae32cb6a01b6a3 771f551e12ae32cba27442ca "
        "870f1bb6cea2f1be8274c999 870f1bb6cea2f1bea89977c3 1ec2f84fcea2f1be8274c999 1ec2f84fcea2f1bea89977c3 "
        "237a4c374e38cbd981cb1970 237a4c374e38cbd901b25c1f 46c0071f4e38cbd981cb1970 46c0071f4e38cbd901b25c1f "
        "870f1bb6cea2f1be3fd2f76f 870f1bb6cea2f1bee0299918 1ec2f84fcea2f1be3fd2f76f 1ec2f84fcea2f1bee0299918 "
        "8bf7d4d53caac28181cb1970 8bf7d4d53caac28101b25c1f 6f73221d3caac28181cb1970 6f73221d3caac28101b25c1f "
        "870f1bb6cea2f1be3fd2f76f 870f1bb6cea2f1bee0299918 1ec2f84fcea2f1be3fd2f76f 1ec2f84fcea2f1bee0299918 "
        "cf6ae73a83ce5fe23fd2f76f cf6ae73a83ce5fe2e0299918 6d96e17e83ce5fe23fd2f76f 6d96e17e83ce5fe2e0299918 "
        "870f1bb6cea2f1be3fd2f76f 870f1bb6cea2f1bee0299918 1ec2f84fcea2f1be3fd2f76f 1ec2f84fcea2f1bee0299918 "
        "e8e1670ce1e106763fd2f76f e8e1670ce1e10676e0299918 c3f61ee5e1e106763fd2f76f c3f61ee5e1e10676e0299918 "
        "870f1bb6cea2f1be3fd2f76f 870f1bb6cea2f1bee0299918 1ec2f84fcea2f1be3fd2f76f 1ec2f84fcea2f1bee0299918 "
        "4116907f12ae32cb02d48b6c 4116907f12ae32cbe6840c76 771f551e12ae32cb02d48b6c 771f551e12ae32cbe6840c76 "
        "870f1bb6cea2f1be3fd2f76f 870f1bb6cea2f1bee0299918 1ec2f84fcea2f1be3fd2f76f 1ec2f84fcea2f1bee0299918 "
        "4116907f12ae32cb02d48b6c 4116907f12ae32cbe6840c76 771f551e12ae32cb02d48b6c 771f551e12ae32cbe6840c76 "
        "870f1bb6cea2f1be3fd2f76f 870f1bb6cea2f1bee0299918 1ec2f84fcea2f1be3fd2f76f 1ec2f84fcea2f1bee0299918 "
        "237a4c374e38cbd97cc0db05 237a4c374e38cbd9c1aa89ef"
    ),
    "google-gemma-4-31B-it": (
        "4116907f12ae32cb6a01b6a3 4116907f12ae32cba27442ca 771f551e12ae32cb6a01b6a3 771f551e12ae32cba27442ca "
        "870f1bb6cea2f1be8274c999 870f1bb6cea2f1bea89977c3 1ec2f84fcea2f1be8274c999 1ec2f84fcea2f1bea89977c3 "
        "237a4c374e38cbd99bfbac40 237a4c374e38cbd975df3344 46c0071f4e38cbd99bfbac40 46c0071f4e38cbd975df3344 "
        "870f1bb6cea2f1be994e093a 870f1bb6cea2f1be0f2cbfad 1ec2f84fcea2f1be994e093a 1ec2f84fcea2f1be0f2cbfad "
        "8bf7d4d53caac2819bfbac40 8bf7d4d53caac28175df3344 6f73221d3caac2819bfbac40 6f73221d3caac28175df3344 "
        "870f1bb6cea2f1be994e093a 870f1bb6cea2f1be0f2cbfad 1ec2f84fcea2f1be994e093a 1ec2f84fcea2f1be0f2cbfad "
        "cf6ae73a83ce5fe2994e093a cf6ae73a83ce5fe20f2cbfad 6d96e17e83ce5fe2994e093a 6d96e17e83ce5fe20f2cbfad "
        "870f1bb6cea2f1be994e093a 870f1bb6cea2f1be0f2cbfad 1ec2f84fcea2f1be994e093a 1ec2f84fcea2f1be0f2cbfad "
        "e8e1670ce1e10676994e093a e8e1670ce1e106760f2cbfad c3f61ee5e1e10676994e093a c3f61ee5e1e106760f2cbfad "
        "870f1bb6cea2f1be994e093a 870f1bb6cea2f1be0f2cbfad 1ec2f84fcea2f1be994e093a 1ec2f84fcea2f1be0f2cbfad "
        "4116907f12ae32cb50b5999b 4116907f12ae32cb6eb4b4c7 771f551e12ae32cb50b5999b 771f551e12ae32cb6eb4b4c7 "
        "870f1bb6cea2f1be994e093a 870f1bb6cea2f1be0f2cbfad 1ec2f84fcea2f1be994e093a 1ec2f84fcea2f1be0f2cbfad "
        "4116907f12ae32cb50b5999b 4116907f12ae32cb6eb4b4c7 771f551e12ae32cb50b5999b 771f551e12ae32cb6eb4b4c7 "
        "870f1bb6cea2f1be994e093a 870f1bb6cea2f1be0f2cbfad 1ec2f84fcea2f1be994e093a 1ec2f84fcea2f1be0f2cbfad "
        "237a4c374e38cbd984d4ce78 237a4c374e38cbd95720adc4"
    ),
    "inclusionai-ling-3.0-flash": (
        "f253c90012ae32cbbc4e0979 ade446a712ae32cb8b8d8b8c ab5d74cd12ae32cbbc4e0979 70e20d8312ae32cb8b8d8b8c "
        "f253c90012ae32cbbc4e0979 ade446a712ae32cb8b8d8b8c ab5d74cd12ae32cbbc4e0979 70e20d8312ae32cb8b8d8b8c "
        "acb169f5562c95debe090146 60ca894d562c95debb0806cd cbae1172562c95debe090146 770a8be4562c95debb0806cd "
        "acb169f5562c95debe090146 60ca894d562c95debb0806cd cbae1172562c95debe090146 770a8be4562c95debb0806cd "
        "35d4a9d351887f4fbe090146 125aa70451887f4fbb0806cd 05386e7e51887f4fbe090146 abdd617651887f4fbb0806cd "
        "35d4a9d351887f4fbe090146 125aa70451887f4fbb0806cd 05386e7e51887f4fbe090146 abdd617651887f4fbb0806cd "
        "d6280ce4e6f54a65f6a584b2 9f4ee4983a6fd589d6f16099 b8996cb2e6f54a65f6a584b2 f5d502103a6fd589d6f16099 "
        "d6280ce4e6f54a65f6a584b2 9f4ee4983a6fd589d6f16099 b8996cb2e6f54a65f6a584b2 f5d502103a6fd589d6f16099 "
        "d27990d93c8ccff9f6a584b2 f331c4b49c5497d1d6f16099 c1d33ff63c8ccff9f6a584b2 b43063519c5497d1d6f16099 "
        "d27990d93c8ccff9f6a584b2 f331c4b49c5497d1d6f16099 c1d33ff63c8ccff9f6a584b2 b43063519c5497d1d6f16099 "
        "f253c90012ae32cb24032776 ade446a712ae32cb922228bc ab5d74cd12ae32cb24032776 70e20d8312ae32cb922228bc "
        "f253c90012ae32cb24032776 ade446a712ae32cb922228bc ab5d74cd12ae32cb24032776 70e20d8312ae32cb922228bc "
        "f253c90012ae32cb24032776 ade446a712ae32cb922228bc ab5d74cd12ae32cb24032776 70e20d8312ae32cb922228bc "
        "f253c90012ae32cb24032776 ade446a712ae32cb922228bc ab5d74cd12ae32cb24032776 70e20d8312ae32cb922228bc "
        "acb169f5562c95de85fd817f 60ca894d562c95de2d730a62"
    ),
    "meetkai-functionary-medium-v3.2": (
        "9137e6c112ae32cba5223ce7 9137e6c112ae32cba5223ce7 9137e6c112ae32cba5223ce7 9137e6c112ae32cba5223ce7 "
        "9137e6c112ae32cba5223ce7 9137e6c112ae32cba5223ce7 9137e6c112ae32cba5223ce7 9137e6c112ae32cba5223ce7 "
        "d022a959f1231030c3f670f2 d022a959f1231030c3f670f2 d022a959f1231030c3f670f2 d022a959f1231030c3f670f2 "
        "d022a959f1231030c3f670f2 d022a959f1231030c3f670f2 d022a959f1231030c3f670f2 d022a959f1231030c3f670f2 "
        "5f952999f1231030c3f670f2 5f952999f1231030c3f670f2 5f952999f1231030c3f670f2 5f952999f1231030c3f670f2 "
        "5f952999f1231030c3f670f2 5f952999f1231030c3f670f2 5f952999f1231030c3f670f2 5f952999f1231030c3f670f2 "
        "07fdd6d6b03bc2964a58ed4b 07fdd6d6b03bc2964a58ed4b 07fdd6d6b03bc2964a58ed4b 07fdd6d6b03bc2964a58ed4b "
        "07fdd6d6b03bc2964a58ed4b 07fdd6d6b03bc2964a58ed4b 07fdd6d6b03bc2964a58ed4b 07fdd6d6b03bc2964a58ed4b "
        "2082ce4721ae9c744a58ed4b 2082ce4721ae9c744a58ed4b 2082ce4721ae9c744a58ed4b 2082ce4721ae9c744a58ed4b "
        "2082ce4721ae9c744a58ed4b 2082ce4721ae9c744a58ed4b 2082ce4721ae9c744a58ed4b 2082ce4721ae9c744a58ed4b "
        "9137e6c112ae32cb7a95cfad 9137e6c112ae32cb7a95cfad 9137e6c112ae32cb7a95cfad 9137e6c112ae32cb7a95cfad "
        "9137e6c112ae32cb7a95cfad 9137e6c112ae32cb7a95cfad 9137e6c112ae32cb7a95cfad 9137e6c112ae32cb7a95cfad "
        "9137e6c112ae32cb7a95cfad 9137e6c112ae32cb7a95cfad 9137e6c112ae32cb7a95cfad 9137e6c112ae32cb7a95cfad "
        "9137e6c112ae32cb7a95cfad 9137e6c112ae32cb7a95cfad 9137e6c112ae32cb7a95cfad 9137e6c112ae32cb7a95cfad "
        "d022a959f123103036d3b496 d022a959f123103036d3b496"
    ),
    "mistralai-Ministral-3-14B-Reasoning-2512": (
        "c52ae85412ae32cb0670444b c52ae85412ae32cb0670444b e916b92112ae32cb0670444b e916b92112ae32cb0670444b "
        "d960d1f3359e4dac38ea190c d960d1f3359e4dac38ea190c f0fa1842f5df24b938ea190c f0fa1842f5df24b938ea190c "
        "96c70185887e05d3d6041326 96c70185887e05d3d6041326 cd28cd28887e05d3d6041326 cd28cd28887e05d3d6041326 "
        "d960d1f316cc9945d6041326 d960d1f316cc9945d6041326 f0fa184216cc9945d6041326 f0fa184216cc9945d6041326 "
        "c317c02c980e309dd6041326 c317c02c980e309dd6041326 27857e1d980e309dd6041326 27857e1d980e309dd6041326 "
        "d960d1f316cc9945d6041326 d960d1f316cc9945d6041326 f0fa184216cc9945d6041326 f0fa184216cc9945d6041326 "
        "420cd77d643ba1745b745baf 420cd77d643ba1745b745baf b17e8dd7138c2a875b745baf b17e8dd7138c2a875b745baf "
        "d960d1f3359e4dac5b745baf d960d1f3359e4dac5b745baf f0fa1842f5df24b95b745baf f0fa1842f5df24b95b745baf "
        "9e38b5000b0370005b745baf 9e38b5000b0370005b745baf aec7646b6a25cfb15b745baf aec7646b6a25cfb15b745baf "
        "d960d1f3359e4dac5b745baf d960d1f3359e4dac5b745baf f0fa1842f5df24b95b745baf f0fa1842f5df24b95b745baf "
        "c52ae85412ae32cbf2e0a4f2 c52ae85412ae32cbf2e0a4f2 e916b92112ae32cbf2e0a4f2 e916b92112ae32cbf2e0a4f2 "
        "d960d1f3359e4dac5b745baf d960d1f3359e4dac5b745baf f0fa1842f5df24b95b745baf f0fa1842f5df24b95b745baf "
        "c52ae85412ae32cbf2e0a4f2 c52ae85412ae32cbf2e0a4f2 e916b92112ae32cbf2e0a4f2 e916b92112ae32cbf2e0a4f2 "
        "d960d1f3359e4dac5b745baf d960d1f3359e4dac5b745baf f0fa1842f5df24b95b745baf f0fa1842f5df24b95b745baf "
        "xxxxxxxxxxxxxxxxxxxxxxxx xxxxxxxxxxxxxxxxxxxxxxxx"
    ),
    "moonshotai-Kimi-K2": (
        "511413cf12ae32cbd9c042ab 511413cf12ae32cbd9c042ab dc9f827512ae32cbd9c042ab dc9f827512ae32cbd9c042ab "
        "511413cf12ae32cbd9c042ab 511413cf12ae32cbd9c042ab dc9f827512ae32cbd9c042ab dc9f827512ae32cbd9c042ab "
        "5474096c853473523c64a6f1 5474096c853473523c64a6f1 e3be9823853473523c64a6f1 e3be9823853473523c64a6f1 "
        "5474096c853473523c64a6f1 5474096c853473523c64a6f1 e3be9823853473523c64a6f1 e3be9823853473523c64a6f1 "
        "6601a803e943d9a83c64a6f1 6601a803e943d9a83c64a6f1 a4c114c4e943d9a83c64a6f1 a4c114c4e943d9a83c64a6f1 "
        "6601a803e943d9a83c64a6f1 6601a803e943d9a83c64a6f1 a4c114c4e943d9a83c64a6f1 a4c114c4e943d9a83c64a6f1 "
        "b82409f7312c6d0b1d8a5573 b82409f7312c6d0b1d8a5573 000e7da1ace6c5311d8a5573 000e7da1ace6c5311d8a5573 "
        "b82409f7312c6d0b1d8a5573 b82409f7312c6d0b1d8a5573 000e7da1ace6c5311d8a5573 000e7da1ace6c5311d8a5573 "
        "7c8747769345f91f1d8a5573 7c8747769345f91f1d8a5573 b4ac3b476f3a54d21d8a5573 b4ac3b476f3a54d21d8a5573 "
        "7c8747769345f91f1d8a5573 7c8747769345f91f1d8a5573 b4ac3b476f3a54d21d8a5573 b4ac3b476f3a54d21d8a5573 "
        "511413cf12ae32cbfcdab467 511413cf12ae32cbfcdab467 dc9f827512ae32cbfcdab467 dc9f827512ae32cbfcdab467 "
        "511413cf12ae32cbfcdab467 511413cf12ae32cbfcdab467 dc9f827512ae32cbfcdab467 dc9f827512ae32cbfcdab467 "
        "511413cf12ae32cbfcdab467 511413cf12ae32cbfcdab467 dc9f827512ae32cbfcdab467 dc9f827512ae32cbfcdab467 "
        "511413cf12ae32cbfcdab467 511413cf12ae32cbfcdab467 dc9f827512ae32cbfcdab467 dc9f827512ae32cbfcdab467 "
        "5474096c853473529f5c079c 5474096c853473529f5c079c"
    ),
    "muse-glimmer": (
        "34a094a312ae32cbd7c34f25 34a094a312ae32cbd7c34f25 9a138ad712ae32cbd7c34f25 9a138ad712ae32cbd7c34f25 "
        "6eac792ffececd39d9f782a1 6eac792ffececd39d9f782a1 cc879baffececd39d9f782a1 cc879baffececd39d9f782a1 "
        "1ea019f56e2913f1704dd837 1ea019f56e2913f1704dd837 fcf5f9696e2913f1704dd837 fcf5f9696e2913f1704dd837 "
        "6eac792ffececd39f8645f96 6eac792ffececd39f8645f96 cc879baffececd39f8645f96 cc879baffececd39f8645f96 "
        "0ed3406bcdc198d9704dd837 0ed3406bcdc198d9704dd837 ca89ca83cdc198d9704dd837 ca89ca83cdc198d9704dd837 "
        "6eac792ffececd39f8645f96 6eac792ffececd39f8645f96 cc879baffececd39f8645f96 cc879baffececd39f8645f96 "
        "52c135f9dae168c6f8645f96 52c135f9dae168c6f8645f96 bbd2a634dae168c6f8645f96 bbd2a634dae168c6f8645f96 "
        "6eac792ffececd39f8645f96 6eac792ffececd39f8645f96 cc879baffececd39f8645f96 cc879baffececd39f8645f96 "
        "c81bd66df4054f28f8645f96 c81bd66df4054f28f8645f96 6df94d1af4054f28f8645f96 6df94d1af4054f28f8645f96 "
        "6eac792ffececd39f8645f96 6eac792ffececd39f8645f96 cc879baffececd39f8645f96 cc879baffececd39f8645f96 "
        "34a094a312ae32cb11224064 34a094a312ae32cb11224064 9a138ad712ae32cb11224064 9a138ad712ae32cb11224064 "
        "6eac792ffececd39f8645f96 6eac792ffececd39f8645f96 cc879baffececd39f8645f96 cc879baffececd39f8645f96 "
        "34a094a312ae32cb11224064 34a094a312ae32cb11224064 9a138ad712ae32cb11224064 9a138ad712ae32cb11224064 "
        "6eac792ffececd39f8645f96 6eac792ffececd39f8645f96 cc879baffececd39f8645f96 cc879baffececd39f8645f96 "
        "1ea019f56e2913f1019946ce 1ea019f56e2913f1019946ce"
    ),
    "openai-gpt-oss-120b": (
        "ed01164612ae32cbe9fe7936 ed01164612ae32cbe9fe7936 1e6155c912ae32cbe9fe7936 1e6155c912ae32cbe9fe7936 "
        "e16a22ab0e4be6dfc87721bf e16a22ab0e4be6dfc87721bf 72d4b3380e4be6dfc87721bf 72d4b3380e4be6dfc87721bf "
        "8facf85573cc78416f6c7dab 8facf85573cc78416f6c7dab 0d1180d873cc78416f6c7dab 0d1180d873cc78416f6c7dab "
        "e16a22ab0e4be6df825bff2e e16a22ab0e4be6df825bff2e 72d4b3380e4be6df825bff2e 72d4b3380e4be6df825bff2e "
        "8facf85573cc78416f6c7dab 8facf85573cc78416f6c7dab 0d1180d873cc78416f6c7dab 0d1180d873cc78416f6c7dab "
        "e16a22ab0e4be6df825bff2e e16a22ab0e4be6df825bff2e 72d4b3380e4be6df825bff2e 72d4b3380e4be6df825bff2e "
        "6f5bfe33005e07fd825bff2e 6f5bfe33005e07fd825bff2e 18fb5de6005e07fd825bff2e 18fb5de6005e07fd825bff2e "
        "e16a22ab0e4be6df825bff2e e16a22ab0e4be6df825bff2e 72d4b3380e4be6df825bff2e 72d4b3380e4be6df825bff2e "
        "6f5bfe33005e07fd825bff2e 6f5bfe33005e07fd825bff2e 18fb5de6005e07fd825bff2e 18fb5de6005e07fd825bff2e "
        "e16a22ab0e4be6df825bff2e e16a22ab0e4be6df825bff2e 72d4b3380e4be6df825bff2e 72d4b3380e4be6df825bff2e "
        "ed01164612ae32cb44e5dbd4 ed01164612ae32cb44e5dbd4 1e6155c912ae32cb44e5dbd4 1e6155c912ae32cb44e5dbd4 "
        "e16a22ab0e4be6df825bff2e e16a22ab0e4be6df825bff2e 72d4b3380e4be6df825bff2e 72d4b3380e4be6df825bff2e "
        "ed01164612ae32cb44e5dbd4 ed01164612ae32cb44e5dbd4 1e6155c912ae32cb44e5dbd4 1e6155c912ae32cb44e5dbd4 "
        "e16a22ab0e4be6df825bff2e e16a22ab0e4be6df825bff2e 72d4b3380e4be6df825bff2e 72d4b3380e4be6df825bff2e "
        "8facf85573cc7841835de35b 8facf85573cc7841835de35b"
    ),
    "openbmb-MiniCPM5-1B": (
        "5551ebe412ae32cb5db85948 5551ebe412ae32cb8e5663c8 c0ebc65112ae32cb5db85948 c0ebc65112ae32cb8e5663c8 "
        "d5184abd50fbe821f35b9436 d5184abd50fbe8215007f0e7 0a7cc7941fb48372f35b9436 0a7cc7941fb483725007f0e7 "
        "5d80ef2a6924531e7f65de7c 5d80ef2a6924531ed98ed212 d2cc66cae01e8f627f65de7c d2cc66cae01e8f62d98ed212 "
        "d5184abd50fbe8213be2de60 d5184abd50fbe8215326d50f 0a7cc7941fb483723be2de60 0a7cc7941fb483725326d50f "
        "d2ebd27b6b754d747f65de7c d2ebd27b6b754d74d98ed212 a9ff3f2b7be7e0a47f65de7c a9ff3f2b7be7e0a4d98ed212 "
        "d5184abd50fbe8213be2de60 d5184abd50fbe8215326d50f 0a7cc7941fb483723be2de60 0a7cc7941fb483725326d50f "
        "5d80ef2acf72c8313be2de60 5d80ef2acf72c8315326d50f d2cc66cabc68881f3be2de60 d2cc66cabc68881f5326d50f "
        "d5184abd50fbe8213be2de60 d5184abd50fbe8215326d50f 0a7cc7941fb483723be2de60 0a7cc7941fb483725326d50f "
        "d2ebd27b0e43aa4b3be2de60 d2ebd27b0e43aa4b5326d50f a9ff3f2b20f3f0a63be2de60 a9ff3f2b20f3f0a65326d50f "
        "d5184abd50fbe8213be2de60 d5184abd50fbe8215326d50f 0a7cc7941fb483723be2de60 0a7cc7941fb483725326d50f "
        "5551ebe412ae32cbf1b949f7 5551ebe412ae32cb7b60214c c0ebc65112ae32cbf1b949f7 c0ebc65112ae32cb7b60214c "
        "d5184abd50fbe8213be2de60 d5184abd50fbe8215326d50f 0a7cc7941fb483723be2de60 0a7cc7941fb483725326d50f "
        "5551ebe412ae32cbf1b949f7 5551ebe412ae32cb7b60214c c0ebc65112ae32cbf1b949f7 c0ebc65112ae32cb7b60214c "
        "d5184abd50fbe8213be2de60 d5184abd50fbe8215326d50f 0a7cc7941fb483723be2de60 0a7cc7941fb483725326d50f "
        "5d80ef2a6924531e9e57fcbe 5d80ef2a6924531e3311380b"
    ),
    "unsloth-mistral-Devstral-Small-2507": (
        "c52ae85412ae32cbebe66d8e c52ae85412ae32cbebe66d8e e916b92112ae32cbebe66d8e e916b92112ae32cbebe66d8e "
        "d960d1f3359e4daccee41678 d960d1f3359e4daccee41678 f0fa1842f5df24b9cee41678 f0fa1842f5df24b9cee41678 "
        "96c70185887e05d38064e614 96c70185887e05d38064e614 cd28cd28887e05d38064e614 cd28cd28887e05d38064e614 "
        "d960d1f316cc99458064e614 d960d1f316cc99458064e614 f0fa184216cc99458064e614 f0fa184216cc99458064e614 "
        "c317c02c980e309d8064e614 c317c02c980e309d8064e614 27857e1d980e309d8064e614 27857e1d980e309d8064e614 "
        "d960d1f316cc99458064e614 d960d1f316cc99458064e614 f0fa184216cc99458064e614 f0fa184216cc99458064e614 "
        "420cd77d643ba174a0a9ded6 420cd77d643ba174a0a9ded6 b17e8dd7138c2a87a0a9ded6 b17e8dd7138c2a87a0a9ded6 "
        "d960d1f3359e4daca0a9ded6 d960d1f3359e4daca0a9ded6 f0fa1842f5df24b9a0a9ded6 f0fa1842f5df24b9a0a9ded6 "
        "9e38b5000b037000a0a9ded6 9e38b5000b037000a0a9ded6 aec7646b6a25cfb1a0a9ded6 aec7646b6a25cfb1a0a9ded6 "
        "d960d1f3359e4daca0a9ded6 d960d1f3359e4daca0a9ded6 f0fa1842f5df24b9a0a9ded6 f0fa1842f5df24b9a0a9ded6 "
        "c52ae85412ae32cbe584972f c52ae85412ae32cbe584972f e916b92112ae32cbe584972f e916b92112ae32cbe584972f "
        "d960d1f3359e4daca0a9ded6 d960d1f3359e4daca0a9ded6 f0fa1842f5df24b9a0a9ded6 f0fa1842f5df24b9a0a9ded6 "
        "c52ae85412ae32cbe584972f c52ae85412ae32cbe584972f e916b92112ae32cbe584972f e916b92112ae32cbe584972f "
        "d960d1f3359e4daca0a9ded6 d960d1f3359e4daca0a9ded6 f0fa1842f5df24b9a0a9ded6 f0fa1842f5df24b9a0a9ded6 "
        "96c70185887e05d39084d284 96c70185887e05d39084d284"
    ),
}
