"""Template health: llama.cpp's reading of a template itself broken, said first.

The templates are our own, each built to trip one way the autoparser misreads a template;
the oracle test checks every "every reply of kind X fails" claim against llama.cpp's own
round trip of that template.
"""

from __future__ import annotations

import json
from collections import defaultdict

from explorer.analysis import TemplateAnalysis
from explorer.session import open_session
from explorer.triage.health import _format_findings, template_health
from oracle_data import ORACLE, load_oracle_template, oracle_template_names, requires_oracle

HEAD = "{%- for m in messages %}<|im_start|>{{ m.role }}\n"
TAIL = "<|im_end|>\n{%- endfor %}{%- if add_generation_prompt %}<|im_start|>assistant\n{%- endif %}"
# the call id before the name: the probes' id sticks to the name's opener
ID_FIRST = (HEAD + "{%- if m.tool_calls %}{%- for tc in m.tool_calls %}<tc>{{ tc.id }}<name>{{ tc.function.name }}"
            "<args>{{ tc.function.arguments | tojson }}</tc>{%- endfor %}{%- else %}{{ m.content }}{%- endif %}" + TAIL)
# Llama 3.1 style: bare JSON calls, nothing opens them
BARE_JSON = (HEAD + '{%- if m.tool_calls %}{%- for tc in m.tool_calls %}{"name": "{{ tc.function.name }}", '
             '"parameters": {{ tc.function.arguments | tojson }}}{%- endfor %}{%- else %}{{ m.content }}{%- endif %}'
             + TAIL)
# refuses reasoning in history: the reasoning probes throw
NO_REASONING = (HEAD + "{%- if m.reasoning_content %}{{ raise_exception('no reasoning here') }}{%- endif %}"
                "{%- if m.tool_calls %}{%- for tc in m.tool_calls %}<tool_call>{{ tc.function | tojson }}</tool_call>"
                "{%- endfor %}{%- else %}{{ m.content }}{%- endif %}" + TAIL)
HERMES = (HEAD + "{%- if m.tool_calls %}{%- for tc in m.tool_calls %}<tool_call>\n{\"name\": \"{{ tc.function.name }}\", "
          "\"arguments\": {{ tc.function.arguments | tojson }}}\n</tool_call>{%- endfor %}{%- else %}{{ m.content }}"
          "{%- endif %}" + TAIL)


def causes(text: str) -> list[str]:
    return [f.check for f in template_health(open_session(text)).findings if f.severity == "cause"]


def test_a_marker_that_cuts_into_a_probe_id_is_named_with_its_field_and_probe() -> None:
    health = template_health(open_session(ID_FIRST))
    first = health.findings[0]
    assert first.check == "template-sentinel-in-marker" and first.severity == "cause"
    assert first.field == "tools.function.name_prefix" and first.probe
    # the template line that wrote it (explorer.analysis.lines: the probe re-rendered with provenance)
    assert first.template_line and "tc.id" in ID_FIRST.splitlines()[first.template_line - 1]
    assert f"written by template line {first.template_line}" in first.summary
    assert "part of the probe's own text \"call00001\"" in first.summary
    assert "Every reply with a tool call fails" in first.summary
    assert health.broken and "call" in health.failing_kinds()


def test_a_sound_template_has_no_cause_and_every_reply_parses_back() -> None:
    health = template_health(open_session(HERMES))
    assert not health.broken
    assert not [f for f in health.findings if f.severity != "info"]
    assert all(not r.fails for r in health.replies)


def test_a_format_without_an_opener_warns_that_no_grammar_constrains_calls() -> None:
    health = template_health(open_session(BARE_JSON))
    [f] = [f for f in health.findings if f.check == "template-no-call-opener"]
    assert f.severity == "warning" and f.field == "tools.format.per_call_start" and f.fix_where == "request"
    assert not health.broken  # the calls still parse back


def test_a_probe_that_threw_names_the_probe_and_the_template_line() -> None:
    text = "{#- refuses reasoning -#}\n" + NO_REASONING
    health = template_health(open_session(text))
    threw = [f for f in health.findings if f.check == "template-probe-threw"]
    lines = text.splitlines()
    assert threw and all(f.template_line and "raise_exception" in lines[f.template_line - 1] for f in threw)
    assert {f.probe for f in threw} >= {"R1"}
    assert all("no reasoning here" in f.summary for f in threw)
    assert all(f.severity == "info" for f in threw)  # every reply still parses back: not a warning


def test_wrapped_content_without_a_closing_delimiter_is_unmatchable() -> None:
    analysis = TemplateAnalysis.from_oracle_json(json.loads(json.dumps({
        "reasoning": {"mode": "NONE"}, "content": {"mode": "ALWAYS_WRAPPED", "start": "<answer>", "end": ""},
        "tools": {"format": {}, "function": {}, "arguments": {}, "call_id": {}}})))
    [f] = list(_format_findings(analysis, False, "autoparser", ()))
    assert f.check == "template-content-unmatchable" and f.field == "content.end" and f.severity == "warning"
    [routed] = list(_format_findings(analysis, True, "gemma4", ()))
    assert routed.severity == "info"


def test_the_triage_says_the_template_is_broken_first() -> None:
    session = open_session(ID_FIRST)
    request = session.request(tools=[{"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}}}}])
    d = session.diagnose("Hello there.", request)
    assert d.findings[0].check == "template-sentinel-in-marker"
    assert d.lead is d.findings[0] and d.headline.startswith("llama.cpp's autoparser misread this template")
    assert d.headline.endswith("the fix belongs to llama.cpp.")


@requires_oracle
def test_handler_routes_never_get_a_cause_and_the_autoparsers_misreads_there_are_information() -> None:
    for name in ("google-gemma-4-31B-it", "meetkai-functionary-medium-v3.2", "LFM2.5-8B-A1B", "muse-glimmer"):
        health = template_health(open_session(load_oracle_template(name)))
        assert not health.broken, name
        sentinels = [f for f in health.findings if f.check == "template-sentinel-in-marker"]
        assert sentinels and all(f.severity == "info" for f in sentinels), name


@requires_oracle
def test_every_reply_fails_claims_agree_with_llama_cpps_own_round_trip() -> None:
    """For each "every reply of kind X fails" cause on the 70 corpus templates, llama.cpp's
    own round trip of that template (oracle roundtrip.jsonl, message a for content, c for a
    call) did not give the message back either; no handler route gets a cause."""
    lines: dict[tuple[str, str, bool], dict] = {}
    for raw in (ORACLE / "roundtrip.jsonl").read_text("utf-8").splitlines():
        row = json.loads(raw)
        lines[(row["template"].removesuffix(".jinja"), row["id"].split("/")[1], row["enable_thinking"])] = row
    letter = {"reply": "a", "call": "c"}
    checked = defaultdict(int)
    for name in oracle_template_names():
        session = open_session(load_oracle_template(name))
        health = template_health(session)
        if session.handler != "autoparser":
            assert not health.broken, name
            continue
        for reply in health.replies:
            if not reply.fails or reply.kind not in letter:
                continue
            row = lines[(name, letter[reply.kind], reply.enable_thinking)]
            assert not row["roundtrip_equal_trimmed"], (name, reply.kind, reply.enable_thinking)
            checked[name] += 1
    assert checked, "no failing reply was checked against the oracle"
    print(f"'every reply fails' claims checked against llama.cpp's round trip: {sum(checked.values())} "
          f"on {len(checked)} templates")


def test_content_that_comes_back_wrapped_is_a_warning_not_a_failure() -> None:
    from explorer.sources import from_example

    health = template_health(open_session(from_example("wrapped-answer-tag-json").text))
    assert not health.broken
    [f] = [f for f in health.findings if f.check == "template-reply-extra-text"]
    assert f.severity == "warning" and f.quirk and f.fix_where == "llama.cpp"
    assert '"<answer>…</answer>"' in f.summary
