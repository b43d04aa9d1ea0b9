"""A small local stand-in for the Hugging Face Hub, for tests (no network).

It serves, on 127.0.0.1 and an ephemeral port, the endpoints huggingface_hub 2.4.0
calls on our code paths:

- ``GET /api/models/{owner}/{name}`` and ``GET /api/models/{owner}/{name}/revision/{rev}``
  (``HfApi.model_info``; ``?blobs=true`` adds sizes): id, sha, siblings.
- ``HEAD``/``GET /{owner}/{name}/resolve/{rev}/{path}`` (``get_hf_file_metadata``,
  downloads): ``X-Repo-Commit``, ``ETag``, ``Content-Length``, ``Accept-Ranges``.
  Files marked LFS answer with a 302 to ``/cdn/{sha256}`` carrying ``X-Linked-Size``
  and ``X-Linked-Etag``, as the Hub does for large files.
- ``GET /cdn/{sha256}``: the blob, honouring ``Range: bytes=a-b`` with 206 and
  ``Content-Range``.

Errors carry the Hub's ``X-Error-Code`` headers: ``RepoNotFound`` (401, as the Hub
answers for missing or private repos), ``GatedRepo`` (403 on files of a gated repo),
``RevisionNotFound`` and ``EntryNotFound`` (404). Every body byte served is counted
per path, so tests can assert how little of a big file was read.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit


@dataclass
class FakeRepo:
    files: dict[str, bytes]
    revisions: dict[str, str]
    lfs: set[str] = field(default_factory=set)
    gated: bool = False


@dataclass
class FakeHub:
    """Register repos, then ``with FakeHub() as hub:`` and point clients at ``hub.url``."""

    repos: dict[str, FakeRepo] = field(default_factory=dict)
    bytes_served: dict[str, int] = field(default_factory=dict)
    requests: list[tuple[str, str, str | None]] = field(default_factory=list)
    delay_seconds: float = 0.0
    ignore_range: bool = False
    stream_without_length: bool = False
    not_a_hub: bool = False  # the API answers with an HTML page, like a wrong HF_ENDPOINT
    drip_seconds: float = 0.0  # pause between 16-byte pieces of a body (slow-drip server)
    url: str = ""
    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _blobs: dict[str, bytes] = field(default_factory=dict)

    def add_repo(
        self,
        repo_id: str,
        files: dict[str, bytes | str],
        *,
        revisions: dict[str, str] | None = None,
        lfs: set[str] | None = None,
        gated: bool = False,
    ) -> str:
        """Add a repo; returns its commit sha (also reachable as 'main')."""
        data = {p: (v.encode("utf-8") if isinstance(v, str) else v) for p, v in files.items()}
        digests = sorted((p, hashlib.sha256(c).hexdigest()) for p, c in data.items())
        sha = hashlib.sha1(repr((repo_id, digests)).encode()).hexdigest()
        revs = {"main": sha, sha: sha} | (revisions or {})
        big = lfs if lfs is not None else {p for p in data if p.endswith(".gguf")}
        self.repos[repo_id] = FakeRepo(data, revs, big, gated)
        for content in data.values():
            self._blobs[hashlib.sha256(content).hexdigest()] = content
        return sha

    def __enter__(self) -> FakeHub:
        hub = self

        class Handler(_Handler):
            fake = hub

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    def count(self, path: str, n: int) -> None:
        with self._lock:
            self.bytes_served[path] = self.bytes_served.get(path, 0) + n

    def log(self, method: str, path: str, range_header: str | None) -> None:
        with self._lock:
            self.requests.append((method, path, range_header))


_MODEL_INFO = re.compile(r"^/api/models/([^/]+/[^/]+?)(?:/revision/(.+))?$")
_RESOLVE = re.compile(r"^/([^/]+/[^/]+)/resolve/([^/]+)/(.+)$")
_CDN = re.compile(r"^/cdn/([0-9a-f]{64})$")
_RANGE = re.compile(r"^bytes=(\d+)-(\d*)$")


class _Handler(BaseHTTPRequestHandler):
    fake: FakeHub
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:  # keep test output quiet
        pass

    # --- plumbing -------------------------------------------------------------

    def _send(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        if "Content-Length" not in (headers or {}):
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD" and body:
            # Counted before writing, so the count is complete when the client has the bytes.
            self.fake.count(urlsplit(self.path).path, len(body))
            if self.fake.drip_seconds and status in (200, 206):
                for i in range(0, len(body), 16):
                    self.wfile.write(body[i : i + 16])
                    self.wfile.flush()
                    time.sleep(self.fake.drip_seconds)
            else:
                self.wfile.write(body)

    def _error(self, status: int, code: str, message: str) -> None:
        body = json.dumps({"error": message}).encode()
        self._send(
            status,
            body,
            {"Content-Type": "application/json", "X-Error-Code": code, "X-Error-Message": message},
        )

    def do_HEAD(self) -> None:
        self._route_quietly()

    def do_GET(self) -> None:
        self._route_quietly()

    def _route_quietly(self) -> None:
        try:
            self._route()
        except (BrokenPipeError, ConnectionResetError):
            # The client gave up (timeout tests, a stopped range read): nothing to answer.
            self.close_connection = True

    def _route(self) -> None:
        parts = urlsplit(self.path)
        path = unquote(parts.path)
        self.fake.log(self.command, path, self.headers.get("Range"))
        if self.fake.delay_seconds:
            time.sleep(self.fake.delay_seconds)
        if self.fake.not_a_hub:
            return self._send(200, b"<html>hello</html>", {"Content-Type": "text/html"})
        if m := _MODEL_INFO.match(path):
            return self._model_info(m.group(1), m.group(2), parse_qs(parts.query))
        if m := _RESOLVE.match(path):
            return self._resolve(m.group(1), m.group(2), m.group(3))
        if m := _CDN.match(path):
            return self._cdn(m.group(1))
        self._error(404, "NotFound", f"no route for {path}")

    # --- endpoints ------------------------------------------------------------

    def _repo(self, repo_id: str) -> FakeRepo | None:
        repo = self.fake.repos.get(repo_id)
        if repo is None:
            self._error(401, "RepoNotFound", "Repository not found")
        return repo

    def _model_info(self, repo_id: str, revision: str | None, query: dict[str, list[str]]) -> None:
        repo = self._repo(repo_id)
        if repo is None:
            return
        sha = repo.revisions.get(revision or "main")
        if sha is None:
            return self._error(404, "RevisionNotFound", f"Invalid rev id: {revision}")
        with_sizes = query.get("blobs", ["false"])[0].lower() == "true"
        siblings = []
        for name, content in sorted(repo.files.items()):
            entry: dict[str, object] = {"rfilename": name}
            if with_sizes:
                entry["size"] = len(content)
                entry["blobId"] = hashlib.sha1(content).hexdigest()
                if name in repo.lfs:
                    entry["lfs"] = {
                        "size": len(content),
                        "sha256": hashlib.sha256(content).hexdigest(),
                        "pointerSize": 134,
                    }
            siblings.append(entry)
        body = {
            "_id": "0" * 24,
            "id": repo_id,
            "modelId": repo_id,
            "sha": sha,
            "private": False,
            "gated": "manual" if repo.gated else False,
            "disabled": False,
            "tags": [],
            "siblings": siblings,
        }
        self._send(200, json.dumps(body).encode(), {"Content-Type": "application/json"})

    def _resolve(self, repo_id: str, revision: str, filename: str) -> None:
        repo = self._repo(repo_id)
        if repo is None:
            return
        sha = repo.revisions.get(revision)
        if sha is None:
            return self._error(404, "RevisionNotFound", f"Invalid rev id: {revision}")
        if repo.gated:
            return self._error(403, "GatedRepo", "Access to this model is restricted")
        content = repo.files.get(filename)
        if content is None:
            self.send_response(404)
            body = b'{"error":"Entry not found"}'
            self.send_header("X-Error-Code", "EntryNotFound")
            self.send_header("X-Error-Message", "Entry not found")
            self.send_header("X-Repo-Commit", sha)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
            return
        if filename in repo.lfs:
            digest = hashlib.sha256(content).hexdigest()
            return self._send(
                302,
                b"",
                {
                    "Location": f"/cdn/{digest}",
                    "X-Repo-Commit": sha,
                    "X-Linked-Size": str(len(content)),
                    "X-Linked-Etag": f'"{digest}"',
                    "ETag": f'"{hashlib.sha1(content).hexdigest()}"',
                },
            )
        headers = {
            "X-Repo-Commit": sha,
            "ETag": f'"{hashlib.sha1(content).hexdigest()}"',
            "Accept-Ranges": "bytes",
            "Content-Type": "text/plain; charset=utf-8",
        }
        if self.fake.stream_without_length:
            # No Content-Length: the body ends when the connection closes.
            self.send_response(200)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Connection", "close")
            self.end_headers()
            if self.command != "HEAD":
                self.fake.count(urlsplit(self.path).path, len(content))
                self.wfile.write(content)
            self.close_connection = True
            return
        self._send(200, content, headers)

    def _cdn(self, digest: str) -> None:
        content = self.fake._blobs.get(digest)
        if content is None:
            return self._error(404, "NotFound", "no such blob")
        range_header = self.headers.get("Range")
        m = _RANGE.match(range_header or "") if not self.fake.ignore_range else None
        if m is None:
            return self._send(200, content, {"Accept-Ranges": "bytes", "ETag": f'"{digest}"'})
        start = int(m.group(1))
        end = int(m.group(2)) if m.group(2) else len(content) - 1
        if start >= len(content):
            return self._send(416, b"", {"Content-Range": f"bytes */{len(content)}"})
        end = min(end, len(content) - 1)
        self._send(
            206,
            content[start : end + 1],
            {"Content-Range": f"bytes {start}-{end}/{len(content)}", "Accept-Ranges": "bytes"},
        )


# --- GGUF files for the tests (written with the gguf package's own writer) -----------


@dataclass(frozen=True)
class BuiltGGUF:
    path: Path
    kv_end: int  # file offset where the key-value section ends (measured while writing)
    size: int


def build_gguf(
    path: Path,
    *,
    templates: dict[str, str] | str | None,
    n_tokens: int = 200,
    tensor_elements: int = 1024,
    template_first: bool = False,
    extra_kv: Callable[[Any], None] | None = None,
) -> BuiltGGUF:
    """Write a real GGUF with GGUFWriter: metadata, a vocab of ``n_tokens`` strings,
    the chat template(s) (before or after the vocab) and one float32 tensor."""
    import os

    import numpy as np
    from gguf import GGUFWriter

    writer = GGUFWriter(path, "llama")
    writer.add_name("explorer-test")
    writer.add_context_length(4096)
    if template_first and templates is not None:
        writer.add_chat_template(_template_value(templates))
    writer.add_tokenizer_model("gpt2")
    writer.add_token_list(["<s>", "</s>"] + [f"tok{i}" for i in range(n_tokens - 2)])
    writer.add_token_types([1] * n_tokens)
    writer.add_bos_token_id(0)
    writer.add_eos_token_id(1)
    if extra_kv is not None:
        extra_kv(writer)
    if not template_first and templates is not None:
        writer.add_chat_template(_template_value(templates))
    writer.add_tensor("token_embd.weight", np.arange(tensor_elements, dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    kv_end = os.path.getsize(path)
    writer.write_tensors_to_file()
    writer.close()
    return BuiltGGUF(path, kv_end, os.path.getsize(path))


def _template_value(templates: dict[str, str] | str) -> Any:
    if isinstance(templates, str):
        return templates
    return [{"name": k, "template": v} for k, v in templates.items()]
