"""The doctor's fixes over llama.cpp's 70 templates, with the acceptance standard's figures (not a test).

    python benchmarks/sweep_fixes.py [--before BEFORE.jsonl] [--jobs 2] [--recheck]

Runs ``python -m explorer doctor --json`` over ../shared/oracle/templates (fix search on)
and prints what the closing note of issue 17 asks for:

- the fixes offered, and with ``--before`` (the JSON lines of a doctor run made before the
  standard, e.g. by the previous commit's CLI) the fixes before, and each fix no longer
  offered with the check that withdrew it: the withdrawn candidate's failed check when the
  search listed it, ``keeps-intent`` when the template's verdict is now full because every
  loss of that fix's classes is by design, ``replaced`` when another fix for the same
  template now stands in its place;
- the by-design losses (failure classes a design choice explains), per class, with the
  template lines that show the intent, and every design choice found, per kind;
- the new causes per class (templates): the health's template-text checks (empty
  template, turns never closed, constructs rendered literally, role markers read as other
  markers), the unused overrides, and the round trip's stop-token artifacts;
- with ``--recheck``, every offered fix checked again independently (tests/doctor/recheck.py).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT.parent / "shared" / "oracle" / "templates"
NEW_CAUSES = ("empty-template", "template-turn-unclosed", "template-renders-literally", "template-marker-is-role",
              "overrides-unused")

Line = dict[str, object]


def _lines(path: Path) -> dict[str, Line]:
    out: dict[str, Line] = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = json.loads(raw)
        out[str(line["template"]).rsplit("/", 1)[-1]] = line
    return out


def _list(line: Line, key: str) -> list[dict[str, object]]:
    value = line.get(key)
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def run(jobs: int) -> tuple[dict[str, Line], float]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "explorer", "doctor", str(TEMPLATES), "--json", "--jobs", str(jobs)],
                          cwd=ROOT, env=os.environ | {"PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                          check=False)
    if done.returncode not in (0, 1):
        sys.exit(f"doctor failed ({done.returncode}): {done.stderr[-2000:]}")
    out: dict[str, Line] = {}
    for raw in done.stdout.splitlines():
        line = json.loads(raw)
        out[str(line["template"]).rsplit("/", 1)[-1]] = line
    return out, time.perf_counter() - started


def withdrawn_by_check(before: dict[str, Line], after: dict[str, Line]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for name, old in before.items():
        new = after.get(name, {})
        offered = {str(f["summary"]) for f in _list(new, "fixes")}
        tried = {str(t["summary"]): str(t["check"]) for t in _list(new, "withdrawn")}
        for fix in _list(old, "fixes"):
            summary = str(fix["summary"])
            if summary in offered:
                continue
            if summary in tried:
                counts[tried[summary]] += 1
            elif _list(new, "fixes"):
                counts["replaced"] += 1
            elif new.get("verdict") == "full" and _list(new, "design"):
                counts["keeps-intent"] += 1  # every loss of its classes is now a design choice: no search
            else:
                counts["not offered (other)"] += 1
                print(f"  not offered, no check named: {name}: {summary}")
    return counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", type=Path, help="JSON lines of a doctor run made before the acceptance standard")
    ap.add_argument("--after", type=Path, help="JSON lines of this build's run (instead of running it)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--recheck", action="store_true", help="check every offered fix again, independently")
    args = ap.parse_args()
    if not TEMPLATES.is_dir():
        sys.exit(f"no oracle templates at {TEMPLATES}")
    if args.after:
        after, seconds = _lines(args.after), 0.0
    else:
        after, seconds = run(args.jobs)
        print(f"doctor over {len(after)} templates, --jobs {args.jobs}: {seconds:.1f} s wall")
    fixes = [(name, f) for name, line in after.items() for f in _list(line, "fixes")]
    print(f"fixes offered: {len(fixes)} on {len({n for n, _ in fixes})} templates")
    for name, fix in fixes:
        print(f"  {name}: [{fix['kind']}] {fix['summary']}")
    if args.before:
        before = _lines(args.before)
        print(f"fixes before the standard: {sum(len(_list(line, 'fixes')) for line in before.values())}")
        print("withdrawn, by check:", dict(withdrawn_by_check(before, after)))
    every: Counter[str] = Counter(str(t["check"]) for line in after.values() for t in _list(line, "withdrawn"))
    print("candidates the standard withdrew in this run, by check:", dict(every))
    design: dict[str, list[str]] = defaultdict(list)
    choices: Counter[str] = Counter()
    for name, line in after.items():
        for row in _list(line, "by_design_losses"):
            design[str(row["class"])].append(f"{name.removesuffix('.jinja')} {row['lines']}")
        choices.update(str(d["key"]) for d in _list(line, "design"))
    print("by-design losses (failure classes a design choice explains), per class:")
    for key, where in sorted(design.items(), key=lambda kv: -len(kv[1])):
        print(f"  {key}: {len(where)}: " + "; ".join(where))
    print("design choices found in the lossy templates, per kind:", dict(choices))
    causes: Counter[str] = Counter()
    for line in after.values():
        causes.update({str(f["check"]) for f in _list(line, "findings") if str(f["check"]) in NEW_CAUSES})
        if any("a stop-token artifact" in str(f.get("detail")) for f in _list(line, "findings")):
            causes["stop-token artifact"] += 1
    print("new causes, templates per class:", dict(causes))
    if args.recheck:
        sys.path[:0] = [str(ROOT / "tests" / "doctor"), str(ROOT / "tests"), str(ROOT)]
        from recheck import recheck

        from explorer.doctor.fixes import search_fixes
        from explorer.session import open_session
        problems = 0
        for name in sorted({n for n, _ in fixes}):
            text = (TEMPLATES / name).read_text(encoding="utf-8")
            for fix in search_fixes(open_session(text), [str(TEMPLATES)]).fixes:
                found = recheck(text, fix)
                problems += len(found)
                print(f"  recheck {name}: {fix.summary[:70]}: {'holds' if not found else found}")
        print(f"recheck: {problems} problem(s)")


if __name__ == "__main__":
    main()
