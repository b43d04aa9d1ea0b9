"""Fetching: only the configured Hub endpoint, only validated names, nothing else reachable.

Every outgoing connection of the process is recorded (``socket.socket.connect`` is
wrapped), so the assertions are about what actually left the process, whichever client
made it: hostile ``hf:`` specs (CLI), permalink ``hf=`` values (app links) and Hub-form
inputs are rejected before any connection; valid ones connect to the configured
endpoint (the local stand-in hub of tests/hubserver.py) and nowhere else. The app is
driven with AppTest with the same recorder in place.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer import ui_support as ui
from explorer.errors import FetchError, SourceError
from explorer.sources import from_hub, hub, resolve_spec
from hubserver import FakeHub
from oracle_data import PROJECT_ROOT

T_DEFAULT = "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}<|end|>{% endfor %}"

HOSTILE_SPECS = [
    "hf:../../etc",
    "hf:../../etc/passwd",
    "hf:http://127.0.0.1/x",
    "hf:http://127.0.0.1:8080/owner/repo",
    "hf:https://evil.example/owner/repo",
    "hf://127.0.0.1/owner/repo",
    "hf:127.0.0.1:22/repo",
    "hf:user@127.0.0.1/repo",
    "hf:owner@evil.example/repo",
    "hf:owner/repo@..",
    "hf:owner/repo@../../main",
    "hf:owner/repo@main/../../x",
    "hf:owner/repo@refs/../x",
    "hf:owner/repo@main@127.0.0.1",
    "hf:owner/repo@http://127.0.0.1/",
    "hf:owner/repo@main?x=1",
    "hf:owner/repo@-rf",
    "hf:owner/repo@%2e%2e",
    "hf:owner/re po",
    "hf:owner/repo\n@main",
    "hf:owner/.../x",
    "hf:owner/a--b",
    "hf:owner/repo\x00",
    "hf:ówner/repo",
    "hf:owner/repo@main\r\nHost: evil",
]

HOSTILE_LINK_VALUES = [s.removeprefix("hf:") for s in HOSTILE_SPECS]

# A file path inside the repo: refused, but only after the repo listing was fetched.
PATH_SPECS = [
    "hf:owner/repo/../../secrets.json",
    "hf:owner/repo/..%2fsecrets",
    "hf:owner/repo/%2e%2e/x.jinja",
    "hf:owner/repo/a\\..\\b",
    "hf:owner/repo//etc/passwd",
]


@pytest.fixture(autouse=True)
def hub_env(tmp_path, monkeypatch):
    import huggingface_hub
    from huggingface_hub import constants

    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf-cache"))
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    huggingface_hub.close_session()
    yield
    huggingface_hub.close_session()


class Connections:
    """Every socket connect() of this process while active: (host, port)."""

    def __init__(self) -> None:
        self.made: list[tuple[Any, ...]] = []

    def __call__(self, original: Any) -> Any:
        recorder = self

        def connect(sock: socket.socket, address: Any) -> Any:
            if sock.family in (socket.AF_INET, socket.AF_INET6):
                recorder.made.append(tuple(address)[:2])
            return original(sock, address)

        return connect


@pytest.fixture
def connections(monkeypatch) -> Iterator[Connections]:
    rec = Connections()
    monkeypatch.setattr(socket.socket, "connect", rec(socket.socket.connect))
    monkeypatch.setattr(socket.socket, "connect_ex", rec(socket.socket.connect_ex))
    yield rec


@pytest.fixture
def fake(monkeypatch) -> Iterator[FakeHub]:
    with FakeHub() as server:
        server.add_repo("owner/repo", {"chat_template.jinja": T_DEFAULT})
        # the app and resolve_spec use the configured endpoint (HF_ENDPOINT): the stand-in
        monkeypatch.setattr(hub, "default_endpoint", lambda: server.url)
        yield server


def endpoint_address(fake: FakeHub) -> tuple[str, int]:
    host, port = fake.url.removeprefix("http://").split(":")
    return host, int(port)


@pytest.mark.parametrize("spec", HOSTILE_SPECS)
def test_hostile_hf_specs_are_rejected_before_any_request(spec, fake, connections):
    with pytest.raises(SourceError) as err:
        resolve_spec(spec)
    assert connections.made == [] and fake.requests == [], (spec, connections.made, fake.requests)
    assert "invalid" in str(err.value) or "expected" in str(err.value), str(err.value)


@pytest.mark.parametrize("spec", PATH_SPECS)
def test_hostile_file_paths_are_refused_and_never_downloaded(spec, fake, connections):
    with pytest.raises(FetchError, match="invalid file path"):
        resolve_spec(spec)
    assert not any("/resolve/" in path for _, path, _ in fake.requests), fake.requests
    assert set(connections.made) <= {endpoint_address(fake)}


@pytest.mark.parametrize("spec", PATH_SPECS)
def test_hostile_file_paths_are_refused_before_any_request(spec, fake, connections):
    with pytest.raises(FetchError, match="invalid file path"):
        resolve_spec(spec)
    assert connections.made == [] and fake.requests == [], fake.requests


@pytest.mark.parametrize("spec", ["hf:owner/repo#../../x", "hf:" + "a" * 50 + "/" + "b" * 60, "hf:owner/repo@v9"])
def test_odd_but_harmless_specs_go_to_the_endpoint_only(spec, fake, connections):
    with pytest.raises(SourceError):
        resolve_spec(spec)
    assert set(connections.made) <= {endpoint_address(fake)}
    assert not any("/resolve/" in path for _, path, _ in fake.requests), fake.requests


@pytest.mark.parametrize("value", HOSTILE_LINK_VALUES)
def test_hostile_permalink_hub_values_make_no_request(value, fake, connections):
    try:
        request = ui.decode_permalink({"hf": value}).source_request()
        assert request is not None
        request.load()
    except SourceError:
        pass
    else:
        pytest.fail(f"hf={value!r} loaded a template")
    assert connections.made == [] and fake.requests == [], (value, connections.made)


def test_a_valid_spec_connects_to_the_configured_endpoint_only(fake, connections):
    source = resolve_spec("hf:owner/repo@main")
    assert source.text == T_DEFAULT
    assert connections.made and set(connections.made) == {endpoint_address(fake)}


def test_from_hub_has_no_url_parameter_and_every_download_a_cap_and_timeout():
    import inspect

    assert "url" not in inspect.signature(from_hub).parameters
    for fn in (hub.repo_snapshot, hub.download_text, hub.read_remote_gguf_header):
        params = inspect.signature(fn).parameters
        assert params["timeout"].default == hub.HUB_TIMEOUT_SECONDS
    assert inspect.signature(hub.download_text).parameters["max_bytes"].default == hub.MAX_HUB_TEXT_BYTES
    assert inspect.signature(hub.download_text).parameters["max_seconds"].default == hub.MAX_DOWNLOAD_SECONDS
    assert 0 < hub.HUB_TIMEOUT_SECONDS <= 30 and hub.MAX_HUB_TEXT_BYTES <= 16 << 20


PIECES = st.sampled_from([
    "owner", "repo", "/", "@", "#", "..", ".", ":", "//", "http:", "https:", "127.0.0.1", "localhost",
    "[::1]", "10.0.0.1", "169.254.169.254", "%2e", "%2f", "\\", "?", "=", " ", "\n", "\x00", "-", "--",
    "main", "refs/pr/1", "a" * 40, "ó", "user:pass", "file:", "~",
])


@settings(max_examples=300, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(PIECES, min_size=1, max_size=8).map("".join))
def test_any_hf_spec_reaches_only_the_endpoint(fake, connections, tail):
    connections.made.clear()
    try:
        resolve_spec("hf:" + tail)
    except SourceError:
        pass  # FetchError included: invalid, missing, or not found on the stand-in hub
    assert set(connections.made) <= {endpoint_address(fake)}, (tail, connections.made)


# --- the app -------------------------------------------------------------------------------


@pytest.mark.timeout(300)
@pytest.mark.parametrize("value", ["../../etc", "http://127.0.0.1:9/x", "owner/repo@../../main",
                                   "user@127.0.0.1/repo", "owner/repo/../../secrets.json"])
def test_the_app_refuses_hostile_hub_links_without_a_request(value, fake, connections):

    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=120)
    at.query_params["hf"] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.error, "no error shown for a hostile hub link"
    assert [c for c in connections.made if c != endpoint_address(fake)] == [], connections.made
    assert fake.requests == [], fake.requests


@pytest.mark.timeout(300)
def test_the_app_hub_form_refuses_a_url(fake, connections):

    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=120).run()
    at.radio(key="tpl_kind").set_value("hub").run()
    at.text_input(key="tpl_hub_repo").input("http://127.0.0.1:9/owner/repo")
    at.text_input(key="tpl_hub_revision").input("../../main") if _has_key(at, "tpl_hub_revision") else None
    at.button[0].click().run()
    assert not at.exception
    assert at.error
    assert fake.requests == [] and [c for c in connections.made if c != endpoint_address(fake)] == []


def _has_key(at: Any, key: str) -> bool:
    try:
        at.text_input(key=key)
    except KeyError:
        return False
    return True


def test_fetch_errors_are_source_errors():
    assert issubclass(FetchError, SourceError)
