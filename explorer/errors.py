"""The one error hierarchy of the explorer.

Input: whatever went wrong in a stage. Output: an exception whose message says what was
expected, what was found, and where (template line, byte offset, probe name). Every
stage raises only these (or subclasses), so the CLI and the app can show a clean,
located message instead of a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from explorer.analysis.probes import Probe


@dataclass(frozen=True)
class Location:
    """Where an error happened: a template line, a file offset, or a probe."""

    line: int | None = None
    source_line: str | None = None
    offset: int | None = None
    probe: str | None = None

    def describe(self) -> str:
        parts: list[str] = []
        if self.probe:
            parts.append(f"probe {self.probe}")
        if self.line is not None:
            parts.append(f"line {self.line}")
        if self.offset is not None:
            parts.append(f"offset {self.offset}")
        text = ", ".join(parts)
        if self.source_line is not None:
            text += f": {self.source_line.strip()[:200]}"
        return text


class ExplorerError(Exception):
    """Base of every error the explorer raises on bad input.

    ``message`` says what was expected and what was found; ``location`` where.
    """

    kind = "error"
    message: str
    location: Location | None

    def __init__(self, message: str, location: Location | None = None) -> None:
        self.message = message
        self.location = location
        super().__init__(self._format())

    def _format(self) -> str:
        if self.location is None:
            return self.message
        where = self.location.describe()
        return f"{self.message} ({where})" if where else self.message


# --- sources -----------------------------------------------------------------


class SourceError(ExplorerError):
    """A template source could not be read: bad file, bad JSON, missing template."""

    kind = "source"


class GGUFError(SourceError):
    """A GGUF header is malformed, truncated before the template, or absurd."""

    kind = "gguf"


class FetchError(SourceError):
    """A Hugging Face Hub fetch failed: invalid id, missing or gated repo, too large."""

    kind = "fetch"


# --- templates ---------------------------------------------------------------


class TemplateError(ExplorerError):
    """A template could not be compiled or rendered."""

    kind = "template"


class TemplateSyntaxError(TemplateError):
    """The template text is not valid Jinja."""

    kind = "syntax"


class TemplateRuntimeError(TemplateError):
    """The template failed while rendering (undefined value, type error...)."""

    kind = "runtime"


class TemplateRaisedError(TemplateRuntimeError):
    """The template called ``raise_exception`` itself; the message is its own."""

    kind = "raise_exception"


class RenderLimitError(TemplateError):
    """Rendering exceeded a budget: wall time, output size, or recursion depth."""

    kind = "limit"


class SandboxViolation(TemplateError):
    """The template tried to reach something the sandbox forbids."""

    kind = "sandbox"


# --- later stages ------------------------------------------------------------


class AnalysisError(ExplorerError):
    """The differential analysis could not run (not for silent probe failures).

    ``probes``: the trace of every probe up to the throw (llama.cpp throws out of
    ``analyze_template``; the explorer keeps what it saw on the way).
    """

    kind = "analysis"
    probes: tuple[Probe, ...]

    def __init__(self, message: str, location: Location | None = None, probes: tuple[Probe, ...] = ()) -> None:
        super().__init__(message, location)
        self.probes = probes


class OverrideError(ExplorerError):
    """An analysis override (``--set FIELD=VALUE``) names no field, or gives a value of the
    wrong type. ``field``: the name as given."""

    kind = "override"
    field: str

    def __init__(self, message: str, location: Location | None = None, field: str = "") -> None:
        super().__init__(message, location)
        self.field = field


class PegError(ExplorerError):
    """A serialized PEG parser is malformed or uses an unknown parser kind."""

    kind = "peg"


class OutputParseError(ExplorerError):
    """Model output does not match the expected format (llama.cpp's runtime_error).

    ``cpp_type``: the C++ exception type llama.cpp throws for it (the oracle's
    ``exception.type``).
    """

    kind = "output"
    cpp_type: str

    def __init__(self, message: str, location: Location | None = None,
                 cpp_type: str = "std::runtime_error") -> None:
        super().__init__(message, location)
        self.cpp_type = cpp_type


def exception_json(exc: BaseException) -> dict[str, str]:
    """The oracle's ``exception`` shape of an error: the C++ type llama.cpp throws and the
    message. A parse error gives its ``cpp_type`` and bare message (llama.cpp's text has
    no location); any other error its class name and whole text."""
    if isinstance(exc, OutputParseError):
        return {"type": exc.cpp_type, "message": exc.message}
    return {"type": type(exc).__name__, "message": str(exc)}


class GrammarError(ExplorerError):
    """A GBNF grammar could not be built or checked."""

    kind = "grammar"


class RequestError(ExplorerError):
    """A chat request is malformed the way llama.cpp rejects it (bad messages, tool-call
    arguments that are not JSON, an unknown tool_choice)."""

    kind = "request"


class ClusterError(ExplorerError):
    """A Dask cluster cannot run the doctor: no worker joined, or its workers cannot import
    the explorer (the message says how to give it to them)."""

    kind = "cluster"


# --- the real llama.cpp beside the port ----------------------------------------


class LlamaCppError(ExplorerError):
    """The real llama.cpp (the driver built from its source) could not be built or run."""

    kind = "llama.cpp"


class LlamaCppBuildError(LlamaCppError):
    """The driver could not be built: a tool is missing (``tool``, and ``package``, the
    Debian package that gives it), the source is not a llama.cpp tree (``source``), or the
    compiler failed (``log``: the end of the build's output)."""

    kind = "llama.cpp build"
    tool: str
    package: str
    source: str
    log: str

    def __init__(self, message: str, location: Location | None = None, *, tool: str = "", package: str = "",
                 source: str = "", log: str = "") -> None:
        super().__init__(message, location)
        self.tool, self.package, self.source, self.log = tool, package, source, log


class LlamaCppDriverError(LlamaCppError):
    """The driver process failed: it is not there, it died, or it answered what is not its
    protocol. ``driver``: its path; ``stderr``: the end of what it printed."""

    kind = "llama.cpp driver"
    driver: str
    stderr: str

    def __init__(self, message: str, location: Location | None = None, *, driver: str = "",
                 stderr: str = "") -> None:
        super().__init__(message, location)
        self.driver, self.stderr = driver, stderr
