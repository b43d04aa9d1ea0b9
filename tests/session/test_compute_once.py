"""Each result computed once: on one ``why`` and on one Try it run (the app's page under
AppTest), the route is decided once per template, and ``apply_request``, the parser of a
request and the parse of an output each run at most once per input (``hop_counts``
wraps the functions with counters). A stage that re-applies, re-routes or re-parses
instead of taking what the session holds fails here."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from apptest_support import open_page
from cases import QWEN_CALL, TAGGED, WEATHER_CITY
from explorer.cli import main
from explorer.session import forget_sessions, open_session
from explorer.sources import from_example
from hop_counts import STEPS, Hops, counting

CHATML_CALL = '<think>\nok\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
LABELS = tuple(dict.fromkeys(s.label for s in STEPS))

pytestmark = pytest.mark.timeout(600)


def assert_once(hops: Hops) -> None:
    assert hops.calls["route decisions"] == 1, hops.table()
    for label in LABELS:
        assert hops.calls[label] >= 1, f"{label} never ran: the counters did not see the path\n{hops.table()}"
        assert hops.repeats(label) == 1, f"{label} ran again on an input it had\n{hops.table()}"


def why(tmp_path: Path, template: str, output: str) -> str:
    paths = {name: tmp_path / name for name in ("t.jinja", "out.txt", "tools.json")}
    paths["t.jinja"].write_text(template)
    paths["out.txt"].write_text(output)
    paths["tools.json"].write_text(json.dumps([WEATHER_CITY]))
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(["why", str(paths["t.jinja"]), "--output-file", str(paths["out.txt"]),
                     "--tools", str(paths["tools.json"]), "--json"]) == 0
    return printed.getvalue()


@pytest.mark.parametrize("template, output", [
    (TAGGED, QWEN_CALL.format(city="Paris")),  # a specialised handler's route
    (from_example("chatml-think-tools").text, CHATML_CALL),  # the autoparser's
], ids=["handler", "autoparser"])
def test_why_routes_applies_builds_and_parses_once(tmp_path, template, output):
    forget_sessions()
    with counting() as hops:
        shown = json.loads(why(tmp_path, template, output))
    assert shown["result"]["tool_calls"][0]["name"] == "get_weather"  # it did parse the call
    assert_once(hops)


def test_try_it_routes_applies_builds_and_parses_once():
    """A routed template, so the page also compares the handler with the autoparser."""
    forget_sessions()
    output = QWEN_CALL.format(city="Paris")
    with counting() as hops:
        at = open_page("try_it_page.py", "", text=TAGGED)
        at.text_area(key="try_output").input(output).run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Handler vs autoparser" in [s.value for s in at.subheader]
    assert_once(hops)
    # the output itself went through the routed parser once and the autoparser's once
    session = open_session(TAGGED)
    assert session.handler == "qwen3-coder"


def test_the_session_hands_the_comparison_what_it_holds():
    """compare_routes and parse_routes take the session's params and parse, and agree
    with the comparison built from the template alone."""
    from explorer.apply.compare import compare_template_routes, parse_both

    session = open_session(TAGGED)
    request = session.request(tools=[WEATHER_CITY])
    output = QWEN_CALL.format(city="Paris")
    held = session.compare_routes(request)
    assert held.handler is session.params(request)
    assert held.autoparser is session.autoparser_params(request)
    fresh = compare_template_routes(TAGGED, request, caps=session.caps, analysis=session.analysis)
    assert held.differences == fresh.differences
    left, right, diffs = session.parse_routes(output, request)
    assert left == session.parse(output, request).message
    assert (left, right, diffs) == parse_both(fresh, output)
