"""The acceptance standard's share of the doctor's CPU time (not a test).

    python benchmarks/bench_acceptance.py [--copies 2] [--limit N]

Doctors the oracle's 70 templates (``--copies 2``: and a copy of each made different by a
leading Jinja comment, as ``bench_doctor.py``'s "140 distinct") in this process, fix search
on, and measures with the process clock: the whole doctor, the acceptance standard's
checks (``Standard.before_measuring``, ``judge`` and ``footprint``, with the renderings of
the message set they make), and the design-choice reading (``design_choices``), each in
CPU seconds and as a share of the doctor's. Run ``bench_doctor.py`` for the wall time with
``--jobs 2``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from explorer.doctor import acceptance, fixes, intent, report  # noqa: E402
from explorer.session import forget_sessions, open_session  # noqa: E402

TEMPLATES = ROOT.parent / "shared" / "oracle" / "templates"
T = TypeVar("T")
SPENT: dict[str, float] = {"checks": 0.0, "design": 0.0}
_DEPTH = {"checks": 0, "design": 0}


def timed(label: str, fn: Callable[..., T]) -> Callable[..., T]:
    def wrapper(*args: object, **kwargs: object) -> T:
        _DEPTH[label] += 1
        started = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            _DEPTH[label] -= 1
            if _DEPTH[label] == 0:
                SPENT[label] += time.process_time() - started
    return wrapper


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--copies", type=int, default=2, choices=(1, 2))
    ap.add_argument("--limit", type=int, default=0, help="only the first N templates (0: all)")
    args = ap.parse_args()
    if not TEMPLATES.is_dir():
        sys.exit(f"no oracle templates at {TEMPLATES}")
    for name in ("before_measuring", "judge", "footprint"):
        setattr(acceptance.Standard, name, timed("checks", getattr(acceptance.Standard, name)))
    design = timed("design", intent.design_choices)
    intent.design_choices = design  # type: ignore[assignment]
    fixes.design_choices = design  # type: ignore[assignment]
    report.design_choices = design  # type: ignore[assignment]
    texts = [p.read_text(encoding="utf-8") for p in sorted(TEMPLATES.glob("*.jinja"))]
    if args.limit:
        texts = texts[:args.limit]
    if args.copies == 2:
        texts += ["{# copy #}" + t for t in texts]
    started, count, offered = time.process_time(), 0, 0
    for text in texts:
        offered += len(report.doctor(open_session(text), name=f"t{count}").fixes)
        count += 1
        if count % 35 == 0:
            forget_sessions()  # as a batch worker holds only a few sessions at a time
    total = time.process_time() - started
    print(f"{count} templates, {offered} fixes offered: doctor {total:.1f} CPU s ({total / count:.3f} s each)")
    for label, seconds in SPENT.items():
        print(f"  {label:7s} {seconds:7.1f} CPU s  {100 * seconds / total:5.1f} %")


if __name__ == "__main__":
    main()
