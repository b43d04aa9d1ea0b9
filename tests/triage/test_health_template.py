"""The template-text health checks (``explorer.triage.health_template``): one stable check
id each, each with templates of our own that show it and templates that must not, run by
one parametrised test; and the empty template's finding comes first with what llama.cpp
does, naming no line of the file.
"""

from __future__ import annotations

import pytest

from explorer.session import open_session
from explorer.triage.health_template import (
    EMPTY_CHECK,
    LITERAL_CHECK,
    ROLE_CHECK,
    TEMPLATE_CHECKS,
    UNCLOSED_CHECK,
    literal_formats,
    unclosed_turns,
)

HEAD = "{%- for m in messages %}{{ '<|im_start|>' + m.role + '\\n' }}"
TAIL = ("{%- endfor %}{%- if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{%- endif %}")
CALLS = ("{%- for tc in m.tool_calls %}<tool_call>{\"name\": \"{{ tc.function.name }}\", \"arguments\": "
         "{{ tc.function.arguments | tojson }}}</tool_call>{%- endfor %}")
CLOSED = HEAD + "{%- if m.tool_calls %}" + CALLS + "{%- else %}{{ m.content }}{%- endif %}{{ '<|im_end|>\\n' }}" + TAIL
CALL_UNCLOSED = HEAD + "{%- if m.tool_calls %}" + CALLS + "{%- else %}{{ m.content + '<|im_end|>\\n' }}{%- endif %}" + TAIL
TOOL_UNCLOSED = ("{%- for m in messages %}{%- if m.role == 'tool' %}{{ '<|im_start|>tool\\n' + m.content }}"
                 "{%- else %}{{ '<|im_start|>' + m.role + '\\n' }}{%- if m.tool_calls %}" + CALLS +
                 "{%- else %}{{ m.content }}{%- endif %}{{ '<|im_end|>\\n' }}{%- endif %}" + TAIL)
PERCENT = (HEAD + "{%- if m.tool_calls %}{%- for tc in m.tool_calls %}"
           "{{ '<tool_call>%s</tool_call>'|format(tc.function.name) }}{%- endfor %}{%- else %}{{ m.content }}"
           "{%- endif %}{{ '<|im_end|>\\n' }}" + TAIL)
BRACES = PERCENT.replace("'<tool_call>%s</tool_call>'|format(tc.function.name)",
                         "'<tool_call>{}</tool_call>'|format(tc.function.name)")
ROLE_TAG = ("{%- for m in messages %}{%- if m.role == 'assistant' %}{{ '<[role_assistant]>\\n' }}"
            "{%- if m.reasoning_content %}{{ m.reasoning_content + '\\n[FINAL]\\n' }}{%- endif %}"
            "{{ m.content or '' }}{{ '<[end]>\\n' }}{%- else %}{{ '<[role_' + m.role + ']>\\n' + m.content + "
            "'<[end]>\\n' }}{%- endif %}{%- endfor %}"
            "{%- if add_generation_prompt %}{{ '<[role_assistant]>\\n' }}{%- endif %}")
THINK_TAG = ROLE_TAG.replace("{{ '<[role_assistant]>\\n' }}{%- if m.reasoning_content %}{{ m.reasoning_content + "
                             "'\\n[FINAL]\\n' }}", "{{ '<[role_assistant]>\\n' }}{%- if m.reasoning_content %}"
                             "{{ '<think>' + m.reasoning_content + '</think>' }}")

CASES: tuple[tuple[str, str, bool], ...] = (
    (EMPTY_CHECK, "", True), (EMPTY_CHECK, "chatml", True), (EMPTY_CHECK, CLOSED, False),
    (UNCLOSED_CHECK, CALL_UNCLOSED, True), (UNCLOSED_CHECK, TOOL_UNCLOSED, True), (UNCLOSED_CHECK, CLOSED, False),
    (LITERAL_CHECK, PERCENT, True), (LITERAL_CHECK, BRACES, False), (LITERAL_CHECK, CLOSED, False),
    (ROLE_CHECK, ROLE_TAG, True), (ROLE_CHECK, THINK_TAG, False), (ROLE_CHECK, CLOSED, False),
)


@pytest.mark.parametrize(("check", "text", "found"), CASES, ids=[f"{c}-{'yes' if f else 'no'}-{i}"
                                                                 for i, (c, _, f) in enumerate(CASES)])
def test_each_template_check_finds_its_class_and_only_it(check: str, text: str, found: bool) -> None:
    findings = [f for f in open_session(text).health.findings if f.check == check]
    assert bool(findings) == found, [f.summary for f in open_session(text).health.findings]
    for f in findings:
        assert f.summary and f.fix_where and f.severity in ("warning", "info")


def test_every_check_id_has_a_case_each_way() -> None:
    assert {(c, f) for c, _, f in CASES} == {(c, f) for c in TEMPLATE_CHECKS for f in (True, False)}


def test_an_empty_template_is_said_first_with_what_llama_cpp_does() -> None:
    health = open_session("").health
    first = health.findings[0]
    assert first.check == EMPTY_CHECK and first.template_line is None
    assert "ChatML" in first.summary and "common_chat_templates_init" in first.summary


def test_the_unclosed_turns_say_which_turn_and_the_text_plain_turns_close_with() -> None:
    [call] = unclosed_turns(open_session(CALL_UNCLOSED))
    assert (call.turn, call.closer, call.end) == ("call", "<|im_end|>", "<|im_end|>\n")
    [tool] = unclosed_turns(open_session(TOOL_UNCLOSED))
    assert tool.turn == "tool" and tool.found.startswith("<|im_start|>assistant")


def test_a_percent_format_is_named_with_its_line_and_literal() -> None:
    [found] = literal_formats("{{- x }}\n{{ 'a %s b'|format(y) }}\n")
    assert (found.line, found.literal) == (2, "a %s b")
    [finding] = [f for f in open_session(PERCENT).health.findings if f.check == LITERAL_CHECK]
    assert finding.found == "<tool_call>%s</tool_call>" and finding.template_line == 1 and finding.quirk


def test_a_role_tag_read_as_the_reasoning_opener_names_the_field() -> None:
    [finding] = [f for f in open_session(ROLE_TAG).health.findings if f.check == ROLE_CHECK]
    assert finding.field == "reasoning.start" and "<[role_assistant]>" in finding.summary
    assert "turning thinking off is no fix" in finding.fix_hint
