"""The apply path on small hand-written templates: context, generation prompt, the
order of workarounds, reasoning prefill outcomes, supports_enable_thinking."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

import pytest

from explorer.analysis.model import Reasoning, ReasoningMode
from explorer.apply import (
    PrefillOutcome,
    Request,
    apply_request,
    classify_reasoning_prefill,
    diff_suffix,
    parser_prefix,
    standard_request,
    supports_enable_thinking,
)
from explorer.caps import Caps
from explorer.errors import RequestError

ALL_CAPS = Caps(**{
    "supports_tools": True,
    "supports_tool_calls": True,
    "supports_system_role": True,
    "supports_parallel_tool_calls": True,
    "supports_preserve_reasoning": False,
    "supports_reasoning_effort": False,
    "supports_string_content": True,
    "supports_typed_content": False,
    "supports_object_arguments": True,
})

CHATML = (
    "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n"
    "{% if enable_thinking %}<think>\n{% else %}<think>\n\n</think>\n\n{% endif %}{% endif %}"
)


def req(**kw):
    base = dict(messages=({"role": "user", "content": "Hi"},))
    base.update(kw)
    return Request(**base)


def test_generation_prompt_is_the_added_suffix():
    a = apply_request(CHATML, req(enable_thinking=True), caps=ALL_CAPS)
    assert a.handler == "autoparser"
    assert a.generation_prompt == "<|im_start|>assistant\n<think>\n"
    assert a.prompt == "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n"
    assert a.prompt_without_generation == "<|im_start|>user\nHi<|im_end|>\n"
    off = apply_request(CHATML, req(enable_thinking=False), caps=ALL_CAPS)
    assert off.generation_prompt == "<|im_start|>assistant\n<think>\n\n</think>\n\n"


def test_no_generation_prompt_request_still_reports_the_suffix():
    # llama.cpp always computes the diff, whatever the request's add_generation_prompt
    a = apply_request(CHATML, req(add_generation_prompt=False), caps=ALL_CAPS)
    assert a.prompt == "<|im_start|>user\nHi<|im_end|>\n"
    assert a.generation_prompt == "<|im_start|>assistant\n<think>\n"


def test_diff_is_bytewise():
    # common_chat_template_generation_prompt_impl compares bytes: "é" (C3 A9) and
    # "è" (C3 A8) share one byte, so the suffix starts mid-character
    assert diff_suffix("xé", "xè") == "\udca8"
    assert diff_suffix("abc", "abcdef") == "def"
    assert diff_suffix("abc", "ab") == ""


def test_chat_template_kwargs_override_enable_thinking():
    # extra_context (kwargs) is merged after enable_thinking, so it wins
    a = apply_request(
        CHATML, req(enable_thinking=True, chat_template_kwargs={"enable_thinking": False}), caps=ALL_CAPS
    )
    assert a.generation_prompt.endswith("</think>\n\n")
    assert a.context["enable_thinking"] is False


def test_extra_context_dates():
    tmpl = "{{ datetime }}|{{ date_string }}"
    a = apply_request(tmpl, req(), caps=ALL_CAPS, now=datetime(2026, 11, 29, 12, 0))
    assert a.prompt == "Nov 29 2026|29 Nov 2026"


def test_preserve_reasoning_aliases():
    # caps_apply_preserve_reasoning: preserve_thinking = x, the three others = not x
    tmpl = "{{ preserve_thinking }} {{ clear_thinking }} {{ truncate_history_thinking }} {{ drop_thinking }}"
    a = apply_request(tmpl, req(chat_template_kwargs={"preserve_reasoning": True}), caps=ALL_CAPS)
    assert a.prompt == "True False False False"
    # a non-boolean preserve_reasoning sets nothing
    c = apply_request("{{ clear_thinking is defined }}", req(chat_template_kwargs={"preserve_reasoning": "yes"}), caps=ALL_CAPS)
    assert c.prompt == "False"


def test_explicit_kwargs_win_over_reasoning_aliases():
    tmpl = "{{ preserve_thinking }} {{ clear_thinking }} {{ truncate_history_thinking }} {{ drop_thinking }}"
    r = req(chat_template_kwargs={"preserve_reasoning": False, "drop_thinking": "kept"})
    # our reported context follows llama.cpp's precedence
    assert apply_request(tmpl, r, caps=ALL_CAPS).context["drop_thinking"] == "kept"
    assert apply_request(tmpl, r, caps=ALL_CAPS).prompt == "False True True kept"


def test_reasoning_effort_aliases():
    tmpl = "{{ reasoning_effort }}/{{ reasoning_strength }}"
    a = apply_request(tmpl, req(chat_template_kwargs={"reasoning_effort": "high"}), caps=ALL_CAPS)
    assert a.prompt == "high/high"
    empty = apply_request("{{ reasoning_strength is defined }}", req(chat_template_kwargs={"reasoning_effort": ""}), caps=ALL_CAPS)
    assert empty.prompt == "False"


def test_workarounds_in_llama_cpp_order():
    # developer -> system happens before the system merge, so a developer message is
    # merged into the next one when the template has no system role
    tmpl = "{% for m in messages %}[{{ m.role }}:{{ m.content }}]{% endfor %}"
    caps = replace(ALL_CAPS, supports_system_role=False)
    r = req(messages=({"role": "developer", "content": "D"}, {"role": "user", "content": "U"}))
    a = apply_request(tmpl, r, caps=caps)
    assert a.prompt == "[user:D\nU]"
    assert [s.name for s in a.steps][:2] == ["map_developer_role_to_system", "system_message_not_supported"]


def test_gpt_oss_keeps_developer_role():
    tmpl = "<|channel|>{% for m in messages %}[{{ m.role }}]{% endfor %}"
    r = req(messages=({"role": "developer", "content": "D"}, {"role": "user", "content": "U"}))
    assert apply_request(tmpl, r, caps=ALL_CAPS).prompt.startswith("<|channel|>[developer][user]")


def test_object_arguments_reach_the_template_as_objects():
    tmpl = "{% for m in messages %}{% for c in m.tool_calls or [] %}{{ c.function.arguments.city }}{% endfor %}{% endfor %}"
    call = {"type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
    r = req(messages=({"role": "user", "content": "U"}, {"role": "assistant", "tool_calls": [call]}))
    assert apply_request(tmpl, r, caps=ALL_CAPS).prompt == "Paris"
    # without the capability the arguments stay a string
    caps = replace(ALL_CAPS, supports_object_arguments=False)
    tmpl2 = "{% for m in messages %}{% for c in m.tool_calls or [] %}{{ c.function.arguments }}{% endfor %}{% endfor %}"
    assert apply_request(tmpl2, r, caps=caps).prompt == '{"city": "Paris"}'


def test_stepfun_marker_trims_content():
    tmpl = "You have access to the following functions in JSONSchema format{% for m in messages %}[{{ m.content }}]{% endfor %}"
    a = apply_request(tmpl, req(messages=({"role": "user", "content": "  hi \n"},)), caps=ALL_CAPS)
    assert a.prompt.endswith("[hi]")
    assert a.steps[0].name == "trim_all_content"


def test_source_patch_is_rendered():
    guard = (
        '{%- if "<|channel|>analysis<|message|>" in message.content or '
        '"<|channel|>final<|message|>" in message.content %}'
    )
    tmpl = "{% for message in messages %}" + guard + "{{ raise_exception('no') }}{% endif %}{{ message.content }}{% endfor %}"
    r = req(messages=({"role": "user", "content": "<|channel|>final<|message|>x"},))
    a = apply_request(tmpl, r, caps=ALL_CAPS)
    assert a.prompt == "<|channel|>final<|message|>x"
    assert a.steps[0].name == "template_init"


def test_muse_glimmer_generation_prompt_is_fixed():
    tmpl = "<atem:function_calls><|eom|>{% if add_generation_prompt %}<|start|>assistant to=user{% endif %}"
    a = apply_request(tmpl, req(), caps=ALL_CAPS)
    assert a.handler == "muse-glimmer"
    assert a.generation_prompt == "<|start|>assistant"


def test_invalid_request_values():
    with pytest.raises(RequestError):
        req(tool_choice="sometimes")
    with pytest.raises(RequestError):
        req(reasoning_format="xml")


def test_standard_request_shape():
    r = standard_request(True)
    inputs = r.to_oracle_inputs()
    assert inputs["messages"] == [{"role": "user", "content": "Hello"}]
    fn = inputs["tools"][0]["function"]
    assert fn["name"] == "get_weather"
    assert fn["parameters"]["required"] == ["city"]
    assert fn["parameters"]["properties"]["unit"]["enum"] == ["c", "f"]
    assert (inputs["tool_choice"], inputs["parallel_tool_calls"], inputs["reasoning_format"]) == (
        "auto", True, "deepseek")
    assert standard_request(False).enable_thinking is False


# --- supports_enable_thinking --------------------------------------------------------------


def test_supports_enable_thinking_specialised_routes_need_no_render():
    assert supports_enable_thinking(">>>all >>>${recipient}") is False  # functionary v3.2
    assert supports_enable_thinking("<|role_sep|><|message_sep|>") is False  # gigachat
    assert supports_enable_thinking("<tool_call>\n<function=\n<parameter=") is False  # qwen3-coder
    assert supports_enable_thinking("<think><tool_call>\n<function=\n<parameter=") is True
    assert supports_enable_thinking("<|channel|>") is True  # gpt-oss


def test_supports_enable_thinking_autoparser_uses_reasoning_mode():
    assert supports_enable_thinking(CHATML, reasoning_mode="TAG_BASED") is True
    assert supports_enable_thinking(CHATML, reasoning_mode="TOOLS_ONLY") is True
    assert supports_enable_thinking(CHATML, reasoning_mode="NONE") is False


# --- reasoning prefill outcomes (docs/autoparser.md) -------------------------------------------


@pytest.mark.parametrize(
    "gen,start,end,outcome",
    [
        ("<|im_start|>assistant\n<think></think>\n", "<think>", "</think>", PrefillOutcome.START_AND_END),
        ("<|im_start|>assistant\n<think>\n\n</think>\n\n", "<think>\n", "\n</think>\n\n", PrefillOutcome.START_AND_END),
        ("<|im_start|>assistant\n<think>\n", "<think>", "</think>", PrefillOutcome.START_ONLY),
        ("\n<|begin_assistant|>\nHere are my reasoning steps:\n", "<|begin_assistant|>\n",
         "\n[BEGIN FINAL RESPONSE]\n", PrefillOutcome.START_NOT_AT_END),
        ("<|im_start|>assistant\n", "<think>", "</think>", PrefillOutcome.NONE),
        ("<｜Assistant｜></think>", "<think>", "</think>", PrefillOutcome.END_ONLY),
        ("anything", "", "", PrefillOutcome.NONE),
    ],
)
def test_prefill_outcomes(gen, start, end, outcome):
    assert classify_reasoning_prefill(gen, start, end).outcome is outcome


def test_parser_prefix_stops_at_first_start_marker():
    # common_chat_peg_builder::prefix: s.substr(0, s.find(delimiter)); npos -> whole string
    assert parser_prefix("<|im_start|>assistant\n<think>\n", "<think>") == "<|im_start|>assistant\n"
    assert parser_prefix("A<think>B<think>", "<think>") == "A"
    assert parser_prefix("<|im_start|>assistant\n", "<think>") == "<|im_start|>assistant\n"
    assert parser_prefix("abc", "") == "abc"
    assert parser_prefix("", "<think>") == ""


def test_add_generation_prompt_is_undefined_when_off():
    # direct_apply_impl only sets add_generation_prompt when true; templates such as
    # Solar Open default an undefined one to true, so the "off" render must see it
    # undefined, not false
    tmpl = "{{ add_generation_prompt is defined }}"
    assert apply_request(tmpl, req(add_generation_prompt=False), caps=ALL_CAPS).prompt == "False"
    assert apply_request(tmpl, req(add_generation_prompt=True), caps=ALL_CAPS).prompt == "True"
    solar_like = (
        "{%- set add_generation_prompt = add_generation_prompt if add_generation_prompt is defined else true %}"
        "U{% if add_generation_prompt %}<A>{% endif %}"
    )
    # both renders add the turn, so llama.cpp's generation prompt is empty
    a = apply_request(solar_like, req(), caps=ALL_CAPS)
    assert (a.prompt, a.generation_prompt) == ("U<A>", "")


# --- template init: fallbacks, variants, patches (common_chat_templates_init) -----------------

from explorer.apply import CHATML_TEMPLATE_SRC, init_templates  # noqa: E402


def test_empty_or_chatml_template_falls_back():
    for text in ("", "chatml"):
        a = apply_request(text, req(), caps=ALL_CAPS)
        assert a.source == CHATML_TEMPLATE_SRC
        assert a.prompt == "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
    # with no default but a tool_use variant, the variant becomes the default
    t = init_templates("", "TOOLUSE{{ messages[0].content }}")
    assert t.default.source == "TOOLUSE{{ messages[0].content }}"


def test_tool_use_variant_only_with_tools_and_never_patched():
    guard = (
        '{%- if "<|channel|>analysis<|message|>" in message.content or '
        '"<|channel|>final<|message|>" in message.content %}'
    )
    variant = "<|channel|>" + guard + "{% endif %}TOOLS"
    t = init_templates("DEFAULT", variant)
    tool = {"type": "function", "function": {"name": "f", "parameters": {}}}
    assert apply_request(t, req(), caps=ALL_CAPS).prompt == "DEFAULT"
    with_tools = apply_request(t, req(tools=(tool,)), caps=ALL_CAPS)
    # llama.cpp patches only the default template's text
    assert with_tools.source == variant
    assert with_tools.handler == "gpt-oss"


def test_add_bos_and_add_eos_trim_the_rendered_tokens():
    tmpl = "{{ bos_token }}X{{ eos_token }}"
    r = req(bos_token="<s>", eos_token="</s>")
    assert apply_request(tmpl, r, caps=ALL_CAPS).prompt == "<s>X</s>"
    from dataclasses import replace

    assert apply_request(tmpl, replace(r, add_bos=True, add_eos=True), caps=ALL_CAPS).prompt == "X"


# --- continue_final_message ---------------------------------------------------------------------

CONV = (
    {"role": "user", "content": "Hi"},
    {"role": "assistant", "content": "Partial answer", "reasoning_content": "Some thought"},
)


def test_continuation_autoparser_reopens_reasoning():
    # generate_parser: cut the generation prompt at reasoning.start, re-open, add content
    a = apply_request(
        CHATML, req(messages=CONV, continue_final_message="auto"), caps=ALL_CAPS,
        reasoning=Reasoning(ReasoningMode.TAG_BASED, "<think>\n", "</think>\n"),
    )
    assert a.continuation == "content"  # auto with content -> content
    assert a.generation_prompt == "<|im_start|>assistant\n<think>\nSome thought</think>\nPartial answer"
    assert a.prompt == "<|im_start|>user\nHi<|im_end|>\n" + a.generation_prompt
    assert a.prompt_without_generation == "<|im_start|>user\nHi<|im_end|>\n"


def test_continuation_auto_with_only_reasoning_is_reasoning():
    conv = (CONV[0], {"role": "assistant", "content": "", "reasoning_content": "thinking so far"})
    a = apply_request(
        CHATML, req(messages=conv, continue_final_message="auto"), caps=ALL_CAPS,
        reasoning=Reasoning(ReasoningMode.TAG_BASED, "<think>", "</think>"),
    )
    assert a.continuation == "reasoning"
    assert a.generation_prompt == "<|im_start|>assistant\n<think>thinking so far"


def test_continuation_without_reasoning_markers_appends_content():
    a = apply_request(
        CHATML, req(messages=CONV, continue_final_message="content"), caps=ALL_CAPS,
        reasoning=Reasoning(ReasoningMode.NONE),
    )
    assert a.generation_prompt == "<|im_start|>assistant\n<think>\nPartial answer"


@pytest.mark.parametrize(
    "handler_src,mode,expected",
    [
        # gpt-oss.cpp
        ("<|channel|>", "content",
         "<|start|>assistant<|channel|>analysis<|message|>Some thought<|end|><|start|>assistant"
         "<|channel|>final<|message|>Partial answer"),
        ("<|channel|>", "reasoning", "<|start|>assistant<|channel|>analysis<|message|>Some thought"),
        # functionary-v3-2.cpp: content only, whatever the mode
        (">>>all >>>${recipient}", "reasoning",
         "<|start_header_id|>assistant<|end_header_id|>\n\n>>>all\nPartial answer"),
        # qwen3-coder.cpp without <think>: just the content
        ("<tool_call>\n<function=\n<parameter=", "content", "<|im_start|>assistant\nPartial answer"),
        ("<think><tool_call>\n<function=\n<parameter=", "content",
         "<|im_start|>assistant\n<think>\nSome thought\n</think>\n\nPartial answer"),
        # deepseek.cpp V4 (no function_calls) with reasoning: the V3.2 shape
        ("dsml_token DSML tool_calls", "content", "<｜Assistant｜><think>Some thought</think>Partial answer"),
        # ministral3.cpp
        ("[SYSTEM_PROMPT][TOOL_CALLS][ARGS]", "content", "[THINK]Some thought[/THINK]Partial answer"),
    ],
)
def test_continuation_by_handler(handler_src, mode, expected):
    a = apply_request(handler_src, req(messages=CONV, continue_final_message=mode), caps=ALL_CAPS)
    assert a.generation_prompt == expected
    assert a.prompt == handler_src + expected


def test_deepseek_v4_continuation_without_reasoning_closes_think():
    conv = (CONV[0], {"role": "assistant", "content": "Partial"})
    a = apply_request("dsml_token DSML tool_calls", req(messages=conv, continue_final_message="content"), caps=ALL_CAPS)
    assert a.generation_prompt == "<｜Assistant｜></think>Partial"


def test_continuation_text_parts_joined_with_blank_line():
    # render_content's default delimiter is "\n\n"; only text parts count
    conv = (CONV[0], {"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]})
    a = apply_request("[SYSTEM_PROMPT][TOOL_CALLS][ARGS]", req(messages=conv, continue_final_message="content"), caps=ALL_CAPS)
    assert a.generation_prompt == "[THINK][/THINK]a\n\nb"


def test_continuation_mode_is_validated():
    with pytest.raises(RequestError):
        req(continue_final_message="maybe")


def test_template_errors_on_the_autoparser_route_read_as_generation_failures():
    from explorer.errors import TemplateRaisedError

    tmpl = "{{ raise_exception('nope') }}"
    with pytest.raises(TemplateRaisedError, match="^Unable to generate parser for this template.*nope"):
        apply_request(tmpl, req(), caps=ALL_CAPS)
    # a specialised handler renders the prompt itself: the error is the template's own
    with pytest.raises(TemplateRaisedError) as info:
        apply_request("<|channel|>" + tmpl, req(), caps=ALL_CAPS)
    assert not info.value.message.startswith("Unable to generate parser")


def test_parser_generation_prompt_is_the_one_before_continuation():
    # generate_parser keeps parser_generation_prompt = data.generation_prompt before the
    # continuation rewrites it
    reasoning = Reasoning(ReasoningMode.TAG_BASED, "<think>\n", "</think>\n")
    a = apply_request(CHATML, req(messages=CONV, continue_final_message="content"), caps=ALL_CAPS,
                      reasoning=reasoning)
    assert a.parser_generation_prompt == "<|im_start|>assistant\n<think>\n"
    b = apply_request(CHATML, req(), caps=ALL_CAPS, reasoning=reasoning)
    assert b.parser_generation_prompt == b.generation_prompt
