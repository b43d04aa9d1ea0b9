"""The app with a real llama.cpp build configured: Try it and the Doctor show its answer.

``explorer.ui_support.llama_cpp_view`` is pure and tested on its own; the pages are opened
with ``$TEMPLATE_EXPLORER_LLAMA_CPP_DRIVER`` set (and unset: nothing of it is drawn).
"""

from __future__ import annotations

import pytest

from apptest_support import md_plain, open_page
from explorer.apply import GET_WEATHER_TOOL
from explorer.doctor.report import doctor
from explorer.llama_cpp.driver import DRIVER_ENV, LlamaCppDriver
from explorer.session import open_session
from explorer.sources.examples import from_example
from explorer.ui_support import llama_cpp_view as lv
from explorer.ui_support.app_options import app_options

EXAMPLE = "chatml-think-tools"
CALL = '<think>ok</think>Sure.<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
SECTION = "The real llama.cpp beside the port"


def test_the_app_takes_its_build_from_the_switch_or_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DRIVER_ENV, raising=False)
    assert app_options([]).llama_cpp is None and lv.configured(None) is None
    assert app_options(["--llama-cpp", "/x/driver"]).llama_cpp == "/x/driver"
    monkeypatch.setenv(DRIVER_ENV, "/y/driver")
    assert app_options([]).llama_cpp == "/y/driver"


def test_try_it_shows_nothing_of_it_without_a_build(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DRIVER_ENV, raising=False)
    at = open_page("try_it_page.py", EXAMPLE)
    at.text_area(key="try_output").input(CALL).run()
    assert SECTION not in [h.value for h in at.subheader]


def test_the_view_of_try_it_agrees_on_params_and_parse(llama_cpp: LlamaCppDriver) -> None:
    session = open_session(from_example(EXAMPLE).text)
    request = session.request(tools=[GET_WEATHER_TOOL])
    beside = lv.try_it(session, request, CALL, False, llama_cpp)
    assert beside.agrees and beside.rows == ()
    assert beside.headline == f"llama.cpp (build {llama_cpp.info.label}) agrees: the same chat params and the same parse."
    assert beside.message is not None and beside.message["reasoning_content"] == "ok"


def test_the_view_of_the_doctor_rechecks_the_template(llama_cpp: LlamaCppDriver) -> None:
    session = open_session(from_example(EXAMPLE).text)
    beside = lv.doctor(session, doctor(session, fixes=False).to_json(), llama_cpp)  # type: ignore[arg-type]
    assert beside.agrees and beside.headline.startswith(f"llama.cpp (build {llama_cpp.info.label}): reads and "
                                                         "applies the template as the port does")


def test_try_it_draws_the_builds_answer(monkeypatch: pytest.MonkeyPatch, llama_cpp: LlamaCppDriver) -> None:
    monkeypatch.setenv(DRIVER_ENV, str(llama_cpp.path))
    at = open_page("try_it_page.py", EXAMPLE)
    at.text_area(key="try_output").input(CALL).run()
    assert not at.exception
    assert SECTION in [h.value for h in at.subheader]
    assert any("agrees: the same chat params and the same parse" in md_plain(s.value) for s in at.success)


def test_the_doctor_draws_the_builds_reading(monkeypatch: pytest.MonkeyPatch, llama_cpp: LlamaCppDriver) -> None:
    monkeypatch.setenv(DRIVER_ENV, str(llama_cpp.path))
    at = open_page("doctor_page.py", EXAMPLE)
    assert not at.exception
    assert SECTION in [h.value for h in at.subheader]
    assert any(md_plain(s.value).startswith(f"llama.cpp (build {llama_cpp.info.label}): reads and applies the "
                                            "template as the port does") for s in at.success)
