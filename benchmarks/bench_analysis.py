"""Time the full differential analysis of every template in a folder.

Usage: python benchmarks/bench_analysis.py [FOLDER] [--repeat N] [--trace] [--cpu]

For each ``*.jinja`` template: "warm" is ``analyze_template`` on an already compiled
template with its capabilities known (what llama.cpp's ``analysis_ms`` measures);
"cold" also compiles the template and detects its capabilities. Prints the median and
max per template and over the corpus, in milliseconds. ``--cpu`` measures process CPU
time instead of wall time (steadier on a shared machine). Not part of the test run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.analysis import analyze_template  # noqa: E402
from explorer.caps import Caps, detect_caps  # noqa: E402
from explorer.render import compile_template  # noqa: E402
from explorer.routing import patch_source  # noqa: E402

DEFAULT_FOLDER = Path(__file__).resolve().parent.parent.parent / "shared" / "oracle" / "templates"


def llama_cpp_ms(template: Path) -> float | None:
    """llama.cpp's own analysis time, when the template is an oracle one."""
    oracle = template.parent.parent / "analysis" / f"{template.stem}.json"
    try:
        return float(json.loads(oracle.read_text(encoding="utf-8"))["analysis_ms"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


CLOCK = time.perf_counter


def time_ms(fn) -> float:
    start = CLOCK()
    fn()
    return (CLOCK() - start) * 1000


def bench_template(text: str, repeat: int, trace: bool) -> tuple[list[float], list[float]]:
    source = patch_source(text)
    tmpl = compile_template(source)
    caps = Caps.coerce(detect_caps(tmpl))
    analyze_template(tmpl, caps, trace=trace)  # first run: warms jinja2 and imports
    warm = [time_ms(lambda: analyze_template(tmpl, caps, trace=trace)) for _ in range(repeat)]

    def cold_run() -> None:
        t = compile_template(source)
        analyze_template(t, Caps.coerce(detect_caps(t)), trace=trace)

    cold = [time_ms(cold_run) for _ in range(repeat)]
    return warm, cold


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=DEFAULT_FOLDER)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--trace", action="store_true", help="also build the diff-step trace")
    parser.add_argument("--cpu", action="store_true", help="process CPU time instead of wall time")
    args = parser.parse_args(argv)
    global CLOCK
    CLOCK = time.process_time if args.cpu else time.perf_counter
    paths = sorted(args.folder.glob("*.jinja"))
    if not paths:
        print(f"no .jinja templates in {args.folder}", file=sys.stderr)
        return 1
    rows = []
    ref_ms: list[float] = []
    print(f"{'template':50} {'warm med':>9} {'warm max':>9} {'cold med':>9} {'cold max':>9} {'llama.cpp':>9}")
    for path in paths:
        warm, cold = bench_template(path.read_text(encoding="utf-8"), args.repeat, args.trace)
        row = (path.stem, statistics.median(warm), max(warm), statistics.median(cold), max(cold))
        rows.append(row)
        ref = llama_cpp_ms(path)
        if ref is not None:
            ref_ms.append(ref)
        ref_text = f"{ref:9.2f}" if ref is not None else f"{'-':>9}"
        print(f"{row[0][:50]:50} {row[1]:9.2f} {row[2]:9.2f} {row[3]:9.2f} {row[4]:9.2f} {ref_text}")
    warm_meds = [r[1] for r in rows]
    cold_meds = [r[3] for r in rows]
    print(f"\n{len(rows)} templates, {args.repeat} runs each "
          f"({'process CPU' if args.cpu else 'wall'} ms):")
    print(f"  warm: median of medians {statistics.median(warm_meds):.2f}, "
          f"max of medians {max(warm_meds):.2f} ({rows[warm_meds.index(max(warm_meds))][0]})")
    print(f"  cold: median of medians {statistics.median(cold_meds):.2f}, "
          f"max of medians {max(cold_meds):.2f} ({rows[cold_meds.index(max(cold_meds))][0]})")
    if ref_ms:
        print(f"  llama.cpp analysis_ms (oracle, one run): median {statistics.median(ref_ms):.2f}, "
              f"max {max(ref_ms):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
