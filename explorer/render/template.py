"""Rendering: the one place chat templates are rendered.

Input: template text (compiled once into a ``CompiledTemplate``) and ``RenderInputs``
(messages, tools, flags, extra context). Output: the rendered string, or a
``TemplateError`` subclass that quotes the template line and, for ``raise_exception``,
the template's own message.

Two dialects share the jinja2 parser and the Hugging Face transformers environment
(sandbox, trim_blocks, lstrip_blocks, loopcontrols, ``generation`` blocks):
``"llama.cpp"`` (default) reproduces llama.cpp's own Jinja engine and the context its
``common_chat_template_direct_apply_impl`` builds; ``"transformers"`` is plain jinja2 with
the context ``apply_chat_template`` builds (explorer.render.transformers_context). The differences are listed in docs/jinja-differences.md.

Every render runs under ``RenderLimits``: a wall-time budget, an output/string size cap, a
call-depth cap and a range-size cap, checked cooperatively by the sandbox hooks.
"""

from __future__ import annotations

import gc
import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, NoReturn, TypeVar

import jinja2
import jinja2.nodes
import jinja2.parser
from jinja2.sandbox import SecurityError

from explorer.errors import (
    ExplorerError,
    Location,
    RenderLimitError,
    SandboxViolation,
    TemplateRaisedError,
    TemplateRuntimeError,
    TemplateSyntaxError,
)
from explorer.memo import Memo
from explorer.render.jinja_compat import TemplateRaised, compile_ast, environment
from explorer.render.jinja_compat_llama import LlamaError
from explorer.render.jinja_compat_state import RenderState, activate, deactivate
from explorer.render.provenance_codegen import ProvenanceTemplate, compile_provenance
from explorer.render.transformers_context import transformers_context
from explorer.render.transformers_env import strftime_now_for

T = TypeVar("T")

Dialect = Literal["llama.cpp", "transformers"]

FIXED_CLOCK = datetime(2026, 11, 29, 12, 0, 0)


def fixed_clock() -> datetime:
    """The reproducible default clock: the oracle's run date."""
    return FIXED_CLOCK


@dataclass(frozen=True)
class RenderLimits:
    """Budgets of one render; exceeding any raises ``RenderLimitError``.

    ``max_output_chars`` caps the output and every single string or list the template
    builds; ``max_total_chars`` caps the sum of all strings it builds (a template that
    keeps many medium strings would otherwise fill memory inside the time budget).
    """

    wall_seconds: float = 2.0
    max_output_chars: int = 2_000_000
    max_call_depth: int = 100
    max_range_items: int = 1_000_000
    max_total_chars: int = 100_000_000


@dataclass(frozen=True)
class RenderInputs:
    """What the caller passes to a template; each dialect's context rules make the
    template's variables of it (``build_context``).

    ``enable_thinking`` None is "not passed": the llama.cpp dialect passes llama.cpp's
    default (true) anyway, the transformers dialect leaves the variable undefined, as
    ``apply_chat_template`` does without the keyword. ``documents`` is transformers'
    argument (llama.cpp never passes it).
    """

    messages: tuple[Any, ...] | list[Any] = ()
    tools: tuple[Any, ...] | list[Any] | None = None
    add_generation_prompt: bool = False
    enable_thinking: bool | None = None
    bos_token: str = ""
    eos_token: str = ""
    extra_context: dict[str, Any] | None = None
    documents: tuple[Any, ...] | list[Any] | None = None


@dataclass(frozen=True, eq=False)
class CompiledTemplate:
    """A template compiled once; ``render`` reuses the compiled jinja2 code."""

    source: str
    sha256: str
    dialect: Dialect
    template: jinja2.Template = field(repr=False)
    _variants: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def may_mutate_inputs(self) -> bool:
        """Whether a render could change its input lists (llama.cpp allows append/pop)."""
        return bool(getattr(self.template, "jx_mutates_inputs", True))

    def stats_template(self) -> jinja2.Template:
        """The llama.cpp build that records input usage (for capability detection)."""
        cached = self._variants.get("stats")
        if cached is None:
            cached = _compile(self.source, "llama.cpp", stats=True)
            self._variants["stats"] = cached
        return cached

    def provenance_template(self) -> ProvenanceTemplate:
        """The build that tags each piece of output with the template line that wrote it
        (explorer.render.provenance); compiled on first use, never by ``render``."""
        cached = self._variants.get("provenance")
        if cached is None:
            cached = compile_provenance(self.source, self.dialect)
            self._variants["provenance"] = cached
        return cached


def _compile(text: str, dialect: str, *, stats: bool = False) -> jinja2.Template:
    env = environment(dialect, stats)
    try:
        return compile_ast(env, text, stats=stats)
    except jinja2.TemplateSyntaxError as exc:
        where: Location | None = Location(line=exc.lineno, source_line=_line(text, exc.lineno))
        raise TemplateSyntaxError(f"template syntax error: {exc.message}", where) from None
    except RecursionError as exc:
        lineno = _compile_lineno(exc)
        where = Location(line=lineno, source_line=_line(text, lineno)) if lineno else None
        raise TemplateSyntaxError("template nests too deeply to compile", where) from None


def _compile_lineno(exc: BaseException) -> int | None:
    """The template line jinja2 was parsing or compiling when ``exc`` was raised: the
    deepest parser (its current token) or syntax-tree node found in the traceback."""
    lineno = None
    tb = exc.__traceback__
    while tb is not None:
        local = tb.tb_frame.f_locals
        owner, node = local.get("self"), local.get("node")
        if isinstance(owner, jinja2.parser.Parser):
            lineno = owner.stream.current.lineno
        elif isinstance(node, jinja2.nodes.Node) and getattr(node, "lineno", None):
            lineno = node.lineno
        tb = tb.tb_next
    return lineno


def compile_template(text: str, dialect: Dialect = "llama.cpp") -> CompiledTemplate:
    """Compile template text (raises ``TemplateSyntaxError`` with the offending line).

    Compiled templates are immutable and shared: the same text and dialect compile once.
    """
    return _COMPILED.get((text, dialect), lambda: _compiled(text, dialect))


def _compiled(text: str, dialect: Dialect) -> CompiledTemplate:
    sha = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return CompiledTemplate(source=text, sha256=sha, dialect=dialect, template=_compile(text, dialect))


COMPILE_LIMIT = 64  # compiled templates kept (see explorer.memo for MEMO_SCALE)
_COMPILED: Memo[CompiledTemplate] = Memo(size=COMPILE_LIMIT)


def chat_extra_context(clock: Callable[[], datetime] = fixed_clock) -> dict[str, str]:
    """The ``datetime`` and ``date_string`` variables llama.cpp's chat layer always adds."""
    now = clock()
    return {"datetime": now.strftime("%b %d %Y"), "date_string": now.strftime("%d %b %Y")}


def default_clock(dialect: Dialect) -> Callable[[], datetime]:
    """The clock ``strftime_now`` reads when the caller fixes none: the real one in the
    transformers dialect (``datetime.now``, as transformers), the oracle's run date in the
    llama.cpp dialect (so that renders compare with llama.cpp's recorded outputs)."""
    return datetime.now if dialect == "transformers" else fixed_clock


def build_context(
    inputs: RenderInputs, dialect: Dialect, clock: Callable[[], datetime] | None = None, *, copy: bool = True
) -> dict[str, Any]:
    """The template variables, exactly as the dialect's caller passes them.

    ``copy=False`` shares the caller's lists and dicts (only safe for templates that
    cannot mutate them, see ``CompiledTemplate.may_mutate_inputs``). ``clock`` None: the
    dialect's ``default_clock``.
    """
    clock = clock or default_clock(dialect)
    if dialect == "transformers":
        ctx = transformers_context(inputs)
        ctx.setdefault("strftime_now", strftime_now_for(clock))
        return ctx
    _copy = _deep_copy if copy else _shallow
    ctx = {
        "messages": _copy(list(inputs.messages)),
        "bos_token": inputs.bos_token,
        "eos_token": inputs.eos_token,
        "enable_thinking": True if inputs.enable_thinking is None else inputs.enable_thinking,
    }
    if inputs.tools:
        ctx["tools"] = _copy(list(inputs.tools))
    ctx.update(_copy(inputs.extra_context or {}))
    if inputs.add_generation_prompt:
        ctx["add_generation_prompt"] = True
    apply_reasoning_switches(ctx)
    ctx.setdefault("strftime_now", _strftime(clock))
    return ctx


def apply_reasoning_switches(ctx: dict[str, Any]) -> None:
    """llama.cpp's caps_apply_preserve_reasoning / caps_apply_reasoning_effort aliases.

    llama.cpp sets the aliases on the context first and then loads the request's inputs over
    them (chat.cpp: caps_apply_* before global_from_json), so a name the inputs already give,
    e.g. an explicit ``drop_thinking`` in chat_template_kwargs, keeps its own value.
    """
    preserve = ctx.get("preserve_reasoning")
    if isinstance(preserve, bool):
        ctx.setdefault("preserve_thinking", preserve)
        for name in ("clear_thinking", "truncate_history_thinking", "drop_thinking"):
            ctx.setdefault(name, not preserve)
    effort = ctx.get("reasoning_effort")
    if isinstance(effort, str) and effort:
        ctx.setdefault("reasoning_strength", effort)


def _strftime(clock: Callable[[], datetime]) -> Callable[[str], str]:
    def strftime_now(fmt: Any = None) -> str:
        if not isinstance(fmt, str):
            raise TemplateRuntimeError("strftime_now expects a format string")
        return clock().strftime(fmt)

    return strftime_now


def _deep_copy(value: Any) -> Any:
    """A private copy of JSON-like input (templates may append to lists they are given)."""
    if isinstance(value, dict):
        return {k: _deep_copy(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_deep_copy(v) for v in value]
    return value


def _shallow(value: Any) -> Any:
    return value


def render(
    tmpl: CompiledTemplate,
    inputs: RenderInputs,
    *,
    limits: RenderLimits = RenderLimits(),
    clock: Callable[[], datetime] | None = None,
) -> str:
    """Render ``inputs`` with the template's dialect, within ``limits``; ``clock`` None:
    the dialect's ``default_clock``."""
    ctx = build_context(inputs, tmpl.dialect, clock, copy=tmpl.may_mutate_inputs)
    return render_context(tmpl.template, tmpl.source, ctx, limits=limits)


def render_context(
    template: jinja2.Template, source: str, ctx: dict[str, Any], *, limits: RenderLimits = RenderLimits()
) -> str:
    """Render a ready-made context (used by capability probes and advanced callers)."""
    return render_chunks(template, source, ctx, "".join, limits=limits)


def render_chunks(
    template: jinja2.Template, source: str, ctx: dict[str, Any], finish: Callable[[list[str]], T], *,
    limits: RenderLimits = RenderLimits(),
) -> T:
    """The render loop every render runs (``render_context``'s, and the provenance
    render's): the template's chunks within ``limits`` (wall time, output cap), then
    ``finish(chunks)`` (the text, or the text with its spans), any failure of either a
    located ``ExplorerError``."""
    state = RenderState(
        deadline=time.monotonic() + limits.wall_seconds,
        wall_seconds=limits.wall_seconds,
        max_chars=limits.max_output_chars,
        max_depth=limits.max_call_depth,
        max_range=limits.max_range_items,
        max_allocated=limits.max_total_chars,
    )
    token = activate(state)
    error: ExplorerError | None = None
    try:
        parts: list[str] = []
        append, cap = parts.append, limits.max_output_chars
        total = 0
        # the template's own generator (Template.generate's wrapper costs a frame per chunk);
        # a failure's traceback is rewritten to template lines below, as generate does
        chunks = template.root_render_func(template.new_context(ctx))
        try:
            for chunk in chunks:
                total += len(chunk)
                if total > cap:
                    _raise_in_template(chunks, RenderLimitError(f"output passed the {cap:,} character cap"))
                append(chunk)
                if not len(parts) & 255:
                    state.check_time()
        except Exception:  # noqa: BLE001 - re-raised with the template's line numbers
            template.environment.handle_exception()
        return finish(parts)
    except Exception as exc:  # noqa: BLE001 - every failure becomes a located ExplorerError
        error = _translate(exc, source)
        exc.__traceback__ = None
    finally:
        deactivate(token)
    # Raised outside the handler and stripped of tracebacks and context: the template's
    # frames hold whatever it built (a runaway's 100 MB list), and callers keep errors
    # (probe traces), so a kept error must not keep those frames alive.
    error.__traceback__ = error.__context__ = error.__cause__ = None
    if isinstance(error, RenderLimitError):
        # A runaway's strings sit in frame/traceback cycles that only the cyclic
        # collector frees, and big strings do not advance its allocation counter.
        gc.collect()
    raise error


def _raise_in_template(chunks: Any, exc: ExplorerError) -> NoReturn:
    """Raise ``exc`` where the template is suspended, so that its traceback names the
    line that produced the last chunk (as for errors raised by the template itself)."""
    chunks.throw(exc)
    raise exc


def _translate(exc: BaseException, source: str) -> ExplorerError:
    lineno = _template_lineno(exc)
    where = Location(line=lineno, source_line=_line(source, lineno)) if lineno else None
    if isinstance(exc, TemplateRaised):
        return TemplateRaisedError(f"template raised an exception: {exc.message}", where)
    if isinstance(exc, ExplorerError):
        if exc.location is None and where is not None:
            return type(exc)(exc.message, where)
        return exc
    if isinstance(exc, SecurityError):
        return SandboxViolation(f"sandbox violation: {exc}", where)
    if isinstance(exc, RecursionError):
        return RenderLimitError("recursion too deep (runaway recursive macro?)", where)
    if isinstance(exc, MemoryError):
        return RenderLimitError("ran out of memory while rendering", where)
    detail = str(exc) or type(exc).__name__
    kind = "" if isinstance(exc, (jinja2.TemplateError, LlamaError)) else f"{type(exc).__name__}: "
    return TemplateRuntimeError(f"template error: {kind}{detail}", where)


def _template_lineno(exc: BaseException) -> int | None:
    lineno = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<template>":
            lineno = tb.tb_lineno
        tb = tb.tb_next
    return lineno


def _line(source: str, lineno: int | None) -> str | None:
    if not lineno:
        return None
    lines = source.split("\n")
    return lines[lineno - 1] if 0 < lineno <= len(lines) else None
