"""The package: pyproject.toml's pins are requirements*.txt's, the wheel's file mapping
names files that exist, the console script is the CLI, and the CLI's edges (the program
name in hints, a closed pipe, the app command) behave."""

from __future__ import annotations

import argparse
import io
import re
import tomllib
from pathlib import Path

import pytest

from explorer import cli
from explorer.cli import app as app_command
from explorer.cli.inputs import program_name
from oracle_data import PROJECT_ROOT

PYPROJECT = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _pins(path: Path) -> dict[str, str]:
    """name -> version of every ``name==version`` line (comments and ``-r`` includes skipped)."""
    pins = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("-"):
            continue
        name, sep, version = line.partition("==")
        assert sep and version, f"{path.name}: {line!r} is not pinned with =="
        pins[re.sub(r"[-_.]+", "-", name).lower()] = version
    return pins


def _project_pins(specs: list[str]) -> dict[str, str]:
    out = {}
    for spec in specs:
        name, sep, version = spec.partition("==")
        assert sep, f"pyproject.toml: {spec!r} is not pinned with =="
        out[re.sub(r"[-_.]+", "-", name).lower()] = version
    return out


def test_the_dependencies_are_requirements_txt_pinned_the_same():
    assert _project_pins(PYPROJECT["project"]["dependencies"]) == _pins(PROJECT_ROOT / "requirements.txt")


def test_the_dev_extra_is_requirements_dev_txt_less_its_include():
    dev = PROJECT_ROOT / "requirements-dev.txt"
    assert "-r requirements.txt" in dev.read_text(encoding="utf-8")
    assert _project_pins(PYPROJECT["project"]["optional-dependencies"]["dev"]) == _pins(dev)


def test_python_and_the_console_script():
    project = PYPROJECT["project"]
    assert project["requires-python"] == ">=3.11"
    assert project["scripts"] == {"template-explorer": "explorer.cli:main"}
    assert cli.main is not None and callable(cli.main)


def test_the_wheel_maps_every_app_file_into_the_package():
    """What ``template-explorer app`` looks for in ``explorer/_app`` is what the build copies there."""
    wheel = PYPROJECT["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert wheel["packages"] == ["explorer"]
    mapped = wheel["force-include"]
    for source, target in mapped.items():
        assert (PROJECT_ROOT / source).exists(), source
        assert target == f"explorer/{app_command.PACKAGED}/{source}"
    for name in app_command.APP_FILES:
        assert name in mapped
    assert ".streamlit/config.toml" in mapped
    # the deep-link files and the pages import nothing from the checkout but these
    for page in (PROJECT_ROOT / "pages").glob("*.py"):
        text = page.read_text(encoding="utf-8")
        assert "from tests" not in text and "import tools" not in text, page.name


def test_the_app_command_finds_the_checkouts_app_and_passes_its_options():
    folder = app_command.app_dir()
    assert folder == PROJECT_ROOT
    args = cli.build_parser().parse_args(["app", "--port", "8600", "--example", "plain-chat",
                                          "--public-url", "https://explorer.example.org"])
    argv = app_command.command(args, folder)
    assert argv[1:5] == ["-m", "streamlit", "run", str(PROJECT_ROOT / "app.py")]
    assert argv[argv.index("--server.port") + 1] == "8600"
    assert argv[argv.index("--") + 1:] == ["--example", "plain-chat", "--public-url", "https://explorer.example.org"]


def test_the_app_reads_the_options_after_the_double_dash():
    import app_state

    options = app_state.app_options(["--example", "plain-chat", "--public-url", "https://x.example.org/"])
    assert options == app_state.AppOptions("plain-chat", "https://x.example.org")
    assert app_state.app_options([]).public_url is None
    assert app_state.app_options([]).example == app_state.DEFAULT_EXAMPLE


def test_hints_name_the_program_as_it_was_run():
    assert program_name("/venv/bin/template-explorer") == "template-explorer"
    assert program_name("/repo/explorer/__main__.py") == "python -m explorer"
    assert cli.build_parser("template-explorer").prog == "template-explorer"


class _ClosedPipe(io.StringIO):
    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")


def test_a_closed_pipe_ends_quietly(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    """``analyze ... | head``: the reader left; no traceback, no error line, exit 141 as SIGPIPE."""
    monkeypatch.setattr("sys.stdout", _ClosedPipe())
    code = cli.main(["caps", "example:plain-chat"])
    assert code == cli.EXIT_BROKEN_PIPE
    assert capsys.readouterr().err == ""


def test_help_ends_with_the_glossary_of_mode_names():
    from explorer.analysis.glossary import MODE_GROUPS

    text = cli.build_parser("template-explorer").format_help()
    assert isinstance(cli.build_parser(), argparse.ArgumentParser)
    for group in MODE_GROUPS:
        for name in group.values:
            assert f"    {name}: " in text
