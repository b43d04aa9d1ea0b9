"""``doctor TEMPLATE...``: what is wrong with each template, where, and verified fixes.

Input: TEMPLATE specs (files; folders, meaning every ``*.jinja``, tokenizer_config.json
and chat_template.json inside, sorted; ``hf:`` ids; ``example:`` names), ``--set``
analysis overrides, ``--corpus`` folders for the fix search, and how to run: ``--jobs N``
processes or ``--scheduler ADDRESS`` (a Dask distributed scheduler). Output: with
``--json`` one JSON line per template (``explorer.doctor.DoctorReport.to_json()``, or an
error line), streamed in input order as each finishes; otherwise a readable report for a
single template, a summary table for several.

``--llama-cpp DRIVER``: each report also says what that real build reads off the template
and applies for the standard request, and whether each template-edit and request-change
fix holds there (its round trip's llama.cpp steps asked of the build: ``llama_cpp``).

Exit code: 1 when ``--fail-on`` finds its severity among a template's own findings
(``cause``; ``warning`` counts causes too: the report's ``gate``, which leaves out the
fixture family's results, other models' outputs, and the invocation's unused overrides),
for a model publisher's CI; 2 for a usage error (a bad ``--set``, ``--jobs`` below 1) or
a template that could not be doctored (its error line says why); 0 otherwise. A lossy
template is not an error.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping

from explorer.analysis.overrides import parse_setting
from explorer.cli.inputs import TEMPLATE_HELP, add_override_argument, program_name
from explorer.cli.llama_cpp_args import add_llama_cpp_argument, driver_from_args
from explorer.doctor.batch import run_batch
from explorer.doctor.llama_cpp_check import fixes_of, llama_cpp_section
from explorer.doctor.text import report_text, summary_table
from explorer.errors import ExplorerError
from explorer.llama_cpp.driver import LlamaCppDriver
from explorer.session import open_session
from explorer.sources import resolve_spec

EXIT_FAIL_ON = 1
EXIT_ERRORED = 2
EXIT_USAGE = 2
FAILING: dict[str, tuple[str, ...]] = {"cause": ("cause",), "warning": ("cause", "warning")}


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "doctor", help="one health report per template: route, health, round-trip losses, fixtures, fixes",
        description="The template doctor: the route and why, llama.cpp's reading of the template, what the round "
                    "trip loses and whose doing it is (the template or llama.cpp's parser), the grammar's "
                    "verdicts, the template's own canitoolcall fixture family, a verdict (full, losses, broken) "
                    "and verified fixes.")
    p.add_argument("templates", metavar="TEMPLATE", nargs="+",
                   help=TEMPLATE_HELP.replace(", or - for stdin", "") + ", or a folder of templates")
    p.add_argument("--json", action="store_true", help="one JSON line per template, streamed in input order")
    p.add_argument("--jobs", type=int, default=1, metavar="N", help="doctor N templates at once, in processes")
    p.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="run on the Dask distributed scheduler at ADDRESS (e.g. tcp://10.0.0.5:8786), one task "
                        "per template")
    p.add_argument("--fail-on", choices=tuple(FAILING), default=None,
                   help="exit 1 when a template has a finding of its own of this severity (warning also counts "
                        "causes; the fixture family's results are reported, never counted)")
    add_override_argument(p)
    p.add_argument("--corpus", metavar="DIR", action="append", default=[],
                   help="a folder of templates the fix search checks a workaround's substring against, besides "
                        "llama.cpp's own models/templates of the targeted build; repeatable")
    p.add_argument("--no-fixes", action="store_true", help="skip the fix search")
    add_llama_cpp_argument(p)
    p.set_defaults(run=run)


def _fails(line: Mapping[str, object], severities: tuple[str, ...]) -> bool:
    """The template's own findings hold one of ``severities`` (the report's ``gate``)."""
    gate = line.get("gate")
    return isinstance(gate, Mapping) and any(isinstance(n := gate.get(s), int) and n > 0 for s in severities)


def how_to_see_each(args: argparse.Namespace) -> str:
    """The line under the summary table: how to get each template's whole report."""
    prog = program_name()
    return (f"Each template's whole report: {prog} doctor TEMPLATE (one at a time), or {prog} doctor "
            "--json ... (one JSON line per template, in this order).")


def with_llama_cpp(line: Mapping[str, object], driver: LlamaCppDriver) -> Mapping[str, object]:
    """A report line with the real build's reading of the template and its re-checked fixes
    (``llama_cpp``); an error line as it is."""
    spec = line.get("template")
    if isinstance(line.get("error"), Mapping) or not isinstance(spec, str):
        return line
    try:
        session = open_session(resolve_spec(spec).text)
        section = llama_cpp_section(session, fixes_of(line), driver)
    except ExplorerError as exc:
        return {**line, "llama_cpp": {"error": str(exc)}}
    return {**line, "llama_cpp": section.to_json() | {"text": section.to_text()}}


def _llama_cpp_text(line: Mapping[str, object]) -> str:
    section = line.get("llama_cpp")
    if not isinstance(section, Mapping):
        return ""
    text = section.get("text", section.get("error", ""))
    return f"\n{text}" if text else ""


def run(args: argparse.Namespace) -> int:
    if args.jobs < 1:
        print("error: --jobs must be at least 1", file=sys.stderr)
        return EXIT_USAGE
    for spec in args.set:
        try:
            parse_setting(spec)
        except ExplorerError as exc:
            print(f"error: --set {spec}: {exc}", file=sys.stderr)
            return EXIT_USAGE
    driver = driver_from_args(args)
    lines: list[Mapping[str, object]] = []
    for made in run_batch(args.templates, sets=args.set, corpus=args.corpus, fixes=not args.no_fixes,
                          jobs=args.jobs, scheduler=args.scheduler):
        line = with_llama_cpp(made, driver) if driver is not None else made
        lines.append(line)
        if args.json:
            sys.stdout.write(json.dumps(line, ensure_ascii=False) + "\n")
            sys.stdout.flush()
    errored = [line for line in lines if isinstance(line.get("error"), Mapping)]
    if not args.json:
        reports = [line for line in lines if line not in errored]
        if len(lines) == 1 and reports:
            sys.stdout.write(report_text(lines[0]) + _llama_cpp_text(lines[0]) + "\n")
        elif len(lines) > 1:
            sys.stdout.write(summary_table(lines) + "\n" + how_to_see_each(args) + "\n"
                             + "".join(_llama_cpp_text(line).lstrip("\n") + "\n" for line in reports
                                       if _llama_cpp_text(line)))
        for failed in errored:  # each error once, in words, on stderr
            error = failed["error"]
            assert isinstance(error, Mapping)
            print(f"error: {failed.get('template')} ({error.get('kind')}): {error.get('message')}", file=sys.stderr)
    if errored:
        return EXIT_ERRORED
    if args.fail_on and any(_fails(line, FAILING[args.fail_on]) for line in lines):
        return EXIT_FAIL_ON
    return 0
