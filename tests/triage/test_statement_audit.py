"""The statement audit in CI: every sentence of a diagnosis true in its details.

Outputs are each template's own replies (tests/statement_cases.py: content, a call,
reasoning and a call, as the round trip cuts them), whole, cut at a point, with a character
dropped and with a tag misspelt; diagnosed with the template's session and audited by
``explorer.triage.audit`` (found at its span, excerpts marked where cut, "(see X)" resolved,
one fact one fix_where, no contradiction, "starts here" at one place, every suggestion
re-run, the template's own call included). Templates: every one in ../shared/oracle
(a few outputs each, chosen with a fixed seed), our example templates and the test
templates of tests/cases.py, and the hostile templates whose session opens fast (the rest
reach the render budget and are the hostile suite's). Hypothesis then mutates replies of a
few of them at random. The local sweep (benchmarks/sweep_statements.py) runs many more.
"""

from __future__ import annotations

import functools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cases as own
from explorer.errors import ExplorerError
from explorer.session import TemplateSession, open_session
from explorer.sources import from_example, from_text, list_examples
from explorer.triage.audit import audit
from oracle_data import HOSTILE_DIR, ORACLE, oracle_available
from statement_cases import cases, replies, requests

PER_TEMPLATE = 3  # outputs per ../shared template in CI (the sweep takes them all)
# hostile templates that take a second or more to reach the render budget (a clear error): the
# hostile suite runs them; here they would only spend the audit's time
SLOW_HOSTILE = frozenset({
    "concat_doubling", "exponential_macro", "growing_loop", "macro_doubling", "reverse_flood", "self_reference",
    "slice_flood", "sort_chain", "huge_range", "indent_blowup", "int_squaring", "list_repeat", "memory_bomb",
    "nested_ranges", "output_flood", "plus_doubling", "recursive_macro", "replace_blowup", "string_repeat",
    "tojson_indent",
})


def _own_templates() -> list[tuple[str, str]]:
    found = [(f"example:{name}", from_example(name).text) for name in list_examples()]
    found += [(name, getattr(own, name)) for name in sorted(dir(own))
              if name.isupper() and isinstance(getattr(own, name), str) and "{%" in getattr(own, name)]
    return found


def _shared_templates() -> list[tuple[str, str]]:
    if not oracle_available():
        return []
    return [(p.stem, p.read_text(encoding="utf-8")) for p in sorted((ORACLE / "templates").glob("*.jinja"))]


def _hostile_templates() -> list[tuple[str, str]]:
    return [(p.stem, p.read_text(encoding="utf-8", errors="replace")) for p in sorted(HOSTILE_DIR.rglob("*.jinja"))
            if p.stem not in SLOW_HOSTILE]


@functools.cache
def _session(text: str) -> TemplateSession | ExplorerError:
    try:
        return open_session(from_text(text))
    except ExplorerError as exc:
        return exc


def _audited(name: str, text: str, per_template: int | None) -> tuple[int, list[str]]:
    """(cases audited, violations) of the template's cases; a template or request that raises
    raises a clear error (an ``ExplorerError``), which is all it owes."""
    session = _session(text)
    if isinstance(session, ExplorerError):
        return 0, []
    checked, bad = 0, []
    for case, request in cases(name, session, per_template=per_template):
        try:
            d = session.diagnose(case.output, request)
        except ExplorerError:
            continue
        checked += 1
        bad += [f"{name} ({case.how}, thinking {case.thinking}): {v}" for v in audit(d, session, request)]
    return checked, bad


@pytest.mark.parametrize("name,text", _own_templates(), ids=lambda v: v if len(v) < 40 else "")
def test_our_templates_state_only_what_holds(name, text):
    checked, bad = _audited(name, text, per_template=8)
    assert not bad, bad[:5]


def test_the_shared_templates_state_only_what_holds():
    if not oracle_available():
        pytest.skip("../shared/oracle is absent (not a developer machine)")
    total, bad = 0, []
    for name, text in _shared_templates():
        checked, found = _audited(name, text, per_template=PER_TEMPLATE)
        total += checked
        bad += found
    print(f"\nstatement audit: {total} cases of {len(_shared_templates())} templates, {len(bad)} violations")
    assert total >= len(_shared_templates())  # (a few templates render no reply; most give several)
    assert not bad, bad[:5]


@pytest.mark.parametrize("name,text", _hostile_templates(), ids=lambda v: v if len(v) < 40 else "")
def test_hostile_templates_state_only_what_holds_or_raise_clearly(name, text):
    checked, bad = _audited(name, text, per_template=4)
    assert not bad, bad[:5]


# --- random mutations of a few templates' own replies ---------------------------------------------

MUTATED = ("example:chatml-think-tools", "example:tagged-parameters", "example:bracket-tool-calls", "TAGGED",
           "LLAMA32_PYTHONIC", "GPT_OSS_MINI", "FUNCTIONARY_MINI")


@functools.cache
def _replies(name: str) -> tuple[tuple[str, bool], ...]:
    text = dict(_own_templates())[name]
    session = _session(text)
    assert not isinstance(session, ExplorerError), session
    return tuple((r, flag) for flag, request in requests(session) for r in replies(session, request))


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, str, bool]:
    name = draw(st.sampled_from(MUTATED))
    made = _replies(name)
    if not made:
        return name, draw(st.text(max_size=20)), False
    reply, flag = draw(st.sampled_from(made))
    op = draw(st.sampled_from(("cut", "drop", "swap", "insert", "whole")))
    i = draw(st.integers(0, max(0, len(reply) - 1)))
    if op == "cut":
        reply = reply[:i]
    elif op == "drop":
        reply = reply[:i] + reply[i + 1:]
    elif op == "swap" and i + 1 < len(reply):
        reply = reply[:i] + reply[i + 1] + reply[i] + reply[i + 2:]
    elif op == "insert":
        reply = reply[:i] + draw(st.sampled_from((" ", "\n", "-", "x", "é", "<", "}"))) + reply[i:]
    return name, reply, flag


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_replies_state_only_what_holds(case):
    name, output, flag = case
    session = _session(dict(_own_templates())[name])
    assert not isinstance(session, ExplorerError)
    request = dict(requests(session))[flag] if flag in dict(requests(session)) else next(requests(session))[1]
    d = session.diagnose(output, request)
    bad = [str(v) for v in audit(d, session, request)]
    assert not bad, (name, output, bad[:5])
