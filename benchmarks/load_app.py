"""Load test of the app: many concurrent browser sessions, each with its own template (not a test).

    python benchmarks/load_app.py [--sessions 20] [--timeout 300]

Starts ``streamlit run app.py`` headless on 127.0.0.1 (a free port), launches Debian's
chromium (/usr/bin/chromium, never downloaded) through Playwright, and opens one browser
context per session (separate cookies, so separate Streamlit sessions), all at once. Each
session opens a Try-it permalink carrying a template of its own -- the ChatML example
with its tool-call tag renamed ``<tool_call_N>`` -- and a model output calling
``get_weather`` with a city unique to the session, so the app must analyse the template,
build its parser and parse the output. A session passes when its page shows the parsed
call with its own city and no other session's city (no state leaking between sessions).

Reports: one session's latency alone on the warm server, then for the concurrent run: sessions
passed, wall time, throughput, p50/p95/max latency (page open to parsed call shown), the server's
resident memory (before, peak, after) and its CPU time. Bounded: at most
``MAX_SESSIONS`` sessions and ``--timeout`` seconds; only 127.0.0.1 is contacted.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from explorer.sources import from_example  # noqa: E402
from explorer.ui_support import Permalink, encode_permalink  # noqa: E402
from tools.app_server import CHROMIUM, CHROMIUM_ARGS, cpu_seconds, streamlit_server  # noqa: E402

MAX_SESSIONS = 40


def rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as handle:
            for row in handle:
                if row.startswith("VmRSS:"):
                    return int(row.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


class PeakSampler:
    """Samples a process's resident memory every 0.1 s; ``peak`` since the last reset."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak = rss_mb(pid)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, rss_mb(self.pid))
            time.sleep(0.1)

    def close(self) -> None:
        self._stop.set()


def city(i: int) -> str:
    return f"Town{i:03d}x"


def session_link(base: str, i: int) -> str:
    template = from_example("chatml-think-tools").text.replace("tool_call>", f"tool_call_{i}>")
    output = (f"<think>\nsession {i} thinks\n</think>\n\n<tool_call_{i}>\n"
              f'{{"name": "get_weather", "arguments": {{"city": "{city(i)}"}}}}\n</tool_call_{i}>')
    params = encode_permalink(Permalink(page="try", text=template, output=output))
    return f"{base}/try?{urlencode(params)}"


async def run_session(browser, base: str, i: int, n: int, timeout_s: float) -> dict:
    ctx = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await ctx.new_page()
    start = time.monotonic()
    result = {"session": i, "ok": False, "seconds": None, "why": ""}
    try:
        await page.goto(session_link(base, i), timeout=timeout_s * 1000)
        cell = page.get_by_role("cell", name=f'{{"city": "{city(i)}"}}')
        await cell.first.wait_for(timeout=timeout_s * 1000)
        result["seconds"] = time.monotonic() - start
        text = await page.locator('[data-testid="stApp"]').inner_text()
        others = sorted(set(re.findall(r"Town\d{3}x", text)) - {city(i)})
        if others:
            result["why"] = f"shows other sessions' results: {others}"
        elif await page.get_by_role("cell", name="get_weather", exact=True).count() == 0:
            result["why"] = "no get_weather call shown"
        else:
            result["ok"] = True
    except Exception as exc:  # noqa: BLE001 - a failed session is reported, not fatal
        result["why"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
        result["seconds"] = time.monotonic() - start
    finally:
        await ctx.close()
    return result


async def drive(base: str, sessions: int, timeout_s: float) -> tuple[list[dict], float]:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=list(CHROMIUM_ARGS))
        try:
            start = time.monotonic()
            results = await asyncio.wait_for(
                asyncio.gather(*(run_session(browser, base, i, sessions, timeout_s) for i in range(sessions))),
                timeout=timeout_s + 60)
            return list(results), time.monotonic() - start
        finally:
            await browser.close()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sessions", type=int, default=20)
    ap.add_argument("--timeout", type=float, default=300, help="per-session limit in seconds")
    args = ap.parse_args()
    sessions = max(1, min(args.sessions, MAX_SESSIONS))
    if not os.path.exists(CHROMIUM):
        raise SystemExit(f"{CHROMIUM} is absent (apt-get install chromium)")
    with streamlit_server() as server:
        # one warm-up session: the first script run imports the library
        warm, _ = asyncio.run(drive(server.url, 1, args.timeout))
        # one session alone on a warm server: the latency the concurrent ones are held against
        alone, _ = asyncio.run(drive(server.url, 1, args.timeout))
        sampler = PeakSampler(server.pid)
        before = sampler.peak
        cpu0 = cpu_seconds(server.pid)
        try:
            results, wall = asyncio.run(drive(server.url, sessions, args.timeout))
        finally:
            sampler.close()
        cpu = cpu_seconds(server.pid) - cpu0
        after = rss_mb(server.pid)
        peak = sampler.peak
    passed = [r for r in results if r["ok"]]
    latencies = [r["seconds"] for r in passed]
    print(f"warm-up session: {'ok' if warm[0]['ok'] else warm[0]['why']} in {warm[0]['seconds']:.1f} s")
    print(f"one session alone (warm server): {'ok' if alone[0]['ok'] else alone[0]['why']} in "
          f"{alone[0]['seconds']:.1f} s")
    print(f"sessions: {len(passed)}/{sessions} passed (each its own template, analysis and parse)")
    print(f"wall time: {wall:.1f} s; throughput: {len(passed) / wall:.2f} sessions/s")
    if latencies:
        print(f"latency: p50 {statistics.median(latencies):.1f} s, p95 {percentile(latencies, 0.95):.1f} s, "
              f"max {max(latencies):.1f} s")
    print(f"server RSS: before {before:.0f} MB, peak {peak:.0f} MB, after {after:.0f} MB")
    print(f"server CPU: {cpu:.1f} s for the run ({cpu / sessions:.2f} s per session; the rest of the wall time "
          f"is the browsers, on {os.cpu_count()} cores)")
    for r in results:
        if not r["ok"]:
            print(f"  session {r['session']}: FAILED after {r['seconds'] or 0:.1f} s: {r['why']}")
    return 0 if len(passed) == sessions else 1


if __name__ == "__main__":
    sys.exit(main())
