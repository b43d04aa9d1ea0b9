"""Streamlit glue shared by every page: session state, caching, errors, permalinks.

Input: st.session_state (the chosen template source, shared by all pages) and the
library stages. Output: cached library results and small display helpers. All logic
lives in ``explorer``; this module only decides what is cached and how errors show.
"""

from __future__ import annotations

import traceback
from types import ModuleType
from typing import Any, Callable

import streamlit as st

from explorer.errors import ExplorerError
from explorer import ui_support as ui

REQUEST_KEY = "source_request"
DIALECT_KEY = "dialect"
LINK_WRITTEN_KEY = "_permalink_written"
PREFERRED_EXAMPLES = ("qwen3", "qwen3-coder", "deepseek-r1", "llama-3.1")


# --- library stages that may not have landed yet -----------------------------------


# The names each page needs from a stage: a stage counts as landed once they exist.
STAGE_NEEDS: dict[str, tuple[str, ...]] = {
    "explorer.sources": ("from_example", "list_examples", "from_text", "from_upload", "from_hub"),
    "explorer.caps": ("detect_caps",),
    "explorer.routing": ("route",),
    "explorer.analysis": ("analyze_template",),
    "explorer.diff": ("trace_diff",),
    "explorer.chat_output": ("analyse_output",),
    "explorer.generator": ("generate_parser",),
    "explorer.apply": ("apply_request", "standard_request", "classify_reasoning_prefill"),
}


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


@st.cache_resource(show_spinner="Loading template…", max_entries=64)
def _load_source(key: tuple[Any, ...], _request: ui.SourceRequest) -> Any:
    return _request.load()


def load_source(request: ui.SourceRequest) -> Any:
    """The TemplateSource of a request (raises SourceError/FetchError/GGUFError)."""
    return _load_source(request.cache_key(), request)


@st.cache_resource(show_spinner=False, max_entries=64)
def _compile(sha256: str, dialect_name: str, _text: str) -> Any:
    from explorer.render import compile_template

    return compile_template(_text, dialect=dialect_name)


def compiled(source: Any) -> Any:
    """The CompiledTemplate (holds a jinja2 object, so cache_resource on sha256 + dialect)."""
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


INCOMING_FOCUS_KEY = "_incoming_focus"
LINK_KEYS = ("example", "hf", "t", "page", "focus")


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
    st.session_state[INCOMING_FOCUS_KEY] = link.focus
    if link.page and link.page != current_page:
        target = page_for(link.page)
        if target is not None:
            st.switch_page(target, query_params=params)


def take_incoming_focus() -> str | None:
    """The focus a link arrived with (once; None afterwards)."""
    return st.session_state.pop(INCOMING_FOCUS_KEY, None)


def write_permalink(page: str, source: Any | None, focus: str | None = None) -> str | None:
    """Put the view into the URL's query parameters; return the link's query string."""
    request = current_request()
    link = ui.permalink_for(request, getattr(source, "text", None), page, focus)
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
