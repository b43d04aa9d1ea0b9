"""``{% set a.b = v %}`` in the llama.cpp dialect, as llama.cpp's engine runs it.

set_statement::execute_impl evaluates v first, then a, and assigns into any object (a
namespace or a dict); jinja2 checks first that a is a Namespace. Found by the differential
tests against the real build (tests/llama_cpp/): a template whose ``namespace(...)`` line
was removed read its system message in llama.cpp (so supports_system_role stayed true)
and not in the port. Every expected value below was checked against the real build
(the llama.cpp driver, 0c1e5709); these tests run without it.
"""

from __future__ import annotations

import pytest

from explorer.caps import detect_caps
from explorer.errors import TemplateRuntimeError
from explorer.render import RenderInputs, compile_template, render

USER = {"role": "user", "content": "Hi"}


def _render(text: str, messages: tuple[dict[str, object], ...] = (USER,)) -> str:
    return render(compile_template(text), RenderInputs(messages=[dict(m) for m in messages]))


def test_a_member_of_a_dict_is_set() -> None:
    # llama.cpp 0c1e5709 renders '1'
    assert _render("{% set d = {} %}{% set d.x = 1 %}{{ d.x }}") == "1"


def test_setting_an_existing_member_keeps_its_place() -> None:
    # llama.cpp 0c1e5709 renders '{"a": 3, "b": 2}'
    assert _render("{% set d = {'a': 1, 'b': 2} %}{% set d.a = 3 %}{{ d | tojson }}") == '{"a": 3, "b": 2}'


def test_a_namespace_still_takes_members() -> None:
    assert _render("{% set ns = namespace(a=1) %}{% set ns.a = ns.a + 1 %}{{ ns.a }}") == "2"


@pytest.mark.parametrize("text", ["{% set ns.x = 1 %}x", "{% set s = 'a' %}{% set s.x = 1 %}{{ s }}"])
def test_a_member_of_what_is_no_object_is_refused_with_llama_cpps_words(text: str) -> None:
    # llama.cpp 0c1e5709: "Cannot assign to member of non-object"
    with pytest.raises(TemplateRuntimeError, match="Cannot assign to member of non-object"):
        _render(text)


def test_a_message_set_in_one_render_is_not_changed_for_the_next() -> None:
    text = "{% for m in messages %}{% set m.content = 'X' %}{{ m.content }}{% endfor %}|{{ messages[0].content }}"
    messages = (dict(USER),)
    # llama.cpp 0c1e5709 renders 'X|X' (the loop's message is the list's)
    assert _render(text, messages) == "X|X"
    assert messages[0]["content"] == "Hi"  # the caller's message is untouched
    assert _render(text, messages) == "X|X"


def test_the_value_is_read_before_the_assignment_fails() -> None:
    # llama-cpp-rwkv-world's template without its namespace(...) line: llama.cpp 0c1e5709
    # detects supports_system_role true (the system content is read, then the set fails)
    text = ("{%- for message in messages -%}{%- if message['role'] == 'system' -%}"
            "{%- set ns.system_prompt = message['content'] -%}{%- endif -%}{%- endfor -%}"
            "{%- for message in messages -%}{{ message['content'] }}{%- endfor -%}")
    caps = detect_caps(compile_template(text))
    assert caps.supports_system_role is True
