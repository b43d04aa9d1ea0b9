"""What the triage tests share: the Qwen3-Coder-routed template's session (our own
template of that format, tests/cases.py TAGGED), checked to write the call shape the
tests build their outputs from. (Every diagnosis a triage test makes has its headline
checked against its lead finding: tests/conftest.py.)"""

from __future__ import annotations

import pytest

from cases import QWEN_CALL, TAGGED, WEATHER_CITY
from explorer.session import TemplateSession


@pytest.fixture(scope="module")
def qwen() -> TemplateSession:
    s = TemplateSession(TAGGED)
    assert s.handler == "qwen3-coder"
    assert s.sample_reply("call", s.request(tools=[WEATHER_CITY])) == QWEN_CALL.format(city="Paris")
    return s
