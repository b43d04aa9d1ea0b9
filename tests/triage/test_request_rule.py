"""The same request everywhere: the CLI and the app build one request from the same inputs.

The rule is written once (``explorer.apply.request``: a thinking setting goes out as
enable_thinking and as every chat_template_kwargs name templates read it by;
``TemplateSession.user_request``: tools not given are the tools the output calls, else the
default tool get_weather, and the request says which). ``why`` without ``--tools`` then finds
a misspelt tag the way the app does, instead of "the request lists no tools".
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from cases import QWEN_CALL, TAGGED, WEATHER_CITY
from explorer.apply import GET_WEATHER_TOOL, THINKING_KWARGS, merged_kwargs, thinking_kwargs, with_thinking
from explorer.cli import main
from explorer.cli.inputs import add_request_arguments, request_from_args, user_request_from_args
from explorer.session import open_session
from explorer.sources import from_example, from_text
from explorer.triage.inferred_tools import infer_tools

ROOT = Path(__file__).resolve().parents[2]
CHATML = from_example("chatml-think-tools")
CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'


def _args(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    add_request_arguments(p)
    return p.parse_args(list(argv))


def test_a_thinking_setting_sends_every_kwarg_name_and_unset_sends_none():
    assert thinking_kwargs(True) == {"enable_thinking": True, "thinking": True}
    assert thinking_kwargs(False) == dict.fromkeys(THINKING_KWARGS, False)
    assert thinking_kwargs(None) == {}  # left unset: llama-server's default
    assert merged_kwargs({"enable_thinking": True, "x": 1}, False) == {"enable_thinking": False, "thinking": False,
                                                                        "x": 1}  # the switch wins


def test_the_cli_switch_and_the_app_toggle_build_the_same_kwargs():
    s = open_session(CHATML)
    for flag in (True, False):
        cli = request_from_args(s, _args("--thinking", str(flag).lower()))
        built = s.user_request(thinking=flag, tools=[GET_WEATHER_TOOL])
        assert cli.chat_template_kwargs == built.request.chat_template_kwargs == thinking_kwargs(flag)
        assert cli.enable_thinking is built.request.enable_thinking is flag
        assert with_thinking(cli, not flag).chat_template_kwargs == thinking_kwargs(not flag)


def test_the_rule_is_written_once():
    """No module but the request's own spells the thinking kwargs out."""
    spelled = re.compile(r'\{"enable_thinking": *\w+, *"thinking": *\w+\}')
    hits = [p.relative_to(ROOT).as_posix() for folder in ("explorer", "pages") for p in (ROOT / folder).rglob("*.py")
            if spelled.search(p.read_text(encoding="utf-8"))] + (
        ["app.py"] if spelled.search((ROOT / "app.py").read_text(encoding="utf-8")) else [])
    assert hits == [], hits


@pytest.mark.parametrize("source,output,tools", [
    (CHATML.text, CALL.replace("<tool_call>", "<tool-call>"), {"get_weather": ["city"]}),
    (CHATML.text, '<tool_call>\n{"name": "search", "arguments": {"q": "x", "n": 3}}\n</tool_call>',
     {"search": ["q", "n"]}),
    (TAGGED, QWEN_CALL.format(city="Paris").replace("</tool_call>", "</tool_cal>"), {"get_weather": ["city"]}),
    (TAGGED, "<tool_call>\n<function=lookup>\n<parameter=id>\n3\n</parameter>\n<parameter=deep>\ntrue\n</parameter>\n"
             "</function>\n</tool_call>", {"lookup": ["id", "deep"]}),
])
def test_tools_not_given_are_the_calls_of_the_output(source, output, tools):
    s = open_session(from_text(source))
    built = s.user_request(output=output)
    got = {t["function"]["name"]: list(t["function"]["parameters"]["properties"]) for t in built.request.tools}
    assert got == tools
    assert built.notes and "inferred from the output's own calls" in built.notes[0]
    assert s.user_request(output=output, tools=[WEATHER_CITY]).request.tools == (WEATHER_CITY,)  # given: kept


def test_no_call_in_the_output_offers_the_default_tool():
    built = open_session(CHATML).user_request(output="Just an answer.")
    assert [t["function"]["name"] for t in built.request.tools] == ["get_weather"]
    assert "default tool get_weather" in built.notes[0]
    assert infer_tools("Just an answer.").tools == ()


def test_why_without_tools_finds_a_misspelt_tag(tmp_path, capsys):
    out = tmp_path / "out.txt"
    out.write_text(CALL.replace("</tool_call>", "</tool-call>"), encoding="utf-8")
    assert main(["why", "example:chatml-think-tools", "--output-file", str(out)]) == 0
    text = capsys.readouterr().out
    assert "closer-near-miss" in text and "lists no tools" not in text
    assert text.startswith('The model wrote "</tool-call>"')
    assert "request: tools inferred from the output's calls: get_weather(city)" in text


def test_why_prints_one_line_for_a_clean_parse(tmp_path, capsys):
    out = tmp_path / "out.txt"
    out.write_text(CALL, encoding="utf-8")
    assert main(["why", "example:chatml-think-tools", "--output-file", str(out)]) == 0
    text = capsys.readouterr().out
    assert text.count("\n") == 1 and "no check found anything wrong" in text and "get_weather(city)" in text
    assert main(["why", "example:chatml-think-tools", "--output-file", str(out), "--verbose"]) == 0
    assert "grammar-trigger" in capsys.readouterr().out


def test_the_cli_and_the_session_rule_agree_on_the_request():
    s = open_session(CHATML)
    output = CALL
    cli = user_request_from_args(s, _args("--thinking", "false"), output)
    lib = s.user_request(output=output, thinking=False)
    assert cli.request == lib.request and cli.notes == lib.notes
