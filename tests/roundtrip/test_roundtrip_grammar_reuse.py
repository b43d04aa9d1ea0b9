"""The session's round trip with grammar verdicts is the round trip without them plus the
verdicts (``explorer.roundtrip.report.with_grammar``): the same report as
``roundtrip_report(..., grammar=True)`` renders and parses from scratch."""

from __future__ import annotations

import sys

import pytest

from explorer.roundtrip.report import roundtrip_report
from explorer.routing import AUTOPARSER
from explorer.session import open_session
from oracle_data import PROJECT_ROOT

sys.path.insert(0, str(PROJECT_ROOT / "tests" / "doctor"))
from doctor_templates import LOSSY, MISREAD, NAME_SUFFIX_ID, SOUND  # noqa: E402


@pytest.mark.parametrize("text", [SOUND, LOSSY, MISREAD, NAME_SUFFIX_ID], ids=["sound", "lossy", "misread", "suffix"])
@pytest.mark.parametrize("thinking", [False, True])
def test_grammar_verdicts_on_the_cached_round_trip_equal_a_fresh_one(text: str, thinking: bool) -> None:
    session = open_session(text + "{# reuse #}")
    plain = session.roundtrip(thinking, grammar=False)
    judged = session.roundtrip(thinking, grammar=True)
    fresh = roundtrip_report(session.text, enable_thinking=thinking, grammar=True, templates=session.templates,
                             caps=session.caps,
                             analysis=session.analysis if session.handler == AUTOPARSER else None)
    assert judged.to_json() == fresh.to_json()
    assert [c.rendering for c in judged.cases] == [c.rendering for c in plain.cases]
    assert any(c.grammar for c in judged.cases) and not any(c.grammar for c in plain.cases)
