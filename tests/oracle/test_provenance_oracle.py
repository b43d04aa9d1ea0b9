"""Provenance renders are ``render``'s renders: the 70 oracle templates, both dialects.

For every probe side of the analysis (its inputs exactly as the analysis renders them,
``probe_render_inputs``) and the oracle's standard request (the prompt, thinking off and
on), ``render_with_provenance`` must give ``render``'s text character for character, or
the same error (class, message, line), and spans that cover the text with no piece
unaccounted for.
"""

from __future__ import annotations

import pytest

from explorer.analysis import template_caps
from explorer.analysis.probes import PROBES
from explorer.analysis.session import probe_render_inputs
from explorer.errors import ExplorerError
from explorer.render import (
    CompiledTemplate,
    RenderInputs,
    chat_extra_context,
    compile_template,
    render,
    render_with_provenance,
)
from oracle_data import load_oracle_analysis, load_oracle_template, oracle_template_names, requires_oracle

pytestmark = requires_oracle

DIALECTS = ("llama.cpp", "transformers")


def request_inputs(name: str) -> list[RenderInputs]:
    """The oracle's standard request, as test_render_oracle renders it."""
    inputs = load_oracle_analysis(name)["inputs"]
    return [RenderInputs(messages=inputs["messages"], tools=inputs["tools"],
                         add_generation_prompt=inputs["add_generation_prompt"], enable_thinking=thinking,
                         bos_token=inputs["bos_token"], eos_token=inputs["eos_token"],
                         extra_context={**chat_extra_context(), **inputs["chat_template_kwargs"]})
            for thinking in (False, True)]


def probe_inputs(tmpl: CompiledTemplate) -> list[RenderInputs]:
    caps = template_caps(tmpl)
    return [probe_render_inputs(side, caps) for spec in PROBES.values() for side in (spec.a, spec.b)]


def outcome(fn: object, tmpl: CompiledTemplate, inputs: RenderInputs) -> tuple[object, ...]:
    try:
        out = fn(tmpl, inputs)  # type: ignore[operator]
    except ExplorerError as exc:
        return ("error", type(exc), exc.message, exc.location)
    return ("text", out if isinstance(out, str) else out.text)


@pytest.mark.parametrize("name", oracle_template_names())
def test_provenance_render_is_byte_identical(name: str) -> None:
    checked = 0
    for dialect in DIALECTS:
        tmpl = compile_template(load_oracle_template(name), dialect)
        for inputs in probe_inputs(tmpl) + request_inputs(name):
            want = outcome(render, tmpl, inputs)
            assert outcome(render_with_provenance, tmpl, inputs) == want, (dialect, inputs)
            if want[0] == "text":
                out = render_with_provenance(tmpl, inputs)
                assert out.text.encode("utf-8", "surrogatepass") == str(want[1]).encode("utf-8", "surrogatepass")
                ends = [0] + [s.end for s in out.spans]
                assert [s.start for s in out.spans] == ends[:-1] and ends[-1] == len(out.text)
                assert all(s.kind != "unknown" and s.line is not None for s in out.spans)
                checked += 1
    assert checked >= len(DIALECTS) * 2  # at least the prompts rendered
