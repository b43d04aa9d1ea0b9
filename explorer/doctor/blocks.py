"""The ``{% if %}`` branches a template line stands in: the conditions that decide it is written.

Input: a template's source and a 1-based line. Output: ``enclosing_branches``: from the
innermost out, each open ``if``/``elif``/``else`` branch around the line (its header's
line and text, and for an ``else`` the line of its ``if``), read off the statement tags
alone (``{% if %}``, ``{% elif %}``, ``{% else %}``, ``{% endif %}``, the ``for`` and
``macro`` blocks that an ``else`` may also close); comments and string literals are
skipped. A line the scanner cannot place (unbalanced tags) gets no branches.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TAG = re.compile(r"\{#.*?#\}|\{%[-+]?\s*(\w+)(.*?)[-+]?%\}", re.S)
_OPENERS = {"if": "endif", "for": "endfor", "macro": "endmacro", "call": "endcall", "filter": "endfilter"}
_CLOSERS = {v: k for k, v in _OPENERS.items()}


@dataclass(frozen=True)
class Branch:
    """One open branch: its header's line and text (``{% elif x %}``), and the ``if``'s."""

    line: int
    text: str
    if_line: int
    if_text: str = ""  # the ``{% if %}`` header the branch belongs to

    @property
    def is_else(self) -> bool:
        return self.text.lstrip("{%-+ ").startswith("else")


def _line_at(source: str, offset: int) -> int:
    return source.count("\n", 0, offset) + 1


def enclosing_branches(source: str, line: int) -> tuple[Branch, ...]:
    """The open ``if`` branches around ``line``, innermost first."""
    lines = source.split("\n")
    if not 0 < line <= len(lines):
        return ()
    at = sum(len(x) + 1 for x in lines[:line - 1])
    stack: list[tuple[str, Branch | None]] = []
    for m in _TAG.finditer(source):
        if m.start() >= at:
            break
        word = m.group(1)
        if word is None:
            continue
        if word == "set" and "=" not in m.group(2):
            stack.append(("set", None))  # {% set x %}...{% endset %}
        elif word == "endset" and stack and stack[-1][0] == "set":
            stack.pop()
        elif word in _OPENERS:
            here = _line_at(source, m.start())
            stack.append((word, Branch(here, m.group(0), here, m.group(0)) if word == "if" else None))
        elif word in ("elif", "else") and stack and stack[-1][0] == "if":
            branch = stack[-1][1]
            assert branch is not None
            stack[-1] = ("if", Branch(_line_at(source, m.start()), m.group(0), branch.if_line, branch.if_text))
        elif word in _CLOSERS:
            if not stack or stack[-1][0] != _CLOSERS[word]:
                return ()
            stack.pop()
    return tuple(b for kind, b in reversed(stack) if kind == "if" and b is not None)


__all__ = ["Branch", "enclosing_branches"]
