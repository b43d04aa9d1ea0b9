"""Output provenance on templates written here, in both dialects.

Each render with provenance must return ``render``'s exact text (or its exact error) and
spans that cover the text, each naming the template line and expression that wrote it.
"""

from __future__ import annotations

import json

import pytest

from explorer.errors import ExplorerError, RenderLimitError, TemplateRaisedError
from explorer.render import (
    OutputSpan,
    RenderedText,
    RenderInputs,
    RenderLimits,
    compile_template,
    render,
    render_with_provenance,
)
from explorer.render.jinja_compat import environment
from oracle_data import HOSTILE_DIR

DIALECTS = ("llama.cpp", "transformers")
USERS = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Yo"}]


def prov(text: str, dialect: str, **inputs: object) -> RenderedText:
    """Render with provenance, checking the invariants every render must keep."""
    inputs.setdefault("messages", USERS)
    tmpl = compile_template(text, dialect)  # type: ignore[arg-type]
    plain = render(tmpl, RenderInputs(**inputs))  # type: ignore[arg-type]
    out = render_with_provenance(tmpl, RenderInputs(**inputs))  # type: ignore[arg-type]
    assert out.text == plain
    pos = 0
    for span in out.spans:
        assert span.start == pos < span.end
        assert span.kind != "unknown"
        pos = span.end
    assert pos == len(out.text)
    return out


def pieces(out: RenderedText) -> list[tuple[str, int | None, str | None]]:
    """(text, line, expression) of each span."""
    return [(out.text[s.start:s.end], s.line, s.expression) for s in out.spans]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_literal_text_is_split_at_its_lines(dialect: str) -> None:
    out = prov("Hello\nbig\nworld", dialect)
    assert pieces(out) == [("Hello\n", 1, None), ("big\n", 2, None), ("world", 3, None)]
    assert {s.kind for s in out.spans} == {"text"}


@pytest.mark.parametrize("dialect", DIALECTS)
def test_expressions_name_their_source_text(dialect: str) -> None:
    out = prov("<s>{{ messages[0].content }}</s>\n{{-\n  'x' ~ messages[1].role\n}}!", dialect)
    assert pieces(out) == [
        ("<s>", 1, None), ("Hi", 1, "messages[0].content"), ("</s>", 1, None),
        ("xassistant", 2, "'x' ~ messages[1].role"), ("!", 4, None),
    ]
    assert [s.kind for s in out.spans] == ["text", "expression", "text", "expression", "text"]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_constant_expressions_are_their_own_piece(dialect: str) -> None:
    # jinja2 folds `{{ 'b' }}` into the literal text around it; provenance keeps it apart
    out = prov("a{{ 'b' }}c", dialect)
    assert pieces(out) == [("a", 1, None), ("b", 1, "'b'"), ("c", 1, None)]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_loop_output_is_the_body_line_each_time(dialect: str) -> None:
    text = "{% for m in messages %}\n<|{{ m.role }}|>\n{{ m.content }}\n{% endfor %}"
    out = prov(text, dialect)
    assert pieces(out) == [
        ("<|", 2, None), ("user", 2, "m.role"), ("|>\n", 2, None), ("Hi", 3, "m.content"), ("\n", 3, None),
        ("<|", 2, None), ("assistant", 2, "m.role"), ("|>\n", 2, None), ("Yo", 3, "m.content"), ("\n", 3, None),
    ]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_whitespace_control_keeps_exact_lines(dialect: str) -> None:
    text = ("{%- for m in messages -%}\n"
            "   {%- if m.role == 'user' -%}\n"
            "      [U]{{- m.content -}}   \n"
            "   {%- else %}\n"
            "  [A] {{ m.content }}\n"
            "   {%- endif %}\n"
            "{%- endfor %}")
    out = prov(text, dialect)
    assert out.text == "[U]Hi  [A] Yo"
    assert pieces(out) == [("[U]", 3, None), ("Hi", 3, "m.content"), ("  [A] ", 5, None), ("Yo", 5, "m.content")]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_macro_text_names_the_macro_body_and_the_call(dialect: str) -> None:
    text = ("{%- macro tag(name, body) -%}\n"
            "<{{ name }}>\n"
            "{{- body -}}\n"
            "</{{ name }}>\n"
            "{%- endmacro -%}\n"
            "{{ tag('tool_call', messages[0].content) }}")
    out = prov(text, dialect)
    assert out.text == "<tool_call>Hi</tool_call>"
    assert pieces(out) == [("<", 2, None), ("tool_call", 2, "name"), (">", 2, None), ("Hi", 3, "body"),
                           ("</", 4, None), ("tool_call", 4, "name"), (">", 4, None)]
    call = "tag('tool_call', messages[0].content)"
    assert all([(p.line, p.expression) for p in s.via] == [(6, call)] for s in out.spans)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_nested_macros_list_every_call_on_the_way_out(dialect: str) -> None:
    text = ("{% macro inner() %}[in]{% endmacro %}\n"
            "{% macro outer() %}<{{ inner() }}>{% endmacro %}\n"
            "{{ outer() }}")
    out = prov(text, dialect)
    inner = next(s for s in out.spans if out.text[s.start:s.end] == "[in]")
    assert inner.line == 1 and [(p.line, p.expression) for p in inner.via] == [(3, "outer()"), (2, "inner()")]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_string_built_by_set_is_attributed_to_the_output_line(dialect: str) -> None:
    text = ("{% set opener = '<|' ~ messages[0].role ~ '|>' %}\n"
            "{% set ns = namespace(acc='') %}{% for m in messages %}{% set ns.acc = ns.acc + m.content %}{% endfor %}\n"
            "{{ opener }}{{ ns.acc }}")
    out = prov(text, dialect)
    assert pieces(out) == [("<|user|>", 3, "opener"), ("HiYo", 3, "ns.acc")]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_macro_result_kept_in_a_variable_keeps_the_macro_lines(dialect: str) -> None:
    text = "{% macro m() %}<m>{% endmacro %}\n{% set kept = m() %}\n{{ kept }}|{{ m() | trim }}"
    out = prov(text, dialect)
    assert pieces(out) == [("<m>", 1, None), ("|", 3, None), ("<m>", 3, "m() | trim")]
    assert [(p.line, p.expression) for p in out.spans[0].via] == [(3, "kept")]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_set_blocks_keep_the_lines_of_their_body(dialect: str) -> None:
    text = "{% set block %}\n<a>\n{{ messages[0].content }}\n{% endset %}\n{{ block }}{% set up | upper %}x{% endset %}{{ up }}"
    out = prov(text, dialect)
    assert pieces(out) == [("<a>\n", 2, None), ("Hi", 3, "messages[0].content"), ("\n", 3, None),
                           ("X", 5, "up")]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_filter_chain_is_one_expression(dialect: str) -> None:
    out = prov("{{ (messages | map(attribute='content') | join(', ')) | upper | replace('Y', 'y') }}", dialect)
    assert pieces(out) == [("HI, yO", 1, "(messages | map(attribute='content') | join(', ')) | upper | replace('Y', 'y')")]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_call_blocks_and_filter_blocks(dialect: str) -> None:
    text = ("{% macro box() %}[{{ caller() }}]{% endmacro %}\n"
            "{% call box() %}in{{ messages[0].content }}{% endcall %}\n"
            "{% filter upper %}lo{% endfilter %}")
    out = prov(text, dialect)
    # trim_blocks eats the newline after each block tag
    assert pieces(out) == [("[", 1, None), ("in", 2, None), ("Hi", 2, "messages[0].content"), ("]", 1, None),
                           ("LO", 3, "filter upper")]
    assert [(p.kind, p.expression) for p in out.spans[1].via] == [("call", "call box()"), ("expression", "caller()")]
    assert [p.kind for p in out.spans[0].via] == ["call"]
    assert out.spans[-1].kind == "filter"


def test_transformers_only_constructs() -> None:
    text = ("{% for item in [{'n': 1, 'kids': [{'n': 2, 'kids': []}]}] recursive %}({{ item.n }}{{ loop(item.kids) }}){% endfor %}"
            "{% autoescape true %}{{ '<b>' }}{% endautoescape %}{% block b %}[block]{% endblock %}{% raw %}{{ raw }}{% endraw %}")
    out = prov(text, "transformers")
    assert out.text == "(1(2))&lt;b&gt;[block]{{ raw }}"
    assert [out.text[s.start:s.end] for s in out.spans if s.expression == "item.n"] == ["1", "2"]


def test_lookup_by_offset_and_json() -> None:
    out = prov("ab\n{{ messages[0].content }}cd", "llama.cpp")
    assert out.span_at(0) == out.span_at(2) == OutputSpan(0, 3, 1, "text")
    assert out.span_at(4).expression == "messages[0].content"
    with pytest.raises(IndexError):
        out.span_at(len(out.text))
    assert [(s.start, s.end, s.line) for s in out.spans_between(1, 4)] == [(1, 3, 1), (3, 4, 2)]
    assert out.spans_between(4, 4) == ()
    assert out.lines() == (1, 2)
    assert json.loads(json.dumps(out.to_json()))["spans"][1] == {
        "start": 3, "end": 5, "line": 2, "kind": "expression", "expression": "messages[0].content"}


# --- the normal path is untouched ---------------------------------------------------------


def test_render_never_builds_the_provenance_variant() -> None:
    tmpl = compile_template("{{ messages[0].content }} never asked: normal path", "llama.cpp")
    render(tmpl, RenderInputs(messages=USERS))
    assert "provenance" not in tmpl._variants
    for dialect in DIALECTS:
        assert not hasattr(environment(dialect), "jx_piece")
        code = environment(dialect).compile("a{{ x }}{% macro m() %}b{% endmacro %}", raw=True)
        assert "jx_piece" not in code and "jx_join" not in code
    render_with_provenance(tmpl, RenderInputs(messages=USERS))
    assert tmpl.provenance_template() is tmpl._variants["provenance"]


# --- budgets and errors, as render() -------------------------------------------------------


def _outcome(fn: object, tmpl: object, inputs: RenderInputs, limits: RenderLimits) -> tuple[object, ...]:
    try:
        out = fn(tmpl, inputs, limits=limits)  # type: ignore[operator]
    except ExplorerError as exc:
        return type(exc), exc.message, exc.location
    return ("text", out if isinstance(out, str) else out.text)


def test_errors_are_render_errors() -> None:
    text = "line one\n{{ raise_exception('no ' ~ messages[0].role) }}"
    tmpl = compile_template(text)
    with pytest.raises(TemplateRaisedError) as err:
        render_with_provenance(tmpl, RenderInputs(messages=USERS))
    assert err.value.location is not None and err.value.location.line == 2
    assert _outcome(render, tmpl, RenderInputs(messages=USERS), RenderLimits()) == \
        _outcome(render_with_provenance, tmpl, RenderInputs(messages=USERS), RenderLimits())


@pytest.mark.parametrize("dialect", DIALECTS)
def test_the_output_cap_is_the_same(dialect: str) -> None:
    tmpl = compile_template("{% for i in range(100) %}\n0123456789{{ i }}\n{% endfor %}", dialect)  # type: ignore[arg-type]
    limits = RenderLimits(max_output_chars=500)
    got = _outcome(render_with_provenance, tmpl, RenderInputs(), limits)
    assert got[0] is RenderLimitError and got == _outcome(render, tmpl, RenderInputs(), limits)


HOSTILE_LIMITS = RenderLimits(wall_seconds=0.3, max_output_chars=1_000_000, max_total_chars=20_000_000)
SLOWER_LIMITS = RenderLimits(wall_seconds=3.0, max_output_chars=1_000_000, max_total_chars=20_000_000)


def _compiling(dialect: str) -> list[str]:
    """The hostile templates that compile in ``dialect`` (the others fail before any render,
    the same way for both renderers, as test_errors_are_render_errors covers)."""
    names = []
    for path in sorted(HOSTILE_DIR.glob("*.jinja")):
        try:
            compile_template(path.read_text(encoding="utf-8"), dialect)  # type: ignore[arg-type]
        except ExplorerError:
            continue
        names.append(path.name)
    return names


@pytest.mark.parametrize(("name", "dialect"), [(n, d) for d in DIALECTS for n in _compiling(d)])
def test_hostile_templates_fail_as_in_render(name: str, dialect: str) -> None:
    tmpl = compile_template((HOSTILE_DIR / name).read_text(encoding="utf-8"), dialect)  # type: ignore[arg-type]
    want = _outcome(render, tmpl, RenderInputs(), HOSTILE_LIMITS)
    if want[0] is RenderLimitError and "budget" in str(want[1]):
        got = _outcome(render_with_provenance, tmpl, RenderInputs(), HOSTILE_LIMITS)
        assert got[:2] == want[:2]  # a time-out stops wherever the clock runs out
    else:
        # more time, so that the slower variant on a loaded machine meets the same cause
        got = _outcome(render_with_provenance, tmpl, RenderInputs(), SLOWER_LIMITS)
        assert got == want
