"""``llama-cpp build``: the source checked, the tools found (or named), one build per tree.

No compiler runs here: the tools are stand-in scripts that record how they were called
and write a stand-in executable, so what is tested is the build's own logic (the error
messages, the cache, the retry with stubs for what the linker lacked, the sdist subset).
"""

from __future__ import annotations

import hashlib
import io
import json
import stat
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from explorer.errors import LlamaCppBuildError
from explorer.llama_cpp import build as build_module
from explorer.llama_cpp import source as source_module
from explorer.llama_cpp.build import build_driver, cache_key, cached_driver, extra_stubs, find_tool
from explorer.llama_cpp.source import REQUIRED_FILES, check_tree, source_tree, unpack_source


def _tree(root: Path) -> Path:
    for name in REQUIRED_FILES:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(f"// {name}\n", encoding="utf-8")
    return root


def _script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A PATH of stand-ins: cmake (configure records its -D options in the build folder;
    --build writes the executable, or first fails to link llama_made_up when no extra stubs
    were configured and LINK_FAILS is set), ninja and c++."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _script(bin_dir / "cmake", """
if [ "$1" = "--build" ]; then
  if [ -n "$LINK_FAILS" ] && ! grep -q "DRIVER_EXTRA_STUBS=/" "$2/args"; then
    echo "ld: x.o: in function f: undefined reference to \\`llama_made_up'"; echo "collect2: error"; exit 1
  fi
  printf '#!/bin/sh\\necho driver\\n' > "$2/template-explorer-llama-driver"
  chmod +x "$2/template-explorer-llama-driver"
  exit 0
fi
all="$*"
while [ $# -gt 0 ]; do case "$1" in -B) shift; build="$1";; esac; shift; done
mkdir -p "$build"; echo "$all" > "$build/args"
""")
    _script(bin_dir / "ninja", "exit 0\n")
    _script(bin_dir / "c++", "echo 'c++ (stand-in) 1.0'\n")
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")  # the stand-ins first; sh's own tools after
    monkeypatch.delenv("CXX", raising=False)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "nowhere" / "python"))
    return bin_dir


def test_a_missing_tool_names_the_debian_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CXX", raising=False)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    for tool, package in (("cmake", "cmake"), ("ninja", "ninja-build"), ("c++", "g++")):
        with pytest.raises(LlamaCppBuildError, match=f"apt-get install {package}") as caught:
            find_tool(tool)
        assert caught.value.tool == tool and caught.value.package == package
    with pytest.raises(LlamaCppBuildError, match="pip install ninja"):
        find_tool("ninja")


def test_a_folder_that_is_no_llama_cpp_tree_is_refused_with_what_it_lacks(tmp_path: Path) -> None:
    with pytest.raises(LlamaCppBuildError, match="no such directory"):
        check_tree(tmp_path / "absent")
    (tmp_path / "common").mkdir()
    (tmp_path / "common" / "chat.cpp").write_text("", encoding="utf-8")
    with pytest.raises(LlamaCppBuildError, match="is not a llama.cpp source tree: it lacks common/chat.h, "
                                                 "include/llama.h, ggml/include/ggml.h"):
        check_tree(tmp_path)


def test_the_trees_hash_follows_its_sources(tmp_path: Path) -> None:
    tree = _tree(tmp_path / "t")
    first = source_tree(tree)
    assert first.label == f"source {first.digest[:12]}"  # no git, no cache note: named by its hash
    (tree / "common" / "chat.cpp").write_text("// changed\n", encoding="utf-8")
    (tree / "common" / "notes.md").write_text("not a source\n", encoding="utf-8")
    second = source_tree(tree)
    assert second.digest != first.digest
    (tree / "common" / "other.md").write_text("still not a source\n", encoding="utf-8")
    assert source_tree(tree).digest == second.digest
    assert cache_key(first, "g++ 12") != cache_key(first, "g++ 13")


def test_a_build_is_made_once_and_then_found_in_the_cache(tools: Path, tmp_path: Path) -> None:
    tree = source_tree(_tree(tmp_path / "t"))
    cache = tmp_path / "cache"
    assert cached_driver(tree, cache_dir=cache) is None
    built = build_driver(tree, cache_dir=cache)
    assert not built.cached and built.path.is_file() and built.path.parent.parent == cache
    manifest = json.loads((built.path.parent / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["source"] == str(tree.path) and manifest["digest"] == tree.digest
    again = build_driver(tree, cache_dir=cache)
    assert again.cached and again.path == built.path
    assert cached_driver(tree, cache_dir=cache) == again
    assert [p.name for p in cache.iterdir()] == [built.path.parent.name]  # no work folder left behind


def test_what_the_linker_lacks_is_stubbed_and_linked_again(tools: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LINK_FAILS", "1")
    built = build_driver(source_tree(_tree(tmp_path / "t")), cache_dir=tmp_path / "cache")
    assert built.path.is_file()


def test_a_failed_compile_reports_the_end_of_its_log(tools: Path, tmp_path: Path) -> None:
    _script(tools / "cmake", 'if [ "$1" = "--build" ]; then echo "x.cpp:1: error: nope"; exit 2; fi\n'
                             'while [ $# -gt 0 ]; do case "$1" in -B) shift; mkdir -p "$1";; esac; shift; done\n')
    with pytest.raises(LlamaCppBuildError, match="x.cpp:1: error: nope") as caught:
        build_driver(source_tree(_tree(tmp_path / "t")), cache_dir=tmp_path / "cache")
    assert "exit 2" in str(caught.value) and "nope" in caught.value.log


def test_only_c_symbols_the_stubs_lack_are_stubbed() -> None:
    log = ("a.o: undefined reference to `llama_vocab_n_tokens'\nb.o: undefined reference to `ggml_abort'\n"
           "c.o: undefined reference to `llama_token_to_piece'\n"
           "d.o: undefined reference to `common_thing(int)'\n")
    assert extra_stubs(log, "DRIVER_STUB(llama_token_to_piece)") == ["llama_vocab_n_tokens"]


def _sdist(path: Path) -> Path:
    """A small tar.gz shaped like the llama-cpp-python sdist."""
    files = {"llama_cpp_python-0.3.36/vendor/llama.cpp/" + name: b"// x\n" for name in REQUIRED_FILES}
    files["llama_cpp_python-0.3.36/vendor/llama.cpp/vendor/nlohmann/json.hpp"] = b"// json\n"
    files["llama_cpp_python-0.3.36/vendor/llama.cpp/LICENSE"] = b"MIT\n"
    files["llama_cpp_python-0.3.36/vendor/llama.cpp/src/llama.cpp"] = b"// not kept\n"
    files["llama_cpp_python-0.3.36/README.md"] = b"not kept\n"
    with tarfile.open(path, "w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_the_sdist_is_checked_and_only_the_builds_sources_are_kept(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    sdist = _sdist(tmp_path / "llama_cpp_python-0.3.36.tar.gz")
    with pytest.raises(LlamaCppBuildError, match="is not the llama_cpp_python-0.3.36 sdist's"):
        unpack_source(sdist, tmp_path / "cache")
    monkeypatch.setattr(source_module, "SDIST_SHA256", hashlib.sha256(sdist.read_bytes()).hexdigest())
    dest = tmp_path / "cache"
    (dest / "models").mkdir(parents=True)  # what .ci/run unpacked before stays
    unpack_source(sdist, dest)
    kept = sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file())
    assert kept == ["COMMIT", "LICENSE", "SOURCE", *sorted(REQUIRED_FILES), "vendor/nlohmann/json.hpp"]
    assert source_tree(dest).label == "0c1e5709"


def test_the_build_command_needs_only_the_standard_library(tmp_path: Path) -> None:
    # .ci/run runs it before the project's dependencies are installed
    blocked = ("jinja2", "diff_match_patch", "streamlit", "gguf", "huggingface_hub", "canitoolcall", "llguidance")
    code = ("import sys\n"
            f"for name in {blocked!r}: sys.modules[name] = None\n"
            "import runpy; sys.argv = ['x', 'build', '--source', sys.argv[1]]\n"
            "runpy.run_module('explorer.llama_cpp', run_name='__main__')\n")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True,
                          cwd=Path(build_module.__file__).resolve().parents[2], timeout=120, check=False)
    assert done.returncode == 1, done.stderr
    assert "is not a llama.cpp source tree" in done.stderr and "Traceback" not in done.stderr
