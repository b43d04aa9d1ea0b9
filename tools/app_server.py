"""A local ``streamlit run app.py`` and Debian's chromium, for browser tests, benchmarks and screenshots.

Input: nothing (the project root is found from this file). Output: a context manager
yielding the server's URL and pid, started headless on 127.0.0.1 on a free port and
stopped (terminate, then kill) when the block ends; the chromium path and flags. Chromium
is never downloaded: /usr/bin/chromium is driven as is. A server that exits or never
becomes healthy raises ``ServerStartError`` with the end of its log.
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
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync")
START_TIMEOUT_S = 90


class ServerStartError(RuntimeError):
    """``streamlit run app.py`` exited or did not answer its health check in time."""


@dataclass(frozen=True)
class RunningServer:
    url: str
    pid: int


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_healthy(proc: subprocess.Popen, url: str, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        if proc.poll() is not None:
            raise ServerStartError(f"streamlit exited with {proc.returncode}: {log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise ServerStartError(f"streamlit did not become healthy in {START_TIMEOUT_S} s")
        time.sleep(0.2)


@contextlib.contextmanager
def streamlit_server() -> Iterator[RunningServer]:
    """``streamlit run app.py`` on 127.0.0.1 until the block ends (a fresh server: empty caches)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    # only 127.0.0.1 is contacted: a proxy from the environment must not intercept it
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()} | {"NO_PROXY": "127.0.0.1"}
    with tempfile.NamedTemporaryFile(prefix="bench-streamlit-", suffix=".log", delete=False) as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
             "--server.port", str(port), "--server.address", "127.0.0.1",
             "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        _wait_healthy(proc, url, Path(log.name))
        yield RunningServer(url, proc.pid)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        os.unlink(log.name)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (0 when it cannot be read)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return 0.0
