"""``why TEMPLATE --output-file F``: llama.cpp's parse of a model output, and why.

Input: a TEMPLATE spec, the raw model output and the request switches ``apply`` and
``parse TEMPLATE`` take (messages, tools, thinking, tool_choice, ...). Output: the parse
result (message or llama.cpp's error) and the triage findings, as text or (``--json``)
as one JSON object. Exit 0 whenever the diagnosis ran, whatever the parse gave.
"""

from __future__ import annotations

import argparse
import json
import sys

from explorer.cli.inputs import (
    add_override_argument, add_request_arguments, add_template_argument, read_output, request_from_args,
    session_from_args,
)


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "why", help="why llama.cpp parsed a model output the way it did (triage findings)",
        description="Parse model output as llama-server does for the request the switches describe, then "
                    "explain the result: near-miss tool-call openers, unknown function names, malformed "
                    "arguments, reasoning tags, where the parse stopped.")
    add_template_argument(p)
    add_override_argument(p)
    p.add_argument("--output-file", metavar="F", required=True, help="the raw model output ('-' for stdin)")
    add_request_arguments(p)
    p.add_argument("--partial", action="store_true",
                   help="the output may still grow (streaming): explain llama.cpp's partial parse (is_partial)")
    p.add_argument("--json", action="store_true", help="print the diagnosis as JSON")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    session, _source = session_from_args(args)
    request = request_from_args(session, args)
    diagnosis = session.diagnose(read_output(args.output_file), request, partial=args.partial)
    if args.json:
        print(json.dumps(diagnosis.to_json(), indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(f"route: {session.handler}\n" + diagnosis.to_text())
    return 0
