"""Command-line interface: ``template-explorer COMMAND ...`` (or ``python -m explorer COMMAND ...``).

Input: argv. Output: JSON or text on stdout; errors on stderr, once each, with exit code 1.
Each command lives in its own module in this package and registers a subparser through
``add_parser(subparsers)`` and a ``run(args) -> int`` function; ``COMMANDS`` lists them
in the order they appear in --help, whose epilog is the glossary of mode names
(``explorer.analysis.glossary``). Output cut short by a closed pipe (``| head``) ends
quietly.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from types import ModuleType

from explorer.analysis.glossary import glossary_text
from explorer.cli import analyze, app, apply, caps, doctor, grammar, llama_cpp, parse, render, roundtrip, why
from explorer.cli.inputs import program_name
from explorer.errors import ExplorerError

COMMANDS: tuple[ModuleType, ...] = (caps, render, analyze, apply, parse, grammar, roundtrip, why, doctor, app,
                                    llama_cpp)
EXIT_BROKEN_PIPE = 141  # as a shell reports a process that SIGPIPE ended (``yes | head``)


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog or program_name(),
        description="Explore how llama.cpp's autoparser reads a chat template.",
        epilog=glossary_text(), formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    subparsers = parser.add_subparsers(dest="command", required=True)
    for module in COMMANDS:
        module.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except ExplorerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


def _silence_stdout() -> None:
    """The reader went away: point stdout at /dev/null so the interpreter's final flush
    does not raise again (Python's documented way to handle SIGPIPE)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real file descriptor (a test's captured stdout)
        pass
