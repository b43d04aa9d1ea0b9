"""The Try-it page's round trip: the prefilled raw-output box, the verdict table, the case buttons.

Unit tests of ``explorer.ui_support.roundtrip_view`` use hand-built reports; the page tests
run the app under AppTest. Expected replies are derived by hand from the example
templates' text (how each renders an assistant turn), or read from llama.cpp's own round
trips (the oracle's roundtrip.jsonl), never from our output.
"""

from __future__ import annotations

import json
from datetime import datetime

import pytest
from streamlit.testing.v1 import AppTest

from apptest_support import md_plain
from explorer import ui_support as ui
from explorer.roundtrip import ORACLE_MESSAGES, Comparison, GrammarVerdict, RoundTripCase, RoundTripReport, Strip
from explorer.ui_support import roundtrip_view as rv
from oracle_data import ORACLE, PROJECT_ROOT, load_oracle_template, requires_oracle

ROOT = PROJECT_ROOT
APP = str(ROOT / "app.py")
TRY = "pages/try_it_page.py"
CHATML, BRACKET = "chatml-think-tools", "bracket-tool-calls"

pytestmark = pytest.mark.timeout(600)

# --- unit tests: roundtrip_view --------------------------------------------------------

MESSAGES = dict(ORACLE_MESSAGES)


@pytest.mark.parametrize(("mid", "kind"), [
    ("a", "reply"),
    ("b", "reasoning + reply"),
    ("c", "tool call (get_weather)"),
    ("d", "2 tool calls (get_weather, search)"),
    ("e", "reasoning + tool call (get_weather)"),
    ("f", "reply + tool call (get_weather)"),
])
def test_message_kind_names_what_an_assistant_message_holds(mid, kind):
    assert rv.message_kind(MESSAGES[mid]) == kind


def test_message_kind_of_bare_calls_and_of_an_empty_message():
    assert rv.message_kind({"role": "assistant", "tool_calls": [{"name": "x"}, {"name": "y"}]}) == "2 tool calls (x, y)"
    assert rv.message_kind({"role": "assistant", "content": ""}) == "empty message"


def verdict(label="rendered", accepted=True, should=True, message="", char=None) -> GrammarVerdict:
    return GrammarVerdict(label, "text", accepted, should, message, char)


def case(mid="c", *, reply="REPLY", equal=True, trimmed=True, result=True, refused=False, grammar=(),
         explanation=("round-trips exactly",), message=None) -> RoundTripCase:
    msg = message if message is not None else MESSAGES.get(mid, MESSAGES["c"])
    if refused:
        return RoundTripCase(mid, msg, None, "P", "G", render_exception={"type": "TemplateRaisedError",
                                                                         "message": "no assistant turns"},
                             explanation=("the template refuses to render this message: no assistant turns",))
    parsed = {"content": "", "tool_calls": []} if result else None
    comparison = (Comparison(equal, trimmed, () if equal else ("content",)) if result
                  else Comparison(False, False, ("no_result",)))
    return RoundTripCase(mid, msg, "R", "P", "G", strip=Strip(reply, "end_marker", "<|end|>"), result=parsed,
                         exception=None if result else {"type": "std::runtime_error", "message": "no match"},
                         comparison=comparison, explanation=explanation, grammar=tuple(grammar))


def report(*cases, has_grammar=True, lazy=True) -> RoundTripReport:
    return RoundTripReport(True, "autoparser", "peg-native", "G", (), True, lazy, has_grammar, tuple(cases))


def test_verdict_words():
    assert rv.verdict_text(verdict()) == "accepts the reply ✓"
    assert rv.verdict_text(verdict("broken JSON", False, False)) == "rejects broken JSON ✓"
    assert rv.verdict_text(verdict(accepted=False)) == "rejects the reply ✗ (should accept)"
    assert rv.verdict_text(verdict("misspelled function name", True, False)) == \
        "accepts misspelled function name ✗ (should reject)"
    assert rv.verdict_text(verdict(should=None)) == "accepts the reply (no expectation)"
    assert rv.verdict_text(verdict(accepted=False, char=True)).endswith(
        "(llguidance only: a character-level reading of the GBNF accepts it)")
    assert rv.verdict_text(verdict("grammar error", False, None, "bad rule")) == "the grammar does not load: bad rule"


def test_case_rows_outcomes_and_cells():
    rows = rv.case_rows(report(
        case("a", grammar=[verdict()]),
        case("b", equal=False, explanation=("reasoning differs", "equal once surrounding whitespace is trimmed")),
        case("c", equal=False, trimmed=False, explanation=("lost the call",)),
        case("d", result=False, explanation=("the parser rejected the reply (no match)",)),
        case("e", refused=True),
    ))
    assert [r.outcome for r in rows] == ["exact", "trimmed", "lossy", "rejected", "refused"]
    assert [r.outcome_label for r in rows][:2] == ["✓ round-trips", "≈ equal once trimmed"]
    assert [(r.equal, r.equal_trimmed) for r in rows] == [("yes", "yes"), ("no", "yes"), ("no", "no"), ("no", "no"),
                                                         ("-", "-")]
    assert rows[1].lost == "reasoning differs; equal once surrounding whitespace is trimmed"
    assert rows[0].grammar == "accepts the reply ✓"
    assert rows[1].grammar == "-"  # rendered, but no verdicts
    assert rows[4].reply is None and rows[4].lost.startswith("the template refuses")
    assert rows[3].calls == ("get_weather", "search")
    table = rv.table_rows(rows)
    assert list(table[0]) == ["message", "kind", "result", "equal", "equal_trimmed", "what was lost", "grammar"]
    assert table[4]["kind"] == "reasoning + tool call (get_weather)"
    assert rv.case_rows(report(case("a"), has_grammar=False))[0].grammar == "no grammar (output is free text)"


def test_a_grammar_rejecting_a_round_tripping_reply_raises_the_alarm():
    rejecting = case("c", grammar=[verdict(accepted=False, message="token not allowed")])
    row = rv.case_rows(report(rejecting))[0]
    assert row.alarm is not None and "message c" in row.alarm and "token not allowed" in row.alarm
    assert row.checker_note is None
    # when the character-level reading accepts the reply, llguidance alone refuses it: a note, no alarm
    lexer_only = case("c", grammar=[verdict(accepted=False, char=True)])
    row = rv.case_rows(report(lexer_only))[0]
    assert row.alarm is None and row.checker_note is not None
    # a reply that does not round-trip sets no expectation, so a refusal is no alarm
    lossy = case("c", equal=False, trimmed=False, grammar=[verdict(accepted=False, should=None)])
    assert rv.case_rows(report(lossy))[0].alarm is None


def test_summary_and_all_refused():
    rep = report(case("a"), case("b", equal=False), case("c", equal=False, trimmed=False))
    assert rv.summary(rep).startswith("1 of 3 messages round-trip exactly, 2 once surrounding whitespace is trimmed")
    assert "a lazy grammar" in rv.summary(rep)
    assert rv.all_refused(rep) is None
    assert rv.all_refused(report(case("a", refused=True), case("c", refused=True))) == "no assistant turns"
    assert rv.all_refused(report()) is None


def test_prefill_prefers_a_round_tripping_tool_call():
    rep = report(case("a", reply="plain"), case("c", reply="call c", equal=False, trimmed=False),
                 case("e", reply="call e"), case("d", reply="calls d"))
    pick = rv.choose_prefill(rep, ["get_weather", "search"])
    assert (pick.message_id, pick.text) == ("e", "call e")
    assert "round-trips" in pick.why


def test_prefill_takes_a_parsed_call_that_names_its_tool_when_none_round_trips():
    rep = report(case("a", reply="plain"),
                 case("c", reply="<x>get_weather</x>", equal=False, trimmed=False, result=False),
                 case("e", reply="no name here", equal=False, trimmed=False),
                 case("f", reply="<call get_weather>", equal=False, trimmed=False))
    assert rv.choose_prefill(rep, ["get_weather"]).message_id == "f"


def test_prefill_skips_calls_of_tools_the_request_does_not_offer():
    rep = report(case("a", reply="plain"), case("d", reply="calls d"), case("c", reply="call c"))
    assert rv.choose_prefill(rep, ["get_weather"]).message_id == "c"
    assert rv.choose_prefill(rep, ["search"]).message_id == "a"
    assert rv.choose_prefill(rep, []).message_id == "a"
    assert rv.choose_prefill(rep, None).message_id == "d"  # None: any tool


def test_prefill_falls_back_to_a_plain_reply_then_to_nothing():
    # a template that drops tool calls: empty replies for the call messages
    rep = report(case("b", reply="thinking and reply"), case("c", reply=""), case("a", reply="plain"))
    assert rv.choose_prefill(rep, ["get_weather"]).message_id == "a"
    # a plain reply the parser rejects is still the template's own reply
    assert rv.choose_prefill(report(case("a", reply="plain", result=False)), []).text == "plain"
    assert rv.choose_prefill(report(case("a", refused=True), case("c", refused=True)), ["get_weather"]) is None


def test_should_prefill_only_an_untouched_box():
    assert rv.should_prefill(None, None)
    assert rv.should_prefill("old prefill", "old prefill")
    assert not rv.should_prefill("typed by the user", "old prefill")
    assert not rv.should_prefill("from a link", None)
    assert not rv.should_prefill("", "old prefill")  # the user cleared it


def test_tool_names_and_missing_tools():
    tools = [{"type": "function", "function": {"name": "get_weather"}}, {"name": "bare"}, {"function": {}}]
    assert rv.tool_names(tools) == ["get_weather", "bare"]
    assert rv.tool_names(None) == []
    assert rv.missing_tools(("get_weather", "search", "search"), ["get_weather"]) == ["search"]


# A template of our own: ChatML turns, calls as JSON in <tool_call> tags after the content.
OWN = (
    "{%- for m in messages %}<|im_start|>{{ m.role }}\n"
    "{% if m.content %}{{ m.content }}{% endif %}"
    "{% for c in m.tool_calls or [] %}<tool_call>{\"name\": \"{{ c.function.name }}\", \"arguments\": "
    "{{ c.function.arguments | tojson }}}</tool_call>{% endfor %}<|im_end|>\n{% endfor %}"
    "{%- if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def test_prefill_of_a_real_report_is_the_rendered_call():
    from explorer.roundtrip import roundtrip_report

    rep = roundtrip_report("{%- if tools %}<|tools|>{{ tools | tojson }}{% endif %}" + OWN, enable_thinking=False)
    pick = rv.choose_prefill(rep, ["get_weather"])
    # message c (one get_weather call, Paris in degrees c) rendered by the template, end marker cut off;
    # tojson writes ", " and ": " between items as llama.cpp's does
    assert pick is not None
    assert pick.text == '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "unit": "c"}}</tool_call>'


# --- the page -----------------------------------------------------------------------------


def page(request: ui.SourceRequest, **state) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["source_request"] = request
    for key, value in state.items():
        at.session_state[key] = value
    at.run()
    at.switch_page(TRY).run()
    return at


def texts(at: AppTest) -> str:
    parts = [str(e.value) for kind in ("markdown", "caption", "error", "warning", "info", "subheader")
             for e in getattr(at, kind)]
    return "\n".join(parts)


def box(at: AppTest) -> str:
    return at.text_area(key="try_output").value


def verdict_table(at: AppTest):
    return next(t.value for t in at.table if "what was lost" in t.value.columns)


def call_names_shown(at: AppTest) -> list[str]:
    tables = [t.value for t in at.table if "arguments" in t.value.columns]
    return list(tables[0]["name"]) if tables else []


def examples_with_tools() -> list[str]:
    from explorer.caps import detect_caps
    from explorer.render import compile_template
    from explorer.sources import from_example, list_examples

    return [n for n in list_examples() if detect_caps(compile_template(from_example(n).text)).supports_tool_calls]


# By hand from each example's text: the reply of a get_weather(city=Paris, unit=c) call as the
# template renders it (thinking on, the page's default), after the generation prompt and before
# the end-of-turn text.
HAND_PREFILLS = {
    # Hermes JSON in <tool_call> tags, the turn closed by <|im_end|>
    CHATML: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "unit": "c"}}\n</tool_call>',
    # the generation prompt opens [THINK], which a call-only turn lacks: the reasoning + call message
    # (e) is the one whose reply starts inside that block; the template writes the call's id
    BRACKET: 'The user wants weather. I should call get_weather.[/THINK][TOOL_CALLS][{"name": "get_weather", '
             '"arguments": {"city": "Paris", "unit": "c"}, "id": "call_1"}]',
    # one <parameter=KEY> block per argument, in the arguments' order
    "tagged-parameters": "<tool_calls>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
                         "<parameter=unit>\nc\n</parameter>\n</function>\n</tool_calls>",
    # the end-of-turn text probed on a plain reply is '</answer><|end|>\n', so a call turn keeps its
    # '<|end|>\n' and the parser refuses it: the box falls back to the plain reply, '</answer>' cut off
    "wrapped-answer-tag-json": "<answer>The weather in Paris is sunny.",
}


@pytest.mark.parametrize("example", examples_with_tools())
def test_the_box_starts_with_the_templates_own_round_trip_reply(example):
    from explorer.roundtrip import roundtrip_report
    from explorer.sources import from_example

    at = page(ui.SourceRequest("example", name=example))
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    rep = roundtrip_report(from_example(example).text, enable_thinking=True)
    pick = rv.choose_prefill(rep, ["get_weather"])
    assert pick is not None
    assert box(at) == pick.text
    if example in HAND_PREFILLS:
        assert box(at) == HAND_PREFILLS[example]
    chosen = next(c for c in rep.cases if c.message_id == pick.message_id)
    if chosen.equal_trimmed:  # a reply that round-trips parses to its calls on the page too
        assert call_names_shown(at) == rv.call_names(chosen.message)
    assert "The box starts with the template's own reply" in texts(at)


def test_the_verdict_table_has_a_row_per_message():
    at = page(ui.SourceRequest("example", name=CHATML))
    table = verdict_table(at)
    assert list(table["message"]) == ["a", "b", "c", "d", "e", "f", "g-escapes", "h-unicode", "i-nested"]
    assert list(table["kind"])[:6] == ["reply", "reasoning + reply", "tool call (get_weather)",
                                      "2 tool calls (get_weather, search)", "reasoning + tool call (get_weather)",
                                      "reply + tool call (get_weather)"]
    # the plain reply and the single call render exactly as the format reads them back
    rows = {r["message"]: r for r in table.to_dict("records")}
    assert rows["a"]["result"] == "✓ round-trips" and rows["a"]["equal"] == "yes"
    assert rows["c"]["result"] == "✓ round-trips"
    # the lazy tool grammar must take the rendered call and refuse its manglings
    assert rows["c"]["grammar"] == ("accepts the reply ✓; rejects misspelled function name ✓; "
                                    "rejects broken JSON ✓")
    assert any(s.value == "Round trip" for s in at.subheader)
    assert any(e.label.startswith("Verdicts per message (") for e in at.expander)


def test_a_case_button_loads_that_reply_and_the_tools_it_needs():
    at = page(ui.SourceRequest("example", name=CHATML))
    at.button(key="try_rt_a").click().run()
    assert not at.exception
    assert box(at) == "The weather in Paris is sunny."
    assert "Loaded the reply of message a (reply)." in texts(at)
    # d calls get_weather and search; the page offers only get_weather, so the tools switch
    at.button(key="try_rt_d").click().run()
    assert not at.exception
    assert box(at) == ('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Zürich"}}\n</tool_call>\n'
                       '<tool_call>\n{"name": "search", "arguments": {"query": "he said \\"hi\\"\\nnew line", '
                       '"limit": 3}}\n</tool_call>')
    assert "It calls search" in texts(at)
    tools = json.loads(at.text_area(key="try_req_tools").value)
    assert [t["function"]["name"] for t in tools] == ["get_weather", "search", "create_event"]
    assert not at.error, [e.value for e in at.error]
    assert call_names_shown(at) == ["get_weather", "search"]


def test_the_prefill_follows_thinking_until_the_user_types():
    at = page(ui.SourceRequest("example", name=BRACKET))
    assert box(at) == HAND_PREFILLS[BRACKET]
    at.toggle(key="try_req_thinking").set_value(False).run()
    # thinking off: no [THINK] in the generation prompt, so the call-only message c is the reply
    assert box(at) == ('[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris", "unit": "c"}, '
                       '"id": "call_1"}]')
    at.text_area(key="try_output").input("my own output").run()
    at.toggle(key="try_req_thinking").set_value(True).run()
    assert box(at) == "my own output"


def test_a_link_output_is_not_replaced_by_the_prefill():
    link = ui.Permalink(page="try", example=CHATML, output="from the link")
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(ui.encode_permalink(link))
    at.run()
    assert not at.exception
    assert box(at) == "from the link"


ASSISTANT_REFUSED = (
    "{%- for m in messages %}{% if m.role == 'assistant' %}{{ raise_exception('assistant turns are not "
    "supported') }}{% endif %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def test_a_template_that_throws_on_every_probe_still_renders_the_page():
    at = page(ui.SourceRequest("text", text=ASSISTANT_REFUSED))
    assert not at.exception, [e.value for e in at.exception]
    assert box(at) == ""
    warned = " ".join(w.value for w in at.warning)
    assert "refuses to render any assistant message" in warned and "assistant turns are not supported" in warned
    assert set(verdict_table(at)["result"]) == {"! template refuses"}
    assert not [b for b in at.button if b.key and b.key.startswith("try_rt_")]


def test_a_template_that_always_raises_shows_the_error_in_place():
    at = page(ui.SourceRequest("text", text="{{ raise_exception('boom') }}"))
    assert not at.exception, [e.value for e in at.exception]
    assert any("boom" in e.value for e in at.error)


def test_a_failing_round_trip_is_an_error_in_its_section(monkeypatch):
    from explorer.errors import RequestError
    from explorer.session import TemplateSession

    def broken(*_args, **_kwargs):
        raise RequestError("the next-turn request failed: expected a message list, found nothing")

    # the page's round trip is the session's
    monkeypatch.setattr(TemplateSession, "roundtrip", broken)
    # a text of its own, so no cached report from another test answers
    at = page(ui.SourceRequest("text", text=OWN + "{# failing round trip #}"))
    assert not at.exception, [e.value for e in at.exception]
    assert any("round-tripping the template's own replies: the next-turn request failed" in e.value for e in at.error)
    assert box(at) == ""
    # the rest of the page still works
    at.text_area(key="try_output").input("Hello there").run()
    assert not at.exception
    assert any(s.value == "Parsed message" for s in at.subheader)


def test_a_grammar_that_rejects_its_own_parsers_output_is_a_loud_warning(monkeypatch):
    from explorer.session import TemplateSession

    rejecting = report(case("c", reply="<tool_call>x</tool_call>",
                            grammar=[verdict(accepted=False, message="stopped at byte 3")]), case("a", reply="hi"))
    monkeypatch.setattr(TemplateSession, "roundtrip", lambda *_a, **_k: rejecting)
    at = page(ui.SourceRequest("text", text=OWN + "{# rejecting grammar #}"))
    assert not at.exception, [e.value for e in at.exception]
    loud = [w.value for w in at.warning if "Grammar rejects its own parser's output" in w.value]
    assert len(loud) == 1 and "message c" in loud[0] and "stopped at byte 3" in loud[0]
    assert box(at) == "<tool_call>x</tool_call>"


# --- against llama.cpp's own round trips (the oracle) ---------------------------------------


def oracle_prefills() -> list[tuple[str, bool, str]]:
    """(template, enable_thinking, the reply the box must start with) from the oracle's round trips.

    The page offers get_weather, so of the oracle's messages c, e and f (the ones calling only
    get_weather) the first that llama.cpp round-trips (whitespace aside) is the prefill.
    Templates where none does are left out (the box then takes a message the oracle lacks).
    A sample keeps the run short: thinking on, every template whose pick is e and every eighth
    of the rest; thinking off, every tenth.
    """
    from oracle_data import ORACLE, oracle_available

    if not oracle_available():
        return []
    lines: dict[tuple[str, bool], dict[str, dict]] = {}
    for raw in (ORACLE / "roundtrip.jsonl").read_text(encoding="utf-8").splitlines():
        line = json.loads(raw)
        key = (line["template"].removesuffix(".jinja"), line["enable_thinking"])
        lines.setdefault(key, {})[line["id"].split("/")[1]] = line
    picks: dict[bool, list[tuple[str, str, str]]] = {True: [], False: []}
    for (name, thinking), by_id in sorted(lines.items()):
        mid = next((m for m in "cef" if (by_id.get(m) or {}).get("roundtrip_equal_trimmed")), None)
        if mid is not None:
            picks[thinking].append((name, mid, by_id[mid]["raw_output_stripped"]))
    on = [p for p in picks[True] if p[1] == "e"] + [p for p in picks[True] if p[1] != "e"][::8]
    return [(name, True, text) for name, _, text in on] + [(name, False, text) for name, _, text in picks[False][::10]]


@pytest.mark.parametrize(("template", "thinking", "reply"), oracle_prefills() or [pytest.param(
    "-", True, "-", marks=pytest.mark.skip(reason="../shared/oracle is absent"))])
def test_the_prefill_is_llama_cpps_own_cut_reply(template, thinking, reply):
    from oracle_data import load_oracle_template

    at = page(ui.SourceRequest("text", text=load_oracle_template(template)))
    if not thinking:
        at.toggle(key="try_req_thinking").set_value(False).run()
    assert not at.exception, [e.value for e in at.exception]
    assert box(at) == reply


# (Command R+ is not among them: the page's default tools add an array parameter, which its
# template cannot render in llama.cpp -- see the test after this one.)
ORACLE_TABLE_TEMPLATES = ("Qwen-Qwen3-0.6B", "mistralai-Mistral-Nemo-Instruct-2407", "openai-gpt-oss-120b",
                          "Qwen3-Coder")


@pytest.mark.parametrize("template", ORACLE_TABLE_TEMPLATES)
@requires_oracle
def test_the_verdict_table_says_what_llama_cpp_round_trips(template):
    """Messages a-f: equal / equal_trimmed as the oracle's roundtrip_equal(_trimmed), thinking on."""
    want = {}
    for raw in (ORACLE / "roundtrip.jsonl").read_text(encoding="utf-8").splitlines():
        line = json.loads(raw)
        if line["template"] == f"{template}.jinja" and line["enable_thinking"]:
            rendered = line["render_exception"] is None
            want[line["id"].split("/")[1]] = (
                ("yes" if line["roundtrip_equal"] else "no") if rendered else "-",
                ("yes" if line["roundtrip_equal_trimmed"] else "no") if rendered else "-")
    at = page(ui.SourceRequest("text", text=load_oracle_template(template)))
    assert not at.exception, [e.value for e in at.exception]
    rows = {r["message"]: (r["equal"], r["equal_trimmed"]) for r in verdict_table(at).to_dict("records")}
    assert {mid: rows[mid] for mid in want} == want


@requires_oracle
def test_command_r_plus_cannot_render_an_array_parameter_in_llama_cpp():
    """Command R+'s json_to_python_type recurses on ``json_spec.items``. In llama.cpp a member
    name that is a built-in of the object wins (member_expression: try_builtin_func first), so
    that is the object's ``items`` Function; ``json_spec.type`` on a Function then throws
    (value_t::get_builtins: "Function has no builtins"). The page's default tools include
    create_event, whose ``times`` is an array: the round trip says the template fails, on line 10."""
    name = "CohereForAI-c4ai-command-r-plus-tool_use"
    at = page(ui.SourceRequest("text", text=load_oracle_template(name)))
    assert not at.exception, [e.value for e in at.exception]
    errors = " ".join(e.value for e in at.error)
    assert "Function has no builtins" in errors and "line 10" in errors, errors[:600]
    assert not [t for t in at.table if "what was lost" in t.value.columns]


# --- streaming vs the final parse -------------------------------------------------------------


def test_disagreement_in_words():
    from types import SimpleNamespace as M

    from explorer.ui_support import stream_check

    empty = M(content="", reasoning_content="", tool_calls=())
    call = M(name="get_weather", arguments='{"city": "Paris"}', id="")
    with_call = M(content="", reasoning_content="", tool_calls=(call,))
    assert stream_check.disagreement(with_call, None, with_call, None) is None
    assert stream_check.disagreement(None, "no match", None, "no match") is None
    said = stream_check.disagreement(empty, None, None, "does not match")
    assert said == ("while streaming, the whole output parses as an empty message (a client has been sent deltas "
                    "for it), but the final parse throws: does not match")
    assert stream_check.disagreement(None, "boom", with_call, None) == (
        "the partial parse of the whole output throws (boom), but the final parse gives 1 tool call (get_weather)")
    cut = M(content="", reasoning_content="", tool_calls=(M(name="get_weather", arguments='{"city": "Par', id=""),))
    assert stream_check.disagreement(cut, None, with_call, None).endswith("they differ in tool_calls[0].arguments")
    assert stream_check.differing_fields(empty, with_call) == ["tool_calls (count 0 vs 1)"]
    assert stream_check.message_summary(M(content="x" * 80, reasoning_content="r", tool_calls=(call, call))) == (
        "reasoning_content 'r', content '" + "x" * 49 + "…', 2 tool calls (get_weather, get_weather)")


def test_the_oracles_stream_and_final_parses_disagree_exactly_where_the_helper_says():
    """llama.cpp's own streaming_final vs result for every canitoolcall fixture (the oracle's parse files)."""
    from types import SimpleNamespace as M

    from explorer.ui_support import stream_check
    from oracle_data import ORACLE, oracle_available

    if not oracle_available():
        pytest.skip("../shared/oracle is absent")

    def msg(d):
        return None if d is None else M(content=d["content"], reasoning_content=d["reasoning_content"],
                                        tool_calls=tuple(M(**c) for c in d["tool_calls"]))

    flagged = total = 0
    for path in sorted((ORACLE / "parse").glob("*.jsonl")):
        for raw in path.read_text(encoding="utf-8").splitlines():
            line = json.loads(raw)
            total += 1
            said = stream_check.disagreement(msg(line["streaming_final"]), line["streaming_final_exception"],
                                             msg(line["result"]), line["exception"])
            both_threw = line["streaming_final_exception"] is not None and line["exception"] is not None
            differ = not both_threw and (line["streaming_final"] != line["result"])
            assert (said is not None) == differ, line["id"]
            flagged += said is not None
    print(f"{flagged} of {total} oracle parses end streaming somewhere else than the final parse")
    assert flagged > 0


def test_try_it_warns_when_streaming_ends_elsewhere_than_the_final_parse():
    at = page(ui.SourceRequest("example", name=CHATML))
    # a call followed by prose: the final parse rejects it, the partial parse of the same text does not
    # (llama.cpp's pattern in the oracle: streaming_final an empty message, result an exception)
    at.text_area(key="try_output").input(HAND_PREFILLS[CHATML] + " and then some prose").run()
    assert not at.exception
    warned = [w.value for w in at.warning if "Streaming and non-streaming disagree" in w.value]
    assert len(warned) == 1 and "the final parse throws" in warned[0]
    at.text_area(key="try_output").input(HAND_PREFILLS[CHATML]).run()
    assert not [w for w in at.warning if "Streaming and non-streaming disagree" in w.value]


# --- the transformers dialect: the replies the model was trained on ------------------------------

# tagged-parameters prints a non-string argument with tojson; this copy prints it bare, so the two
# engines write nested values differently (docs/jinja-differences.md item 4: llama.cpp prints objects
# and arrays of objects as nothing, jinja2 as Python's str())
def bare_values_template() -> str:
    from explorer.sources import from_example

    text = from_example("tagged-parameters").text
    bare = text.replace("{{- value | tojson }}", "{{- value }}")
    assert bare != text
    return bare


def versus(mid: str, llama_reply: str | None, trained_reply: str | None, *, llama_result=None,
           trained_result=None, trained_refused: str | None = None):
    from explorer.roundtrip import compare_dialects

    def one(reply, result, refused=None):
        if refused is not None:
            return RoundTripCase(mid, MESSAGES["c"], None, "P", "G",
                                 render_exception={"type": "SandboxViolation", "message": refused})
        return RoundTripCase(mid, MESSAGES["c"], "R", "P", "G", strip=Strip(reply, "none", ""), result=result,
                             exception=None if result else {"type": "std::runtime_error", "message": "no match"})

    return compare_dialects(one(llama_reply, llama_result), one(trained_reply, trained_result, trained_refused))


def parsed(args: str) -> dict:
    return {"role": "assistant", "content": "", "reasoning_content": "",
            "tool_calls": [{"name": "get_weather", "arguments": args, "id": ""}]}


def test_dialect_rows_name_what_the_model_was_trained_on():
    from types import SimpleNamespace

    rep = SimpleNamespace(versus=(
        versus("a", "same", "same", llama_result=parsed("{}"), trained_result=parsed("{}")),
        versus("b", '{"x": 2}', '{"x": 2.0}', llama_result=parsed('{"x": 2}'), trained_result=parsed('{"x": 2.0}')),
        versus("c", '{"x": 3.14159}', '{"x": 3.14159265}', llama_result=parsed('{"x": 3.14159}'),
               trained_result=parsed('{"x": 3.14159265}')),
        versus("d", "<a>", "&lt;a&gt;"),
        versus("e", "ok", None, llama_result=parsed("{}"),
               trained_refused="sandbox violation: access to attribute 'append' (line 41: {%- set _ = x.append(1) %})"),
    ))
    rows = {r.message_id: r for r in rv.dialect_rows(rep)}
    assert [rows[m].verdict for m in "abcde"] == ["same", "same_message", "parsed_differently", "both_rejected",
                                                  "transformers_refuses"]
    assert [r["trained vs llama.cpp"] for r in rv.dialect_table_rows(list(rows.values()))] == [
        "= same reply", "≠ reply, same message", "≠ reply, parsed differently", "≠ reply, parser rejects both",
        "! transformers cannot render"]
    assert rows["b"].headline == ("Message b: the model was trained on '{\"x\": 2.0}'; llama.cpp renders "
                                  "'{\"x\": 2}' and parses the trained reply as get_weather({\"x\": 2.0}), "
                                  "the same message as its own rendering.")
    assert rows["c"].headline.endswith("while its own rendering parses as get_weather({\"x\": 3.14159}).")
    assert "parses the trained reply as nothing: the parser rejects it (no match), as it does its own" \
        in rows["d"].headline
    assert rows["e"].headline == ("Message e: transformers cannot render it (sandbox violation: access to "
                                  "attribute 'append' (line 41)), so no model was trained on it as written; "
                                  "llama.cpp renders 'ok'.")
    assert rv.dialect_summary(rep) == ("Of 5 messages, transformers renders 1 exactly as llama.cpp does and 3 "
                                       "differently (1 of them parse to a different message, 1 the parser rejects "
                                       "either way); it cannot render 1.")


def test_differing_parts_keep_a_little_context():
    a = "x" * 50 + "<when></when>" + "y" * 50
    b = "x" * 50 + "<when>{'date': 1}</when>" + "y" * 50
    left, right = rv.differing_parts(a, b, context=6)
    # six shared characters either side of the difference (which starts after '<when>')
    assert left == "…<when></when…"
    assert right == "…<when>{'date': 1}</when…"
    assert rv.differing_parts("ab", "ac") == ("ab", "ac")


def test_markdown_escape_keeps_replies_verbatim():
    assert rv.markdown_escape("<tool_call> *x* [a](b) 1.") == r"\<tool_call\> \*x\* \[a\](b) 1."
    assert rv.markdown_escape("1. first\n- second") == "1\\. first\n\\- second"


def test_the_transformers_dialect_shows_the_trained_round_trip():
    at = page(ui.SourceRequest("text", text=bare_values_template()), dialect="transformers")
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    shown = texts(at)
    assert "rendered as Hugging Face transformers renders training data" in shown
    assert "always renders with llama.cpp's own Jinja engine" not in shown
    labels = [e.label for e in at.expander]
    assert any(label.startswith("Verdicts per message (replies as trained, ") for label in labels)
    assert "Trained reply vs llama.cpp's reply (1/9 differ)" in labels
    table = next(t.value for t in at.table if "trained vs llama.cpp" in t.value.columns)
    verdicts = dict(zip(table["message"], table["trained vs llama.cpp"]))
    assert verdicts.pop("i-nested").startswith("≠ reply")
    assert {md_plain(v) for v in verdicts.values()} == {"= same reply"}
    # jinja2 writes the nested object as Python's str(); llama.cpp writes nothing
    headline = next(md_plain(m.value) for m in at.markdown if md_plain(m.value).startswith("Message i-nested"))
    assert "{'date': '2025-01-02', 'times': [" in headline
    assert "<parameter=when>\\n\\n</parameter>" in headline
    assert "llama.cpp renders" in [c.value for c in at.caption]
    assert "The box starts with the template's own reply as transformers renders it" in shown


def test_the_llama_cpp_dialect_shows_llama_cpps_own_round_trip():
    at = page(ui.SourceRequest("text", text=bare_values_template()))
    assert not at.exception, [e.value for e in at.exception]
    shown = texts(at)
    assert "rendered with llama.cpp's own Jinja engine" in shown
    assert "transformers" not in " ".join(e.label for e in at.expander)
    assert not [t for t in at.table if "trained vs llama.cpp" in t.value.columns]


def test_refusals_are_grouped_by_reason_and_counted_in_the_label():
    from types import SimpleNamespace

    sandbox = "sandbox violation: access to attribute 'append' of 'list' object is unsafe. (line 7: {%- x %})"
    rep = SimpleNamespace(versus=(
        versus("a", "hi", "hi", llama_result=parsed("{}"), trained_result=parsed("{}")),
        versus("c", "call", None, llama_result=parsed("{}"), trained_refused=sandbox),
        versus("d", "calls", None, llama_result=parsed("{}"), trained_refused=sandbox),
        versus("e", '{"x": 2}', '{"x": 2.0}', llama_result=parsed('{"x": 2}'), trained_result=parsed('{"x": 2.0}')),
    ))
    rows = rv.dialect_rows(rep)
    assert rv.refusal_groups(rows) == [
        "transformers cannot render messages c, d (sandbox violation: access to attribute 'append' of 'list' object "
        "is unsafe. (line 7)), which llama.cpp renders: no model was trained on these replies as llama.cpp writes "
        "them."]
    assert rv.dialect_label(rows) == "Trained reply vs llama.cpp's reply (1/4 differ, transformers cannot render 2)"


def test_a_template_transformers_cannot_render_says_so_once():
    """Our own template appends to a list while rendering a call: the immutable sandbox refuses it
    (docs item 11) for every message with a tool call, and only for those."""
    from cases import dialect_template

    at = page(ui.SourceRequest("text", text=dialect_template("append")), dialect="transformers")
    assert not at.exception, [e.value for e in at.exception]
    calls = ["c", "d", "e", "f", "g-escapes", "h-unicode", "i-nested"]
    said = [md_plain(m.value) for m in at.markdown if m.value.startswith("Transformers cannot render")]
    assert len(said) == 1 and said[0].startswith(f"Transformers cannot render messages {', '.join(calls)} (sandbox")
    labels = [e.label for e in at.expander]
    assert "Trained reply vs llama.cpp's reply (0/9 differ, transformers cannot render 7)" in labels
    table = next(t.value for t in at.table if "trained vs llama.cpp" in t.value.columns)
    refused = ["! transformers cannot render"] * 7
    assert [md_plain(v) for v in table["trained vs llama.cpp"]] == ["= same reply", "= same reply"] + refused


def test_the_round_trip_still_shows_when_the_picked_dialect_cannot_build_a_parser():
    """Our template adds ``'\\n' + functions`` (undefined) to the tools header: jinja2 raises
    (docs/jinja-differences.md item 2), so Try it cannot build the request in the transformers
    dialect; the round trip parses with llama.cpp's own parser and is still shown."""
    from cases import dialect_template

    at = page(ui.SourceRequest("text", text=dialect_template("tojson", extra="{{- '\\n' + functions }}")),
              dialect="transformers")
    assert not at.exception, [e.value for e in at.exception]
    assert any("'functions' is undefined" in e.value for e in at.error)  # the parser could not be built
    assert "Round trip" in [h.value for h in at.subheader]
    assert "Parsed message" not in [h.value for h in at.subheader]
    assert any("transformers" in e.label for e in at.expander)


# A ChatML template whose assistant turns show the year strftime_now prints and whether
# enable_thinking is defined: what the Try page's request controls pass to transformers.
DATED = ("{%- for m in messages %}<|im_start|>{{ m.role }}\n"
         "{%- if m.role == 'assistant' %}[{{ strftime_now('%Y') }}|{{ enable_thinking is defined }}]{% endif %}"
         "{{ m.content }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


def test_the_request_controls_fix_the_date_and_can_leave_enable_thinking_unpassed():
    at = page(ui.SourceRequest("text", text=DATED), dialect="transformers", req_thinking_passed=False,
              req_date="2031-03-07")
    assert not at.exception, [e.value for e in at.exception]
    assert at.text_input(key="try_req_date").value == "2031-03-07"
    assert at.toggle(key="try_req_thinking").disabled
    headlines = [m.value for m in at.markdown if m.value.startswith("Message a:")]
    # transformers: the fixed date and no enable_thinking; llama.cpp: its run date, always passed
    assert headlines and "[2031\\|False" in headlines[0] and "[2026\\|True" in headlines[0], headlines
    at.text_input(key="try_req_date").set_value("").run()
    at.toggle(key="try_req_thinking_passed").set_value(True).run()
    # the real clock now, enable_thinking passed: as llama.cpp's reply except in another year than its run date
    table = next(t.value for t in at.table if "trained vs llama.cpp" in t.value.columns)
    verdict = dict(zip(table["message"], table["trained vs llama.cpp"]))["a"]
    assert md_plain(verdict).startswith("= same reply" if datetime.now().year == 2026 else "≠ reply"), verdict


def test_a_bad_date_is_said_in_the_round_trip_section():
    at = page(ui.SourceRequest("text", text=DATED), dialect="transformers", req_date="March 7")
    assert not at.exception, [e.value for e in at.exception]
    assert any("expected an ISO date" in e.value for e in at.error), [e.value for e in at.error]
