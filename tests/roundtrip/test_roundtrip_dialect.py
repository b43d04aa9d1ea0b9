"""The round trip as the model was trained: replies rendered by transformers, parsed by llama.cpp.

The templates are our own, each built on one engine difference documented in
docs/jinja-differences.md (float formatting in ``tojson``, custom ``tojson`` separators,
``safe`` + str escaping, ``+`` with undefined, the immutable sandbox, unknown filters at
compile time). Expected replies are written from that document, not read off our output:
llama.cpp writes the float 2.0 as ``2`` and 3.14159265 as ``3.14159`` (C++ ``%g``), jinja2
as Python's ``json.dumps`` does; jinja2's ``Markup + str`` HTML-escapes the right side.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from cases import dialect_template
from explorer.errors import RequestError
from explorer.roundtrip import DEFAULT_MESSAGES, DEFAULT_TOOLS, roundtrip_report
from explorer.roundtrip.dialect import same_message
from explorer.sources import from_example

SET_TEMP = {"type": "function", "function": {
    "name": "set_temp", "description": "Set the temperature.",
    "parameters": {"type": "object", "properties": {"celsius": {"type": "number"}}, "required": ["celsius"]}}}
TOOLS = (SET_TEMP,)


def call(celsius: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": "", "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "set_temp", "arguments": {"celsius": celsius}}}]}


MESSAGES = (
    ("plain", {"role": "assistant", "content": "Done."}),
    ("two", call(2.0)),
    ("pi", call(3.14159265)),
    ("int", call(21)),
)


def reply(args: str) -> str:
    return '<tool_call>\n{"name": "set_temp", "arguments": ' + args + '}\n</tool_call>'


def report(text: str, *, thinking: bool = False, **kw: Any):
    kw.setdefault("messages", MESSAGES)
    kw.setdefault("tools", TOOLS)
    return roundtrip_report(text, enable_thinking=thinking, dialect="transformers", **kw)


def by_id(rep) -> dict[str, Any]:
    return {v.message_id: v for v in rep.versus}


def args_of(result: dict[str, Any] | None) -> list[str]:
    return [c["arguments"] for c in (result or {}).get("tool_calls", [])]


# --- float formatting in tojson (docs item 6) ----------------------------------------------


def test_float_arguments_reply_as_each_engine_writes_them() -> None:
    rep = report(dialect_template("tojson"))
    assert rep.dialect == "transformers"
    assert [c.message_id for c in rep.cases] == ["plain", "two", "pi", "int"]
    v = by_id(rep)
    assert v["two"].llama_reply == reply('{"celsius": 2}')
    assert v["two"].transformers_reply == reply('{"celsius": 2.0}')
    assert v["pi"].llama_reply == reply('{"celsius": 3.14159}')
    assert v["pi"].transformers_reply == reply('{"celsius": 3.14159265}')
    for same in ("plain", "int"):
        assert v[same].replies_equal is True and v[same].reply_diff == ()
    assert v["int"].transformers_reply == reply('{"celsius": 21}')


def test_float_arguments_parse_back() -> None:
    v = by_id(report(dialect_template("tojson")))
    # 2 and 2.0 are the same JSON value: both engines' replies parse to the message
    assert args_of(v["two"].llama.result) == ['{"celsius": 2}']
    assert args_of(v["two"].transformers.result) == ['{"celsius": 2.0}']
    assert v["two"].llama.equal and v["two"].transformers.equal
    assert v["two"].same_parse is True and v["two"].identical_parse is False
    # llama.cpp's %g loses digits: its own round trip is lossy, the trained reply is not
    assert v["pi"].llama.equal is False and v["pi"].llama.diff == ("tool_calls[0].arguments",)
    assert v["pi"].transformers.equal is True
    assert v["pi"].same_parse is False


def test_reply_diff_marks_only_the_differing_characters() -> None:
    v = by_id(report(dialect_template("tojson")))
    assert [op for op in v["two"].reply_diff if op[0] != 0] == [(1, ".0")]
    assert [op for op in v["pi"].reply_diff if op[0] != 0] == [(1, "265")]
    assert "".join(t for op, t in v["pi"].reply_diff if op <= 0) == v["pi"].llama_reply
    assert "".join(t for op, t in v["pi"].reply_diff if op >= 0) == v["pi"].transformers_reply


# --- custom tojson separators: honoured by both, floats still differ (docs item 6) ----------


def test_custom_separators_are_honoured_by_both_engines() -> None:
    v = by_id(report(dialect_template("compact")))
    assert v["int"].llama_reply == v["int"].transformers_reply == reply('{"celsius":21}')
    assert v["two"].llama_reply == reply('{"celsius":2}')
    assert v["two"].transformers_reply == reply('{"celsius":2.0}')
    assert v["two"].same_parse is True


# --- safe + str escapes in jinja2 (docs item 5) ---------------------------------------------


def test_markup_escaping_makes_the_trained_reply_unparseable() -> None:
    rep = report(dialect_template("safe"))
    v = by_id(rep)
    assert v["int"].llama_reply == reply('{"celsius": 21}')
    assert v["int"].transformers_reply == reply("{&#34;celsius&#34;: 21}")
    assert v["int"].llama.equal is True
    assert v["int"].transformers.result is None
    assert v["int"].transformers.exception["type"] == "std::runtime_error"
    assert v["int"].same_parse is False
    assert v["plain"].replies_equal is True and v["plain"].same_parse is True
    # llama.cpp's grammar for this request refuses what the model was trained to emit
    case = {c.message_id: c for c in rep.cases}["int"]
    rendered = [g for g in case.grammar if g.label == "rendered"]
    assert rendered and rendered[0].accepted is False


# --- + with undefined (docs item 2): transformers fails every render -------------------------


def test_string_plus_undefined_fails_every_transformers_render() -> None:
    text = dialect_template("tojson", extra="{{- '\\n' + functions }}")
    rep = report(text)
    assert all(c.render_exception is not None and c.render_exception["type"] == "TemplateRuntimeError"
               and "'functions' is undefined" in c.render_exception["message"] for c in rep.cases)
    assert any("next-turn prompt" in n and "'functions' is undefined" in n for n in rep.dialect_notes)
    v = by_id(rep)
    # llama.cpp reads `'\n' + undefined` as '\n' and renders every message
    assert v["int"].llama.rendering is not None and v["int"].llama.equal is True
    assert all(x.replies_equal is None and x.same_parse is None for x in rep.versus)


# --- the immutable sandbox (docs item 11): only the tool-call messages fail -----------------


def test_append_fails_only_where_the_template_appends() -> None:
    rep = report(dialect_template("append"))
    v = by_id(rep)
    explained = {c.message_id: c.explanation for c in rep.cases}
    assert explained["int"][0].startswith("transformers cannot render this message: sandbox violation")
    assert v["plain"].transformers.render_exception is None and v["plain"].replies_equal is True
    for mid in ("two", "pi", "int"):
        exc = v[mid].transformers.render_exception
        assert exc is not None and exc["type"] == "SandboxViolation" and "append" in exc["message"]
        assert v[mid].llama.render_exception is None and v[mid].replies_equal is None


# --- unknown filters (docs item 8): jinja2 refuses to compile ----------------------------------


def test_an_unknown_filter_only_jinja2_refuses_at_compile_time() -> None:
    # outside any `if`: jinja2 looks the filter up at compile time; llama.cpp never runs the
    # loop (documents is undefined)
    rep = report(dialect_template("tojson", prelude="{%- for doc in documents or [] %}{{- doc | shout }}{%- endfor %}"))
    assert any("cannot load the template" in n and "shout" in n for n in rep.dialect_notes)
    assert all(c.render_exception is not None and c.render_exception["type"] == "TemplateSyntaxError"
               for c in rep.cases)
    assert all(v.llama.render_exception is None for v in rep.versus)


# --- no difference where the engines agree ------------------------------------------------------


@pytest.mark.parametrize("thinking", [False, True])
def test_example_template_renders_the_same_replies_in_both_engines(thinking: bool) -> None:
    text = from_example("chatml-think-tools").text
    rep = roundtrip_report(text, enable_thinking=thinking, dialect="transformers", grammar=False)
    assert len(rep.versus) == len(DEFAULT_MESSAGES)
    assert all(v.replies_equal and v.same_parse and v.identical_parse for v in rep.versus)
    assert not rep.dialect_notes
    plain = roundtrip_report(text, enable_thinking=thinking, grammar=False)
    assert [c.to_json() for c in rep.cases] == [c.to_json() for c in plain.cases]


# --- llama.cpp's report is unchanged --------------------------------------------------------------


def test_the_llama_cpp_report_keeps_its_shape() -> None:
    text = dialect_template("tojson")
    default = roundtrip_report(text, enable_thinking=False, messages=MESSAGES, tools=TOOLS)
    explicit = roundtrip_report(text, enable_thinking=False, messages=MESSAGES, tools=TOOLS, dialect="llama.cpp")
    assert default.dialect == "llama.cpp" and default.versus == () and default.dialect_notes == ()
    assert json.dumps(default.to_json()) == json.dumps(explicit.to_json())
    assert "dialect" not in default.to_json() and "versus" not in default.to_json()
    # the llama.cpp side of the comparison is llama.cpp's own round trip (grammar verdicts aside)
    trained = report(text)
    ours = [{**c.to_json(), "grammar": []} for c in default.cases]
    theirs = [{**v.llama.to_json(), "grammar": []} for v in trained.versus]
    for a, b in zip(ours, theirs):
        a.pop("grammar_rejects_own_output"), b.pop("grammar_rejects_own_output")
        a.pop("grammar_checker_disagrees"), b.pop("grammar_checker_disagrees")
    assert ours == theirs


def test_the_transformers_report_serialises_its_comparison() -> None:
    data = report(dialect_template("tojson"), grammar=False).to_json()
    assert data["dialect"] == "transformers"
    two = next(v for v in data["versus"] if v["id"] == "two")
    assert two["replies_equal"] is False and two["same_parse"] is True
    assert two["transformers_reply"] == reply('{"celsius": 2.0}')
    assert [1, ".0"] in two["reply_diff"]
    json.dumps(data)


def test_an_unknown_dialect_is_a_request_error() -> None:
    with pytest.raises(RequestError, match="unknown round-trip dialect 'jinja3'"):
        roundtrip_report(dialect_template(), enable_thinking=False, dialect="jinja3")


def test_same_message_compares_arguments_as_json_values() -> None:
    def result(args: str, content: str = "") -> dict[str, Any]:
        return {"content": content, "reasoning_content": "", "tool_calls": [{"name": "f", "arguments": args, "id": ""}]}

    assert same_message(result('{"x": 2}'), result('{"x":2.0}'))
    assert not same_message(result('{"x": 2}'), result('{"x": 3}'))
    assert not same_message(result('{"x": true}'), result('{"x": 1}'))
    assert not same_message(result("{not json"), result('{"x": 1}'))
    assert same_message(result("{not json"), result("{not json"))
    assert not same_message(result("{}", "a"), result("{}", "b"))


def test_default_tools_with_transformers() -> None:
    """The default messages (nested arguments, escapes, non-ASCII) through our float template."""
    rep = roundtrip_report(dialect_template("tojson"), enable_thinking=False, dialect="transformers", grammar=False,
                           tools=DEFAULT_TOOLS + TOOLS)
    assert all(v.replies_equal for v in rep.versus if v.replies_equal is not None)


def test_no_template_is_llama_cpps_chatml_but_nothing_for_transformers() -> None:
    rep = report("", messages=MESSAGES[:1])
    assert any("transformers cannot load the template" in n and "no chat template" in n for n in rep.dialect_notes)
    v = rep.versus[0]
    assert v.transformers.render_exception is not None and v.transformers.render_exception["type"] == "TemplateError"
    # llama.cpp renders with its built-in ChatML template
    assert v.llama_reply == "Done."
