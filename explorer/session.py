"""One typed session per template: what the pages and the CLI hold.

Input: template text (or a ``TemplateSource``) and a Jinja dialect. Output: a
``TemplateSession``: the compiled template llama.cpp renders (its init-time source
patches applied), the capabilities (detected once), the route, the autoparser analysis
with its probe trace and provenance, and one method per later stage, each keyed by the
request: ``params`` (llama.cpp's chat params, the PEG arena kept as an object),
``parse``, ``stream``, ``diagnose`` (``diagnose_log``: from llama-server's log),
``sample_reply``, ``roundtrip``, ``user_request`` (the request the CLI and the app build
from a user's inputs, one rule), ``compare_routes``, ``parse_routes``, ``check_grammar``,
``reasoning_prefill`` and ``compare``.

``open_session`` keeps the newest ``SESSION_LIMIT`` sessions by (sha256, dialect). A
session whose capability probes the render budget cut short is made again after
``explorer.memo.PROVISIONAL_SECONDS``; inside a session, an analysis the budget cut
short, and everything built on it, is kept for that long only.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import TypeVar, cast

from explorer.analysis import TemplateAnalysis, analyze_template
from explorer.analysis.lines import LineFinder
from explorer.analysis.model import Reasoning
from explorer.analysis.overrides import FieldSetting, apply_overrides
from explorer.apply import (
    GET_WEATHER_TOOL,
    ReasoningPrefill,
    Request,
    apply_request,
    classify_reasoning_prefill,
    merged_kwargs,
    standard_request,
)
from explorer.apply.compare import RouteComparison, compare_routes, message_differences, outcome
from explorer.apply.pipeline import PURE_CONTENT, ChatParams, Held, apply_autoparser, apply_template
from explorer.apply.prompt import AppliedPrompt, supports_enable_thinking
from explorer.apply.templates import ChatTemplates, falls_back, init_templates
from explorer.caps import Caps, CapsProbe, detect_caps_trace
from explorer.comparison import FieldChange, compare_fields
from explorer.errors import AnalysisError, ExplorerError, GrammarError
from explorer.grammar.check import Verdict, check_grammar
from explorer.jsontypes import Json
from explorer.memo import Memo
from explorer.output.parse import ChatMessage, OutputParse, analyse_output
from explorer.output.streaming import StreamStep, char_chunks, stream
from explorer.render import CompiledTemplate, Dialect
from explorer.roundtrip import (
    DEFAULT_MESSAGES,
    DEFAULT_TOOLS,
    RoundTripCase,
    RoundTripReport,
    TransformersCall,
    roundtrip_report,
)
from explorer.roundtrip.cases import REPLY_KINDS, ReplyKind
from explorer.roundtrip.run import LlamaSetting, RequestChange, render_end_marker, run_case
from explorer.routing import AUTOPARSER, Routing, route
from explorer.sources.model import TemplateSource, sha256_of
from explorer.triage import Diagnosis, diagnose
from explorer.triage.checks_grammar import build_failure
from explorer.triage.from_log import LogDiagnosis, with_log
from explorer.triage.from_log import read as read_server_log
from explorer.triage.health import Health, template_health
from explorer.triage.inferred_tools import PROBE_TOOL_JSON, InferredTools, infer_tools

SESSION_LIMIT = 32  # sessions kept; each holds its template's analysis and a few parsers
PER_SESSION_LIMIT = 128  # params, parses, streams, samples and diagnoses kept per session
WHOLE_TEMPLATE_LIMIT = 16  # the analysis, enable_thinking support and round trips per session
PROMPT_LIMIT = 256  # rendered prompts kept per session (the round trip renders a few per request)
USER_TURN: Mapping[str, str] = {"role": "user", "content": "Hello"}
SAMPLE_CALL_ID = "call7Qp2X"
# the request common_chat_templates_support_enable_thinking applies
ENABLE_THINKING_PROBE = Request(messages=({"role": "user", "content": "test"},), enable_thinking=True,
                                reasoning_format="deepseek", add_generation_prompt=True)

T = TypeVar("T")


@dataclass(frozen=True)
class UserRequest:
    """The request built from a user's inputs, and what the rule filled in (in words)."""

    request: Request
    notes: tuple[str, ...] = ()
    short: tuple[str, ...] = ()  # the notes in a few words (a clean parse's one line)

# one parse of the output by each route: (handler's message or error, autoparser's message
# or error, the message fields on which they differ)
RouteParses = tuple[ChatMessage | ExplorerError, ChatMessage | ExplorerError | None, tuple[FieldChange, ...]]


def request_key(request: Request) -> str:
    """A request as a cache key: its fields as canonical JSON."""
    return json.dumps(asdict(request), sort_keys=True, ensure_ascii=False, default=str)


@dataclass(frozen=True)
class SessionComparison:
    """Two templates (or one template and its edited version) field by field."""

    fields: tuple[FieldChange, ...]  # route, caps, every analysis field (and params with a request)
    prompts: tuple[tuple[str, str, str], ...] = ()  # (what, A, B) for the standard request
    prompt_error: ExplorerError | None = None  # why there are no prompts (a side cannot render it)
    prompts_skipped: bool = False  # a side ran out of render time during the probes

    @property
    def changed(self) -> tuple[FieldChange, ...]:
        return tuple(c for c in self.fields if not c.same)


class TemplateSession:
    """Everything the explorer knows about one template in one dialect.

    Made by ``open_session``; the capabilities and the route are worked out on creation,
    the analysis when first asked for. All results are pure functions of the template
    text, the dialect and the request, and are remembered per request.
    """

    templates: ChatTemplates
    caps: Caps
    caps_trace: tuple[CapsProbe, ...]
    routing: Routing

    def __init__(self, text: str, dialect: Dialect = "llama.cpp", *, overrides: tuple[FieldSetting, ...] = (),
                 base: TemplateSession | None = None) -> None:
        self.text = text
        self.sha256 = sha256_of(text)
        self.dialect: Dialect = dialect
        self.overrides = overrides
        self.base = base
        if base is not None:  # an override changes the analysis only: the rest is the base's
            self.templates, self.caps, self.caps_trace, self.routing = base.templates, base.caps, base.caps_trace, \
                base.routing
        else:
            self.templates = init_templates(text, dialect=dialect)
            self.caps, self.caps_trace = detect_caps_trace(self.templates.default)
            # routed once: the templates' decision is the session's (a fallback template aside)
            decided = None if falls_back(text) else self.templates.route_of(self.templates.default)
            self.routing = route(text, self.caps, decided=decided)
        self._memo: Memo[object] = Memo(size=PER_SESSION_LIMIT)
        self._whole: Memo[object] = Memo(size=WHOLE_TEMPLATE_LIMIT)
        # prompts apart, so the many small renders never push the params and parses out
        self._prompts: Memo[AppliedPrompt] = Memo(size=PROMPT_LIMIT)

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
        held = self._whole.peek(("analysis",))
        return isinstance(held, TemplateAnalysis) and held.cut_short

    def _remember(self, key: Hashable, make: Callable[[], T]) -> T:
        return cast(T, self._memo.get(key, make, provisional=lambda _made: self.cut_short))

    def _remember_whole(self, key: Hashable, make: Callable[[], T]) -> T:
        return cast(T, self._whole.get(key, make, provisional=lambda _made: self.cut_short))

    @property
    def analysis(self) -> TemplateAnalysis:
        """The autoparser's analysis with every probe's trace (raises ``AnalysisError``
        when llama.cpp's analysis throws; the error carries the probes up to the throw)."""
        made = self._remember_whole(("analysis",), self._analyse)
        if isinstance(made, AnalysisError):
            raise made
        return made

    def _analyse(self) -> TemplateAnalysis | AnalysisError:
        if self.base is not None:
            return apply_overrides(self.base.analysis, self.overrides)
        try:
            return analyze_template(self.compiled, self.caps, trace=True)
        except AnalysisError as exc:
            return exc

    def with_overrides(self, settings: tuple[FieldSetting, ...]) -> TemplateSession:
        """This template with analysis fields set, as a llama.cpp workaround lambda sets
        them: everything downstream (parser, grammar, triggers, round trip, triage) is built
        from the overridden analysis. On a specialised handler's route llama.cpp does not
        use the analysis, so only ``autoparser_params`` changes there."""
        return open_session(self.text, self.dialect, overrides=self.overrides + settings)

    @property
    def overridden_fields(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(s.field for s in self.overrides))

    @property
    def analysis_error(self) -> AnalysisError | None:
        try:
            self.analysis  # noqa: B018 - read for the error it raises
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
    def enable_thinking_support(self) -> bool | ExplorerError:
        """llama.cpp's ``common_chat_templates_support_enable_thinking`` exactly: the
        ``supports_thinking`` of a whole apply of one user turn "test" (no tools,
        enable_thinking, reasoning deepseek), or the error that apply raises (llama.cpp
        throws it, and llama-server does not start)."""
        def check() -> bool | ExplorerError:
            try:
                return self.params(ENABLE_THINKING_PROBE).supports_thinking
            except ExplorerError as exc:
                return exc
        return self._remember_whole(("enable_thinking_support",), check)

    @property
    def supports_enable_thinking(self) -> bool:
        """llama-server's default for enable_thinking (``common_chat_templates_support_enable_thinking``)
        read off the route without rendering: a handler's rule, the analysis' reasoning mode.
        It equals ``enable_thinking_support`` wherever that apply succeeds (the differential
        tests check it against the real build); where that apply raises, llama.cpp throws and
        this still answers, so that what is reported about the template can go on
        (docs/llama-cpp-differences.md)."""
        def check() -> bool:
            mode = self.analysis.reasoning.mode.value if self.handler == AUTOPARSER else None
            return supports_enable_thinking(self.templates, reasoning_mode=mode)
        return self._remember_whole(("supports_enable_thinking",), check)

    # --- requests ----------------------------------------------------------------------

    def request(self, *, messages: Sequence[Mapping[str, Json]] | None = None,
                tools: Sequence[Mapping[str, Json]] | None = None, tool_choice: str = "auto",
                enable_thinking: bool | None = None, parallel_tool_calls: bool | None = None,
                reasoning_format: str = "deepseek", chat_template_kwargs: Mapping[str, Json] | None = None,
                json_schema: Mapping[str, Json] | None = None, force_pure_content: bool = False,
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

    def user_request(self, *, output: str | None = None, tools: Sequence[Mapping[str, Json]] | None = None,
                     thinking: bool | None = None, tool_choice: str = "auto", parallel_tool_calls: bool | None = None,
                     reasoning_format: str = "deepseek", chat_template_kwargs: Mapping[str, Json] | None = None,
                     messages: Sequence[Mapping[str, Json]] | None = None,
                     json_schema: Mapping[str, Json] | None = None,
                     force_pure_content: bool = False) -> UserRequest:
        """The request the CLI and the app build from what a user set, by one rule: the
        thinking setting goes out as enable_thinking and as its chat_template_kwargs
        (``thinking_kwargs``; None leaves llama-server's default); tools not given are the
        tools the output calls (``infer_tools``, names and argument keys), else the default
        tool get_weather, and ``note`` says which; tool_choice as given (auto)."""
        notes: list[str] = []
        short: list[str] = []
        chosen = list(tools) if tools is not None else None
        if chosen is None:
            inferred = self.tools_in(output) if output else InferredTools((), "")
            if inferred.tools:
                chosen = list(inferred.tools)
                notes.append(inferred.note)
                short.append(f"tools inferred from the output's calls: {inferred.short}")
            else:
                chosen = [copy.deepcopy(GET_WEATHER_TOOL)]
                notes.append("No tools were given" + (" and the output calls none" if output else "")
                             + ": the request offers the default tool get_weather (give --tools, or the app's "
                             "Tools box, for the real ones).")
                short.append("no tools given: the default tool get_weather")
        request = self.request(
            messages=messages, tools=chosen, tool_choice=tool_choice, enable_thinking=thinking,
            parallel_tool_calls=parallel_tool_calls, reasoning_format=reasoning_format,
            chat_template_kwargs=merged_kwargs(dict(chat_template_kwargs or {}), thinking),
            json_schema=json_schema, force_pure_content=force_pure_content)
        return UserRequest(request, tuple(notes), tuple(short))

    def tools_in(self, output: str) -> InferredTools:
        """The tools the output calls, found where this template writes a call's name and
        arguments (its own call to a probe tool) and in call-like JSON."""
        try:
            shape = self.own_call(self.request(tools=[PROBE_TOOL_JSON]))
        except ExplorerError:
            shape = None
        return infer_tools(output, shape)

    def params(self, request: Request) -> ChatParams:
        """``common_chat_templates_apply`` for the request (raises what llama.cpp raises)."""
        return self._remember(("params", request_key(request)), lambda: apply_template(
            self.templates, request, caps=self.caps, analysis=self._route_analysis(request), prompts=self._prompt))

    def applied(self, request: Request) -> AppliedPrompt:
        """The prompt side only (messages after the workarounds, the prompt)."""
        analysis = self._route_analysis(request)
        return self._prompt(request, analysis.reasoning if analysis else None)

    def _prompt(self, request: Request, reasoning: Reasoning | None) -> AppliedPrompt:
        """``apply_request`` for the request, once (the pipeline, the round trip and the
        samples all render through here)."""
        return self._prompts.get((request_key(request), reasoning), lambda: apply_request(
            self.templates, request, caps=self.caps, reasoning=reasoning), provisional=lambda _made: self.cut_short)

    def autoparser_params(self, request: Request) -> ChatParams:
        """What the autoparser would build for the request, even on a handler's route."""
        if self.handler == AUTOPARSER and not request.force_pure_content:
            return self.params(request)  # the route's own params: nothing is forced
        return self._remember(("autoparser", request_key(request)), lambda: apply_autoparser(
            self.templates, request, caps=self.caps, analysis=self.analysis, prompts=self._prompt))

    def compare_routes(self, request: Request) -> RouteComparison:
        """The routed handler's params beside the autoparser's for the same request."""
        return self._remember(("routes", request_key(request)), lambda: compare_routes(
            self.params(request), lambda: self.autoparser_params(request)))

    @property
    def held(self) -> Held:
        """What this session remembers, for the stages it hands work to (the round trip)."""
        return Held(params=self.params, prompts=self._prompt, parse=lambda request, text: self.parse(text, request))

    def _analysis_or_none(self) -> TemplateAnalysis | None:
        try:
            return self.analysis
        except AnalysisError:
            return None

    def reasoning_prefill(self, request: Request) -> ReasoningPrefill:
        """How the request's generation prompt pre-fills reasoning, read with the analysis'
        reasoning markers (raises ``AnalysisError`` when there is no analysis)."""
        reasoning = self.analysis.reasoning
        return classify_reasoning_prefill(self.applied(request).generation_prompt, reasoning.start, reasoning.end)

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

    @property
    def lines(self) -> LineFinder:
        """Which template line wrote each marker and each probe output's spans (the probe
        sides are rendered again with provenance, once, when first asked for)."""
        return self._remember_whole(("lines",), lambda: LineFinder(self.compiled, self.analysis))

    @property
    def health(self) -> Health:
        """Whether llama.cpp's own reading of the template is broken (``explorer.triage.health``)."""
        return self._remember_whole(("health",), lambda: template_health(self))

    def diagnose(self, output: str, request: Request, *, partial: bool = False) -> Diagnosis:
        """llama.cpp's parse of the output and the triage's findings about it; a broken
        reading of the template itself comes first. A request whose grammar cannot be built
        gets a diagnosis saying so (``build_error``), with nothing parsed: llama-server
        answers such a request with an error before generating."""
        try:
            params = self.params(request)
        except GrammarError as exc:
            return build_failure(exc, output, handler=self.handler)
        analysis = self._analysis_or_none() if params.handler == AUTOPARSER else None
        template = tuple(f for f in self.health.findings if f.severity != "info")
        return self._remember(("diagnose", request_key(request), output, partial), lambda: diagnose(
            params, request, output, analysis=analysis, apply=self.params, is_partial=partial,
            template_findings=template, sample_call=lambda: self.own_call(request), own_call=self.own_call,
            parse=self.parse(output, request, partial=partial)))

    def diagnose_log(self, log_text: str, request: Request, *, output: str | None = None,
                     partial: bool = False) -> LogDiagnosis:
        """llama-server's log text read (``explorer.triage.logs``): the model output found in it
        (or ``output``, where the log holds only the tail), diagnosed, with the log's findings
        first (where its number points, and whether our parse stops there too)."""
        params = self.params(request)

        def make() -> LogDiagnosis:
            reading = read_server_log(log_text, params.generation_prompt, output)
            if reading.output is None:
                return LogDiagnosis(reading, None)
            diagnosis = self.diagnose(reading.output, request, partial=partial)
            parse = self.parse(reading.output, request, partial=partial)
            return with_log(reading, parse, diagnosis, params.format)
        return self._remember(("diagnose_log", request_key(request), log_text, output, partial), make)

    def parse_routes(self, output: str, request: Request, *, partial: bool = False) -> RouteParses:
        """The output parsed by the routed handler's parser (``parse``'s) and by the autoparser's."""
        comparison = self.compare_routes(request)

        def make() -> RouteParses:
            left = outcome(lambda: self.parse(output, request, partial=partial))
            forced = comparison.autoparser
            right = comparison.autoparser_error if forced is None else outcome(lambda: analyse_output(
                forced.arena, output, generation_prompt=forced.generation_prompt, format=forced.format,
                is_partial=partial))
            return left, right, message_differences(left, right)
        return self._remember(("parse_routes", request_key(request), output, partial), make)

    def check_grammar(self, request: Request, texts: Sequence[str]) -> tuple[Verdict, ...]:
        """llguidance's verdict on each text under the request's GBNF grammar (lazy from its
        triggers when the grammar is lazy); empty when the request has no grammar."""
        params = self.params(request)
        if not params.grammar:
            return ()
        triggers = [{"type": t.type, "value": t.value} for t in params.grammar_triggers] \
            if params.grammar_lazy else None
        return self._remember(("grammar", request_key(request), tuple(texts)), lambda: tuple(check_grammar(
            params.grammar, list(texts), triggers=triggers)))

    def sample_reply(self, kind: ReplyKind, request: Request) -> str | None:
        """A reply cut out of the template's own rendering of an assistant turn, by the
        round trip's rules (``explorer.roundtrip.cut``), its end-of-turn text removed.
        None when the template cannot render that turn. The call id has nine letters and
        digits, which every template accepts (Mistral's insist on exactly that), and is
        none of the probes' ids (a marker that swallowed one must not match it)."""
        return self.reply_case(kind, request).raw_output_stripped

    def own_call(self, request: Request) -> str | None:
        """The template's own reply with one call for the request's tools and flags: the sample
        reply (``sample_reply("call")``) after the standard user turn (the request's own
        history would put its earlier turns in the cut). None when the template renders none."""
        return self.sample_reply("call", replace(request, messages=(dict(USER_TURN),)))

    def reply_case(self, kind: ReplyKind, request: Request) -> RoundTripCase:
        """The round trip of one assistant turn of ``kind`` for this request: rendered,
        cut, stripped, parsed with the request's parser and compared with the message."""
        return self._remember(("sample", kind, request_key(request)), lambda: self._sample(kind, request))

    def _sample(self, kind: ReplyKind, request: Request) -> RoundTripCase:
        tools = request.tools or ()
        message: dict[str, object] = {"role": "assistant", "content": "The weather in Paris is sunny."}
        if kind != "reply":
            first = next((str(fn["name"]) for t in tools if isinstance(fn := t.get("function"), Mapping)),
                         "get_weather")
            message = {"role": "assistant", "content": "", "tool_calls": [
                {"id": SAMPLE_CALL_ID, "type": "function",
                 "function": {"name": first, "arguments": {"city": "Paris"}}}]}
        if kind == "reasoning+call":
            message["reasoning_content"] = "The user wants the weather. I should call the tool."
        setting = LlamaSetting(self.templates, tuple(dict(t) for t in tools), self.caps, request.enable_thinking,
                               prompts=self._prompt)
        return run_case(setting, self.params(request), render_end_marker(setting), kind, message,
                        parse=lambda text: self.parse(text, request))

    # --- the whole template --------------------------------------------------------------

    def roundtrip(self, enable_thinking: bool, *, dialect: Dialect = "llama.cpp",
                  messages: Sequence[object] = DEFAULT_MESSAGES, tools: Sequence[Mapping[str, Json]] = DEFAULT_TOOLS,
                  grammar: bool = True, explain: bool = True, change: RequestChange | None = None,
                  trained_as: TransformersCall = TransformersCall()) -> RoundTripReport:
        """Render assistant turns, cut the replies out, parse them back with llama.cpp's
        next-turn parser. ``dialect="transformers"``: the replies as the model was trained
        on them (jinja2), still parsed by llama.cpp; ``trained_as`` says how
        apply_chat_template is called (enable_thinking passed or not, a fixed date). The
        llama.cpp side always renders in llama.cpp's dialect, whatever this session's
        dialect (with this session's overrides).
        ``change``: a client's changes to the oracle's request (``explorer.roundtrip.RequestChange``)."""
        if self.dialect != "llama.cpp":
            return open_session(self.text, overrides=self.overrides).roundtrip(
                enable_thinking, dialect=dialect, messages=messages, tools=tools, grammar=grammar, explain=explain,
                change=change, trained_as=trained_as)
        change = None if change is None or change.empty else change
        trained = trained_as if dialect == "transformers" else TransformersCall()
        key = ("roundtrip", enable_thinking, dialect, json.dumps([messages, tools], sort_keys=True, default=str),
               grammar, explain, change, trained)
        return self._remember_whole(key, lambda: roundtrip_report(
            self.text, enable_thinking=enable_thinking, messages=messages, tools=tools, grammar=grammar,
            explain=explain, dialect=dialect, templates=self.templates, caps=self.caps,
            analysis=self._analysis_or_none() if self.handler == AUTOPARSER else None, change=change,
            trained_as=trained, held=self.held))

    def compare(self, other: TemplateSession, request: Request | None = None, *,
                enable_thinking: bool = True, change: RequestChange | None = None) -> SessionComparison:
        """This template (A) beside another (B): route, capabilities, every analysis field,
        with ``request`` also the chat params; and the standard request's prompts (with
        ``enable_thinking``; skipped for a template that ran out of render time).
        ``change``: a client's change to B's requests (both of them), A's are as given."""
        def side(s: TemplateSession, changed: RequestChange | None) -> dict[str, object]:
            data: dict[str, object] = {"route": s.handler, "caps": s.caps.to_json()}
            analysis = s._analysis_or_none()
            if analysis is not None:
                data["autoparser"] = analysis.to_oracle_json()
            if request is not None:
                try:
                    data["params"] = s.params(changed.apply(request) if changed else request).to_oracle_json()
                except ExplorerError as exc:
                    data["params"] = {"error": str(exc)}
            return data

        fields = tuple(compare_fields(side(self, None), side(other, change)))
        if self.render_budget_exhausted or other.render_budget_exhausted:
            return SessionComparison(fields, prompts_skipped=True)
        std = standard_request(enable_thinking)
        try:
            a, b = self.applied(std), other.applied(change.apply(std) if change else std)
        except ExplorerError as exc:
            return SessionComparison(fields, prompt_error=exc)
        return SessionComparison(fields, (("prompt", a.prompt, b.prompt),
                                          ("generation prompt", a.generation_prompt, b.generation_prompt)))


_SESSIONS: Memo[TemplateSession] = Memo(size=SESSION_LIMIT)


def open_session(template: str | TemplateSource, dialect: Dialect = "llama.cpp", *,
                 overrides: tuple[FieldSetting, ...] = ()) -> TemplateSession:
    """The session of a template text (or source) in a dialect, with analysis
    ``overrides`` (``explorer.analysis.overrides``) when given, made once while it stays
    among the newest ``SESSION_LIMIT``. Raises ``TemplateError`` when the text does not
    compile (nothing is kept then), ``OverrideError`` for a setting of the wrong type."""
    text = template.text if isinstance(template, TemplateSource) else template
    key = (sha256_of(text), dialect, tuple(s.spec for s in overrides))
    if not overrides:
        return _SESSIONS.get(key, lambda: TemplateSession(text, dialect), provisional=lambda made: made.caps_cut_short)
    base = open_session(text, dialect)
    return _SESSIONS.get(key, lambda: TemplateSession(text, dialect, overrides=overrides, base=base),
                         provisional=lambda made: made.caps_cut_short)


def forget_sessions() -> None:
    """Drop every remembered session (tests that change render budgets call this)."""
    _SESSIONS.clear()


__all__ = [
    "PURE_CONTENT", "REPLY_KINDS", "SESSION_LIMIT", "ReplyKind", "RouteParses", "SessionComparison",
    "TemplateSession",
    "forget_sessions", "open_session", "request_key",
]
