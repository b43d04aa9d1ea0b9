"""Design choices: what a template does on purpose, read off its renderings, with the lines
that show it; by-design losses kept out of the verdict's losses and never fixed.

Our own templates are one statement per line, so the lines are checked by their text; on
llama.cpp's corpus the lines were read by hand in the templates (Llama 3.1 lines 67-68
write content only without calls, QwQ lines 25 and 31 cut the reasoning out of history
content, DeepSeek V3.2 line 58 keeps reasoning only after the last user with thinking on,
Qwen3 lines 82-83 close the thinking block with enable_thinking false).
"""

from __future__ import annotations

import pytest
from doctor_cases import TEMPLATES

from explorer.doctor.intent import design_choices
from explorer.doctor.report import doctor
from explorer.session import open_session
from oracle_data import load_oracle_template, requires_oracle

CONTENT_ONLY = ("{%- for m in messages %}\n"
                "{{- '<|im_start|>' + m.role + '\\n' }}\n"
                "{%- if m.tool_calls %}\n"
                "{%- for tc in m.tool_calls %}\n"
                "{{- '<tool_call>' + (tc.function | tojson) + '</tool_call>' }}\n"
                "{%- endfor %}\n"
                "{%- else %}\n"
                "{{- m.content }}\n"
                "{%- endif %}\n"
                "{{- '<|im_end|>\\n' }}\n"
                "{%- endfor %}\n"
                "{%- if add_generation_prompt %}\n"
                "{{- '<|im_start|>assistant\\n' }}\n"
                "{%- endif %}\n")
LAST_ONLY = ("{%- set ns = namespace(last=-1) %}\n"
             "{%- for m in messages %}{%- if m.role == 'user' %}{%- set ns.last = loop.index0 %}{%- endif %}"
             "{%- endfor %}\n"
             "{%- for m in messages %}\n"
             "{{- '<|im_start|>' + m.role + '\\n' }}\n"
             "{%- if m.role == 'assistant' and m.reasoning_content %}\n"
             "{%- if loop.index0 > ns.last %}\n"
             "{{- '<think>' + m.reasoning_content + '</think>' }}\n"
             "{%- endif %}\n"
             "{%- endif %}\n"
             "{{- m.content or '' }}\n"
             "{{- '<|im_end|>\\n' }}\n"
             "{%- endfor %}\n"
             "{%- if add_generation_prompt %}\n"
             "{{- '<|im_start|>assistant\\n' }}\n"
             "{%- if enable_thinking is defined and not enable_thinking %}\n"
             "{{- '<think></think>' }}\n"
             "{%- endif %}\n"
             "{%- endif %}\n")


def _choices(text: str) -> dict[str, tuple[tuple[bool, ...], tuple[str, ...]]]:
    return {c.key: (c.settings, c.source_lines) for c in design_choices(open_session(text))}


def test_content_written_only_without_calls_names_the_branch_and_the_line_that_writes_it() -> None:
    settings, lines = _choices(CONTENT_ONLY)["content-only-without-calls"]
    assert settings == (False, True)
    assert lines == ("{%- if m.tool_calls %}", "{%- else %}", "{{- m.content }}")


def test_reasoning_kept_only_after_the_last_user_and_thinking_closed_by_the_prompt() -> None:
    found = _choices(LAST_ONLY)
    settings, lines = found["reasoning-stripped"]
    assert settings == (False, True)
    assert "{%- if loop.index0 > ns.last %}" in lines and "{{- '<think>' + m.reasoning_content + '</think>' }}" in lines
    settings, lines = found["thinking-closed"]
    assert settings == (False,)
    assert lines == ("{%- if enable_thinking is defined and not enable_thinking %}", "{{- '<think></think>' }}")


def test_a_template_that_writes_reasoning_everywhere_makes_no_reasoning_choice() -> None:
    assert not {"reasoning-stripped", "reasoning-not-rendered"} & set(_choices(TEMPLATES["thinking-closed"]))


def test_by_design_losses_stay_out_of_the_verdicts_losses_and_are_never_fixed() -> None:
    report = doctor(open_session(CONTENT_ONLY), fixtures=False, grammar="none")
    dropped = [x for c in report.cases for x in c.losses if x.lost == "content" and "drops content" in x.sentence]
    assert dropped and all(x.kind == "by-design" and x.template_line == 3 for x in dropped)
    assert not any("content" in loss for loss in report.losses)
    assert not any("content before its tool calls" in f.summary for f in report.fixes)
    [design] = [f for f in report.findings if f.check == "roundtrip-by-design" and f.field == "content"]
    assert design.severity == "info" and "on purpose" in design.summary


@requires_oracle
@pytest.mark.parametrize(("name", "key", "lines"), [
    ("meta-llama-Llama-3.1-8B-Instruct", "content-only-without-calls", (67, 68)),
    ("Qwen-QwQ-32B", "reasoning-not-rendered", (25, 31)),
    ("deepseek-ai-DeepSeek-V3.2", "reasoning-not-rendered", (58,)),
    ("Qwen-Qwen3-0.6B", "thinking-closed", (82, 83)),
])
def test_design_choices_of_llama_cpps_templates_name_the_lines_read_by_hand(name: str, key: str,
                                                                          lines: tuple[int, ...]) -> None:
    found = {c.key: c for c in design_choices(open_session(load_oracle_template(name)))}
    assert found[key].lines == lines
