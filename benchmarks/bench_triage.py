"""Time of the triage ("Why this result?") on large and hostile outputs (not a test).

    python benchmarks/bench_triage.py [--kb 100] [--repeat 3]

For each built-in example (applied with one tool, thinking on), diagnose outputs of the
given size: plain content, the template's own tool-call shape with a huge argument, the
same call broken at its end (a parse error: the furthest-failure pass runs), an opener
near miss repeated through the whole output, a bare JSON call repeated, and marker soup.
The best of ``--repeat`` runs is printed per case, with the parse alone for comparison:
the triage re-reads the output with every check, so it costs a multiple of the parse; the
Try it and Fixtures pages run it once per output (cached).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from explorer.analysis import template_analysis  # noqa: E402
from explorer.apply import Request  # noqa: E402
from explorer.errors import ExplorerError  # noqa: E402
from explorer.handlers import apply_template  # noqa: E402
from explorer.render import compile_template  # noqa: E402
from explorer.sources import from_example, list_examples  # noqa: E402
from explorer.triage import diagnose  # noqa: E402

TOOL = {"type": "function", "function": {
    "name": "get_weather", "description": "Weather.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}


def outputs(size: int) -> dict[str, str]:
    call = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "%s"}}\n</tool_call>'
    filler = "x" * size
    return {
        "plain content": ("It is sunny. " * (size // 13 + 1))[:size],
        "huge argument": call % filler,
        "broken call": (call % filler)[:-14],
        "near-miss openers": ('<tool_call >\n{"name": "get_weather"}\n' * (size // 35 + 1))[:size],
        "bare JSON calls": ('{"name": "get_weather", "arguments": {"city": "Paris"}}\n' * (size // 56 + 1))[:size],
        "marker soup": ("<tool_call></think><think>{\"name\":" * (size // 36 + 1))[:size],
    }


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kb", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    request = Request(messages=({"role": "user", "content": "Weather in Paris?"},), tools=(TOOL,))
    print(f"{'example':<26} {'output':<18} {'parse ms':>9} {'triage ms':>10} findings")
    for name in list_examples():
        tmpl = compile_template(from_example(name).text)
        try:
            params = apply_template(tmpl, request)
            analysis = template_analysis(tmpl)
        except ExplorerError as exc:
            print(f"{name:<26} cannot build the request: {exc}")
            continue
        for label, text in outputs(args.kb * 1000).items():
            def parse() -> None:
                try:
                    params.parse(text)
                except ExplorerError:
                    pass

            parse_s = best(parse, args.repeat)
            result = []
            triage_s = best(lambda: result.append(diagnose(params, request, text, analysis=analysis)),
                            args.repeat)
            found = len(result[-1].findings)
            print(f"{name:<26} {label:<18} {parse_s * 1000:9.1f} {triage_s * 1000:10.1f} {found}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
