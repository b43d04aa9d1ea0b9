"""The app's state (beside app.py, not in pages/): the chosen template, its session, the request, permalinks.

Input: st.session_state (the chosen template source, the Jinja dialect and the request
settings, shared by all pages), a permalink's query parameters and the app's options
(``explorer.ui_support.app_options``: ``--example``, ``--public-url``). Output: the template
header app.py draws above every page (the template named once, an empty template said as
such, the active what-if's banner), the template's health banner, the
``TemplateSession`` the pages display (``explorer.session``; its memo is the only cache
of pipeline results; with a what-if, ``explorer.whatif``'s modified session), the request the
shared controls build (with the what-if's request change on top), errors shown in place, and
the view's permalink (carrying the what-if: ``explorer.ui_support.whatif_link``). The pipeline is
the session's; this module decides only what is shown and how errors show (every value
from a template, an output or an error through ``ui.md_escape``).
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

import streamlit as st
from streamlit.navigation.page import StreamlitPage

from explorer import sources
from explorer import ui_support as ui
from explorer.apply import GET_WEATHER_TOOL, Request, thinking_kwargs
from explorer.apply.pipeline import ChatParams
from explorer.errors import ExplorerError
from explorer.render import Dialect
from explorer.roundtrip import TransformersCall
from explorer.routing import AUTOPARSER
from explorer.session import PURE_CONTENT, TemplateSession, open_session
from explorer.sources.model import TemplateSource
from explorer.triage.health_template import EMPTY_CHECK
from explorer.ui_support.analysis_view import empty_template_note
from explorer.ui_support.app_options import DEFAULT_EXAMPLE, AppOptions, app_options, origin_label  # noqa: F401
from explorer.ui_support.whatif_link import EDIT_NOTE, WHATIF_PARAMS, decode_whatif, encode_whatif
from explorer.vocabulary import TOOL_CHOICES
from explorer.whatif import WhatIf

REQUEST_KEY = "source_request"
DIALECT_KEY = "dialect"
ACTIVE_KEY = "_active_template"  # this script run's Active, set by app.py before the page runs
LINK_WRITTEN_KEY = "_permalink_written"
WHATIF_KEY = "whatif"  # (sha256 of the template it was made for, WhatIf): another template resets it
WHATIF_TEXT_PREFIX = "wi_text_"  # + sha256: the Analysis page's box with the edited template text
WHATIF_REQUEST_PREFIX = "wi_rq_"  # the Analysis page's request-change widgets
LINK_NOTE_KEY = "_link_note"  # (kind, text) a link left for the header: a bad what-if value, an edit it lacks

T = TypeVar("T")


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


# --- errors ----------------------------------------------------------------------------


def show_error(exc: BaseException, template_text: str | None = None, *, context: str = "") -> None:
    """Show an error in place: the message (with its template line) and the source around it."""
    if isinstance(exc, ExplorerError):
        prefix = f"{context}: " if context else ""
        st.error(ui.md_escape(f"{prefix}{exc}"), icon=":material/error:")
        loc = exc.location
        if template_text and loc is not None and loc.line:
            first, excerpt = ui.source_excerpt(template_text, loc.line)
            body = ui.highlight_html(excerpt, "jinja", hl_lines=[loc.line - first + 1])
            st.caption(f"template lines {first}-{first + excerpt.count(chr(10))}")
            st.html(body)
        return
    # Not an explorer error: a bug in a library stage. Show it in place, not as a page crash.
    st.error(ui.md_escape(f"{context + ': ' if context else ''}internal error: {type(exc).__name__}: {exc}"))
    st.exception(exc)


def guarded(fn: Callable[[], T], template_text: str | None = None, *, context: str = "") -> T | None:
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
    names = list(sources.list_examples())
    if not names:
        return None
    wanted = app_options().example
    return ui.SourceRequest("example", name=wanted if wanted in names else names[0])


def current_request() -> ui.SourceRequest | None:
    if REQUEST_KEY not in st.session_state:
        st.session_state[REQUEST_KEY] = default_request()
    return st.session_state[REQUEST_KEY]


def set_request(request: ui.SourceRequest | None) -> None:
    st.session_state[REQUEST_KEY] = request


def dialect() -> Dialect:
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


# A Hub fetch is slow and happens before there is a session, so the session cannot remember it.
@st.cache_resource(show_spinner="Loading template…", max_entries=64, ttl=3600)
def _load_source(key: tuple[object, ...], _request: ui.SourceRequest) -> TemplateSource:
    return _request.load()


def load_source(request: ui.SourceRequest) -> TemplateSource:
    """The TemplateSource of a request (raises SourceError/FetchError/GGUFError)."""
    return _load_source(request.cache_key(), request)


@dataclass(frozen=True)
class Active:
    """The shared template as one script run sees it: its source and session, or why not.
    With a what-if, ``session`` is the modified version and ``original`` the template's own."""

    request: ui.SourceRequest | None
    dialect: Dialect = "llama.cpp"
    source: TemplateSource | None = None
    session: TemplateSession | None = None  # None: the source did not load or compile
    error: BaseException | None = None  # why there is no source, or no session
    original: TemplateSession | None = None  # the unmodified session, when a what-if is active
    whatif: WhatIf = field(default_factory=WhatIf)
    whatif_error: BaseException | None = None  # why the what-if could not be applied (session is the original)

    @property
    def compile_error(self) -> ExplorerError | None:
        return self.error if self.source is not None and isinstance(self.error, ExplorerError) else None

    @property
    def base(self) -> TemplateSession | None:
        """The template's own session, what-if or not."""
        return self.original if self.original is not None else self.session


# --- the what-if (explorer.whatif): the user's overrides and edited text ---------------


def current_whatif(sha256: str) -> WhatIf:
    """The what-if the user made for the template of this sha256 (empty for another)."""
    held = st.session_state.get(WHATIF_KEY)
    if isinstance(held, tuple) and len(held) == 2 and held[0] == sha256 and isinstance(held[1], WhatIf):
        return held[1]
    return WhatIf()


def set_whatif(sha256: str, whatif: WhatIf) -> None:
    st.session_state[WHATIF_KEY] = None if whatif.empty else (sha256, whatif)


def clear_whatif() -> None:
    """The banner's Clear: no what-if, and the edit box shows the original text again."""
    st.session_state[WHATIF_KEY] = None
    reset_whatif_widgets()


def reset_whatif_widgets() -> None:
    """The edit box and the request-change widgets are made anew from the what-if."""
    for key in [k for k in st.session_state if str(k).startswith((WHATIF_TEXT_PREFIX, WHATIF_REQUEST_PREFIX))]:
        del st.session_state[key]


def session_key(session: TemplateSession) -> str:
    """A page cache's key for a session: its text's sha256 and its overrides."""
    return session.sha256 + "".join(f"|{s.spec}" for s in session.overrides)


def _open_active() -> Active:
    request, chosen = current_request(), dialect()
    if request is None:
        return Active(None, chosen)
    try:
        source = load_source(request)
    except Exception as exc:  # noqa: BLE001 - shown by the header
        return Active(request, chosen, error=exc)
    try:
        session = open_session(source, chosen)
    except Exception as exc:  # noqa: BLE001 - shown by the header
        return Active(request, chosen, source, error=exc)
    whatif = current_whatif(source.sha256)
    if whatif.empty:
        return Active(request, chosen, source, session)
    try:
        return Active(request, chosen, source, whatif.apply(session), original=session, whatif=whatif)
    except Exception as exc:  # noqa: BLE001 - shown by the banner; the pages show the original
        return Active(request, chosen, source, session, original=session, whatif=whatif, whatif_error=exc)


def active() -> Active:
    """The chosen template for this run: what app.py's header opened (the request does not
    change between the header and the page: the widgets that change it are callbacks)."""
    held = st.session_state.get(ACTIVE_KEY)
    if isinstance(held, Active) and held.request == current_request() and held.dialect == dialect() and (
            held.source is None or held.whatif == current_whatif(held.source.sha256)):
        return held
    return _open_active()


def page_session() -> TemplateSession | None:
    """The session of the chosen template; None when it did not load or compile (the
    header has said why)."""
    return active().session


def template_header() -> Active:
    """app.py's header above every page: which template (origin, sha256), or why none is
    shown. Opens the template once for the run; the page reads it with ``active()``."""
    current = _open_active()
    st.session_state[ACTIVE_KEY] = current
    note = st.session_state.pop(LINK_NOTE_KEY, None)
    if note is not None:
        (st.error if note[0] == "error" else st.warning)(ui.md_escape(note[1]), icon=":material/link:")
    if current.request is None:
        st.warning("No template chosen yet: pick one on the Template page.")
        return current
    if current.source is None:
        _show_unexpected(current.error, None, "loading the template")
        return current
    source = current.source
    variant = f" · variant {ui.md_code(source.variant)}" if source.variant else ""
    st.caption(f"Template **{ui.md_escape(source.display_name)}** ({ui.md_escape(origin_label(current.request, source))})"
               f"{variant} · sha256 `{source.sha256[:16]}…` · {len(source.text)} characters")
    if current.session is None:
        _show_unexpected(current.error, source.text, "compiling the template")
    else:
        empty_notice(current.session)
        whatif_banner(current)
    return current




def empty_notice(session: TemplateSession) -> None:
    """An empty template named as such, with what llama.cpp does then (unless the health
    report says it already: its finding is shown by ``health_banner``)."""
    note = empty_template_note(session.text)
    if note is None:
        return
    if not session.render_budget_exhausted:
        health = guarded(lambda: session.health)
        if health is not None and any(f.check == EMPTY_CHECK for f in health.findings):
            return
    st.warning(ui.md_escape(note), icon=":material/draft:")


def whatif_banner(current: Active) -> None:
    """Above every page while a what-if is active: what it changes, and a Clear button."""
    whatif = current.whatif
    if whatif.empty:
        return
    c1, c2 = st.columns([5, 1])
    parts = [", ".join(ui.md_code(f) for f in whatif.fields), "" if whatif.change.empty else
             f"request: {ui.md_escape(whatif.change.describe())}"]
    shown = "; ".join(p for p in parts if p)
    text = f"**What-if active: {ui.md_escape(whatif.describe())}**" + (f" ({shown})" if shown else "")
    if current.whatif_error is None:
        reach = "" if whatif.change.empty else (
            " The request change reaches Grammar and Try it (its round trip too); the Fixtures and Doctor pages "
            "keep their own requests.")
        c1.warning(text + ". Every page shows the modified version; the Analysis page's What if… section says "
                   "what changed." + reach, icon=":material/science:")
    else:
        c1.warning(text + ", but it could not be applied, so the pages show the original.",
                   icon=":material/science:")
        with c1:
            show_error(current.whatif_error, whatif.text, context="applying the what-if")
    c2.button("Clear the what-if", key="whatif_clear", on_click=clear_whatif, icon=":material/close:")


def _show_unexpected(exc: BaseException | None, text: str | None, context: str) -> None:
    if exc is None:
        return
    show_error(exc, text, context=context)
    if not isinstance(exc, ExplorerError):
        traceback.print_exception(exc)


def budget_guard(session: TemplateSession, what: str) -> bool:
    """Show why ``what`` is skipped for a runaway template; True when the page may go on.

    Such a template ran out of render time during the probes, so every further rendering
    (requests, samples, fixtures) would wait for the budget again.
    """
    if session.render_budget_exhausted:
        st.warning(f"{what} is skipped: this template ran out of render time during the probes "
                   "(see the Probes page), so every further rendering would too.")
        return False
    return True


def health_banner(session: TemplateSession, *, with_info: bool = False) -> None:
    """llama.cpp's reading of the template itself broken: said first, above everything the
    page builds from that reading (causes as errors, warnings as warnings; notes too with
    ``with_info``, and always the one naming an empty template)."""
    if session.render_budget_exhausted:
        return
    health = guarded(lambda: session.health, session.text, context="checking the template's health")
    if health is None:
        return
    for f in health.findings:
        if f.severity == "info" and not (with_info or f.check == EMPTY_CHECK):
            continue
        where = ", ".join(x for x in (f"field {ui.md_code(f.field)}" if f.field else "",
                                      f"probe {ui.md_escape(f.probe)}" if f.probe else "",
                                      f"template line {f.template_line}" if f.template_line else "") if x)
        text = f"**Template health.** {ui.md_escape(f.summary)}" + (f" ({where})" if where else "")
        if f.fix_hint:
            text += f"\n\nFix ({ui.md_escape(f.fix_where)}): {ui.md_escape(f.fix_hint)}"
        show = st.error if f.severity == "cause" else st.warning if f.severity == "warning" else st.info
        show(text, icon=":material/healing:")


@st.cache_data(show_spinner=False, max_entries=256)
def highlighted(text: str, language: str = "jinja", linenos: bool = True, hl: tuple[int, ...] = ()) -> str:
    return ui.highlight_html(text, language, linenos=linenos, hl_lines=hl)


def table(rows: list[dict[str, object]]) -> None:
    """A static table without the dataframe index column. Streamlit reads every cell as
    Markdown, so each text cell is escaped: a marker ``>\\n`` or ``**x**`` shows as written."""
    st.table([{k: ui.md_escape(v) if isinstance(v, str) else v for k, v in row.items()} for row in rows],
             hide_index=True)


# --- permalinks ----------------------------------------------------------------------


INCOMING_KEY = "_incoming_view"
LINK_KEYS = ("example", "hf", "t", "page", "focus", "o", "think", "tc", "tools", "skip", "date", "dialect",
             *WHATIF_PARAMS)


def apply_permalink(page_for: Callable[[str], StreamlitPage | None], current_page: str) -> None:
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
        st.error(ui.md_escape(f"This link could not be read: {exc}"))
        return
    if request is not None:
        set_request(request)
    _apply_request_inputs(link.inputs)
    _apply_link_whatif(params)
    st.session_state[INCOMING_KEY] = {"focus": link.focus, "output": link.output}
    if link.page and link.page != current_page:
        target = page_for(link.page)
        if target is not None:
            st.switch_page(target, query_params=params)


def _apply_link_whatif(params: dict[str, str]) -> None:
    """A link's what-if (overrides, request change) becomes the template's; a bad value, or
    an edited text the link could not carry, is said in the header (not a traceback)."""
    if not any(k in params for k in WHATIF_PARAMS):
        return
    try:
        carried = decode_whatif(params)
    except ExplorerError as exc:
        st.session_state[LINK_NOTE_KEY] = ("error", f"This link's what-if could not be read: {exc}")
        return
    request = current_request()
    try:
        source = load_source(request) if request is not None else None
    except Exception:  # noqa: BLE001 - the header says why the source does not load
        return
    if source is None:
        return
    set_whatif(source.sha256, carried.whatif())
    reset_whatif_widgets()
    if carried.edited_sha256 is not None:
        st.session_state[LINK_NOTE_KEY] = ("warning", f"{EDIT_NOTE} Edited text sha256 `{carried.edited_sha256}`.")


def _apply_request_inputs(inputs: ui.RequestInputs) -> None:
    """A link's request settings become the session's; the pages' widgets are made anew
    from them (a widget keeps its own state otherwise)."""
    d = default_settings()
    values = {THINKING_KEY: d.thinking if inputs.thinking is None else inputs.thinking,
              CHOICE_KEY: inputs.tool_choice or d.tool_choice,
              TOOLS_KEY: d.tools_json if inputs.tools_json is None else inputs.tools_json,
              SKIP_KEY: inputs.skip_chat_parsing, PASSED_KEY: inputs.thinking_passed, DATE_KEY: inputs.date or ""}
    if inputs.dialect is not None:
        st.session_state[DIALECT_KEY] = st.session_state["w_" + DIALECT_KEY] = inputs.dialect
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


def write_permalink(page: str, focus: str | None = None, output: str | None = None, *,
                    with_request: bool = False) -> str | None:
    """Put the view into the URL's query parameters; return the link's query string.
    ``with_request``: the link carries the request settings (where they are not the default)."""
    source = active().source
    inputs = request_inputs(settings()) if with_request else ui.RequestInputs()
    link = ui.permalink_for(current_request(), source.text if source else None, page, focus, output, inputs)
    params = {"page": page} if link is None else ui.encode_permalink(link) | encode_whatif(active().whatif)
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
PASSED_KEY, DATE_KEY = "req_thinking_passed", "req_date"  # enable_thinking passed at all; transformers' date


@dataclass(frozen=True)
class RequestSettings:
    """The request controls' values, as widgets and links hold them."""

    tools_json: str
    thinking: bool
    tool_choice: str = "auto"
    skip_chat_parsing: bool = False  # llama-server --skip-chat-parsing (force_pure_content)
    thinking_passed: bool = True  # False: enable_thinking is not passed (transformers: undefined)
    date: str = ""  # transformers' strftime_now date (ISO); empty: the real clock


def default_settings() -> RequestSettings:
    """The request the Try-it and Grammar pages start with (and links leave out)."""
    return RequestSettings(json.dumps([GET_WEATHER_TOOL], indent=2), thinking=True)


def settings() -> RequestSettings:
    """The request settings the user last chose (on any page), else the defaults."""
    d = default_settings()
    state = st.session_state
    return RequestSettings(state.get(TOOLS_KEY, d.tools_json), bool(state.get(THINKING_KEY, d.thinking)),
                           state.get(CHOICE_KEY, d.tool_choice), bool(state.get(SKIP_KEY, d.skip_chat_parsing)),
                           bool(state.get(PASSED_KEY, d.thinking_passed)), str(state.get(DATE_KEY, d.date)))


def request_inputs(chosen: RequestSettings) -> ui.RequestInputs:
    """The settings as a link carries them: only what differs from the app's defaults."""
    d = default_settings()
    return ui.RequestInputs(
        thinking=None if chosen.thinking == d.thinking else chosen.thinking,
        tool_choice=None if chosen.tool_choice == d.tool_choice else chosen.tool_choice,
        tools_json=None if chosen.tools_json == d.tools_json else chosen.tools_json,
        skip_chat_parsing=chosen.skip_chat_parsing, thinking_passed=chosen.thinking_passed,
        date=chosen.date.strip() or None, dialect=None if dialect() == "llama.cpp" else dialect())


def page_request(session: TemplateSession, chosen: RequestSettings) -> Request:
    """The session's request for the settings: one user turn, the tools, parallel calls
    when the template has them (raises RequestError for tools that are not valid JSON)."""
    flag = chosen.thinking if chosen.thinking_passed else None  # None: llama-server's default
    return session.request(tools=ui.parse_tools_json(chosen.tools_json), tool_choice=chosen.tool_choice,
                           enable_thinking=flag, chat_template_kwargs=thinking_kwargs(flag),
                           force_pure_content=chosen.skip_chat_parsing)


def transformers_call() -> TransformersCall:
    """How the transformers round trip calls apply_chat_template (the controls' enable_thinking
    passed or not, the date field); raises RequestError for a date that is not ISO 8601."""
    chosen = settings()
    return ui.transformers_call(chosen.thinking_passed, chosen.date if dialect() == "transformers" else "")


def output_request(session: TemplateSession, request: Request, output: str) -> tuple[Request, tuple[str, ...]]:
    """The request for an output, by the library's rule (``TemplateSession.user_request``, the
    CLI's too): with the Tools box as the app opens it (no tools given), the tools the output
    calls; otherwise ``request`` as the controls (and a what-if) made it."""
    chosen = settings()
    if chosen.tools_json != default_settings().tools_json or not active().whatif.change.empty or not output.strip():
        return request, ()
    built = guarded(lambda: session.user_request(output=output,
                                                  thinking=chosen.thinking if chosen.thinking_passed else None,
                                                  tool_choice=chosen.tool_choice,
                                                  force_pure_content=chosen.skip_chat_parsing),
                    context="inferring the tools from the output")
    if built is None or built.request.tools == request.tools:
        return request, ()
    return built.request, built.notes


def _persisted(widget_key: str, store_key: str, default: object) -> None:
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
    names = [str(t.get("function", t).get("name", "?")) for t in tools]
    return f"Tools ({len(tools)}: {ui.md_escape(', '.join(names)[:80])})"


def request_controls(page: str, session: TemplateSession) -> Request | None:
    """The request's thinking flag, --skip-chat-parsing, tool_choice and tools (shared by
    the pages that use them); the session's request for them, or None (the error shown)."""
    keys = {k: f"{page}_{k}" for k in (TOOLS_KEY, THINKING_KEY, CHOICE_KEY, SKIP_KEY, PASSED_KEY, DATE_KEY)}
    d = default_settings()
    _persisted(keys[PASSED_KEY], PASSED_KEY, d.thinking_passed)
    _persisted(keys[DATE_KEY], DATE_KEY, d.date)
    _persisted(keys[THINKING_KEY], THINKING_KEY, d.thinking)
    _persisted(keys[CHOICE_KEY], CHOICE_KEY, d.tool_choice)
    _persisted(keys[TOOLS_KEY], TOOLS_KEY, d.tools_json)
    _persisted(keys[SKIP_KEY], SKIP_KEY, d.skip_chat_parsing)
    c1, c2 = st.columns([1, 1])
    passed = c1.toggle("pass enable_thinking", key=keys[PASSED_KEY],
                       help="Off: the request does not pass enable_thinking (llama-server then uses its default, "
                            "whether the template supports thinking; transformers leaves it undefined, as "
                            "apply_chat_template without enable_thinking=)")
    c1.toggle("enable_thinking", key=keys[THINKING_KEY], disabled=not passed)
    c1.toggle("--skip-chat-parsing", key=keys[SKIP_KEY],
              help="llama-server's --skip-chat-parsing (force_pure_content): no handler, no autoparser; "
                   "the whole output is content")
    c2.selectbox("tool_choice", TOOL_CHOICES, key=keys[CHOICE_KEY])
    if dialect() == "transformers":
        c2.text_input("Date for strftime_now (transformers)", key=keys[DATE_KEY], placeholder="the real clock",
                      help="ISO date, e.g. 2026-11-29 (or 2026-11-29T14:30), for a reproducible render; empty: "
                           "today, as transformers reads the real clock. llama.cpp's side keeps its recorded "
                           "run date.")
    with st.expander(_tools_label(st.session_state[keys[TOOLS_KEY]])):
        st.text_area("Tools (JSON list of OpenAI tools; empty for none)", key=keys[TOOLS_KEY], height=180)
    for k, wk in keys.items():
        st.session_state[k] = st.session_state[wk]
    request = guarded(lambda: page_request(session, settings()))
    whatif = active().whatif
    if request is None or whatif.change.empty:
        return request
    st.info(f"What-if request change on top of these controls: {ui.md_escape(whatif.change.describe())} (the Analysis page's "
            "What if… section sets it; Clear the what-if above for the request as the controls say).",
            icon=":material/science:")
    return guarded(lambda: whatif.request(request), context="applying the what-if's request change")


def route_note(params: ChatParams, what: str) -> bool:
    """Say which path llama.cpp takes when it is not the autoparser; True for a specialised
    handler (the pages then put the autoparser's answer beside it)."""
    if params.handler == AUTOPARSER:
        return False
    if params.handler == PURE_CONTENT:
        st.warning("llama-server runs with --skip-chat-parsing: no handler and no autoparser. The parser reads "
                   "the generation prompt, then takes the whole output as content (reasoning and tool calls "
                   "included); no grammar, stops or preserved tokens.")
        return False
    st.info(f"llama.cpp {what} with its specialized handler `{params.handler}` (format `{params.format}`), "
            "not with an autoparser-generated parser.")
    return True

