"""Capability detection on templates written here, plus llama.cpp's own caps tests.

The first three cases are llama.cpp's tests/test-jinja.cpp ``test_caps`` (expected values
are theirs); the rest are minimal templates, one per flag, whose expected flags follow
from the probe rules in common/jinja/caps.cpp.
"""

from __future__ import annotations

import pytest

from explorer.caps import Caps, detect_caps, detect_caps_trace
from explorer.render import compile_template

CAPS_KEYS = [
    "supports_tools", "supports_tool_calls", "supports_system_role", "supports_parallel_tool_calls",
    "supports_preserve_reasoning", "supports_reasoning_effort", "supports_string_content",
    "supports_typed_content", "supports_object_arguments",
]


def caps(text: str) -> Caps:
    return detect_caps(compile_template(text))


# --- llama.cpp's test_caps -------------------------------------------------------------


def test_llama_string_content() -> None:
    c = caps("{% for message in messages %}{{ message['role'] + ': ' + message['content'] }}{% endfor %}")
    assert c.supports_string_content and not c.supports_typed_content


def test_llama_typed_content_raises_on_string() -> None:
    c = caps(
        "{% for message in messages %}"
        "{% for content in message['content'] | selectattr('type', 'equalto', 'text') %}"
        "{{ content['text'] }}{% endfor %}{% endfor %}"
    )
    assert not c.supports_string_content and c.supports_typed_content


def test_llama_typed_content_silently_drops_string() -> None:
    c = caps("{% for message in messages %}{{ message['content'][0]['text'] }}{% endfor %}")
    assert not c.supports_string_content and c.supports_typed_content


# --- one template per flag ----------------------------------------------------------------

PLAIN = "{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}"

TOOLS_AWARE = (
    "{% if tools %}{% for t in tools %}{{ t.function.name }}{% endfor %}{% endif %}"
    "{% for m in messages %}<{{ m.role }}>{{ m.content }}"
    "{% if m.tool_calls %}{% for c in m.tool_calls %}{{ c.function.name }}{{ c.function.arguments | tojson }}"
    "{% endfor %}{% endif %}{% endfor %}"
)


def test_defaults_before_probing() -> None:
    assert list(Caps().to_json()) == CAPS_KEYS
    assert Caps().supports_tools and not Caps().supports_typed_content


def test_plain_template_has_no_tool_support() -> None:
    c = caps(PLAIN)
    assert c.supports_system_role and c.supports_string_content
    assert not c.supports_tools and not c.supports_tool_calls and not c.supports_parallel_tool_calls
    assert not c.supports_object_arguments


def test_tool_aware_template() -> None:
    c = caps(TOOLS_AWARE)
    assert c.supports_tools and c.supports_tool_calls and c.supports_parallel_tool_calls
    # tojson marks the whole arguments object as used
    assert c.supports_object_arguments


def test_string_arguments_only() -> None:
    text = TOOLS_AWARE.replace("c.function.arguments | tojson", "c.function.arguments if c.function.arguments is string else raise_exception('no')")
    c = caps(text)
    assert c.supports_tool_calls and not c.supports_object_arguments


def test_single_tool_call_only() -> None:
    text = TOOLS_AWARE.replace(
        "{% for c in m.tool_calls %}", "{% for c in m.tool_calls[:1] %}"
    )
    c = caps(text)
    assert c.supports_tool_calls and not c.supports_parallel_tool_calls


def test_system_role_rejected() -> None:
    c = caps("{% if messages[0].role == 'system' %}{{ raise_exception('no system') }}{% endif %}" + PLAIN)
    assert not c.supports_system_role


def test_preserve_reasoning_and_effort() -> None:
    text = (
        "{% for m in messages %}{% if m.reasoning_content %}<think>{{ m.reasoning_content }}</think>"
        "{% endif %}{{ m.content }}{% endfor %}{% if reasoning_effort == 'low' %}fast{% endif %}"
    )
    c = caps(text)
    assert c.supports_preserve_reasoning and c.supports_reasoning_effort


def test_effort_in_an_untaken_branch_is_not_used() -> None:
    # llama.cpp marks a variable when the expression is evaluated, not when it is mentioned
    c = caps("{% if messages | length > 5 %}{{ reasoning_effort }}{% endif %}" + PLAIN)
    assert not c.supports_reasoning_effort


def test_trace_names_every_probe() -> None:
    _, trace = detect_caps_trace(compile_template(PLAIN))
    names = [p.name for p in trace]
    assert names == [
        "typed_content", "system_role", "tool_call_object_arguments", "tool_call_string_arguments",
        "parallel_tool_calls", "preserve_reasoning", "reasoning_effort",
    ]
    assert all(p.success for p in trace)
    system = next(p for p in trace if p.name == "system_role")
    assert system.evidence[0].startswith("messages[0].content: used")


def test_trace_explains_a_missing_system_role() -> None:
    text = "{% for m in messages %}{% if m.role != 'system' %}{{ m.content }}{% endif %}{% endfor %}"
    c, trace = detect_caps_trace(compile_template(text))
    assert not c.supports_system_role
    system = next(p for p in trace if p.name == "system_role")
    assert system.evidence == ("messages[0].content: not used",)


@pytest.mark.parametrize("text", ["{{ raise_exception('x') }}", "{% for c in messages[0].content %}{% endfor %}"])
def test_failing_probes_are_evidence_not_errors(text: str) -> None:
    c = caps(text)
    assert not c.supports_string_content
