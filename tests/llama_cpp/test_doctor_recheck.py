"""The doctor's fixes re-checked on the real build (``explorer.doctor.llama_cpp_check``).

A fix is the doctor's JSON (``Fix.to_json()``): a request change re-runs the round trip under
the changed request, a template edit re-reads and re-runs the patched template, on the
build; an analysis override is the port's own and is not re-checked.
"""

from __future__ import annotations

from collections.abc import Mapping

from explorer.doctor.llama_cpp_check import llama_cpp_section
from explorer.llama_cpp.driver import LlamaCppDriver
from explorer.session import open_session
from explorer.sources.examples import from_example

TEXT = from_example("chatml-think-tools").text


def test_a_request_change_and_a_template_edit_are_rechecked(llama_cpp: LlamaCppDriver) -> None:
    session = open_session(TEXT)
    fixes: list[Mapping[str, object]] = [
        {"kind": "request-change", "summary": "send enable_thinking false",
         "request_change": {"chat_template_kwargs": {"enable_thinking": False}}},
        {"kind": "template-edit", "summary": "a newline after each turn",
         "patched_template": TEXT.replace("<|im_end|>", "<|im_end|>\n")},
        {"kind": "analysis-override", "summary": "set a field", "set": ["tools.format.per_call_start=\"<x>\""]},
    ]
    section = llama_cpp_section(session, fixes, llama_cpp)
    assert [f.kind for f in section.fixes] == ["request-change", "template-edit"]
    for fix in section.fixes:
        assert fix.holds, fix.to_json()
        assert all(c.what.startswith(("round trip", "analysis")) for c in fix.checks)
    assert section.headline().endswith("2 of 2 re-checked fixes hold there")


def test_a_fix_that_cannot_be_rechecked_says_why(llama_cpp: LlamaCppDriver) -> None:
    section = llama_cpp_section(open_session(TEXT), [
        {"kind": "template-edit", "summary": "broken", "patched_template": "{% if %}"},
        {"kind": "request-change", "summary": "odd", "request_change": {"unknown_field": 1}}], llama_cpp)
    assert [f.holds for f in section.fixes] == [False, False]
    assert "syntax" in section.fixes[0].error.lower() and "unknown field" in section.fixes[1].error
    assert "not re-checked" in section.to_text()
