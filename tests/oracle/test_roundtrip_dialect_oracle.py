"""The transformers round trip over every oracle template (../shared/oracle/templates).

Each template's oracle messages (a-f, both thinking settings) are rendered by transformers
as well as by llama.cpp and parsed by llama.cpp's parser. The llama.cpp half must be
llama.cpp's own round trip (the oracle's roundtrip.jsonl). The transformers half has no
golden file; its failures and differences were checked by hand against
docs/jinja-differences.md, and each expectation below names the item that explains it.
The figures (templates with a differing reply, how many parse differently) are printed.
"""

from __future__ import annotations

import json
from collections import defaultdict
from functools import cache
from typing import Any

import pytest

from explorer.errors import ExplorerError
from explorer.roundtrip import ORACLE_MESSAGES, ORACLE_TOOLS, RoundTripReport, roundtrip_report
from oracle_data import ORACLE, load_oracle_template, oracle_template_names, requires_oracle

pytestmark = [requires_oracle, pytest.mark.timeout(900)]

# transformers cannot render these messages, which llama.cpp renders (docs item in brackets)
TRANSFORMERS_FAILS = {
    # [2] '"\n" + functions' with functions undefined: every render, the next-turn prompt too
    "fireworks-ai-llama-3-firefunction-v2": ("abcdef", "TemplateRuntimeError", "'functions' is undefined"),
    # [1] an attribute of an undefined value (param_fields.description)
    "CohereForAI-c4ai-command-r-plus-tool_use": ("abcdef", "TemplateRuntimeError", "has no attribute 'description'"),
    # [6] tools | map(...) is a generator in jinja2; json.dumps refuses it
    "llama-cpp-deepseek-r1": ("abcdef", "TemplateRuntimeError", "generator is not JSON serializable"),
    # [11] tool_response_queue.ids.append(...) in the immutable sandbox: tool-call turns only
    "Kimi-K2-Instruct": ("cdef", "SandboxViolation", "'append'"),
    "Kimi-K2-Thinking": ("cdef", "SandboxViolation", "'append'"),
}
# Solar Open starts with `set add_generation_prompt = add_generation_prompt if
# add_generation_prompt is defined else true`: llama.cpp leaves the variable undefined
# when false (docs, "The context each dialect receives"), so its history render ends
# with the generation prompt; transformers passes false. Tool-call turns (c-f) keep it
# in the reply (a and b end in the probed end marker, which includes it).
SOLAR = "upstage-Solar-Open-100B"
SOLAR_TAIL = "<|begin|>assistant"
MINICPM = "openbmb-MiniCPM5-1B"


@cache
def reports() -> dict[tuple[str, bool], RoundTripReport]:
    return {(name, thinking): roundtrip_report(load_oracle_template(name), enable_thinking=thinking,
                                               messages=ORACLE_MESSAGES, tools=ORACLE_TOOLS, grammar=False,
                                               explain=False, dialect="transformers")
            for name in oracle_template_names() for thinking in (False, True)}


def _oracle_lines() -> list[dict[str, Any]]:
    path = ORACLE / "roundtrip.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_the_llama_cpp_half_is_llama_cpps_round_trip() -> None:
    fields = ("raw_output_stripped", "result", "exception", "roundtrip_equal")
    same, mismatches = 0, []
    lines = _oracle_lines()
    for line in lines:
        key = (line["template"].removesuffix(".jinja"), line["enable_thinking"])
        versus = {v.message_id: v for v in reports()[key].versus}[line["id"].split("/")[1]]
        ours = versus.llama.to_json()
        bad = [f for f in fields if ours.get(f) != line.get(f)]
        if bad:
            mismatches.append(f"{line['id']}: {bad}")
        else:
            same += 1
    print(f"\nllama.cpp half: {same}/{len(lines)} oracle lines identical on {', '.join(fields)}", *mismatches[:10],
          sep="\n  ")
    assert not mismatches


def test_figures_and_hand_checked_differences() -> None:
    differing: dict[str, set[str]] = defaultdict(set)
    parse_differently: dict[str, set[str]] = defaultdict(set)
    fails: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for (name, thinking), rep in reports().items():
        for v in rep.versus:
            where = f"{v.message_id}/{str(thinking).lower()}"
            if v.replies_equal is False:
                differing[name].add(where)
                if not v.same_parse:
                    parse_differently[name].add(where)
            exc = v.transformers.render_exception
            if exc is not None and v.llama.render_exception is None:
                fails[name].add((v.message_id, exc["type"]))
    total = len({name for name, _ in reports()})
    print(f"\ntransformers round trip over {total} oracle templates x 6 messages x 2 thinking settings:")
    print(f"  templates with a message whose transformers reply differs from llama.cpp's: {len(differing)}")
    for name, where in sorted(differing.items()):
        print(f"    {name}: {', '.join(sorted(where))}")
    print(f"  of those, templates where the two replies parse to different messages: {len(parse_differently)}")
    for name, where in sorted(parse_differently.items()):
        print(f"    {name}: {', '.join(sorted(where))}")
    print(f"  templates transformers cannot render (some message llama.cpp renders): {len(fails)}")
    for name, what in sorted(fails.items()):
        print(f"    {name}: {', '.join(sorted({m for m, _ in what}))} ({', '.join(sorted({t for _, t in what}))})")
    assert set(differing) == {SOLAR}
    assert not parse_differently
    assert set(fails) == set(TRANSFORMERS_FAILS)


@pytest.mark.parametrize("name", sorted(TRANSFORMERS_FAILS))
def test_documented_transformers_failures(name: str) -> None:
    letters, kind, words = TRANSFORMERS_FAILS[name]
    for thinking in (False, True):
        for v in reports()[(name, thinking)].versus:
            exc = v.transformers.render_exception
            if v.message_id in letters:
                assert exc is not None and exc["type"] == kind and words in exc["message"], (v.message_id, exc)
                assert v.replies_equal is None and v.same_parse is None
            else:
                assert exc is None and v.replies_equal is True


def test_solar_open_history_ends_with_the_generation_prompt_only_in_llama_cpp() -> None:
    oracle = {line["id"]: line for line in _oracle_lines() if line["template"] == SOLAR + ".jinja"}
    for thinking in (False, True):
        for v in reports()[(SOLAR, thinking)].versus:
            line = oracle[f"{SOLAR}/{v.message_id}/{str(thinking).lower()}"]
            assert line["raw_output"].endswith(SOLAR_TAIL)  # llama.cpp's own rendering
            if v.message_id in "cdef":
                assert v.llama_reply == v.transformers_reply + SOLAR_TAIL
                assert v.same_parse is True
            else:
                assert v.replies_equal is True


COMMAND_R_PLUS = "CohereForAI-c4ai-command-r-plus-tool_use"


def _default_report(name: str, thinking: bool) -> RoundTripReport | ExplorerError:
    try:
        return roundtrip_report(load_oracle_template(name), enable_thinking=thinking, grammar=False,
                                explain=False, dialect="transformers")
    except ExplorerError as exc:
        return exc


@cache
def default_reports() -> dict[tuple[str, bool], RoundTripReport | ExplorerError]:
    """The page's own inputs: messages a-f plus escapes, non-ASCII and nested arguments (and a
    tool with an array parameter), or the error llama.cpp's next-turn request raises."""
    return {(name, thinking): _default_report(name, thinking)
            for name in oracle_template_names() for thinking in (False, True)}


def test_default_tools_stop_command_r_plus_in_llama_cpp() -> None:
    """Command R+ line 10 recurses on ``json_spec.items``, which in llama.cpp is the object's
    ``items`` built-in (member_expression tries built-ins first); ``.type`` on that Function
    throws (value_t::get_builtins). create_event's array parameter sends it there."""
    failed = {name: str(rep) for (name, _), rep in default_reports().items() if isinstance(rep, ExplorerError)}
    assert set(failed) == {COMMAND_R_PLUS}
    assert "Function has no builtins" in failed[COMMAND_R_PLUS] and "line 10" in failed[COMMAND_R_PLUS]


def test_default_messages_add_one_documented_difference() -> None:
    differing: dict[str, set[str]] = defaultdict(set)
    parse_differently: dict[str, set[str]] = defaultdict(set)
    reports = {key: rep for key, rep in default_reports().items() if not isinstance(rep, ExplorerError)}
    for (name, thinking), rep in reports.items():
        for v in rep.versus:
            if v.replies_equal is False:
                differing[name].add(f"{v.message_id}/{str(thinking).lower()}")
                if not v.same_parse:
                    parse_differently[name].add(f"{v.message_id}/{str(thinking).lower()}")
    print("\nwith the default messages (a-f, g-escapes, h-unicode, i-nested):")
    print(f"  templates with a differing reply: {len(differing)}; parsed differently: {len(parse_differently)}")
    for name, where in sorted(differing.items()):
        again = ", ".join(sorted(parse_differently[name])) or "-"
        print(f"    {name}: {', '.join(sorted(where))} (parsed differently: {again})")
    assert set(differing) == {SOLAR, MINICPM}
    # docs item 4, MiniCPM5 line 77 `{{- param_value }}`: llama.cpp prints an object or an array of
    # objects as nothing, jinja2 as Python's str()
    for thinking in (False, True):
        v = {x.message_id: x for x in default_reports()[(MINICPM, thinking)].versus}["i-nested"]
        assert '<param name="when"></param><param name="attendees"></param>' in v.llama_reply
        assert ("<param name=\"when\">{'date': '2025-01-02', 'times': ['12:00', '13:30']}</param>"
                "<param name=\"attendees\">[{'name': 'Zoë', 'vip': True}, {'name': 'Al'}]</param>") \
            in v.transformers_reply
    assert differing[MINICPM] == {"i-nested/false", "i-nested/true"}



def test_transformers_gets_the_messages_llama_cpps_template_receives() -> None:
    """LFM2.5 reads ``message.thinking`` (line 78); llama.cpp's handler copies reasoning_content
    there. The trained reply of b keeps its reasoning: the rewrite reached transformers too."""
    for thinking in (False, True):
        v = {x.message_id: x for x in reports()[("LFM2.5-8B-A1B", thinking)].versus}["b"]
        assert v.transformers_reply == "<think>The user wants weather. I should answer.</think>It is sunny."
        assert v.replies_equal is True
