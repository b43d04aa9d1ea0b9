"""README.md works as written: the two commands first (the app on a built-in example, then
the test suite, the block .ci/run reads), every page once with its screenshot, and every
CLI line of it parsed by the CLI's real argparse."""

from __future__ import annotations

import re
import shlex

import pytest

from explorer import cli
from explorer.cli import app as app_command
from explorer.sources import list_examples
from oracle_data import PROJECT_ROOT

README = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
FENCE = re.compile(r"^```bash\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _blocks(text: str) -> list[str]:
    return [m.group(1) for m in FENCE.finditer(text)]


def _commands(block: str) -> list[str]:
    """Each command of a bash block: comments dropped, continuation lines joined."""
    out: list[str] = []
    for line in block.replace("\\\n", " ").splitlines():
        code = re.split(r"\s{2,}#", line, maxsplit=1)[0].strip()
        if code and not code.startswith("#"):
            out.append(code)
    return out


HEAD = README.split("## What this is", 1)[0]


def test_exactly_two_commands_come_first():
    assert len(_blocks(HEAD)) == 2
    assert "## What this is" in README


def test_the_first_command_installs_and_launches_the_app_on_an_example():
    (command,) = _commands(_blocks(HEAD)[0])
    steps = [s.strip() for s in command.split("&&")]
    assert steps[0] == "python3 -m venv .venv"
    assert steps[1].startswith(".venv/bin/pip install") and steps[1].endswith(" .")
    launch = shlex.split(steps[2])
    assert launch[0] == ".venv/bin/template-explorer" and launch[1] == "app"
    args = cli.build_parser().parse_args(launch[1:])
    assert args.run is app_command.run
    folder = app_command.app_dir()  # the launch target exists in this checkout
    assert (folder / "app.py").is_file() and (folder / "pages").is_dir()
    import app_state

    assert app_state.DEFAULT_EXAMPLE in list_examples()  # "on a built-in example"


def test_the_second_command_is_the_test_command_ci_reads():
    after = README.split("<!-- test-command -->", 1)[1]
    assert after.lstrip().startswith("```bash")
    (command,) = _commands(_blocks(after)[0])
    assert command == _commands(_blocks(HEAD)[1])[0]
    assert "-m pytest -q -n auto --dist worksteal" in command and "requirements-dev.txt" in command
    assert "about 11 minutes on 2 cores" in HEAD


def test_every_page_once_with_its_screenshot():
    import app

    body = README.split("## The pages", 1)[1].split("## CLI", 1)[0]
    headings = re.findall(r"^### (.+)$", body, re.MULTILINE)
    assert headings == [title for _, title, _, _ in app.PAGES]
    for _, title, _url, _ in app.PAGES:
        section = body.split(f"### {title}\n", 1)[1].split("\n### ", 1)[0]
        shots = re.findall(r"!\[[^\]]*\]\((docs/[^)]+\.png)\)", section)
        assert shots, title
        for shot in shots:
            assert (PROJECT_ROOT / shot).is_file(), shot


def test_linked_docs_exist():
    for target in re.findall(r"\]\((docs/[^)#]+)\)", README):
        assert (PROJECT_ROOT / target).is_file(), target


CLI_LINES = [c for block in _blocks(README) for c in _commands(block) if c.startswith("template-explorer ")]


def test_the_readme_shows_the_cli_as_the_console_script():
    assert len(CLI_LINES) >= 15
    assert "python -m explorer caps" not in README


@pytest.mark.parametrize("line", CLI_LINES)
def test_each_cli_line_parses_with_the_real_argparse(line: str):
    argv = shlex.split(line)[1:]
    try:
        args = cli.build_parser("template-explorer").parse_args(argv)
    except SystemExit as exc:  # argparse refusing it
        pytest.fail(f"{line!r} does not parse: exit {exc.code}")
    assert args.command == argv[0]


def test_benchmark_lines_name_scripts_that_exist():
    for block in _blocks(README):
        for command in _commands(block):
            if command.startswith(".venv/bin/python benchmarks/"):
                assert (PROJECT_ROOT / shlex.split(command)[1]).is_file(), command


def test_every_example_the_readme_names_is_built_in():
    for name in set(re.findall(r"example:([a-z0-9-]+)", README)):
        assert name in list_examples(), name
