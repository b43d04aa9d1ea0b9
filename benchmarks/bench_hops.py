"""How many hops the data makes from a pasted template to the parsed message on Try it.

Runs the Try it page's path outside a browser (load the pasted source, the session, the
runaway check, the page's request, the parser, the parse) under a profiler hook and
prints: distinct module-boundary call edges, modules entered, stage-level edges (between
packages), cache layers hit, and how often the costly steps ran (capability detection,
analysis, arena serialisation and re-reads, source patches, routing). Run from the
project root: ``python benchmarks/bench_hops.py``.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).parent), str(Path(__file__).parent.parent)]
logging.disable(logging.WARNING)

from hops_lib import measure, report, stage_report  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
OUT = '<think>\nok\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'


def path() -> object:
    from explorer import ui_support as ui
    import app_state as sh

    template = (ROOT.parent / "shared" / "oracle" / "templates" / "Qwen-Qwen3-0.6B.jinja")
    text = template.read_text() if template.exists() else ui.SourceRequest("example", name="chatml-think-tools").load().text
    source = sh.load_source(ui.SourceRequest("text", text=text))
    from explorer.session import open_session

    session = open_session(source, sh.dialect())
    assert not session.render_budget_exhausted
    request = sh.page_request(session, sh.default_settings())
    return session.parse(OUT, request)


if __name__ == "__main__":
    out, edges, modules, caches, watched = measure(path)
    print(out.message)  # type: ignore[attr-defined]
    report(edges, modules, caches, watched)
    stage_report(edges)
