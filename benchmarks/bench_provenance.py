"""Time output provenance: render() when it is not asked for, and its cost when it is.

Usage: python benchmarks/bench_provenance.py [FOLDER] [--repeat N] [--baseline-rev REV] [--rounds N]

Input: a folder of ``*.jinja`` templates (default: the oracle's 70), rendered with the
oracle's standard request (user "Hello", one tool, generation prompt, thinking on) in
both dialects. Output, printed:

1. Not asked for: ``render()`` of this tree against ``render()`` of ``--baseline-rev``
   (default: the commit before provenance existed), each in its own subprocess, the two
   taking turns template by template, best of the turns per template; the ratio should
   be 1 within noise.
   Also checked: the normal build's generated code has no provenance hook in it, and
   rendering never compiles the provenance variant.
2. Asked for: ``render_with_provenance`` against ``render`` in one process (per render,
   and the one-off compile of the variant), and attributing every marker of each
   template's analysis (``LineFinder.markers``). Not part of the test run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEFAULT_FOLDER = ROOT.parent / "shared" / "oracle" / "templates"
BASELINE_REV = "883ae64"  # the last commit before the provenance build
BATCHES = 5
TOOL = {"type": "function", "function": {"name": "get_weather", "description": "Get the current weather for a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"},
                       "unit": {"type": "string", "enum": ["c", "f"]}}, "required": ["city"]}}}

# A worker run with PYTHONPATH set to the tree under test. It compiles every template in
# both dialects, prints the keys it can render, then answers each key read from stdin with
# the µs per render() (best of ``batches`` batches of ``repeat``). Two workers (baseline,
# this tree) take turns per template, so a load change on the shared machine hits both.
WORKER = r"""
import hashlib, json, marshal, sys, time
from pathlib import Path
from explorer.errors import ExplorerError
from explorer.render import RenderInputs, chat_extra_context, compile_template, render
folder, repeat, batches, tool = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), json.loads(sys.argv[4])
inputs = RenderInputs(messages=[{"role": "user", "content": "Hello"}], tools=[tool], add_generation_prompt=True,
                      extra_context=chat_extra_context())
templates = {}
for path in sorted(folder.glob("*.jinja")):
    for dialect in ("llama.cpp", "transformers"):
        tmpl = compile_template(path.read_text(encoding="utf-8"), dialect)
        try:
            render(tmpl, inputs)
        except ExplorerError:
            continue
        templates[f"{path.stem}|{dialect}"] = tmpl
# the bytecode of each render function (nested macros included), to compare the trees
print(json.dumps({key: hashlib.sha256(marshal.dumps(tmpl.template.root_render_func.__code__)).hexdigest()
                  for key, tmpl in sorted(templates.items())}), flush=True)
for line in sys.stdin:
    tmpl = templates[line.strip()]
    best = float("inf")
    for batch in range(batches + 1):  # the first batch warms up
        start = time.perf_counter()
        for _ in range(repeat):
            render(tmpl, inputs)
        if batch:
            best = min(best, time.perf_counter() - start)
    assert "provenance" not in tmpl._variants, "render() compiled the provenance variant"
    print(best / repeat * 1e6, flush=True)
"""


class Worker:
    """One ``WORKER`` subprocess over one source tree."""

    def __init__(self, tree: Path, folder: Path, repeat: int) -> None:
        env = {**os.environ, "PYTHONPATH": str(tree)}
        self.proc = subprocess.Popen([sys.executable, "-c", WORKER, str(folder), str(repeat), str(BATCHES),
                                      json.dumps(TOOL)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, env=env, cwd=tree)
        assert self.proc.stdout is not None
        self.code: dict[str, str] = json.loads(self.proc.stdout.readline())
        self.keys = list(self.code)

    def us(self, key: str) -> float:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(key + "\n")
        self.proc.stdin.flush()
        return float(self.proc.stdout.readline())

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        if self.proc.wait() != 0:
            raise RuntimeError("benchmark worker failed")


def tree_of(rev: str) -> Path:
    """``explorer/`` of commit ``rev``, unpacked into a temporary folder."""
    data = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "explorer"], check=True,
                          capture_output=True).stdout
    folder = Path(tempfile.mkdtemp(prefix="bench-provenance-"))
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(folder)
    return folder


def not_asked_for(folder: Path, repeat: int, rounds: int, rev: str) -> None:
    from explorer.render.jinja_compat import environment

    for dialect in ("llama.cpp", "transformers"):
        code = environment(dialect).compile("a{{ x }}{% macro m() %}b{% endmacro %}{% set y %}c{% endset %}", raw=True)
        assert "jx_piece" not in code and "jx_join" not in code, "the normal build routes output through provenance"
    old_tree = tree_of(rev)
    baseline, head = Worker(old_tree, folder, repeat), Worker(ROOT, folder, repeat)
    keys = [k for k in head.keys if k in set(baseline.keys)]
    best: dict[str, dict[str, float]] = {"baseline": {}, "head": {}}
    for key in keys:
        for turn in range(rounds):
            order = ((baseline, "baseline"), (head, "head")) if turn % 2 == 0 else ((head, "head"), (baseline, "baseline"))
            for worker, side in order:
                got = worker.us(key)
                best[side][key] = min(best[side].get(key, got), got)
    baseline.close()
    head.close()
    shutil.rmtree(old_tree)
    ratios = [best["head"][k] / best["baseline"][k] for k in keys]
    same_code = sum(baseline.code[k] == head.code[k] for k in keys)
    print(f"1. render() without provenance, this tree vs {rev} ({len(keys)} template/dialect pairs; per "
          f"template the best of {rounds} alternating turns x {BATCHES} batches of {repeat} renders):")
    for dialect in ("llama.cpp", "transformers"):
        sub = [k for k in keys if k.endswith("|" + dialect)]
        b = statistics.mean(best["baseline"][k] for k in sub)
        h = statistics.mean(best["head"][k] for k in sub)
        print(f"   {dialect:12s} mean {b:7.1f} us at {rev}, {h:7.1f} us now (x{h / b:.3f})")
    print(f"   per-template ratio now/{rev}: median x{statistics.median(ratios):.3f}, "
          f"middle half x{statistics.quantiles(ratios, n=4)[0]:.3f}..x{statistics.quantiles(ratios, n=4)[2]:.3f}, "
          f"min x{min(ratios):.3f}, max x{max(ratios):.3f}")
    print(f"   same render-function bytecode as {rev}: {same_code}/{len(keys)} templates; no provenance hook in "
          "the normal build's code; render() never compiled the variant")


def asked_for(folder: Path, repeat: int) -> None:
    from explorer.analysis import template_analysis
    from explorer.analysis.lines import LineFinder
    from explorer.errors import ExplorerError
    from explorer.render import (
        RenderInputs,
        chat_extra_context,
        compile_template,
        render,
        render_with_provenance,
    )
    from explorer.render.provenance_codegen import compile_provenance

    inputs = RenderInputs(messages=[{"role": "user", "content": "Hello"}], tools=[TOOL], add_generation_prompt=True,
                          extra_context=chat_extra_context())
    rows = []
    for path in sorted(folder.glob("*.jinja")):
        text = path.read_text(encoding="utf-8")
        for dialect in ("llama.cpp", "transformers"):
            tmpl = compile_template(text, dialect)  # type: ignore[arg-type]
            try:
                render(tmpl, inputs)
            except ExplorerError:
                continue
            start = time.perf_counter()
            compile_provenance(text, dialect)
            compile_ms = (time.perf_counter() - start) * 1e3
            plain = per_call_us(lambda tmpl=tmpl: render(tmpl, inputs), repeat)
            spans = per_call_us(lambda tmpl=tmpl: render_with_provenance(tmpl, inputs), repeat)
            rows.append((path.stem, dialect, plain, spans, compile_ms))
    print(f"2. with provenance ({len(rows)} template/dialect pairs; per template the best of {BATCHES} "
          f"batches of {repeat} renders):")
    for dialect in ("llama.cpp", "transformers"):
        sub = [r for r in rows if r[1] == dialect]
        plain = statistics.mean(r[2] for r in sub)
        spans = statistics.mean(r[3] for r in sub)
        ratios = [r[3] / r[2] for r in sub]
        print(f"   {dialect:12s} render {plain:7.1f} us, render_with_provenance {spans:7.1f} us "
              f"(x{spans / plain:.2f} mean; per template median x{statistics.median(ratios):.2f}, "
              f"max x{max(ratios):.2f}); variant compile median {statistics.median(r[4] for r in sub):.1f} ms")
    worst = max(rows, key=lambda r: r[3] / r[2])
    print(f"   largest ratio: {worst[0]} ({worst[1]}) {worst[2]:.0f} -> {worst[3]:.0f} us")
    count = 0
    attrib_ms: list[float] = []
    for path in sorted(folder.glob("*.jinja")):
        tmpl = compile_template(path.read_text(encoding="utf-8"))
        try:
            analysis = template_analysis(tmpl)  # not timed: the analysis exists already when asked
        except ExplorerError:
            continue
        start = time.perf_counter()
        count += len(LineFinder(tmpl, analysis).markers())
        attrib_ms.append((time.perf_counter() - start) * 1e3)
    print(f"   attributing all {count} markers of {len(attrib_ms)} analyses (llama.cpp, re-renders and "
          f"variant compile included): median {statistics.median(attrib_ms):.0f} ms, "
          f"max {max(attrib_ms):.0f} ms per template")


def per_call_us(fn: object, repeat: int) -> float:
    """µs per call: the best of ``BATCHES`` batches of ``repeat`` calls, after a warm-up
    batch (the machine is shared; the best batch is the least disturbed one)."""
    best = float("inf")
    for batch in range(BATCHES + 1):
        start = time.perf_counter()
        for _ in range(repeat):
            fn()  # type: ignore[operator]
        if batch:
            best = min(best, time.perf_counter() - start)
    return best / repeat * 1e6


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("folder", nargs="?", type=Path, default=DEFAULT_FOLDER)
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--baseline-rev", default=BASELINE_REV)
    args = ap.parse_args()
    not_asked_for(args.folder.resolve(), args.repeat, args.rounds, args.baseline_rev)
    asked_for(args.folder.resolve(), args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
