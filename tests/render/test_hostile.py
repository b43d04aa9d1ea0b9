"""Hostile templates (tests/hostile/*.jinja) are stopped inside the budget, with a located error.

Each case names the error class, a phrase of the cause, and the template line the error
must quote. The budget is small (0.5 s); the slack absorbs a loaded 2-core machine.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator

import pytest

from explorer.errors import (
    ExplorerError,
    RenderLimitError,
    SandboxViolation,
    TemplateRaisedError,
    TemplateRuntimeError,
    TemplateSyntaxError,
)
from explorer.render import RenderInputs, RenderLimits, compile_template, render
from oracle_data import HOSTILE_DIR

HOSTILE = HOSTILE_DIR
BUDGET = RenderLimits(wall_seconds=0.5, max_output_chars=1_000_000, max_total_chars=20_000_000)
SLACK = 1.5


@pytest.fixture(autouse=True)
def _heap_out_of_the_collectors_sight() -> Iterator[None]:
    """These renders run in the test process, which holds every earlier test's objects;
    a full collection set off by a hostile template's allocations would walk them all and
    be timed as the template's. (The entry-point tests freeze the heap in their children.)"""
    gc.freeze()
    yield
    gc.unfreeze()

# file -> (error class, phrase in the message, template line quoted or None); the
# llama.cpp dialect unless the file is listed in TRANSFORMERS_ONLY.
CASES: dict[str, tuple[type[ExplorerError], str, int | None]] = {
    "recursive_macro.jinja": (RenderLimitError, "call depth", 3),
    "exponential_macro.jinja": (RenderLimitError, "0.5 s budget", 2),
    "nested_ranges.jinja": (RenderLimitError, "0.5 s budget", 2),
    "recursive_loop.jinja": (RenderLimitError, "call depth", 3),
    "huge_range.jinja": (RenderLimitError, "range of 10,000,000,000 items", 2),
    "string_repeat.jinja": (RenderLimitError, "repetition result", 2),
    "list_repeat.jinja": (RenderLimitError, "repetition result", 2),
    "concat_doubling.jinja": (RenderLimitError, "'~' result", 3),
    "plus_doubling.jinja": (RenderLimitError, "concatenation result", 3),
    "huge_power.jinja": (RenderLimitError, "too large", 2),
    "replace_blowup.jinja": (RenderLimitError, "replace() result", 2),
    "indent_blowup.jinja": (RenderLimitError, "indent() result", 1),
    "output_flood.jinja": (RenderLimitError, "output passed", None),
    "class_escape.jinja": (SandboxViolation, "__class__", 2),
    "globals_escape.jinja": (SandboxViolation, "__globals__", 2),
    "subclasses_item.jinja": (SandboxViolation, "__class__", 2),
    "raise_exception.jinja": (TemplateRaisedError, "Conversation roles must alternate", 2),
    "undefined_call.jinja": (TemplateRuntimeError, "render_tools", 2),
    "syntax_error.jinja": (TemplateSyntaxError, "endfor", 4),
    "unknown_tag.jinja": (TemplateSyntaxError, "frobnicate", 2),
    "include_tag.jinja": (TemplateSyntaxError, "{% include %}", 2),
    "tojson_indent.jinja": (RenderLimitError, "tojson output", 2),
    "memory_bomb.jinja": (RenderLimitError, "in total", 3),
    "int_squaring.jinja": (RenderLimitError, "too large to compute", 3),
    "format_width.jinja": (RenderLimitError, "requested width", 2),
    "percent_width.jinja": (RenderLimitError, "requested width", 2),
    "center_width.jinja": (RenderLimitError, "requested width", 2),
}
# llama.cpp's parser refuses these templates outright; the runaway happens in jinja2 only.
TRANSFORMERS_ONLY = {
    "recursive_loop.jinja", "huge_power.jinja", "format_width.jinja", "percent_width.jinja", "center_width.jinja",
}


def test_every_hostile_file_has_a_case() -> None:
    assert sorted(p.name for p in HOSTILE.glob("*.jinja")) == sorted(CASES)
    assert len(CASES) >= 15


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_template_is_stopped(name: str) -> None:
    cls, phrase, line = CASES[name]
    text = (HOSTILE / name).read_text(encoding="utf-8")
    start = time.monotonic()
    with pytest.raises(ExplorerError) as err:
        dialect = "transformers" if name in TRANSFORMERS_ONLY else "llama.cpp"
        render(compile_template(text, dialect), RenderInputs(messages=[]), limits=BUDGET)
    elapsed = time.monotonic() - start
    assert type(err.value) is cls, f"{name}: {type(err.value).__name__}: {err.value}"
    assert elapsed < BUDGET.wall_seconds + SLACK, f"{name} took {elapsed:.2f} s"
    assert phrase in str(err.value)
    if line is not None:
        assert err.value.location is not None and err.value.location.line == line
        expected_text = text.split("\n")[line - 1].strip()
        assert expected_text[:100] in str(err.value)


@pytest.mark.parametrize("name", ["nested_ranges.jinja", "string_repeat.jinja", "recursive_macro.jinja"])
def test_transformers_dialect_is_budgeted_too(name: str) -> None:
    text = (HOSTILE / name).read_text(encoding="utf-8")
    start = time.monotonic()
    with pytest.raises(RenderLimitError):
        render(compile_template(text, "transformers"), RenderInputs(messages=[]), limits=BUDGET)
    assert time.monotonic() - start < BUDGET.wall_seconds + SLACK


@pytest.mark.parametrize("name", ["recursive_loop.jinja", "huge_power.jinja"])
def test_llama_cpp_refuses_what_its_parser_cannot_load(name: str) -> None:
    with pytest.raises(TemplateSyntaxError, match="does not support"):
        compile_template((HOSTILE / name).read_text(encoding="utf-8"))


def test_constant_filters_are_not_folded_at_compile_time() -> None:
    # jinja2 evaluates filters on constants while compiling, outside any budget
    start = time.monotonic()
    compile_template("{{ [1] | tojson(indent=100000000) }}", "transformers")
    compile_template("{{ 'x' | center(40000000) }}", "transformers")
    assert time.monotonic() - start < 1.0


def test_capability_probes_survive_a_hostile_template() -> None:
    from explorer.caps import detect_caps

    text = (HOSTILE / "string_repeat.jinja").read_text(encoding="utf-8")
    c = detect_caps(compile_template(text))
    assert not c.supports_string_content and not c.supports_tool_calls


def test_capability_probes_share_one_budget() -> None:
    from explorer.caps import detect_caps_trace

    text = (HOSTILE / "nested_ranges.jinja").read_text(encoding="utf-8")
    start = time.monotonic()
    caps, trace = detect_caps_trace(compile_template(text), limits=BUDGET, budget_seconds=1.0)
    assert time.monotonic() - start < 1.0 + SLACK
    assert not any(p.success for p in trace) and not caps.supports_string_content
