"""Browser timing: submit a ~10 KB template, see the Analysis page fully drawn (issue 7; not a test).

    python benchmarks/bench_browser_analysis.py [TEMPLATE_DIR ...] [--cold 3] [--warm 3] [--target 1.5]

Templates: ``benchmarks/templates/chatml-think-tools-10k.jinja`` (the chatml-think-tools
example grown to 10 KB with macros, typed content, documents and a readable tool list, so
the benchmark runs without ../shared) and every template of 8 000-12 288 bytes in each
TEMPLATE_DIR (default: ../shared/oracle/templates when it exists).

What is timed, per template, in Debian's chromium (/usr/bin/chromium, driven by
Playwright against ``streamlit run app.py`` on 127.0.0.1): on the Template page with
"Paste" chosen and the template's text in the box, the time from the click on "Use this
template" to the Analysis page fully drawn, the way a person goes: the click, the
Template page redrawn for the new template, then (at once) the click on "Analysis" in
the sidebar, then the Analysis page drawn. Both clicks and the clock run inside the page
(``performance.now()``), so Playwright's round trips are not counted.

"Fully drawn" means, checked on every animation frame: the server has sent the message
that ends a script run successfully (a ForwardMsg ``script_finished`` =
FINISHED_SUCCESSFULLY, counted by a hook on the page's WebSocket) since the click, and the
app root's ``data-test-script-state`` reads ``notRunning`` (the running indicator is
gone); no element is stale (``data-stale="true"``) and no spinner shows; the URL is the
Analysis page's; its "Markers" section, its last section ("What failed silently") and its
last element (the "The analysis as llama.cpp reports it (JSON)" expander) are in the page
with a non-empty box -- or, for a template the analysis rejects, the error shown in
place. The time is read one animation frame later, once that frame has been painted. The
Template page counts as redrawn under the same rule with its own last element (the
highlighted source) and the caption naming the template's sha256.

Cold: the first submit of that template on a fresh server (empty caches); each cold
repeat starts a new server (``--cold`` servers), whose first session first opens the
Template and Analysis pages with a built-in example so Python imports and Streamlit's
first-run work are not charged to the template (that warm-up time is printed). Warm:
the same template resubmitted ``--warm`` times in the same session (cached analysis).
Prints median and max per template, the Template-page share, the server's CPU time per
submit, and whether the cold and warm medians meet ``--target`` seconds. Exit status 1
when a template's cold median misses the target. Only 127.0.0.1 is contacted.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools.app_server import CHROMIUM, CHROMIUM_ARGS, ROOT, cpu_seconds, streamlit_server  # noqa: E402

OWN_TEMPLATE = ROOT / "benchmarks" / "templates" / "chatml-think-tools-10k.jinja"
ORACLE_TEMPLATES = ROOT.parent / "shared" / "oracle" / "templates"
SIZE_RANGE = (8_000, 12_288)
STEP_TIMEOUT_MS = 60_000

# Installed in every page before Streamlit's own scripts: counts the ForwardMsgs that end a
# script run successfully (field 6 ``script_finished`` = FINISHED_SUCCESSFULLY, read from
# the top level of the protobuf), so a run is known to be over even when the browser never
# drew the ``running`` state (a fast run's state changes can land in one React render).
FINISHED_COUNTER_JS = """
(() => {
  const finishedStatus = (buffer) => {
    const b = new Uint8Array(buffer);
    let i = 0;
    const varint = () => { let v = 0, s = 0, x; do { x = b[i++]; v += (x & 0x7f) * 2 ** s; s += 7; } while (x & 0x80); return v; };
    while (i < b.length) {
      const tag = varint(), field = Math.floor(tag / 8), wire = tag & 7;
      if (wire === 0) { const v = varint(); if (field === 6) return v; }
      else if (wire === 2) { const n = varint(); i += n; }  // not i += varint(): i is read first
      else if (wire === 1) { i += 8; } else if (wire === 5) { i += 4; } else { return -1; }
    }
    return -1;
  };
  const Native = window.WebSocket;
  window.__benchRuns = {finished: 0};
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (e) => {
        if (e.data instanceof ArrayBuffer && finishedStatus(e.data) === 0) window.__benchRuns.finished++;
      });
    }
  };
})();
"""

# Runs in the page: click, wait for a drawn view, return milliseconds. See the module docstring.
TIMED_SUBMIT_JS = """
async ({sha16, timeoutMs}) => {
  const app = document.querySelector('[data-testid="stApp"]');
  const frame = () => new Promise(r => requestAnimationFrame(r));
  let runsBefore = window.__benchRuns.finished;
  const idle = () => window.__benchRuns.finished > runsBefore
      && app.getAttribute('data-test-script-state') === 'notRunning'
      && !document.querySelector('[data-stale="true"], [data-testid="stSpinner"]');
  const shown = el => el && el.getBoundingClientRect().height > 0;
  const textOf = sel => Array.from(document.querySelectorAll(sel)).map(e => e.textContent);
  const errorShown = () => textOf('[data-testid="stAlertContentError"], [data-testid="stException"]').length > 0;
  const templateDrawn = () => idle() && document.body.innerText.includes('sha256 ' + sha16)
      && shown(document.querySelector('.tx-hl'));
  const analysisDrawn = () => {
    if (!idle() || !location.pathname.endsWith('/analysis')) return false;
    const heads = textOf('h3');
    const last = Array.from(document.querySelectorAll('[data-testid="stExpander"] summary'))
        .find(e => e.textContent.includes('The analysis as llama.cpp reports it'));
    return (heads.some(t => t.includes('Markers')) && heads.some(t => t.includes('What failed silently'))
            && shown(last)) || (heads.length === 0 && errorShown());
  };
  const until = async (cond, what) => {
    const start = performance.now();
    while (!cond()) {
      if (performance.now() - start > timeoutMs) {
        const state = app.getAttribute('data-test-script-state');
        const stale = document.querySelectorAll('[data-stale="true"]').length;
        const spinners = document.querySelectorAll('[data-testid="stSpinner"]').length;
        const summaries = textOf('[data-testid="stExpander"] summary');
        throw new Error(`timed out waiting for ${what}: script ${state}, `
                        + `runs finished ${window.__benchRuns.finished - runsBefore}, path ${location.pathname}, `
                        + `stale ${stale}, spinners ${spinners}, h3 ${JSON.stringify(textOf('h3'))}, `
                        + `expanders ${JSON.stringify(summaries)}`);
      }
      await frame();
    }
    await frame();  // that frame has been painted
    return performance.now();
  };
  const submit = document.querySelector('[data-testid="stFormSubmitButton"] button');
  if (!submit) throw new Error('no "Use this template" button');
  const t0 = performance.now();
  submit.click();
  const t1 = await until(templateDrawn, 'the Template page');
  const link = document.querySelector('[data-testid="stSidebarNav"] a[href$="/analysis"]');
  if (!link) throw new Error('no Analysis link in the sidebar');
  runsBefore = window.__benchRuns.finished;
  link.click();
  const t2 = await until(analysisDrawn, 'the Analysis page');
  return {template_ms: t1 - t0, total_ms: t2 - t0, error: errorShown()};
}
"""


@dataclass(frozen=True)
class Template:
    name: str
    text: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Sample:
    seconds: float  # click on "Use this template" -> Analysis page fully drawn
    template_share: float  # the part of it until the Template page was redrawn
    server_cpu: float  # the server's CPU seconds meanwhile
    error_shown: bool


@dataclass
class Figures:
    cold: list[Sample] = field(default_factory=list)
    warm: list[Sample] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def pick_templates(dirs: list[Path]) -> list[Template]:
    chosen = [Template(OWN_TEMPLATE.stem, OWN_TEMPLATE.read_text(encoding="utf-8"))]
    for folder in dirs:
        for path in sorted(folder.glob("*.jinja")):
            if SIZE_RANGE[0] <= path.stat().st_size <= SIZE_RANGE[1]:
                chosen.append(Template(path.stem, path.read_text(encoding="utf-8")))
    return chosen


def new_context(browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    ctx.set_default_timeout(STEP_TIMEOUT_MS)
    ctx.add_init_script(FINISHED_COUNTER_JS)
    return ctx


def wait_idle(page) -> None:
    """Wait until the app is connected and no script run is going on (untimed steps)."""
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]')
    page.wait_for_timeout(300)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]')
    page.locator("h1").first.wait_for()


def goto_sidebar(page, title: str) -> None:
    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=title).first.click()
    page.get_by_role("heading", name=title).first.wait_for()
    wait_idle(page)


def open_paste_box(page, url: str, text: str) -> None:
    page.goto(url)
    wait_idle(page)
    page.get_by_text("Paste", exact=True).click()
    area = page.get_by_role("textbox", name="Jinja chat template")
    area.wait_for()
    wait_idle(page)
    area.fill(text)
    area.evaluate("e => e.blur()")


def timed_submit(page, tmpl: Template, pid: int) -> tuple[dict, float]:
    cpu0 = cpu_seconds(pid)
    result = page.evaluate(TIMED_SUBMIT_JS, {"sha16": tmpl.sha256[:16], "timeoutMs": STEP_TIMEOUT_MS})
    return result, cpu_seconds(pid) - cpu0


def save_views(page, stem: Path) -> None:
    """The page as drawn: its top and, scrolled, its bottom (Streamlit scrolls inside the app)."""
    page.screenshot(path=f"{stem}-top.png")
    page.locator('[data-testid="stMain"]').evaluate("e => e.scrollTo(0, e.scrollHeight)")
    page.screenshot(path=f"{stem}-bottom.png")


def measure(browser, url: str, pid: int, tmpl: Template, warm: int, figures: Figures,
            shots: Path | None = None) -> None:
    ctx = new_context(browser)
    page = ctx.new_page()
    try:
        open_paste_box(page, url, tmpl.text)
        for i in range(1 + warm):
            if i:
                goto_sidebar(page, "Template")
                page.get_by_role("textbox", name="Jinja chat template").wait_for()
            try:
                result, cpu = timed_submit(page, tmpl, pid)
            except Exception as exc:  # noqa: BLE001 - a page that never finishes is reported, not fatal
                figures.failures.append(str(exc).splitlines()[0][:400])
                if shots is not None:
                    save_views(page, shots / f"{tmpl.name}-FAILED")
                return
            sample = Sample(result["total_ms"] / 1000, result["template_ms"] / result["total_ms"], cpu,
                            bool(result["error"]))
            (figures.warm if i else figures.cold).append(sample)
            if shots is not None and not i:
                save_views(page, shots / tmpl.name)
            wait_idle(page)
    finally:
        ctx.close()


def warm_up(browser, url: str) -> float:
    """First visits of the Template and Analysis pages: imports and first-run work."""
    start = time.monotonic()
    ctx = new_context(browser)
    try:
        page = ctx.new_page()
        page.goto(url)
        wait_idle(page)
        goto_sidebar(page, "Analysis")
    finally:
        ctx.close()
    return time.monotonic() - start


def run(templates: list[Template], cold: int, warm: int,
        shots: Path | None = None) -> tuple[dict[str, Figures], list[float]]:
    from playwright.sync_api import sync_playwright

    figures = {t.name: Figures() for t in templates}
    warmups = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=list(CHROMIUM_ARGS))
        try:
            for repeat in range(cold):
                with streamlit_server() as server:
                    warmups.append(warm_up(browser, server.url))
                    # rotate the order so no template always goes first on a fresh server
                    shift = repeat % len(templates)
                    for tmpl in templates[shift:] + templates[:shift]:
                        done = figures[tmpl.name]
                        before = len(done.cold)
                        measure(browser, server.url, server.pid, tmpl, warm, done, shots)
                        cold_s = f"{done.cold[-1].seconds:.2f} s" if len(done.cold) > before else "FAILED"
                        print(f"  server {repeat + 1}/{cold}: {tmpl.name}: cold {cold_s}", flush=True)
        finally:
            browser.close()
    return figures, warmups


def verdict(samples: list[Sample], target: float) -> str:
    if not samples:
        return "-"
    return "meets" if statistics.median(x.seconds for x in samples) <= target else "MISSES"


def _med_max(samples: list[Sample]) -> str:
    if not samples:
        return f"{'-':>8s} {'-':>6s}"
    seconds = [x.seconds for x in samples]
    return f"{statistics.median(seconds):8.2f} {max(seconds):6.2f}"


def _cpu(samples: list[Sample]) -> str:
    return f"{statistics.median(x.server_cpu for x in samples):5.2f}" if samples else f"{'-':>5s}"


def report(templates: list[Template], figures: dict[str, Figures], warmups: list[float], target: float) -> bool:
    gc_setting = os.environ.get("STREAMLIT_RUNNER_POST_SCRIPT_GC", "the project's config")
    print(f"\nserver warm-up (first Template + Analysis visit with an example): "
          f"median {statistics.median(warmups):.2f} s over {len(warmups)} fresh servers; "
          f"runner.postScriptGC: {gc_setting}")
    print(f"submit -> Analysis page fully drawn, target {target:.1f} s "
          f"(2-core machine shared with other work: figures are noisy)")
    head = (f"{'template':44s} {'bytes':>6s}  {'cold med':>8s} {'max':>6s}  {'warm med':>8s} {'max':>6s}  "
            f"{'tmpl%':>5s}  {'cpu c/w':>11s}  verdict (cold / warm)")
    print(head)
    print("-" * len(head))
    all_cold_ok = True
    for tmpl in templates:
        f = figures[tmpl.name]
        for why in f.failures:
            print(f"{tmpl.name[:44]:44s} FAILED: {why}")
        samples = f.cold + f.warm
        all_cold_ok &= verdict(f.cold, target) == "meets"
        if not samples:
            continue
        errors = sum(x.error_shown for x in samples)
        note = f"  ({errors} runs ended on an error shown in place)" if errors else ""
        print(f"{tmpl.name[:44]:44s} {len(tmpl.text.encode()):6d}  {_med_max(f.cold)}  {_med_max(f.warm)}  "
              f"{100 * statistics.median(x.template_share for x in samples):4.0f}%  "
              f"{_cpu(f.cold)}/{_cpu(f.warm)}s  {verdict(f.cold, target)} / {verdict(f.warm, target)}{note}")
    print("tmpl% = share of the time until the Template page was redrawn; cpu c/w = the server's CPU seconds "
          "per submit, cold / warm (medians)")
    return all_cold_ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dirs", nargs="*", type=Path, help="folders of .jinja templates (8-12 KB ones are used)")
    ap.add_argument("--cold", type=int, default=3, help="fresh servers, one cold submit per template on each")
    ap.add_argument("--warm", type=int, default=3, help="resubmits per template after each cold one")
    ap.add_argument("--target", type=float, default=1.5, help="seconds")
    ap.add_argument("--limit", type=int, default=0, help="use at most this many templates (0: all)")
    ap.add_argument("--screenshots", type=Path, help="save the Analysis page as drawn after each cold submit here")
    args = ap.parse_args()
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"{CHROMIUM} is absent (apt-get install chromium)")
    dirs = args.dirs or ([ORACLE_TEMPLATES] if ORACLE_TEMPLATES.is_dir() else [])
    templates = pick_templates(dirs)
    if args.limit > 0:
        templates = templates[:args.limit]
    print(f"{len(templates)} templates; {max(1, args.cold)} fresh servers x (1 cold + {max(0, args.warm)} warm) "
          "submits each", flush=True)
    if args.screenshots:
        args.screenshots.mkdir(parents=True, exist_ok=True)
    figures, warmups = run(templates, max(1, args.cold), max(0, args.warm), args.screenshots)
    return 0 if report(templates, figures, warmups, args.target) else 1


if __name__ == "__main__":
    sys.exit(main())
