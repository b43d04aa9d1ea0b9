"""The llama.cpp source a driver is built from.

Input: a directory the user names, or nothing (the default: llama.cpp 0c1e5709 as the
llama-cpp-python 0.3.36 sdist vendors it, unpacked into a cache). Output: a checked
``SourceTree`` (its directory, the files the build reads, their hash, the build's name
for it: commit and build number where the tree says them), or ``LlamaCppBuildError``
naming what is missing.

The default cache is the one ``.ci/run`` fills for ``models/`` (``TEMPLATE_EXPLORER_LLAMA_CPP``,
else ``${XDG_CACHE_HOME:-~/.cache}/template-explorer/llama.cpp-0c1e5709``); the source
subset the build needs (``common/``, ``include/``, ``ggml/include/``, ``vendor/nlohmann/``)
is kept beside ``models/``. When it is absent the sdist is downloaded with pip (the
ordinary client of the package index), its sha256 checked, and only that subset unpacked.
Standard library only: ``.ci/run`` runs this before the project's virtualenv exists.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from explorer import LLAMA_CPP_COMMIT_SHORT
from explorer.errors import LlamaCppBuildError

CACHE_ENV = "TEMPLATE_EXPLORER_LLAMA_CPP"
SDIST_REQUIREMENT = "llama-cpp-python==0.3.36"
SDIST_NAME = "llama_cpp_python-0.3.36"
SDIST_SHA256 = "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"
SDIST_TREE = f"{SDIST_NAME}/vendor/llama.cpp/"
# what the driver's build reads from a tree (and what the cache keeps of the sdist)
SOURCE_DIRS: tuple[str, ...] = ("common", "include", "ggml/include", "vendor/nlohmann")
# the files a llama.cpp tree has that the build cannot do without
REQUIRED_FILES: tuple[str, ...] = ("common/chat.cpp", "common/chat.h", "include/llama.h", "ggml/include/ggml.h")
SOURCE_MARKER = "SOURCE"  # the cache's note of where it came from (.ci/run writes it too)
COMMIT_MARKER = "COMMIT"  # the cache's commit, for the build's name
HASHED_SUFFIXES = (".c", ".cc", ".cpp", ".h", ".hpp", ".in", ".txt", ".cmake")


@dataclass(frozen=True)
class SourceTree:
    """A llama.cpp tree the driver can be built from."""

    path: Path
    commit: str  # short commit, or "" when the tree does not say
    build_number: int  # llama.cpp's build number (commits on its branch), 0 when unknown
    digest: str  # sha256 of every file the build reads (paths and bytes)

    @property
    def label(self) -> str:
        """The build's name, as llama.cpp's ``--version`` spells it where it can."""
        if self.commit and self.build_number:
            return f"b{self.build_number}-{self.commit}"
        if self.commit:
            return self.commit
        return f"source {self.digest[:12]}"


def default_cache_dir() -> Path:
    """Where the default source is kept (``.ci/run``'s llama.cpp cache)."""
    named = os.environ.get(CACHE_ENV)
    if named:
        return Path(named)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "template-explorer" / f"llama.cpp-{LLAMA_CPP_COMMIT_SHORT}"


def missing_files(path: Path) -> list[str]:
    return [name for name in REQUIRED_FILES if not (path / name).is_file()]


def check_tree(path: Path) -> Path:
    """``path`` resolved, or ``LlamaCppBuildError`` when it is not a llama.cpp tree."""
    if not path.is_dir():
        raise LlamaCppBuildError(f"{path}: no such directory (expected a llama.cpp source tree)", source=str(path))
    lacking = missing_files(path)
    if lacking:
        raise LlamaCppBuildError(
            f"{path} is not a llama.cpp source tree: it lacks {', '.join(lacking)} (expected a llama.cpp checkout, "
            "or the vendor/llama.cpp folder of a llama-cpp-python sdist)", source=str(path))
    return path.resolve()


def source_files(path: Path) -> list[Path]:
    """The files of the tree the build reads, sorted by their path in the tree."""
    found: list[Path] = []
    for sub in SOURCE_DIRS:
        base = path / sub
        if base.is_dir():
            found.extend(p for p in base.rglob("*") if p.is_file() and p.suffix in HASHED_SUFFIXES)
    return sorted(found, key=lambda p: p.relative_to(path).as_posix())


def tree_digest(path: Path) -> str:
    h = hashlib.sha256()
    for file in source_files(path):
        h.update(file.relative_to(path).as_posix().encode() + b"\0")
        h.update(hashlib.sha256(file.read_bytes()).digest())
    return h.hexdigest()


def _git(path: Path, *args: str) -> str:
    try:
        done = subprocess.run(["git", "-C", str(path), *args], capture_output=True, text=True, timeout=30,
                              check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def _identity(path: Path) -> tuple[str, int]:
    """(short commit, build number) as the tree says them: its own git checkout (never the
    repository it is vendored in; the build number only from a full clone), else the
    cache's COMMIT note."""
    marker = path / COMMIT_MARKER
    if marker.is_file():
        return marker.read_text(encoding="utf-8").strip()[:8], 0
    top = _git(path, "rev-parse", "--show-toplevel")
    if top and Path(top).resolve() == path.resolve():
        commit = _git(path, "rev-parse", "--short=8", "HEAD")
        # a shallow clone's count is not llama.cpp's build number
        shallow = _git(path, "rev-parse", "--is-shallow-repository") != "false"
        count = "" if shallow else _git(path, "rev-list", "--count", "HEAD")
        return commit, int(count) if count.isdigit() else 0
    return "", 0


def source_tree(path: Path) -> SourceTree:
    """The checked tree at ``path`` with its hash and name."""
    resolved = check_tree(path)
    commit, number = _identity(resolved)
    return SourceTree(resolved, commit, number, tree_digest(resolved))


def default_source(*, download: bool = True) -> SourceTree:
    """llama.cpp 0c1e5709 from the cached sdist, unpacked (and downloaded) first if needed."""
    dest = default_cache_dir()
    if missing_files(dest):
        if not download:
            raise LlamaCppBuildError(f"the llama.cpp {LLAMA_CPP_COMMIT_SHORT} source cache {dest} lacks the source "
                                     "(run `python -m explorer llama-cpp build` once, or give --source DIR)",
                                     source=str(dest))
        fill_source_cache(dest)
    return source_tree(dest)


def _download_sdist(into: Path) -> Path:
    command = [sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check", "--no-deps",
               "--no-binary", ":all:", "-d", str(into), SDIST_REQUIREMENT]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=1800, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        raise LlamaCppBuildError(f"could not run pip to download the {SDIST_NAME} sdist: {exc}") from None
    if done.returncode != 0:
        raise LlamaCppBuildError(
            f"could not download the {SDIST_NAME} sdist with pip (exit {done.returncode}); give --source DIR for a "
            "llama.cpp tree you have", log=(done.stderr or done.stdout)[-2000:])
    return into / f"{SDIST_NAME}.tar.gz"


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _wanted(name: str) -> str | None:
    """A member's path in the tree when the cache keeps it, else None."""
    if not name.startswith(SDIST_TREE):
        return None
    inner = name[len(SDIST_TREE):]
    if inner == "LICENSE" or any(inner.startswith(d + "/") for d in SOURCE_DIRS):
        return inner
    return None


def unpack_source(sdist: Path, dest: Path) -> None:
    """The source subset of the sdist (sha256 checked) into ``dest`` (beside what is there)."""
    digest = _sha256(sdist)
    if digest != SDIST_SHA256:
        raise LlamaCppBuildError(f"{sdist}: sha256 {digest} is not the {SDIST_NAME} sdist's ({SDIST_SHA256})")
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=dest.name + ".src.", dir=dest.parent))
    try:
        with tarfile.open(sdist, "r:gz") as tar:
            members = []
            for member in tar.getmembers():
                inner = _wanted(member.name)
                if inner is not None and (member.isfile() or member.isdir()):
                    member.name = inner
                    members.append(member)
            tar.extractall(staging, members=members, filter="data")
        (staging / COMMIT_MARKER).write_text(LLAMA_CPP_COMMIT_SHORT + "\n", encoding="utf-8")
        dest.mkdir(parents=True, exist_ok=True)
        for entry in sorted(staging.iterdir()):
            target = dest / entry.name
            if entry.name == "LICENSE" and target.exists():
                continue
            if target.exists() and entry.is_dir():
                shutil.rmtree(target)
            os.replace(entry, target)
        note = dest / SOURCE_MARKER
        if not note.exists():
            note.write_text(f"llama.cpp {LLAMA_CPP_COMMIT_SHORT} from vendor/llama.cpp of the {SDIST_NAME} sdist "
                            f"(sha256 {SDIST_SHA256})\n", encoding="utf-8")
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def fill_source_cache(dest: Path, sdist: Path | None = None) -> None:
    """Put the default source into ``dest``: from ``sdist`` when given, else downloaded."""
    if sdist is not None:
        unpack_source(sdist, dest)
        return
    with tempfile.TemporaryDirectory(prefix="template-explorer-sdist.") as tmp:
        unpack_source(_download_sdist(Path(tmp)), dest)
