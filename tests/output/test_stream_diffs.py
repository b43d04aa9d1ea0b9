"""Message deltas between streaming steps (llama.cpp's common_chat_msg_diff).

Vectors from tests/test-chat.cpp (test_msg_diffs_compute) and the rules of
compute_diffs/string_diff in common/chat.cpp.
"""

from __future__ import annotations

import pytest

from explorer.errors import OutputParseError
from explorer.output.parse import ChatMessage, ToolCall
from explorer.output.streaming import MessageDiff, StreamParser, compute_diffs, stream, string_diff
from explorer.peg import build_arena


def test_content_from_empty():
    assert compute_diffs(ChatMessage(), ChatMessage(content="Hello, world!")) == (
        MessageDiff(content_delta="Hello, world!"),)


def test_content_growth():
    assert compute_diffs(ChatMessage(content="Hello,"), ChatMessage(content="Hello, world!")) == (
        MessageDiff(content_delta=" world!"),)


def test_tool_call_appears_then_grows():
    msg1 = ChatMessage(tool_calls=(ToolCall("special_function", '{"ar', "123"),))
    msg2 = ChatMessage(tool_calls=(ToolCall("special_function", '{"arg1": 1}', "123"),))
    assert compute_diffs(ChatMessage(), msg1) == (
        MessageDiff(tool_call_index=0, tool_call_delta=ToolCall("special_function", '{"ar', "123")),)
    # neither id nor name changed: only the arguments delta
    assert compute_diffs(msg1, msg2) == (
        MessageDiff(tool_call_index=0, tool_call_delta=ToolCall("", 'g1": 1}', "")),)


def test_two_new_tool_calls():
    new = ChatMessage(tool_calls=(ToolCall("f1", '{"arg1": 1}', "123"), ToolCall("f2", '{"arg2": 2}', "222")))
    assert compute_diffs(ChatMessage(), new) == (
        MessageDiff(tool_call_index=0, tool_call_delta=ToolCall("f1", '{"arg1": 1}', "123")),
        MessageDiff(tool_call_index=1, tool_call_delta=ToolCall("f2", '{"arg2": 2}', "222")))


def test_reasoning_comes_before_content():
    diffs = compute_diffs(ChatMessage(), ChatMessage(content="b", reasoning_content="a"))
    assert diffs == (MessageDiff(reasoning_content_delta="a"), MessageDiff(content_delta="b"))


def test_string_diff_rules():
    assert string_diff("", "abc") == "abc"
    assert string_diff("ab", "abc") == "c"
    assert string_diff("abc", "ab") == ""  # shrank to a prefix: a partial stop word was erased
    with pytest.raises(OutputParseError, match="Invalid diff: 'abc' not found at start of 'xyz'"):
        string_diff("abc", "xyz")


def test_fewer_tool_calls_and_renamed_call_are_errors():
    two = ChatMessage(tool_calls=(ToolCall("a", "{}"), ToolCall("b", "{}")))
    with pytest.raises(OutputParseError, match="now finding less tool calls"):
        compute_diffs(two, ChatMessage(tool_calls=(ToolCall("a", "{}"),)))
    with pytest.raises(OutputParseError, match="tool call mismatch"):
        compute_diffs(ChatMessage(tool_calls=(ToolCall("get", "{"),)),
                      ChatMessage(tool_calls=(ToolCall("put", "{"),)))
    # a name that grows is allowed
    assert compute_diffs(ChatMessage(tool_calls=(ToolCall("get", "{"),)),
                         ChatMessage(tool_calls=(ToolCall("get_weather", "{"),)))[0].tool_call_delta.name == "get_weather"


def test_openai_delta_shape():
    diff = MessageDiff(tool_call_index=0, tool_call_delta=ToolCall("f", '{"a', "id1"))
    assert diff.to_openai_delta() == {"tool_calls": [
        {"index": 0, "id": "id1", "type": "function", "function": {"name": "f", "arguments": '{"a'}}]}
    assert MessageDiff(content_delta="x").to_openai_delta() == {"content": "x"}
    args_only = MessageDiff(tool_call_index=1, tool_call_delta=ToolCall("", "1}", ""))
    assert args_only.to_openai_delta() == {"tool_calls": [
        {"index": 1, "type": "function", "function": {"arguments": "1}"}}]}


def _think_arena():
    return build_arena(lambda p: p.sequence([
        p.optional(p.sequence([p.literal("<think>"), p.tag("reasoning", p.until("</think>")),
                               p.literal("</think>")])),
        p.tag("content", p.rest()), p.end()]))


def test_stream_steps_and_deltas_rebuild_the_message():
    text = "<think>plan</think>answer"
    steps = list(stream(_think_arena(), list(text)))
    assert len(steps) == len(text) and steps[-1].prefix_chars == len(text)
    reasoning = "".join(d.reasoning_content_delta for s in steps for d in s.diffs)
    content = "".join(d.content_delta for s in steps for d in s.diffs)
    assert (reasoning, content) == ("plan", "answer")
    # while "<thi" could still become "<think>", nothing is shown yet
    assert steps[3].message == ChatMessage()


def test_empty_output_parses_once():
    steps = list(stream(_think_arena(), []))
    assert len(steps) == 1 and steps[0].message == ChatMessage()


def test_stream_parser_finish_is_the_final_parse():
    sp = StreamParser(_think_arena())
    for chunk in ["<think>", "x</think>", "done"]:
        sp.feed(chunk)
    assert sp.finish() == ChatMessage(content="done", reasoning_content="x")
    assert sp.feed("").prefix_bytes == len("<think>x</think>done")


def test_feed_bytes_holds_back_a_split_character():
    sp = StreamParser(_think_arena())
    data = "caf\u00e9!".encode()
    first = sp.feed_bytes(data[:4])  # ends inside the two-byte "é"
    assert first.message.content == "caf"
    second = sp.feed_bytes(data[4:])
    assert second.message.content == "caf\u00e9!"
    assert [d.content_delta for d in second.diffs] == ["\u00e9!"]


def test_feed_bytes_replaces_invalid_bytes():
    sp = StreamParser(_think_arena())
    assert sp.feed_bytes(b"a\x80b").message.content == "a\ufffdb"
