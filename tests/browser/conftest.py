"""Browser-test fixtures: a live ``streamlit run app.py`` and Debian's chromium.

The server runs on 127.0.0.1 on a free port for the whole session. Chromium is never
downloaded (no ``playwright install``): the tests drive /usr/bin/chromium. Without it
(or without the playwright package) the tests fail in CI (``CI=true``) with a clear
message, and skip on a developer machine.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
START_TIMEOUT_S = 90


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


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def running_app() -> Iterator[str]:
    """``streamlit run app.py`` on a free local port until the block ends; yields its URL."""
    port = _free_port()
    log = tempfile.NamedTemporaryFile(prefix="streamlit-", suffix=".log", delete=False)
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "streamlit", "run", "app.py",
            "--server.headless", "true",
            "--server.port", str(port),
            "--server.address", "127.0.0.1",
            "--browser.gatherUsageStats", "false",
            "--server.fileWatcherType", "none",
        ],
        cwd=PROJECT_ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                pytest.fail(f"streamlit exited with {proc.returncode}:\n{Path(log.name).read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"streamlit did not become healthy in {START_TIMEOUT_S}s")
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
        os.unlink(log.name)


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
            args=CHROMIUM_ARGS,
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
