"""One typed session per template: what the pages and the CLI hold.

Input: template text (or a ``TemplateSource``) and a Jinja dialect. Output: a
``TemplateSession``: the compiled template llama.cpp renders (its init-time source
patches applied), the capabilities (detected once), the route, the autoparser analysis
with its probe trace and provenance, and one method per later stage, each keyed by the
request: ``params`` (llama.cpp's chat params, the PEG arena kept as an object),
``parse``, ``stream``, ``diagnose``, ``sample_reply``, ``roundtrip``,
``compare_routes`` and ``compare``.

``open_session`` keeps the newest ``SESSION_LIMIT`` sessions by (sha256, dialect). A
session whose capability probes the render budget cut short is made again after
``explorer.memo.PROVISIONAL_SECONDS``; inside a session, an analysis the budget cut
short, and everything built on it, is kept for that long only.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Literal, TypeVar, cast

from explorer.analysis import TemplateAnalysis, analyze_template
from explorer.apply import Request, apply_request, standard_request
from explorer.apply.prompt import AppliedPrompt, supports_enable_thinking
from explorer.apply.templates import ChatTemplates, init_templates
from explorer.caps import Caps, CapsProbe, detect_caps_trace
from explorer.chat_output import OutputParse, analyse_output
from explorer.comparison import FieldChange, compare_fields
from explorer.errors import AnalysisError, ExplorerError, GrammarError
from explorer.handlers.compare import RouteComparison, compare_routes
from explorer.handlers.pipeline import PURE_CONTENT, ChatParams, apply_autoparser, apply_template
from explorer.memo import Memo
from explorer.render import CompiledTemplate, Dialect
from explorer.roundtrip import DEFAULT_MESSAGES, DEFAULT_TOOLS, RoundTripReport, roundtrip_report
from explorer.roundtrip.run import LlamaSetting, render_end_marker, run_case
from explorer.routing import AUTOPARSER, Routing, route
from explorer.sources.model import TemplateSource, sha256_of
from explorer.streaming import StreamStep, char_chunks, stream
from explorer.triage import Diagnosis, diagnose
from explorer.triage.checks_grammar import build_failure

SESSION_LIMIT = 32  # sessions kept; each holds its template's analysis and a few parsers
PER_SESSION_LIMIT = 128  # params, parses, streams and round trips kept per session
USER_TURN: Mapping[str, str] = {"role": "user", "content": "Hello"}

ReplyKind = Literal["reply", "call", "reasoning+call"]
REPLY_KINDS: tuple[ReplyKind, ...] = ("reply", "call", "reasoning+call")

T = TypeVar("T")


def request_key(request: Request) -> str:
    """A request as a cache key: its fields as canonical JSON."""
    return json.dumps(asdict(request), sort_keys=True, ensure_ascii=False, default=str)


@dataclass(frozen=True)
class SessionComparison:
    """Two templates (or one template and its edited version) field by field."""

    fields: tuple[FieldChange, ...]  # route, caps, every analysis field (and params with a request)
    prompts: tuple[tuple[str, str, str], ...] = ()  # (what, A, B) for the standard request

    @property
    def changed(self) -> tuple[FieldChange, ...]:
        return tuple(c for c in self.fields if not c.same)


class TemplateSession:
    """Everything the explorer knows about one template in one dialect.

    Made by ``open_session``; the capabilities and the route are worked out on creation,
    the analysis when first asked for. All results are pure functions of the template
    text, the dialect and the request, and are remembered per request.
    """

    def __init__(self, text: str, dialect: Dialect = "llama.cpp") -> None:
        self.text = text
        self.sha256 = sha256_of(text)
        self.dialect: Dialect = dialect
        self.templates: ChatTemplates = init_templates(text, dialect=dialect)
        caps, trace = detect_caps_trace(self.compiled)
        self.caps: Caps = caps
        self.caps_trace: tuple[CapsProbe, ...] = trace
        self.routing: Routing = route(text, caps)
        self._memo: Memo[object] = Memo(size=PER_SESSION_LIMIT)

    # --- what the template is ----------------------------------------------------------

    @property
    def compiled(self) -> CompiledTemplate:
        """The default template as llama.cpp compiles it (patched, with its fallbacks)."""
        return self.templates.default

    @property
    def handler(self) -> str:
        """The route's handler name, as the oracle's ``routed.handler`` spells it."""
        return self.routing.handler

    @property
    def caps_cut_short(self) -> bool:
        return any(p.timed_out for p in self.caps_trace)

    @property
    def cut_short(self) -> bool:
        """Whether the render budget stopped a capability probe or an analysis probe."""
        if self.caps_cut_short:
            return True
        held = self._memo.peek(("analysis",))
        return isinstance(held, TemplateAnalysis) and held.cut_short

    def _remember(self, key: Hashable, make: Callable[[], T]) -> T:
        return cast(T, self._memo.get(key, make, provisional=lambda _made: self.cut_short))

    @property
    def analysis(self) -> TemplateAnalysis:
        """The autoparser's analysis with every probe's trace (raises ``AnalysisError``
        when llama.cpp's analysis throws; the error carries the probes up to the throw)."""
        made = self._remember(("analysis",), self._analyse)
        if isinstance(made, AnalysisError):
            raise made
        return made

    def _analyse(self) -> TemplateAnalysis | AnalysisError:
        try:
            return analyze_template(self.compiled, self.caps, trace=True)
        except AnalysisError as exc:
            return exc

    @property
    def analysis_error(self) -> AnalysisError | None:
        try:
            self.analysis
        except AnalysisError as exc:
            return exc
        return None

    @property
    def render_budget_exhausted(self) -> bool:
        """A runaway template: some analysis probe ran out of render time. Later
        renderings (requests, samples, fixtures) would each wait for the budget again."""
        try:
            probes = self.analysis.probes
        except AnalysisError as exc:
            probes = exc.probes
        return any(p.error is not None and p.error.kind == "limit" for p in probes)

    def _route_analysis(self, request: Request) -> TemplateAnalysis | None:
        """The analysis the request's route needs (None off the autoparser route)."""
        if request.force_pure_content or self.handler != AUTOPARSER:
            return None
        return self.analysis

    @property
    def supports_enable_thinking(self) -> bool:
        """llama.cpp's ``common_chat_templates_support_enable_thinking`` (llama-server's
        default for enable_thinking)."""
        def check() -> bool:
            mode = self.analysis.reasoning.mode.value if self.handler == AUTOPARSER else None
            return supports_enable_thinking(self.templates, reasoning_mode=mode)
        return self._remember(("supports_enable_thinking",), check)

    # --- requests ----------------------------------------------------------------------

    def request(self, *, messages: Sequence[Mapping[str, object]] | None = None,
                tools: Sequence[Mapping[str, object]] | None = None, tool_choice: str = "auto",
                enable_thinking: bool | None = None, parallel_tool_calls: bool | None = None,
                reasoning_format: str = "deepseek", chat_template_kwargs: Mapping[str, object] | None = None,
                json_schema: Mapping[str, object] | None = None, force_pure_content: bool = False,
                add_generation_prompt: bool = True) -> Request:
        """A request with llama-server's defaults for what is not given: one user turn,
        enable_thinking when the template supports it, parallel calls when it has them."""
        thinking = self.supports_enable_thinking if enable_thinking is None else enable_thinking
        parallel = self.caps.supports_parallel_tool_calls if parallel_tool_calls is None else parallel_tool_calls
        return Request(
            messages=tuple(dict(m) for m in (messages if messages is not None else (USER_TURN,))),
            tools=tuple(copy.deepcopy(dict(t)) for t in tools) if tools else None,
            tool_choice=tool_choice, parallel_tool_calls=parallel, enable_thinking=thinking,
            reasoning_format=reasoning_format,
            chat_template_kwargs=dict(chat_template_kwargs or {}),
            json_schema=dict(json_schema) if json_schema is not None else None,
            force_pure_content=force_pure_content, add_generation_prompt=add_generation_prompt,
        )

    def params(self, request: Request) -> ChatParams:
        """``common_chat_templates_apply`` for the request (raises what llama.cpp raises)."""
        return self._remember(("params", request_key(request)), lambda: apply_template(
            self.templates, request, caps=self.caps, analysis=self._route_analysis(request)))

    def applied(self, request: Request) -> AppliedPrompt:
        """The prompt side only (messages after the workarounds, the prompt)."""
        analysis = self._route_analysis(request)
        return self._remember(("applied", request_key(request)), lambda: apply_request(
            self.templates, request, caps=self.caps, reasoning=analysis.reasoning if analysis else None))

    def autoparser_params(self, request: Request) -> ChatParams:
        """What the autoparser would build for the request, even on a handler's route."""
        return self._remember(("autoparser", request_key(request)), lambda: apply_autoparser(
            self.templates, request, caps=self.caps, analysis=self.analysis))

    def compare_routes(self, request: Request) -> RouteComparison:
        """The routed handler's params beside the autoparser's for the same request."""
        return self._remember(("routes", request_key(request)), lambda: compare_routes(
            self.templates, request, caps=self.caps, analysis=self._analysis_or_none()))

    def _analysis_or_none(self) -> TemplateAnalysis | None:
        try:
            return self.analysis
        except AnalysisError:
            return None

    # --- model output ------------------------------------------------------------------

    def parse(self, output: str, request: Request, *, partial: bool = False) -> OutputParse:
        """``common_chat_parse`` of the output with the request's parser (never raises for
        a mismatch: see ``.error``; raises when the request itself cannot be applied)."""
        params = self.params(request)
        return self._remember(("parse", request_key(request), output, partial), lambda: analyse_output(
            params.arena, output, generation_prompt=params.generation_prompt, format=params.format,
            is_partial=partial))

    def stream(self, output: str, request: Request) -> tuple[StreamStep, ...]:
        """llama-server's re-parse after every character, with the deltas of each step."""
        params = self.params(request)
        return self._remember(("stream", request_key(request), output), lambda: tuple(stream(
            params.arena, char_chunks(output), generation_prompt=params.generation_prompt, format=params.format)))

    def diagnose(self, output: str, request: Request, *, partial: bool = False) -> Diagnosis:
        """llama.cpp's parse of the output and the triage's findings about it. A request whose
        grammar cannot be built gets a diagnosis saying so (``build_error``), with nothing
        parsed: llama-server answers such a request with an error before generating."""
        try:
            params = self.params(request)
        except GrammarError as exc:
            return build_failure(exc, output, handler=self.handler)
        analysis = self._analysis_or_none() if params.handler == AUTOPARSER else None
        return self._remember(("diagnose", request_key(request), output, partial), lambda: diagnose(
            params, request, output, analysis=analysis, apply=self.params, is_partial=partial))

    def sample_reply(self, kind: ReplyKind, request: Request) -> str | None:
        """A reply cut out of the template's own rendering of an assistant turn, by the
        round trip's rules (``explorer.roundtrip.cut``), its end-of-turn text removed.
        None when the template cannot render that turn. The call id has nine letters and
        digits, which every template accepts (Mistral's insist on exactly that)."""
        return self._remember(("sample", kind, request_key(request)), lambda: self._sample(kind, request))

    def _sample(self, kind: ReplyKind, request: Request) -> str | None:
        tools = request.tools or ()
        message: dict[str, object] = {"role": "assistant", "content": "The weather in Paris is sunny."}
        if kind != "reply":
            first = next((str(t["function"]["name"]) for t in tools if isinstance(t.get("function"), Mapping)),
                         "get_weather")
            message = {"role": "assistant", "content": "", "tool_calls": [
                {"id": "call00001", "type": "function", "function": {"name": first, "arguments": {"city": "Paris"}}}]}
        if kind == "reasoning+call":
            message["reasoning_content"] = "The user wants the weather. I should call the tool."
        setting = LlamaSetting(self.templates, tuple(dict(t) for t in tools), self.caps, request.enable_thinking)
        case = run_case(setting, self.params(request), render_end_marker(setting), kind, message)
        return case.raw_output_stripped

    # --- the whole template --------------------------------------------------------------

    def roundtrip(self, enable_thinking: bool, *, dialect: Dialect = "llama.cpp",
                  messages: Sequence[object] = DEFAULT_MESSAGES, tools: Sequence[Mapping[str, object]] = DEFAULT_TOOLS,
                  grammar: bool = True, explain: bool = True) -> RoundTripReport:
        """Render assistant turns, cut the replies out, parse them back with llama.cpp's
        next-turn parser. ``dialect="transformers"``: the replies as the model was trained
        on them (jinja2), still parsed by llama.cpp. The llama.cpp side always renders in
        llama.cpp's dialect, whatever this session's dialect."""
        if self.dialect != "llama.cpp":
            return open_session(self.text).roundtrip(enable_thinking, dialect=dialect, messages=messages,
                                                      tools=tools, grammar=grammar, explain=explain)
        key = ("roundtrip", enable_thinking, dialect, json.dumps([messages, tools], sort_keys=True, default=str),
               grammar, explain)
        return self._remember(key, lambda: roundtrip_report(
            self.text, enable_thinking=enable_thinking, messages=messages, tools=tools, grammar=grammar,
            explain=explain, dialect=dialect, templates=self.templates, caps=self.caps,
            analysis=self._analysis_or_none() if self.handler == AUTOPARSER else None))

    def compare(self, other: TemplateSession, request: Request | None = None) -> SessionComparison:
        """This template (A) beside another (B): route, capabilities, every analysis field,
        with ``request`` also the chat params; and the standard request's prompts."""
        def side(s: TemplateSession) -> dict[str, object]:
            data: dict[str, object] = {"route": s.handler, "caps": s.caps.to_json()}
            analysis = s._analysis_or_none()
            if analysis is not None:
                data["autoparser"] = analysis.to_oracle_json()
            if request is not None:
                try:
                    data["params"] = s.params(request).to_oracle_json()
                except ExplorerError as exc:
                    data["params"] = {"error": str(exc)}
            return data

        prompts: list[tuple[str, str, str]] = []
        if not (self.render_budget_exhausted or other.render_budget_exhausted):
            std = standard_request(True)
            try:
                a, b = self.applied(std), other.applied(std)
                prompts = [("prompt", a.prompt, b.prompt),
                           ("generation prompt", a.generation_prompt, b.generation_prompt)]
            except ExplorerError:
                prompts = []
        return SessionComparison(tuple(compare_fields(side(self), side(other))), tuple(prompts))


_SESSIONS: Memo[TemplateSession] = Memo(size=SESSION_LIMIT)


def open_session(template: str | TemplateSource, dialect: Dialect = "llama.cpp") -> TemplateSession:
    """The session of a template text (or source) in a dialect, made once while it stays
    among the newest ``SESSION_LIMIT``. Raises ``TemplateError`` when the text does not
    compile (nothing is kept then)."""
    text = template.text if isinstance(template, TemplateSource) else template
    return _SESSIONS.get((sha256_of(text), dialect), lambda: TemplateSession(text, dialect),
                         provisional=lambda made: made.caps_cut_short)


def forget_sessions() -> None:
    """Drop every remembered session (tests that change render budgets call this)."""
    _SESSIONS.clear()


__all__ = [
    "PURE_CONTENT", "REPLY_KINDS", "SESSION_LIMIT", "ReplyKind", "SessionComparison", "TemplateSession",
    "forget_sessions", "open_session", "request_key",
]
