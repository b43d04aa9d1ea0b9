"""Output mapping: from parse tree to chat message, ported from llama.cpp's chat tests.

Vectors come from tests/test-chat-peg-parser.cpp (native and Qwen3 examples, invalid UTF-8)
and the mapper code in common/chat-peg-parser.cpp; grammars are rebuilt here with our
builder the way those tests build them.
"""

from __future__ import annotations

import pytest

from explorer.errors import OutputParseError
from explorer.output.parse import (
    ChatMessage,
    ToolCall,
    analyse_output,
    decode_output_bytes,
    parse_output,
)
from explorer.peg import Builder, build_arena, load_arena
from explorer.peg.chat_mappers import (
    Gemma4Mapper,
    GenericMapper,
    json_brace_depth,
    normalize_quotes_to_json,
)
from explorer.peg.engine import Engine
from oracle_data import ORACLE, requires_oracle

# --- grammars as llama.cpp's chat tests build them ---------------------------------------


def native_content_only(reasoning_in_content: bool):
    def fn(p: Builder) -> int:
        reasoning = p.optional(p.sequence([
            p.literal("<think>"), p.tag("reasoning", p.until("</think>")), p.literal("</think>"), p.space()]))
        return p.sequence([p.eps() if reasoning_in_content else reasoning,
                           p.tag("content", p.rest()), p.end()])
    return build_arena(fn)


NATIVE_CASES = [
    # name, reasoning_format none?, generation prompt, input, reasoning, content
    ("content with reasoning", False, "", "<think>The user said hello, I must say hello back</think>\nHello",
     "The user said hello, I must say hello back", "Hello"),
    ("content without reasoning", False, "", "Hello", "", "Hello"),
    ("reasoning_format none keeps tags in content", True, "",
     "<think>The user said hello, I must say hello back</think>\nHello", "",
     "<think>The user said hello, I must say hello back</think>\nHello"),
    ("reasoning generation prompt", False, "<think>",
     "The user said hello, I must say hello back</think>\nHello",
     "The user said hello, I must say hello back", "Hello"),
    ("reasoning generation prompt with format none", True, "",
     "The user said hello, I must say hello back</think>\nHello", "",
     "The user said hello, I must say hello back</think>\nHello"),
    ("closed reasoning prompt: empty reasoning discarded", False, "<think></think>", "Hello", "", "Hello"),
]


@pytest.mark.parametrize(("name", "none", "prompt", "text", "reasoning", "content"), NATIVE_CASES,
                         ids=[c[0] for c in NATIVE_CASES])
def test_native_content_and_reasoning(name, none, prompt, text, reasoning, content):
    msg = parse_output(native_content_only(none), text, generation_prompt=prompt)
    assert (msg.reasoning_content, msg.content, msg.tool_calls) == (reasoning, content, ())


def test_whitespace_only_reasoning_is_dropped():
    msg = parse_output(native_content_only(False), "<think>\n \t</think>Hi")
    assert msg.reasoning_content == "" and msg.content == "Hi"


def _ptag(p: Builder, tag: str, pid: int, atomic: bool = True) -> int:
    node = p.tag(tag, pid)
    return p.atomic(node) if atomic else node


def json_tools_arena(names: list[str]):
    """``standard_json_tools("<tool_call>", "</tool_call>", tools, parallel=true)``, flat keys."""
    def fn(p: Builder) -> int:
        choices = []
        for name in names:
            ws = p.space
            name_part = p.sequence([p.literal('"name"'), ws(), p.literal(":"), ws(), p.atomic(p.sequence(
                [p.literal('"'), _ptag(p, "tool-name", p.literal(name)), p.literal('"')]))])
            args_part = p.sequence([p.literal('"arguments"'), ws(), p.literal(":"), ws(),
                                    p.tag("tool-args", p.schema(p.json(), f"tool-{name}-schema"))])
            body = p.sequence([_ptag(p, "tool-open", p.literal("{")), ws(), name_part, ws(),
                               p.literal(","), ws(), args_part, ws(), _ptag(p, "tool-close", p.literal("}"))])
            choices.append(p.rule(f"tool-{name}", p.tag("tool", body)))
        tools = p.choice(choices)
        calls = p.sequence([tools, p.zero_or_more(p.sequence([p.space(), p.literal(","), p.space(), tools]))])
        section = p.trigger_rule("tool-call", p.sequence(
            [p.literal("<tool_call>"), p.space(), calls, p.space(), p.literal("</tool_call>")]))
        return p.sequence([p.tag("content", p.until("<tool_call>")),
                           p.optional(p.sequence([p.space(), section])), p.end()])
    return build_arena(fn)


QWEN3_JSON_INPUT = ('I need to get the weather.\n<tool_call>{"name": "get_current_weather", "arguments": '
                    '{"location": "New York City, NY", "unit": "fahrenheit"}}</tool_call>')


def test_json_tool_call_arguments_are_kept_verbatim():
    msg = parse_output(json_tools_arena(["get_current_weather", "get_forecast"]), QWEN3_JSON_INPUT)
    assert msg.content == "I need to get the weather.\n"
    assert msg.tool_calls == (ToolCall("get_current_weather",
                                       '{"location": "New York City, NY", "unit": "fahrenheit"}'),)


def qwen3_coder_arena():
    """The tagged-argument grammar of llama.cpp's Qwen3-Coder chat test."""
    props = {"search_knowledge_base": [("query", "string", True), ("max_results", "integer", False),
                                       ("category", "string", True)]}

    def fn(p: Builder) -> int:
        content = p.rule("content", p.tag("content", p.until("<tool_call>")))
        tools = []
        for name, args in props.items():
            parsers = []
            for arg, typ, required in args:
                if typ == "string":
                    value = p.tag("tool-arg-string-value", p.schema(p.until_one_of(
                        ["</parameter>\n<parameter=", "</parameter>\n</function>"]), f"tool-{name}-arg-{arg}-schema", True))
                else:
                    value = p.tag("tool-arg-value", p.schema(p.json(), f"tool-{name}-arg-{arg}-schema"))
                opener = _ptag(p, "tool-arg-open", p.sequence(
                    [p.literal("<parameter="), _ptag(p, "tool-arg-name", p.literal(arg)), p.literal(">")]))
                closer = _ptag(p, "tool-arg-close", p.sequence([p.literal("</parameter>\n"), p.peek(
                    p.choice([p.literal("<parameter="), p.literal("</function>")]))]))
                rule = p.rule(f"tool-{name}-arg-{arg}", p.tag("tool-arg", p.sequence([opener, value, closer])))
                parsers.append(rule if required else p.optional(rule))
            open_ = _ptag(p, "tool-open", p.sequence(
                [p.literal("<function="), _ptag(p, "tool-name", p.literal(name)), p.literal(">")]))
            tools.append(p.rule(f"tool-{name}", p.sequence(
                [open_, p.space(), p.sequence(parsers), p.space(), _ptag(p, "tool-close", p.literal("</function>"))])))
        call = p.trigger_rule("tool-call", p.sequence(
            [p.literal("<tool_call>"), p.space(), p.choice(tools), p.space(), p.literal("</tool_call>")]))
        return p.sequence([content, p.zero_or_more(p.sequence([p.space(), call])), p.end()])
    return build_arena(fn)


QWEN3_CODER_INPUT = ("Let me search the knowledge base for cat pictures.<tool_call>\n"
                     "<function=search_knowledge_base>\n<parameter=query>cat pictures</parameter>\n"
                     "<parameter=category>general</parameter>\n</function>\n</tool_call>")


def test_tagged_arguments_become_json_with_string_values_quoted():
    msg = parse_output(qwen3_coder_arena(), QWEN3_CODER_INPUT)
    assert msg.content == "Let me search the knowledge base for cat pictures."
    assert msg.tool_calls == (ToolCall("search_knowledge_base",
                                       '{"query":"cat pictures","category":"general"}'),)


def simple_tokenize(text: str) -> list[str]:
    """llama.cpp's test tokenizer: a new token before each separator character."""
    tokens, current = [], ""
    for c in text:
        if c in ' \n\t{},["].<>=/' and current:
            tokens.append(current)
            current = ""
        current += c
    return tokens + ([current] if current else [])


@pytest.mark.parametrize(("arena_fn", "text"), [(qwen3_coder_arena, QWEN3_CODER_INPUT),
                                                (lambda: json_tools_arena(["get_current_weather"]), QWEN3_JSON_INPUT)])
def test_token_by_token_parses_never_fail_and_diff_cleanly(arena_fn, text):
    from explorer.output.streaming import stream

    steps = list(stream(arena_fn(), simple_tokenize(text)))
    assert all(s.error is None and s.diff_error is None for s in steps)
    assert steps[-1].message == parse_output(arena_fn(), text, is_partial=True)


def test_partial_tool_arguments_while_streaming():
    arena = qwen3_coder_arena()
    cut = QWEN3_CODER_INPUT.index("pictures</parameter>")
    msg = parse_output(arena, QWEN3_CODER_INPUT[:cut], is_partial=True)
    # the call is visible as soon as its name is known; the string value is still open
    assert msg.tool_calls == (ToolCall("search_knowledge_base", '{"query":"cat '),)


# --- failures -----------------------------------------------------------------------------


def test_mismatch_raises_llama_cpp_error_with_format_name():
    arena = build_arena(lambda p: p.sequence([p.literal("<answer>"), p.tag("content", p.rest())]))
    with pytest.raises(OutputParseError) as info:
        parse_output(arena, "no tag here", format="peg-gemma4")
    assert info.value.message == "The model produced output that does not match the expected peg-gemma4 format"
    assert info.value.cpp_type == "std::runtime_error"


def test_partial_failure_returns_what_was_mapped():
    arena = build_arena(lambda p: p.sequence([p.tag("content", p.literal("Hi ")), p.literal("<x>")]))
    # failed after consuming something: a partial parse does not raise, but a failed
    # result carries no AST nodes, so the message is empty (llama.cpp quirk)
    assert parse_output(arena, "Hi <y>", is_partial=True) == ChatMessage()
    with pytest.raises(OutputParseError):
        parse_output(arena, "Hi <y>", is_partial=False)
    # failed at position 0: even a partial parse raises
    with pytest.raises(OutputParseError):
        parse_output(arena, "Yo", is_partial=True)


def test_missing_parser_means_content_only():
    msg = parse_output(None, "anything <tool_call> at all")
    assert msg == ChatMessage(content="anything <tool_call> at all")


def test_generation_prompt_is_parsed_in_front():
    arena = build_arena(lambda p: p.sequence([p.literal("<|assistant|>"), p.tag("content", p.rest())]))
    assert parse_output(arena, "Hello", generation_prompt="<|assistant|>").content == "Hello"
    assert analyse_output(arena, "Hello", generation_prompt="<|assistant|>").input == "<|assistant|>Hello"


# --- invalid UTF-8 (as llama.cpp sanitizes it) -------------------------------------------


def test_invalid_utf8_replaced_and_trailing_incomplete_sequence_held_back():
    arena = native_content_only(False)
    text = decode_output_bytes(b"<think>plan\xff\xfe</think>caf\xc3\xa9 \x80 done")
    msg = parse_output(arena, text)
    assert msg.reasoning_content == "plan\ufffd\ufffd"
    assert msg.content == "caf\u00e9 \ufffd done"
    assert parse_output(arena, decode_output_bytes(b"<think>x</think>a\x80b\xe4\xb8"),
                        is_partial=True).content == "a\ufffdb"


# --- mapper helpers ---------------------------------------------------------------------

NORMALIZE = [
    ("{'key': 'value'}", '{"key": "value"}'),
    ("{'code': 'print(\\'hello\\')'}", "{\"code\": \"print('hello')\"}"),
    ("{'msg': 'He said \"hi\"'}", '{"msg": "He said \\"hi\\""}'),
    ("[True, False, None]", "[true, false, null]"),
    ("Tr", "tr"),  # a streamed prefix of True
    ("TrueValue", "TrueValue"),  # not a literal: left alone
    ('{"a": "True"}', '{"a": "True"}'),
]


@pytest.mark.parametrize(("python", "expected"), NORMALIZE)
def test_normalize_quotes_to_json(python, expected):
    assert normalize_quotes_to_json(python) == expected


def test_brace_depth_ignores_strings():
    assert json_brace_depth('{"a": {"b": "}"') == 2
    assert json_brace_depth('{"a": "\\"{"}') == 0


def test_tool_id_and_arg_name_trimming_quirks():
    def fn(p: Builder) -> int:
        return p.tag("tool", p.sequence([
            p.tag("tool-open", p.literal("[")), p.tag("tool-id", p.until("|")), p.literal("|"),
            p.tag("tool-name", p.until("(")), p.literal("("),
            p.tag("tool-arg-name", p.until("=")), p.literal("="),
            p.tag("tool-arg-value", p.until(")")), p.literal(")"),
            p.tag("tool-close", p.literal("]"))]))
    msg = parse_output(build_arena(fn), '["id-7" |get  (  city =\'Paris\')]')
    # tool-id: trailing space trimmed, then quotes; arg name: ONE leading space trimmed
    assert msg.tool_calls == (ToolCall("get", '{" city":"Paris"}', "id-7"),)


def test_gemma4_mapper_builds_json_from_value_rules():
    def fn(p: Builder) -> int:
        key = p.rule("gemma4-dict-key", p.rule("gemma4-dict-key-name", p.chars("[a-z]")))
        string = p.rule("gemma4-string", p.sequence([
            p.literal('<|"|>'), p.rule("gemma4-string-content", p.until('<|"|>')), p.literal('<|"|>')]))
        value = p.rule("gemma4-value", string)
        kv = p.rule("gemma4-dict-kv", p.sequence([key, p.literal(":"), value]))
        dct = p.rule("gemma4-dict", p.sequence([p.literal("{"), kv, p.literal("}")]))
        call = p.tag("tool", p.sequence([p.literal("call:"), p.tag("tool-name", p.chars("[a-z_]")),
                                         p.tag("tool-args", dct)]))
        return p.sequence([p.tag("content", p.until("call:")), call])
    arena = build_arena(fn)
    msg = parse_output(arena, 'Hi call:get_weather{city:<|"|>Pa"ris<|"|>}', format="peg-gemma4")
    assert msg.content == "Hi "
    assert msg.tool_calls == (ToolCall("get_weather", '{"city":"Pa\\"ris"}'),)
    partial = parse_output(arena, 'Hi call:get_weather{city:<|"|>Pa', format="peg-gemma4", is_partial=True)
    assert partial.tool_calls == (ToolCall("get_weather", '{"city":"Pa'),)


def test_mapper_classes_are_selected_by_format():
    from explorer.peg.chat_mappers import MAPPER_BY_FORMAT, ChatMapper, MiniMaxM3Mapper, map_nodes

    # each mapper names the format llama.cpp selects it by (COMMON_CHAT_FORMAT_PEG_*)
    assert MAPPER_BY_FORMAT["peg-native"] is GenericMapper
    assert MAPPER_BY_FORMAT["peg-gemma4"] is Gemma4Mapper and MAPPER_BY_FORMAT["peg-minimax-m3"] is MiniMaxM3Mapper
    assert GenericMapper().run(()) == GenericMapper().msg
    assert map_nodes((), "peg-unknown") == GenericMapper().msg  # a format no mapper names: the generic one
    with pytest.raises(TypeError, match="two mappers for the chat format 'peg-gemma4'"):
        type("AnotherGemma4Mapper", (ChatMapper,), {"format": "peg-gemma4"})
    assert MAPPER_BY_FORMAT["peg-gemma4"] is Gemma4Mapper


def test_ast_spans_cover_the_generation_prompt_offsets():
    arena = native_content_only(False)
    result = Engine(arena).parse("<think>ab</think>cd")
    reasoning, content = result.nodes
    assert (reasoning.tag, reasoning.start, reasoning.end) == ("reasoning", 7, 9)
    assert (content.tag, content.start, content.end, content.text) == ("content", 17, 19, "cd")


@requires_oracle
def test_minimax_m3_mapper_on_llama_cpp_parser():
    """MiniMax-M3 has its own mapper; no fixture covers it, so the expected text is derived
    by hand from common_chat_peg_minimax_m3_mapper (members in order, strings quoted,
    containers closed unless partial)."""
    import json as _json

    apply = _json.loads((ORACLE / "analysis" / "MiniMax-M3.json").read_text(encoding="utf-8"))["apply"]
    apply = apply["thinking_true"]
    arena = load_arena(apply["parser"])
    ns = "]<]minimax[>["
    out = (f'<mm:think>thinking</mm:think>Checking.{ns}<tool_call>{ns}<invoke name="get_weather">'
           f"{ns}<city>Paris{ns}</city>{ns}<unit>c{ns}</unit>{ns}</invoke>{ns}</tool_call>")
    kw = {"generation_prompt": apply["generation_prompt"], "format": apply["format"]}
    assert apply["format"] == "peg-minimax-m3"
    msg = parse_output(arena, out, **kw)
    assert (msg.reasoning_content, msg.content) == ("thinking", "Checking.")
    assert msg.tool_calls == (ToolCall("get_weather", '{"city":"Paris","unit":"c"}'),)
    partial = parse_output(arena, out[: out.index("ris")], is_partial=True, **kw)
    assert partial.tool_calls == (ToolCall("get_weather", '{"city":"Pa'),)
