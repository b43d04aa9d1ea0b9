"""Triage against llama.cpp's own parses of the canitoolcall fixtures (../shared/oracle/parse).

Each fixture is replayed as the oracle did (its tools, tool_choice auto, its thinking
flag and kwargs, the template's parallel-calls default); the diagnosis's parse must be
llama.cpp's (message or exception), and every fixture llama.cpp rejects must get at
least one "cause" finding. The counts per check are printed.
"""

from __future__ import annotations

import collections
import functools
import json

from canitoolcall.fixtures import load_fixtures

from cases import assert_headline
from explorer.analysis import TemplateAnalysis, template_analysis
from explorer.apply import Request
from explorer.apply.pipeline import apply_template
from explorer.render import compile_template
from explorer.triage import diagnose
from oracle_data import ORACLE, requires_oracle

pytestmark = requires_oracle


def _rows() -> list[dict]:
    rows: list[dict] = []
    for path in sorted((ORACLE / "parse").glob("*.jsonl")):
        rows += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return rows


def _diagnose(row: dict, fixture) -> object:
    source = (ORACLE / "templates" / row["template"]).read_text(encoding="utf-8")
    req = Request(messages=({"role": "user", "content": "Hello"},), tools=tuple(fixture.tools), tool_choice="auto",
                  parallel_tool_calls=row["parallel_tool_calls"], enable_thinking=row["enable_thinking"],
                  chat_template_kwargs=row["chat_template_kwargs"])
    params = apply_template(source, req)
    assert params.parser == row["parser"], row["id"]
    analysis = _analysis_of(row["template"]) if params.handler == "autoparser" else None
    return diagnose(params, req, fixture.raw_output, analysis=analysis)


@functools.cache
def _analysis_of(template: str) -> TemplateAnalysis:
    """One analysis per oracle template (it does not depend on the request)."""
    return template_analysis(compile_template((ORACLE / "templates" / template).read_text(encoding="utf-8")))


# a few templates, all their fixtures (passing ones too: the checks must stay quiet enough)
TEMPLATES = ("mistralai-Mistral-Nemo-Instruct-2407.jinja", "meta-llama-Llama-3.3-70B-Instruct.jinja",
             "Kimi-K2-Instruct.jinja", "GLM-4.6.jinja", "Qwen-Qwen3-0.6B.jinja")


def test_every_llama_cpp_failure_gets_a_cause():
    fixtures = {f.id: f for f in load_fixtures()}
    rows = [r for r in _rows() if r["exception"] is not None or r["template"] in TEMPLATES]
    counts: collections.Counter[tuple[str, str]] = collections.Counter()
    parse_mismatches: list[str] = []
    without_cause: list[str] = []
    causes_on_clean_parses = 0
    for row in rows:
        d = _diagnose(row, fixtures[row["id"]])
        for f in d.findings:
            counts[(f.check, f.severity)] += 1
        threw = d.error is not None
        if threw != (row["exception"] is not None) or (not threw and d.message.to_oracle_json() != row["result"]):
            parse_mismatches.append(row["id"])
        if row["exception"] is not None and not d.causes:
            without_cause.append(row["id"])
        if row["exception"] is not None:  # the headline: one sentence about the lead cause, at its place
            lead = d.lead
            assert lead is not None and lead.severity == "cause", row["id"]
            assert_headline(d, fix=lead.fix_where, at=lead.span[0] if lead.span else None)
        if row["exception"] is None and d.causes:
            causes_on_clean_parses += 1
    failures = sum(1 for r in rows if r["exception"] is not None)
    print(f"\n{len(rows)} fixtures diagnosed ({failures} llama.cpp rejects); findings per check:")
    for (check, severity), n in sorted(counts.items()):
        print(f"  {check:30} {severity:8} {n}")
    print(f"clean parses with a cause finding: {causes_on_clean_parses}")
    print(f"parse mismatches: {len(parse_mismatches)} {parse_mismatches[:5]}")
    print(f"failures without a cause: {len(without_cause)} {without_cause[:5]}")
    assert not parse_mismatches
    assert not without_cause
    assert failures >= 39


def test_known_failures_are_explained_specifically():
    """Hand-read reasons for a few rejects (from the fixture text and the oracle parser)."""
    fixtures = {f.id: f for f in load_fixtures()}
    rows = {r["id"]: r for r in _rows()}
    expect = {
        # Mistral Nemo's call rule wants "name" before "arguments"
        "mistral/vllm-v3-arguments-before-name": "call-json-keys",
        # Llama 3.3's call rule spells the arguments key "parameters"
        "llama/l3-vllm-arguments-key": "call-json-keys",
        # "after tool" follows </tool_call>; GLM 4.6's format ends with the calls
        "glm/glm45-ollama-content-after-call": "content-after-calls",
        # the call's JSON misses its closing brace before ```
        "deepseek/vllm-v3-malformed-missing-brace": "malformed-arguments",
        # Python's False where the boolean schema wants JSON; the handler's parser has no end
        # anchor, so llama.cpp drops the call without an error
        "qwen3-xml/coder-python-literals": "unconsumed-output",
        # "<tool_call>{" with no newline: Qwen3's opener is "<tool_call>\n"
        "qwen3-hermes/vllm-no-newlines-no-spaces": "opener-near-miss",
        # Llama 4's Python-style calls against Llama 3.3's JSON format
        "llama/l4-meta-pythonic-parallel": "pythonic-call",
    }
    for fid, check in expect.items():
        d = _diagnose(rows[fid], fixtures[fid])
        assert check in {f.check for f in d.causes}, (fid, [(f.check, f.summary) for f in d.findings])


def test_a_specialised_handler_is_read_through_its_params():
    """Qwen3-Coder is routed to its handler; its trigger <tool_call> is the opener."""
    source = (ORACLE / "templates" / "Qwen3-Coder.jinja").read_text(encoding="utf-8")
    weather = {"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
    req = Request(messages=({"role": "user", "content": "Hello"},), tools=(weather,))
    params = apply_template(source, req)
    assert params.handler == "qwen3-coder"
    good = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>"
    assert [(f.check, f.severity) for f in diagnose(params, req, good).findings] == [("grammar-trigger", "info")]
    d = diagnose(params, req, good.replace("<tool_call>", "<Tool_Call>", 1))
    f = d.by_check("opener-near-miss")[0]
    assert (f.expected.strip(), f.found.strip(), f.span[0]) == ("<tool_call>", "<Tool_Call>", 0)
    d = diagnose(params, req, good.replace("get_weather", "get_wether"))
    assert d.by_check("unknown-function")[0].found == "get_wether"


def _expected_calls(fixture) -> int:
    expected = fixture.expected
    calls = getattr(expected, "tool_calls", None)
    if calls is None and isinstance(expected, dict):
        calls = expected.get("tool_calls")
    return len(calls or [])


def test_calls_llama_cpp_loses_are_explained():
    """Fixtures where llama.cpp returns fewer tool calls than canitoolcall expects (without
    throwing): the tool calls that "came back as content" (or vanished) each get a cause."""
    fixtures = {f.id: f for f in load_fixtures()}
    lost = [r for r in _rows() if r["exception"] is None and fixtures[r["id"]].expected is not None
            and _expected_calls(fixtures[r["id"]]) > len(r["result"]["tool_calls"])]
    counts: collections.Counter[str] = collections.Counter()
    unexplained = []
    for row in lost:
        d = _diagnose(row, fixtures[row["id"]])
        counts.update(f.check for f in d.causes)
        if not d.causes:
            unexplained.append(row["id"])
    print(f"\n{len(lost)} fixtures lose calls in llama.cpp; causes: {dict(counts)}; unexplained: {unexplained}")
    assert len(lost) >= 30
    assert not unexplained


def test_round_trips_that_survive_get_no_cause():
    """False-positive guard: the template's own replies (../shared/oracle/roundtrip.jsonl, cut
    out of its rendering) that llama.cpp parses back to the input message get no "cause"
    finding, and the diagnosis's parse is llama.cpp's for every line."""
    analyses: dict[str, object] = {}
    lines = [json.loads(line) for line in (ORACLE / "roundtrip.jsonl").read_text(encoding="utf-8").splitlines()]
    checked, mismatches, noisy = 0, [], []
    for row in lines:
        if row.get("render_exception") or row.get("raw_output_stripped") is None:
            continue
        source = (ORACLE / "templates" / row["template"]).read_text(encoding="utf-8")
        req = Request(messages=({"role": "user", "content": "Hello"},), tools=tuple(row["tools"]),
                      parallel_tool_calls=row["parallel_tool_calls"], enable_thinking=row["enable_thinking"],
                      chat_template_kwargs=row["chat_template_kwargs"])
        params = apply_template(source, req)
        if params.handler == "autoparser" and row["template"] not in analyses:
            analyses[row["template"]] = template_analysis(compile_template(source))
        d = diagnose(params, req, row["raw_output_stripped"], analysis=analyses.get(row["template"]))
        checked += 1
        got = d.message.to_oracle_json() if d.message is not None else None
        if got != row["result"]:
            mismatches.append(row["id"])
        if row["roundtrip_equal"] and d.causes:
            noisy.append((row["id"], [f.check for f in d.causes]))
    print(f"\n{checked} round-trip lines diagnosed; parse mismatches {len(mismatches)}; "
          f"exact round trips with a cause: {len(noisy)} {noisy[:3]}")
    assert checked >= 800
    assert not mismatches and not noisy


# the checks on successful parses and the rule-stating ones (explorer.triage.checks_success, checks_rules)
NEW_CHECKS = ("arguments-json", "value-swallowed", "call-cut-off", "parameter-order", "newline-rule",
              "whitespace-rule", "one-call-only", "marker-in-prose")


def _same_message(result: dict | None, expected) -> bool:
    """llama.cpp's message is the fixture's expected one: calls (names, decoded arguments), content."""
    if result is None or expected is None:
        return False
    calls = list(getattr(expected, "tool_calls", None) or ())
    if len(calls) != len(result["tool_calls"]):
        return False
    for got, want in zip(result["tool_calls"], calls):
        args = want.arguments if not isinstance(want.arguments, str) else json.loads(want.arguments)
        try:
            if got["name"] != want.name or json.loads(got["arguments"]) != args:
                return False
        except ValueError:
            return False
    return (result["content"] or "").strip() == (getattr(expected, "content", None) or "").strip()


def test_good_outputs_get_no_cause_from_the_new_checks():
    """False-positive guard for the checks on successful parses and the rule-stating ones:
    every fixture whose llama.cpp parse is the message canitoolcall expects gets none of
    their causes."""
    fixtures = {f.id: f for f in load_fixtures()}
    good = [r for r in _rows() if r["exception"] is None and _same_message(r["result"], fixtures[r["id"]].expected)]
    noisy = []
    for row in good:
        d = _diagnose(row, fixtures[row["id"]])
        found = [f.check for f in d.causes if f.check in NEW_CHECKS]
        if found:
            noisy.append((row["id"], found))
    print(f"\n{len(good)} fixtures llama.cpp parses as expected; with a cause from the new checks: {noisy[:5]}")
    assert len(good) >= 200
    assert not noisy
