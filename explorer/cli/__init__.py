"""Command-line interface: ``python -m explorer COMMAND ...``.

Input: argv. Output: JSON or text on stdout; errors on stderr with exit code 1.
Each command lives in its own module in this package and registers a subparser through
``add_parser(subparsers)`` and a ``run(args) -> int`` function; ``COMMANDS`` lists them
in the order they appear in --help.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from types import ModuleType

from explorer.cli import analyze, apply, caps, doctor, grammar, parse, render, roundtrip, why
from explorer.errors import ExplorerError

COMMANDS: tuple[ModuleType, ...] = (caps, render, analyze, apply, parse, grammar, roundtrip, why, doctor)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m explorer",
        description="Explore how llama.cpp's autoparser reads a chat template.",
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
    except ExplorerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
