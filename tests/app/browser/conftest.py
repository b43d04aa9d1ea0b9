"""Browser-test fixtures: a live ``streamlit run app.py`` and Debian's chromium.

The server runs on 127.0.0.1 on a free port for the whole session. Chromium is never
downloaded (no ``playwright install``): the tests drive /usr/bin/chromium. Without it
(or without the playwright package) the tests fail in CI (``CI=true``) with a clear
message, and skip on a developer machine.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator

import pytest

from tools.app_server import CHROMIUM, CHROMIUM_ARGS, ServerStartError, streamlit_server


def _missing(reason: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"browser tests cannot run in CI: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def sync_api():
    try:
        from playwright import sync_api
    except ImportError:
        _missing("the 'playwright' package is not installed (pip install -r requirements-dev.txt)")
    if not os.path.exists(CHROMIUM):
        _missing(f"{CHROMIUM} is absent (apt-get install chromium)")
    return sync_api


@contextlib.contextmanager
def running_app() -> Iterator[str]:
    """``streamlit run app.py`` on a free local port until the block ends; yields its URL."""
    try:
        with streamlit_server() as server:
            yield server.url
    except ServerStartError as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture(scope="session")
def app_url(sync_api) -> Iterator[str]:
    with running_app() as url:
        yield url


@pytest.fixture
def fresh_app_url(sync_api) -> Iterator[str]:
    """A server of its own that has served nothing yet."""
    with running_app() as url:
        yield url


@pytest.fixture(scope="session")
def playwright_session(sync_api):
    with sync_api.sync_playwright() as pw:
        yield pw


@pytest.fixture
def new_context(playwright_session, tmp_path) -> Iterator[Callable[[], object]]:
    """Factory of fresh browser contexts, each with its own empty user-data dir."""
    contexts = []

    def make():
        profile = tmp_path / f"profile-{len(contexts)}"
        ctx = playwright_session.chromium.launch_persistent_context(
            str(profile),
            executable_path=CHROMIUM,
            headless=True,
            args=list(CHROMIUM_ARGS),
            viewport={"width": 1400, "height": 1000},
        )
        ctx.set_default_timeout(60_000)
        contexts.append(ctx)
        return ctx

    yield make
    for ctx in contexts:
        ctx.close()


@pytest.fixture
def page(new_context):
    ctx = new_context()
    return ctx.pages[0] if ctx.pages else ctx.new_page()
