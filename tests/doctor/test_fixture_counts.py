"""One number on two pages: the Doctor and the Fixtures page count a family's fixtures alike.

Both judge a fixture by one rule (``explorer.fixtures.judge``: the fixture's request, its
verdict); the Fixtures page counts every fixture of the family, the Doctor the fixtures of
the family's models whose format the template writes, and each says which
(``count_scope``), naming the other's count where they differ. Our example template
chatml-think-tools writes the qwen3-hermes format.
"""

from __future__ import annotations

import re
from collections import Counter

from canitoolcall.fixtures import load_families

from explorer.fixtures import count_scope, family_fixtures, judge, match_family, run_family
from explorer.session import open_session
from explorer.sources import from_example

SESSION = open_session(from_example("chatml-think-tools"))
MATCH = match_family(SESSION.text, SESSION)


def test_the_example_speaks_a_family_of_which_it_matches_some_models():
    assert MATCH is not None and MATCH.slug == "qwen3-hermes"
    assert 0 < len(MATCH.fixture_ids) < len(family_fixtures(MATCH.slug))


def test_each_page_says_what_it_counts_and_the_numbers_are_the_counts():
    total, kept = len(family_fixtures(MATCH.slug)), len(MATCH.fixture_ids)
    fixtures_page = count_scope(MATCH.slug, MATCH, "fixtures")
    doctor = count_scope(MATCH.slug, MATCH, "doctor")
    assert fixtures_page.startswith(f"{total} fixtures: every fixture of the qwen3-hermes family")
    assert f"The Doctor counts {kept} of them" in fixtures_page
    assert doctor.startswith(f"{kept} fixtures: those of ") and f"the Fixtures page shows all {total}" in doctor
    # the Fixtures page opens on the Doctor's count (its switch on): the same number, said the same way
    by_default = count_scope(MATCH.slug, MATCH, "fixtures", only_matched=True)
    assert by_default.startswith(f"{kept} fixtures: those of ") and "as the Doctor counts them" in by_default
    assert f"(the family has {total})" in by_default
    run = run_family(SESSION, MATCH)
    assert len(run.rows) == kept and sum(run.counts().values()) == kept
    assert int(re.match(r"\d+", fixtures_page).group(0)) == total


def test_both_pages_judge_a_fixture_alike():
    """The Doctor's verdict of each matched fixture is the one the Fixtures page's judge gives."""
    family = load_families()[MATCH.slug]
    run = run_family(SESSION, MATCH)
    by_id = {f.id: f for f in family_fixtures(MATCH.slug)}
    page = Counter(judge(SESSION, by_id[r.fixture_id], family).status for r in run.rows)
    assert page == Counter(r.verdict.status for r in run.rows)
