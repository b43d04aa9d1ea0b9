"""The port's parse beside the real build's on outputs no fixture holds.

Each case takes a real output (a fixture's raw output, or a corpus template's own reply)
and mutates it as a model or a stream does (``differential.mutated``: a cut at each kind of
point, a character dropped, a piece doubled, a tag misspelt, unicode inserted, whitespace
changed), then parses it, whole or partial, with the port and with the real build. A
fixture's output is parsed by both with the parser llama.cpp used for it (the engine and
the mappers on their own); a reply with each side's own parser for its request (the whole
path). Every divergence found this way was fixed in the port or is documented
(docs/llama-cpp-differences.md), and kept as a plain case (test_found_regressions.py).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from differential import OutputCase, fixture_cases, mutated, reply_cases
from explorer.apply import Request
from explorer.errors import exception_json
from explorer.llama_cpp.compare import compare_parse, compare_stream
from explorer.llama_cpp.driver import CppException, LlamaCppDriver
from explorer.output.parse import analyse_output
from explorer.peg.arena import Arena, load_arena
from explorer.session import open_session, request_key

SETTINGS = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@lru_cache(maxsize=64)
def _arena(parser: str) -> Arena | None:
    return load_arena(parser) if parser else None


def _port(case: OutputCase, text: str, partial: bool) -> object:
    parsed = analyse_output(_arena(case.parser), text, generation_prompt=case.generation_prompt,
                            format=case.format, is_partial=partial)
    return exception_json(parsed.error) if parsed.error else parsed.message.to_oracle_json() if parsed.message else None


def _real(driver: LlamaCppDriver, case: OutputCase, text: str, partial: bool) -> object:
    got = driver.parse({"parser": case.parser, "format": case.format, "generation_prompt": case.generation_prompt},
                       text, partial=partial).value
    return got.to_json() if isinstance(got, CppException) else got


def test_mutated_fixture_outputs_parse_alike(llama_cpp: LlamaCppDriver, record_property: Callable[[str, object], None]) -> None:
    cases = fixture_cases()
    if not cases:
        pytest.skip("../shared/oracle is absent: the fixtures' parsers are llama.cpp's records")
    count = 0

    @SETTINGS
    @given(case=st.sampled_from(cases), data=st.data(), partial=st.booleans())
    def check(case: OutputCase, data: st.DataObject, partial: bool) -> None:
        nonlocal count
        text, steps = data.draw(mutated(case.text), label="mutated output")
        count += 1
        port, real = _port(case, text, partial), _real(llama_cpp, case, text, partial)
        assert port == real, f"{case.label} after {[s.describe() for s in steps]} (partial={partial}): {text!r}"

    check()
    record_property("cases", count)


_PARSERS: dict[tuple[str, str], OutputCase | None] = {}


def _built_parser(driver: LlamaCppDriver, template: str, request: Request) -> OutputCase | None:
    """The parser llama.cpp builds for the request (None when it cannot apply it)."""
    key = (template, request_key(request))
    if key not in _PARSERS:
        params = driver.apply(template, request).value
        _PARSERS[key] = None if isinstance(params, CppException) else OutputCase(
            "", "", parser=str(params["parser"]), format=str(params["format"]),
            generation_prompt=str(params["generation_prompt"]))
    return _PARSERS[key]


def test_mutated_own_replies_parse_alike(llama_cpp: LlamaCppDriver, record_property: Callable[[str, object], None]) -> None:
    """Each reply with the parser llama.cpp builds for its request, by both engines."""
    cases = reply_cases()
    count = 0

    @SETTINGS
    @given(case=st.sampled_from(cases), data=st.data(), partial=st.booleans())
    def check(case: OutputCase, data: st.DataObject, partial: bool) -> None:
        nonlocal count
        assert case.template is not None and case.request is not None
        parser = _built_parser(llama_cpp, case.template, case.request)
        assume(parser is not None)
        assert parser is not None
        text, steps = data.draw(mutated(case.text), label="mutated reply")
        count += 1
        port, real = _port(parser, text, partial), _real(llama_cpp, parser, text, partial)
        assert port == real, f"{case.label} after {[s.describe() for s in steps]} (partial={partial}): {text!r}"

    check()
    record_property("cases", count)


def test_the_whole_path_agrees_on_mutated_own_replies(llama_cpp: LlamaCppDriver, record_property: Callable[[str, object], None]) -> None:
    """Each side's own apply of the reply's request, then its own parse."""
    cases = reply_cases()
    count = 0

    @settings(SETTINGS, max_examples=25)
    @given(case=st.sampled_from(cases), data=st.data(), partial=st.booleans())
    def check(case: OutputCase, data: st.DataObject, partial: bool) -> None:
        nonlocal count
        assert case.template is not None and case.request is not None
        text, steps = data.draw(mutated(case.text), label="mutated reply")
        count += 1
        agreement = compare_parse(open_session(case.template), text, case.request, llama_cpp, partial=partial)
        assert agreement.agrees, f"{case.label} after {[s.describe() for s in steps]}: {agreement.to_text()}"

    check()
    record_property("cases", count)


def test_streaming_a_mutated_reply_goes_alike_at_every_prefix(llama_cpp: LlamaCppDriver, record_property: Callable[[str, object], None]) -> None:
    cases = reply_cases()
    count = 0

    @settings(SETTINGS, max_examples=15)
    @given(case=st.sampled_from(cases), data=st.data())
    def check(case: OutputCase, data: st.DataObject) -> None:
        nonlocal count
        assert case.template is not None and case.request is not None
        text, steps = data.draw(mutated(case.text, most=1), label="mutated reply")
        agreement = compare_stream(open_session(case.template), text, case.request, llama_cpp)
        count += len(text) + 1
        assert agreement.agrees, f"{case.label} after {[s.describe() for s in steps]}: {agreement.to_text()}"

    check()
    record_property("cases", count)
