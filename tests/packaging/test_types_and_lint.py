"""Types and lint in the suite: mypy passes on ``explorer/`` with pyproject.toml's settings
(strict on the stage seams docs/architecture.md lists), ruff passes on the project, both at
their pinned versions, and every ``# type: ignore`` left in ``explorer/`` names its error
code and says why (``# type: ignore[code]  # why``).

The two runs are tests rather than steps of the README's command so that they take one
xdist worker each while the others run the rest of the suite.
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
import tokenize
import tomllib
from importlib.metadata import version

import pytest

from oracle_data import PROJECT_ROOT

PYPROJECT = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
MYPY = PYPROJECT["tool"]["mypy"]
STRICT_FLAGS = ("disallow_untyped_defs", "disallow_incomplete_defs", "disallow_untyped_calls",
                "disallow_untyped_decorators", "disallow_any_generics", "disallow_subclassing_any",
                "warn_return_any", "no_implicit_reexport")

PRAGMA = re.compile(r"type:\s*ignore")
# the code list, two spaces, a second comment with the reason
WELL_FORMED = re.compile(r"#\s*type:\s*ignore\[[a-z-]+(?:,\s*[a-z-]+)*\]  # \S.*$")


def _problem(comment: str) -> str | None:
    """What is wrong with one comment holding a ``type: ignore`` (None: nothing)."""
    if not PRAGMA.search(comment):
        return None
    if not re.search(r"type:\s*ignore\[", comment):
        return "no error code"
    if not WELL_FORMED.search(comment):
        return "no reason after the code (`# type: ignore[code]  # why`)"
    return None


def _ignore_comments() -> list[tuple[str, int, str]]:
    """(path, line, comment) of every comment in explorer/ that holds a ``type: ignore``."""
    found = []
    for path in sorted((PROJECT_ROOT / "explorer").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT and PRAGMA.search(tok.string):
                found.append((path.relative_to(PROJECT_ROOT).as_posix(), tok.start[0], tok.string))
    return found


def _seam_override() -> dict[str, object]:
    (seams,) = [o for o in MYPY.get("overrides", []) if o.get("disallow_untyped_defs")]
    return seams


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=PROJECT_ROOT, capture_output=True, text=True,
                          timeout=280)  # within pytest.ini's 300 s


def _pinned(name: str) -> str:
    for line in (PROJECT_ROOT / "requirements-dev.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith(f"{name}=="):
            return line.split("==", 1)[1].strip()
    raise AssertionError(f"{name} is not pinned in requirements-dev.txt")


@pytest.mark.parametrize(("comment", "problem"), [
    ("# type: ignore", "no error code"),
    ("# type: ignore[attr-defined]", "no reason after the code (`# type: ignore[code]  # why`)"),
    ("# type: ignore[attr-defined] # why", "no reason after the code (`# type: ignore[code]  # why`)"),
    ("# type: ignore[attr-defined]  # jinja2 declares no such attribute", None),
    ("# type: ignore[arg-type, index]  # both come from the untyped body", None),
    ("# an ordinary comment", None),
])
def test_the_ignore_checker_tells_a_bare_ignore_from_a_reasoned_one(comment: str, problem: str | None) -> None:
    assert _problem(comment) == problem


def test_every_type_ignore_in_explorer_names_its_code_and_why() -> None:
    bad = [f"{path}:{line}: {_problem(comment)}: {comment}" for path, line, comment in _ignore_comments()
           if _problem(comment) is not None]
    assert bad == []


def test_mypy_is_configured_to_report_stale_and_bare_ignores_and_strict_on_the_seams() -> None:
    assert MYPY["files"] == ["explorer"]
    assert MYPY["warn_unused_ignores"] is True
    assert "ignore-without-code" in MYPY["enable_error_code"]
    seams = _seam_override()
    for flag in STRICT_FLAGS:
        assert seams.get(flag) is True, flag


def test_the_strict_seams_are_the_ones_the_architecture_names() -> None:
    """docs/architecture.md's "Types" section lists the strict modules, as pyproject.toml has them."""
    doc = (PROJECT_ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = doc.split("## Types", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^- `(explorer[\w.*]*)`", section, re.MULTILINE)
    assert listed == list(_seam_override()["module"])


def test_mypy_passes_on_explorer() -> None:
    assert version("mypy") == _pinned("mypy")
    done = _run("mypy")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("Success: no issues found"), done.stdout


def test_ruff_passes_on_the_project() -> None:
    assert version("ruff") == _pinned("ruff")
    done = _run("ruff", "check", ".")
    assert done.returncode == 0, done.stdout + done.stderr
