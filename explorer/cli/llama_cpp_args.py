"""``--llama-cpp DRIVER``: the commands' switch to run the same request through a real build.

Input: the parsed switches. Output: the ``LlamaCppDriver`` the switch names (None when not
given; ``LlamaCppDriverError`` when the file is not there), and the comparison written as
the commands show it: its sentence and differences on stderr (stdout keeps the command's
own output), and its JSON under ``llama_cpp``. Not a command.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from explorer.errors import LlamaCppDriverError
from explorer.jsontypes import JsonObject
from explorer.llama_cpp.compare import Agreement
from explorer.llama_cpp.driver import LlamaCppDriver, driver_at

HELP = ("also run this through a real llama.cpp build: DRIVER is the driver `llama-cpp build` printed (any "
        "llama.cpp checkout's); say whether it agrees with the port (llama.cpp 0c1e5709) or show the difference")


def add_llama_cpp_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--llama-cpp", metavar="DRIVER", default=None, help=HELP)


def driver_from_args(args: argparse.Namespace) -> LlamaCppDriver | None:
    named = getattr(args, "llama_cpp", None)
    if not named:
        return None
    path = Path(named)
    if not path.is_file():
        raise LlamaCppDriverError(f"--llama-cpp {named}: no such file (build the driver with `llama-cpp build`; "
                                  "its path is the last line it prints)", driver=named)
    return driver_at(path)


def agreement_json(agreement: Agreement) -> JsonObject:
    """What a command's JSON carries of a comparison (the port's side is the command's own output)."""
    out = agreement.to_json()
    out.pop("port", None)
    return out


def tell(agreement: Agreement) -> None:
    print(agreement.to_text(), file=sys.stderr)
