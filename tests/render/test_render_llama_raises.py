"""Where llama.cpp's Jinja raises and jinja2 does not: membership, truth of a Function, chains.

Expected behaviour and messages come from llama.cpp's common/jinja/runtime.cpp
(``binary_expression::execute_impl``: the undefined/null checks before ``in``, the array
branch that only knows ``+``, the closing "Unknown operator" error; ``parse_comparison_expression``
folding comparisons left to right) and value.h (``value_t::as_bool`` throwing
"<type> is not a bool value" for a Function). The transformers dialect keeps jinja2's answers.
"""

from __future__ import annotations

import pytest

from explorer.errors import RenderLimitError, TemplateRuntimeError
from explorer.render import RenderInputs, compile_template, render
from oracle_data import load_oracle_template, requires_oracle


def r(text: str, dialect: str = "llama.cpp", **inputs: object) -> str:
    inputs.setdefault("messages", [{"role": "user", "content": "Hi"}])
    return render(compile_template(text, dialect), RenderInputs(**inputs))  # type: ignore[arg-type]


def raises(text: str, **inputs: object) -> str:
    with pytest.raises(TemplateRuntimeError) as err:
        r(text, **inputs)
    return str(err.value)


# --- `in` / `not in` ---------------------------------------------------------------------


@pytest.mark.parametrize("text, message", [
    ("{{ ['a'] in [['a'], 'b'] }}", 'Unknown operator "in" between Array and Array'),
    ("{{ ['a'] not in ['b'] }}", 'Unknown operator "not in" between Array and Array'),
    ("{{ [] in (1,) }}", 'Unknown operator "in" between Array and Tuple'),  # a tuple is an array there
])
def test_array_in_array_raises(text: str, message: str) -> None:
    assert message in raises(text)
    assert r(text, "transformers") in ("True", "False")


@pytest.mark.parametrize("text, op", [("{{ x in ['a'] }}", "in"), ("{{ x not in ('a', 'b') }}", "not in"),
                                      ("{{ x in {'a': 1} }}", "in"), ("{{ x in 'abc' }}", "in")])
def test_undefined_left_of_in_raises(text: str, op: str) -> None:
    assert f"Cannot perform operation {op} on undefined values" in raises(text)


def test_undefined_right_of_in_is_false() -> None:
    assert r("{{ 'a' in x }}|{{ 'a' not in x }}|{{ y in x }}") == "False|True|False"


def test_none_operands() -> None:
    assert "Cannot perform operation on null values" in raises("{{ 'a' in none }}")
    assert r("{{ none in [none, 1] }}|{{ none in {'a': 1} }}") == "True|False"
    # a null needle goes straight to the `in` test, which wants a string in a string
    assert "got args[1] as None" in raises("{{ none in 'abc' }}")


def test_in_needs_a_container_or_two_strings() -> None:
    assert 'Unknown operator "in" between Integer and String' in raises("{{ 1 in 'abc' }}")
    assert 'Unknown operator "in" between String and Integer' in raises("{{ 'a' in 1 }}")
    assert r("{{ 'b' in 'abc' }}|{{ 'k' in {'k': 1} }}|{{ 2 in [1, 2] }}|{{ 'z' not in ['a'] }}") == "True|True|True|True"


def test_in_over_a_range_of_any_length() -> None:
    # range() gives an array in llama.cpp, however long (a long one stays lazy here)
    assert r("{{ 3 in range(5) }}|{{ 3 in range(20000) }}|{{ 30000 not in range(20000) }}") == "True|True|True"
    assert r("{{ range(3) == [0, 1, 2] }}") == "True"


def test_transformers_dialect_keeps_jinja2_membership() -> None:
    assert r("{{ x in ['a'] }}|{{ ['a'] in [['a']] }}", "transformers") == "False|True"


# --- a Function has no truth value -------------------------------------------------------


@pytest.mark.parametrize("text", [
    "{% if d['items'] %}y{% endif %}",
    "{{ 'y' if not d['keys'] }}",
    "{{ d['values'] and 1 }}",
    "{% if d.get %}y{% endif %}",
])
def test_builtin_method_in_a_condition_raises(text: str) -> None:
    assert "Function is not a bool value" in raises("{% set d = {'a': 1} %}" + text)
    r("{% set d = {'a': 1} %}" + text, "transformers")  # jinja2: a bound method is truthy


def test_key_named_like_a_method_is_a_plain_value() -> None:
    assert r("{% set d = {'items': [1]} %}{% if d['items'] %}y{% endif %}") == "y"
    assert r("{% set d = {'a': 1} %}{{ d['items'] is defined }}") == "True"


# --- chained comparisons fold left to right ---------------------------------------------


def test_chained_comparison_is_left_to_right() -> None:
    assert 'Unknown operator "<" between Boolean and Integer' in raises("{{ 1 < x < 3 }}", extra_context={"x": 2})
    assert r("{{ 1 < x < 3 }}", "transformers", extra_context={"x": 2}) == "True"
    # (True) == true, whereas jinja2 reads `'a' in 'abc' and 'abc' == true`
    assert r("{{ 'a' in 'abc' == true }}") == "True"
    assert r("{{ 'a' in 'abc' == true }}", "transformers") == "False"


# --- the corpus templates where these decide the outcome ---------------------------------


def _tool(prop: dict) -> list[dict]:
    params = {"type": "object", "properties": {"a": prop}, "required": ["a"]}
    return [{"type": "function", "function": {"name": "f", "description": "d", "parameters": params}}]


def _corpus(name: str, tools: list[dict], dialect: str = "llama.cpp") -> str:
    tmpl = compile_template(load_oracle_template(name), dialect)
    return render(tmpl, RenderInputs(messages=[{"role": "user", "content": "hi"}], tools=tools,
                                     add_generation_prompt=True))


@requires_oracle
def test_gigachat3_list_typed_parameter_raises_like_llama_cpp() -> None:
    tools = _tool({"type": ["string", "null"]})
    with pytest.raises(TemplateRuntimeError, match='Unknown operator "in" between Array and Array'):
        _corpus("GigaChat3-10B-A1.8B", tools)
    assert "developer system" in _corpus("GigaChat3-10B-A1.8B", tools, "transformers")
    assert _corpus("GigaChat3-10B-A1.8B", _tool({"type": "string"}))


@requires_oracle
def test_seed_oss_untyped_parameter_raises_like_llama_cpp() -> None:
    tools = _tool({"anyOf": [{"type": "string"}, {"type": "integer"}]})
    with pytest.raises(TemplateRuntimeError, match="Cannot perform operation in on undefined values"):
        _corpus("ByteDance-Seed-OSS", tools)
    assert _corpus("ByteDance-Seed-OSS", tools, "transformers")
    assert _corpus("ByteDance-Seed-OSS", _tool({"type": "string"}))


@requires_oracle
def test_gpt_oss_array_parameter_without_items_raises_like_llama_cpp() -> None:
    tools = _tool({"type": "array"})
    with pytest.raises(TemplateRuntimeError, match="Function is not a bool value"):
        _corpus("openai-gpt-oss-120b", tools)
    assert _corpus("openai-gpt-oss-120b", tools, "transformers")
    assert "string[]" in _corpus("openai-gpt-oss-120b", _tool({"type": "array", "items": {"type": "string"}}))


# --- numbers through double, string slices by bytes (runtime.cpp float operations; value.cpp slice) ---


def test_integer_arithmetic_goes_through_double() -> None:
    # 2**53 + 1 is not a double: llama.cpp computes in double and casts back to int64
    assert r("{{ 9007199254740992 + 1 }}|{{ 9007199254740993 - 0 }}|{{ 9007199254740993 * 1 }}") == (
        "9007199254740992|9007199254740992|9007199254740992")
    assert r("{{ 9007199254740992 + 1 }}", "transformers") == "9007199254740993"
    # outside int64 the C++ cast from double is undefined: reported, not guessed
    with pytest.raises(RenderLimitError, match="outside int64"):
        r("{{ 4294967296 * 4294967296 }}")
    assert r("{{ 4294967296 * 4294967296 }}", "transformers") == str(2**64)
    # small integers are unchanged and stay integers
    assert r("{{ 2 + 3 }}|{{ 2 - 7 }}|{{ 6 * 7 }}|{{ (2 + 3) is integer }}") == "5|-5|42|True"


def test_minus_needs_two_numbers() -> None:
    assert 'Unknown operator "-" between String and Integer' in raises("{{ 'a' - 1 }}")
    assert 'Unknown operator "-" between Boolean and Integer' in raises("{{ true - 1 }}")
    assert "Cannot perform operation - on undefined values" in raises("{{ x - 1 }}")
    assert "Cannot perform operation on null values" in raises("{{ none - 1 }}")
    assert r("{{ true - 1 }}", "transformers") == "0"


def test_string_slices_count_utf8_bytes() -> None:
    # 'é' is two bytes: [1:3] is exactly it, [0:2] cuts it in half
    assert r("{{ 'héllo'[1:3] }}|{{ 'héllo'[3:] }}|{{ 'hello'[1:3] }}|{{ 'abc'[::-1] }}") == "é|llo|el|cba"
    assert r("{{ 'héllo'[1:3] }}", "transformers") == "él"


# --- equality is value_t equivalence (value.h equivalent / is_hashable) -----------------


def test_arrays_and_objects_holding_containers_are_never_equal() -> None:
    assert r("{{ [[1]] == [[1]] }}|{{ [[1]] != [[1]] }}|{{ {'a': [1]} == {'a': [1]} }}") == "False|True|False"
    assert r("{{ [[1]] == [[1]] }}", "transformers") == "True"
    # flat ones, and tuples inside, compare by value
    assert r("{{ [1, 'a', none] == [1, 'a', none] }}|{{ [(1,)] == [(1,)] }}|{{ {'a': 1} == {'a': 1} }}") == (
        "True|True|True")


def test_object_equality_follows_key_order_and_arrays_never_equal_tuples() -> None:
    assert r("{{ {'a': 1, 'b': 2} == {'b': 2, 'a': 1} }}|{{ [1] == (1,) }}") == "False|False"
    assert r("{{ {'a': 1, 'b': 2} == {'b': 2, 'a': 1} }}", "transformers") == "True"


def test_scalar_equality() -> None:
    assert r("{{ 1 == 1.0 }}|{{ true == 1 }}|{{ '1' == 1 }}|{{ none == none }}|{{ x == y }}|{{ x == none }}") == (
        "True|True|False|True|True|False")


def test_message_with_tool_calls_is_not_equal_to_itself() -> None:
    # a template comparing messages (`message == messages[-1]`) sees False once one holds a list
    msgs = [{"role": "assistant", "content": "", "tool_calls": [{"id": "1"}]}, {"role": "user", "content": "u"}]
    assert r("{% for m in messages %}{{ m == messages[loop.index0] }} {% endfor %}", messages=msgs) == "False True "


def test_slices_of_variables_go_through_llama_cpp_bounds() -> None:
    # jinja2 slices a variable with Python's [] directly; the dialect routes it like a literal
    ctx = {"s": "héllo", "xs": [0, 1, 2]}
    assert r("{{ s[1:3] }}|{{ s[3:] }}", extra_context=ctx) == "é|llo"
    assert r("{{ s[1:3] }}", "transformers", extra_context=ctx) == "él"
    # value.cpp slice(): with a negative step an explicit stop of -1 means "through index 0"
    # and a start before the beginning is clamped to 0; Python gives empty results for both
    assert r("{{ xs[2:-1:-1] | join(',') }}|{{ xs[-9::-1] | join(',') }}|{{ xs[::-1] | join(',') }}",
             extra_context=ctx) == "2,1,0|0|2,1,0"
    assert r("{{ xs[2:-1:-1] | join(',') }}|{{ xs[-9::-1] | join(',') }}", "transformers", extra_context=ctx) == "|"
    assert "slice step cannot be zero" in raises("{{ xs[::0] }}", extra_context=ctx)
