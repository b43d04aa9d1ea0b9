"""The built driver as a Python object: one process, many requests, JSON lines between.

Input: the driver's path (``explorer.llama_cpp.build``), then template texts, requests
(``explorer.apply.Request``), parser settings and model outputs. Output: what llama.cpp's
own library answered, in the oracle's field names: ``DriverTemplate`` (caps, patched source,
thinking support), chat params, parsed messages, streaming steps, the analysis; each call's
C++ exception as a ``CppException`` value, never raised. ``LlamaCppDriverError`` only when
the process itself fails (missing, died, hung, off-protocol); the next call starts it again.

``driver_at(path)`` keeps one process per path and per Python process (a pytest-xdist
worker, the app's server), so every caller shares it; calls are serialised by a lock.
``configured_driver()`` is the one the environment names (``TEMPLATE_EXPLORER_LLAMA_CPP_DRIVER``).
"""

from __future__ import annotations

import atexit
import calendar
import json
import os
import selectors
import subprocess
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from explorer.apply import Request
from explorer.errors import LlamaCppDriverError
from explorer.jsontypes import Json, JsonObject
from explorer.render import FIXED_CLOCK

DRIVER_ENV = "TEMPLATE_EXPLORER_LLAMA_CPP_DRIVER"
CALL_TIMEOUT_S = 120.0  # one request; llama.cpp's own analysis of a large template takes < 1 s
TEMPLATE_LIMIT = 64  # initialised templates kept in one process
# the clock templates read (strftime_now, date_string): the port's fixed date, in UTC
NOW_EPOCH = calendar.timegm(FIXED_CLOCK.timetuple())


@dataclass(frozen=True)
class CppException:
    """An exception llama.cpp's library threw: its C++ type and ``what()``."""

    type: str
    message: str

    def to_json(self) -> JsonObject:
        return {"type": self.type, "message": self.message}

    def __str__(self) -> str:
        return f"{self.type}: {self.message}"


@dataclass(frozen=True)
class DriverInfo:
    path: Path
    commit: str
    build_number: int
    analysis: bool  # the driver exposes the autoparser's analysis

    @property
    def label(self) -> str:
        """The build's name as ``llama.cpp (build LABEL)`` shows it."""
        if self.build_number and self.commit not in ("", "unknown"):
            return f"b{self.build_number}-{self.commit}"
        return self.commit if self.commit not in ("", "unknown") else f"at {self.path}"


@dataclass(frozen=True)
class DriverTemplate:
    """``common_chat_templates_init`` of a template text."""

    source: str  # after llama.cpp's init-time patches
    caps: dict[str, bool]  # common_chat_templates_get_caps
    # common_chat_templates_support_enable_thinking (it applies a request, which may throw)
    supports_enable_thinking: bool | CppException


@dataclass(frozen=True)
class Timed:
    """A value (or the exception thrown instead) and the library call's own time."""

    value: JsonObject | CppException
    us: int = 0


@dataclass(frozen=True)
class StreamRun:
    """llama-server's streaming: every UTF-8 prefix parsed with is_partial=true."""

    final: JsonObject | CppException
    steps: tuple[JsonObject | CppException, ...]
    prefixes: int
    us: int


@dataclass(frozen=True)
class AnalysisRun:
    """The autoparser's ``analyze_template`` (oracle shape) and llama.cpp's own router."""

    autoparser: JsonObject | CppException
    specialized: bool | None
    us: int


def request_json(request: Request) -> JsonObject:
    """The request as the driver reads it (llama-server's field names)."""
    return {
        "messages": [dict(m) for m in request.messages],
        "tools": [dict(t) for t in request.tools] if request.tools is not None else None,
        "tool_choice": request.tool_choice,
        "parallel_tool_calls": request.parallel_tool_calls,
        "enable_thinking": request.enable_thinking,
        "reasoning_format": request.reasoning_format,
        "chat_template_kwargs": dict(request.chat_template_kwargs),
        "add_generation_prompt": request.add_generation_prompt,
        "json_schema": dict(request.json_schema) if request.json_schema is not None else None,
        "continue_final_message": request.continue_final_message,
        "force_pure_content": request.force_pure_content,
        "now": NOW_EPOCH,
    }


def parser_settings(params: Mapping[str, object]) -> JsonObject:
    """What ``common_chat_parse`` reads of a request's chat params (llama-server's parser
    params: reasoning deepseek, tool calls parsed, reasoning not inlined)."""
    return {"format": str(params.get("format", "peg-native")),
            "generation_prompt": str(params.get("generation_prompt", "")),
            "parser": str(params.get("parser", "")), "reasoning_format": "deepseek",
            "parse_tool_calls": True, "reasoning_in_content": False}


def _outcome(reply: JsonObject, key: str) -> JsonObject | CppException:
    exc = reply.get("exception")
    if isinstance(exc, dict):
        return CppException(str(exc.get("type", "")), str(exc.get("message", "")))
    value = reply.get(key)
    if not isinstance(value, dict):
        raise LlamaCppDriverError(f"the driver's reply has no {key!r} object")
    return value


class LlamaCppDriver:
    """One driver process (started on first use, again after it failed)."""

    def __init__(self, path: Path | str, *, timeout: float = CALL_TIMEOUT_S) -> None:
        self.path = Path(path)
        self.timeout = timeout
        self._lock = threading.RLock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None
        self._buffer = b""
        self._next_id = 0
        self._handles: OrderedDict[tuple[str, str, str], tuple[int, DriverTemplate | CppException]] = OrderedDict()
        self._info: DriverInfo | None = None

    # --- the process --------------------------------------------------------------------

    def _start(self) -> subprocess.Popen[bytes]:
        if not self.path.is_file() or not os.access(self.path, os.X_OK):
            raise LlamaCppDriverError(f"no llama.cpp driver at {self.path} (build one with `python -m explorer "
                                      "llama-cpp build`)", driver=str(self.path))
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - kept for the process's life, closed by close()
        env = {**os.environ, "TZ": "UTC", "LC_ALL": "C"}
        try:
            proc = subprocess.Popen([str(self.path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=self._stderr, env=env)
        except OSError as exc:
            raise LlamaCppDriverError(f"the llama.cpp driver at {self.path} does not start: {exc}",
                                      driver=str(self.path)) from None
        self._proc, self._buffer = proc, b""
        self._handles.clear()
        return proc

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        try:
            self._stderr.seek(0, os.SEEK_END)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - 2000))
            return self._stderr.read().decode("utf-8", errors="replace")
        except (OSError, ValueError):
            return ""

    def _fail(self, what: str) -> LlamaCppDriverError:
        tail = self._stderr_tail()
        self.close()
        detail = f"; it printed: {tail.strip()[-600:]}" if tail.strip() else ""
        return LlamaCppDriverError(f"the llama.cpp driver at {self.path} {what}{detail}", driver=str(self.path),
                                   stderr=tail)

    def _readline(self, proc: subprocess.Popen[bytes]) -> bytes:
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                if not sel.select(self.timeout):
                    raise self._fail(f"did not answer within {self.timeout:.0f} s (stopped)")
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    code = proc.wait(timeout=5)
                    raise self._fail(f"exited (code {code}) before answering")
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def call(self, op: str, **fields: Json) -> JsonObject:
        """One request; the reply's fields (``ok`` true), or the driver's own error raised
        as ``LlamaCppDriverError`` (a library exception comes back as a value instead)."""
        with self._lock:
            proc = self._proc if self._proc is not None and self._proc.poll() is None else self._start()
            self._next_id += 1
            ident = self._next_id
            line = json.dumps({"id": ident, "op": op, "now": NOW_EPOCH, **fields}, ensure_ascii=False).encode("utf-8") + b"\n"
            assert proc.stdin is not None
            try:
                proc.stdin.write(line)
                proc.stdin.flush()
            except (BrokenPipeError, OSError):
                raise self._fail("closed its input") from None
            raw = self._readline(proc)
            try:
                reply = json.loads(raw.decode("utf-8", errors="replace"))
            except ValueError:
                raise self._fail(f"answered what is not JSON: {raw[:200]!r}") from None
            if not isinstance(reply, dict) or reply.get("id") != ident:
                raise self._fail(f"answered off-protocol: {raw[:200]!r}")
            if not reply.get("ok"):
                error = reply.get("error")
                err = error if isinstance(error, dict) else {}
                if err.get("type") == "driver":
                    raise LlamaCppDriverError(f"the llama.cpp driver refused {op}: {err.get('message')}",
                                              driver=str(self.path))
                reply["exception"] = {"type": str(err.get("type", "")), "message": str(err.get("message", ""))}
            return reply

    def close(self) -> None:
        with self._lock:
            proc, self._proc = self._proc, None
            if proc is not None:
                try:
                    if proc.poll() is None and proc.stdin is not None:
                        proc.stdin.close()
                        proc.wait(timeout=2)
                except (OSError, subprocess.TimeoutExpired):
                    pass
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
                for stream in (proc.stdout, proc.stdin):
                    if stream is not None:
                        try:
                            stream.close()
                        except OSError:
                            pass
            if self._stderr is not None:
                self._stderr.close()
                self._stderr = None
            self._handles.clear()

    # --- llama.cpp's calls ----------------------------------------------------------------

    @property
    def info(self) -> DriverInfo:
        if self._info is None:
            reply = self.call("hello")
            number = reply.get("build_number")
            self._info = DriverInfo(self.path, str(reply.get("commit", "")),
                                    number if isinstance(number, int) else 0, bool(reply.get("analysis")))
        return self._info

    def _handle(self, text: str, bos: str, eos: str) -> tuple[int, DriverTemplate | CppException]:
        key = (text, bos, eos)
        with self._lock:
            known = self._handles.get(key)
            if known is not None and self._proc is not None and self._proc.poll() is None:
                self._handles.move_to_end(key)
                return known
            reply = self.call("init", template=text, bos_token=bos, eos_token=eos)
            handle = reply.get("handle")
            made: DriverTemplate | CppException
            if "exception" in reply:
                made = CppException(**_strs(reply["exception"]))
            else:
                caps = reply.get("caps")
                thinking = reply.get("supports_enable_thinking_exception")
                made = DriverTemplate(str(reply.get("source", "")),
                                      {str(k): bool(v) for k, v in caps.items()} if isinstance(caps, dict) else {},
                                      CppException(**_strs(thinking)) if isinstance(thinking, dict)
                                      else bool(reply.get("supports_enable_thinking")))
            entry = (handle if isinstance(handle, int) else -1, made)
            self._handles[key] = entry
            while len(self._handles) > TEMPLATE_LIMIT:
                _old_key, (old_handle, _old) = self._handles.popitem(last=False)
                if old_handle >= 0:
                    self.call("forget", handle=old_handle)
            return entry

    def template(self, text: str, *, bos: str = "", eos: str = "") -> DriverTemplate | CppException:
        """``common_chat_templates_init`` (with BOS/EOS given, no model)."""
        return self._handle(text, bos, eos)[1]

    def apply(self, text: str, request: Request) -> Timed:
        """``common_chat_templates_apply``: the chat params in the oracle's ``apply`` shape."""
        with self._lock:
            handle, made = self._handle(text, request.bos_token, request.eos_token)
            if isinstance(made, CppException):
                return Timed(made)
            reply = self.call("apply", handle=handle, request=request_json(request))
        return Timed(_outcome(reply, "params"), _int(reply.get("us")))

    def parse(self, params: Mapping[str, object], output: str, *, partial: bool = False) -> Timed:
        """``common_chat_parse`` of ``output`` with the params' parser: the message in the
        oracle's ``result`` shape."""
        reply = self.call("parse", input=output, is_partial=partial, **parser_settings(params))
        return Timed(_outcome(reply, "result"), _int(reply.get("us")))

    def stream(self, params: Mapping[str, object], output: str, *, steps: bool = True) -> StreamRun:
        reply = self.call("stream", input=output, steps=steps, **parser_settings(params))
        if "exception" in reply:
            exc = CppException(**_strs(reply["exception"]))
            return StreamRun(exc, (), 0, 0)
        final = reply.get("final")
        raw_steps = reply.get("steps")
        return StreamRun(_outcome(final, "result") if isinstance(final, dict) else CppException("driver", "no final"),
                         tuple(_outcome(s, "result") for s in raw_steps if isinstance(s, dict))
                         if isinstance(raw_steps, list) else (),
                         _int(reply.get("prefixes")), _int(reply.get("us")))

    def analyze(self, text: str, *, tools: list[Json] | None = None) -> AnalysisRun:
        """The autoparser's analysis of the template as llama.cpp initialised it, and whether
        llama.cpp's router sends it to a specialised handler."""
        with self._lock:
            handle, made = self._handle(text, "", "")
            if isinstance(made, CppException):
                return AnalysisRun(made, None, 0)
            extra: dict[str, Json] = {"tools": tools} if tools is not None else {}
            reply = self.call("analyze", handle=handle, **extra)
        if "exception" in reply:
            return AnalysisRun(CppException(**_strs(reply["exception"])), None, 0)
        exc = reply.get("autoparser_exception")
        analysis: JsonObject | CppException
        if isinstance(exc, dict):
            analysis = CppException(**_strs(exc))
        else:
            value = reply.get("autoparser")
            analysis = value if isinstance(value, dict) else CppException("driver", "no analysis in the reply")
        specialized = reply.get("specialized")
        return AnalysisRun(analysis, specialized if isinstance(specialized, bool) else None, _int(reply.get("us")))


def _int(value: Json) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _strs(value: Json) -> dict[str, str]:
    data = value if isinstance(value, dict) else {}
    return {"type": str(data.get("type", "")), "message": str(data.get("message", ""))}


_DRIVERS: dict[tuple[str, int], LlamaCppDriver] = {}
_DRIVERS_LOCK = threading.Lock()


def driver_at(path: Path | str) -> LlamaCppDriver:
    """The shared driver process for ``path`` in this Python process."""
    key = (str(Path(path).resolve()), os.getpid())
    with _DRIVERS_LOCK:
        driver = _DRIVERS.get(key)
        if driver is None:
            driver = _DRIVERS[key] = LlamaCppDriver(path)
        return driver


def configured_driver_path() -> Path | None:
    """The driver the environment names (``TEMPLATE_EXPLORER_LLAMA_CPP_DRIVER``), if any."""
    named = os.environ.get(DRIVER_ENV, "").strip()
    return Path(named) if named else None


def configured_driver() -> LlamaCppDriver | None:
    path = configured_driver_path()
    return driver_at(path) if path is not None else None


@atexit.register
def _close_all() -> None:
    for driver in list(_DRIVERS.values()):
        driver.close()
