"""Divergences the differential tests found between the port and the real build, kept as
plain cases that run without the driver.

Every expected value here was checked against the real build (the llama.cpp driver built
from 0c1e5709, ``python -m explorer llama-cpp build``) when the case was added; the
comment on each says what llama.cpp gave. The Jinja cases are in
tests/render/test_llama_set_member.py.
"""

from __future__ import annotations

from explorer.apply import GET_WEATHER_TOOL, Request
from explorer.errors import TemplateRuntimeError
from explorer.session import open_session

# a Ling 3.0 (Bailing V3) shaped template: the handler's substrings in a comment
LING = ("{# <role>ASSISTANT</role> <arg_key> #}{%- for m in messages %}<role>{{ m.role|upper }}</role>"
        "{{ m.content }}<|role_end|>{% endfor -%}{%- if add_generation_prompt %}<role>ASSISTANT</role>\n"
        "{% if enable_thinking %}<think>{% else %}<think>\n</think>{% endif %}{% endif -%}")
CALL_ENDS_REASONING = '["</think>","<tool_call>"]'


def _continued(last: dict[str, object]) -> Request:
    return Request(messages=({"role": "user", "content": "Hi"}, last), tools=(GET_WEATHER_TOOL,),
                   enable_thinking=False, continue_final_message="reasoning", add_generation_prompt=False)


def test_an_empty_message_to_continue_is_no_continuation_for_ling3s_parser() -> None:
    # generation_params::has_continuation is false for an empty message, so ling3.cpp reads
    # the think block's state off the generation prompt (closed here): llama.cpp 0c1e5709's
    # reasoning stops at </think> only, and the generation prompt is the template's own
    session = open_session(LING)
    params = session.params(_continued({"role": "assistant", "content": ""}))
    assert session.handler == "ling3"
    assert CALL_ENDS_REASONING not in params.parser
    assert params.generation_prompt == "<role>ASSISTANT</role>\n<think>\n</think>"


def test_a_message_with_reasoning_to_continue_keeps_the_think_block_open() -> None:
    # llama.cpp 0c1e5709: generation prompt '<role>ASSISTANT</role>\n<think>Hmm', and a tool
    # call ends the reasoning
    params = open_session(LING).params(_continued({"role": "assistant", "content": "", "reasoning_content": "Hmm"}))
    assert CALL_ENDS_REASONING in params.parser
    assert params.generation_prompt == "<role>ASSISTANT</role>\n<think>Hmm"


# a template that cannot render one plain user turn ('ns.index' is never set)
NO_INDEX = ("{%- set ns = namespace() %}{%- for m in messages %}{{ m.content }}"
            "{% if ns.index % 2 == 0 %}!{% endif %}{% endfor %}")


def test_thinking_support_is_llama_cpps_error_where_its_apply_raises() -> None:
    # common_chat_templates_support_enable_thinking applies a user turn "test": llama.cpp
    # 0c1e5709 throws std::invalid_argument "Unable to generate parser for this template.
    # Automatic parser generation failed: … Cannot perform operation % on undefined values"
    session = open_session(NO_INDEX)
    support = session.enable_thinking_support
    assert isinstance(support, TemplateRuntimeError)
    assert support.message.startswith("Unable to generate parser for this template. Automatic parser generation "
                                      "failed:")
    # the route's reading without a render still answers (docs/llama-cpp-differences.md)
    assert session.supports_enable_thinking is False
