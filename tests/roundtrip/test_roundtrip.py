"""The round-trip self-test on rules and templates we wrote ourselves.

Cut/strip expectations follow the oracle README's rules ("Round-trip cases") on small
hand-made strings; template expectations are read off the built-in example templates
(explorer/examples) by hand.
"""

from __future__ import annotations

import json

import pytest

from explorer.cli import main
from explorer.roundtrip import (
    DEFAULT_MESSAGES,
    compare,
    cut_reply,
    probe_end_marker,
    roundtrip_report,
    strip_end,
)
from explorer.sources import from_example

# --- cutting ---------------------------------------------------------------------------


def test_prompt_prefix_cut() -> None:
    cut = cut_reply("<u>Hi</u><a>Hello</a>", "<u>Hi</u><a>", "<a>")
    assert (cut.rule, cut.raw_output, cut.prompt_is_prefix) == ("prompt", "Hello</a>", True)


def test_generation_prompt_found_after_extra_prompt_text() -> None:
    # the prompt adds closing instructions before G; the rendering has G right after the history
    cut = cut_reply("U|<bot>reply", "U|RULES<bot>", "<bot>")
    assert (cut.rule, cut.raw_output) == ("generation_prompt_found", "reply")


def test_snap_stays_inside_generation_prompt() -> None:
    # G opens an empty thinking block that the rendered turn lacks
    cut = cut_reply("U\n<a>\nHello", "U\n<a>\n<think></think>", "<a>\n<think></think>")
    assert (cut.rule, cut.raw_output) == ("snapped_in_generation_prompt", "Hello")
    assert cut.prompt_unmatched == "<think></think>"


def test_snap_never_splits_a_marker() -> None:
    cut = cut_reply("U:<|START_RESPONSE|>ok", "U:<|START_THINKING|>", "")
    assert (cut.rule, cut.raw_output, cut.raw_output_simple) == ("snapped", "<|START_RESPONSE|>ok", "RESPONSE|>ok")


def test_generation_prompt_tail_found() -> None:
    # the README's example: the prompt ends <think></think>, the rendering goes on </think>...
    cut = cut_reply("U<A></think>The weather", "U<A><think></think>", "<A><think></think>")
    assert (cut.rule, cut.raw_output) == ("generation_prompt_tail_found", "The weather")


# --- end marker and strip ------------------------------------------------------------


def test_end_marker_probe() -> None:
    marker = probe_end_marker("<a>X<|end|>\n", "<a>XY<|end|>\n")
    assert (marker.probe, marker.marker) == ("ok", "<|end|>\n")
    assert probe_end_marker("<a>X!", "<a>XY?").probe == "ambiguous"


@pytest.mark.parametrize("raw, marker, stops, want", [
    ("hi<|end|>\n", "<|end|>\n", (), ("hi", "end_marker", "<|end|>\n")),
    ("hi<|end|>  ", "<|end|>\n", (), ("hi", "end_marker_trimmed", "<|end|>  ")),
    ("hi<|eom|>\n", "<|end|>\n", ("<|eom|>",), ("hi", "additional_stop", "<|eom|>\n")),
    ("hi<|call|>", "<|end|>", (), ("hi<|call|>", "none", "")),
    ("hi", "", (), ("hi", "none", "")),
])
def test_strip_rules(raw: str, marker: str, stops: tuple[str, ...], want: tuple[str, str, str]) -> None:
    s = strip_end(raw, marker, stops)
    assert (s.text, s.rule, s.suffix) == want


# --- comparison ------------------------------------------------------------------------

CALL = {"role": "assistant", "content": "", "tool_calls": [
    {"id": "x", "type": "function", "function": {"name": "f", "arguments": {"a": 1, "b": [True]}}}]}


def _result(content: str = "", reasoning: str = "", calls: tuple[tuple[str, str], ...] = ()) -> dict:
    return {"role": "assistant", "content": content, "reasoning_content": reasoning,
            "tool_calls": [{"name": n, "arguments": a, "id": ""} for n, a in calls]}


def test_compare_arguments_as_json_values() -> None:
    assert compare(CALL, _result(calls=(("f", '{"b": [true], "a": 1.0}'),))).equal
    got = compare(CALL, _result(calls=(("f", '{"a": 1, "b": [1]}'),)))
    assert got.diff == ("tool_calls[0].arguments",)
    assert compare(CALL, _result(calls=(("g", "{not json"),))).diff == ("tool_calls[0].name", "tool_calls[0].arguments")
    assert compare(CALL, _result()).diff == ("tool_calls.count(1->0)",)
    assert compare(CALL, None).diff == ("no_result",)


def test_compare_trimmed() -> None:
    message = {"role": "assistant", "content": "Hi", "reasoning_content": "think"}
    got = compare(message, _result(" Hi\n", "think\n"))
    assert (got.equal, got.equal_trimmed, got.diff) == (False, True, ("content", "reasoning_content"))


# --- the built-in examples ---------------------------------------------------------------


def _cases(name: str, thinking: bool, **kw: object) -> dict:
    report = roundtrip_report(from_example(name).text, enable_thinking=thinking, **kw)
    return {c.message_id: c for c in report.cases}


def test_chatml_example_round_trips_content_and_calls() -> None:
    cases = _cases("chatml-think-tools", True)
    a = cases["a"]
    assert (a.cut_rule, a.raw_output, a.strip_rule) == ("prompt", "The weather in Paris is sunny.<|im_end|>\n", "end_marker")
    assert a.raw_output_stripped == "The weather in Paris is sunny." and a.equal
    for mid in ("c", "d", "g-escapes", "i-nested"):
        assert cases[mid].equal, (mid, cases[mid].diff, cases[mid].explanation)
    # the template writes "\n" between content and the call; the parser keeps it in content
    assert (cases["f"].diff, cases["f"].equal_trimmed) == (("content",), True)
    assert cases["b"].equal_trimmed and cases["e"].equal_trimmed


def test_chatml_example_grammar_verdicts() -> None:
    c = _cases("chatml-think-tools", True)["c"]
    verdicts = {v.label: v for v in c.grammar}
    assert verdicts["rendered"].accepted
    assert not verdicts["misspelled function name"].accepted
    assert not verdicts["broken JSON"].accepted
    assert not c.grammar_rejects_own_output


def test_chatml_example_without_thinking_cuts_inside_the_generation_prompt() -> None:
    cases = _cases("chatml-think-tools", False, grammar=False)
    # the prompt ends with an empty <think></think> block the rendered turn lacks
    assert cases["a"].cut_rule == "snapped_in_generation_prompt"
    assert cases["a"].equal and cases["c"].equal
    # the turn's reasoning block comes after G's closed block: it parses as content
    assert "reasoning_content" in cases["b"].diff
    assert any("closes the thinking block" in n for n in cases["b"].explanation)


def test_plain_chat_example_drops_reasoning_and_calls() -> None:
    cases = _cases("plain-chat", True)
    assert cases["a"].equal
    assert (cases["a"].strip_rule, cases["a"].strip.suffix) == ("end_marker", "<end_of_turn>\n")
    assert cases["b"].diff == ("reasoning_content",)
    assert any("drops reasoning_content" in n for n in cases["b"].explanation)
    assert cases["c"].diff == ("tool_calls.count(1->0)",)
    assert any("drops tool calls" in n for n in cases["c"].explanation)
    assert cases["d"].diff == ("tool_calls.count(2->0)",)


def test_default_messages_cover_the_oracle_and_extras() -> None:
    ids = [mid for mid, _ in DEFAULT_MESSAGES]
    assert ids[:6] == ["a", "b", "c", "d", "e", "f"] and len(ids) > 6


def test_every_example_reports_without_errors() -> None:
    from explorer.sources import list_examples

    for name in list_examples():
        for thinking in (False, True):
            report = roundtrip_report(from_example(name).text, enable_thinking=thinking)
            assert len(report.cases) == len(DEFAULT_MESSAGES)
            for case in report.cases:
                assert case.explanation, (name, case.message_id)
                json.dumps(case.to_json())


# --- CLI -------------------------------------------------------------------------------


def test_cli_table_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["roundtrip", "example:plain-chat", "--thinking", "false"]) == 0
    out = capsys.readouterr().out
    assert "what differs" in out and "tool_calls.count(1->0)" in out
    assert main(["roundtrip", "example:chatml-think-tools", "--json", "--no-grammar"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["cases"][0]["id"] == "a" and data["cases"][0]["roundtrip_equal"] is True


def test_cli_error_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["roundtrip", "/nonexistent/template.jinja"]) == 1
