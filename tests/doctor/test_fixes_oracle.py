"""The doctor over llama.cpp's 70 corpus templates (``../shared/oracle``): every offered fix
passed every check of the acceptance standard, holds when checked again independently
(``recheck``), reapplies from what it records and exports what a user applies; every
failure class found has a fix, is by design (with the lines that show it), or says why no
fix is sound; and the corpus's known cases come out as read by hand (Llama 3.1 writes
content only without calls, lines 67-68; Functionary 3.1's and Hy3's end-of-turn token
is a stop-token artifact whose fix is an additional stop; Devstral's content glued to a
call changes the model's format). Prints, per class, the fixes, the by-design templates and
the withdrawn candidates by check (``pytest -s``).

One search per template of a fixed sample (the templates read by hand, the ones with a fix
or a withdrawn candidate to show, and every fourth of the rest), in two processes when
there are two cores, shared by the module; ``benchmarks/sweep_fixes.py`` runs all 70 and
prints the figures.
"""

from __future__ import annotations

import multiprocessing
import os
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor

import pytest
from doctor_cases import patched
from recheck import recheck

from explorer.analysis.overrides import cpp_string
from explorer.doctor.acceptance import CHECK_IDS
from explorer.doctor.fixes import search_fixes
from explorer.doctor.model import FixSearch
from explorer.routing import AUTOPARSER
from explorer.session import open_session
from oracle_data import ORACLE, load_oracle_template, oracle_template_names, requires_oracle

pytestmark = requires_oracle

Searches = dict[str, tuple[str, FixSearch]]  # name -> (route, search)


READ_BY_HAND = ("meta-llama-Llama-3.1-8B-Instruct", "meetkai-functionary-medium-v3.1", "tencent-Hy3",
                "unsloth-mistral-Devstral-Small-2507", "CohereForAI-c4ai-command-r-plus-tool_use", "MiniMax-M3",
                "Qwen-QwQ-32B", "deepseek-ai-DeepSeek-V3.2")


def sample() -> list[str]:
    names = oracle_template_names()
    return sorted({*READ_BY_HAND, *names[::4]} & set(names))


def _search(name: str) -> tuple[str, str, FixSearch]:
    session = open_session(load_oracle_template(name))
    return name, session.handler, search_fixes(session, [str(ORACLE / "templates")])


@pytest.fixture(scope="module")
def searches() -> Searches:
    names = sample()
    workers = min(2, os.cpu_count() or 1)
    if workers > 1 and "fork" in multiprocessing.get_all_start_methods():
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            found = list(pool.map(_search, names))
    else:
        found = [_search(name) for name in names]
    return {name: (handler, result) for name, handler, result in found}


def test_every_offered_fix_passed_the_standard_holds_again_and_exports_what_a_user_applies(
        searches: Searches) -> None:
    pytest.importorskip("transformers")  # the re-check renders the transformers dialect with real transformers
    checked = 0
    for name, (handler, result) in searches.items():
        text = load_oracle_template(name)
        for fix in result.fixes:
            where = (name, fix.kind, fix.summary)
            assert [c.check for c in fix.checks] == list(CHECK_IDS) and all(c.passed for c in fix.checks), where
            assert fix.roundtrip_before == result.roundtrip_before, where
            assert recheck(text, fix) == [], where
            if fix.diff:
                assert patched(text, fix.diff) == fix.patched_template, where
            if fix.kind == "analysis-override":
                assert handler == AUTOPARSER, where  # a specialised handler never reads the analysis
                assert fix.substring and fix.substring_matches[0] == name, where
                assert fix.substring in (fix.patched_template or text), where
                assert f"tmpl.src.find({cpp_string(fix.substring)})" in fix.workaround_cpp, where
                assert fix.corpus and f"of the {fix.corpus_size} searched" in fix.uniqueness or \
                    f"among the {fix.corpus_size} templates searched" in fix.uniqueness, where
            checked += 1
    assert checked


def test_every_failure_class_has_a_fix_is_by_design_or_says_why_not(searches: Searches) -> None:
    rows: dict[str, Counter[str]] = defaultdict(Counter)
    withdrawn: Counter[str] = Counter()
    for name, (_, result) in searches.items():
        for cls in result.classes:
            row = rows[cls.key]
            row["templates"] += 1
            if result.fixes_for(cls.key):
                row["fixed"] += 1
            elif cls.by_design:
                row["by design"] += 1
            else:
                assert cls.no_fix, (name, cls.key)
                row["no sound fix"] += 1
        withdrawn.update(t.check for t in result.withdrawn)
    print("\nfailure class            templates  fixed  by design  no sound fix")
    for key, row in sorted(rows.items(), key=lambda kv: -kv[1]["templates"]):
        print(f"{key:24} {row['templates']:9} {row['fixed']:6} {row['by design']:10} {row['no sound fix']:13}")
    print("withdrawn by check:", dict(withdrawn))
    assert rows["reasoning-dropped"]["by design"] >= 8 and rows["content-dropped"]["by design"] >= 2


def test_the_corpus_cases_read_by_hand(searches: Searches) -> None:
    llama = searches["meta-llama-Llama-3.1-8B-Instruct"][1]
    assert not llama.fixes and {t.check for t in llama.withdrawn} == {"keeps-intent"}
    [content] = [c for c in llama.classes if c.key == "content-dropped"]
    assert content.by_design and content.design_lines == (67, 68)
    for name, token in (("meetkai-functionary-medium-v3.1", "<|eom_id|>"), ("tencent-Hy3", "<｜hy_eos:opensource｜>")):
        result = searches[name][1]
        [fix] = [f for f in result.fixes if "stop-token-artifact" in f.classes]
        assert [s.spec for s in fix.overrides] == [f'additional_stops=["{token}"]']
        assert any("nothing needs fixing" in note for note in fix.notes)
    devstral = searches["unsloth-mistral-Devstral-Small-2507"][1]
    assert any(t.check == "keeps-format" and "content before its tool calls" in t.summary for t in devstral.withdrawn)
