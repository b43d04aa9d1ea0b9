"""The port's apply beside the real build's for requests the oracle never made.

Each case takes a corpus template and a request varied where llama-server's requests vary
(``differential.request``: thinking on or off, tool choice, parallel calls, which tools and
in which order, a conversation with reasoning, calls and tool results, the reasoning
format, continuing the last message) and asks both for ``common_chat_templates_apply``:
prompt, generation prompt, parser, grammar, triggers, preserved tokens, stops, format,
thinking tags, message delimiters. Both raising counts as agreeing.
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from differential import corpus, request
from explorer.apply import Request
from explorer.llama_cpp.compare import compare_apply
from explorer.llama_cpp.driver import LlamaCppDriver
from explorer.session import open_session

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def test_varied_requests_apply_alike(llama_cpp: LlamaCppDriver, record_property: Callable[[str, object], None]) -> None:
    count = 0

    @SETTINGS
    @given(template=st.sampled_from(corpus()), asked=request())
    def check(template: tuple[str, str], asked: Request) -> None:
        nonlocal count
        name, text = template
        count += 1
        agreement = compare_apply(open_session(text), asked, llama_cpp)
        assert agreement.agrees, f"{name}: {agreement.to_text()}"

    check()
    record_property("cases", count)
