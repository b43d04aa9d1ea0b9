"""Wall time of ``python -m explorer doctor`` over the oracle's 70 templates and 140 (not a test).

    python benchmarks/bench_doctor.py [--jobs 1 2] [--no-dask] [--no-local] [--no-distinct] [--fixes on off]

Runs the CLI as a user would (``--json``, output discarded) over:

- ``70``: the 70 templates of ../shared/oracle/templates;
- ``140 (70 twice)``: that folder named twice. The doctor reads every spec first and
  doctors equal texts once, so this costs about what 70 cost;
- ``140 distinct``: the 70 and a copy of each made different by a leading Jinja comment
  (it renders nothing and moves no line), so every template is doctored: this is the one
  that shows the cost growing linearly;

each with every ``--jobs`` value, with the fix search (the default) and without it
(``--no-fixes``; ``--fixes on`` or ``off`` runs one of them), then (unless ``--no-dask``)
the 70 and the 140 distinct on a Dask ``LocalCluster`` of two single-threaded worker
processes via ``--scheduler``.
Prints wall seconds, CPU seconds (the CLI and its worker processes; for Dask the cluster's
workers), seconds per template and the 1-minute load average after each run (and when
the benchmark started), since on a shared machine the wall time is the CPU time divided
by the cores the other jobs leave.
The target: 140 templates within 60 s with --jobs 2 on a 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT.parent / "shared" / "oracle" / "templates"
TARGET_SECONDS = 60.0
PYTHON = sys.executable


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_cli(specs: list[str], extra: list[str]) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of the CLI and its pool, reports written). A template's
    error line ends the benchmark: an error line is cheap, and would flatter the figures."""
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    cpu0, t0 = _children_cpu(), time.perf_counter()
    done = subprocess.run([PYTHON, "-m", "explorer", "doctor", *specs, "--json", *extra], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=False)
    wall, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
    if done.returncode != 0:
        errors = [line for line in done.stdout.splitlines() if '"error": {' in line[:400]]
        sys.exit(f"doctor failed ({done.returncode}): {(errors or [''])[0][:600]} {done.stderr[-1500:]}")
    return wall, cpu, len(done.stdout.splitlines())


def distinct_copies(folder: Path) -> list[str]:
    """The 70 and, in ``folder``, a copy of each whose text differs by a leading comment."""
    out = []
    for path in sorted(TEMPLATES.glob("*.jinja")):
        copy = folder / path.name
        copy.write_text("{# copy #}" + path.read_text(encoding="utf-8"), encoding="utf-8")
        out.append(str(copy))
    return [str(TEMPLATES), *out]


def _row(label: str, how: str, n: int, wall: float, cpu: float | None) -> None:
    cpu_text = f"{cpu:7.1f}" if cpu is not None else "      -"
    verdict = "" if n != 140 or "jobs 2" not in how else ("  within target" if wall <= TARGET_SECONDS
                                                            else "  OVER TARGET")
    load = os.getloadavg()[0]
    print(f"{label:18s} {how:26s} {n:4d} {wall:8.1f} {cpu_text} {wall / n:8.3f} {load:6.2f}{verdict}", flush=True)


def bench_dask(sets: list[tuple[str, list[str], int]], fix_flags: list[list[str]]) -> None:
    import psutil
    from dask.distributed import LocalCluster

    # The scheduler (in this process) unpickles each task, and the workers run it: both
    # import the explorer, as on any Dask cluster, whose machines share one environment.
    os.environ["PYTHONPATH"] = str(ROOT)
    sys.path.insert(0, str(ROOT))
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        workers = [psutil.Process(p.pid) for p in psutil.Process().children(recursive=True)]

        def cpu() -> float:
            total = 0.0
            for w in workers:
                try:
                    t = w.cpu_times()
                    total += t.user + t.system
                except psutil.Error:
                    pass
            return total

        for label, specs, n in sets:
            for flags in fix_flags:
                before = cpu()
                wall, _, lines = run_cli(specs, ["--scheduler", cluster.scheduler_address, *flags])
                if lines != n:
                    sys.exit(f"{label} on dask: {lines} lines for {n} templates")
                _row(label, " ".join(["dask 2 workers", *flags]), n, wall, cpu() - before)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--no-dask", action="store_true")
    ap.add_argument("--no-distinct", action="store_true")
    ap.add_argument("--no-local", action="store_true", help="only the Dask runs")
    ap.add_argument("--fixes", nargs="+", choices=("on", "off"), default=["on", "off"],
                    help="with the fix search (on, the CLI's default), without it (off: --no-fixes), or both")
    args = ap.parse_args()
    fix_flags = [[] if f == "on" else ["--no-fixes"] for f in args.fixes]
    if not TEMPLATES.is_dir():
        sys.exit(f"no oracle templates at {TEMPLATES}")
    print(f"load average at start: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)")
    print(f"{'templates':18s} {'how':26s} {'n':>4s} {'wall s':>8s} {'CPU s':>7s} {'s/tmpl':>8s} {'load':>6s}")
    with tempfile.TemporaryDirectory() as tmp:
        sets = [("70", [str(TEMPLATES)], 70), ("140 (70 twice)", [str(TEMPLATES), str(TEMPLATES)], 140)]
        if not args.no_distinct:
            sets.append(("140 distinct", distinct_copies(Path(tmp)), 140))
        for label, specs, n in sets if not args.no_local else ():
            for flags in fix_flags:
                for jobs in args.jobs:
                    wall, cpu, lines = run_cli(specs, ["--jobs", str(jobs), *flags])
                    if lines != n:
                        sys.exit(f"{label}: {lines} lines for {n} templates")
                    _row(label, " ".join([f"--jobs {jobs}", *flags]), n, wall, cpu)
        if not args.no_dask:
            bench_dask([s for s in sets if s[0] != "140 (70 twice)"], fix_flags)


if __name__ == "__main__":
    main()
