"""Reading llama-server's log: the parse failure it records, and the model output it holds.

Input: log text as a user pastes it (plain; with ``--log-prefix`` / ``--log-timestamps``;
with ANSI colours; ``--log-jsonl`` lines; lines behind a journal or container prefix; a
client's error with the server's JSON body or its Python repr), the
request's generation prompt and, optionally, the output the user also has. Output:
``read_log`` gives a ``ServerLog`` (every parse-failure record and every raw-output dump,
in order); ``locate`` gives a ``LogReading``: the model output (from the log's dump, from
its tail when that holds all of it, or the user's), which coordinate the log's number
counts, the output character it points at, and notes on whatever did not fit. Pure: no
parsing of the output here (``explorer.triage.from_log`` compares with our parse).

What llama.cpp writes (read off its source):

* 0c1e5709, ``common_chat_peg_parse``: a warning ``"<func>: unparsed <format> output:
  <text>"`` whose text is generation prompt + output from ``result.end`` on (no number);
  at debug verbosity ``"<func>: full <format> output triggering error:"`` then the whole
  generation prompt + output between ``=== BEGIN ===`` and ``=== END ===`` lines; the
  exception ``"The model produced output that does not match the expected <format>
  format"`` (no position), which llama-server logs as ``got exception: {json}``.
* older builds: the exception ``"Failed to parse input at pos N"`` (later ``": "`` + the
  text from N), N counting bytes of the model output alone, as those builds parsed it
  without the generation prompt; debug lines ``"Parsing input with format <format>:
  <output>"`` and llama-server's ``"Parsing chat message: <output so far>"`` (one per
  streamed token).
* the explorer: ``"... does not match the expected <format> format (offset N)"``, N bytes
  into generation prompt + output.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field, replace
from typing import Literal

from explorer.triage.llama_changes import Build, read_build

Counts = Literal["prompt+output", "output"]
FailureKind = Literal["unparsed", "failed-at-pos", "explorer-offset", "mismatch"]
DumpKind = Literal["begin-end", "parsing-input", "parsing-chat-message"]

SOURCES: dict[str, str] = {
    "unparsed": "llama.cpp 0c1e5709's warning \"unparsed … output:\"",
    "failed-at-pos": "older builds' error \"Failed to parse input at pos N\"",
    "explorer-offset": "the explorer's error \"(offset N)\"",
    "mismatch": "llama.cpp 0c1e5709's error \"does not match the expected … format\"",
    "begin-end": "llama.cpp 0c1e5709's debug dump between === BEGIN === and === END ===",
    "parsing-input": "older builds' debug line \"Parsing input with format …:\"",
    "parsing-chat-message": "older llama-server's debug line \"Parsing chat message:\"",
}
DUMP_HOLDS: dict[str, Counts] = {"begin-end": "prompt+output", "parsing-input": "output",
                                 "parsing-chat-message": "output"}
VERBOSE_HINT = ("llama-server logs the whole output between === BEGIN === and === END === at debug verbosity "
                "(-lv 5 or --verbose)")

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# what a journal (journalctl) or `docker logs -t` puts before every line, continuation lines too
_LINE_PREFIX = re.compile(r"^(?:\d{4}-\d\d-\d\dT[\d:.]+Z |[A-Z][a-z]{2} [ \d]\d [\d:]{8} \S+ [^\s:\[]+(?:\[\d+\])?: )")
MAX_CUTS = 64  # line breaks tried when a logged tail ran on into lines that were not part of it
_UNPARSED = re.compile(r"unparsed (\S+) output: ?")
_FAILED_AT = re.compile(r"Failed to parse input at pos (\d+)(: ?)?")
_OURS = re.compile(r"does not match the expected (\S+) format \(offset (\d+)\)")
_MISMATCH = re.compile(r"does not match the expected (\S+) format")
_BEGIN_HEADER = re.compile(r"full (\S+) output triggering error:")
_PARSING_INPUT = re.compile(r"Parsing input with format (\S+): ?")
_PARSING_CHAT = re.compile(r"Parsing chat message: ?")
_JSON_ERROR = re.compile(r'\{\s*"(?:error|code)"\s*:')
_PY_ERROR = re.compile(r"\{\s*'(?:error|code)'\s*:")
# The start of a new log record: a line that cannot be the continuation of a logged text.
# (llama.cpp prints "[M.ss.mmm.uuu ][L ]<func>: ..." and llama-server "srv  <func>: ...".)
_RECORD = re.compile(
    r"^(?:\d+\.\d{2}\.\d{3}\.\d{3} )?(?:[IWED] )?(?:srv\s+\S+: |slot\s+\S+: |que\s+\S+: |common_\w+: |llama_\w+: |"
    r"main: |=== BEGIN ===|Parsing input with format |Parsing chat message: |Parsed message: )")
_END = "=== END ==="


@dataclass(frozen=True)
class LogFailure:
    """One parse failure as a log record states it."""

    kind: FailureKind
    line_no: int  # 1-based, in the pasted text (after JSONL decoding)
    line: str  # the record's first line, as pasted (ANSI colours removed)
    format: str  # chat format name ("peg-native"), "" when the record names none
    number: int | None  # the byte offset the record prints (None: it prints none)
    tail: str | None  # the text from the failure on, as logged (None: the record holds none)
    tail_cut: bool = False  # the log cut the record short (a JSON error body that stops mid-string)

    @property
    def source(self) -> str:
        return SOURCES[self.kind]


@dataclass(frozen=True)
class LogDump:
    """A raw text the log holds: generation prompt + output, or the output alone."""

    kind: DumpKind
    line_no: int
    text: str

    @property
    def holds(self) -> Counts:
        return DUMP_HOLDS[self.kind]

    @property
    def source(self) -> str:
        return SOURCES[self.kind]


@dataclass(frozen=True)
class ServerLog:
    failures: tuple[LogFailure, ...]
    dumps: tuple[LogDump, ...]
    jsonl: bool = False  # the text was --log-jsonl lines
    build: Build | None = None  # the build line llama-server printed (``build: N (commit)``)

    @property
    def failure(self) -> LogFailure | None:
        """The last failure that says where; else the last one (a bare exception)."""
        placed = [f for f in self.failures if f.number is not None or f.tail is not None]
        return placed[-1] if placed else (self.failures[-1] if self.failures else None)

    def dump_for(self, failure: LogFailure | None) -> LogDump | None:
        """The dump of the parse that failed: 0c1e5709 writes it right after its warning;
        older builds logged the output before throwing (the last such line, with streaming)."""
        if failure is None:
            return self.dumps[-1] if self.dumps else None
        after = [d for d in self.dumps if d.line_no > failure.line_no]
        if after and after[0].kind == "begin-end":
            return after[0]
        before = [d for d in self.dumps if d.line_no < failure.line_no]
        return before[-1] if before else (after[0] if after else None)


def _plain_lines(text: str) -> tuple[list[str], bool]:
    """The log as plain lines: ANSI colours dropped, --log-jsonl records decoded."""
    if text.count("\r\n") * 10 >= text.count("\n") * 9:  # a log saved with CRLF line ends (an output's own \r stays)
        text = text.replace("\r\n", "\n")
    text = _ANSI.sub("", text)
    lines = [_LINE_PREFIX.sub("", line, count=1) for line in text.split("\n")]
    decoded: list[str] = []
    jsonl = 0
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("{") and '"msg"' in stripped:
            try:
                record = json.loads(stripped)
            except ValueError:
                record = None
            if isinstance(record, dict) and isinstance(record.get("msg"), str):
                decoded.append(record["msg"])
                jsonl += 1
                continue
        decoded.append(line + "\n")
    if not jsonl:
        return lines, False
    joined = "".join(decoded)
    return joined.split("\n"), True


def _continued(lines: list[str], i: int, first: str) -> str:
    """A logged text that starts with ``first`` on line ``i`` and runs on over the lines up
    to the next log record (the format's own final newline is not part of it)."""
    parts = [first]
    j = i + 1
    while j < len(lines) and not _RECORD.match(lines[j]):
        parts.append(lines[j])
        j += 1
    if j == len(lines) and len(parts) > 1 and parts[-1] == "":
        parts.pop()  # the paste's final newline
    return "\n".join(parts)


def _between(lines: list[str], i: int) -> str | None:
    """The text between a === BEGIN === line (at ``i``) and the next === END === line."""
    for j in range(i + 1, len(lines)):
        if lines[j].rstrip() == _END:
            return "\n".join(lines[i + 1:j])
    return None


def _json_message(line: str) -> str | None:
    """The error message of a JSON error object on the line (llama-server's "got exception:
    {json}", an HTTP 500 body, an SSE error frame), or of the Python dict a client prints
    ("Error code: 500 - {'error': {...}}")."""
    value: object = None
    m = _JSON_ERROR.search(line)
    if m is not None:
        try:
            value, _ = json.JSONDecoder().raw_decode(line, m.start())
        except ValueError:
            cut = _cut_json_message(line, m.start())
            return None if cut is None else CUT_MARK + cut
    else:
        m = _PY_ERROR.search(line)
        if m is None:
            return None
        try:
            value = ast.literal_eval(line[m.start():line.rindex("}") + 1])
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None
    if not isinstance(value, dict):
        return None
    # {"error": {"code": 500, "message": ...}} (llama-server's body) or {"code": 500, "message": ...}
    error = value.get("error", value if "message" in value else None)
    message = error.get("message") if isinstance(error, dict) else error
    return message if isinstance(message, str) else None


CUT_MARK = "\x00cut\x00"  # (internal) a message the log cut short


def _cut_json_message(line: str, start: int) -> str | None:
    """The "message" string of a JSON error object the log cut short (a long message, a
    line limit): its text up to where it stops, decoded; None when there is none."""
    m = re.compile(r'"message"\s*:\s*"').search(line, start)
    if m is None:
        return None
    body = re.match(r'(?:[^"\\]|\\.)*', line[m.end():])
    raw = body.group(0) if body else ""
    raw = raw[:len(raw) - 1] if raw.endswith("\\") and not raw.endswith("\\\\") else raw
    try:
        return json.loads(f'"{raw}"')
    except ValueError:
        return None


def _failure_in(text: str, line_no: int, line: str, rest_of: str | None) -> LogFailure | None:
    """A failure stated in ``text`` (one message); ``rest_of`` is the message's text from
    the match on, when it may run over more lines (None: ``text`` is the whole message)."""
    m = _UNPARSED.search(text)
    if m is not None:
        return LogFailure("unparsed", line_no, line, m.group(1), None, _tail(text, m.end(), rest_of))
    m = _FAILED_AT.search(text)
    if m is not None:
        tail = _tail(text, m.end(), rest_of) if m.group(2) is not None else None
        return LogFailure("failed-at-pos", line_no, line, "", int(m.group(1)), tail)
    m = _OURS.search(text)
    if m is not None:
        return LogFailure("explorer-offset", line_no, line, m.group(1), int(m.group(2)), None)
    m = _MISMATCH.search(text)
    if m is not None:
        return LogFailure("mismatch", line_no, line, m.group(1), None, None)
    return None


def _tail(text: str, at: int, rest_of: str | None) -> str:
    return text[at:] if rest_of is None else rest_of[at:]


def read_log(text: str) -> ServerLog:
    """Every parse failure and raw-output dump in llama-server log text, in order."""
    lines, jsonl = _plain_lines(text)
    failures: list[LogFailure] = []
    dumps: list[LogDump] = []
    for i, line in enumerate(lines):
        shown = line.strip()
        message = _json_message(line)
        if message is not None:
            cut = message.startswith(CUT_MARK)
            found = _failure_in(message.removeprefix(CUT_MARK), i + 1, shown, None)
            if found is not None:
                failures.append(replace(found, tail_cut=cut) if cut else found)
            continue
        if line.rstrip() == "=== BEGIN ===":
            body = _between(lines, i)
            if body is not None:
                dumps.append(LogDump("begin-end", i + 1, body))
            continue
        if _BEGIN_HEADER.search(line):
            continue  # the dump's header: the body follows on the next lines
        m = _PARSING_INPUT.search(line) or _PARSING_CHAT.search(line)
        if m is not None:
            kind: DumpKind = "parsing-input" if m.re is _PARSING_INPUT else "parsing-chat-message"
            dumps.append(LogDump(kind, i + 1, _continued(lines, i, line[m.end():])))
            continue
        if _UNPARSED.search(line) or _FAILED_AT.search(line) or _MISMATCH.search(line):
            found = _failure_in(line, i + 1, shown, _continued(lines, i, line))
            if found is not None:
                failures.append(found)
    return ServerLog(tuple(failures), tuple(dumps), jsonl, read_build(lines))


# --- locating the failure in the output --------------------------------------------------------


@dataclass(frozen=True)
class LogReading:
    """The log's failure, placed in the model output.

    ``output``: the model output to diagnose (None when the log holds only a tail and no
    output was given: ``problem`` says so). ``prompt``: the text before the output in the
    log's coordinates (the dump's, else the request's generation prompt). ``offset``: the
    failure as bytes into ``prompt`` + output (llama.cpp's ``result.end``); ``counts``:
    which text the log's own number (or tail) counts; ``char``: the output character it
    points at (0 when it lies in the prompt, ``in_prompt``); ``exact`` is false when the
    byte falls inside a character or the log's text matched only up to whitespace.
    """

    log: ServerLog
    failure: LogFailure | None
    dump: LogDump | None
    output: str | None
    output_from: Literal["log dump", "log tail", "given", ""]
    prompt: str
    offset: int | None = None
    counts: Counts | None = None
    char: int | None = None
    in_prompt: bool = False
    exact: bool = True
    notes: tuple[str, ...] = field(default=())
    problem: str = ""


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def char_at_byte(text: str, offset: int) -> tuple[int, bool]:
    """The character holding byte ``offset`` of ``text`` (clamped), and whether the offset
    is a character boundary."""
    data = _bytes(text)
    offset = max(0, min(offset, len(data)))
    head = data[:offset]
    while head:
        try:
            return len(head.decode("utf-8", "surrogatepass")), len(head) == offset
        except UnicodeDecodeError:
            head = head[:-1]  # inside a multi-byte character: back to its first byte
    return 0, offset == 0


def _cuts(tail: bytes) -> list[bytes]:
    """The logged tail, then shorter readings that end at a line break (the log may run it
    on into lines that were not part of it)."""
    out = [tail]
    pos = len(tail)
    while len(out) <= MAX_CUTS:
        pos = tail.rfind(b"\n", 0, pos)
        if pos <= 0:
            break
        out.append(tail[:pos])
    return out


def _suffix_offset(text: str, tail: str) -> tuple[int, bool, bool] | None:
    """Where ``tail`` starts as the end of ``text``, in bytes: (offset, exact, cut)."""
    data = _bytes(text)
    cuts = _cuts(_bytes(tail))
    for k, cut in enumerate(cuts):
        if data.endswith(cut):
            return len(data) - len(cut), True, k > 0
    trimmed = data.rstrip()
    for k, cut in enumerate(cuts):
        cut = cut.rstrip()
        if cut and trimmed.endswith(cut):
            return len(trimmed) - len(cut), False, k > 0
    return None


def _text_at(data: bytes, offset: int, tail: str) -> bool | None:
    """Whether ``data`` from ``offset`` on is the logged tail: True exactly, False up to
    trailing whitespace, None not at all."""
    rest = data[offset:]
    for cut in _cuts(_bytes(tail)):
        if rest == cut:
            return True
        if cut.rstrip() and rest.rstrip() == cut.rstrip():
            return False
    return None


def _output_from_dump(dump: LogDump, generation_prompt: str, output: str | None,
                      notes: list[str]) -> tuple[str, str]:
    """(prompt, output) out of a dump."""
    text = dump.text
    if dump.holds == "output":
        if generation_prompt and text.startswith(generation_prompt):
            notes.append("The logged output starts with this request's generation prompt (this build logged them "
                         "together); the output is what follows it.")
            return generation_prompt, text[len(generation_prompt):]
        return generation_prompt, text
    if output is not None and text.endswith(output):  # the given output says where the dump's prompt ends
        prompt = text[:len(text) - len(output)]
        if prompt != generation_prompt:
            notes.append(f"The dump's generation prompt is not this request's: it ends {json.dumps(prompt[-40:])}, "
                         f"this request's ends {json.dumps(generation_prompt[-40:])}; the request the server got "
                         "differs (tools, tool_choice, enable_thinking, kwargs) or its template does.")
        return prompt, output
    if text.startswith(generation_prompt):
        return generation_prompt, text[len(generation_prompt):]
    notes.append("The dump does not start with this request's generation prompt "
                 f"({json.dumps(generation_prompt[-40:])}): the server's request or template differs, and where its "
                 "output starts is not known; the whole dump is taken as the output.")
    return "", text


def _output_from_tail(failure: LogFailure, generation_prompt: str, notes: list[str]) -> str | None:
    """The whole output when the tail holds it: the parse stopped in (or at the end of) the
    generation prompt, or at pos 0 of an older build."""
    tail = failure.tail
    if tail is None or failure.tail_cut:
        return None
    if failure.kind == "failed-at-pos" and failure.number == 0:
        notes.append("The error is at pos 0, so its text is the whole output.")
        return tail
    if failure.kind != "unparsed":
        return None
    if tail.startswith(generation_prompt):
        notes.append("The warning's text starts with the whole generation prompt: the parse stopped before it, so "
                     "the text holds the whole output.")
        return tail[len(generation_prompt):]
    for k in range(min(len(generation_prompt), len(tail)), 0, -1):
        if generation_prompt.endswith(tail[:k]):
            rest = tail[k:]
            if not rest:
                # "<think>" after a prompt that ends with "<think>": the parse stopped in the prompt and the output
                # is empty, or the output ends with that text (a trailing tag) and the log holds nothing before it
                notes.append(f"The warning's text {json.dumps(tail)} fits two outputs: an empty output (the parse "
                             "stopped in the generation prompt, which ends with the same text), or an output that "
                             "ends with it (a trailing tag after the reply, as llama.cpp issue #27733 reports) of "
                             "which the log holds nothing more.")
                return None
            notes.append(f"The warning's text starts like the end of the generation prompt ({json.dumps(tail[:k])}): "
                         "read as a parse that stopped before the output, the text is the whole output, and that is "
                         "the output diagnosed. It also fits an output that ends with this text, of which the log "
                         "holds nothing before it: give the output if that is the case.")
            return rest
    return None


def _differs_at(a: str, b: str) -> int:
    n = min(len(a), len(b))
    return next((i for i in range(n) if a[i] != b[i]), n)


def locate(log: ServerLog, generation_prompt: str, output: str | None = None) -> LogReading:
    """The log's failure placed in the model output (the log's, or ``output``)."""
    failure = log.failure
    dump = log.dump_for(failure)
    notes: list[str] = []
    if len([f for f in log.failures if f.kind != "mismatch"]) > 1:
        notes.append(f"The log records {len(log.failures)} parse failures; the last one is read.")
    prompt = generation_prompt
    source: Literal["log dump", "log tail", "given", ""] = ""
    text: str | None = None
    if dump is not None:
        prompt, text = _output_from_dump(dump, generation_prompt, output, notes)
        source = "log dump"
        if output is not None and output != text:
            at = _differs_at(output, text)
            notes.append(f"The output you gave differs from the log's from output character {at} on; the log's is "
                         "diagnosed (it is what llama.cpp parsed).")
    elif output is not None:
        text, source = output, "given"
        if failure is not None and failure.tail is not None:
            notes.append("The log holds only the text from where the parse stopped, not the whole output; it is "
                         "located in the output you gave.")
    elif failure is not None:
        text = _output_from_tail(failure, generation_prompt, notes)
        source = "log tail" if text is not None else ""
    if text is None:
        problem = ("The log holds no model output" if failure is None else
                   "The log's text fits more than one output" if any("fits two outputs" in n for n in notes) else
                   "The log holds only part of its record (the error body is cut short)" if failure.tail_cut else
                   "The log holds only the text from where the parse stopped, not the whole output")
        return LogReading(log, failure, dump, None, "", prompt, notes=tuple(notes),
                          problem=f"{problem}: give the output too (--output-file), or paste the verbose log "
                                  f"({VERBOSE_HINT}).")
    reading = LogReading(log, failure, dump, text, source, prompt, notes=tuple(notes))
    if failure is None:
        return _with(reading, notes, "The log records no parse failure.")
    return _placed(reading, failure, notes)


def _with(reading: LogReading, notes: list[str], note: str = "") -> LogReading:
    return replace(reading, notes=tuple(notes + ([note] if note else [])))


def _placed(reading: LogReading, failure: LogFailure, notes: list[str]) -> LogReading:
    assert reading.output is not None
    output, prompt = reading.output, reading.prompt
    effective = prompt + output
    prompt_bytes = len(_bytes(prompt))
    offset: int | None = None
    counts: Counts | None = None
    exact = True
    if failure.kind == "unparsed" and failure.tail_cut:
        at = effective.rfind(failure.tail or "") if failure.tail else -1
        if at < 0:
            return _with(reading, notes, "The warning's text, which the log cut short, is not in this generation "
                                         "prompt + output: the log is about another output.")
        notes.append("The log cut the warning's text short; where its start is in this output is read.")
        offset, exact, counts = len(_bytes(effective[:at])), False, "prompt+output"
    elif failure.kind == "unparsed":
        found = _suffix_offset(effective, failure.tail or "")
        if found is None:
            return _with(reading, notes, "The warning's text is not the end of this generation prompt + output: the "
                                         "log is about another output.")
        offset, exact, cut = found
        counts = "prompt+output"
        if cut:
            notes.append("The warning's text runs on in the log past what fits this output; the part that fits is "
                         "read.")
    elif failure.kind == "explorer-offset":
        offset, counts = failure.number, "prompt+output"
    elif failure.kind == "failed-at-pos":
        assert failure.number is not None
        offset, counts, exact = _pos_coordinate(failure, output, prompt, notes)
    else:
        return _with(reading, notes, "The log says the parse failed, but not where (llama.cpp 0c1e5709's error "
                                     "prints no position; its warning \"unparsed … output:\" just before it does).")
    assert offset is not None
    if counts == "output":
        offset += prompt_bytes  # one coordinate from here on: bytes into prompt + output
    out_byte = offset - prompt_bytes
    if out_byte > len(_bytes(output)):
        return replace(_with(reading, notes, f"The log's position lies past the end of this output "
                                             f"({len(_bytes(output))} bytes): the log is about another output."),
                       counts=counts)
    char, boundary = char_at_byte(output, out_byte) if out_byte >= 0 else (0, True)
    if not boundary:
        notes.append("The log's byte falls inside a multi-byte character; the character holding it is shown.")
    return replace(_with(reading, notes), offset=offset, counts=counts, char=char, in_prompt=out_byte < 0,
                   exact=exact and boundary)


def _pos_coordinate(failure: LogFailure, output: str, prompt: str, notes: list[str]) -> tuple[int, Counts, bool]:
    """Which text an older build's "pos N" counts: its own text after the number says."""
    n = failure.number
    assert n is not None
    if failure.tail is None:
        notes.append("The error prints no text after the position; pos counts bytes of the output alone (the builds "
                     "that wrote it parsed the output without the generation prompt).")
        return n, "output", True
    readings: tuple[tuple[str, Counts], ...] = ((output, "output"), (prompt + output, "prompt+output"))
    fits: list[tuple[Counts, bool]] = []
    for text, counts in readings:
        exact: bool | None
        if failure.tail_cut:  # the log cut the text short: what it holds starts there
            exact = False if failure.tail and _bytes(text)[n:].startswith(_bytes(failure.tail)) else None
        else:
            exact = _text_at(_bytes(text), n, failure.tail)
        if exact is not None:
            fits.append((counts, exact))
    if len(fits) > 1 and prompt:
        notes.append(f"pos {n} fits both readings: bytes of the output alone (older builds' count) and bytes of "
                     "generation prompt + output; the output's reading is used, as the builds that print pos "
                     "counted it.")
    if fits:
        counts, exact = fits[0]
        if counts == "prompt+output" and prompt:
            notes.append("This build counted pos in generation prompt + output (its text after the number is "
                         "what follows that many bytes of both).")
        return n, counts, exact
    notes.append("The error's text after the position is not what this output has there; pos is read as bytes "
                 "of the output alone.")
    return n, "output", False
