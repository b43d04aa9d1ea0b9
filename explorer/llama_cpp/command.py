"""``llama-cpp build [--source DIR]``: build (or find in the cache) the llama.cpp driver.

Input: argv (``--source DIR``: a llama.cpp checkout; default llama.cpp 0c1e5709 from the
cached llama-cpp-python 0.3.36 sdist, downloaded and unpacked first when absent;
``--jobs N``; ``--cache-dir DIR``). Output on stdout: the source and its name, whether the
driver was built (and how long it took) or found in the cache, and the driver's path as
the last line; errors on stderr with exit code 1. Standard library only (``.ci/run`` runs
it as ``python3 -m explorer.llama_cpp build`` before the project's dependencies exist);
``explorer.cli.llama_cpp`` makes it ``python -m explorer llama-cpp build``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from explorer.errors import ExplorerError
from explorer.llama_cpp.build import build_cache_dir, build_driver
from explorer.llama_cpp.source import default_source, source_tree


def add_build_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--source", metavar="DIR", default=None,
                   help="a llama.cpp source tree (a checkout, or a llama-cpp-python sdist's vendor/llama.cpp); "
                        "default: llama.cpp 0c1e5709 from the cached llama-cpp-python 0.3.36 sdist")
    p.add_argument("--jobs", type=int, default=None, metavar="N", help="compile N files at once (default: ninja's)")
    p.add_argument("--cache-dir", metavar="DIR", default=None,
                   help=f"where built drivers are kept, one per source tree and compiler (default {build_cache_dir()})")


def run_build(args: argparse.Namespace) -> int:
    tree = source_tree(Path(args.source)) if args.source else default_source()
    print(f"llama.cpp source: {tree.path} ({tree.label})", flush=True)
    built = build_driver(tree, cache_dir=Path(args.cache_dir) if args.cache_dir else None, jobs=args.jobs,
                         progress=True)
    analysis = "" if built.analysis else "; this tree has no autoparser analysis to expose"
    if built.cached:
        print(f"driver: in the cache (its build took {built.seconds:.0f} s){analysis}")
    else:
        print(f"driver: built in {built.seconds:.0f} s{analysis}")
    print(built.path)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m explorer.llama_cpp",
                                     description="Build Template Explorer's llama.cpp driver.")
    sub = parser.add_subparsers(dest="command", required=True)
    build = sub.add_parser("build", help="build the driver (or find it in the cache); its path is the last line")
    add_build_arguments(build)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return run_build(args)
    except ExplorerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
