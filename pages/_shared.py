"""Streamlit glue shared by every page: session state, caching, errors, permalinks.

Input: st.session_state (the chosen template source, shared by all pages) and the
library stages. Output: cached library results and small display helpers. All logic
lives in ``explorer``; this module only decides what is cached and how errors show.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType, ModuleType
from typing import Any

import streamlit as st

from explorer import ui_support as ui
from explorer.errors import ExplorerError

REQUEST_KEY = "source_request"
DIALECT_KEY = "dialect"
LINK_WRITTEN_KEY = "_permalink_written"
PREFERRED_EXAMPLES = ("qwen3", "qwen3-coder", "deepseek-r1", "llama-3.1")


# --- running inside app.py's navigation -------------------------------------------------


def require_app() -> None:
    """Make sure this page runs inside app.py's ``st.navigation``.

    Until app.py has called ``st.navigation`` once, Streamlit treats ``pages/`` as an
    old-style pages folder whose URLs are the file names. The page files are named
    ``*_page.py`` so those URLs never equal app.py's (``/probes`` runs app.py, which
    routes it); only a request for a file-name URL such as ``/probes_page`` runs a page
    alone. Then switch that mode off and rerun, so app.py takes over.
    """
    from streamlit.runtime.pages_manager import PagesManager  # pinned streamlit 1.67

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()


# --- library stages that may not have landed yet -----------------------------------


# The names each page needs from a stage: a stage counts as landed once they exist.
STAGE_NEEDS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "explorer.sources": ("from_example", "list_examples", "from_text", "from_upload", "from_hub"),
    "explorer.caps": ("detect_caps",),
    "explorer.routing": ("route",),
    "explorer.analysis": ("analyze_template",),
    "explorer.diff": ("trace_diff",),
    "explorer.chat_output": ("analyse_output",),
    "explorer.generator": ("generate_params", "ParserSpec", "GenerationParams"),
    "explorer.peg.arena": ("load_arena",),
    "explorer.handlers": ("apply_template",),
    "explorer.streaming": ("stream", "char_chunks"),
    "explorer.grammar.check": ("check_grammar",),
    "explorer.apply": ("apply_request", "standard_request", "classify_reasoning_prefill"),
})


def stage(module: str) -> ModuleType | None:
    return ui.optional_module(module, *STAGE_NEEDS.get(module, ()))


def not_available(module: str, what: str) -> None:
    st.info(
        f"**{what}** is not available yet: the library stage `{module}` has not landed in "
        "this checkout. This section fills in automatically once it exists.",
        icon=":material/hourglass_empty:",
    )


# --- errors ----------------------------------------------------------------------------


def show_error(exc: BaseException, template_text: str | None = None, *, context: str = "") -> None:
    """Show an error in place: the message (with its template line) and the source around it."""
    if isinstance(exc, ExplorerError):
        prefix = f"{context}: " if context else ""
        st.error(f"{prefix}{exc}", icon=":material/error:")
        loc = exc.location
        if template_text and loc is not None and loc.line:
            first, excerpt = ui.source_excerpt(template_text, loc.line)
            body = ui.highlight_html(excerpt, "jinja", hl_lines=[loc.line - first + 1])
            st.caption(f"template lines {first}-{first + excerpt.count(chr(10))}")
            st.html(body)
        return
    # Not an explorer error: a bug in a library stage. Show it in place, not as a page crash.
    st.error(f"{context + ': ' if context else ''}internal error: {type(exc).__name__}: {exc}")
    st.exception(exc)


def guarded(fn: Callable[[], Any], template_text: str | None = None, *, context: str = "") -> Any:
    """Run ``fn``; on failure show the error in place and return None."""
    try:
        return fn()
    except ExplorerError as exc:
        show_error(exc, template_text, context=context)
    except Exception as exc:  # noqa: BLE001 - a library bug is shown, never a crash page
        show_error(exc, template_text, context=context)
        traceback.print_exc()
    return None


# --- the shared template source -----------------------------------------------------


def default_request() -> ui.SourceRequest | None:
    sources = stage("explorer.sources")
    if sources is None:
        return None
    names = list(sources.list_examples())
    if not names:
        return None
    for preferred in PREFERRED_EXAMPLES:
        if preferred in names:
            return ui.SourceRequest("example", name=preferred)
    return ui.SourceRequest("example", name=names[0])


def current_request() -> ui.SourceRequest | None:
    if REQUEST_KEY not in st.session_state:
        st.session_state[REQUEST_KEY] = default_request()
    return st.session_state[REQUEST_KEY]


def set_request(request: ui.SourceRequest | None) -> None:
    st.session_state[REQUEST_KEY] = request


def dialect() -> str:
    return st.session_state.get(DIALECT_KEY, "llama.cpp")


def dialect_picker() -> None:
    """The Jinja dialect for every page (kept in session state across page switches)."""
    widget = "w_" + DIALECT_KEY
    if widget not in st.session_state:
        st.session_state[widget] = dialect()

    def picked() -> None:
        st.session_state[DIALECT_KEY] = st.session_state[widget]

    st.selectbox(
        "Jinja dialect", ["llama.cpp", "transformers"], key=widget, on_change=picked,
        help="llama.cpp's own Jinja engine (what llama-server runs), or Hugging Face "
        "transformers' jinja2 environment, to compare renderings.",
    )


@st.cache_resource(show_spinner="Loading template…", max_entries=64, ttl=3600)
def _load_source(key: tuple[Any, ...], _request: ui.SourceRequest) -> Any:
    return _request.load()


def load_source(request: ui.SourceRequest) -> Any:
    """The TemplateSource of a request (raises SourceError/FetchError/GGUFError)."""
    return _load_source(request.cache_key(), request)


@st.cache_resource(show_spinner=False, max_entries=64)
def _compile(sha256: str, dialect_name: str, _text: str) -> Any:
    from explorer.render import compile_template

    routing_mod = stage("explorer.routing")
    # llama.cpp patches a few templates' text when it loads them; everything after sees the patch
    text = routing_mod.patch_source(_text) if routing_mod and hasattr(routing_mod, "patch_source") else _text
    return compile_template(text, dialect=dialect_name)


def compiled(source: Any) -> Any:
    """The CompiledTemplate of the text llama.cpp compiles (its init-time patches applied).

    It holds a jinja2 object, so it is cached with cache_resource on sha256 + dialect.
    """
    return _compile(source.sha256, dialect(), source.text)


@st.cache_resource(show_spinner="Running the autoparser probes…", max_entries=64)
def _analysis(sha256: str, dialect_name: str, _tmpl: Any) -> Any:
    from explorer.analysis import analyze_template

    return analyze_template(_tmpl)


def analysis(tmpl: Any) -> Any:
    return _analysis(tmpl.sha256, tmpl.dialect, tmpl)


@st.cache_resource(show_spinner=False, max_entries=64)
def _caps(sha256: str, dialect_name: str, _tmpl: Any) -> Any:
    from explorer.caps import detect_caps

    return detect_caps(_tmpl)


def caps(tmpl: Any) -> Any:
    return _caps(tmpl.sha256, tmpl.dialect, tmpl)


@st.cache_data(show_spinner=False, max_entries=256)
def highlighted(text: str, language: str = "jinja", linenos: bool = True, hl: tuple[int, ...] = ()) -> str:
    return ui.highlight_html(text, language, linenos=linenos, hl_lines=hl)


def active_template() -> tuple[Any, Any, ExplorerError | None] | None:
    """(TemplateSource, CompiledTemplate or None, compile error or None) for the shared source.

    Errors are shown in place. Returns None (after showing why) when there is no source.
    """
    if stage("explorer.sources") is None:
        not_available("explorer.sources", "Loading templates")
        return None
    request = current_request()
    if request is None:
        st.warning("No template chosen yet: pick one on the Template page.")
        return None
    source = guarded(lambda: load_source(request), context="loading the template")
    if source is None:
        return None
    try:
        return source, compiled(source), None
    except ExplorerError as exc:
        show_error(exc, source.text, context="compiling the template")
        return source, None, exc


def source_caption(source: Any) -> None:
    variant = f" · variant `{source.variant}`" if getattr(source, "variant", None) else ""
    st.caption(
        f"Template **{source.display_name}** ({source.origin}){variant} · sha256 `{source.sha256[:16]}…` "
        f"· {len(source.text)} characters"
    )


# --- permalinks ----------------------------------------------------------------------


INCOMING_KEY = "_incoming_view"
LINK_KEYS = ("example", "hf", "t", "page", "focus", "o", "think", "tc", "tools", "skip")


def apply_permalink(page_for: Callable[[str], Any], current_page: str) -> None:
    """On arrival with a link, load its source, remember its focus and go to its page.

    Query parameters this session wrote itself are ignored, so a link is applied once
    and the user's later choices are never overridden by a stale URL.
    """
    params = dict(st.query_params.to_dict())
    if not params or params == st.session_state.get(LINK_WRITTEN_KEY):
        return
    if not any(k in params for k in LINK_KEYS):
        return
    st.session_state[LINK_WRITTEN_KEY] = params
    try:
        link = ui.decode_permalink(params)
        request = link.source_request()
    except ExplorerError as exc:
        st.error(f"This link could not be read: {exc}")
        return
    if request is not None:
        set_request(request)
    _apply_request_inputs(link.inputs)
    st.session_state[INCOMING_KEY] = {"focus": link.focus, "output": link.output}
    if link.page and link.page != current_page:
        target = page_for(link.page)
        if target is not None:
            st.switch_page(target, query_params=params)


def _apply_request_inputs(inputs: Any) -> None:
    """A link's request settings become the session's; the pages' widgets are made anew
    from them (a widget keeps its own state otherwise)."""
    d = default_settings()
    values = {THINKING_KEY: d.thinking if inputs.thinking is None else inputs.thinking,
              CHOICE_KEY: inputs.tool_choice or d.tool_choice,
              TOOLS_KEY: d.tools_json if inputs.tools_json is None else inputs.tools_json,
              SKIP_KEY: inputs.skip_chat_parsing}
    for store_key, value in values.items():
        st.session_state[store_key] = value
        for key in [k for k in st.session_state if isinstance(k, str) and k.endswith("_" + store_key)]:
            del st.session_state[key]


def _take_incoming(name: str) -> str | None:
    view = st.session_state.get(INCOMING_KEY) or {}
    return view.pop(name, None)


def take_incoming_focus() -> str | None:
    """The focus a link arrived with (once; None afterwards)."""
    return _take_incoming("focus")


def take_incoming_output() -> str | None:
    """The model output a link arrived with (once; None afterwards)."""
    return _take_incoming("output")


def write_permalink(page: str, source: Any | None, focus: str | None = None, output: str | None = None,
                    settings: "RequestSettings | None" = None) -> str | None:
    """Put the view into the URL's query parameters; return the link's query string.
    ``settings``: the request the page built its parser for (kept when not the default)."""
    request = current_request()
    inputs = request_inputs(settings) if settings is not None else ui.RequestInputs()
    link = ui.permalink_for(request, getattr(source, "text", None), page, focus, output, inputs)
    if link is None:
        params = {"page": page}
    else:
        params = ui.encode_permalink(link)
    if st.query_params.to_dict() != params:
        st.query_params.from_dict(params)
    st.session_state[LINK_WRITTEN_KEY] = params
    return None if link is None else ui.query_string(params)


def permalink_url(query: str | None) -> str | None:
    if query is None:
        return None
    base = st.context.url or ""
    return f"{base}?{query}" if base else f"?{query}"


# --- the request the Grammar and Try-it pages build a parser for ----------------------

TOOLS_KEY, THINKING_KEY, CHOICE_KEY = "req_tools", "req_thinking", "req_tool_choice"
SKIP_KEY = "req_skip_chat_parsing"
PURE_CONTENT = "pure-content"  # ChatParams.handler under --skip-chat-parsing
USER_TURN: Mapping[str, str] = MappingProxyType({"role": "user", "content": "Hello"})


@dataclass(frozen=True)
class RequestSettings:
    tools_json: str
    thinking: bool
    tool_choice: str = "auto"
    skip_chat_parsing: bool = False  # llama-server --skip-chat-parsing (force_pure_content)


def request_inputs(settings: RequestSettings) -> Any:
    """The settings as a link carries them: only what differs from the app's defaults."""
    d = default_settings()
    return ui.RequestInputs(
        thinking=None if settings.thinking == d.thinking else settings.thinking,
        tool_choice=None if settings.tool_choice == d.tool_choice else settings.tool_choice,
        tools_json=None if settings.tools_json == d.tools_json else settings.tools_json,
        skip_chat_parsing=settings.skip_chat_parsing)


def default_settings() -> RequestSettings:
    """The request the Try-it and Grammar pages start with (and links leave out)."""
    return RequestSettings(default_tools_json(), thinking=True)


def default_tools_json() -> str:
    apply_mod = stage("explorer.apply")
    tool = getattr(apply_mod, "GET_WEATHER_TOOL", None) if apply_mod else None
    return json.dumps([tool], indent=2) if tool else ""


def _persisted(widget_key: str, store_key: str, default: Any) -> None:
    """Give a widget the value stored for the session (widget state is per page)."""
    if widget_key not in st.session_state:
        st.session_state[widget_key] = st.session_state.get(store_key, default)


def _tools_label(tools_json: str) -> str:
    try:
        tools = ui.parse_tools_json(tools_json)
    except ExplorerError:
        return "Tools (invalid JSON)"
    if not tools:
        return "Tools (none)"
    names = [t.get("function", t).get("name", "?") for t in tools]
    return f"Tools ({len(tools)}: {', '.join(names)[:80]})"


def request_controls(page: str) -> RequestSettings:
    """The request's thinking flag, tool_choice and tools, shared by the pages that use them."""
    keys = {k: f"{page}_{k}" for k in (TOOLS_KEY, THINKING_KEY, CHOICE_KEY, SKIP_KEY)}
    d = default_settings()
    _persisted(keys[THINKING_KEY], THINKING_KEY, d.thinking)
    _persisted(keys[CHOICE_KEY], CHOICE_KEY, d.tool_choice)
    _persisted(keys[TOOLS_KEY], TOOLS_KEY, d.tools_json)
    _persisted(keys[SKIP_KEY], SKIP_KEY, d.skip_chat_parsing)
    c1, c2 = st.columns([1, 1])
    c1.toggle("enable_thinking", key=keys[THINKING_KEY])
    c1.toggle("--skip-chat-parsing", key=keys[SKIP_KEY],
              help="llama-server's --skip-chat-parsing (force_pure_content): no handler, no autoparser; "
                   "the whole output is content")
    c2.selectbox("tool_choice", ["auto", "required", "none"], key=keys[CHOICE_KEY])
    with st.expander(_tools_label(st.session_state[keys[TOOLS_KEY]])):
        st.text_area("Tools (JSON list of OpenAI tools; empty for none)", key=keys[TOOLS_KEY], height=180)
    for k, wk in keys.items():
        st.session_state[k] = st.session_state[wk]
    return RequestSettings(st.session_state[TOOLS_KEY], st.session_state[THINKING_KEY], st.session_state[CHOICE_KEY],
                           bool(st.session_state[SKIP_KEY]))


def route_note(setup: "ChatSetup", what: str) -> bool:
    """Say which path llama.cpp takes when it is not the autoparser; True for a specialised
    handler (the pages then put the autoparser's answer beside it)."""
    if setup.handler == "autoparser":
        return False
    if setup.handler == PURE_CONTENT:
        st.warning("llama-server runs with --skip-chat-parsing: no handler and no autoparser. The parser reads "
                   "the generation prompt, then takes the whole output as content (reasoning and tool calls "
                   "included); no grammar, stops or preserved tokens.")
        return False
    st.info(f"llama.cpp {what} with its specialized handler `{setup.handler}` (format `{setup.format}`), "
            "not with an autoparser-generated parser.")
    return True


@dataclass(frozen=True)
class ChatSetup:
    """What llama.cpp prepares for a request: route, prompt side, parser, grammar, tokens."""

    handler: str
    format: str  # the chat format name; it picks the output mapper
    prompt: str
    generation_prompt: str
    parser: str  # the serialized PEG arena llama-server parses with
    arena: Any  # that arena, loaded (explorer.peg)
    grammar: str
    grammar_lazy: bool
    grammar_triggers: tuple[Any, ...]
    preserved_tokens: tuple[str, ...]
    additional_stops: tuple[str, ...]
    why: str = ""


def chat_request(settings: RequestSettings, tools: list[dict[str, Any]] | None, parallel: bool) -> Any:
    """The request Try it and Grammar build their parser for (one user turn, the page's settings)."""
    from explorer.apply import Request

    return Request(
        messages=(dict(USER_TURN),), tools=tuple(tools) if tools else None, tool_choice=settings.tool_choice,
        parallel_tool_calls=parallel, enable_thinking=settings.thinking,
        chat_template_kwargs={"enable_thinking": settings.thinking, "thinking": settings.thinking},
        force_pure_content=settings.skip_chat_parsing,
    )


def page_request(tmpl: Any, settings: RequestSettings) -> Any:
    """The page's request for this template: its tools, and parallel calls when the template has them."""
    parallel = bool(getattr(caps(tmpl), "supports_parallel_tool_calls", True))
    return chat_request(settings, ui.parse_tools_json(settings.tools_json), parallel)


@st.cache_resource(show_spinner="Building the parser…", max_entries=64)
def _chat_params(sha256: str, dialect_name: str, settings: RequestSettings, _tmpl: Any) -> tuple[Any, Any]:
    from explorer.handlers.pipeline import apply_template

    request = page_request(_tmpl, settings)
    return request, apply_template(_tmpl, request, caps=caps(_tmpl), analysis=analysis(_tmpl))


def chat_params(tmpl: Any, settings: RequestSettings) -> tuple[Any, Any]:
    """(the page's request, llama.cpp's ChatParams for it), built once per template and settings."""
    return _chat_params(tmpl.sha256, tmpl.dialect, settings, tmpl)


@st.cache_resource(show_spinner=False, max_entries=64)
def _chat_setup(sha256: str, dialect_name: str, settings: RequestSettings, _tmpl: Any) -> ChatSetup:
    from explorer.peg.arena import load_arena

    _, out = chat_params(_tmpl, settings)
    return ChatSetup(out.handler, out.format, out.prompt, out.generation_prompt, out.parser,
                     load_arena(out.parser), out.grammar, out.grammar_lazy, tuple(out.grammar_triggers),
                     tuple(out.preserved_tokens), tuple(out.additional_stops), out.why)


@st.cache_resource(show_spinner="Building the autoparser's parser for comparison…", max_entries=32)
def _route_comparison(sha256: str, dialect_name: str, settings: RequestSettings, _tmpl: Any) -> Any:
    from explorer.handlers.compare import compare_routes

    return compare_routes(_tmpl, page_request(_tmpl, settings), caps=caps(_tmpl), analysis=analysis(_tmpl))


def route_comparison(tmpl: Any, settings: RequestSettings) -> Any:
    """The routed handler's params next to the autoparser's for the same request (a ``RouteComparison``)."""
    return _route_comparison(tmpl.sha256, tmpl.dialect, settings, tmpl)


def chat_setup(tmpl: Any, settings: RequestSettings) -> ChatSetup:
    return _chat_setup(tmpl.sha256, tmpl.dialect, settings, tmpl)


PIPELINE_STAGES = ("explorer.caps", "explorer.analysis", "explorer.apply", "explorer.generator", "explorer.peg.arena")


def missing_pipeline_stage() -> str | None:
    return next((m for m in PIPELINE_STAGES if stage(m) is None), None)


@st.cache_resource(show_spinner=False, max_entries=128)
def _sample_output(sha256: str, dialect_name: str, settings: RequestSettings, kind: str, _tmpl: Any) -> str | None:
    """A model reply cut out of the template's own rendering of an assistant turn.

    The call id has nine letters and digits, which every template accepts (Mistral's
    insist on exactly that).
    """
    from explorer.apply import Request, apply_request

    tools = ui.parse_tools_json(settings.tools_json)
    message: dict[str, Any] = {"role": "assistant", "content": "The weather in Paris is sunny."}
    if kind != "reply":
        first = (tools or [{}])[0].get("function", {}).get("name", "get_weather")
        message = {"role": "assistant", "content": "",
                   "tool_calls": [{"id": "call00001", "type": "function",
                                   "function": {"name": first, "arguments": {"city": "Paris"}}}]}
    if kind == "reasoning+call":
        message["reasoning_content"] = "The user wants the weather. I should call the tool."
    base = dict(tools=tuple(tools) if tools else None, enable_thinking=settings.thinking,
                chat_template_kwargs={"enable_thinking": settings.thinking, "thinking": settings.thinking})
    caps_value = caps(_tmpl)
    rendered = apply_request(_tmpl, Request(messages=(dict(USER_TURN), message), add_generation_prompt=False, **base),
                             caps=caps_value).prompt
    prompt = apply_request(_tmpl, Request(messages=(dict(USER_TURN),), add_generation_prompt=True, **base),
                           caps=caps_value).prompt
    sample = ui.continuation_after(prompt, rendered)
    if sample is None:
        return None
    # a model stops on the end-of-turn marker, so the sample must not contain it
    probes = [apply_request(_tmpl, Request(messages=(dict(USER_TURN), {"role": "assistant", "content": c}),
                                           add_generation_prompt=False, **base), caps=caps_value).prompt
              for c in ("X", "XY")]
    return ui.strip_end_marker(sample, ui.end_marker_from_probes(*probes))


def sample_output(tmpl: Any, settings: RequestSettings, kind: str) -> str | None:
    return _sample_output(tmpl.sha256, tmpl.dialect, settings, kind, tmpl)


def table(rows: list[dict[str, Any]]) -> None:
    """A static table without the dataframe index column."""
    st.table(rows, hide_index=True)


def exhausts_render_budget(analysis_value: Any) -> bool:
    """Whether the template ran out of render time during the probes (a runaway template).

    Pages then skip further renderings (requests, samples, fixtures) instead of waiting
    for each one to hit the budget again.
    """
    return any(p.error is not None and p.error.kind == "limit" for p in getattr(analysis_value, "probes", ()))


def budget_guard(tmpl: Any, what: str) -> bool:
    """Show why ``what`` is skipped for a runaway template; True when the page may go on."""
    try:
        value = analysis(tmpl)
    except ExplorerError:
        return True
    if exhausts_render_budget(value):
        st.warning(f"{what} is skipped: this template ran out of render time during the probes "
                   "(see the Probes page), so every further rendering would too.")
        return False
    return True
