"""llama.cpp's own analysis assertions (tests/test-chat-auto-parser.cpp), ported.

The named-template checks read the templates from ../shared/oracle/templates (the
same files as llama.cpp's models/templates); the Bailing V3 and compare_variants
checks use the inline templates of the reference test.
"""

from __future__ import annotations

import pytest

from explorer.analysis import ContentMode, ReasoningMode, ToolFormat, analyze_template
from explorer.analysis.session import compare_variants
from explorer.caps import Caps
from explorer.render import RenderInputs, compile_template
from explorer.routing import patch_source
from oracle_data import load_oracle_template, requires_oracle


def analysis_of(name: str):
    return analyze_template(compile_template(patch_source(load_oracle_template(name))), trace=False)


# test_role_markers_all_templates: (template, user_start, assistant_start)
ROLE_MARKERS = [
    ("Bielik-11B-v3.0-Instruct", "<|im_start|>user", "<|im_start|>assistant"),
    ("HuggingFaceTB-SmolLM3-3B", "<|im_start|>user", "<|im_start|>assistant"),
    ("MiMo-VL", "<|im_start|>user", "<|im_start|>assistant"),
    ("NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use", "<|im_start|>user", "<|im_start|>assistant"),
    ("NousResearch-Hermes-3-Llama-3.1-8B-tool_use", "<|im_start|>user", "<|im_start|>assistant"),
    ("NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "<|im_start|>user", "<|im_start|>assistant"),
    ("Qwen3.5-4B", "<|im_start|>user", "<|im_start|>assistant"),
    ("Qwen3-Coder", "<|im_start|>user", "<|im_start|>assistant"),
    ("Qwen-Qwen2.5-7B-Instruct", "<|im_start|>user", "<|im_start|>assistant"),
    ("Qwen-Qwen3-0.6B", "<|im_start|>user", "<|im_start|>assistant"),
    ("Qwen-QwQ-32B", "<|im_start|>user", "<|im_start|>assistant"),
    ("StepFun3.5-Flash", "<|im_start|>user", "<|im_start|>assistant"),
    ("deepseek-ai-DeepSeek-R1-Distill-Llama-8B", "<｜User｜>", "<｜Assistant｜>"),
    ("deepseek-ai-DeepSeek-R1-Distill-Qwen-32B", "<｜User｜>", "<｜Assistant｜>"),
    ("deepseek-ai-DeepSeek-V3.1", "<｜User｜>", "<｜Assistant｜>"),
    ("llama-cpp-deepseek-r1", "<｜User｜>", "<｜Assistant｜>"),
    ("meetkai-functionary-medium-v3.1", "<|start_header_id|>user<|end_header_id|>",
     "<|start_header_id|>assistant<|end_header_id|>"),
    ("meta-llama-Llama-3.1-8B-Instruct", "<|start_header_id|>user<|end_header_id|>",
     "<|start_header_id|>assistant<|end_header_id|>"),
    ("meta-llama-Llama-3.2-3B-Instruct", "<|start_header_id|>user<|end_header_id|>",
     "<|start_header_id|>assistant<|end_header_id|>"),
    ("meta-llama-Llama-3.3-70B-Instruct", "<|start_header_id|>user<|end_header_id|>",
     "<|start_header_id|>assistant<|end_header_id|>"),
    ("fireworks-ai-llama-3-firefunction-v2", "<|start_header_id|>user<|end_header_id|>",
     "<|start_header_id|>assistant<|end_header_id|>"),
    ("microsoft-Phi-3.5-mini-instruct", "<|user|>", "<|assistant|>"),
    ("GLM-4.6", "<|user|>", "<|assistant|>"),
    ("unsloth-Apriel-1.5", "<|user|>", "<|assistant|>"),
    ("GLM-4.7-Flash", "<|user|>", "<|assistant|>"),
    ("google-gemma-2-2b-it", "<start_of_turn>user", "<start_of_turn>model"),
    ("ibm-granite-granite-3.3-2B-Instruct", "<|start_of_role|>user<|end_of_role|>",
     "<|start_of_role|>assistant<|end_of_role|>"),
    ("ibm-granite-granite-4.0", "<|start_of_role|>user<|end_of_role|>", "<|start_of_role|>assistant<|end_of_role|>"),
    ("CohereForAI-c4ai-command-r7b-12-2024-tool_use", "<|START_OF_TURN_TOKEN|><|USER_TOKEN|>", "<|START_RESPONSE|>"),
    ("CohereForAI-c4ai-command-r-plus-tool_use", "<|START_OF_TURN_TOKEN|><|USER_TOKEN|>",
     "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>"),
    ("mistralai-Mistral-Nemo-Instruct-2407", "[INST]", ""),
    ("Mistral-Small-3.2-24B-Instruct-2506", "[INST]", ""),
    ("Apertus-8B-Instruct", "<|user_start|>", "<|assistant_start|>"),
    ("Apriel-1.6-15b-Thinker-fixed", "<|begin_user|>", "<|begin_assistant|>"),
    ("ByteDance-Seed-OSS", "<seed:bos>user", "<seed:bos>assistant"),
    ("GigaChat3.1-10B-A1.8B", "user<|role_sep|>", "assistant<|role_sep|>"),
    ("MiniMax-M2", "]~b]user", "]~b]ai"),
    ("tencent-Hy3", "<｜hy_User:opensource｜>", "<｜hy_Assistant:opensource｜>"),
    ("NVIDIA-Nemotron-Nano-v2", "<SPECIAL_11>User", "<SPECIAL_11>Assistant"),
    ("Reka-Edge", "human:", "assistant:"),
    ("llama-cpp-rwkv-world", "User:", "Assistant:"),
    ("upstage-Solar-Open-100B", "<|begin|>user<|content|>", "<|begin|>assistant"),
]


@requires_oracle
@pytest.mark.parametrize("name,user_start,assistant_start", ROLE_MARKERS)
def test_role_markers(name, user_start, assistant_start):
    a = analysis_of(name)
    assert (a.user_start, a.assistant_start) == (user_start, assistant_start)


@requires_oracle
def test_nemotron_3_nano():
    a = analysis_of("NVIDIA-Nemotron-3-Nano-30B-A3B-BF16")
    assert (a.reasoning.mode, a.reasoning.start, a.reasoning.end) == (ReasoningMode.TAG_BASED, "<think>\n", "\n</think>\n")
    assert (a.content.mode, a.content.start, a.content.end) == (ContentMode.PLAIN, "", "")
    f, fn, args = a.tools.format, a.tools.function, a.tools.arguments
    assert f.mode is ToolFormat.TAG_WITH_TAGGED
    assert (f.section_start, f.section_end, f.per_call_start, f.per_call_end) == ("", "", "<tool_call>\n", "</tool_call>")
    assert (fn.name_prefix, fn.name_suffix, fn.close) == ("<function=", ">\n", "</function>\n")
    assert (args.name_prefix, args.name_suffix, args.value_suffix) == ("<parameter=", ">\n", "\n</parameter>\n")
    assert a.jinja_caps.supports_tools and a.jinja_caps.supports_parallel_tool_calls


@requires_oracle
@pytest.mark.parametrize("name", ["poolside-Laguna-XS-2.1", "poolside-Laguna-S-2.1", "poolside-Laguna-XS.2"])
def test_laguna(name):
    a = analysis_of(name)
    assert (a.reasoning.mode, a.reasoning.start, a.reasoning.end) == (ReasoningMode.TAG_BASED, "<think>", "</think>")
    assert a.tools.arguments.value_suffix == "</arg_value>"
    assert "</assistant>" in a.additional_stops


@requires_oracle
def test_command_r7b():
    a = analysis_of("CohereForAI-c4ai-command-r7b-12-2024-tool_use")
    assert (a.reasoning.mode, a.reasoning.start, a.reasoning.end) == (
        ReasoningMode.TOOLS_ONLY, "<|START_THINKING|>", "<|END_THINKING|>")
    assert (a.content.mode, a.content.start, a.content.end) == (
        ContentMode.ALWAYS_WRAPPED, "<|START_RESPONSE|>", "<|END_RESPONSE|>")
    f, fn, args = a.tools.format, a.tools.function, a.tools.arguments
    assert f.mode is ToolFormat.JSON_NATIVE
    assert (f.section_start, f.section_end, f.per_call_start, f.per_call_end) == (
        "<|START_ACTION|>", "<|END_ACTION|>", "", "")
    assert (fn.name_prefix, fn.name_suffix, fn.close) == ("", "", "")
    assert (args.start, args.end, args.name_prefix, args.name_suffix, args.value_prefix, args.value_suffix,
            args.separator) == ("",) * 7
    assert (f.name_field, f.args_field, f.id_field) == ("tool_name", "parameters", "")
    assert f.tools_array_wrapped and not a.content.requires_nonnull_content


@requires_oracle
def test_smollm3():
    a = analysis_of("HuggingFaceTB-SmolLM3-3B")
    assert (a.reasoning.mode, a.reasoning.start, a.reasoning.end) == (ReasoningMode.TAG_BASED, "<think>", "</think>")
    assert (a.content.mode, a.content.start, a.content.end) == (ContentMode.PLAIN, "", "")
    assert "<think>" in a.preserved_tokens and "</think>" in a.preserved_tokens


BAILING_V3 = """
{# Bailing V3 chat template #}
{%- if tools %}{{ tools | tojson }}{%- endif %}
{%- for message in messages %}
    {%- if message.role == "user" %}
        {{- '<role>HUMAN</role>' + message.content + '<|role_end|>' }}
    {%- elif message.role == "assistant" %}
        {{- '<role>ASSISTANT</role>' }}
        {%- if message.tool_calls %}
            {%- for tool_call in message.tool_calls %}
                {%- set tc = tool_call.function %}
                {{- '<tool_call>' + tc.name }}
                {%- for k, v in tc.arguments.items() %}
                    {{- '<arg_key>' + k + '</arg_key>' }}
                    {{- '\\n<arg_value>' + v + '</arg_value>' }}
                {%- endfor %}
                {{- '\\n</tool_call>' }}
            {%- endfor %}
        {%- endif %}
        {{- '<|role_end|>' }}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}{{- '<role>ASSISTANT</role>' }}{%- endif %}
"""


def test_bailing_v3_tool_format():
    a = analyze_template(compile_template(BAILING_V3))
    assert a.tools.arguments.value_suffix == "</arg_value>"
    assert a.tools.arguments.tolerate_intertag_whitespace
    assert a.provenance["tools.arguments.value_suffix"].workaround == "Bailing V3"


# --- compare_variants (test_compare_variants_*) --------------------------------

CAPS = Caps()


def _cmp(text: str, a: RenderInputs, b: RenderInputs):
    return compare_variants(compile_template(text), a, b, CAPS)


def test_compare_variants_basic():
    r = _cmp("{{ messages[0]['content'] }}", RenderInputs(messages=[{"role": "user", "content": "Hello"}]),
             RenderInputs(messages=[{"role": "user", "content": "World"}]))
    assert r is not None and (r.diff.prefix or r.diff.left)


def test_compare_variants_messages_modifier():
    text = "{% for message in messages %}{{ message['role'] }}:{{ message['content'] }}{% endfor %}"
    r = _cmp(text, RenderInputs(messages=[{"role": "user", "content": "A"}]),
             RenderInputs(messages=[{"role": "user", "content": "B"}]))
    assert (r.diff.left, r.diff.right) == ("A", "B")
    r = _cmp(text, RenderInputs(messages=[{"role": "user", "content": "A"}]),
             RenderInputs(messages=[{"role": "newuser", "content": "B"}]))
    assert (r.diff.left, r.diff.right) == ("user:A", "newuser:B")


def test_compare_variants_tools_modifier():
    r = _cmp("{% for tool in tools %}{{ tool['name'] }}{% endfor %}", RenderInputs(tools=[{"name": "foo"}]),
             RenderInputs(tools=[{"name": "bar"}]))
    assert (r.diff.left, r.diff.right) == ("foo", "bar")


def test_compare_variants_template_failure():
    msgs = [{"role": "user", "content": "Hello"}]
    assert _cmp("{{ messages.cahoot()[0]['nonexistent_field'] }}", RenderInputs(messages=msgs),
                RenderInputs(messages=[{"role": "user", "content": "World"}])) is None


def test_compare_variants_identity():
    same = RenderInputs(messages=[{"role": "user", "content": "Hello"}])
    r = _cmp("{{ messages[0]['content'] }}", same, same)
    assert (r.diff.prefix, r.diff.left, r.diff.right, r.diff.suffix) == ("Hello", "", "", "")
