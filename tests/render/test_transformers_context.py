"""The transformers dialect's context rules and globals, each checked against real transformers.

Snippets of our own, rendered by transformers' ``render_jinja_template`` (after
``_normalize_chat_messages``, as ``apply_chat_template`` does) and by our transformers
dialect: the message preprocessing (None keys, reasoning aliases and their key order),
``range``, ``namespace``, ``dict``, ``tojson``, ``raise_exception``; and that the
llama.cpp dialect keeps llama.cpp's rules for the same inputs.
"""

from __future__ import annotations

from typing import Any

import pytest
import transformers.utils.chat_template_utils as hf_utils

from explorer.errors import ExplorerError, RequestError, SandboxViolation, TemplateRuntimeError
from explorer.render import RenderInputs, compile_template, render, transformers_messages


def hf(text: str, messages: list[dict[str, Any]], **kwargs: Any) -> str:
    rendered, _ = hf_utils.render_jinja_template(
        conversations=[hf_utils._normalize_chat_messages(messages)], chat_template=text, **kwargs)
    return rendered[0]


def ours(text: str, messages: list[dict[str, Any]], dialect: str = "transformers", **kwargs: Any) -> str:
    return render(compile_template(text, dialect), RenderInputs(messages=messages, **kwargs))  # type: ignore[arg-type]


EACH = "{% for m in messages %}{{ m | tojson }}\n{% endfor %}"


@pytest.mark.parametrize("message", [
    {"role": "assistant", "content": None, "tool_calls": [{"function": {"name": "f", "arguments": None}}]},
    {"role": "assistant", "reasoning_content": "r", "content": "c"},
    {"role": "assistant", "content": "c", "thinking": "t"},
    {"role": "assistant", "thinking": "t", "content": "c", "reasoning_content": "r"},
    {"role": "assistant", "reasoning_content": None, "thinking": "t", "content": "c"},
    {"role": "assistant", "reasoning": "old name", "content": "c"},
    {"role": "assistant", "reasoning_content": "", "content": "c"},
    {"role": "tool", "tool_call_id": "call_1", "name": None, "content": "21"},
])
def test_messages_reach_the_template_as_transformers_passes_them(message: dict[str, Any]) -> None:
    assert ours(EACH, [message]) == hf(EACH, [message])


def test_the_callers_messages_are_not_changed() -> None:
    message = {"role": "assistant", "content": None, "reasoning_content": "r"}
    out = transformers_messages([message])
    assert out == [{"thinking": "r", "role": "assistant", "reasoning_content": "r"}]
    assert message == {"role": "assistant", "content": None, "reasoning_content": "r"}


def test_a_message_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(RequestError, match="message 0"):
        ours(EACH, ["hello"])  # type: ignore[list-item]


@pytest.mark.parametrize("snippet", [
    "{{ range(3) }}|{{ range(3) | list }}|{{ range(True) | list }}",
    "{% for i in range(2, 9, 3) %}{{ i }}{% endfor %}",
    "{{ dict(a=1) }}|{{ dict.fromkeys(['x', 'y'], 0) }}|{{ dict([('k', 'v')]) }}",
    "{% set ns = namespace(count=0) %}{% set ns.count = ns.count + 2 %}{{ ns.count }}",
    "{{ {'b': 1, 'a': [1.0, 'é']} | tojson }}|{{ 'x' | tojson(indent=2) }}",
    "{{ strftime_now is defined }}|{{ enable_thinking is defined }}|{{ documents }}|{{ tools }}",
])
def test_globals_and_filters_render_as_in_transformers(snippet: str) -> None:
    assert ours(snippet, []) == hf(snippet, [])


@pytest.mark.parametrize("snippet, ours_raises", [
    ("{{ range(1.5) }}", TemplateRuntimeError),
    ("{{ range(200000) | length }}", TemplateRuntimeError),  # jinja2's sandbox: over MAX_RANGE
    ("{% set ns = namespace(_hidden=1) %}", SandboxViolation),
    ("{% set ns = namespace() %}{% set ns._x = 1 %}", SandboxViolation),
    ("{% set xs = [] %}{% set _ = xs.append(1) %}", SandboxViolation),
])
def test_what_transformers_refuses_is_refused(snippet: str, ours_raises: type[ExplorerError]) -> None:
    with pytest.raises(Exception):  # noqa: B017 - transformers raises its own types; that it refuses is the point
        hf(snippet, [])
    with pytest.raises(ours_raises):
        ours(snippet, [])


def test_raise_exception_carries_the_templates_message() -> None:
    from jinja2.exceptions import TemplateError

    snippet = "{{ raise_exception('roles must alternate') }}"
    with pytest.raises(TemplateError, match="^roles must alternate$"):
        hf(snippet, [])
    with pytest.raises(ExplorerError, match="roles must alternate"):
        ours(snippet, [])


def test_the_llama_dialect_keeps_llamas_rules() -> None:
    message = {"role": "assistant", "content": None, "reasoning_content": "r"}
    probe = "{{ messages[0].content is none }} {{ messages[0].thinking is defined }} {{ enable_thinking }}"
    assert ours(probe, [message], "llama.cpp") == "True False True"
    assert ours(probe, [message]) == hf(probe, [message]) == "False True "
