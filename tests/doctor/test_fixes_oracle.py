"""The doctor over llama.cpp's 70 corpus templates (``../shared/oracle``): every returned
fix re-runs better and loses nothing, reapplies from what it records (overrides, patched
template, request change), exports what a user applies, and every failure class found
either has a verified fix somewhere in the corpus or says why it has none. Prints, per
class, the round trip before and after its fixes (``pytest -s``).

The searches run in two processes when there are two cores (each search is independent).
"""

from __future__ import annotations

import multiprocessing
import os
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor

import pytest
from doctor_cases import patched

from explorer.analysis.overrides import cpp_string
from explorer.doctor.classes import measure, thinking_settings
from explorer.doctor.fixes import search_fixes
from explorer.doctor.model import Fix, FixSearch
from explorer.routing import AUTOPARSER
from explorer.session import TemplateSession, open_session
from oracle_data import ORACLE, load_oracle_template, oracle_template_names, requires_oracle

pytestmark = requires_oracle

# Classes the corpus has a verified fix for today: one that loses its last fix is a regression.
FIXED_IN_CORPUS = {"reasoning-dropped", "thinking-opened", "thinking-closed", "content-dropped", "parser-rejected",
                   "stop-token-left", "roundtrip-failed", "reply-fails", "reasoning-not-extracted"}


Searches = dict[str, tuple[str, FixSearch, tuple[tuple[str, ...], ...]]]  # name -> (route, search, reapplied)


def _reapplied(session: TemplateSession, fix: Fix) -> tuple[str, ...]:
    """The messages a fix gives back when applied from what it records."""
    settings = thinking_settings(session)
    if fix.kind == "request-change":
        return measure(session, settings, fix.request_change).count.equal_ids
    target = open_session(fix.patched_template) if fix.patched_template else session
    if fix.kind == "analysis-override":
        target = target.with_overrides(fix.overrides)
    return measure(target, settings).count.equal_ids


def _search(name: str) -> tuple[str, str, FixSearch, tuple[tuple[str, ...], ...]]:
    session = open_session(load_oracle_template(name))
    result = search_fixes(session, [str(ORACLE / "templates")])
    return name, session.handler, result, tuple(_reapplied(session, f) for f in result.fixes)


@pytest.fixture(scope="module")
def searches() -> Searches:
    names = oracle_template_names()
    workers = min(2, os.cpu_count() or 1)
    if workers > 1 and "fork" in multiprocessing.get_all_start_methods():
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            found = list(pool.map(_search, names))
    else:
        found = [_search(name) for name in names]
    return {name: (handler, result, again) for name, handler, result, again in found}


def test_every_fix_is_verified_reapplies_and_exports_what_a_user_applies(searches: Searches) -> None:
    checked = 0
    for name, (handler, result, again) in searches.items():
        text = load_oracle_template(name)
        for fix, back in zip(result.fixes, again):
            where = (name, fix.kind, fix.summary)
            assert fix.roundtrip_after.better_than(result.roundtrip_before), where
            assert fix.roundtrip_before == result.roundtrip_before, where
            assert back == fix.roundtrip_after.equal_ids, where
            if fix.diff:
                assert patched(text, fix.diff) == fix.patched_template, where
            if fix.kind == "analysis-override":
                assert handler == AUTOPARSER, where  # a specialised handler never reads the analysis
                assert fix.substring and fix.substring_matches[0] == name, where
                assert fix.substring in (fix.patched_template or text), where
                assert f"tmpl.src.find({cpp_string(fix.substring)})" in fix.workaround_cpp, where
            elif fix.kind == "request-change":
                assert fix.request_change is not None and fix.request_change.to_json(), where
            checked += 1
        assert not {t.summary for t in result.tried if t.why.startswith("it loses")} & {f.summary for f in result.fixes}
    assert checked


def test_every_failure_class_has_a_verified_fix_or_says_why_not(searches: Searches) -> None:
    rows: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    reasons: dict[str, set[str]] = defaultdict(set)
    kinds: dict[str, set[str]] = defaultdict(set)
    for name, (_, result, _) in searches.items():
        for cls in result.classes:
            row = rows[cls.key]
            row["templates"] += 1
            row["cases"] += len(cls.cases)
            fixes = result.fixes_for(cls.key)
            if not fixes:
                assert cls.no_fix, (name, cls.key)
                reasons[cls.key].add(cls.no_fix[:100])
                continue
            best = max(fixes, key=lambda f: f.roundtrip_after.equal)
            row["fixed"] += 1
            row["before"] += best.roundtrip_before.equal
            row["after"] += best.roundtrip_after.equal
            row["total"] += best.roundtrip_after.total
            kinds[cls.key] |= {f.kind for f in fixes}
    print("\nfailure class            templates  cases  fixed in  round trip before -> after (templates fixed)")
    for key, row in sorted(rows.items(), key=lambda kv: -kv[1]["templates"]):
        line = f"{key:24} {row['templates']:9} {row['cases']:6} {row['fixed']:9}"
        if row["fixed"]:
            kinds_used = ", ".join(sorted(kinds[key]))
            line += f"  {row['before']}/{row['total']} -> {row['after']}/{row['total']} ({kinds_used})"
        print(line)
        for reason in sorted(reasons[key]):
            print(f"{'':26}no fix: {reason}")
    fixed = {key for key, row in rows.items() if row["fixed"]}
    assert FIXED_IN_CORPUS <= fixed, FIXED_IN_CORPUS - fixed
    total = sum(len(r.fixes) for _, r, _ in searches.values())
    fixed_templates = sum(1 for _, r, _ in searches.values() if r.fixes)
    print(f"{total} verified fixes on {fixed_templates} of {len(searches)} templates")
