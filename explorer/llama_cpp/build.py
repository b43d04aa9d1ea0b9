"""Build the driver (``driver/``: llama.cpp's chat library behind JSON lines) with cmake and ninja.

Input: a ``SourceTree`` (``explorer.llama_cpp.source``), optionally a cache directory and a
job count. Output: a ``Built`` (the driver's path, whether the cache had it, the build's
wall time, its name), or ``LlamaCppBuildError``: a tool missing (with the Debian package
that gives it), or the compiler's error.

One build per source tree and compiler: the cache key hashes the tree's files the build
reads, the driver's own files and the compiler's identity, so a changed checkout or a
new compiler builds again and anything else is reused. A tree whose kept code names C
symbols of ggml or libllama that ``stubs.cpp`` lacks gets stubs for them made from the
linker's list (they are unreachable without a model); a tree without the autoparser's
header is built without the analysis. Standard library only (``.ci/run`` runs it before
the project's virtualenv exists).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from explorer.errors import LlamaCppBuildError
from explorer.llama_cpp.source import SourceTree

DRIVER_DIR = Path(__file__).resolve().parent / "driver"
DRIVER_FILES = ("CMakeLists.txt", "driver.cpp", "stubs.cpp")
EXECUTABLE = "template-explorer-llama-driver"
MANIFEST = "manifest.json"
BUILD_CACHE_ENV = "TEMPLATE_EXPLORER_LLAMA_CPP_BUILDS"
BUILD_TIMEOUT_S = 3600
# tool -> (Debian package, the PyPI wheel that gives it too)
TOOLS: dict[str, tuple[str, str]] = {"cmake": ("cmake", "cmake"), "ninja": ("ninja-build", "ninja"),
                                     "c++": ("g++", "")}
COMPILERS = ("c++", "g++", "clang++")
_UNDEFINED = re.compile(r"undefined reference to `([A-Za-z_][A-Za-z0-9_]*)'")


@dataclass(frozen=True)
class Built:
    """A driver on disk and how it came to be there."""

    path: Path
    cached: bool  # the cache had it: nothing was compiled
    seconds: float  # wall time of the build (0 when cached), as recorded when it was built
    label: str  # the source's name (commit / build number)
    analysis: bool  # the driver exposes the autoparser's analysis


def build_cache_dir() -> Path:
    named = os.environ.get(BUILD_CACHE_ENV)
    if named:
        return Path(named)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "template-explorer" / "llama-driver"


def find_tool(name: str) -> str:
    """The tool's path: on PATH, else beside this Python (a virtualenv's ``pip install cmake
    ninja``); ``LlamaCppBuildError`` naming the package when neither has it."""
    candidates = (os.environ.get("CXX", ""), *COMPILERS) if name == "c++" else (name,)
    for candidate in candidates:
        if not candidate:
            continue
        found = shutil.which(candidate) or shutil.which(candidate, path=str(Path(sys.executable).parent))
        if found:
            return found
    package, wheel = TOOLS[name]
    what = "a C++ compiler (c++, g++ or clang++; or $CXX)" if name == "c++" else name
    also = f", or `pip install {wheel}` into this Python's environment" if wheel else ""
    raise LlamaCppBuildError(f"{what} not found: the driver's build needs it (Debian: apt-get install {package}{also})",
                             tool=name, package=package)


def _compiler_identity(cxx: str) -> str:
    try:
        done = subprocess.run([cxx, "--version"], capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        raise LlamaCppBuildError(f"the C++ compiler {cxx} does not run: {exc}", tool="c++", package="g++") from None
    return f"{cxx}\n{done.stdout}"


def cache_key(tree: SourceTree, cxx_identity: str) -> str:
    h = hashlib.sha256()
    h.update(tree.digest.encode() + b"\0" + cxx_identity.encode() + b"\0")
    for name in DRIVER_FILES:
        h.update(name.encode() + b"\0" + (DRIVER_DIR / name).read_bytes() + b"\0")
    return h.hexdigest()[:20]


def _read_manifest(folder: Path) -> dict[str, object] | None:
    try:
        data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and (folder / EXECUTABLE).is_file() else None


def cached_driver(tree: SourceTree, *, cache_dir: Path | None = None) -> Built | None:
    """The tree's driver when the cache has it (nothing is built)."""
    try:
        cxx = find_tool("c++")
    except LlamaCppBuildError:
        return None
    folder = (cache_dir or build_cache_dir()) / cache_key(tree, _compiler_identity(cxx))
    manifest = _read_manifest(folder)
    if manifest is None:
        return None
    seconds = manifest.get("seconds")
    return Built(folder / EXECUTABLE, True, float(seconds) if isinstance(seconds, (int, float)) else 0.0,
                 str(manifest.get("label", tree.label)), bool(manifest.get("analysis", True)))


def _run(command: list[str], log: Path) -> tuple[int, str]:
    with log.open("a", encoding="utf-8") as out:
        out.write("+ " + " ".join(command) + "\n")
        out.flush()
        try:
            done = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, timeout=BUILD_TIMEOUT_S, check=False)
        except subprocess.TimeoutExpired:
            return 124, f"{command[0]} ran longer than {BUILD_TIMEOUT_S} s"
        except OSError as exc:
            return 127, str(exc)
    return done.returncode, ""


def _tail(log: Path, chars: int = 4000) -> str:
    try:
        return log.read_text(encoding="utf-8", errors="replace")[-chars:]
    except OSError:
        return ""


def extra_stubs(log_text: str, known: str) -> list[str]:
    """The C symbols the link could not find (and the stubs do not define yet)."""
    names = sorted(set(_UNDEFINED.findall(log_text)))
    return [n for n in names if f"DRIVER_STUB({n})" not in known and n != "ggml_abort"]


def _write_stubs(names: list[str], path: Path) -> None:
    lines = ["// stubs for C symbols this tree's kept code names (made by explorer/llama_cpp/build.py)",
             "[[noreturn]] void driver_unreachable(const char * name);"]
    lines += [f'extern "C" void {n}() {{ driver_unreachable("{n}"); }}' for n in names]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _configure(cmake: str, ninja: str, cxx: str, tree: SourceTree, build: Path, log: Path, *,
               analysis: bool, stubs: Path | None) -> tuple[int, str]:
    command = [cmake, "-S", str(DRIVER_DIR), "-B", str(build), "-G", "Ninja", f"-DCMAKE_MAKE_PROGRAM={ninja}",
               f"-DCMAKE_CXX_COMPILER={cxx}", "-DCMAKE_BUILD_TYPE=Release", f"-DLLAMA_CPP_SOURCE={tree.path}",
               f"-DDRIVER_BUILD_NUMBER={tree.build_number}", f"-DDRIVER_BUILD_COMMIT={tree.commit or 'unknown'}",
               f"-DDRIVER_ANALYSIS={'ON' if analysis else 'OFF'}",
               f"-DDRIVER_EXTRA_STUBS={stubs if stubs is not None else ''}"]
    return _run(command, log)


def build_driver(tree: SourceTree, *, cache_dir: Path | None = None, jobs: int | None = None,
                 progress: bool = False) -> Built:
    """The tree's driver: from the cache, else built (with cmake and ninja) into it."""
    cmake, ninja, cxx = find_tool("cmake"), find_tool("ninja"), find_tool("c++")
    root = cache_dir or build_cache_dir()
    folder = root / cache_key(tree, _compiler_identity(cxx))
    manifest = _read_manifest(folder)
    if manifest is not None:
        return Built(folder / EXECUTABLE, True, float(str(manifest.get("seconds", 0))),
                     str(manifest.get("label", tree.label)), bool(manifest.get("analysis", True)))
    root.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=folder.name + ".tmp.", dir=root))
    log = work / "build.log"
    build = work / "build"
    started = time.monotonic()
    try:
        analysis = True
        stubs: Path | None = None
        for _attempt in range(3):
            code, why = _configure(cmake, ninja, cxx, tree, build, log, analysis=analysis, stubs=stubs)
            if code != 0:
                raise LlamaCppBuildError(f"cmake could not configure the driver's build for {tree.path} "
                                         f"(exit {code}{': ' + why if why else ''}); the end of its log:\n"
                                         f"{_tail(log, 3000)}", source=str(tree.path), log=_tail(log))
            mark = len(_tail(log, 10**9))
            command = [cmake, "--build", str(build)] + (["-j", str(jobs)] if jobs else [])
            if progress:
                print(f"building the llama.cpp driver from {tree.path} (a few minutes; cmake and ninja)",
                      file=sys.stderr, flush=True)
            code, why = _run(command, log)
            if code == 0:
                break
            text = _tail(log, 10**9)[mark:]
            missing = extra_stubs(text, (DRIVER_DIR / "stubs.cpp").read_text(encoding="utf-8")
                                  + (stubs.read_text(encoding="utf-8") if stubs else ""))
            if missing and "collect2" in text:
                known = [] if stubs is None else re.findall(r'extern "C" void (\w+)\(', stubs.read_text("utf-8"))
                stubs = work / "extra_stubs.cpp"
                _write_stubs(sorted(set(known + missing)), stubs)
                continue
            if analysis and "driver.cpp" in text and "error:" in text:
                analysis = False  # this tree's autoparser differs: the driver without the analysis
                continue
            raise LlamaCppBuildError(f"the driver's build failed for {tree.path} (exit {code}"
                                     f"{': ' + why if why else ''}); the end of its log:\n{_tail(log, 3000)}",
                                     source=str(tree.path), log=_tail(log))
        else:
            raise LlamaCppBuildError(f"the driver's build for {tree.path} still fails after stubbing what the "
                                     f"linker lacked; the end of its log:\n{_tail(log, 3000)}",
                                     source=str(tree.path), log=_tail(log))
        seconds = time.monotonic() - started
        staged = work / "out"
        staged.mkdir()
        shutil.copy2(build / EXECUTABLE, staged / EXECUTABLE)
        record = {"source": str(tree.path), "label": tree.label, "commit": tree.commit,
                  "build_number": tree.build_number, "digest": tree.digest, "analysis": analysis,
                  "seconds": round(seconds, 1), "built": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        (staged / MANIFEST).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        try:
            os.replace(staged, folder)
        except OSError:
            if _read_manifest(folder) is None:  # not another build's result that got there first
                raise
        return Built(folder / EXECUTABLE, False, seconds, tree.label, analysis)
    finally:
        shutil.rmtree(work, ignore_errors=True)
