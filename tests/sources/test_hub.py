"""Hub sources against a local stand-in server (tests/hubserver.py): the real
huggingface_hub client code runs, but nothing leaves 127.0.0.1."""

from __future__ import annotations

import dataclasses
import json
import os
import socket
import subprocess
import sys

import pytest

from explorer.errors import FetchError, GGUFError, SourceError
from explorer.sources import from_hub, hub
from hubserver import FakeHub, build_gguf
from oracle_data import PROJECT_ROOT

T_DEFAULT = "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
T_TOOLS = "{{ tools | tojson }}" + T_DEFAULT
T_RAG = "{{ documents | tojson }}" + T_DEFAULT
T_CONFIG = "{{ bos_token }}" + T_DEFAULT


@pytest.fixture(autouse=True)
def hub_env(tmp_path, monkeypatch):
    import huggingface_hub
    from huggingface_hub import constants

    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf-cache"))
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hf-cache"))
    # Loopback only, whatever proxy the machine has: the shared client reads these when built.
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    huggingface_hub.close_session()
    yield
    huggingface_hub.close_session()


@pytest.fixture(scope="module")
def gguf_file(tmp_path_factory):
    # 40k-token vocab before the templates, then 16 MiB of tensor data.
    return build_gguf(
        tmp_path_factory.mktemp("gguf") / "model-Q4_K_M.gguf",
        templates={"default": T_DEFAULT, "tool_use": T_TOOLS},
        n_tokens=40_000,
        tensor_elements=4 << 20,
    )


@pytest.fixture
def fake(gguf_file):
    gguf = gguf_file.path.read_bytes()
    with FakeHub() as server:
        server.add_repo(
            "acme/jinja-model",
            {
                "config.json": "{}",
                "tokenizer_config.json": json.dumps({"bos_token": "<|bos|>", "eos_token": {"content": "<|im_end|>"}}),
                "chat_template.jinja": T_DEFAULT,
                "additional_chat_templates/tool_use.jinja": T_TOOLS,
                "additional_chat_templates/rag.jinja": T_RAG,
            },
            revisions={"v1": "1" * 40},
        )
        server.repos["acme/jinja-model"].revisions["v1"] = server.repos["acme/jinja-model"].revisions["main"]
        server.add_repo(
            "acme/config-model",
            {"tokenizer_config.json": json.dumps({"chat_template": [
                {"name": "default", "template": T_CONFIG}, {"name": "tool_use", "template": T_TOOLS}]}),
             "chat_template.jinja": "{{ 'the converter never reads me' }}"},
        )
        server.add_repo(
            "acme/model-GGUF",
            {
                "README.md": "# quants",
                "mmproj-model-f16.gguf": b"GGUF-not-really",
                "model-Q4_K_M.gguf": gguf,
                "big/model-Q8_0-00002-of-00002.gguf": b"second shard",
            },
        )
        server.add_repo("acme/gated-model", {"chat_template.jinja": T_DEFAULT}, gated=True)
        server.add_repo("acme/empty-model", {"README.md": "nothing"})
        server.add_repo("acme/bad-config", {"tokenizer_config.json": "{not json"})
        server.add_repo(
            "acme/corrupt-GGUF",
            {"x.gguf": b"GGUF" + (3).to_bytes(4, "little") + (0).to_bytes(8, "little") + (2**62).to_bytes(8, "little")},
        )
        yield server


# --- repos with Jinja and JSON files ---------------------------------------------------


def test_chat_template_jinja_with_additional_templates(fake):
    source = from_hub("acme/jinja-model", endpoint=fake.url)
    assert source.text == T_DEFAULT
    assert source.variants == ("default", "rag", "tool_use")
    assert source.variant == "default"
    assert source.bos_token == "<|bos|>" and source.eos_token == "<|im_end|>"
    sha = fake.repos["acme/jinja-model"].revisions["main"]
    assert source.origin == f"hf:acme/jinja-model chat_template.jinja (commit {sha[:12]})"
    rag = from_hub("acme/jinja-model", variant="rag", endpoint=fake.url)
    assert rag.text == T_RAG and rag.variant == "rag"
    assert "additional_chat_templates/rag.jinja" in rag.origin


def test_only_the_chosen_variant_is_downloaded(fake):
    from_hub("acme/jinja-model", variant="tool_use", endpoint=fake.url)
    fetched = [path for method, path, _ in fake.requests if method == "GET" and "/resolve/" in path]
    assert any(p.endswith("additional_chat_templates/tool_use.jinja") for p in fetched)
    assert not any(p.endswith("rag.jinja") or p.endswith("chat_template.jinja") for p in fetched)


def test_downloads_are_pinned_to_the_resolved_commit(fake):
    sha = fake.repos["acme/jinja-model"].revisions["v1"]
    source = from_hub("acme/jinja-model", revision="v1", endpoint=fake.url)
    assert source.text == T_DEFAULT
    assert ("GET", "/api/models/acme/jinja-model/revision/v1", None) in fake.requests
    resolves = [path for _, path, _ in fake.requests if "/resolve/" in path]
    assert resolves and all(f"/resolve/{sha}/" in p for p in resolves)


def test_tokenizer_config_list_wins_like_the_converter(fake):
    assert from_hub("acme/config-model", endpoint=fake.url).text == T_CONFIG
    tool = from_hub("acme/config-model", variant="tool_use", endpoint=fake.url)
    assert tool.text == T_TOOLS and tool.variants == ("default", "tool_use")


def test_explicit_filename(fake):
    source = from_hub("acme/config-model", filename="chat_template.jinja", endpoint=fake.url)
    assert source.text == "{{ 'the converter never reads me' }}"
    with pytest.raises(FetchError, match="no file 'nope.jinja'"):
        from_hub("acme/config-model", filename="nope.jinja", endpoint=fake.url)


def test_missing_variant_and_bad_config(fake):
    with pytest.raises(SourceError, match="no chat template named 'nope'"):
        from_hub("acme/jinja-model", variant="nope", endpoint=fake.url)
    with pytest.raises(SourceError, match="not valid JSON"):
        from_hub("acme/bad-config", endpoint=fake.url)
    with pytest.raises(FetchError, match="no chat template in the repo"):
        from_hub("acme/empty-model", endpoint=fake.url)


# --- GGUF repos: header by range requests -----------------------------------------------


def test_gguf_header_is_read_with_range_requests(fake, gguf_file):
    source = from_hub("acme/model-GGUF", endpoint=fake.url)
    assert source.text == T_DEFAULT
    assert source.variants == ("default", "tool_use")
    assert "model-Q4_K_M.gguf" in source.origin and "mmproj" not in source.origin
    served = sum(n for path, n in fake.bytes_served.items() if path.startswith("/cdn/"))
    # The header is ~0.6 MB of a ~17 MB file: far less than the file was fetched.
    assert gguf_file.kv_end <= served < gguf_file.size // 4
    ranges = [r for method, path, r in fake.requests if method == "GET" and path.startswith("/cdn/")]
    assert ranges and all(r and r.startswith("bytes=") for r in ranges)


def test_remote_gguf_details(fake, gguf_file):
    repo = hub.repo_snapshot("acme/model-GGUF", endpoint=fake.url)
    remote = hub.read_remote_gguf_header(repo, "model-Q4_K_M.gguf", first_chunk=64 * 1024)
    assert remote.file_size == gguf_file.size
    assert remote.header.complete and remote.header.bytes_read == gguf_file.kv_end
    assert remote.requests >= 2  # growing chunks: 64k, 128k, 256k, ...
    assert remote.bytes_fetched < gguf_file.size // 4


def test_remote_gguf_cap(fake):
    repo = hub.repo_snapshot("acme/model-GGUF", endpoint=fake.url)
    remote = hub.read_remote_gguf_header(repo, "model-Q4_K_M.gguf", max_bytes=400 * 1024)
    assert remote.header.stop_reason == "cap"
    assert remote.bytes_fetched <= 400 * 1024


def test_server_ignoring_range_is_refused_or_cut(fake):
    fake.ignore_range = True
    repo = hub.repo_snapshot("acme/model-GGUF", endpoint=fake.url)
    with pytest.raises(FetchError, match="ignored the HTTP Range header"):
        hub.read_remote_gguf_header(repo, "model-Q4_K_M.gguf", first_chunk=64 * 1024)


def test_corrupt_remote_gguf(fake):
    with pytest.raises(GGUFError, match="absurd key-value count"):
        from_hub("acme/corrupt-GGUF", endpoint=fake.url)


# --- failures: clear FetchErrors ----------------------------------------------------------


def test_missing_and_gated_repos_and_revisions(fake):
    with pytest.raises(FetchError, match="repository not found"):
        from_hub("acme/no-such-model", endpoint=fake.url)
    with pytest.raises(FetchError, match="gated"):
        from_hub("acme/gated-model", endpoint=fake.url)
    with pytest.raises(FetchError, match="revision not found"):
        from_hub("acme/jinja-model", revision="no-such-branch", endpoint=fake.url)


def test_missing_file_is_entry_not_found(fake):
    repo = hub.repo_snapshot("acme/jinja-model", endpoint=fake.url)
    with pytest.raises(FetchError, match="file not found"):
        hub.download_text(repo, "not_there.jinja")


@pytest.mark.parametrize(
    ("repo_id", "revision"),
    [
        ("../../etc/passwd", None),
        ("a/b/c", None),
        ("https://evil.example/x", None),
        ("owner/bad--name", None),
        ("noslash", None),
        ("acme/jinja-model", "../../main"),
        ("acme/jinja-model", "main?x=1"),
        ("acme/jinja-model", "-rf"),
    ],
)
def test_invalid_ids_and_revisions_make_no_request(fake, repo_id, revision):
    with pytest.raises(FetchError, match="invalid"):
        from_hub(repo_id, revision=revision, endpoint=fake.url)
    assert fake.requests == []


def test_invalid_file_paths_are_refused(fake):
    with pytest.raises(FetchError, match="invalid file path"):
        from_hub("acme/jinja-model", filename="../secrets", endpoint=fake.url)


def test_text_over_the_cap_is_not_downloaded(fake):
    repo = hub.repo_snapshot("acme/jinja-model", endpoint=fake.url)
    with pytest.raises(FetchError, match="more than the 10-byte cap"):
        hub.download_text(repo, "chat_template.jinja", max_bytes=10)
    assert not any("/resolve/" in path for _, path, _ in fake.requests)


def test_cap_holds_while_streaming_without_a_stated_size(fake):
    fake.stream_without_length = True
    repo = hub.repo_snapshot("acme/jinja-model", endpoint=fake.url)
    unsized = dataclasses.replace(repo, files=tuple(hub.HubFile(f.path, None) for f in repo.files))
    with pytest.raises(FetchError, match="exceeds the 10-byte cap"):
        hub.download_text(unsized, "chat_template.jinja", max_bytes=10)
    assert hub.download_text(unsized, "chat_template.jinja") == T_DEFAULT


def test_timeout(fake):
    fake.delay_seconds = 1.0
    with pytest.raises(FetchError, match="no answer within 0.2 s"):
        hub.repo_snapshot("acme/jinja-model", endpoint=fake.url, timeout=0.2)


def test_slow_drip_download_hits_the_time_limit(fake):
    repo = hub.repo_snapshot("acme/jinja-model", endpoint=fake.url)
    fake.drip_seconds = 0.05  # the ~90-byte template would take ~0.3 s
    with pytest.raises(FetchError, match="time limit"):
        hub.download_text(repo, "chat_template.jinja", max_seconds=0.1)


def test_endpoint_that_is_not_a_hub(fake):
    fake.not_a_hub = True
    with pytest.raises(FetchError, match="did not answer like the Hub"):
        from_hub("acme/jinja-model", endpoint=fake.url)


def test_connection_refused():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(FetchError, match="connection failed"):
        hub.repo_snapshot("acme/jinja-model", endpoint=f"http://127.0.0.1:{port}", timeout=2)


def test_offline_mode(fake, monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(FetchError, match="offline"):
        from_hub("acme/jinja-model", endpoint=fake.url)


# --- HF_ENDPOINT, read at import time, in a fresh process -------------------------------------


def test_hf_endpoint_environment_variable_in_a_subprocess(fake, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("HF_") and "proxy" not in k.lower()}
    env |= {
        "NO_PROXY": "127.0.0.1,localhost",
        "HF_ENDPOINT": fake.url,
        "HF_HUB_CACHE": str(tmp_path / "cache"),
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "PYTHONPATH": str(PROJECT_ROOT),
    }
    code = (
        "import json; from explorer.sources import resolve_spec; s = resolve_spec('hf:acme/jinja-model#rag'); "
        "print(json.dumps([s.text, s.variant, list(s.variants)]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == [T_RAG, "rag", ["default", "rag", "tool_use"]]
    assert any(path.endswith("additional_chat_templates/rag.jinja") for _, path, _ in fake.requests)


def test_range_past_the_end_of_an_unsized_file_is_the_end(fake, gguf_file, monkeypatch):
    # Without a known size, reading goes on until the server answers 416.
    import huggingface_hub

    data = gguf_file.path.read_bytes()[: gguf_file.kv_end // 2]
    fake.add_repo("acme/cut-GGUF", {"cut.gguf": data})
    repo = hub.repo_snapshot("acme/cut-GGUF", endpoint=fake.url)
    unsized = dataclasses.replace(repo, files=tuple(hub.HubFile(f.path, None) for f in repo.files))
    real = huggingface_hub.get_hf_file_metadata
    monkeypatch.setattr(
        huggingface_hub,
        "get_hf_file_metadata",
        lambda *a, **k: dataclasses.replace(real(*a, **k), size=None),
    )
    remote = hub.read_remote_gguf_header(unsized, "cut.gguf", first_chunk=64 * 1024)
    assert remote.file_size is None
    assert remote.header.stop_reason == "truncated"
    assert remote.bytes_fetched == len(data)


def test_a_commit_that_is_not_a_sha_is_refused(fake):
    fake.add_repo("acme/odd", {"chat_template.jinja": "x"})
    fake.repos["acme/odd"].revisions["main"] = "../../etc"
    with pytest.raises(FetchError, match="expected a 40-hex commit"):
        from_hub("acme/odd", endpoint=fake.url)
