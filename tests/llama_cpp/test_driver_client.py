"""The driver client: one process for many requests, failures named, never a hang.

Most tests talk to a stand-in process (fake_driver.py) that misbehaves on demand; the
last ones talk to the real build when it is there (the clock, the router's answer, the
driver's refusals).
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from explorer.apply import Request
from explorer.errors import LlamaCppDriverError
from explorer.llama_cpp.driver import NOW_EPOCH, CppException, DriverTemplate, LlamaCppDriver, driver_at, request_json

FAKE = Path(__file__).resolve().parent / "fake_driver.py"


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, Path]]:
    """An executable that runs the stand-in; and the file counting its starts."""
    script = tmp_path / "driver"
    script.write_text(f"#!/bin/sh\nexec {sys.executable} {FAKE} \"$@\"\n", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    starts = tmp_path / "starts"
    monkeypatch.setenv("FAKE_DRIVER_STARTS", str(starts))
    yield script, starts


def _started(starts: Path) -> int:
    return len(starts.read_text(encoding="utf-8").splitlines()) if starts.exists() else 0


def test_one_process_answers_many_requests(fake: tuple[Path, Path]) -> None:
    script, starts = fake
    driver = LlamaCppDriver(script)
    try:
        assert driver.info.label == "b7-abcdef12"
        made = driver.template("{{ x }}")
        assert isinstance(made, DriverTemplate) and made.caps == {"supports_tools": True}
        assert driver.template("{{ x }}") is made  # initialised once
        driver.template("{{ y }}")
        assert _started(starts) == 1
    finally:
        driver.close()


def test_a_library_exception_is_a_value_and_a_refusal_is_raised(fake: tuple[Path, Path]) -> None:
    driver = LlamaCppDriver(fake[0])
    try:
        answer = driver.parse({"parser": ""}, "text").value
        assert answer == CppException("std::runtime_error", "no match")
        with pytest.raises(LlamaCppDriverError, match="refused bogus: unknown op: bogus"):
            driver.call("bogus")
    finally:
        driver.close()


def test_a_driver_that_dies_is_named_with_what_it_printed_and_started_again(
        fake: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    script, starts = fake
    monkeypatch.setenv("FAKE_DRIVER_MODE", "crash")
    driver = LlamaCppDriver(script)
    with pytest.raises(LlamaCppDriverError, match=r"exited \(code 3\) before answering; it printed: fake driver: boom"):
        driver.call("hello")
    monkeypatch.setenv("FAKE_DRIVER_MODE", "ok")
    try:
        assert driver.call("hello")["commit"] == "abcdef12"
        assert _started(starts) == 2
    finally:
        driver.close()


def test_a_driver_that_hangs_is_stopped_after_the_timeout(fake: tuple[Path, Path],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_DRIVER_MODE", "hang")
    driver = LlamaCppDriver(fake[0], timeout=0.5)
    with pytest.raises(LlamaCppDriverError, match="did not answer within 0 s"):
        driver.call("hello")
    assert driver._proc is None  # stopped, not left running


def test_an_answer_off_the_protocol_is_an_error(fake: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_DRIVER_MODE", "garbage")
    with pytest.raises(LlamaCppDriverError, match="answered what is not JSON"):
        LlamaCppDriver(fake[0]).call("hello")


def test_a_missing_driver_says_how_to_build_one(tmp_path: Path) -> None:
    with pytest.raises(LlamaCppDriverError, match="llama-cpp build"):
        LlamaCppDriver(tmp_path / "none").call("hello")


def test_one_shared_driver_per_path(fake: tuple[Path, Path]) -> None:
    assert driver_at(fake[0]) is driver_at(str(fake[0]))
    driver_at(fake[0]).close()


def test_the_request_goes_out_in_llama_servers_field_names() -> None:
    request = Request(messages=({"role": "user", "content": "Hi"},), tool_choice="required",
                      continue_final_message="auto", chat_template_kwargs={"enable_thinking": False})
    sent = request_json(request)
    assert sent["tool_choice"] == "required" and sent["continue_final_message"] == "auto"
    assert sent["chat_template_kwargs"] == {"enable_thinking": False} and sent["tools"] is None
    # the port's fixed date (the oracle's run date), as the driver's wall clock
    assert datetime.fromtimestamp(NOW_EPOCH, UTC) == datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


# --- the real build ---------------------------------------------------------------------


def test_the_real_builds_clock_is_the_requests_date(llama_cpp: LlamaCppDriver) -> None:
    text = "{{ strftime_now('%Y-%m-%d') }}|{{ date_string }}|{% for m in messages %}{{ m.content }}{% endfor %}"
    params = llama_cpp.apply(text, Request(messages=({"role": "user", "content": "Hi"},), force_pure_content=True,
                                           add_generation_prompt=False)).value
    assert not isinstance(params, CppException)
    assert params["prompt"] == "2026-11-29|29 Nov 2026|Hi"


def test_the_real_router_counts_a_handler_that_throws_as_routed(llama_cpp: LlamaCppDriver) -> None:
    # Qwen3-Coder's substrings, and a body that refuses every render
    text = "{# <tool_call> <function= <parameter= #}{{ raise_exception('refused') }}"
    run = llama_cpp.analyze(text)
    assert run.specialized is True
    reply = llama_cpp.call("analyze", handle=llama_cpp._handle(text, "", "")[0])
    assert "refused" in str(reply.get("specialized_exception"))


def test_the_real_driver_refuses_what_is_not_its_protocol(llama_cpp: LlamaCppDriver) -> None:
    with pytest.raises(LlamaCppDriverError, match="unknown op"):
        llama_cpp.call("bogus")
    with pytest.raises(LlamaCppDriverError, match="unknown template handle"):
        llama_cpp.call("apply", handle=-5, request={"messages": []})
    assert os.access(llama_cpp.path, os.X_OK)
