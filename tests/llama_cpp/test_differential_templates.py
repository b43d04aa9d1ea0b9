"""The port's reading of a template beside the real build's, for templates nobody wrote.

Each case takes a corpus template and changes it (``differential.mutated_template``: a
marker changed once or everywhere, a line removed), then compares what both read off it
(caps, route, the autoparser's analysis with its workarounds, the thinking default) and
what both apply for the oracle's standard request with thinking off and on. A template
both refuse agrees; the real build crashing (llama-server would crash too) must be met by
the port refusing the template.
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from differential import corpus, mutated_template
from explorer.apply import standard_request
from explorer.errors import ExplorerError, LlamaCppDriverError
from explorer.llama_cpp.compare import compare_analysis, compare_apply
from explorer.llama_cpp.driver import CppException, LlamaCppDriver
from explorer.session import open_session

SETTINGS = settings(max_examples=20, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def test_mutated_templates_read_and_apply_alike(llama_cpp: LlamaCppDriver, record_property: Callable[[str, object], None]) -> None:
    count = 0

    @SETTINGS
    @given(template=st.sampled_from(corpus()), data=st.data())
    def check(template: tuple[str, str], data: st.DataObject) -> None:
        nonlocal count
        name, text = template
        changed, what = data.draw(mutated_template(text), label="template mutation")
        count += 1
        try:
            session = open_session(changed)
        except ExplorerError as refused:
            made = llama_cpp.template(changed)
            assert isinstance(made, CppException), f"{name} ({what}): the port refuses it ({refused}), llama.cpp not"
            return
        try:
            agreements = [compare_analysis(session, llama_cpp)]
            agreements += [compare_apply(session, standard_request(t), llama_cpp) for t in (False, True)]
        except LlamaCppDriverError as crashed:
            raise AssertionError(f"{name} ({what}): llama.cpp crashed where the port answered: {crashed}") from None
        for agreement in agreements:
            assert agreement.agrees, f"{name} ({what}): {agreement.to_text()}"

    check()
    record_property("cases", count)
