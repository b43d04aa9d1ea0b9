"""What the CLI commands read: a TEMPLATE spec, JSON files, a messages file, switches.

Input: a TEMPLATE spec (path, ``hf:owner/repo[@rev][#name]``, ``example:NAME`` or ``-``),
a JSON file path (``-`` for stdin) or a switch's text. Output: the template's
``TemplateSession`` and ``TemplateSource``, the decoded JSON, (messages, tools), a tools
list, a JSON object, a bool, and the ``Request`` the request switches describe (with
llama-server's defaults). Errors are ``SourceError``s naming the file or switch
(``ArgumentTypeError`` for a switch argparse checks). Not a command.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from explorer.analysis.overrides import parse_setting
from explorer.apply import Request, merged_kwargs
from explorer.errors import SourceError
from explorer.output.parse import decode_output_bytes
from explorer.render import Dialect
from explorer.session import TemplateSession, UserRequest, open_session
from explorer.sources import resolve_spec
from explorer.sources.model import TemplateSource
from explorer.vocabulary import REASONING_FORMATS, TOOL_CHOICES

TEMPLATE_HELP = "path, hf:owner/repo[@rev][#name], example:NAME, or - for stdin"
CONSOLE_SCRIPT = "template-explorer"


def program_name(argv0: str | None = None) -> str:
    """How the user ran us: the console script, or ``python -m explorer`` (for help and hints)."""
    import os

    name = os.path.basename(argv0 if argv0 is not None else (sys.argv[0] if sys.argv else ""))
    return CONSOLE_SCRIPT if name.startswith(CONSOLE_SCRIPT) else "python -m explorer"


def add_template_argument(p: argparse.ArgumentParser) -> None:
    """The positional TEMPLATE spec every template command takes."""
    p.add_argument("template", metavar="TEMPLATE", help=TEMPLATE_HELP)


def parse_bool(text: str) -> bool:
    """An argparse ``type`` for true/false switches (also 1/0, yes/no)."""
    if text.lower() in ("true", "1", "yes"):
        return True
    if text.lower() in ("false", "0", "no"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, found {text!r}")


THINKING_UNSET = "unset"


def parse_thinking(text: str) -> bool | None:
    """``--thinking``: true/false, or ``unset`` (None: the caller does not pass enable_thinking)."""
    if text.lower() in (THINKING_UNSET, "none", "not-passed"):
        return None
    return parse_bool(text)


def parse_date(text: str) -> datetime:
    """``--date``: an ISO 8601 date (midnight) or date and time, e.g. 2026-11-29 or
    2026-11-29T14:30; the clock ``strftime_now`` (and llama.cpp's date variables) read."""
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an ISO date such as 2026-11-29 or 2026-11-29T14:30, "
                                         f"found {text!r}") from None


def load_template_text(spec: str) -> tuple[str, TemplateSource]:
    """Template text and its ``TemplateSource``."""
    source = resolve_spec(spec)
    return source.text, source


def template_text(spec: str) -> str:
    """Just the template text of a TEMPLATE spec."""
    return load_template_text(spec)[0]


def open_template(spec: str, dialect: Dialect = "llama.cpp", sets: Sequence[str] = ()
                  ) -> tuple[TemplateSession, TemplateSource]:
    """The session of a TEMPLATE spec (with ``--set`` analysis overrides), and where the
    template came from."""
    overrides = tuple(parse_setting(s) for s in sets)  # a bad --set fails before any loading
    source = resolve_spec(spec)
    return open_session(source.text, dialect, overrides=overrides), source


def add_override_argument(p: argparse.ArgumentParser) -> None:
    """``--set FIELD=VALUE``: what a llama.cpp workaround lambda does to the analysis."""
    p.add_argument("--set", metavar="FIELD=VALUE", action="append", default=[], dest="set",
                   help="override an analysis field before anything is built from it, as a llama.cpp workaround "
                        "does (FIELD: the oracle's dotted name, e.g. tools.format.per_call_start; VALUE: JSON "
                        "when it parses as JSON, raw text otherwise); repeatable")


def session_from_args(args: argparse.Namespace) -> tuple[TemplateSession, TemplateSource]:
    """The session of ``args.template`` with ``args.set``'s overrides."""
    return open_template(args.template, sets=getattr(args, "set", None) or ())


def read_output(path: str) -> str:
    """Model output as the engine sees it (``-``: stdin; undecodable bytes sanitized as
    llama.cpp does)."""
    try:
        data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as exc:
        raise SourceError(f"cannot read the output file {path}: {exc.strerror}") from None
    return decode_output_bytes(data)


def read_json(path: str, what: str) -> Any:
    """The JSON in ``path`` (``-``: stdin); ``what`` names the file in errors."""
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise SourceError(f"cannot read the {what} file {path}: {exc.strerror}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SourceError(f"the {what} file {path} is not JSON: {exc.msg} at line {exc.lineno}") from None


def messages_and_tools(data: Any, path: str) -> tuple[list[Any], list[Any] | None]:
    """A messages file: a list of messages, or an object with ``messages`` (and ``tools``),
    possibly under ``inputs`` (an oracle analysis file)."""
    data = _inputs_object(data)
    if isinstance(data, dict) and isinstance(data.get("messages"), list):
        return data["messages"], data.get("tools")
    if isinstance(data, list):
        return data, None
    raise SourceError(f"{path}: expected a JSON list of messages or an object with 'messages'")


def documents_of(data: Any, path: str) -> list[Any] | None:
    """A messages file's ``documents`` (transformers' RAG argument), when it has any."""
    data = _inputs_object(data)
    documents = data.get("documents") if isinstance(data, dict) else None
    if documents is not None and not isinstance(documents, list):
        raise SourceError(f"{path}: 'documents' must be a JSON list of objects")
    return documents


def _inputs_object(data: Any) -> Any:
    if isinstance(data, dict) and isinstance(data.get("inputs"), dict):
        return data["inputs"]
    return data


def read_tools(path: str) -> list[Any]:
    """A tools file: a JSON list of tools (OpenAI format)."""
    tools = read_json(path, "tools")
    if not isinstance(tools, list):
        raise SourceError(f"{path}: expected a JSON list of tools")
    return tools


def kwargs_object(text: str) -> dict[str, Any]:
    """``--kwargs``: chat_template_kwargs as a JSON object."""
    try:
        kwargs = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SourceError(f"--kwargs is not JSON: {exc.msg}") from None
    if not isinstance(kwargs, dict):
        raise SourceError("--kwargs must be a JSON object")
    return kwargs


def add_request_arguments(p: argparse.ArgumentParser, *, reasoning_format: bool = True) -> None:
    """The request switches (``parse`` already has its own ``--reasoning-format``)."""
    p.add_argument("--messages", metavar="FILE",
                   help="JSON list of messages, or an object with 'messages' (and 'tools'); "
                        'default [{"role": "user", "content": "Hello"}]')
    p.add_argument("--tools", metavar="FILE", help="JSON list of tools (OpenAI format)")
    p.add_argument("--thinking", choices=("true", "false"), default=None,
                   help="enable_thinking (default: whether the template supports it, as llama-server)")
    p.add_argument("--tool-choice", choices=TOOL_CHOICES, default="auto")
    p.add_argument("--parallel-tool-calls", choices=("true", "false"), default=None,
                   help="default: the template's supports_parallel_tool_calls, as llama-server")
    if reasoning_format:
        p.add_argument("--reasoning-format", choices=REASONING_FORMATS,
                       default="deepseek")
    p.add_argument("--json-schema", metavar="FILE", help="response format: a JSON schema file")
    p.add_argument("--kwargs", metavar="JSON", default=None, help="chat_template_kwargs as a JSON object")
    p.add_argument("--skip-chat-parsing", action="store_true",
                   help="as llama-server's --skip-chat-parsing (force_pure_content): all output is content")


def _messages_and_tools(args: argparse.Namespace) -> tuple[list[Any] | None, list[Any] | None]:
    messages: list[Any] | None = None
    tools = None
    if getattr(args, "messages", None):
        messages, tools = messages_and_tools(read_json(args.messages, "messages"), args.messages)
    if getattr(args, "tools", None):
        tools = read_tools(args.tools)
    return messages, tools


def _switch(value: str | None) -> bool | None:
    return None if value is None else value == "true"


def request_from_args(session: TemplateSession, args: argparse.Namespace) -> Request:
    """The request llama-server would send for these switches (its defaults otherwise); the
    thinking switch goes out as enable_thinking and its chat_template_kwargs, as the app's
    toggle sends it (``explorer.apply.thinking_kwargs``)."""
    messages, tools = _messages_and_tools(args)
    schema = read_json(args.json_schema, "JSON schema") if getattr(args, "json_schema", None) else None
    thinking = _switch(getattr(args, "thinking", None))
    kwargs = kwargs_object(args.kwargs) if getattr(args, "kwargs", None) else {}
    return session.request(
        messages=messages, tools=tools, tool_choice=getattr(args, "tool_choice", "auto"),
        enable_thinking=thinking,
        parallel_tool_calls=_switch(getattr(args, "parallel_tool_calls", None)),
        reasoning_format=getattr(args, "reasoning_format", "deepseek"),
        chat_template_kwargs=merged_kwargs(kwargs, thinking),
        json_schema=schema, force_pure_content=bool(getattr(args, "skip_chat_parsing", False)),
    )


def user_request_from_args(session: TemplateSession, args: argparse.Namespace, output: str | None) -> UserRequest:
    """The request the app would build from the same inputs (``TemplateSession.user_request``:
    no ``--tools``, the tools the output calls, else the default tool)."""
    messages, tools = _messages_and_tools(args)
    schema = read_json(args.json_schema, "JSON schema") if getattr(args, "json_schema", None) else None
    return session.user_request(
        output=output, messages=messages, tools=tools, tool_choice=getattr(args, "tool_choice", "auto"),
        thinking=_switch(getattr(args, "thinking", None)),
        parallel_tool_calls=_switch(getattr(args, "parallel_tool_calls", None)),
        reasoning_format=getattr(args, "reasoning_format", "deepseek"),
        chat_template_kwargs=kwargs_object(args.kwargs) if getattr(args, "kwargs", None) else {},
        json_schema=schema, force_pure_content=bool(getattr(args, "skip_chat_parsing", False)))
