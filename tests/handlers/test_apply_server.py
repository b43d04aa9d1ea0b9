"""llama-server's request parsing (tools/server/server-common.cpp, oaicompat_chat_params_parse).

Hand-written bodies with expectations read from the C++, and the oracle's parse lines:
each was a llama-server request, so our defaults must reproduce the values it sent.
"""

from __future__ import annotations

import json

import pytest
from canitoolcall.fixtures import load_fixtures

from explorer.apply.server import ServerOptions, request_from_body, server_enable_thinking
from explorer.caps import Caps
from explorer.errors import RequestError
from oracle_data import ORACLE, load_oracle_analysis, requires_oracle

CAPS = Caps(supports_parallel_tool_calls=True)
HELLO = [{"role": "user", "content": "Hello"}]
TOOL = {"type": "function", "function": {"name": "f", "parameters": {}}}


def parse(body, enable_thinking=True, **opts):
    return request_from_body(body, caps=CAPS, enable_thinking=enable_thinking, options=ServerOptions(**opts))


def test_defaults():
    r = parse({"messages": HELLO})
    assert (r.tool_choice, r.parallel_tool_calls, r.add_generation_prompt) == ("auto", True, True)
    assert (r.reasoning_format, r.enable_thinking, r.continue_final_message) == ("deepseek", True, "none")
    assert r.tools is None and r.json_schema is None
    # parallel_tool_calls defaults to the template's capability
    no_parallel = request_from_body({"messages": HELLO}, caps=Caps(supports_parallel_tool_calls=False),
                                    enable_thinking=False)
    assert no_parallel.parallel_tool_calls is False


def test_enable_thinking_kwarg_overrides_the_default():
    assert parse({"messages": HELLO, "chat_template_kwargs": {"enable_thinking": False}}).enable_thinking is False
    assert parse({"messages": HELLO, "chat_template_kwargs": {"enable_thinking": True}}, False).enable_thinking is True
    # a number is neither "true" nor "false": the default stays
    assert parse({"messages": HELLO, "chat_template_kwargs": {"enable_thinking": 1}}, False).enable_thinking is False
    with pytest.raises(RequestError, match="expected boolean, got string"):
        parse({"messages": HELLO, "chat_template_kwargs": {"enable_thinking": "yes"}})
    # server kwargs (--chat-template-kwargs, --reasoning on/off) are the base the body extends
    r = parse({"messages": HELLO}, chat_template_kwargs={"enable_thinking": False, "x": 1})
    assert r.enable_thinking is False and r.chat_template_kwargs == {"enable_thinking": False, "x": 1}


def test_reasoning_effort():
    r = parse({"messages": HELLO, "reasoning_effort": "high"})
    assert r.chat_template_kwargs["reasoning_effort"] == "high" and r.enable_thinking is True
    off = parse({"messages": HELLO, "reasoning_effort": "none", "chat_template_kwargs": {"reasoning_effort": "x"}})
    assert off.enable_thinking is False and "reasoning_effort" not in off.chat_template_kwargs


def test_trailing_assistant_is_prefilled():
    conv = HELLO + [{"role": "assistant", "content": "Par"}]
    r = parse({"messages": conv})
    assert (r.continue_final_message, r.add_generation_prompt) == ("auto", False)
    assert parse({"messages": conv}, prefill_assistant=False).continue_final_message == "none"
    with pytest.raises(RequestError, match="2 or more assistant messages"):
        parse({"messages": conv + [{"role": "assistant", "content": "x"}]})


def test_continuation_rules():
    conv = HELLO + [{"role": "assistant", "content": "Par"}]
    r = parse({"messages": conv, "continue_final_message": "reasoning_content", "add_generation_prompt": False})
    assert r.continue_final_message == "reasoning"
    with pytest.raises(RequestError, match="Cannot set both"):
        parse({"messages": conv, "continue_final_message": True}, prefill_assistant=False)
    calls = HELLO + [{"role": "assistant", "tool_calls": [
        {"type": "function", "function": {"name": "f", "arguments": "{}"}}]}]
    with pytest.raises(RequestError, match="contains tool calls"):
        parse({"messages": calls})


def test_message_checks():
    with pytest.raises(RequestError, match="'messages' is required"):
        parse({})
    with pytest.raises(RequestError, match="must contain 'content'"):
        parse({"messages": [{"role": "user"}]})
    with pytest.raises(RequestError, match="either 'content' or 'tool_calls'"):
        parse({"messages": [{"role": "assistant"}]})
    with pytest.raises(RequestError, match="string or an array"):
        parse({"messages": [{"role": "user", "content": 3}]})
    # a message that is not an object: json_value gives no role, contains("content") is false
    for not_an_object in (3, None, "content", ["content"]):
        with pytest.raises(RequestError, match="All non-assistant messages must contain 'content'"):
            parse({"messages": [not_an_object]})


def test_tool_choice_and_grammar():
    # an OpenAI tool_choice object is the wrong type for llama-server: it becomes "auto"
    r = parse({"messages": HELLO, "tools": [TOOL], "tool_choice": {"type": "function", "function": {"name": "f"}}})
    assert r.tool_choice == "auto" and r.tools == (TOOL,)
    with pytest.raises(RequestError, match="Invalid tool_choice"):
        parse({"messages": HELLO, "tool_choice": "any"})
    with pytest.raises(RequestError, match="custom grammar"):
        parse({"messages": HELLO, "tools": [TOOL], "grammar": "root ::= x"})
    assert parse({"messages": HELLO, "tools": [TOOL], "tool_choice": "none", "grammar": "r"}).tool_choice == "none"
    with pytest.raises(RequestError, match="Failed to parse tools"):
        parse({"messages": HELLO, "tools": {"not": "a list"}})


def test_response_format():
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    rf = {"type": "json_schema", "json_schema": {"name": "x", "schema": schema}}
    assert parse({"messages": HELLO, "response_format": rf}).json_schema == schema
    assert parse({"messages": HELLO, "response_format": {"type": "json_object"}}).json_schema == {"type": "object"}
    assert parse({"messages": HELLO, "response_format": {"type": "text"}}).json_schema is None
    with pytest.raises(RequestError, match="response_format type"):
        parse({"messages": HELLO, "response_format": {"type": "xml"}})
    with pytest.raises(RequestError, match="both json_schema and grammar"):
        parse({"messages": HELLO, "json_schema": schema, "grammar": "root ::= x"})


def test_reasoning_format_override():
    assert parse({"messages": HELLO, "reasoning_format": "none"}).reasoning_format == "none"
    with pytest.raises(RequestError, match="Unknown reasoning format"):
        parse({"messages": HELLO, "reasoning_format": "xml"})
    with pytest.raises(RequestError, match="Unknown reasoning format"):
        parse({"messages": HELLO, "reasoning_format": ["none"]})


def test_server_enable_thinking():
    assert server_enable_thinking(ServerOptions(), True) is True
    assert server_enable_thinking(ServerOptions(enable_reasoning=0), True) is False
    assert server_enable_thinking(ServerOptions(enable_reasoning=1), False) is False


@requires_oracle
def test_parse_lines_are_llama_server_requests():
    """The oracle replayed each fixture as a llama-server request: with the fixture's
    kwargs (or none), our defaults give the enable_thinking and parallel_tool_calls
    llama-server sent."""
    by_id = {f.id: f for f in load_fixtures()}
    total = ok = 0
    bad = []
    for path in sorted((ORACLE / "parse").glob("*.jsonl")):
        for raw in path.read_text(encoding="utf-8").splitlines():
            line = json.loads(raw)
            d = load_oracle_analysis(line["template"].removesuffix(".jinja"))
            body = {"messages": HELLO, "tools": [dict(t) for t in by_id[line["id"]].tools]}
            if line["chat_template_kwargs"]:
                body["chat_template_kwargs"] = line["chat_template_kwargs"]
            r = request_from_body(
                body, caps=Caps.coerce(d["caps"]),
                enable_thinking=server_enable_thinking(ServerOptions(), d["template_supports_enable_thinking"]),
            )
            total += 1
            got = (r.enable_thinking, r.parallel_tool_calls, r.chat_template_kwargs)
            want = (line["enable_thinking"], line["parallel_tool_calls"], line["chat_template_kwargs"])
            if got == want:
                ok += 1
            else:
                bad.append((line["id"], got, want))
    print(f"\nllama-server request defaults: {ok}/{total}")
    assert total == 469 and bad == []
