"""Oracle helpers: the llama.cpp golden data beside the project (``../shared``).

Import from here (`from oracle_data import ...`), not from conftest: there are several
conftest modules and only one can be imported under that name.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parent.parent
TESTS_DIR = PROJECT_ROOT / "tests"
HOSTILE_DIR = TESTS_DIR / "hostile"  # our own hostile templates
DATA_DIR = TESTS_DIR / "data"  # our own data files and transcribed vectors
SHARED = PROJECT_ROOT.parent / "shared"
ORACLE = SHARED / "oracle"


def oracle_available() -> bool:
    return (ORACLE / "analysis" / "INDEX.json").is_file()


requires_oracle = pytest.mark.skipif(
    not oracle_available(), reason="../shared/oracle is absent (not a developer machine)"
)


def oracle_template_names() -> list[str]:
    if not oracle_available():
        return []
    return sorted(p.stem for p in (ORACLE / "templates").glob("*.jinja"))


def load_oracle_analysis(name: str) -> dict:
    return json.loads((ORACLE / "analysis" / f"{name}.json").read_text(encoding="utf-8"))


def load_oracle_template(name: str) -> str:
    return (ORACLE / "templates" / f"{name}.jinja").read_text(encoding="utf-8")


# --- llama.cpp 0c1e5709's models/ (vocab-only GGUFs, templates), from the llama-cpp-python
# 0.3.36 sdist that vendors it. `.ci/run` downloads the sdist once and unpacks only that
# folder into a cache; TEMPLATE_EXPLORER_LLAMA_CPP (which .ci/run exports) names the cache
# or any llama.cpp tree at that commit.

LLAMA_CPP_ENV = "TEMPLATE_EXPLORER_LLAMA_CPP"


def llama_cpp_dir() -> Path:
    if os.environ.get(LLAMA_CPP_ENV):
        return Path(os.environ[LLAMA_CPP_ENV])
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "template-explorer" / "llama.cpp-0c1e5709"


LLAMA_CPP_MODELS = llama_cpp_dir() / "models"


def llama_cpp_available() -> bool:
    return any(LLAMA_CPP_MODELS.glob("ggml-vocab-*.gguf")) and (LLAMA_CPP_MODELS / "templates").is_dir()


requires_llama_cpp = pytest.mark.skipif(
    not llama_cpp_available(),
    reason="the llama.cpp 0c1e5709 sdist cache is absent: run .ci/run (or `bash .ci/run llama-cpp-cache` for "
    f"that step alone), or set {LLAMA_CPP_ENV} to a llama.cpp tree at 0c1e5709",
)
