"""How many hops the data makes from a pasted template to the parsed message on Try it.

Runs the Try it page's path outside a browser (load the pasted source, the session, the
runaway check, the page's request, the parser, the parse) under a profiler hook and
prints: distinct module-boundary call edges, modules entered, stage-level edges (between
packages), cache layers hit, and how often the costly steps ran (capability detection,
analysis, arena serialisation and re-reads, source patches, routing).

Then counts the costly steps (``tests/hop_counts.py``: route decisions, ``apply_request``
runs, parser builds, output parses; each in runs, distinct inputs and the most runs on one
input) on one ``why`` (the CLI, in process) and on one Try it run (the app's page under
AppTest: open it, type an output), each on a specialised handler's route (our own
Qwen3-Coder-style template, ``tests/cases.py`` TAGGED) and on the autoparser's (the
chatml-think-tools example). Run from the project root: ``python benchmarks/bench_hops.py``
(``--counts``: the counts only).
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(Path(__file__).parent), str(ROOT), str(ROOT / "tests")]
logging.disable(logging.WARNING)

from hops_lib import measure, report, stage_report  # noqa: E402

OUT = '<think>\nok\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'


def path() -> object:
    import app_state as sh
    from explorer import ui_support as ui

    template = (ROOT.parent / "shared" / "oracle" / "templates" / "Qwen-Qwen3-0.6B.jinja")
    text = template.read_text() if template.exists() else ui.SourceRequest("example", name="chatml-think-tools").load().text
    source = sh.load_source(ui.SourceRequest("text", text=text))
    from explorer.session import open_session

    session = open_session(source, sh.dialect())
    assert not session.render_budget_exhausted
    request = sh.page_request(session, sh.default_settings())
    return session.parse(OUT, request)


def why(template: str, output: str) -> None:
    """``python -m explorer why TEMPLATE --output-file F --tools T``, in this process."""
    from cases import WEATHER_CITY
    from explorer.cli import main

    with tempfile.TemporaryDirectory() as tmp:
        files = {name: Path(tmp, name) for name in ("t.jinja", "out.txt", "tools.json")}
        files["t.jinja"].write_text(template)
        files["out.txt"].write_text(output)
        files["tools.json"].write_text(json.dumps([WEATHER_CITY]))
        with contextlib.redirect_stdout(io.StringIO()):
            main(["why", str(files["t.jinja"]), "--output-file", str(files["out.txt"]), "--tools",
                  str(files["tools.json"])])


def try_it(template: str, output: str) -> None:
    """The Try it page under AppTest: the template pasted, the page opened, the output typed."""
    from apptest_support import open_page

    at = open_page("try_it_page.py", "", text=template)
    at.text_area(key="try_output").input(output).run()
    assert not at.exception, [e.value for e in at.exception]


def counts() -> None:
    from cases import QWEN_CALL, TAGGED
    from explorer.session import forget_sessions
    from explorer.sources import from_example
    from hop_counts import counting

    routes = {"handler route (qwen3-coder)": (TAGGED, QWEN_CALL.format(city="Paris")),
              "autoparser route (chatml-think-tools)": (from_example("chatml-think-tools").text, OUT)}
    runs: dict[str, Callable[[str, str], None]] = {"why": why, "Try it": try_it}
    for run_name, run in runs.items():
        for route_name, (template, output) in routes.items():
            forget_sessions()
            with counting() as hops:
                run(template, output)
            print(f"{run_name}, {route_name}:")
            print(hops.table())


if __name__ == "__main__":
    if "--counts" not in sys.argv:
        out, edges, modules, caches, watched = measure(path)
        print(out.message)  # type: ignore[attr-defined]
        report(edges, modules, caches, watched)
        stage_report(edges)
    counts()
