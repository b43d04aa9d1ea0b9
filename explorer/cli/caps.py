"""``caps TEMPLATE``: print llama.cpp's nine capability flags as JSON.

Input: a TEMPLATE spec (path, ``hf:owner/repo``, ``example:NAME`` or ``-``). Output: the
flags as a JSON object with the oracle's key names; ``--trace`` adds each probe render.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from explorer.cli.inputs import add_template_argument, open_template


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "caps", help="the nine capability flags llama.cpp detects, as JSON",
        description="Detect a template's capabilities with llama.cpp's probes.")
    add_template_argument(p)
    p.add_argument("--trace", action="store_true", help="also print every probe render")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    session, _source = open_template(args.template)
    out: dict[str, Any] = session.caps.to_json()
    if args.trace:
        out = {"caps": out, "probes": [p.__dict__ for p in session.caps_trace]}
    print(json.dumps(out, indent=2, ensure_ascii=False))
    return 0
