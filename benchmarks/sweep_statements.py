"""The statement audit's big sweep, run locally (not a test): every template, many outputs.

    python benchmarks/sweep_statements.py [--cuts 6] [--drops 3] [--only NAME] [--hostile] [--show 3]

For every template in ../shared/oracle/templates (with ``--hostile``, tests/hostile too,
slow ones included) and the project's own test templates (tests/cases.py): the template's
own replies for each thinking setting, whole, cut at ``--cuts`` points, with ``--drops``
characters dropped one at a time and with a tag misspelt (tests/statement_cases.py),
diagnosed with the session and audited (``explorer.triage.audit``). Prints the cases
checked, the violations per invariant and the first ``--show`` of each, and the time.
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from explorer.errors import ExplorerError  # noqa: E402
from explorer.session import TemplateSession, open_session  # noqa: E402
from explorer.sources import from_text  # noqa: E402
from explorer.triage.audit import INVARIANTS, audit  # noqa: E402
from statement_cases import cases  # noqa: E402

SHARED = ROOT.parent / "shared" / "oracle" / "templates"


def templates(hostile: bool, only: str) -> list[tuple[str, str]]:
    import cases as own  # tests/cases.py

    found = [(p.stem, p.read_text(encoding="utf-8")) for p in sorted(SHARED.glob("*.jinja"))]
    found += [(name, getattr(own, name)) for name in dir(own)
              if name.isupper() and isinstance(getattr(own, name), str) and "{%" in getattr(own, name)]
    if hostile:
        for p in sorted((ROOT / "tests" / "hostile").rglob("*.jinja")):
            found.append(("hostile/" + p.stem, p.read_text(encoding="utf-8", errors="replace")))
    return [(n, t) for n, t in found if only in n]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cuts", type=int, default=6)
    ap.add_argument("--drops", type=int, default=3)
    ap.add_argument("--only", default="")
    ap.add_argument("--hostile", action="store_true")
    ap.add_argument("--show", type=int, default=3)
    args = ap.parse_args()
    counts: collections.Counter[str] = collections.Counter()
    shown: dict[str, list[str]] = collections.defaultdict(list)
    checked = errors = 0
    t0 = time.time()
    for name, text in templates(args.hostile, args.only):
        try:
            session: TemplateSession = open_session(from_text(text))
            made = list(cases(name, session, cuts=args.cuts, drops=args.drops))
        except ExplorerError:
            errors += 1
            continue
        for case, request in made:
            try:
                d = session.diagnose(case.output, request)
            except ExplorerError:
                errors += 1
                continue
            checked += 1
            for v in audit(d, session, request):
                counts[v.invariant] += 1
                if len(shown[v.invariant]) < args.show:
                    shown[v.invariant].append(f"{name} ({case.how}, thinking {case.thinking}): {v}")
    print(f"{checked} cases audited ({errors} templates or requests that raise a clear error) in "
          f"{time.time() - t0:.0f} s")
    for inv in INVARIANTS:
        print(f"  {inv:14} {counts[inv]} violations")
        for line in shown[inv]:
            print(f"      {line[:400]}")


if __name__ == "__main__":
    main()
