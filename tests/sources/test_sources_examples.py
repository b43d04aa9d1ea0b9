"""The built-in example templates: they render realistic conversations, route to the
autoparser, and the analysis finds the markers each was written with.

Expected strings are read off the templates' own text (what each writes around
reasoning, calls and turns), not taken from the explorer's output.
"""

from __future__ import annotations

import json

import pytest

from explorer import caps, cli, routing
from explorer.analysis import analyze_template
from explorer.errors import TemplateRaisedError
from explorer.render import RenderInputs, compile_template, render
from explorer.sources import example_info, from_example, list_examples

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather for a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"]}},
                "required": ["city"],
            },
        },
    }
]

CONVERSATION = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Weather in Paris and Lyon?"},
    {
        "role": "assistant",
        "content": None,
        "reasoning_content": "Two cities, two calls.",
        "tool_calls": [
            {"id": "call00001", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}},
            {"id": "call00002", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Lyon", "unit": "c"}}},
        ],
    },
    {"role": "tool", "tool_call_id": "call00001", "content": "sunny"},
    {"role": "tool", "tool_call_id": "call00002", "content": "rain"},
    {"role": "assistant", "content": "Paris is sunny, Lyon rainy."},
    {"role": "user", "content": "Thanks"},
]

TOOL_EXAMPLES = ["chatml-think-tools", "bracket-tool-calls", "tagged-parameters", "wrapped-answer-tag-json"]


def run(name: str, *, thinking: bool = True, messages=CONVERSATION, tools=TOOLS) -> str:
    tmpl = compile_template(from_example(name).text)
    inputs = RenderInputs(
        messages=messages, tools=tools, add_generation_prompt=True, enable_thinking=thinking,
        bos_token="<s>", eos_token="</s>",
    )
    return render(tmpl, inputs)


def test_every_example_is_listed_and_loads():
    infos = example_info()
    assert [i.name for i in infos] == list_examples()
    assert set(TOOL_EXAMPLES) | {"plain-chat"} <= set(list_examples())
    for info in infos:
        assert from_example(info.name).text.startswith("{#- Template Explorer example:")


@pytest.mark.parametrize("dialect", ["llama.cpp", "transformers"])
@pytest.mark.parametrize("name", TOOL_EXAMPLES + ["plain-chat"])
def test_examples_compile_in_both_dialects(name, dialect):
    compile_template(from_example(name).text, dialect)


def test_chatml_think_tools_renders_a_full_exchange():
    out = run("chatml-think-tools")
    assert out.startswith("<|im_start|>system\nBe brief.\n\n## Available tools\n")
    assert '"name": "get_weather"' in out.split("</tools>")[0]
    assert (
        "<|im_start|>assistant\n<think>\nTwo cities, two calls.\n</think>\n\n"
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n'
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Lyon", "unit": "c"}}\n</tool_call><|im_end|>\n'
    ) in out
    assert "<|im_start|>user\n<tool_response>\nsunny\n</tool_response>\n<tool_response>\nrain\n</tool_response><|im_end|>\n" in out
    assert out.endswith("<|im_start|>user\nThanks<|im_end|>\n<|im_start|>assistant\n")
    assert run("chatml-think-tools", thinking=False).endswith("<|im_start|>assistant\n<think>\n\n</think>\n\n")


def test_bracket_tool_calls_renders_a_full_exchange():
    out = run("bracket-tool-calls")
    assert out.startswith('<s>[AVAILABLE_TOOLS][{"type": "function"')
    assert "[INST]Be brief.\n\nWeather in Paris and Lyon?[/INST]" in out
    assert (
        '[THINK]Two cities, two calls.[/THINK][TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}, '
        '"id": "call00001"}, {"name": "get_weather", "arguments": {"city": "Lyon", "unit": "c"}, "id": "call00002"}]</s>'
    ) in out
    assert '[TOOL_RESULTS]{"content": "sunny", "call_id": "call00001"}[/TOOL_RESULTS]' in out
    assert out.endswith("[INST]Thanks[/INST][THINK]")
    assert run("bracket-tool-calls", thinking=False).endswith("[INST]Thanks[/INST]")


def test_tagged_parameters_renders_a_full_exchange():
    out = run("tagged-parameters")
    assert out.startswith("<|system|>\nBe brief.\n\nYou have access to these functions:\n\n- get_weather: ")
    assert (
        "<|assistant|>\n<reasoning>Two cities, two calls.</reasoning>\n<tool_calls>\n"
        "<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n"
        "<function=get_weather>\n<parameter=city>\nLyon\n</parameter>\n<parameter=unit>\nc\n</parameter>\n</function>\n"
        "</tool_calls><|end|>\n"
    ) in out
    assert "<|tool|>\nsunny<|end|>\n<|tool|>\nrain<|end|>\n" in out
    assert out.endswith("<|user|>\nThanks<|end|>\n<|assistant|>\n")
    assert run("tagged-parameters", thinking=False).endswith("<|assistant|>\n<reasoning></reasoning>\n")


def test_wrapped_answer_tag_json_renders_a_full_exchange():
    out = run("wrapped-answer-tag-json")
    assert out.startswith("<s><|turn|>system\nBe brief.\n\nTools you may call, as JSON schemas:\n{")
    assert (
        '<|turn|>assistant\n<think>Two cities, two calls.</think><calls><call name="get_weather">{"city": "Paris"}</call>'
        '<call name="get_weather">{"city": "Lyon", "unit": "c"}</call></calls><|end|>\n'
    ) in out
    assert "<|turn|>tool\n<result>sunny</result><|end|>\n" in out
    assert "<|turn|>assistant\n<answer>Paris is sunny, Lyon rainy.</answer><|end|>\n" in out
    assert out.endswith("<|turn|>user\nThanks<|end|>\n<|turn|>assistant\n")
    assert run("wrapped-answer-tag-json", thinking=False).endswith("<|turn|>assistant\n<think></think>")


def test_plain_chat_renders_and_enforces_alternation():
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": " Hello! "},
        {"role": "user", "content": "Bye"},
    ]
    out = run("plain-chat", messages=messages, tools=None)
    assert out == (
        "<s><start_of_turn>user\nBe brief.\n\nHi<end_of_turn>\n<start_of_turn>model\nHello!<end_of_turn>\n"
        "<start_of_turn>user\nBye<end_of_turn>\n<start_of_turn>model\n"
    )
    with pytest.raises(TemplateRaisedError, match="roles must alternate"):
        run("plain-chat", messages=[{"role": "assistant", "content": "x"}], tools=None)


@pytest.mark.parametrize("name", TOOL_EXAMPLES + ["plain-chat"])
def test_examples_route_to_the_autoparser(name):
    assert routing.route(from_example(name).text).handler == "autoparser"


@pytest.mark.parametrize("name", TOOL_EXAMPLES + ["plain-chat"])
def test_example_caps(name):
    detected = caps.detect_caps(compile_template(from_example(name).text))
    has_tools = name != "plain-chat"
    assert detected.supports_tools is has_tools
    assert detected.supports_tool_calls is has_tools
    assert detected.supports_parallel_tool_calls is has_tools
    assert detected.supports_system_role is True


# What each template writes around reasoning and calls, read off its source.
EXPECTED_ANALYSIS = {
    "chatml-think-tools": {
        "reasoning": ("TAG_BASED", "<think>\n", "\n</think>\n\n"),
        "tools": {"mode": "JSON_NATIVE", "per_call_start": "<tool_call>\n", "per_call_end": "</tool_call>"},
        "user_start": "<|im_start|>user",
        "assistant_start": "<|im_start|>assistant",
    },
    "bracket-tool-calls": {
        "reasoning": ("TAG_BASED", "[THINK]", "[/THINK]"),
        "tools": {"mode": "JSON_NATIVE", "section_start": "[TOOL_CALLS]", "tools_array_wrapped": True, "id_field": "id"},
    },
    "tagged-parameters": {
        "reasoning": ("TAG_BASED", "<reasoning>", "</reasoning>\n"),
        "tools": {"mode": "TAG_WITH_TAGGED", "section_start": "<tool_calls>\n", "section_end": "</tool_calls>"},
        "function": {"name_prefix": "<function=", "name_suffix": ">\n", "close": "</function>\n"},
        "arguments": {"name_prefix": "<parameter=", "name_suffix": ">\n", "value_suffix": "\n</parameter>\n"},
        "user_start": "<|user|>",
        "assistant_start": "<|assistant|>",
    },
    "wrapped-answer-tag-json": {
        "reasoning": ("TAG_BASED", "<think>", "</think>"),
        "content": ("ALWAYS_WRAPPED", "<answer>", "</answer>"),
        "tools": {"mode": "TAG_WITH_JSON", "section_start": "<calls>", "section_end": "</calls>"},
        "function": {"name_prefix": '<call name="', "name_suffix": '">', "close": "</call>"},
        "user_start": "<|turn|>user",
    },
    "plain-chat": {
        "reasoning": ("NONE", "", ""),
        "tools": {"mode": "NONE"},
        "user_start": "<start_of_turn>user",
        "assistant_start": "<start_of_turn>model",
    },
}


@pytest.mark.parametrize("name", sorted(EXPECTED_ANALYSIS))
def test_autoparser_finds_the_markers_each_example_was_written_with(name):
    got = analyze_template(compile_template(from_example(name).text)).to_oracle_json()
    want = EXPECTED_ANALYSIS[name]
    mode, start, end = want["reasoning"]
    assert (got["reasoning"]["mode"], got["reasoning"]["start"], got["reasoning"]["end"]) == (mode, start, end)
    content = (got["content"]["mode"], got["content"]["start"], got["content"]["end"])
    assert content == want.get("content", ("PLAIN", "", ""))
    for key, value in want["tools"].items():
        assert got["tools"]["format"][key] == value, key
    for part in ("function", "arguments"):
        for key, value in want.get(part, {}).items():
            assert got["tools"][part][key] == value, (part, key)
    for key in ("user_start", "assistant_start"):
        if key in want:
            assert got[key] == want[key]
    assert got["analysis_complete"] is True


# --- round trip: the parser built for each example reads output in the example's format ----

MODEL_OUTPUTS = {
    "chatml-think-tools": '<think>\nNeed weather.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    # The generation prompt already opened [THINK] (enable_thinking true).
    "bracket-tool-calls": 'Need weather.[/THINK][TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}, '
                          '"id": "abcdefghi"}]',
    "tagged-parameters": "<reasoning>Need weather.</reasoning>\n<tool_calls>\n<function=get_weather>\n"
                         "<parameter=city>\nParis\n</parameter>\n</function>\n</tool_calls>",
    "wrapped-answer-tag-json": '<think>Need weather.</think><calls><call name="get_weather">{"city": "Paris"}</call></calls>',
}


@pytest.mark.parametrize("name", sorted(MODEL_OUTPUTS))
def test_parser_built_for_each_example_reads_a_call(name, tmp_path, capsys):
    assert cli.main(["grammar", f"example:{name}", "--json"]) == 0
    generated = tmp_path / "generated.json"
    generated.write_text(capsys.readouterr().out, encoding="utf-8")
    output = tmp_path / "output.txt"
    output.write_text(MODEL_OUTPUTS[name], encoding="utf-8")
    assert cli.main(["parse", "--parser", str(generated), "--output-file", str(output)]) == 0
    parsed = json.loads(capsys.readouterr().out)
    assert parsed["exception"] is None
    message = parsed["result"]
    assert message["reasoning_content"].strip() == "Need weather."
    assert [(c["name"], json.loads(c["arguments"])) for c in message["tool_calls"]] == [
        ("get_weather", {"city": "Paris"})
    ]
