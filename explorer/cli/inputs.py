"""What the CLI commands read: a TEMPLATE spec, JSON files, a messages file.

Input: a TEMPLATE spec (path, ``hf:owner/repo[@rev][#name]``, ``example:NAME`` or ``-``)
or a JSON file path (``-`` for stdin). Output: the template text and its
``TemplateSource``, the decoded JSON, or (messages, tools). Errors are ``SourceError``s
naming the file. Not a command: ``explorer.cli`` lists its command modules by name.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from explorer.errors import SourceError


def load_template_text(spec: str) -> tuple[str, Any]:
    """Template text and its ``TemplateSource``."""
    from explorer.sources import resolve_spec

    source = resolve_spec(spec)
    return source.text, source


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
