"""Fetching template files from the Hugging Face Hub, and nothing else.

Input: a repo id, an optional revision and file path, and the Hub endpoint (default:
the one ``huggingface_hub`` is configured with, i.e. ``HF_ENDPOINT``). Output: a
``HubRepo`` listing (commit and files with sizes), the text of a small file, or the
``GGUFHeader`` of a remote GGUF read through HTTP range requests.

Every request goes through ``huggingface_hub`` (``HfApi.model_info``, ``hf_hub_url``,
``get_hf_file_metadata``, its shared HTTP session and ``hf_raise_for_status``) to the
configured endpoint only: there is no way to pass an arbitrary URL. Repo ids are checked
with ``huggingface_hub``'s own validator, revisions and paths with a strict pattern.
Each request has a timeout and each download a byte cap enforced while streaming, so a
lying server cannot make us read more than the cap. Nothing is written to the Hub
cache. All failures become ``FetchError`` (or ``GGUFError`` for a corrupt remote GGUF).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from explorer.errors import FetchError
from explorer.sources.gguf_header import MAX_GGUF_HEADER_BYTES, GGUFHeader, read_gguf_header, stream_from_callable

HUB_TIMEOUT_SECONDS = 10.0
"""Timeout for each Hub request (connect and each read)."""

MAX_HUB_TEXT_BYTES = 5 * 1024 * 1024
"""Largest text file (template or JSON) downloaded from the Hub."""

MAX_DOWNLOAD_SECONDS = 60.0
"""Wall-clock limit for one text download or one whole GGUF header read, however slowly
the server drips bytes (the per-request timeout only bounds each wait)."""

GGUF_FIRST_RANGE_BYTES = 256 * 1024
"""First range request for a remote GGUF header; later ones double (to 8 MiB each)."""

_COMMIT_RE = re.compile(r"[0-9a-f]{40}")
_REVISION_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,254}")
_PATH_RE = re.compile(r"[A-Za-z0-9_.][A-Za-z0-9_. ()+,=@-]*(/[A-Za-z0-9_.][A-Za-z0-9_. ()+,=@-]*)*")


@dataclass(frozen=True)
class HubFile:
    path: str
    size: int | None


@dataclass(frozen=True)
class HubRepo:
    """One resolved snapshot of a repo: every later download is pinned to ``commit``."""

    repo_id: str
    revision: str | None
    commit: str
    files: tuple[HubFile, ...]
    endpoint: str

    def paths(self) -> tuple[str, ...]:
        return tuple(f.path for f in self.files)

    def size_of(self, path: str) -> int | None:
        for f in self.files:
            if f.path == path:
                return f.size
        return None

    def ref(self) -> str:
        return f"{self.repo_id}@{self.revision}" if self.revision else self.repo_id


@dataclass(frozen=True)
class RemoteGGUF:
    header: GGUFHeader
    file_size: int | None
    bytes_fetched: int
    requests: int


def default_endpoint() -> str:
    from huggingface_hub import constants

    return constants.ENDPOINT


def validate_ref(repo_id: str, revision: str | None = None, path: str | None = None) -> None:
    """Reject ids, revisions and paths that are not plain Hub names (no URLs, no '..')."""
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    if not isinstance(repo_id, str) or repo_id.count("/") != 1:
        raise FetchError(f"invalid repo id {repo_id!r}: expected 'owner/name'")
    try:
        validate_repo_id(repo_id)
    except HFValidationError as exc:
        raise FetchError(f"invalid repo id {repo_id!r}: {exc}") from None
    if revision is not None and (not _REVISION_RE.fullmatch(revision) or ".." in revision):
        raise FetchError(
            f"invalid revision {revision!r}: expected a branch, tag or commit hash "
            "(letters, digits, '.', '_', '-', '/'; no '..')"
        )
    if path is not None and (not _PATH_RE.fullmatch(path) or ".." in path.split("/")):
        raise FetchError(f"invalid file path {path!r} in repo {repo_id}")


@contextmanager
def _hub_errors(what: str, timeout: float) -> Iterator[None]:
    """Turn huggingface_hub and transport errors into one clear FetchError."""
    import httpx2
    from huggingface_hub.errors import (
        DisabledRepoError,
        EntryNotFoundError,
        GatedRepoError,
        HfHubHTTPError,
        OfflineModeIsEnabled,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    try:
        yield
    except GatedRepoError:
        raise FetchError(
            f"{what}: the repo is gated; accept its conditions on the Hub and set HF_TOKEN"
        ) from None
    except RepositoryNotFoundError:
        raise FetchError(f"{what}: repository not found (or private without a token)") from None
    except RevisionNotFoundError:
        raise FetchError(f"{what}: revision not found") from None
    except EntryNotFoundError:
        raise FetchError(f"{what}: file not found in the repo") from None
    except DisabledRepoError:
        raise FetchError(f"{what}: access to this repo is disabled") from None
    except OfflineModeIsEnabled:
        raise FetchError(f"{what}: offline mode is on (HF_HUB_OFFLINE is set)") from None
    except HfHubHTTPError as exc:
        status = exc.response.status_code if exc.response is not None else None
        hint = " (access denied: check HF_TOKEN)" if status in (401, 403) else ""
        raise FetchError(f"{what}: the Hub answered HTTP {status or '?'}{hint}") from None
    except httpx2.TimeoutException:
        raise FetchError(f"{what}: no answer within {timeout:g} s") from None
    except httpx2.HTTPError as exc:
        raise FetchError(f"{what}: connection failed ({type(exc).__name__}: {exc})") from None


def repo_snapshot(
    repo_id: str,
    revision: str | None = None,
    *,
    endpoint: str | None = None,
    timeout: float = HUB_TIMEOUT_SECONDS,
) -> HubRepo:
    """Resolve ``revision`` to a commit and list the repo's files with their sizes."""
    from huggingface_hub import HfApi

    validate_ref(repo_id, revision)
    endpoint = endpoint or default_endpoint()
    where = f"hf:{repo_id}" + (f"@{revision}" if revision else "")
    with _hub_errors(where, timeout):
        try:
            info = HfApi(endpoint=endpoint).model_info(
                repo_id, revision=revision, timeout=timeout, files_metadata=True, token=None
            )
        except (ValueError, KeyError, TypeError) as exc:
            # huggingface_hub's own parsing of the answer failed: not a Hub endpoint.
            raise FetchError(
                f"{where}: {endpoint} did not answer like the Hub ({type(exc).__name__})"
            ) from None
    if not isinstance(info.sha, str) or not _COMMIT_RE.fullmatch(info.sha):
        raise FetchError(
            f"{where}: expected a 40-hex commit for this revision, the endpoint sent {info.sha!r}"
        )
    files = tuple(HubFile(s.rfilename, s.size) for s in (info.siblings or []))
    return HubRepo(repo_id, revision, info.sha, files, endpoint)


def _file_url(repo: HubRepo, path: str) -> str:
    from huggingface_hub import hf_hub_url

    validate_ref(repo.repo_id, None, path)
    return hf_hub_url(repo.repo_id, path, revision=repo.commit, endpoint=repo.endpoint)


def download_text(
    repo: HubRepo,
    path: str,
    *,
    max_bytes: int = MAX_HUB_TEXT_BYTES,
    timeout: float = HUB_TIMEOUT_SECONDS,
    max_seconds: float = MAX_DOWNLOAD_SECONDS,
) -> str:
    """Download a small UTF-8 file, stopping as soon as it exceeds ``max_bytes``."""
    where = f"hf:{repo.ref()} {path}"
    listed = repo.size_of(path)
    if listed is not None and listed > max_bytes:
        raise FetchError(f"{where}: file is {listed} bytes, more than the {max_bytes}-byte cap")
    deadline = time.monotonic() + max_seconds
    data = _bounded_get(_file_url(repo, path), where, max_bytes, timeout, deadline=deadline)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FetchError(f"{where}: not valid UTF-8 (bad byte at position {exc.start})") from None


def _bounded_get(
    url: str,
    where: str,
    max_bytes: int,
    timeout: float,
    *,
    byte_range: tuple[int, int] | None = None,
    send_token: bool = True,
    deadline: float | None = None,
) -> bytes:
    """GET ``url`` (a whole file, or ``byte_range`` = (start, length)), reading at most
    ``max_bytes`` of body. A whole-file download over the cap is an error; a range
    answered with the whole file (server ignoring Range) is cut to the range if it
    starts at 0, and refused otherwise."""
    from huggingface_hub.utils import build_hf_headers, get_session, hf_raise_for_status

    headers = build_hf_headers() if send_token else build_hf_headers(token=False)
    headers["Accept-Encoding"] = "identity"
    if byte_range is not None:
        start, length = byte_range
        headers["Range"] = f"bytes={start}-{start + length - 1}"
    with _hub_errors(where, timeout):
        with get_session().stream("GET", url, headers=headers, timeout=timeout) as resp:
            if resp.status_code == 416 and byte_range is not None:
                return b""  # the range starts past the end: the file is shorter
            if resp.status_code >= 400:
                resp.read()
                hf_raise_for_status(resp)
            if resp.status_code == 206 and byte_range is not None:
                return _read_capped(resp, where, max_bytes, cut=True, deadline=deadline)
            if resp.status_code != 200:
                raise FetchError(f"{where}: unexpected HTTP status {resp.status_code}")
            if byte_range is not None:
                if byte_range[0] != 0:
                    raise FetchError(f"{where}: the server ignored the HTTP Range header")
                return _read_capped(resp, where, max_bytes, cut=True, deadline=deadline)
            declared = resp.headers.get("Content-Length")
            if declared is not None and declared.isdigit() and int(declared) > max_bytes:
                raise FetchError(
                    f"{where}: file is {declared} bytes, more than the {max_bytes}-byte cap"
                )
            return _read_capped(resp, where, max_bytes, cut=False, deadline=deadline)


def _read_capped(
    resp: Any, where: str, max_bytes: int, cut: bool, deadline: float | None
) -> bytes:
    parts: list[bytes] = []
    total = 0
    for chunk in resp.iter_bytes():
        if deadline is not None and time.monotonic() > deadline:
            raise FetchError(f"{where}: download still unfinished after the time limit")
        parts.append(chunk)
        total += len(chunk)
        if total > max_bytes or (cut and total >= max_bytes):
            break
    if total > max_bytes and not cut:
        raise FetchError(f"{where}: download exceeds the {max_bytes}-byte cap")
    return b"".join(parts)[:max_bytes]


def read_remote_gguf_header(
    repo: HubRepo,
    path: str,
    *,
    max_bytes: int = MAX_GGUF_HEADER_BYTES,
    timeout: float = HUB_TIMEOUT_SECONDS,
    first_chunk: int = GGUF_FIRST_RANGE_BYTES,
    max_seconds: float = MAX_DOWNLOAD_SECONDS,
) -> RemoteGGUF:
    """Read a remote GGUF's key-value section with growing HTTP range requests.

    A HEAD request (``get_hf_file_metadata``) gives the size and the final location
    (the Hub redirects large files to a CDN); then ranges are read until the header
    parser has every key-value pair, the file ends, or ``max_bytes`` is reached.
    """
    from huggingface_hub import get_hf_file_metadata

    where = f"hf:{repo.ref()} {path}"
    url = _file_url(repo, path)
    with _hub_errors(where, timeout):
        meta = get_hf_file_metadata(url, timeout=timeout, endpoint=repo.endpoint)
    size = meta.size if meta.size is not None else repo.size_of(path)
    location = meta.location or url
    # Like huggingface_hub itself: the token goes to the Hub, never to a CDN it redirects to.
    send_token = _origin(location) == _origin(url)
    counter = {"bytes": 0, "requests": 0}
    deadline = time.monotonic() + max_seconds

    def read_range(start: int, length: int) -> bytes:
        if size is not None:
            length = min(length, size - start)
        if length <= 0:
            return b""
        counter["requests"] += 1
        if time.monotonic() > deadline:
            raise FetchError(f"{where}: header read still unfinished after {max_seconds:g} s")
        data = _bounded_get(
            location,
            where,
            length,
            timeout,
            byte_range=(start, length),
            send_token=send_token,
            deadline=deadline,
        )
        counter["bytes"] += len(data)
        return data

    header = read_gguf_header(stream_from_callable(read_range), max_bytes=max_bytes, first_chunk=first_chunk)
    return RemoteGGUF(header, size, counter["bytes"], counter["requests"])


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    return parts.scheme, (parts.hostname or "").lower(), parts.port
