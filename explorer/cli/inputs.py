"""What the CLI commands read: a TEMPLATE spec, JSON files, a messages file, switches.

Input: a TEMPLATE spec (path, ``hf:owner/repo[@rev][#name]``, ``example:NAME`` or ``-``),
a JSON file path (``-`` for stdin) or a switch's text. Output: the template text and its
``TemplateSource``, the decoded JSON, (messages, tools), a tools list, a JSON object, a
bool. Errors are ``SourceError``s naming the file or switch (``ArgumentTypeError`` for a
switch argparse checks). Not a command: ``explorer.cli`` lists its command modules by name.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from explorer.errors import SourceError

TEMPLATE_HELP = "path, hf:owner/repo[@rev][#name], example:NAME, or - for stdin"


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


def load_template_text(spec: str) -> tuple[str, Any]:
    """Template text and its ``TemplateSource``."""
    from explorer.sources import resolve_spec

    source = resolve_spec(spec)
    return source.text, source


def template_text(spec: str) -> str:
    """Just the template text of a TEMPLATE spec."""
    return load_template_text(spec)[0]


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
    if isinstance(data, dict) and isinstance(data.get("inputs"), dict):
        data = data["inputs"]
    if isinstance(data, dict) and isinstance(data.get("messages"), list):
        return data["messages"], data.get("tools")
    if isinstance(data, list):
        return data, None
    raise SourceError(f"{path}: expected a JSON list of messages or an object with 'messages'")


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
