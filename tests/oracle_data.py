"""Oracle helpers: the llama.cpp golden data beside the project (``../shared``).

Import from here (`from oracle_data import ...`), not from conftest: there are several
conftest modules and only one can be imported under that name.
"""

from __future__ import annotations

import json
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
