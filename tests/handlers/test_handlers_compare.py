"""explorer.apply.compare: a routed template's handler next to the autoparser it bypasses."""

from __future__ import annotations

import json

from explorer.apply import Request
from explorer.apply.compare import (
    COMPARED_FIELDS,
    MESSAGE_FIELDS,
    compare_template_routes,
    message_differences,
    parse_both,
)
from explorer.comparison import FieldChange
from explorer.routing import route
from oracle_data import SHARED, requires_oracle

GEMMA4_OUTPUT = 'Some text before <|tool_call>call:get_weather{location:<|"|>Tokyo<|"|>}<tool_call|> after'
FIXTURE_TOOL = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"location": {"type": "string"}, "unit": {"type": "string"}}}}}

# A template of our own whose text routes it to llama.cpp's Qwen3-Coder handler
# (it names <tool_call>, <function= and <parameter=).
QWEN3_CODER_STYLE = (
    "{%- if tools %}<|im_start|>system\nTools: {% for t in tools %}{{ t | tojson }}{% endfor %}\n"
    "Call as <tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n</function>\n"
    "</tool_call><|im_end|>\n{% endif %}"
    "{%- for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    "{%- if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
QWEN3_CODER_CALL = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>"
WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
CHATML = ("{%- for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
          "{%- if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


def fixture_request(tool: dict, thinking: bool = False) -> Request:
    # as the oracle replays a fixture (README "Parse files")
    return Request(messages=({"role": "user", "content": "Hello"},), tools=(tool,), tool_choice="auto",
                   parallel_tool_calls=True, reasoning_format="deepseek", enable_thinking=thinking,
                   chat_template_kwargs={"enable_thinking": thinking, "thinking": thinking})


def assert_consistent(comparison) -> None:
    """A params field is listed iff the two sides differ on it."""
    listed = {d.field for d in comparison.differences}
    h, a = comparison.handler.to_oracle_json(), comparison.autoparser.to_oracle_json()
    assert listed == {f for f in COMPARED_FIELDS if h[f] != a[f]}
    for d in comparison.differences:
        assert (d.a, d.b) == (h[d.field], a[d.field])


def assert_message_consistent(left, right, diffs) -> None:
    lj, rj = left.to_oracle_json(), right.to_oracle_json()
    assert {d.field for d in diffs} == {f for f in MESSAGE_FIELDS if lj[f] != rj[f]}


@requires_oracle
def test_gemma4_handler_side_is_llama_cpps_recorded_parse_and_autoparser_side_is_computed():
    text = (SHARED / "oracle" / "templates" / "google-gemma-4-31B-it.jinja").read_text()
    comparison = compare_template_routes(text, fixture_request(FIXTURE_TOOL))
    assert comparison.routed and comparison.handler.handler == "gemma4"
    assert comparison.autoparser is not None and comparison.autoparser_error is None
    assert comparison.autoparser.handler == "autoparser" and comparison.autoparser.format == "peg-native"
    assert_consistent(comparison)
    handler_msg, auto_msg, diffs = parse_both(comparison, GEMMA4_OUTPUT)
    # the oracle README's "Sanity check": what llama.cpp gives for this fixture
    assert handler_msg.content == "Some text before "
    assert handler_msg.reasoning_content == ""
    assert [(c.name, json.loads(c.arguments)) for c in handler_msg.tool_calls] == [("get_weather", {"location": "Tokyo"})]
    assert not isinstance(auto_msg, Exception)
    assert_message_consistent(handler_msg, auto_msg, diffs)
    print(f"gemma4: params differ on {[d.field for d in comparison.differences]}, messages on {[d.field for d in diffs]}")


def test_our_qwen3_coder_style_template_compares_the_handler_with_the_autoparser():
    assert route(QWEN3_CODER_STYLE).handler == "qwen3-coder"
    request = Request(messages=({"role": "user", "content": "Hi"},), tools=(WEATHER,), parallel_tool_calls=True)
    comparison = compare_template_routes(QWEN3_CODER_STYLE, request)
    assert comparison.routed and comparison.handler.handler == "qwen3-coder"
    assert comparison.autoparser is not None and comparison.autoparser.handler == "autoparser"
    assert comparison.autoparser.why.startswith("forced: routing picks qwen3-coder")
    # both render the same prompt: the route changes the parser, not the rendering
    assert comparison.handler.prompt == comparison.autoparser.prompt
    assert comparison.handler.generation_prompt == comparison.autoparser.generation_prompt
    assert_consistent(comparison)
    handler_msg, auto_msg, diffs = parse_both(comparison, QWEN3_CODER_CALL)
    assert [(c.name, json.loads(c.arguments)) for c in handler_msg.tool_calls] == [("get_weather", {"city": "Paris"})]
    if isinstance(auto_msg, Exception):
        assert "error" in {d.field for d in diffs}
    else:
        assert_message_consistent(handler_msg, auto_msg, diffs)


def test_plain_text_parses_the_same_on_both_sides():
    request = Request(messages=({"role": "user", "content": "Hi"},), tools=(WEATHER,), parallel_tool_calls=True)
    comparison = compare_template_routes(QWEN3_CODER_STYLE, request)
    left, right, diffs = parse_both(comparison, "Just words.")
    assert left.content == "Just words." and diffs == tuple(message_differences(left, right))
    assert_message_consistent(left, right, diffs)


def test_an_unrouted_template_compares_the_autoparser_with_itself():
    request = Request(messages=({"role": "user", "content": "Hi"},), tools=(WEATHER,), parallel_tool_calls=True)
    comparison = compare_template_routes(CHATML, request)
    assert not comparison.routed
    assert comparison.differences == ()
    assert comparison.autoparser.why == comparison.handler.why


def test_an_error_on_one_side_differs_from_a_message():
    from explorer.errors import OutputParseError
    from explorer.output.parse import ChatMessage

    diffs = message_differences(ChatMessage(content="x"), OutputParseError("expected end, found 'y' at 3"))
    assert "error" in {d.field for d in diffs} and "content" in {d.field for d in diffs}
    assert message_differences(ChatMessage(content="x"), ChatMessage(content="x")) == ()
    assert isinstance(diffs[0], FieldChange) and not diffs[0].same
