"""The workaround:: functions, the message round trip and handler message rewrites.

Expectations come from reading llama.cpp's common/chat.cpp and common/parsers/*.cpp;
each test names the C++ behaviour it asserts.
"""

from __future__ import annotations

import copy

import pytest

from explorer.apply import (
    convert_tool_responses_gemma4,
    func_args_not_string,
    map_developer_role_to_system,
    requires_non_null_content,
    system_message_not_supported,
    trim_all_content,
)
from explorer.apply.messages import (
    ChatMsg,
    ContentPart,
    ToolCall,
    messages_to_template_json,
    normalize_content,
    parse_oaicompat,
    to_json_oaicompat,
    tools_to_template_json,
)
from explorer.caps import Caps
from explorer.errors import RequestError
from explorer.handlers import route_named
from explorer.handlers.deepseek_v3_2 import DeepseekV32
from explorer.handlers.gemma4 import Gemma4
from explorer.handlers.gpt_oss import GptOss
from explorer.handlers.ministral3 import Ministral3
from explorer.handlers.prompting import RenderedPair

CALL = {"type": "function", "function": {"name": "f", "arguments": '{"b":1,"a":2}'}, "id": "c1"}


# --- map_developer_role_to_system ------------------------------------------------------


def test_developer_becomes_system_and_input_untouched():
    # chat.cpp: every message whose role is "developer" gets role "system"
    msgs = [{"role": "developer", "content": "d"}, {"role": "user", "content": "u"}]
    before = copy.deepcopy(msgs)
    assert map_developer_role_to_system(msgs) == [
        {"role": "system", "content": "d"},
        {"role": "user", "content": "u"},
    ]
    assert msgs == before


# --- system_message_not_supported --------------------------------------------------------


def test_system_merged_into_next_with_newline():
    # chat.cpp: second.content = first.content + "\n" + second.content; first erased
    msgs = [{"role": "system", "content": "S"}, {"role": "user", "content": "U"}]
    assert system_message_not_supported(msgs) == [{"role": "user", "content": "S\nU"}]


def test_lone_system_message_is_dropped():
    # chat.cpp: size() == 1 -> "Removing system prompt", messages.erase(0)
    assert system_message_not_supported([{"role": "system", "content": "S"}]) == []


def test_only_a_leading_system_message_is_merged():
    # chat.cpp looks at messages.front() only
    msgs = [
        {"role": "user", "content": "U"},
        {"role": "system", "content": "S"},
        {"role": "assistant", "content": "A"},
    ]
    assert system_message_not_supported(msgs) == msgs


def test_system_merge_into_assistant_too():
    # the next message is merged into whatever its role
    msgs = [{"role": "system", "content": "S"}, {"role": "assistant", "content": "A"}]
    assert system_message_not_supported(msgs) == [{"role": "assistant", "content": "S\nA"}]


def test_system_merge_with_typed_content_raises():
    # chat.cpp: at("content").get<std::string>() throws on an array (llama.cpp quirk)
    msgs = [
        {"role": "system", "content": [{"type": "text", "text": "S"}]},
        {"role": "user", "content": "U"},
    ]
    with pytest.raises(RequestError):
        system_message_not_supported(msgs)


# --- requires_non_null_content -------------------------------------------------------------


def test_missing_content_next_to_tool_calls_becomes_empty_string():
    # chat.cpp: contains("tool_calls") && !contains("content") -> content = ""
    msgs = [{"role": "assistant", "tool_calls": [CALL]}, {"role": "user"}]
    out = requires_non_null_content(msgs)
    assert out[0]["content"] == ""
    assert "content" not in out[1]  # no tool_calls: untouched


def test_null_content_key_is_left_alone():
    # the test is on the key, not on the value
    msgs = [{"role": "assistant", "content": None, "tool_calls": [CALL]}]
    assert requires_non_null_content(msgs)[0]["content"] is None


# --- func_args_not_string ----------------------------------------------------------------------


def test_string_arguments_become_objects_in_order():
    # chat.cpp: args.is_string() -> json::parse(args); common_json keeps key order
    out = func_args_not_string([{"role": "assistant", "content": "", "tool_calls": [CALL]}])
    args = out[0]["tool_calls"][0]["function"]["arguments"]
    assert args == {"b": 1, "a": 2}
    assert list(args) == ["b", "a"]


def test_object_arguments_untouched():
    call = {"type": "function", "function": {"name": "f", "arguments": {"x": [1]}}}
    out = func_args_not_string([{"role": "assistant", "tool_calls": [call]}])
    assert out[0]["tool_calls"][0]["function"]["arguments"] == {"x": [1]}


@pytest.mark.parametrize("bad", ["{not json", "NaN", ""])
def test_non_json_arguments_raise(bad):
    # chat.cpp: "Failed to parse tool call arguments as JSON: ..."
    call = {"type": "function", "function": {"name": "f", "arguments": bad}}
    with pytest.raises(RequestError, match="Failed to parse tool call arguments as JSON"):
        func_args_not_string([{"role": "assistant", "tool_calls": [call]}])


# --- trim_all_content -----------------------------------------------------------------------------


def test_trim_content_reasoning_and_text_parts():
    # chat.cpp: trim_whitespace on content, reasoning_content and each text part
    msg = ChatMsg(
        role="user",
        content="",
        content_parts=(ContentPart("text", "  a \n"), ContentPart("media_marker", " <m> ")),
        reasoning_content="\t r \v\f",
    )
    (out,) = trim_all_content((msg,))
    assert out.content_parts == (ContentPart("text", "a"), ContentPart("media_marker", " <m> "))
    assert out.reasoning_content == "r"


def test_trim_is_c_isspace_only():
    # std::isspace in the C locale: a no-break space (U+00A0) is not whitespace
    (out,) = trim_all_content((ChatMsg(role="user", content="\u00a0x \r\n"),))
    assert out.content == "\u00a0x"


# --- convert_tool_responses_gemma4 ----------------------------------------------------------------


def _call(name, cid):
    return {"type": "function", "function": {"name": name, "arguments": {}}, "id": cid}


def test_gemma4_folds_calls_results_and_answer():
    # gemma4.cpp: assistant(tool_call+) -> tool+ -> assistant(content) becomes one turn
    msgs = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "", "reasoning_content": "r",
         "tool_calls": [_call("a", "1"), _call("b", "2")]},
        {"role": "tool", "content": '{"t": 20}', "tool_call_id": "1"},
        {"role": "tool", "content": "plain text", "tool_call_id": "2"},
        {"role": "tool", "content": "extra", "tool_call_id": "3"},
        {"role": "assistant", "content": "done"},
        {"role": "user", "content": "next"},
    ]
    out = convert_tool_responses_gemma4(msgs)
    assert out == [
        {"role": "user", "content": "q"},
        {
            "role": "assistant",
            "tool_calls": [_call("a", "1"), _call("b", "2")],
            # JSON text is parsed, other text kept; names by position, then the id
            "tool_responses": [
                {"name": "a", "response": {"t": 20}},
                {"name": "b", "response": "plain text"},
                {"name": "3", "response": "extra"},
            ],
            "content": "done",
            "reasoning_content": "r",
        },
        {"role": "user", "content": "next"},
    ]


def test_gemma4_next_assistant_with_calls_is_a_new_turn():
    # has_tool_calls(next) -> not folded as the final answer
    msgs = [
        {"role": "assistant", "tool_calls": [_call("a", "1")]},
        {"role": "assistant", "content": "x", "tool_calls": [_call("b", "2")]},
    ]
    out = convert_tool_responses_gemma4(msgs)
    # llama.cpp quirk: the builder keeps only the *following* answer's content, so the
    # content of an assistant message that carries tool calls ("x") is dropped
    assert out == [
        {"role": "assistant", "tool_calls": [_call("a", "1")]},
        {"role": "assistant", "tool_calls": [_call("b", "2")]},
    ]


def test_gemma4_empty_answer_not_folded_and_missing_content_is_null():
    msgs = [
        {"role": "assistant", "tool_calls": [_call("a", "1")]},
        {"role": "tool", "tool_call_id": "1"},
        {"role": "assistant", "content": ""},
    ]
    out = convert_tool_responses_gemma4(msgs)
    assert out[0]["tool_responses"] == [{"name": "a", "response": None}]
    assert "content" not in out[0]
    assert out[1] == {"role": "assistant", "content": ""}


# --- the OpenAI <-> common_chat_msg round trip -----------------------------------------------------


def test_round_trip_shapes():
    # common_chat_msgs_parse_oaicompat + to_json_oaicompat
    msgs = parse_oaicompat(
        [
            {"role": "user", "content": None, "extra": 1, "tool_calls": []},
            {"role": "assistant", "content": "", "reasoning_content": "",
             "tool_calls": [{"type": "function", "id": "",
                             "function": {"name": "f", "arguments": {"k": "é", "n": [1, 2]}}}]},
        ]
    )
    out = [to_json_oaicompat(m) for m in msgs]
    assert out == [
        {"role": "user", "content": ""},  # null content -> "", unknown keys dropped
        {
            "role": "assistant",
            "content": "",  # empty reasoning dropped, empty id dropped
            "tool_calls": [
                {"type": "function", "function": {"name": "f", "arguments": '{"k":"é","n":[1,2]}'}}
            ],
        },
    ]


@pytest.mark.parametrize(
    "bad",
    [
        [{"content": "x"}],  # Missing 'role'
        [{"role": "user"}],  # Expected 'content' or 'tool_calls'
        [{"role": "user", "content": 5}],  # Invalid 'content' type
        [{"role": "user", "content": [{"type": "image_url", "text": "x"}]}],
        [{"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": "{}"}}]}],
        "not a list",
    ],
)
def test_invalid_messages_raise(bad):
    with pytest.raises(RequestError, match="Failed to parse messages"):
        parse_oaicompat(bad)


def test_typed_parts_kept_unless_media():
    parts = [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    (plain,) = parse_oaicompat([{"role": "user", "content": parts}])
    assert to_json_oaicompat(plain)["content"] == parts
    media = parts[:1] + [{"type": "media_marker", "text": "<M>"}] + parts[1:]
    (m,) = parse_oaicompat([{"role": "user", "content": media}])
    # no newline before or after a media marker
    assert to_json_oaicompat(m)["content"] == "a<M>b"


def test_normalizer_follows_caps():
    typed = [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}]
    string_only = Caps(supports_string_content=True, supports_typed_content=False)
    typed_only = Caps(supports_string_content=False, supports_typed_content=True)
    both = Caps(supports_string_content=True, supports_typed_content=True)
    assert normalize_content(typed, string_only)[0]["content"] == "a\nb"
    assert normalize_content([{"role": "u", "content": "x"}], typed_only)[0]["content"] == [
        {"type": "text", "text": "x"}
    ]
    assert normalize_content(typed, both) == typed
    msgs = parse_oaicompat(typed)
    assert messages_to_template_json(msgs, string_only) == [{"role": "user", "content": "a\nb"}]


def test_tools_round_trip():
    # common_chat_tools_parse_oaicompat: description defaults to "", extra keys dropped
    tools = [{"type": "function", "function": {"name": "f", "strict": True}, "x": 1}]
    assert tools_to_template_json(tools) == [
        {"type": "function", "function": {"name": "f", "description": "", "parameters": {}}}
    ]
    assert tools_to_template_json([]) is None
    with pytest.raises(RequestError):
        tools_to_template_json([{"type": "retrieval"}])


def test_parse_keeps_call_id_and_string_arguments():
    (m,) = parse_oaicompat([{"role": "assistant", "tool_calls": [CALL]}])
    assert m.tool_calls == (ToolCall("f", '{"b":1,"a":2}', "c1"),)


# --- handler message rewrites (common/parsers/*.cpp) ----------------------------------------------


def test_gpt_oss_copies_reasoning_to_thinking_and_drops_content_with_calls():
    adjust = route_named("gpt-oss").messages_override
    msgs = [
        {"role": "assistant", "content": "c", "reasoning_content": "r", "tool_calls": [CALL]},
        {"role": "assistant", "content": "c", "reasoning_content": "r"},
        {"role": "assistant", "content": "c", "tool_calls": [CALL]},
    ]
    out = adjust(msgs, "", None)
    assert out[0] == {"role": "assistant", "reasoning_content": "r", "tool_calls": [CALL], "thinking": "r"}
    assert out[1]["thinking"] == "r" and out[1]["content"] == "c"
    assert "thinking" not in out[2] and out[2]["content"] == "c"


def test_lfm2_copies_reasoning_to_thinking_only():
    adjust = route_named("lfm2").messages_override
    out = adjust([{"role": "assistant", "content": "c", "reasoning_content": "r", "tool_calls": [CALL]}], "", None)
    assert out[0]["thinking"] == "r" and out[0]["content"] == "c"


def test_ministral3_blocks():
    msgs = [
        {"role": "system", "content": "S"},
        {"role": "user", "content": "U"},
        {"role": "assistant", "content": [{"type": "text", "text": "A"}], "reasoning_content": "R"},
    ]
    out = Ministral3.messages_override(msgs, "", None)
    assert out == [
        {"role": "system", "content": [{"type": "text", "text": "S"}]},
        {"role": "user", "content": "U"},
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "R"}, {"type": "text", "text": "A"}]},
    ]


def test_deepseek_v4_sorts_tool_results_by_call_order():
    calls = [{"id": "x", "type": "function", "function": {"name": "a", "arguments": "{}"}},
             {"id": "y", "type": "function", "function": {"name": "b", "arguments": "{}"}}]
    msgs = [
        {"role": "assistant", "content": "", "tool_calls": calls},
        {"role": "tool", "content": "Y", "tool_call_id": "y"},
        {"role": "user", "content": "mid"},
        {"role": "tool", "content": "X", "tool_call_id": "x"},
        {"role": "assistant", "content": "end"},
    ]
    out = DeepseekV32.messages_override(msgs, "tool_calls DSML", None)
    assert [m["content"] for m in out] == ["", "X", "mid", "Y", "end"]
    # V3.2 (the source names function_calls): no override
    assert DeepseekV32.messages_override(msgs, "function_calls", None) is None


def test_gemma4_opens_model_turn_after_turn_end():
    pair = Gemma4.finish(RenderedPair("x<turn|>\n", ""), True)
    assert (pair.prompt, pair.generation_prompt) == ("x<turn|>\n<|turn>model\n", "<|turn>model\n")
    same = RenderedPair("x<turn|>\n", "")
    assert Gemma4.finish(same, False) == same


def test_gpt_oss_last_return_becomes_end_without_generation_prompt():
    pair = GptOss.finish(RenderedPair("a<|return|>b<|return|>", ""), False)
    assert pair.prompt == "a<|return|>b<|end|>"
    assert GptOss.finish(RenderedPair("a<|return|>", ""), True).prompt == "a<|return|>"


def test_thinking_support_table():
    assert route_named("functionary-v3.2").thinking_supported("") is False
    assert route_named("gigachat-v3").thinking_supported("") is False
    assert route_named("qwen3-coder").thinking_supported("<think>") is True
    assert route_named("qwen3-coder").thinking_supported("no") is False
    assert route_named("autoparser").thinking_supported("") is None
