"""Every finding gives one place: its span, its found text and the numbers of its summary agree.

For every finding with a span: ``found`` is the output text at the span (or a prefix of
it), or ``END_OF_OUTPUT`` for an empty span at the end; ``place`` is that span in every
coordinate; every position the summary names ("llama.cpp offset O (older builds' pos P;
output character N, line L, column C)", "pos N", "(offset N)") is that place's, and no other position
wording (a hand-made "character N", "line N of the JSON") is left. Outputs are our own,
on our example templates and the small routed templates of tests/cases.py.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cases import FN_CALL, FUNCTIONARY_MINI, GPT_CALL, GPT_OSS_MINI, assert_headline, assert_one_place
from explorer.analysis import template_analysis
from explorer.apply import Request
from explorer.apply.pipeline import apply_template
from explorer.render import compile_template
from explorer.sources import from_example
from explorer.triage import diagnose
from explorer.triage.model import Diagnosis, Place

WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
CALL_JSON = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
GOOD_CALL = f"<tool_call>\n{CALL_JSON}\n</tool_call>"



def request(**kw) -> Request:
    kw.setdefault("tools", (WEATHER,))
    return Request(messages=({"role": "user", "content": "hi"},), **kw)


_PARAMS: dict[tuple[str, str], object] = {}


def _diagnose(source: str, output: str, *, analysis: bool = True, is_partial: bool = False, **kw) -> Diagnosis:
    req = request(**kw)
    key = (source, repr(sorted(kw.items())))
    if key not in _PARAMS:
        an = template_analysis(compile_template(source)) if analysis else None
        _PARAMS[key] = (apply_template(source, req), an)
    params, an = _PARAMS[key]  # type: ignore[misc]
    return diagnose(params, req, output, analysis=an, is_partial=is_partial)


CHATML = from_example("chatml-think-tools").text
BRACKET = from_example("bracket-tool-calls").text
TAGGED = from_example("tagged-parameters").text

# (template, output, keywords): each check's positive cases, with multi-byte text in front
# so that characters, bytes and lines all differ
REGRESSIONS = [
    (CHATML, "é\n" + GOOD_CALL + " done", {}),
    (CHATML, "<think>x</think>\n" + GOOD_CALL.replace('"city"', "city"), {}),
    (CHATML, "ééé\n" + GOOD_CALL.replace("get_weather", "get_wether"), {}),
    (CHATML, "<think>é</think>\n<tool_call >\n" + CALL_JSON + "\n</tool_call>", {}),
    (CHATML, "Sure ü. " + CALL_JSON, {}),
    (CHATML, "```json\n" + CALL_JSON + "\n```", {}),
    (CHATML, '<tool_call>\n{"arguments": {"city": "Paris"}, "name": "get_weather"}\n</tool_call>', {}),
    (CHATML, '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}\n</tool_call>', {}),
    (CHATML, '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Par', {}),
    (CHATML, "ü x</think>\nThe answer.", {}),
    (CHATML, "<think>x</think>\nThe answer.", {"enable_thinking": False}),
    (CHATML, "<think>x</think>\nThe answer.", {"reasoning_format": "none"}),
    (CHATML, f"<think>I will call it: {GOOD_CALL}</think>\nok", {}),
    (CHATML, GOOD_CALL + "\nand é also\n" + GOOD_CALL, {}),
    (CHATML, "I will call get_weather now.", {}),
    (CHATML, "get_weather(city='Paris')", {}),
    (CHATML, "Hello é", {"tool_choice": "required"}),
    (CHATML, "", {"tool_choice": "required"}),
    (CHATML, GOOD_CALL, {"tools": None}),
    (BRACKET, "[THINK]x[/THINK]The answer.", {}),
    (BRACKET, "The answer ü.", {}),
    (BRACKET, '[/THINK][TOOL_CALL][{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "abcdefghi"}]', {}),
    (TAGGED, "<tool_calls>\n<function =get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_calls>",
     {}),
]


# what each regression's headline names: the text the model wrote (None: the output ends there, or the
# lead is about the request), and where the fix belongs
HEADLINES = [
    ("done", "model"), ('city: "Paris', "model"), ("get_wether", "model"), ("<tool_call >\n", "model"),
    (CALL_JSON, "model"), ("```json\n" + CALL_JSON + "\n```", "model"),
    ('{"arguments": {"city": "Paris"}, "name": "get_weather"}', "llama.cpp"), ("</tool_call>", "model"),
    ('{"city": "Par', "request"), ("</think>", "model"), ("<think>", "model"), ("<think>", "request"),
    ("<tool_call>", "model"), ("and é also", "model"), (None, None), ("get_weather(city='Paris')", "model"),
    ("Hello é", "request"), (None, "request"), ("<tool_call>", "request"), ("[THINK]", "model"), (None, "model"),
    ("[TOOL_CALL]", "model"), ("<function =", "model"),
]


@pytest.mark.parametrize("case,headline", list(zip(REGRESSIONS, HEADLINES, strict=True)))
def test_every_finding_gives_one_place(case, headline):
    source, output, kw = case
    wrote, fix = headline
    d = _diagnose(source, output, **kw)
    assert d.findings, "each regression case has something to explain"
    assert_one_place(d)
    if fix is None:  # a mention of the tool in prose: a note only, the headline says the parse is clean
        assert d.lead is None and d.headline.endswith("no check found anything wrong.")
    else:
        lead = d.lead
        assert_headline(d, wrote=wrote, fix=fix, at=lead.span[0] if lead.span else None)


@pytest.mark.parametrize("source,output", [
    (FUNCTIONARY_MINI, " " + FN_CALL), (FUNCTIONARY_MINI, "all\nhi>>> " + FN_CALL),
    (FUNCTIONARY_MINI, ">>>" + FN_CALL), (GPT_OSS_MINI, GPT_CALL.replace("functions.", "")),
    (GPT_OSS_MINI, GPT_CALL.replace("<|message|>", "")), (GPT_OSS_MINI, GPT_CALL.replace("<|call|>", "<|end|> more")),
])
def test_routed_handlers_give_one_place(source, output):
    assert_one_place(_diagnose(source, output, analysis=False))


@pytest.mark.parametrize("output", [GOOD_CALL[:30], GOOD_CALL[:45], "<think>still thinking é", GOOD_CALL[:5]])
def test_partial_findings_give_one_place(output):
    assert_one_place(_diagnose(CHATML, output, is_partial=True))


def test_parse_error_and_llama_cpps_offset_are_two_findings():
    """The furthest failure (the mismatch) and llama.cpp's offset (the start of the call that
    failed) are different places: one finding each, never one finding with both."""
    output = "<think>é</think>\n" + GOOD_CALL.replace('"city"', "city")
    d = _diagnose(CHATML, output)
    cause, reported = d.by_check("parse-error")
    assert cause.severity == "cause" and reported.severity == "info"
    assert cause.span[0] == output.index("city")
    assert reported.span[0] == output.index("<tool_call>")
    assert d.error is not None and d.error.location is not None
    assert reported.place.llama_offset == d.error.location.offset  # what llama.cpp's error says
    assert f"(offset {d.error.location.offset})" in reported.detail
    assert "(offset" not in cause.detail
    assert_headline(d, wrote='city: "Paris', fix="model", at=output.index("city"),
                    says=(f"warning starts at llama.cpp offset {reported.place.llama_offset}",))


def test_one_finding_when_llama_cpps_offset_is_the_mismatch():
    output = "é\n" + GOOD_CALL + " done"
    d = _diagnose(CHATML, output)
    (f,) = d.by_check("parse-error")
    assert f.place.llama_offset == d.error.location.offset
    assert f.place.where() in f.summary
    # one place: no second position in the headline
    assert_headline(d, wrote="done", fix="model", at=output.index("done")) and "warning starts" not in d.headline


def test_place_counts_characters_bytes_and_lines():
    place = Place.of("é\nab", "<gp>", 3)
    assert (place.char, place.line, place.column, place.pos, place.llama_offset) == (3, 2, 2, 4, 8)
    # llama-server's own numbers first: a user comes with the log's offset or pos
    assert place.where() == "llama.cpp offset 8 (older builds' pos 4; output character 3, line 2, column 2)"
    names = [name for name, _ in place.coordinates()]
    assert names == ["llama.cpp offset", "older builds' pos", "output character", "line:column"]


PIECES = st.sampled_from(["<tool_call>", "<tool_call>\n", "<tool_call >", "</tool_call>", "<think>", "</think>",
                          "{", "}", '"name"', ": ", '"get_weather"', '"arguments"', ",", "\n", " ", "x", "```json",
                          "get_weather(", ")", "[", "]", "é", "😀", "get_wether", '{"city": "Paris"}'])


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(PIECES, max_size=24).map("".join), st.booleans())
def test_any_output_gives_one_place_per_finding(output, partial):
    assert_one_place(_diagnose(CHATML, output, is_partial=partial))


def test_llama_cpps_rejects_in_the_oracle_fixtures_give_one_place():
    """The canitoolcall fixtures llama.cpp rejects (../shared/oracle/parse), replayed as the
    oracle did: every finding of their diagnoses has one place."""
    import json

    from oracle_data import ORACLE, oracle_available

    if not oracle_available():
        pytest.skip("../shared/oracle is absent (not a developer machine)")
    canitoolcall = pytest.importorskip("canitoolcall.fixtures")
    fixtures = {f.id: f for f in canitoolcall.load_fixtures()}
    rows = [json.loads(line) for path in sorted((ORACLE / "parse").glob("*.jsonl"))
            for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    rejects = [r for r in rows if r["exception"] is not None and r["id"] in fixtures]
    assert len(rejects) >= 39
    for row in rejects:
        fixture = fixtures[row["id"]]
        source = (ORACLE / "templates" / row["template"]).read_text(encoding="utf-8")
        req = Request(messages=({"role": "user", "content": "Hello"},), tools=tuple(fixture.tools),
                      tool_choice="auto", parallel_tool_calls=row["parallel_tool_calls"],
                      enable_thinking=row["enable_thinking"], chat_template_kwargs=row["chat_template_kwargs"])
        params = apply_template(source, req)
        analysis = template_analysis(compile_template(source)) if params.handler == "autoparser" else None
        assert_one_place(diagnose(params, req, fixture.raw_output, analysis=analysis))
