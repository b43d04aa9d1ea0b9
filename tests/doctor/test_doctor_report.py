"""The doctor's report on our own templates: a sound one is full, a lossy one names what it
loses and whose doing it is, a misread one is broken; every round-trip sentence is
classified; the fix search runs only where there is something to fix."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace

import pytest
from doctor_cases import TEMPLATES
from doctor_templates import LOSSY, MISREAD, PARSER_LOSSY, RAISES, SOUND

from explorer.doctor.acceptance import CHECK_IDS
from explorer.doctor.losses import LOSS_KINDS, case_losses, classify
from explorer.doctor.model import ROUNDTRIP_UNIT, Fix, RoundTripCount
from explorer.doctor.report import DoctorReport, doctor
from explorer.roundtrip.model import RoundTripCase
from explorer.session import TemplateSession, open_session
from oracle_data import HOSTILE_DIR

REQUIRED_KEYS = {"template", "handler", "verdict", "roundtrip", "findings", "fixes"}
FINDING_KEYS = {"check", "severity", "summary", "field", "probe", "template_line"}


@pytest.fixture(scope="module")
def sound() -> DoctorReport:
    return doctor(open_session(SOUND), name="sound")


@pytest.fixture(scope="module")
def lossy() -> DoctorReport:
    return doctor(open_session(LOSSY), name="lossy")


@pytest.fixture(scope="module")
def parser_lossy() -> DoctorReport:
    return doctor(open_session(PARSER_LOSSY), name="parser-lossy")


@pytest.fixture(scope="module")
def misread() -> DoctorReport:
    return doctor(open_session(MISREAD), name="misread")


def test_a_sound_template_is_full_and_every_message_comes_back(sound: DoctorReport) -> None:
    assert sound.verdict == "full" and not sound.losses
    assert sound.roundtrip.equal == sound.roundtrip.total == 18  # nine messages, both thinking settings
    assert {c.enable_thinking for c in sound.cases} == {False, True}
    assert not sound.by_severity("cause")
    assert sound.route.handler == "autoparser" and "autoparser" in sound.route.why


def test_a_template_that_drops_on_purpose_names_what_it_drops_and_why_and_loses_nothing(lossy: DoctorReport) -> None:
    assert lossy.verdict == "full" and not lossy.losses  # both drops are design choices
    drops = {f.field: f for f in lossy.findings if f.check == "roundtrip-by-design"}
    assert set(drops) == {"reasoning_content", "content"}
    assert all(f.where == "template" and f.severity == "info" for f in drops.values())
    assert set(drops["reasoning_content"].cases) == {"b/false", "b/true", "e/false", "e/true"}
    assert "messages b (both), e (both)" in drops["reasoning_content"].summary
    assert "on purpose" in drops["content"].summary and "only when the turn has no tool calls" in drops["content"].detail
    assert not any(f.check == "roundtrip-parser-loses" for f in lossy.findings)  # the parser is not to blame
    b = next(c for c in lossy.cases if c.case_id == "b/false")
    assert [(x.kind, x.where, x.lost) for x in b.losses] == [("by-design", "template", "reasoning_content")]
    assert {d.key for d in lossy.design} == {"reasoning-not-rendered", "content-only-without-calls"}
    assert set(lossy.by_design_cases) == set(drops["reasoning_content"].cases) | set(drops["content"].cases)


def test_a_template_the_parser_misreads_has_losses(parser_lossy: DoctorReport) -> None:
    assert parser_lossy.verdict == "losses"
    [lost] = [f for f in parser_lossy.findings if f.check == "roundtrip-parser-loses"]
    assert lost.where == "llama.cpp" and set(lost.cases) == {"f/false", "f/true", "h-unicode/false", "h-unicode/true"}


def test_a_misread_template_is_broken_with_the_field_and_probe_named(misread: DoctorReport) -> None:
    assert misread.verdict == "broken" and misread.broken
    [cause] = [f for f in misread.findings if f.check == "template-sentinel-in-marker"]
    assert cause.severity == "cause" and cause.source == "health"
    assert cause.field == "tools.function.name_prefix" and cause.probe
    assert misread.findings[0].severity == "cause"  # worst first
    parser = [f for f in misread.findings if f.check == "roundtrip-parser-loses"]
    assert parser and all(f.where == "llama.cpp" for f in parser)


def test_a_template_that_raises_on_every_render_is_broken_not_an_error() -> None:
    report = doctor(open_session(RAISES))
    assert report.verdict == "broken"
    assert report.cases == () and report.roundtrip.total == 0


def test_to_json_has_the_line_shape(lossy: DoctorReport) -> None:
    line = json.loads(json.dumps(lossy.to_json()))
    assert REQUIRED_KEYS <= set(line)
    assert line["template"] == "lossy" and line["verdict"] == "full"
    assert line["roundtrip"] == {"equal": lossy.roundtrip.equal, "total": lossy.roundtrip.total,
                                 "unit": ROUNDTRIP_UNIT}
    assert line["findings"] and all(FINDING_KEYS <= set(f) for f in line["findings"])
    assert line["fixes"] == [] and line["gate"] == {"cause": 0, "warning": 0}
    assert [d["key"] for d in line["design"]] and line["roundtrip_by_design"] == 8
    assert {c["message"] for c in line["cases"]} >= {"a", "b", "c", "d", "e", "f"}


def test_every_fix_and_every_count_in_it_states_the_same_unit() -> None:
    report = doctor(open_session(TEMPLATES["stop-token-left"]))
    assert report.fixes
    for fix in report.to_json()["fixes"]:  # type: ignore[union-attr]
        assert fix["roundtrip_before"]["unit"] == fix["roundtrip_after"]["unit"] == ROUNDTRIP_UNIT
        assert fix["roundtrip_before"]["total"] == fix["roundtrip_after"]["total"] == report.roundtrip.total
        assert [c["check"] for c in fix["checks"]] == list(CHECK_IDS)


SENTENCES = [
    ("the template drops reasoning_content from history turns (it is not in the rendered turn)",
     ("template-drops", "template", "reasoning_content")),
    ("the template drops tool calls from history turns (a call's name is not in the rendered turn)",
     ("template-drops", "template", "tool_calls")),
    ("the template drops content next to tool calls from history turns", ("template-drops", "template", "content")),
    ("the template refuses to render this message: only one call", ("template-drops", "template", "reply")),
    ("the generation prompt opens a thinking block ('<think>\\n') the rendered turn lacks, so the parser reads the "
     "reply as reasoning", ("thinking-prompt", "template", "reasoning_content")),
    ("the generation prompt closes the thinking block ('</think>'), so the reasoning the template renders in the "
     "turn is read as content", ("thinking-prompt", "request", "reasoning_content")),
    ("the turn ends with '<|end|>', not with the plain-message end marker '<|im_end|>': a stop token is left in "
     "place for the parser", ("stop-token", "llama.cpp", "content")),
    ("parallel tool calls are off for this template, so the parser takes only the first call",
     ("parallel-off", "request", "tool_calls")),
    ("equal once surrounding whitespace is trimmed", ("whitespace", "template", "")),
    ("content differs only in surrounding whitespace ('x\\n' instead of 'x')", ("whitespace", "template", "content")),
    ("the parser rejected the reply (no match)", ("parser-loses", "llama.cpp", "reply")),
    ("the content is parsed as reasoning", ("parser-loses", "llama.cpp", "content")),
    ("a rendered tool call is left in content: the parser did not recognise it as a call",
     ("parser-loses", "llama.cpp", "tool_calls")),
    ("text after a tool call is not parsed (the template puts content after the call)",
     ("parser-loses", "llama.cpp", "content")),
    ("content keeps extra text '</think>' around the message's content", ("parser-loses", "llama.cpp", "content")),
    ("the reasoning is rendered but parsed as content (its thinking markers were not recognised)",
     ("parser-loses", "llama.cpp", "reasoning_content")),
    ("2 rendered tool call(s) were not parsed as calls: they sit inside what the parser read as reasoning",
     ("parser-loses", "llama.cpp", "tool_calls")),
    ("the parser found 3 calls where 2 were rendered", ("parser-loses", "llama.cpp", "tool_calls")),
    ("call 0: arguments '{' are not valid JSON", ("parser-loses", "llama.cpp", "tool_calls")),
    ("the template rejected the tool-call ids; rendered again with ids call00001/call00002",
     ("note", "template", "tool_calls")),
    ("the rendered turn and the next-turn prompt part ways before the prompt ends; the reply was cut by rule snapped",
     ("note", "template", "reply")),
    ("transformers cannot render this message: boom", ("template-drops", "template", "reply")),
]


@pytest.mark.parametrize(("sentence", "expected"), SENTENCES)
def test_every_explanation_sentence_has_a_kind_and_a_place(sentence: str, expected: tuple[str, str, str]) -> None:
    assert classify(sentence) == expected


def test_an_unknown_sentence_is_unclassified_and_still_a_loss() -> None:
    kind, where, _ = classify("something new the explainer says")
    assert (kind, where) == ("unclassified", "llama.cpp") and kind in LOSS_KINDS


def _case(explanation: tuple[str, ...], equal_trimmed: bool) -> RoundTripCase:
    from explorer.roundtrip.compare import Comparison

    return RoundTripCase("b", {"role": "assistant"}, "", "", "", comparison=Comparison(False, equal_trimmed, ()),
                         explanation=explanation)


def test_a_case_equal_once_trimmed_loses_nothing_whatever_its_sentences_say() -> None:
    losses = case_losses(_case(("reasoning_content: 'x\\n' instead of 'x'", "equal once surrounding whitespace is "
                                "trimmed"), True), True)
    assert {x.kind for x in losses} == {"whitespace"} and not any(x.losing for x in losses)


def test_what_the_parser_does_after_a_thinking_prompt_follows_from_the_prompt() -> None:
    losses = case_losses(_case(("the generation prompt opens a thinking block ('<think>') the rendered turn lacks, so "
                                "the parser reads the reply as reasoning", "the content is parsed as reasoning"),
                               False), True)
    assert [x.kind for x in losses] == ["thinking-prompt", "thinking-prompt"]
    assert losses[1].sentence == "the content is parsed as reasoning"  # the sentence is kept


def test_the_template_line_hook_places_every_loss() -> None:
    report = doctor(open_session(PARSER_LOSSY), fixes=False, line_of=lambda case, loss: 7)
    lost = [f for f in report.findings if f.check == "roundtrip-parser-loses"]
    assert lost and all(f.template_line == 7 for f in lost)
    assert all(x.template_line == 7 for c in report.cases for x in c.losses if x.kind != "by-design")


def _fix(before: RoundTripCount) -> Fix:
    after = RoundTripCount(before.total, before.total, before.equal_ids + ("b/false",))
    return Fix("template-edit", "render reasoning in history turns", before, after,
               diff="--- a\n+++ b\n", patched_template=SOUND)


def test_the_fix_search_runs_only_for_templates_that_need_it() -> None:
    calls: list[tuple[str, tuple[str, ...]]] = []

    def search(session: TemplateSession, corpus: Sequence[str]) -> tuple[Fix, ...]:
        calls.append((session.sha256, tuple(corpus)))
        return (_fix(RoundTripCount(10, 18)),)

    corpus = ("templates/others",)
    full = doctor(open_session(SOUND), fixes=search, corpus=corpus)
    assert full.verdict == "full" and full.fixes == () and calls == []
    by_design = doctor(open_session(LOSSY), fixes=search, corpus=corpus)
    assert by_design.verdict == "full" and calls == []  # a loss by design is nothing to fix
    lossy = doctor(open_session(PARSER_LOSSY), fixes=search, corpus=corpus)
    assert len(calls) == 1 and calls[0][1] == corpus
    assert [f["kind"] for f in lossy.to_json()["fixes"]] == ["template-edit"]  # type: ignore[index]
    assert doctor(open_session(PARSER_LOSSY), fixes=False).fixes == ()


def test_the_default_search_gives_the_report_verified_fixes_that_bring_messages_back() -> None:
    report = doctor(open_session(TEMPLATES["stop-token-left"]))
    assert report.verdict != "full" and report.fixes
    for fix in report.fixes:
        assert fix.roundtrip_after.equal > fix.roundtrip_before.equal, fix.summary
        assert all(c.passed for c in fix.checks)


def test_a_request_adds_the_templates_own_replies_through_that_requests_parser() -> None:
    session = open_session(SOUND)
    tool = {"type": "function", "function": {"name": "lookup", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
    report = doctor(session, request=session.request(tools=[tool]), fixes=False)
    assert report.request is not None and report.request.handler == "autoparser"
    assert [r.kind for r in report.request.replies] == ["reply", "call", "reasoning+call"]
    assert all(r.equal_trimmed for r in report.request.replies if r.reply is not None)
    assert report.to_json()["request"]


def test_a_request_llama_cpp_cannot_apply_makes_the_template_broken_for_it() -> None:
    text = ("{%- for m in messages %}{{ m.content }}{%- endfor %}"
            "{%- if tools and tools[0].function.name == 'boom' %}{{ raise_exception('no boom') }}{%- endif %}")
    session = open_session(text)
    tool = {"type": "function", "function": {"name": "boom", "parameters": {"type": "object", "properties": {}}}}
    report = doctor(session, request=session.request(tools=[tool]), fixes=False)
    assert report.request is not None and "no boom" in report.request.error
    assert report.verdict == "broken" and report.findings[0].check == "request-fails"


def test_a_runaway_template_is_reported_without_rendering_it_again() -> None:
    session = open_session((HOSTILE_DIR / "concat_doubling.jinja").read_text(encoding="utf-8"))
    assert session.render_budget_exhausted
    report = doctor(session, fixes=False)
    assert any(f.check == "template-runaway" for f in report.findings)
    assert report.cases == () and report.health is None and report.skipped
    assert report.verdict != "full"  # nothing was checked, so nothing is vouched for


def test_the_report_can_be_rebuilt_with_other_fixes() -> None:
    report = doctor(open_session(LOSSY), fixes=False)
    again = replace(report, fixes=(_fix(report.roundtrip),))
    assert again.verdict == report.verdict and len(again.to_json()["fixes"]) == 1  # type: ignore[arg-type]
