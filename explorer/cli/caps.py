"""``caps TEMPLATE``: print llama.cpp's nine capability flags as JSON.

Input: a TEMPLATE spec (path, ``hf:owner/repo``, ``example:NAME`` or ``-``). Output: the
flags as a JSON object with the oracle's key names; ``--trace`` adds each probe render.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from explorer.caps import detect_caps_trace
from explorer.errors import SourceError
from explorer.render import compile_template


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "caps", help="the nine capability flags llama.cpp detects, as JSON",
        description="Detect a template's capabilities with llama.cpp's probes.")
    p.add_argument("template", metavar="TEMPLATE",
                   help="path, hf:owner/repo[@rev][#name], example:NAME, or - for stdin")
    p.add_argument("--trace", action="store_true", help="also print every probe render")
    p.set_defaults(run=run)


def load_template_text(spec: str) -> tuple[str, Any]:
    """Template text (and its source, when explorer.sources can resolve it)."""
    try:
        from explorer.sources import resolve_spec
    except ImportError:  # sources stage not present: plain files and stdin only
        if spec == "-":
            import sys

            return sys.stdin.read(), None
        path = Path(spec)
        if not path.is_file():
            raise SourceError(f"no such template file: {spec}") from None
        return path.read_text(encoding="utf-8"), None
    source = resolve_spec(spec)
    return source.text, source


def run(args: argparse.Namespace) -> int:
    text, _ = load_template_text(args.template)
    caps, trace = detect_caps_trace(compile_template(text))
    out: dict[str, Any] = caps.to_json()
    if args.trace:
        out = {"caps": out, "probes": [p.__dict__ for p in trace]}
    print(json.dumps(out, indent=2, ensure_ascii=False))
    return 0
