"""The real llama.cpp for the differential tests: one driver process per pytest worker.

The driver is the one ``TEMPLATE_EXPLORER_LLAMA_CPP_DRIVER`` names (``.ci/run`` exports it
after ``python3 -m explorer.llama_cpp build``), else the cached build of the default
source (``python -m explorer llama-cpp build`` once is enough); without either the tests
that need it skip, saying why (``.ci/run`` passes its build's failure in
``TEMPLATE_EXPLORER_LLAMA_CPP_DRIVER_SKIP``). Each differential test records how many
cases it compared (``record_property("cases", n)``); the run's total is printed at the end.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from explorer.errors import LlamaCppBuildError
from explorer.llama_cpp.build import cached_driver
from explorer.llama_cpp.driver import LlamaCppDriver, driver_at
from explorer.llama_cpp.source import default_source

SKIP_ENV = "TEMPLATE_EXPLORER_LLAMA_CPP_DRIVER_SKIP"


TEST_ENV = "TEMPLATE_EXPLORER_TEST_LLAMA_CPP_DRIVER"  # what .ci/run exports (tests/conftest.py)


def find_driver() -> tuple[Path | None, str]:
    """The driver's path, or None and why there is none."""
    named = os.environ.get(TEST_ENV, "").strip()
    if named:
        path = Path(named)
        if path.is_file():
            return path, ""
        return None, f"{TEST_ENV} names {path}, which is not there"
    why = os.environ.get(SKIP_ENV, "").strip()
    if why:
        return None, f"the llama.cpp driver could not be built: {why}"
    try:
        built = cached_driver(default_source(download=False))
    except LlamaCppBuildError as exc:
        return None, f"no llama.cpp driver: {exc}"
    if built is None:
        return None, ("no llama.cpp driver is built: run `python -m explorer llama-cpp build` (or .ci/run), or set "
                      f"{TEST_ENV} to one")
    return built.path, ""


@pytest.fixture(scope="session")
def llama_cpp() -> Iterator[LlamaCppDriver]:
    """The real build (one process for this worker's whole session)."""
    path, why = find_driver()
    if path is None:
        pytest.skip(why)
    driver = driver_at(path)
    yield driver
    driver.close()


CASES_KEY = "cases"


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    total = 0
    tests = 0
    for reports in terminalreporter.stats.values():
        for report in reports:
            if getattr(report, "when", "") != "call":
                continue
            for key, value in getattr(report, "user_properties", ()):
                if key == CASES_KEY and isinstance(value, int):
                    total += value
                    tests += 1
    if tests:
        terminalreporter.write_line(f"llama.cpp differential: {total} cases compared with the real build "
                                    f"in {tests} tests")
