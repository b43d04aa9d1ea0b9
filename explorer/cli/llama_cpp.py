"""``llama-cpp build [--source DIR]``: build the llama.cpp driver the ``--llama-cpp`` switches run.

Input and output: ``explorer.llama_cpp.command`` (the source, whether the driver was built
or cached, the driver's path as the last line). ``add_parser``/``run`` follow the
explorer.cli command contract.
"""

from __future__ import annotations

import argparse

from explorer.llama_cpp.command import add_build_arguments, run_build


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "llama-cpp", help="build the real llama.cpp driver the --llama-cpp switches compare with",
        description="The real llama.cpp beside the port: build a small driver from llama.cpp's own chat "
                    "sources with cmake and ninja (once per source tree and compiler; cached).")
    sub = p.add_subparsers(dest="llama_cpp_command", required=True)
    build = sub.add_parser("build", help="build the driver (or find it in the cache); its path is the last line",
                           description="Build the driver against llama.cpp 0c1e5709 from the cached "
                                       "llama-cpp-python 0.3.36 sdist, or against the tree --source names. "
                                       "The driver's path is the last line printed.")
    add_build_arguments(build)
    build.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    return run_build(args)
