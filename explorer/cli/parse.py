"""``parse`` and ``parse-batch``: run model output through llama.cpp's parser.

Input: ``parse --parser FILE --output-file F [--generation-prompt TEXT] [--format NAME]
[--partial] [--stream] [--ast] [--notation] [--explain]``; ``parse TEMPLATE --output-file F``
with the request switches; or ``parse-batch IN.jsonl [--templates DIR] [--jobs N]`` whose
rows carry a serialized ``parser`` (oracle parse rows) or name a ``template`` and a request
(``explorer.cli.batch`` reads and runs them). Output: JSON on stdout: the message
llama-server would return (oracle ``result`` shape) or llama.cpp's exception; for the
batch one line per input line, in input order: ``{"id", "result", "exception",
"streaming_final"}``, or ``{"id", "error"}`` for a row that failed (exit code 1 then).
With ``--explain`` a parse that fails also prints ``explain: <where and what was expected>``
on stderr (``explorer.peg.expectations``), stdout unchanged; ``parse-batch --explain`` adds
that report as an ``explain`` field to each line.

A positional TEMPLATE runs the whole pipeline instead (routing, analysis or handler,
generator) for the request the switches describe, as ``apply`` does.

``--llama-cpp DRIVER`` runs the same output through that real build too (with a TEMPLATE,
the build's own parser for the request; with ``--parser``, that parser): whether it agrees
on stderr, and ``llama_cpp`` in the JSON. ``parse-batch --llama-cpp DRIVER`` adds a
``llama_cpp`` object (``result``, ``exception``) to each line.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from typing import Any

from explorer.apply import Request
from explorer.cli.batch import BatchOptions, read_lines, replay_batch, template_search
from explorer.cli.inputs import (
    add_override_argument,
    add_request_arguments,
    read_output,
    request_from_args,
    session_from_args,
)
from explorer.cli.llama_cpp_args import add_llama_cpp_argument, agreement_json, driver_from_args, tell
from explorer.errors import PegError, SourceError, exception_json
from explorer.jsontypes import JsonObject
from explorer.llama_cpp.compare import Agreement, compare_parse, compare_stream, parsed_agreement
from explorer.llama_cpp.driver import LlamaCppDriver
from explorer.output.parse import DEFAULT_FORMAT, analyse_output, explain_mismatch
from explorer.output.streaming import char_chunks, stream
from explorer.peg.arena import Arena, load_arena
from explorer.peg.engine import deep_recursion
from explorer.session import TemplateSession
from explorer.vocabulary import REASONING_FORMATS


@dataclass(frozen=True)
class ParserSettings:
    """What ``common_chat_parse`` needs besides the text (``serialized``: the parser's text,
    for a real build; ``session``/``request``: the template and request it was built for)."""

    arena: Arena | None
    generation_prompt: str = ""
    format: str = DEFAULT_FORMAT
    serialized: str = ""
    session: TemplateSession | None = None
    request: Request | None = None


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "parse", help="parse model output with a serialized llama.cpp PEG parser",
        description="Parse model output as llama-server does (common_chat_parse).")
    p.add_argument("template", nargs="?", metavar="TEMPLATE",
                   help="a chat template: path, hf:owner/repo[@rev][#name], example:NAME or - "
                        "(whole pipeline: the parser llama.cpp builds for the request below)")
    p.add_argument("--parser", metavar="FILE",
                   help="serialized parser: the arena JSON, or a JSON object with a 'parser' "
                        "string (an oracle row or apply result; its generation_prompt and "
                        "format are used unless given)")
    p.add_argument("--output-file", metavar="F",
                   help="the raw model output ('-' for stdin); required unless --notation")
    p.add_argument("--generation-prompt", metavar="TEXT", default=None)
    p.add_argument("--format", default=None, help="chat format name (default peg-native)")
    p.add_argument("--reasoning-format", default="deepseek", choices=REASONING_FORMATS,
                   help="accepted for symmetry; llama.cpp bakes it into the parser")
    p.add_argument("--partial", action="store_true", help="parse as a partial (streamed) output")
    p.add_argument("--stream", action="store_true",
                   help="parse every prefix (one per character) and print the deltas")
    p.add_argument("--naive", action="store_true", help="with --stream: re-parse from scratch")
    p.add_argument("--ast", action="store_true", help="include the parse tree")
    p.add_argument("--notation", action="store_true", help="print the parser as PEG rules and exit")
    p.add_argument("--explain", action="store_true",
                   help="when the output does not match: print on stderr where the parse got "
                        "furthest and what it expected there (a separate diagnostic pass; "
                        "not with --stream)")
    add_request_arguments(p, reasoning_format=False)
    add_override_argument(p)
    add_llama_cpp_argument(p)
    p.set_defaults(run=run)

    b = subparsers.add_parser(
        "parse-batch", help="replay rows (a serialized parser, or a template and a request) through the parser",
        description="One output line per input line, in input order: id, result, exception, "
                    "streaming_final; or id and error for a row that failed (exit code 1 then). "
                    "A row with a 'parser' string uses that parser; a row with a 'template' (path, "
                    "hf: or example: spec) runs the whole pipeline for the row's request (tools, "
                    "messages, enable_thinking, chat_template_kwargs, parallel_tool_calls, "
                    "tool_choice, reasoning_format). raw_output, and tools, come from the "
                    "canitoolcall fixture the row's id names when the row has none.")
    b.add_argument("input", metavar="IN.jsonl")
    b.add_argument("--out", metavar="OUT.jsonl", default="-")
    b.add_argument("--full-streaming", action="store_true",
                   help="also simulate streaming per character (the oracle's streaming_* fields)")
    b.add_argument("--explain", action="store_true",
                   help="add 'explain' to each line: where a failing parse got furthest and what it "
                        "expected there (null when the output parsed)")
    b.add_argument("--templates", metavar="DIR", action="append", default=[],
                   help="a folder where a row's relative template path is looked for (repeatable); "
                        "then the JSONL file's folder, then the working directory")
    b.add_argument("--jobs", metavar="N", type=_jobs, default=1,
                   help="spread the rows over N processes, each template's rows together "
                        "(default 1: in this process)")
    b.add_argument("--llama-cpp", metavar="DRIVER", default=None,
                   help="also parse each row with a real llama.cpp build (the driver `llama-cpp build` printed): "
                        "each line gets a 'llama_cpp' object with its result and exception")
    b.set_defaults(run=run_batch)


# --- parse ---------------------------------------------------------------------------


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def settings_from_parser_file(text: str) -> ParserSettings:
    """The arena and, when the file carries them, generation prompt and format."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PegError(f"parser file is not JSON: {exc}") from None
    if isinstance(data, dict) and isinstance(data.get("parser"), str):
        arena = load_arena(data["parser"]) if data["parser"] else None
        return ParserSettings(arena, data.get("generation_prompt") or "",
                              data.get("format") or DEFAULT_FORMAT, data["parser"])
    return ParserSettings(load_arena(text.strip()), serialized=text.strip())


def parser_settings(args: argparse.Namespace) -> ParserSettings:
    """The parser the switches name: a serialized one (``--parser``), or the one llama.cpp
    builds for TEMPLATE and the request switches."""
    if args.parser:
        found = settings_from_parser_file(_read(args.parser))
    elif args.template:
        session, _source = session_from_args(args)
        request = request_from_args(session, args)
        params = session.params(request)
        found = ParserSettings(params.arena, params.generation_prompt, params.format, params.parser, session,
                               request)
    else:
        raise SourceError("expected --parser FILE (or a TEMPLATE)")
    overridden = args.generation_prompt is not None or args.format is not None
    return ParserSettings(
        found.arena,
        found.generation_prompt if args.generation_prompt is None else args.generation_prompt,
        found.format if args.format is None else args.format, found.serialized,
        None if overridden else found.session, None if overridden else found.request)


def _beside(settings: ParserSettings, output: str, port: JsonObject, partial: bool,
            driver: LlamaCppDriver) -> Agreement:
    """The real build on the same output: with a template, its own parser for the request;
    with a serialized parser, that parser."""
    if settings.session is not None and settings.request is not None:
        return compare_parse(settings.session, output, settings.request, driver, partial=partial)
    real = driver.parse({"format": settings.format, "generation_prompt": settings.generation_prompt,
                         "parser": settings.serialized}, output, partial=partial)
    return parsed_agreement("partial parse" if partial else "parse", driver, port, real)


def run(args: argparse.Namespace) -> int:
    driver = driver_from_args(args)
    settings = parser_settings(args)
    if args.notation:
        print(settings.arena.notation() if settings.arena else "root = tag<content>(until()) $")
        return 0
    if not args.output_file:
        raise SourceError("expected --output-file F (the model output to parse)")
    output = read_output(args.output_file)
    if args.stream:
        steps = []
        for step in stream(settings.arena, char_chunks(output),
                           generation_prompt=settings.generation_prompt,
                           format=settings.format, naive=args.naive):
            steps.append({"prefix_chars": step.prefix_chars,
                          "message": step.message.to_oracle_json() if step.message else None,
                          "exception": exception_json(step.error) if step.error else None,
                          "deltas": step.openai_deltas()})
        out_steps: dict[str, Any] = {"steps": steps}
        if driver is not None:
            if settings.session is None or settings.request is None:
                raise SourceError("--stream --llama-cpp compares a TEMPLATE's parser (give a TEMPLATE, not --parser)")
            agreement = compare_stream(settings.session, output, settings.request, driver)
            tell(agreement)
            out_steps["llama_cpp"] = agreement_json(agreement)
        print(json.dumps(out_steps, ensure_ascii=False, indent=1))
        return 0
    parsed = analyse_output(settings.arena, output, generation_prompt=settings.generation_prompt,
                            format=settings.format, is_partial=args.partial)
    out: dict[str, Any] = {
        "result": parsed.message.to_oracle_json() if parsed.message else None,
        "exception": exception_json(parsed.error) if parsed.error else None,
    }
    if driver is not None:
        agreement = _beside(settings, output, {"result": out["result"], "exception": out["exception"]},
                            args.partial, driver)
        tell(agreement)
        out["llama_cpp"] = agreement_json(agreement)
    if args.ast:
        out["parse_status"] = parsed.result.status_name
        out["parse_end"] = parsed.result.end
        with deep_recursion():
            out["ast"] = [n.to_json() for n in parsed.result.nodes]
    print(json.dumps(out, ensure_ascii=False, indent=1))
    if args.explain and parsed.error is not None:
        sys.stdout.flush()
        failure = explain_mismatch(parsed, settings.arena)
        if failure is not None:
            print(f"explain: {failure.describe()}", file=sys.stderr)
    return 1 if parsed.error is not None else 0


# --- parse-batch -----------------------------------------------------------------------


def _jobs(text: str) -> int:
    try:
        jobs = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of processes, found {text!r}") from None
    if jobs < 1:
        raise argparse.ArgumentTypeError("--jobs must be at least 1")
    return jobs


def run_batch(args: argparse.Namespace) -> int:
    lines = read_lines(args.input)
    search = template_search(args.templates, args.input)
    driver = driver_from_args(args)
    options = BatchOptions(full_streaming=args.full_streaming, explain=args.explain,
                           llama_cpp=str(driver.path) if driver is not None else None)
    out = sys.stdout if args.out == "-" else open(args.out, "w", encoding="utf-8")
    try:
        rows, errors, first = replay_batch(lines, out, search=search, options=options, jobs=args.jobs)
    finally:
        if out is not sys.stdout:
            out.close()
    if errors:
        print(f"parse-batch: {errors} of {rows} rows failed (first: {first})", file=sys.stderr)
    return 1 if errors else 0
