"""llama-server's ``--skip-chat-parsing`` (``force_pure_content``) on our own templates.

What chat.cpp's ``common_chat_templates_apply_jinja`` does when the flag is set, read from
the reference: the template is rendered directly (``reasoning_format`` none), the
generation prompt is the usual render diff, the format is peg-native, and the parser is
``p.literal(generation_prompt) << p.content(p.rest())``; nothing else is set (no grammar,
triggers, stops, preserved tokens or thinking tags), and no handler or autoparser runs.
"""

from __future__ import annotations

import json

import pytest

from explorer.apply import Request
from explorer.apply.pipeline import apply_template
from explorer.sources import from_example, list_examples

USER = {"role": "user", "content": "What is the weather in Paris?"}
TOOLS = ({"type": "function", "function": {
    "name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}},)
REPLY = '<think>\nthe user wants weather\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'


def _pure(name: str) -> object:
    return apply_template(from_example(name).text, Request(messages=(USER,), tools=TOOLS, force_pure_content=True))


@pytest.mark.parametrize("name", list_examples())
def test_no_handler_no_grammar_no_stops(name: str) -> None:
    params = _pure(name)
    assert params.handler == "pure-content"
    assert params.format == "peg-native"
    assert (params.grammar, params.grammar_lazy, params.grammar_triggers) == ("", False, ())
    assert (params.preserved_tokens, params.additional_stops) == ((), ())
    assert (params.supports_thinking, params.thinking_start_tag, params.thinking_end_tags) == (False, "", ())


@pytest.mark.parametrize("name", list_examples())
def test_the_parser_is_the_generation_prompt_then_content_in_chat_cpps_creation_order(name: str) -> None:
    params = _pure(name)
    # p.literal(g) << p.content(p.rest()): the literal, then rest and its content tag (the
    # right operand), then the space and the sequence that operator<< adds
    assert json.loads(params.parser) == {
        "parsers": [{"type": "literal", "literal": params.generation_prompt},
                    {"type": "until", "delimiters": []},
                    {"type": "tag", "child": 1, "tag": "content"},
                    {"type": "space"},
                    {"type": "sequence", "children": [0, 3, 2]}],
        "rules": {}, "root": 4}


def test_reasoning_and_tool_calls_come_back_as_content() -> None:
    params = _pure("chatml-think-tools")
    msg = params.parse(REPLY)
    assert (msg.content, msg.reasoning_content, tuple(msg.tool_calls)) == (REPLY, "", ())
    normal = apply_template(from_example("chatml-think-tools").text, Request(messages=(USER,), tools=TOOLS))
    parsed = normal.parse(REPLY)
    assert [c.name for c in parsed.tool_calls] == ["get_weather"]  # what the flag turns off


def test_the_prompt_is_the_template_rendered_directly() -> None:
    text = from_example("chatml-think-tools").text
    pure = _pure("chatml-think-tools")
    normal = apply_template(text, Request(messages=(USER,), tools=TOOLS))
    assert pure.prompt == normal.prompt  # the autoparser route renders directly too
    assert pure.generation_prompt == normal.generation_prompt
    assert pure.prompt.endswith(pure.generation_prompt)
