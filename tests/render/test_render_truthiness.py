"""A llama.cpp Function (macro, global function, built-in method) has no truth value.

Expected behaviour comes from llama.cpp's common/jinja sources (commit 0c1e5709):

- value.h ``value_func_t`` overrides neither ``as_bool`` nor ``get_builtins``, so the base
  ``value_t::as_bool`` throws ``type() + " is not a bool value"`` = "Function is not a bool
  value" and ``value_t::get_builtins`` throws "Function has no builtins".
- runtime.cpp ``macro_statement::execute_impl`` stores a macro as ``value_func``;
  ``identifier::execute_impl`` returns a ``value_func`` for a name of ``global_builtins()``
  (raise_exception, dict, namespace, strftime_now, range, tojson, ...).
- runtime.cpp calls ``as_bool`` in ``if_statement``, ``binary_expression`` (``and``/``or``),
  ``unary_expression`` (``not``), ``ternary_expression``, a ``for`` loop's filter, and a negated
  ``test_expression``; ``test_is_defined`` / ``test_is_none`` only look at the type.
- ``apply_filter`` -> ``try_builtin_func`` -> ``get_builtins``: any filter on a Function raises,
  ``default`` included; so does ``member_expression`` (``f.x``, ``f['x']``).
- ``value_func_t::equivalent`` compares ``std::function::target<func_hptr>()``, null for every
  stored lambda, so two functions are always equal.

The transformers dialect keeps jinja2's semantics (a function is true).
"""

from __future__ import annotations

import pytest

from explorer.errors import TemplateRaisedError, TemplateRuntimeError
from explorer.render import RenderInputs, compile_template, render

MACRO = "{% macro m() %}body{% endmacro %}"
NOT_BOOL = "Function is not a bool value"


def r(text: str, dialect: str = "llama.cpp") -> str:
    return render(compile_template(text, dialect), RenderInputs(messages=[{"role": "user", "content": "Hi"}]))


def error(text: str) -> TemplateRuntimeError:
    with pytest.raises(TemplateRuntimeError) as err:
        r(text)
    return err.value


# as_bool callers in runtime.cpp / runtime.h: if_statement, unary not, binary and/or,
# ternary_expression, the for-loop filter (`for x in xs if cond`)
CONDITIONS = [
    "{% if m %}y{% endif %}",
    "{% if not m %}y{% endif %}",
    "{{ not m }}",
    "{{ m and 1 }}",
    "{{ m or 1 }}",
    "{{ 1 if m else 2 }}",
    "{% for x in [1, 2] if m %}{{ x }}{% endfor %}",
    "{% if 1 and m %}y{% endif %}",
]


@pytest.mark.parametrize("cond", CONDITIONS)
def test_macro_as_a_truth_value_raises(cond: str) -> None:
    assert NOT_BOOL in str(error(MACRO + cond))


@pytest.mark.parametrize("cond", CONDITIONS)
def test_macro_is_true_in_transformers(cond: str) -> None:
    r(MACRO + cond, "transformers")  # jinja2: a Macro object is true, nothing raises


def test_elif_on_a_macro_raises() -> None:
    assert NOT_BOOL in str(error(MACRO + "{% if false %}a{% elif m %}b{% endif %}"))
    assert r(MACRO + "{% if false %}a{% elif m %}b{% endif %}", "transformers") == "b"


def test_short_circuit_never_asks_the_macro() -> None:
    # binary_expression: `and` only tests the left side; the right one is returned as is
    assert r(MACRO + "{% if false and m %}y{% else %}n{% endif %}") == "n"
    assert r(MACRO + "{% if true or m %}y{% endif %}") == "y"
    assert r(MACRO + "{{ (1 and m) is callable }}") == "True"


def test_error_names_the_template_line() -> None:
    err = error(MACRO + "\nline two\n{% if m %}x{% endif %}")
    assert err.location is not None and err.location.line == 3
    assert err.location.source_line == "{% if m %}x{% endif %}"


@pytest.mark.parametrize("name", ["raise_exception", "range", "namespace", "dict", "tojson", "strftime_now"])
def test_global_function_as_a_truth_value_raises(name: str) -> None:
    # identifier::execute_impl: a global_builtins() name evaluates to a value_func
    assert NOT_BOOL in str(error("{% if " + name + " %}y{% endif %}"))
    assert NOT_BOOL in str(error("{{ 1 if " + name + " else 2 }}"))
    # transformers: jinja2's globals are true; `tojson` is only a filter there (undefined: false)
    assert r("{% if " + name + " %}y{% endif %}", "transformers") == ("" if name == "tojson" else "y")


def test_raise_exception_as_a_truth_value_is_not_the_template_raising() -> None:
    err = error("{% if raise_exception %}{% endif %}")
    assert not isinstance(err, TemplateRaisedError)


def test_caller_of_a_call_block_is_a_function() -> None:
    # call_statement::execute_impl passes `caller` as a value_func as well
    text = "{% macro c() %}{% if caller %}y{% endif %}{% endmacro %}{% call c() %}hi{% endcall %}"
    assert NOT_BOOL in str(error(text))
    assert r(text, "transformers") == "y"


@pytest.mark.parametrize("text, expected", [
    (MACRO + "{{ m is defined }}", "True"),  # test_is_defined: !is_undefined()
    ("{{ raise_exception is defined }}", "True"),
    ("{{ range is defined }}", "True"),
    (MACRO + "{{ m is undefined }}", "False"),
    (MACRO + "{{ m is none }}", "False"),  # test_is_none: is_val<value_none>
    (MACRO + "{{ m is not none }}", "True"),  # negate: as_bool on the test's Boolean result
    (MACRO + "{{ m is callable }}", "True"),  # test_is_callable: is_val<value_func>
    ("{{ strftime_now is callable }}", "True"),
    (MACRO + "{{ m is string }}", "False"),
    (MACRO + "[{{ m }}]", "[]"),  # gather_string_parts_recursive skips functions
    ("[{{ raise_exception }}]", "[]"),
    (MACRO + "{{ m() }}", "body"),
])
def test_uses_that_do_not_ask_for_a_truth_value(text: str, expected: str) -> None:
    assert r(text) == expected


@pytest.mark.parametrize("text, expected", [
    (MACRO + "{{ m is defined }}", "True"),
    ("{{ raise_exception is defined }}", "True"),
    (MACRO + "{{ m is none }}", "False"),
])
def test_same_tests_in_transformers(text: str, expected: str) -> None:
    assert r(text, "transformers") == expected


@pytest.mark.parametrize("text", [
    MACRO + "{{ m | default('x') }}",  # apply_filter -> try_builtin_func -> get_builtins throws
    MACRO + "{{ m | length }}",
    MACRO + "{{ m | tojson }}",
    MACRO + "{{ m | string }}",
    "{{ raise_exception | default('x') }}",
    MACRO + "{{ m.name }}",  # member_expression: try_builtin_func(prop, object)
    MACRO + "{{ m['name'] }}",
    "{{ range.start }}",
])
def test_filters_and_members_of_a_function_raise(text: str) -> None:
    assert "Function has no builtins" in str(error(text))


def test_function_item_with_a_non_string_key() -> None:
    assert "Cannot access property with non-string: got Integer" in str(error(MACRO + "{{ m[0] }}"))


def test_string_filter_coercion_of_a_function_raises() -> None:
    # apply_filter coerces the input of `lower` etc. with as_string(): value_t's throws
    assert "Function is not a string value" in str(error(MACRO + "{{ m | lower }}"))


def test_default_on_undefined_still_works() -> None:
    assert r("{{ missing | default('x') }}") == "x"


@pytest.mark.parametrize("text, expected", [
    (MACRO + "{{ m == m }}", "True"),
    # llama.cpp quirk: value_func_t::equivalent's target<func_hptr>() is null for lambdas
    (MACRO + "{{ m == raise_exception }}", "True"),
    ("{% macro a() %}{% endmacro %}{% macro b() %}{% endmacro %}{{ a == b }}", "True"),
    (MACRO + "{{ m != range }}", "False"),
    (MACRO + "{{ m == 1 }}", "False"),
    (MACRO + "{{ 'm' == m }}", "False"),
])
def test_function_equality(text: str, expected: str) -> None:
    assert r(text) == expected


def test_function_equality_in_transformers_is_identity() -> None:
    assert r(MACRO + "{{ m == raise_exception }}", "transformers") == "False"


def test_builtin_method_still_raises() -> None:
    assert NOT_BOOL in str(error("{% set d = {'a': 1} %}{% if d.items %}y{% endif %}"))
    assert NOT_BOOL in str(error("{% set d = {'a': 1} %}{% if d['keys'] %}y{% endif %}"))
    assert r("{% set d = {'a': 1} %}{% if d.items %}y{% endif %}", "transformers") == "y"


def test_globals_and_macros_still_work_when_called() -> None:
    assert r("{{ range(3) | length }}|{{ namespace(a=1).a }}|{{ dict(b=2).b }}|{{ tojson([1]) }}") == "3|1|2|[1]"
    assert r("{{ strftime_now('%Y') }}") == "2026"
    text = "{% macro c(x) %}<{{ caller() }}{{ x }}>{% endmacro %}{% call c(1) %}hi{% endcall %}"
    assert r(text) == "<hi1>"
    with pytest.raises(TemplateRaisedError, match="boom"):
        r("{{ raise_exception('boom') }}")


def test_macro_truthiness_does_not_leak_into_transformers_compiles() -> None:
    # the same source compiled for both dialects: each keeps its own semantics
    text = MACRO + "{% if m %}y{% endif %}"
    assert NOT_BOOL in str(error(text))
    assert r(text, "transformers") == "y"
    assert NOT_BOOL in str(error(text))


@pytest.mark.parametrize("text, expected", [
    # global_builtins() holds the tests as "test_is_<name>" functions, and identifiers reach them
    ("{{ test_is_string('a') }}", "True"),
    ("{{ test_is_string(1) }}", "False"),
    ("{{ test_is_divisibleby(9, 3) }}", "True"),
    ("{{ test_is_in('b', 'abc') }}", "True"),
    ("{{ test_is_defined is callable }}", "True"),
])
def test_tests_are_global_functions(text: str, expected: str) -> None:
    assert r(text) == expected


def test_tests_are_not_globals_in_transformers() -> None:
    assert r("{{ test_is_string is defined }}", "transformers") == "False"


def test_a_test_function_has_no_truth_value() -> None:
    assert NOT_BOOL in str(error("{% if test_is_none %}y{% endif %}"))
    assert r("{% if test_is_none %}y{% endif %}", "transformers") == ""
