"""Take a screenshot of every app page into docs/ (docs/template-page.png, ..., docs/doctor-page.png).

Usage: python tools/screenshots.py [--example NAME] [--out docs]

Starts ``streamlit run app.py`` on a free local port, opens each page in Debian's
headless chromium (/usr/bin/chromium, never a downloaded browser) and saves a
full-page PNG. The README shows these files.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools.app_server import CHROMIUM, CHROMIUM_ARGS, ROOT, streamlit_server  # noqa: E402

MAX_HEIGHT = 5000
# (url path, file name, query parameters beyond the example)
PAGES = (
    ("", "template-page.png", {}),
    ("probes", "probes-page.png", {"focus": "T1"}),
    ("analysis", "analysis-page.png", {}),
    ("grammar", "grammar-page.png", {}),
    ("try", "try-page.png", {}),
    ("fixtures", "fixtures-page.png", {}),  # opens on the template's own family
    ("compare", "compare-page.png", {}),
    ("doctor", "doctor-page.png", {}),
)


def wait_idle(page) -> None:
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=120_000)
    page.locator("h1").first.wait_for(timeout=60_000)
    page.wait_for_timeout(1500)  # let fonts and st.html blocks settle
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=120_000)


# the example renders '<tool_call>\n{...}': a space inside the tag is the classic near miss
NEAR_MISS = '<think>\nThe user wants the weather.\n</think>\n\n<tool_call >\n' \
            '{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'


def why_shot(page, target: Path) -> None:
    """Try it's "Why this result?" section for a near-miss output, clipped to the section."""
    page.get_by_label("Raw model output (verbatim, as the model generated it)").fill(NEAR_MISS)
    page.keyboard.press("Control+Enter")
    page.wait_for_timeout(500)
    wait_idle(page)
    top = page.get_by_role("heading", name="Why this result?").first.bounding_box()
    end = page.get_by_text("What the triage looks for").first.bounding_box()
    if top is None or end is None:
        print(f"skipped {target}: the section is not on the page")
        return
    clip = {"x": 0, "y": top["y"] - 10, "width": 1400, "height": end["y"] + end["height"] + 20 - top["y"]}
    page.screenshot(path=str(target), clip=clip, full_page=True)
    print(target)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--example", default="chatml-think-tools")
    parser.add_argument("--out", default=str(ROOT / "docs"))
    args = parser.parse_args()
    from urllib.parse import urlencode

    from playwright.sync_api import sync_playwright

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with streamlit_server() as server, sync_playwright() as pw, tempfile.TemporaryDirectory() as profile:
        ctx = pw.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=list(CHROMIUM_ARGS),
            viewport={"width": 1400, "height": 900}, device_scale_factor=1,
        )
        page = ctx.pages[0] if ctx.pages else ctx.new_page()
        for path, name, extra in PAGES:
            query = urlencode({"example": args.example, "page": path or "template", **extra})
            page.goto(f"{server.url}/{path}?{query}")
            page.set_viewport_size({"width": 1400, "height": 900})
            wait_idle(page)
            if path == "try":  # show a parse: fill the output with the template's own sample
                page.get_by_role("button", name="reasoning + tool call").click()
                page.wait_for_timeout(500)
                wait_idle(page)
            # Streamlit scrolls inside its main block: grow the window to the content
            height = page.evaluate(
                "() => Math.max(...[...document.querySelectorAll("
                "'[data-testid=stMain], [data-testid=stMainBlockContainer]')]"
                ".map(e => e.scrollHeight), 900)")
            page.set_viewport_size({"width": 1400, "height": min(int(height) + 40, MAX_HEIGHT)})
            wait_idle(page)
            page.screenshot(path=str(out / name))
            print(out / name)
            if path == "try":
                why_shot(page, out / "why-section.png")
        ctx.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
