"""``why TEMPLATE --output-file F`` / ``--from-log LOG``: llama.cpp's parse of a model output, and why.

Input: a TEMPLATE spec, the raw model output and/or llama-server's log text, and the
request switches ``apply`` and ``parse TEMPLATE`` take (messages, tools, thinking,
tool_choice, ...). Output: the parse result (message or llama.cpp's error) and the triage
findings, as text or (``--json``) as one JSON object; with ``--from-log`` first what the
log says (its failure line, which coordinate its number counts, where that is in the
output) and the output found in it. Exit 0 whenever the diagnosis ran, whatever the
parse gave; 1 when the log holds no output and none was given. The text opens with one
headline sentence; notes and every coordinate of each place are folded (``--verbose``
shows them); a clean parse prints one line. Without ``--tools`` the request offers the
tools the output calls (the app's rule, ``TemplateSession.user_request``), and says so.
``--llama-cpp DRIVER``: the same output parsed by that real build for the same request;
the text ends with "llama.cpp (build …) agrees on the parse" or the fields that differ
(``llama_cpp`` in the JSON).
"""

from __future__ import annotations

import argparse
import json
import sys

from explorer.apply import Request
from explorer.cli.inputs import (
    add_override_argument,
    add_request_arguments,
    add_template_argument,
    read_output,
    session_from_args,
    user_request_from_args,
)
from explorer.cli.llama_cpp_args import add_llama_cpp_argument, agreement_json, driver_from_args
from explorer.errors import SourceError
from explorer.llama_cpp.compare import Agreement, compare_parse
from explorer.llama_cpp.driver import LlamaCppDriver
from explorer.session import TemplateSession


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "why", help="why llama.cpp parsed a model output the way it did (triage findings)",
        description="Parse model output as llama-server does for the request the switches describe, then "
                    "explain the result: near-miss tool-call openers, unknown function names, malformed "
                    "arguments, reasoning tags, where the parse stopped.")
    add_template_argument(p)
    add_override_argument(p)
    p.add_argument("--output-file", metavar="F", help="the raw model output ('-' for stdin)")
    p.add_argument("--from-log", metavar="LOG",
                   help="llama-server's log text ('-' for stdin): its parse-failure line (\"unparsed … output:\", "
                        "\"Failed to parse input at pos N\", \"(offset N)\") and/or its dump of the raw output "
                        "(=== BEGIN === … === END ===, at -lv 5); the output is taken from the dump, else from "
                        "--output-file")
    add_request_arguments(p)
    p.add_argument("--partial", action="store_true",
                   help="the output may still grow (streaming): explain llama.cpp's partial parse (is_partial)")
    p.add_argument("--json", action="store_true", help="print the diagnosis as JSON")
    p.add_argument("--verbose", action="store_true",
                   help="every finding in full: the notes, and each place in every coordinate")
    add_llama_cpp_argument(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.output_file is None and args.from_log is None:
        raise SourceError("why needs --output-file F or --from-log LOG (or both)")
    if args.output_file == "-" and args.from_log == "-":
        raise SourceError("only one of --output-file and --from-log can be read from stdin")
    driver = driver_from_args(args)
    session, _source = session_from_args(args)
    output = read_output(args.output_file) if args.output_file is not None else None
    log_text = read_output(args.from_log) if args.from_log is not None else None
    built = user_request_from_args(session, args, output if output is not None else _log_output(session, log_text))
    request = built.request
    if log_text is not None:
        return _from_log(session, request, log_text, output, args, built.notes, driver)
    assert output is not None
    diagnosis = session.diagnose(output, request, partial=args.partial)
    beside = _beside(session, output, request, args, driver)
    if args.json:
        print(json.dumps({**diagnosis.to_json(), "request_notes": list(built.notes)}
                         | ({"llama_cpp": agreement_json(beside)} if beside else {}), indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(diagnosis.to_text(verbose=args.verbose, also=built.notes if args.verbose else built.short)
                         + (f"route: {session.handler}\n" if args.verbose else "")
                         + (beside.to_text() + "\n" if beside else ""))
    return 0


def _beside(session: TemplateSession, output: str, request: Request, args: argparse.Namespace,
            driver: LlamaCppDriver | None) -> Agreement | None:
    """The real build's parse of the same output for the same request (``--llama-cpp``)."""
    if driver is None:
        return None
    return compare_parse(session, output, request, driver, partial=args.partial)


def _log_output(session: TemplateSession, log_text: str | None) -> str | None:
    """The output the log holds (for the tools the request infers from it), or None."""
    if log_text is None:
        return None
    from explorer.triage.logs import read_log

    log = read_log(log_text)
    dump = log.dump_for(log.failure)
    return dump.text if dump is not None else None


def _from_log(session: TemplateSession, request: Request, log_text: str, output: str | None,
              args: argparse.Namespace, notes: tuple[str, ...] = (), driver: LlamaCppDriver | None = None) -> int:
    result = session.diagnose_log(log_text, request, output=output, partial=args.partial)
    found = result.reading.output
    beside = _beside(session, found, request, args, driver) if found is not None else None
    if args.json:
        print(json.dumps({**result.to_json(), "request_notes": list(notes)}
                         | ({"llama_cpp": agreement_json(beside)} if beside else {}), indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(result.to_text(verbose=args.verbose)
                         + "".join(f"request: {n}\n" for n in notes) + f"route: {session.handler}\n"
                         + (beside.to_text() + "\n" if beside else ""))
    if result.diagnosis is None:
        print(result.problem, file=sys.stderr)
        return 1
    return 0
