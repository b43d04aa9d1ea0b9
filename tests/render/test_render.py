"""Rendering: context rules, dialect switch, clock, errors (templates written here).

Expected values follow llama.cpp's sources (chat.cpp common_chat_template_direct_apply_impl
for the context; common/jinja runtime.cpp/value.cpp for engine semantics) for the default
``llama.cpp`` dialect, and jinja2/transformers for ``dialect="transformers"``.
"""

from __future__ import annotations

import threading
from datetime import datetime

import pytest

from explorer.errors import (
    SandboxViolation,
    TemplateRaisedError,
    TemplateRuntimeError,
    TemplateSyntaxError,
)
from explorer.render import (
    FIXED_CLOCK,
    RenderInputs,
    RenderLimits,
    chat_extra_context,
    compile_template,
    render,
)

USER = [{"role": "user", "content": "Hi"}]
TOOL = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}


def r(text: str, dialect: str = "llama.cpp", **inputs: object) -> str:
    inputs.setdefault("messages", USER)
    return render(compile_template(text, dialect), RenderInputs(**inputs))  # type: ignore[arg-type]


# --- the context llama.cpp passes -------------------------------------------------------

PROBE = "{{ tools is defined }} {{ add_generation_prompt is defined }} {{ enable_thinking }}"


def test_llama_context_omits_empty_tools_and_false_generation_prompt() -> None:
    assert r(PROBE) == "False False True"
    assert r(PROBE, tools=[]) == "False False True"
    assert r(PROBE, tools=[TOOL], add_generation_prompt=True, enable_thinking=False) == "True True False"


def test_transformers_context_always_has_generation_prompt_and_tools() -> None:
    # apply_chat_template passes enable_thinking only when its caller does
    assert r(PROBE, "transformers") == "True True "
    assert r(PROBE, "transformers", enable_thinking=False) == "True True False"
    assert r("{{ tools }} {{ add_generation_prompt }} {{ documents }}", "transformers") == "None False None"
    assert r("{{ enable_thinking is defined }}", "llama.cpp") == "True"


def test_extra_context_overrides_and_reasoning_aliases() -> None:
    out = r(
        "{{ enable_thinking }} {{ clear_thinking }} {{ preserve_thinking }} {{ reasoning_strength }}",
        extra_context={"enable_thinking": False, "preserve_reasoning": True, "reasoning_effort": "high"},
    )
    assert out == "False False True high"


def test_explicit_context_names_win_over_reasoning_aliases() -> None:
    # chat.cpp sets the aliases first, then global_from_json(inp) writes the inputs over them
    out = r(
        "{{ preserve_thinking }} {{ clear_thinking }} {{ drop_thinking }} {{ reasoning_strength }}",
        extra_context={"preserve_reasoning": False, "drop_thinking": "kept", "reasoning_effort": "low",
                       "reasoning_strength": "mine"},
    )
    assert out == "False True kept mine"
    assert r("{{ drop_thinking }}", "transformers", extra_context={"preserve_reasoning": False}) == ""


def test_bos_and_eos_tokens() -> None:
    assert r("{{ bos_token }}|{{ eos_token }}", bos_token="<s>", eos_token="</s>") == "<s>|</s>"


# --- clock ------------------------------------------------------------------------------


def test_strftime_now_uses_the_injected_clock() -> None:
    tmpl = compile_template('{{ strftime_now("%d %b %Y") }}')
    assert render(tmpl, RenderInputs()) == "29 Nov 2026"
    later = render(tmpl, RenderInputs(), clock=lambda: datetime(2031, 2, 3))
    assert later == "03 Feb 2031"


def test_chat_extra_context_dates() -> None:
    # chat.cpp common_chat_extra_context: "%b %d %Y" and "%d %b %Y"
    assert chat_extra_context() == {"datetime": "Nov 29 2026", "date_string": "29 Nov 2026"}
    assert FIXED_CLOCK.year == 2026


# --- the generation tag and transformers environment basics ------------------------------


@pytest.mark.parametrize("dialect", ["llama.cpp", "transformers"])
def test_generation_block_renders_its_body(dialect: str) -> None:
    text = "{% for m in messages %}{% generation %}[{{ m.content }}]{% endgeneration %}{% endfor %}"
    assert r(text, dialect) == "[Hi]"


@pytest.mark.parametrize("dialect", ["llama.cpp", "transformers"])
def test_trim_and_lstrip_blocks_and_loopcontrols(dialect: str) -> None:
    text = "  {% for i in [1, 2, 3] %}\n{% if i == 2 %}{% continue %}{% endif %}{{ i }}\n  {% endfor %}\n"
    assert r(text, dialect) == "1\n3\n"


# --- dialect differences (docs/jinja-differences.md) ------------------------------------

DIFFERENCES = [
    # (template, llama.cpp output, transformers output or exception class)
    ("{{ messages[0].missing }}|{{ messages[0].missing.deeper }}", "|", TemplateRuntimeError),
    ('{{ "a" + functions }}', "a", TemplateRuntimeError),
    ("{{ none }}|{{ messages[0].get('x') }}", "|", "None|None"),
    ('{{ "<" | safe + "&" }}', "<&", "<&amp;"),
    ("{{ messages | map(attribute='role') | tojson }}", '["user"]', TemplateRuntimeError),
    ("{{ [1.5, 2.0, 0.1] | tojson }}", "[1.5, 2, 0.1]", "[1.5, 2.0, 0.1]"),
    ("{{ {'a': x} | tojson }}", '{"a": null}', TemplateRuntimeError),
    ("{{ none | default('d') }}", "d", "None"),
    ("{{ 'a  b'.split() | length }}", "3", "2"),
    ("{{ [1, 'a', [2]] }}", "1a2", "[1, 'a', [2]]"),
    ("{{ {'k': 'v'} }}", "", "{'k': 'v'}"),
    ("{% set l = [1] %}{% set _ = l.append(2) %}{{ l | length }}", "2", SandboxViolation),
    ("{{ {'k': 1} | default({}) }}", TemplateRuntimeError, "{'k': 1}"),
    ("{% if false %}{{ x | from_json }}{% endif %}ok", "ok", "ok"),
    ("{{ 'é'.upper() }}{{ 'ab' | length }}{{ 'é' | length }}", "é22", "É21"),
    ("{{ 1 ~ 2 }}", TemplateRuntimeError, "12"),
    ("{{ 'n=' + 1 }}", "n=1", TemplateRuntimeError),
    ("{% for c in 'ab' %}{{ c }}{% endfor %}", TemplateRuntimeError, "ab"),
    ("{% for k, v in {'a': 1} %}{{ k }}{{ v }}{% endfor %}", "a1", TemplateRuntimeError),
    ("{{ true is number }}{{ 1 is number }}", "FalseTrue", "TrueTrue"),
    ("{{ '  x\u3000' | trim }}|", "x\u3000|", "x|"),
    ("{{ -7 % 3 }} {{ 7 % 3 }}", "-1 1", "2 1"),
    ("{{ '%s!' % 'hi' }}", TemplateRuntimeError, "hi!"),
    ("{{ 2 ** 3 }}", TemplateSyntaxError, "8"),
    ("{% with a = 1 %}{{ a }}{% endwith %}", TemplateSyntaxError, "1"),
    ("{{ '3.5' | int }} {{ ' 42abc' | int }} {{ '2.5kg' | float }}", "3 42 2.5", "3 0 0.0"),
    ("{% macro f(a, b) %}{{ a }}{{ b }}{% endmacro %}{{ f(1, 2, 3) }}{{ f(1, 2, c=3) }}", "1212", TemplateRuntimeError),
    ("{% macro f(a, b) %}{{ a }}{% endmacro %}{{ f(1) }}", TemplateRuntimeError, "1"),
    ("{% for i in [1, 2] %}{{ loop.cycle('a', 'b') }}{% endfor %}", TemplateRuntimeError, "ab"),
    ("{{ 1 < 2.5 }}{{ 3 >= 3 }}", "TrueTrue", "TrueTrue"),
    ("{{ 'a' < 'b' }}", TemplateRuntimeError, "True"),
    # a macro runs in a copy of the caller's scope (llama.cpp's macro_statement)
    ("{% macro f() %}[{{ m }}]{% endmacro %}{% for m in [1, 2] %}{{ f() }}{% endfor %}", "[1][2]", "[][]"),
    (
        "{% macro g() %}<{{ m }}>{% endmacro %}{% macro f() %}{{ g() }}{% endmacro %}"
        "{% for m in [1, 2] %}{{ f() }}{% endfor %}",
        "<1><2>",
        "<><>",
    ),
    ("{% set x = 1 %}{% macro f() %}{{ x }}{% endmacro %}{% set x = 2 %}{{ f() }}", "2", "2"),
    # lexer.h escape_chars: \n \t \r \b \f \v \\ \' \" only; numbers are digits[.digits]
    ('{{ "caf\\u00e9" }}', TemplateSyntaxError, "café"),
    ('{{ "a\\tb\\\\c\\"" }}', 'a\tb\\c"', 'a\tb\\c"'),
    ("{{ 1e3 }}", TemplateSyntaxError, "1000.0"),
]


@pytest.mark.parametrize("text,llama,hf", DIFFERENCES, ids=[d[0][:40] for d in DIFFERENCES])
def test_dialect_difference(text: str, llama: object, hf: object) -> None:
    for dialect, want in (("llama.cpp", llama), ("transformers", hf)):
        if isinstance(want, str):
            assert r(text, dialect) == want, dialect
        else:
            with pytest.raises(want):  # type: ignore[call-overload]
                r(text, dialect)


def test_tojson_formatting_matches_llama_cpp() -> None:
    # value.cpp tojson: ", " and ": " without indent, "," with indent; keys keep their order
    assert r("{{ {'b': 1, 'a': [1, 2]} | tojson }}") == '{"b": 1, "a": [1, 2]}'
    assert r("{{ {'b': [1]} | tojson(indent=2) }}") == '{\n  "b": [\n    1\n  ]\n}'
    assert r("{{ ['é'] | tojson }}{{ ['é'] | tojson(ensure_ascii=true) }}") == '["é"]["\\u00e9"]'
    assert r("{{ {'a': 1} | tojson(separators=(',', ':')) }}") == '{"a":1}'


def test_transformers_tojson_is_json_dumps() -> None:
    assert r("{{ {'b': 1, 'a': 'é'} | tojson }}", "transformers") == '{"b": 1, "a": "é"}'


# --- errors quote the template line and the template's message ---------------------------


def test_raise_exception_keeps_the_template_message_and_line() -> None:
    text = "line one\n{% if messages %}\n{{ raise_exception('Only user roles are supported!') }}\n{% endif %}"
    with pytest.raises(TemplateRaisedError) as err:
        r(text)
    assert "Only user roles are supported!" in err.value.message
    assert err.value.location is not None and err.value.location.line == 3
    assert "raise_exception('Only user roles" in (err.value.location.source_line or "")
    assert "line 3" in str(err.value)


def test_syntax_error_quotes_the_line() -> None:
    with pytest.raises(TemplateSyntaxError) as err:
        compile_template("ok\n{% if x %}\n{{ x }\n{% endif %}")
    assert err.value.location is not None and err.value.location.line == 3
    assert "{{ x }" in str(err.value)


def test_runtime_error_quotes_the_line() -> None:
    with pytest.raises(TemplateRuntimeError) as err:
        r("a\nb\n{{ messages | unknown_filter }}")
    assert err.value.location is not None and err.value.location.line == 3
    assert "unknown_filter" in str(err.value)


# --- compile once, render many; inputs untouched -----------------------------------------


def test_compiled_template_is_reusable_and_inputs_are_not_mutated() -> None:
    tmpl = compile_template("{% set _ = messages.append({'role': 'x'}) %}{{ messages | length }}")
    messages = [{"role": "user", "content": "a"}]
    assert render(tmpl, RenderInputs(messages=messages)) == "2"
    assert render(tmpl, RenderInputs(messages=messages)) == "2"
    assert messages == [{"role": "user", "content": "a"}]
    assert tmpl.dialect == "llama.cpp" and len(tmpl.sha256) == 64 and tmpl.source.startswith("{% set")


def test_unknown_dialect_is_rejected() -> None:
    with pytest.raises(ValueError):
        compile_template("x", "mustache")  # type: ignore[arg-type]


def test_a_runaway_render_does_not_block_another_thread() -> None:
    hostile = compile_template("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}")
    quick = compile_template("{{ messages[0].content }}")
    errors: list[Exception] = []

    def run_hostile() -> None:
        try:
            render(hostile, RenderInputs(), limits=RenderLimits(wall_seconds=1.0))
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    worker = threading.Thread(target=run_hostile)
    worker.start()
    for _ in range(20):
        assert render(quick, RenderInputs(messages=USER)) == "Hi"
    worker.join()
    assert errors and type(errors[0]).__name__ == "RenderLimitError"
