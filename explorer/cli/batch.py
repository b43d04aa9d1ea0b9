"""``parse-batch``: many parses in one run, each from a serialized parser or a template.

Input: the lines of a JSONL file. Each non-blank line is a JSON object of one of two kinds:

- a parser row, with a ``parser`` string (an oracle parse row): that serialized PEG
  parser with the row's ``generation_prompt`` and ``format`` (any ``template`` is ignored);
- a template row, with a ``template`` spec and no parser string: the whole pipeline, as
  ``parse TEMPLATE``. The request is ``tools``, ``messages``, ``enable_thinking``,
  ``chat_template_kwargs``, ``parallel_tool_calls``, ``tool_choice`` and
  ``reasoning_format``, with llama-server's defaults for what is absent or null.

Both take the text to parse from ``raw_output``; what a row lacks of ``raw_output`` and
``tools`` comes from the canitoolcall fixture its ``id`` names. A relative template path
is looked for in each ``--templates`` folder, then in the JSONL file's folder, then in
the working directory; ``hf:`` and ``example:`` specs are read as ``parse TEMPLATE``
reads them.

Output: one JSON line per non-blank input line, in input order: ``{"id", "result",
"exception", "streaming_final"}`` (the oracle's fields; more with ``full_streaming`` and
``explain``; with ``llama_cpp``, a real build's driver, a ``llama_cpp`` object: that build's
``result`` and ``exception`` for the row, its own apply for a template row), or ``{"id", "error": {"kind", "message", "line"}}`` for a row that is
malformed or whose template, fixture or parser fails. With ``jobs`` > 1 the rows are
spread over that many processes, each template's rows kept together so that a worker
opens each template's session once.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache, partial
from pathlib import Path
from typing import IO, TypeAlias, TypeVar

from explorer.apply import Request
from explorer.apply.pipeline import ChatParams
from explorer.errors import ExplorerError, LlamaCppDriverError, SourceError, exception_json
from explorer.jsontypes import Json, JsonObject
from explorer.llama_cpp.driver import CppException, driver_at
from explorer.output.parse import DEFAULT_FORMAT, OutputParse, analyse_output, explain_mismatch
from explorer.output.streaming import stream_summary
from explorer.peg.arena import Arena, load_arena
from explorer.pool import run_pooled
from explorer.session import TemplateSession, open_session, request_key
from explorer.sources import resolve_spec
from explorer.vocabulary import REASONING_FORMATS

OutLine: TypeAlias = "dict[str, object]"
T = TypeVar("T")

ROW_ERROR = "row"  # error kind of a line that is not a usable row
PARSER_CHUNK = 64  # parser rows per task: they need no session, only a share of the work


@dataclass(frozen=True)
class BatchOptions:
    """What every row's output line carries besides the oracle's result fields."""

    full_streaming: bool = False  # the oracle's streaming_* fields (a parse per character)
    explain: bool = False  # where a failing parse got furthest and what it expected there
    llama_cpp: str | None = None  # a real build's driver: each line's llama_cpp (result, exception)


@dataclass(frozen=True)
class RowError:
    """A line that yields an error line instead of a parse."""

    index: int  # position among the output lines
    line: int  # line number in the input
    id: Json
    kind: str
    message: str


@dataclass(frozen=True)
class ParserRow:
    """An oracle-shaped row with its own serialized parser (``raw_output`` filled in)."""

    index: int
    line: int
    id: Json
    row: JsonObject


@dataclass(frozen=True)
class TemplateRow:
    """A row that names a template: the request llama-server would receive, and the text."""

    index: int
    line: int
    id: Json
    template: str  # a spec ``resolve_spec`` reads (relative paths already resolved)
    raw_output: str
    tools: tuple[JsonObject, ...] | None = None
    messages: tuple[JsonObject, ...] | None = None
    enable_thinking: bool | None = None
    parallel_tool_calls: bool | None = None
    tool_choice: str = "auto"
    reasoning_format: str = "deepseek"
    chat_template_kwargs: JsonObject = field(default_factory=dict)


BatchRow: TypeAlias = "RowError | ParserRow | TemplateRow"
Task: TypeAlias = "tuple[ParserRow | TemplateRow, ...]"


# --- fixtures ----------------------------------------------------------------------------


@dataclass(frozen=True)
class FixtureInputs:
    raw_output: str
    tools: tuple[JsonObject, ...]


@lru_cache(maxsize=1)
def fixture_inputs() -> dict[str, FixtureInputs]:
    """canitoolcall's fixtures by id: raw output and tools."""
    try:
        from canitoolcall.fixtures import load_fixtures
    except ImportError:
        raise SourceError("rows name canitoolcall fixtures, but canitoolcall is not installed") from None
    return {f.id: FixtureInputs(f.raw_output, tuple(dict(t) for t in f.tools or ())) for f in load_fixtures()}


def fixture_outputs() -> dict[str, str]:
    """canitoolcall's fixtures: raw output by fixture id."""
    return {key: f.raw_output for key, f in fixture_inputs().items()}


def raw_output_for(row: Mapping[str, Json]) -> str:
    """The row's ``raw_output``, or that of the fixture its ``id`` names."""
    text = row.get("raw_output")
    if isinstance(text, str):
        return text
    rid = row.get("id")
    fixture = fixture_inputs().get(rid) if isinstance(rid, str) else None
    if fixture is None:
        raise SourceError(f"row {row.get('id')!r} has no raw_output and names no canitoolcall fixture")
    return fixture.raw_output


# --- one row -------------------------------------------------------------------------------


def _result_fields(full: OutputParse, partial: OutputParse | None, arena: Arena | None, text: str,
                   generation_prompt: str, fmt: str, options: BatchOptions) -> OutLine:
    out: OutLine = {
        "result": full.message.to_oracle_json() if full.message else None,
        "exception": exception_json(full.error) if full.error else None,
    }
    if options.explain:
        failure = explain_mismatch(full, arena)
        out["explain"] = failure.to_json() if failure is not None else None
    if options.full_streaming:
        out.update(stream_summary(arena, text, generation_prompt=generation_prompt, format=fmt))
    elif partial is not None:
        out["streaming_final"] = partial.message.to_oracle_json() if partial.message else None
    return out


def _real_fields(answer: JsonObject | CppException) -> OutLine:
    if isinstance(answer, CppException):
        return {"result": None, "exception": answer.to_json()}
    return {"result": answer, "exception": None}


def llama_cpp_parser_row(row: Mapping[str, Json], text: str, driver_path: str) -> OutLine:
    """A parser row through the real build: its parser, generation prompt and format."""
    try:
        return _real_fields(driver_at(driver_path).parse(row, text).value)
    except LlamaCppDriverError as exc:
        return {"result": None, "exception": None, "error": str(exc)}


def llama_cpp_template_row(session: TemplateSession, request: Request, text: str, driver_path: str) -> OutLine:
    """A template row through the real build: its own apply of the request, then its parse."""
    try:
        driver = driver_at(driver_path)
        applied = driver.apply(session.text, request).value
        if isinstance(applied, CppException):
            return _real_fields(applied)
        return _real_fields(driver.parse(applied, text).value)
    except LlamaCppDriverError as exc:
        return {"result": None, "exception": None, "error": str(exc)}


def replay_row(row: Mapping[str, Json], *, full_streaming: bool = False, explain: bool = False) -> OutLine:
    """One oracle-shaped row through our parser: the oracle's result fields (and, with
    ``explain``, the furthest failure of a parse that threw)."""
    serialized = row.get("parser")
    arena = load_arena(serialized) if isinstance(serialized, str) and serialized else None
    text = raw_output_for(row)
    gp = row.get("generation_prompt")
    gp = gp if isinstance(gp, str) else ""
    fmt = row.get("format")
    fmt = fmt if isinstance(fmt, str) and fmt else DEFAULT_FORMAT
    options = BatchOptions(full_streaming, explain)
    full = analyse_output(arena, text, generation_prompt=gp, format=fmt, is_partial=False)
    partial = None if full_streaming else analyse_output(arena, text, generation_prompt=gp, format=fmt,
                                                         is_partial=True)
    return {"id": row.get("id")} | _result_fields(full, partial, arena, text, gp, fmt, options)


def template_request(session: TemplateSession, row: TemplateRow) -> Request:
    """The row's request, with llama-server's defaults for what it leaves out."""
    return session.request(
        messages=row.messages, tools=row.tools, tool_choice=row.tool_choice,
        enable_thinking=row.enable_thinking, parallel_tool_calls=row.parallel_tool_calls,
        reasoning_format=row.reasoning_format, chat_template_kwargs=row.chat_template_kwargs)


def replay_template_row(session: TemplateSession, row: TemplateRow, options: BatchOptions,
                        failed: dict[str, ExplorerError] | None = None) -> OutLine:
    """A template row through the whole pipeline; ``failed`` remembers the requests the
    template could not apply, so that a runaway template's repeated request waits for its
    render budget once, not once per row (the session keeps only what succeeded)."""
    request = template_request(session, row)
    key = request_key(request)
    if failed is not None and key in failed:
        raise failed[key]
    try:
        params: ChatParams = session.params(request)
    except ExplorerError as exc:
        if failed is not None:
            failed[key] = exc
        raise
    full = session.parse(row.raw_output, request)
    partial = None if options.full_streaming else session.parse(row.raw_output, request, partial=True)
    line = {"id": row.id} | _result_fields(full, partial, params.arena, row.raw_output,
                                           params.generation_prompt, params.format, options)
    if options.llama_cpp:
        line["llama_cpp"] = llama_cpp_template_row(session, request, row.raw_output, options.llama_cpp)
    return line


def error_line(row: RowError) -> OutLine:
    return {"id": row.id, "error": {"kind": row.kind, "message": row.message, "line": row.line}}


def _failure(row: ParserRow | TemplateRow, exc: Exception) -> RowError:
    if isinstance(exc, ExplorerError):
        return RowError(row.index, row.line, row.id, exc.kind, str(exc))
    # A bug of ours or an exhausted interpreter (RecursionError, MemoryError): still only
    # this row's loss.
    return RowError(row.index, row.line, row.id, "internal", f"{type(exc).__name__}: {exc}")


def run_task(task: Task, options: BatchOptions) -> list[tuple[int, OutLine]]:
    """The rows of one task (parser rows, or the rows of one template), each as its
    (output index, output line). Never raises for a row: its failure is its line."""
    out: list[tuple[int, OutLine]] = []
    session: TemplateSession | None = None
    opened: ExplorerError | None = None
    failed: dict[str, ExplorerError] = {}
    for row in task:
        try:
            if isinstance(row, ParserRow):
                line = replay_row(row.row, full_streaming=options.full_streaming, explain=options.explain)
                if options.llama_cpp:
                    line["llama_cpp"] = llama_cpp_parser_row(row.row, raw_output_for(row.row), options.llama_cpp)
            else:
                if session is None and opened is None:
                    try:
                        session = open_session(resolve_spec(row.template))
                    except ExplorerError as exc:
                        opened = exc  # the template's failure is every row's; read it once
                if opened is not None:
                    raise opened
                assert session is not None
                line = replay_template_row(session, row, options, failed)
        except Exception as exc:  # noqa: BLE001 - one row's failure must not end the batch
            line = error_line(_failure(row, exc))
        out.append((row.index, line))
    return out


# --- reading rows ----------------------------------------------------------------------------


def find_template(spec: str, search: Sequence[Path]) -> str:
    """The spec ``resolve_spec`` should read: ``hf:``/``example:`` specs and absolute paths
    as given, a relative path (``path#variant`` too) in the first folder of ``search``
    that holds it."""
    if spec.startswith(("hf:", "example:")) or Path(spec).is_absolute():
        return spec
    if spec == "-":
        raise SourceError("a row's template cannot be '-' (stdin)")
    for folder in search:
        if (folder / spec).exists():
            return str(folder / spec)
        base, _, variant = spec.rpartition("#")
        if base and (folder / base).exists():
            return f"{folder / base}#{variant}"
    raise SourceError(f"no template {spec!r} in {', '.join(str(f) for f in search)}")


def template_search(templates: Sequence[str], input_path: str) -> tuple[Path, ...]:
    """Where relative template paths are looked for: the ``--templates`` folders, the
    JSONL file's folder, the working directory (each once)."""
    folders = [Path(t) for t in templates]
    folders.append(Path(input_path).resolve().parent if input_path != "-" else Path.cwd())
    folders.append(Path.cwd())
    unique: list[Path] = []
    for folder in folders:
        if folder.resolve() not in [u.resolve() for u in unique]:
            unique.append(folder)
    return tuple(unique)


class _Malformed(Exception):
    """A field of a row has the wrong type (reported as the row's error line)."""


def _optional(row: JsonObject, name: str, kind: type[T], what: str) -> T | None:
    value = row.get(name)
    if value is None or isinstance(value, kind):
        return value
    raise _Malformed(f"'{name}' must be {what}, found {json.dumps(value)[:80]}")


def _objects(row: JsonObject, name: str) -> tuple[JsonObject, ...] | None:
    value = _optional(row, name, list, "a list of objects or null")
    if value is None:
        return None
    assert isinstance(value, list)
    if not all(isinstance(v, dict) for v in value):
        raise _Malformed(f"'{name}' must be a list of objects")
    return tuple(v for v in value if isinstance(v, dict))


def _template_row(index: int, line: int, row: JsonObject, search: Sequence[Path]) -> TemplateRow:
    spec = row["template"]
    if not isinstance(spec, str) or not spec:
        raise _Malformed("'template' must be a non-empty string")
    tools = _objects(row, "tools")
    messages = _objects(row, "messages")
    thinking = _optional(row, "enable_thinking", bool, "true, false or null")
    parallel = _optional(row, "parallel_tool_calls", bool, "true, false or null")
    kwargs = _optional(row, "chat_template_kwargs", dict, "an object or null")
    choice = _optional(row, "tool_choice", str, "a string")
    reasoning = _optional(row, "reasoning_format", str, "a string")
    if reasoning is not None and reasoning not in REASONING_FORMATS:
        raise _Malformed(f"'reasoning_format' must be one of {', '.join(REASONING_FORMATS)}, found {reasoning!r}")
    rid = row.get("id")
    fixture = fixture_inputs().get(rid) if isinstance(rid, str) and (
        tools is None or not isinstance(row.get("raw_output"), str)) else None
    if tools is None and fixture is not None:
        tools = fixture.tools
    return TemplateRow(
        index, line, row.get("id"), find_template(spec, search), raw_output_for(row), tools, messages,
        thinking if isinstance(thinking, bool) else None, parallel if isinstance(parallel, bool) else None,
        choice if isinstance(choice, str) else "auto", reasoning if isinstance(reasoning, str) else "deepseek",
        dict(kwargs) if isinstance(kwargs, dict) else {})


def read_row(index: int, line: int, text: str, search: Sequence[Path]) -> BatchRow:
    """One input line as a row to run, or as the error line it yields."""
    try:
        row = json.loads(text)
    except json.JSONDecodeError as exc:
        return RowError(index, line, None, ROW_ERROR, f"invalid JSON: {exc}")
    if not isinstance(row, dict):
        return RowError(index, line, None, ROW_ERROR, "a row must be a JSON object")
    row_id = row.get("id")
    try:
        if isinstance(row.get("parser"), str):
            return ParserRow(index, line, row_id, row | {"raw_output": raw_output_for(row)})
        if row.get("parser") is not None:
            raise _Malformed("'parser' must be a string (a serialized PEG parser) or null")
        if "template" in row:
            return _template_row(index, line, row, search)
        raise _Malformed("a row needs a 'parser' string or a 'template'")
    except _Malformed as exc:
        return RowError(index, line, row_id, ROW_ERROR, str(exc))
    except ExplorerError as exc:
        return RowError(index, line, row_id, exc.kind, str(exc))


def read_rows(lines: Iterable[str], search: Sequence[Path]) -> list[BatchRow]:
    """The non-blank lines as rows, numbered in output order."""
    rows: list[BatchRow] = []
    for number, text in enumerate(lines, start=1):
        if text.strip():
            rows.append(read_row(len(rows), number, text, search))
    return rows


# --- running ---------------------------------------------------------------------------------


def plan_tasks(rows: Sequence[BatchRow]) -> list[Task]:
    """Template rows by template (first appearance first), parser rows in chunks."""
    by_template: dict[str, list[ParserRow | TemplateRow]] = {}
    parser_rows: list[ParserRow | TemplateRow] = []
    for row in rows:
        if isinstance(row, TemplateRow):
            by_template.setdefault(row.template, []).append(row)
        elif isinstance(row, ParserRow):
            parser_rows.append(row)
    tasks = [tuple(group) for group in by_template.values()]
    tasks += [tuple(parser_rows[i:i + PARSER_CHUNK]) for i in range(0, len(parser_rows), PARSER_CHUNK)]
    return tasks


def _lost(task: Task, message: str) -> list[tuple[int, OutLine]]:
    return [(row.index, error_line(RowError(row.index, row.line, row.id, "worker", message))) for row in task]


def run_parallel(tasks: Sequence[Task], options: BatchOptions, jobs: int) -> Iterator[tuple[int, OutLine]]:
    """The tasks over ``jobs`` processes, results as they finish."""
    # Largest first: the long tasks start early and the short ones fill in around them.
    ordered = sorted(tasks, key=len, reverse=True)
    yield from run_pooled(ordered, partial(run_task, options=options), jobs, _lost,
                          "the worker process running this template's rows died")


def run_batch_rows(rows: Sequence[BatchRow], options: BatchOptions, jobs: int = 1) -> Iterator[tuple[int, OutLine]]:
    """Every row's (output index, output line), in no particular order."""
    for row in rows:
        if isinstance(row, RowError):
            yield row.index, error_line(row)
    tasks = plan_tasks(rows)
    if jobs <= 1 or len(tasks) <= 1:
        for task in tasks:
            yield from run_task(task, options)
    else:
        yield from run_parallel(tasks, options, min(jobs, len(tasks)))


@dataclass
class OrderedWriter:
    """Writes lines in input order as soon as every earlier line is known."""

    out: IO[str]
    next_index: int = 0
    errors: int = 0
    first_error: str | None = None
    pending: dict[int, OutLine] = field(default_factory=dict)

    def put(self, index: int, line: OutLine) -> None:
        self.pending[index] = line
        while self.next_index in self.pending:
            ready = self.pending.pop(self.next_index)
            error = ready.get("error")
            if isinstance(error, dict):
                self.errors += 1
                if self.first_error is None:
                    self.first_error = f"line {error.get('line')}: {error.get('message')}"
            self.out.write(json.dumps(ready, ensure_ascii=False) + "\n")
            self.next_index += 1


def replay_batch(lines: Iterable[str], out: IO[str], *, search: Sequence[Path] = (),
                 options: BatchOptions = BatchOptions(), jobs: int = 1) -> tuple[int, int, str | None]:
    """Read, run and write a whole batch: (rows, rows that errored, the first error)."""
    rows = read_rows(lines, search)
    writer = OrderedWriter(out)
    for index, line in run_batch_rows(rows, options, jobs):
        writer.put(index, line)
    for row in rows[writer.next_index:]:
        if row.index >= writer.next_index and row.index not in writer.pending:  # a bug; still a line per row
            writer.put(row.index, error_line(RowError(row.index, row.line, row.id, "internal", "no result")))
    out.flush()
    return len(rows), writer.errors, writer.first_error


def read_lines(path: str) -> list[str]:
    """The input file's lines (``-``: stdin)."""
    if path == "-":
        return sys.stdin.read().splitlines()
    try:
        return Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise SourceError(f"cannot read the batch file {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise SourceError(f"the batch file {path} is not UTF-8: {exc.reason} at byte {exc.start}") from None


__all__ = [
    "BatchOptions", "ParserRow", "RowError", "TemplateRow", "find_template", "fixture_inputs", "fixture_outputs",
    "plan_tasks", "raw_output_for", "read_lines", "read_rows", "replay_batch", "replay_row", "replay_template_row",
    "run_task", "template_search",
]
