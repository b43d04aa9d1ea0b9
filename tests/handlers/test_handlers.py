"""Specialised handlers on templates and cases written here (no oracle, no reference tree).

Expected behaviour is llama.cpp's (common/parsers/*.cpp at 0c1e5709): which handler a
template reaches, what each declares (format, tokens, triggers, thinking tags), how the
grammar policy reacts to tool_choice and response formats, and what the built parser
makes of model output. The builder helpers are checked for llama.cpp's creation order.
"""

from __future__ import annotations

import json

import pytest

from explorer.apply import Request
from explorer.apply.pipeline import apply_template
from explorer.errors import OutputParseError
from explorer.generator.chat_builder import ChatPeg, value_types
from explorer.handlers import HANDLER_CLASSES, find_handler, handler_named, route_names
from explorer.handlers.base import GenerationParams
from explorer.output.parse import parse_output
from explorer.peg.arena import load_arena
from explorer.routing import AUTOPARSER
from explorer.schema import schema_from_json

CHATML = (
    "{%- for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor -%}"
    "{%- if add_generation_prompt %}<|im_start|>assistant\n{% endif -%}"
)
# Qwen3-Coder's detection substrings, in a comment: the template itself is plain ChatML
QWEN_CODER = "{# <tool_call> <function= <parameter= #}" + CHATML
QWEN_THINKING = "{# <tool_call> <function= <parameter= <think> #}" + CHATML
GEMMA = (
    "{# '<|tool_call>call:' #}{%- for m in messages %}<|turn>{{ m.role }}\n{{ m.content }}<turn|>\n{% endfor -%}"
    "{%- if add_generation_prompt %}<|turn>model\n{% endif -%}"
)
GEMMA_CURRENT = "{#- OpenAI Chat Completions: #}" + GEMMA
KIMI_K2 = "{# <|tool_calls_section_begin|> <|tool_call_begin|> #}" + (
    "{%- for m in messages %}<|im_{{ m.role }}|>{{ m.role }}<|im_middle|>{{ m.content }}<|im_end|>{% endfor -%}"
    "{%- if add_generation_prompt %}<|im_assistant|>assistant<|im_middle|>{% endif -%}"
)


def tool(name: str, properties: dict, required: list[str]) -> dict:
    return {"type": "function", "function": {"name": name, "description": "",
                                             "parameters": {"type": "object", "properties": properties,
                                                            "required": required}}}


WEATHER = tool("get_weather", {"city": {"type": "string"}, "days": {"type": "integer"},
                               "when": {"type": ["string", "integer"]}}, ["city"])
SEARCH = tool("search", {"query": {"type": "string"}}, ["query"])


def request(**kw) -> Request:
    base = {"messages": ({"role": "user", "content": "Hi"},), "tools": (WEATHER,), "parallel_tool_calls": True}
    return Request(**(base | kw))


def args(msg) -> list[tuple[str, object]]:
    return [(c.name, json.loads(c.arguments)) for c in msg.tool_calls]


# --- the registry: one class per route ----------------------------------------------------


def test_every_routed_handler_has_a_declaration_and_vice_versa() -> None:
    routed = {cls.name for cls in HANDLER_CLASSES}
    assert routed == {name for name in route_names() if find_handler(name) is not None}
    assert set(route_names()) == routed | {AUTOPARSER}
    for handler in HANDLER_CLASSES:
        name = handler.name
        assert handler_named(name) is handler
        assert handler.reference.startswith("common/parsers/"), name


def test_declared_formats_are_llama_cpps_names() -> None:
    formats = {h.name: h.format for h in HANDLER_CLASSES}
    assert formats.pop("gemma4") == formats.pop("gemma4(outdated-template-workarounds)") == "peg-gemma4"
    assert formats.pop("minimax-m3") == "peg-minimax-m3"
    assert set(formats.values()) == {"peg-native"}


# --- Qwen3-Coder ------------------------------------------------------------------------------


def test_qwen3_coder_route_tokens_and_triggers() -> None:
    params = apply_template(QWEN_CODER, request(tools=(WEATHER, SEARCH)))
    assert params.handler == "qwen3-coder"
    assert "<tool_call>" in params.why and "<parameter=" in params.why
    assert params.generation_prompt == "<|im_start|>assistant\n"
    assert params.preserved_tokens == ("<tool_call>", "</tool_call>")
    assert not params.supports_thinking and params.thinking_start_tag == "" and params.thinking_end_tags == ()
    # Qwen3-Coder may skip <tool_call>: the full function opener triggers the grammar too
    assert [t.value for t in params.grammar_triggers] == \
        ["<tool_call>", "<function=get_weather>", "<function=search>"]
    assert params.grammar_lazy and "tool-call-first" in params.grammar


def test_qwen3_coder_parses_typed_xml_arguments() -> None:
    params = apply_template(QWEN_CODER, request())
    out = ("Checking.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
           "<parameter=when>\n5\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>")
    msg = params.parse(out)
    assert msg.content == "Checking.\n"
    # integer schema -> JSON number; string -> string; string|integer tries JSON first
    assert args(msg) == [("get_weather", {"city": "Paris", "when": 5, "days": 3})]
    # the first call may omit <tool_call>
    bare = params.parse("<function=get_weather>\n<parameter=city>\nRome\n</parameter>\n</function>\n</tool_call>")
    assert args(bare) == [("get_weather", {"city": "Rome"})]


def test_qwen3_coder_quirk_optional_before_required_drops_the_call() -> None:
    """llama.cpp quirk: required arguments come first (in any order), optional ones after;
    the root has no end anchor, so a call that does not fit is silently left unparsed."""
    params = apply_template(QWEN_CODER, request())
    out = ("Checking.\n<tool_call>\n<function=get_weather>\n<parameter=days>\n3\n</parameter>\n"
           "<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>")
    msg = params.parse(out)
    assert msg.content == "Checking.\n" and msg.tool_calls == ()


def test_thinking_qwen_templates_reason_and_keep_only_the_tool_call_trigger() -> None:
    params = apply_template(QWEN_THINKING, request())
    assert params.supports_thinking and params.thinking_start_tag == "<think>"
    assert params.thinking_end_tags == ("\n</think>", "</think>", "<tool_call>")
    assert params.preserved_tokens == ("<tool_call>", "</tool_call>", "<think>", "</think>")
    assert [t.value for t in params.grammar_triggers] == ["<tool_call>"]
    msg = params.parse("<think>\nhmm\n</think>\n\nDone.")
    assert (msg.reasoning_content, msg.content) == ("hmm\n", "Done.")
    # reasoning cut short by a tool call is still reasoning
    call = params.parse("<think>\nhmm <tool_call>\n<function=get_weather>\n<parameter=city>\nX\n</parameter>\n"
                        "</function>\n</tool_call>")
    assert msg.reasoning_content and args(call) == [("get_weather", {"city": "X"})]


def test_tool_choice_and_response_format_drive_the_grammar_policy() -> None:
    required = apply_template(QWEN_CODER, request(tool_choice="required"))
    assert required.grammar and not required.grammar_lazy and required.grammar_triggers == ()
    none = apply_template(QWEN_CODER, request(tool_choice="none"))
    assert none.grammar == "" and not none.grammar_lazy
    assert none.parse("<tool_call>\nnot parsed").content == "<tool_call>\nnot parsed"
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    fmt = apply_template(QWEN_CODER, request(tools=None, json_schema=schema))
    assert fmt.grammar and not fmt.grammar_lazy
    assert fmt.parse('{"a": 1}').content == '{"a": 1}'
    with pytest.raises(OutputParseError):
        fmt.parse("not json")


def test_single_call_requests_take_one_call() -> None:
    qwen = apply_template(QWEN_CODER, request(parallel_tool_calls=False))
    call = "<tool_call>\n<function=get_weather>\n<parameter=city>\nA\n</parameter>\n</function>\n</tool_call>"
    assert len(qwen.parse(call).tool_calls) == 1
    # no end anchor in Qwen3-Coder's parser: the second call is left unparsed
    assert len(qwen.parse(call + call).tool_calls) == 1
    # Kimi K2's parser ends with end(): a second call is a mismatch
    kimi = apply_template(KIMI_K2, request(parallel_tool_calls=False))
    k2 = '<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "A"}<|tool_call_end|>'
    assert len(kimi.parse(k2).tool_calls) == 1
    with pytest.raises(OutputParseError):
        kimi.parse(k2 + k2)


# --- Gemma 4 --------------------------------------------------------------------------------


def test_gemma4_templates_with_and_without_the_current_marker() -> None:
    old = apply_template(GEMMA, request())
    new = apply_template(GEMMA_CURRENT, request())
    assert old.handler == "gemma4(outdated-template-workarounds)" and new.handler == "gemma4"
    assert old.parser == new.parser and old.format == new.format == "peg-gemma4"
    assert new.thinking_start_tag == "<|channel>thought" and new.thinking_end_tags == ("<channel|>",)
    assert [t.value for t in new.grammar_triggers] == ["<|tool_call>"]


def test_gemma4_object_notation_becomes_json_arguments() -> None:
    params = apply_template(GEMMA_CURRENT, request())
    out = ('<|channel>thought\nplan<channel|>Sure <|tool_call>call:get_weather{city:<|"|>Paris, FR<|"|>,'
           'days:3,when:{a:[1,true,null]}}<tool_call|>')
    msg = params.parse(out)
    assert msg.reasoning_content == "plan" and msg.content == "Sure "
    assert args(msg) == [("get_weather", {"city": "Paris, FR", "days": 3, "when": {"a": [1, True, None]}})]


# --- Kimi K2 -----------------------------------------------------------------------------------


def test_kimi_k2_keeps_the_whole_call_id() -> None:
    params = apply_template(KIMI_K2, request())
    assert params.handler == "kimi-k2" and params.generation_prompt == "<|im_assistant|>assistant<|im_middle|>"
    out = ("<think>ok</think>Let me look.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
           '<|tool_call_argument_begin|>{"city": "Oslo"}<|tool_call_end|><|tool_calls_section_end|>')
    msg = params.parse(out)
    assert (msg.reasoning_content, msg.content) == ("ok", "Let me look.")
    assert [(c.name, c.id) for c in msg.tool_calls] == [("get_weather", "functions.get_weather:0")]


def test_reasoning_format_none_keeps_reasoning_in_content() -> None:
    params = apply_template(KIMI_K2, request(reasoning_format="none", tools=None))
    assert params.parse("<think>ok</think>Hi").content == "<think>ok</think>Hi"


# --- declarations on their own ------------------------------------------------------------------


def test_handlers_build_from_inputs_alone() -> None:
    """Every declaration builds a loadable arena and a grammar llguidance accepts, for
    every branch: tools or not, each tool_choice, parallel or not, reasoning extracted or
    not, with and without a response format."""
    from itertools import product

    from explorer.grammar.check import compile_gbnf

    schema = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}
    for handler in HANDLER_CLASSES:
        name = handler.name
        for tools, choice, parallel, fmt, json_schema in product(
                (None, (WEATHER, SEARCH)), ("auto", "required", "none"), (True, False), ("deepseek", "none"),
                (None, schema)):
            inputs = GenerationParams(source="<think>", tools=tools, tool_choice=choice, parallel_tool_calls=parallel,
                                   reasoning_format=fmt, json_schema=json_schema, generation_prompt="")
            out = handler.params(inputs)
            assert len(load_arena(out.parser)) > 0, name
            if out.grammar.startswith("root ::= \n"):
                continue  # the empty lazy grammar quirk, below
            if out.grammar:
                compile_gbnf(out.grammar)
            if json_schema is None and (tools is None or choice == "none"):
                assert out.grammar == "" and not out.grammar_lazy, name
            if out.grammar_lazy:
                assert out.grammar_triggers, name


def test_quirk_tools_with_a_response_format_give_an_empty_lazy_grammar() -> None:
    """llama.cpp quirk: Ministral 3 and Qwen3-Coder build the response-format parser when
    a JSON schema is set, but still make the grammar lazy when tools are offered with
    tool_choice auto; the parser has no trigger rule, so the grammar's root is empty and
    the schema is never enforced."""
    schema = {"type": "object", "properties": {"answer": {"type": "string"}}}
    broken = []
    for handler in HANDLER_CLASSES:
        name = handler.name
        out = handler.params(GenerationParams(source="", tools=(WEATHER,), json_schema=schema))
        if out.grammar.startswith("root ::= \n"):
            assert out.grammar_lazy
            broken.append(name)
    assert broken == ["ministral-3", "qwen3-coder"]


def test_deepseek_v4_is_told_apart_by_its_block_name() -> None:
    handler = handler_named("deepseek-v3.2/v4")
    v32 = handler.params(GenerationParams(source="function_calls", tools=(WEATHER,)))
    v4 = handler.params(GenerationParams(source="tool_calls", tools=(WEATHER,)))
    assert [t.value for t in v32.grammar_triggers] == ["<｜DSML｜function_calls>"]
    assert [t.value for t in v4.grammar_triggers] == ["<｜DSML｜tool_calls>"]
    assert v4.thinking_end_tags == ("</think>", "<｜DSML｜tool_calls>")


def test_ling3_reasoning_stops_at_a_call_only_when_the_think_block_is_open() -> None:
    handler = handler_named("ling3")
    open_ = handler.params(GenerationParams(source="", tools=(WEATHER,),
                                         generation_prompt="<role>ASSISTANT</role>\n<think>"))
    closed = handler.params(GenerationParams(source="", tools=(WEATHER,),
                                          generation_prompt="<role>ASSISTANT</role>\n<think>\n</think>"))
    assert '["</think>","<tool_call>"]' in open_.parser and '["</think>","<tool_call>"]' not in closed.parser
    assert open_.additional_stops == ("<|role_end|>",)


# --- builder helpers: llama.cpp's creation order -------------------------------------------------


def test_shl_creates_a_string_operand_after_the_parser_beside_it() -> None:
    p = ChatPeg()
    p.shl("x", lambda: p.literal("y"))
    assert [n.get("literal", n["type"]) for n in p.parsers] == ["y", "x", "space", "sequence"]
    q = ChatPeg()
    q.shl(lambda: q.literal("a"), "b", lambda: q.literal("c"))
    assert [n.get("literal", n["type"]) for n in q.parsers] == ["a", "b", "space", "sequence", "c", "space",
                                                               "sequence"]


def test_permute_accepts_every_order_once() -> None:
    p = ChatPeg()
    parts = [p.literal(s) for s in "abc"]
    root = p.sequence([p.content(p.permute("perm", parts)), p.end()])
    arena = load_arena(p.build(root).dumps())
    assert {"perm-7", "perm-6", "perm-1"} <= set(dict(arena.rules))
    for text in ("abc", "acb", "bac", "bca", "cab", "cba"):
        assert parse_output(arena, text).content == text
    for text in ("aab", "abcc", "abd"):  # (a prefix such as "ab" only needs more input)
        with pytest.raises(OutputParseError):
            parse_output(arena, text)


def test_permute_of_more_than_six_is_a_plain_sequence() -> None:
    p = ChatPeg()
    parts = [p.literal(str(n)) for n in range(7)]
    pid = p.permute("perm", parts)
    assert p.parsers[pid] == {"type": "sequence", "children": parts} and not p.rules


@pytest.mark.parametrize("schema,types", [
    ({"type": "string"}, {"string"}),
    ({"type": "number"}, {"number", "integer"}),
    ({"type": ["string", "integer"]}, {"string", "integer"}),
    ({"enum": ["a", 1, None]}, {"string", "integer", "null"}),
    ({"const": 1.5}, {"number"}),
    ({"allOf": [{"type": ["string", "null"]}, {"type": "string"}]}, {"string"}),
    ({}, {"null", "boolean", "number", "integer", "string", "array", "object"}),
])
def test_value_types(schema: dict, types: set[str]) -> None:
    assert value_types(schema_from_json(schema).root) == types


def test_templates_without_a_handler_take_the_autoparser_route() -> None:
    params = apply_template(CHATML, request(tools=None))
    assert params.handler == AUTOPARSER and "autoparser" in params.why
    assert params.format == "peg-native" and params.grammar == ""
    assert params.generation_prompt == "<|im_start|>assistant\n"
    assert params.parse("Hello").content == "Hello"


# --- the CLI command module (explorer.handlers.cli) ---------------------------------------------


def _cli(argv: list[str], capsys) -> str:
    import argparse

    from explorer.cli import apply as cli

    parser = argparse.ArgumentParser()
    cli.add_parser(parser.add_subparsers())
    args = parser.parse_args(argv)
    assert args.run(args) == 0
    return capsys.readouterr().out


def test_cli_apply_prints_the_chat_params(tmp_path, capsys) -> None:
    template = tmp_path / "qwen.jinja"
    template.write_text(QWEN_CODER, encoding="utf-8")
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([WEATHER]), encoding="utf-8")
    out = json.loads(_cli(["apply", str(template), "--tools", str(tools)], capsys))
    assert out["handler"] == "qwen3-coder" and out["grammar_lazy"] is True
    assert [t["value"] for t in out["grammar_triggers"]] == ["<tool_call>", "<function=get_weather>"]
    assert _cli(["apply", str(template), "--field", "generation_prompt"], capsys) == "<|im_start|>assistant\n"


def test_cli_parse_hook_builds_parser_settings(tmp_path) -> None:
    import argparse

    from explorer.cli.parse import parser_settings

    template = tmp_path / "gemma.jinja"
    template.write_text(GEMMA_CURRENT, encoding="utf-8")
    args = argparse.Namespace(template=str(template), thinking="false", parser=None, generation_prompt=None,
                              format=None)
    settings = parser_settings(args)
    assert settings.format == "peg-gemma4" and settings.generation_prompt == "<|turn>model\n"
    msg = parse_output(settings.arena, "<|channel>thought\nx<channel|>Hi", generation_prompt=settings.generation_prompt,
                       format=settings.format)
    assert (msg.reasoning_content, msg.content) == ("x", "Hi")


def test_declarations_describe_themselves() -> None:
    info = handler_named("kimi-k3").describe()
    assert info["detects"]["required"] == ["<|open|>", "<|close|>", "<|end_of_msg|>"]
    assert info["grammar"] == {"include": "include_tools", "lazy": "lazy_unless_required",
                               "triggers": [{"type": "WORD", "value": "<|open|>tools<|sep|>", "token": -1}],
                               "triggers_when_lazy_only": False, "response_format": "object"}
    qwen = handler_named("qwen3-coder")
    assert qwen.describe(GenerationParams(source="<think>"))["thinking_start_tag"] == "<think>"
    assert qwen.describe()["thinking_start_tag"] == ""
    json.dumps([h.describe() for h in HANDLER_CLASSES])  # plain data


def test_parse_command_takes_the_request_switches() -> None:
    """``parse TEMPLATE`` takes apply's request switches and keeps its own --reasoning-format."""
    import argparse

    from explorer.cli.parse import add_parser as add_parse

    parser = argparse.ArgumentParser()
    subparsers = parser.add_subparsers()
    add_parse(subparsers)
    args = parser.parse_args(["parse", "t.jinja", "--output-file", "-", "--thinking", "false", "--tools", "x.json"])
    assert (args.thinking, args.tools, args.reasoning_format) == ("false", "x.json", "deepseek")
