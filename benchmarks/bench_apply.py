"""Time routing and the apply path (prompt + generation prompt) for every template.

Usage: python benchmarks/bench_apply.py [FOLDER] [--repeat N]

For each ``*.jinja`` template: "route" is ``explorer.routing.route`` on the text;
"apply" is ``apply_request`` of the standard request (thinking on) on an already
initialised template with known capabilities (three renders: prompt, and the pair the
generation prompt is diffed from, or fewer); "cold" also compiles the template and
detects its capabilities. Prints medians in milliseconds. Not part of the test run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.apply import apply_request, init_templates, standard_request  # noqa: E402
from explorer.caps import detect_caps  # noqa: E402
from explorer.errors import ExplorerError  # noqa: E402
from explorer.routing import route  # noqa: E402

DEFAULT_FOLDER = Path(__file__).resolve().parent.parent.parent / "shared" / "oracle" / "templates"


def median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=DEFAULT_FOLDER)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args(argv)
    paths = sorted(args.folder.glob("*.jinja"))
    if not paths:
        print(f"no .jinja templates in {args.folder}", file=sys.stderr)
        return 1
    request = standard_request(True)
    rows = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        try:
            templates = init_templates(text)
            caps = detect_caps(templates.default)
            apply_request(templates, request, caps=caps)
        except ExplorerError as exc:
            print(f"{path.stem}: skipped ({exc})", file=sys.stderr)
            continue
        r = median_ms(lambda: route(text), args.repeat)
        a = median_ms(lambda: apply_request(templates, request, caps=caps), args.repeat)
        c = median_ms(lambda: apply_request(text, request), max(1, args.repeat // 4))
        rows.append((path.stem, r, a, c))
        print(f"{path.stem:55s} route {r:7.3f}  apply {a:7.2f}  cold {c:8.2f}")
    for label, idx in (("route", 1), ("apply", 2), ("cold", 3)):
        values = [row[idx] for row in rows]
        print(f"{label:6s} median {statistics.median(values):8.3f} ms  max {max(values):8.3f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
