"""A runaway template in one session cannot stall another session's analysis.

Streamlit runs each browser session's script in its own thread of one process, so
isolation here means: while a hostile analysis burns its render budget in one thread,
a normal analysis in another thread finishes within its own time plus one render
budget. The budgets are the product's own (2 s per capability probe, 1 s per analysis
probe), and the hostile thread must itself end inside its bound, so no thread is left
behind. Each pair runs in a forked child (``hostile_runner``) so a failure cannot leave a
runaway thread in the test process.
"""

from __future__ import annotations

import itertools
import threading
import time
from typing import Any

import pytest

import explorer.analysis.session as analysis_session
import explorer.caps as caps_module
from explorer.analysis import analyze_template
from explorer.apply import Request
from explorer.apply.pipeline import apply_template
from explorer.render import RenderLimits, compile_template
from explorer.sources import from_example
from hostile_runner import run_bounded
from oracle_data import HOSTILE_DIR

HOSTILE = HOSTILE_DIR
RENDER_BUDGET = RenderLimits().wall_seconds
NORMAL = "chatml-think-tools"
# caps probes at their budget each, then the analysis gives up after two time-outs
HOSTILE_BOUND = 10 * caps_module.PROBE_LIMITS.wall_seconds + analysis_session.ANALYSIS_RENDER_BUDGET_SECONDS + 10
# a shared 2-core machine: the other helpers' processes count against us too
NOISE_SECONDS = 1.5


_RUNS = itertools.count()


def session_analysis(text: str) -> dict[str, Any]:
    """What a session does for a template: compile, caps + analysis, apply a request."""
    # a text of its own (a unique comment): no cache shared with any other run
    text = text + "{# run " + str(next(_RUNS)) + " #}"
    tmpl = compile_template(text)
    result = analyze_template(tmpl, trace=True)
    apply_template(tmpl, Request(messages=({"role": "user", "content": "Hello"},)))
    data = result.to_oracle_json()
    return {"failed": sum(p.error is not None for p in result.probes), "reasoning": data["reasoning"],
            "tools": data.get("tools")}


def pair(hostile_name: str) -> dict[str, Any]:
    normal_text = from_example(NORMAL).text
    hostile_text = (HOSTILE / hostile_name).read_text(encoding="utf-8")
    alone = []
    for _ in range(2):
        start = time.monotonic()
        expected = session_analysis(normal_text)
        alone.append(time.monotonic() - start)
    box: dict[str, Any] = {}

    def hostile() -> None:
        start = time.monotonic()
        try:
            session_analysis(hostile_text)
            box["hostile"] = "returned"
        except Exception as exc:  # noqa: BLE001 - reported to the parent
            box["hostile"] = f"{type(exc).__name__}: {exc}"
        box["hostile_seconds"] = time.monotonic() - start

    worker = threading.Thread(target=hostile, daemon=True)
    worker.start()
    time.sleep(0.3)  # the hostile render is under way
    start = time.monotonic()
    got = session_analysis(normal_text)
    concurrent = time.monotonic() - start
    worker.join(HOSTILE_BOUND)
    return {"alone": min(alone), "concurrent": concurrent, "same_result": got == expected,
            "hostile_alive": worker.is_alive(), **box}


@pytest.mark.timeout(300)
@pytest.mark.parametrize("hostile_name", [
    "nested_ranges.jinja", "exponential_macro.jinja", "memory_bomb.jinja", "recursive_macro.jinja",
    "extra/growing_loop.jinja",
    "extra/sort_chain.jinja",
    "extra/slice_flood.jinja",
])
def test_a_runaway_session_does_not_delay_a_normal_one(hostile_name: str) -> None:
    got = run_bounded(pair, hostile_name, deadline=HOSTILE_BOUND + 120)
    assert not got.timed_out, "the pair did not finish"
    assert not got.raised, got.trace
    r = got.returned
    print(f"{hostile_name}: normal alone {r['alone']:.2f} s, beside the hostile one {r['concurrent']:.2f} s; "
          f"hostile ended in {r.get('hostile_seconds', float('nan')):.2f} s ({r.get('hostile')})")
    assert r["same_result"], "the normal session's analysis changed while the hostile one ran"
    assert not r["hostile_alive"], f"the hostile session still runs after {HOSTILE_BOUND} s"
    assert r["concurrent"] <= r["alone"] + RENDER_BUDGET + NOISE_SECONDS, r
