"""The small edits a maintainer makes first: close a turn the template leaves open, and
write a ``%``-format with ``~`` so that llama.cpp's engine renders what jinja2 renders.

Input: a ``TemplateSession`` and the failure classes of its fix search. Output:
``Candidate`` template edits (none verified here: ``explorer.doctor.fixes`` holds each to
the acceptance standard):

- ``turn-unclosed`` (``explorer.triage.health_template.unclosed_turns``): the text a plain
  assistant turn ends with, written after the statement that loops over the turn's calls
  (or after the expression that writes the tool result's last text);
- ``renders-literally`` (``literal_formats``): ``'a %s b'|format(x)`` rewritten as
  ``('a ' ~ x ~ ' b')`` when every placeholder is ``%s``, ``%d`` or ``%i`` and the
  arguments are as many (``%%`` is a percent sign).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass

from explorer.analysis.model import FIELD_NAMES
from explorer.doctor.edits import Splice, jinja_string, last_writer, spliced
from explorer.doctor.model import Claim
from explorer.doctor.turns import CALL_VARIANTS, segments, session_renders, words
from explorer.jsontypes import Json
from explorer.session import TemplateSession
from explorer.triage.health_template import LiteralFormat, Unclosed, literal_formats, unclosed_turns


@dataclass(frozen=True)
class SmallEdit:
    """A template edit and what the acceptance standard holds it to (see ``Candidate``)."""

    summary: str
    classes: tuple[str, ...]
    patched: str
    names: tuple[str, ...]
    claim: Claim
    named_fields: tuple[str, ...] = ()


_CALL: dict[str, Json] = {"role": "assistant", "content": "", "tool_calls": [
    {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Zqx7"}}}]}
_TOOL: dict[str, Json] = {"role": "tool", "tool_call_id": "call_1", "content": "Tlq8"}
_FOR = re.compile(r"\{%([-+]?)\s*for\b[^%]*?\btool_calls\b[^%]*%\}")
_BLOCK = re.compile(r"\{%[-+]?\s*(for|endfor)\b[^%]*%\}")
_SPEC = re.compile(r"%[-#0 +]*\d*(?:\.\d+)?[a-zA-Z%]")


def _after_loop(text: str, at: int) -> int:
    """Where the ``{% for ... tool_calls %}`` loop around ``at`` ends (``at`` when none)."""
    opener = None
    for m in _FOR.finditer(text, 0, at):
        opener = m
    if opener is None:
        return at
    depth = 0
    for m in _BLOCK.finditer(text, opener.start()):
        depth += 1 if m.group(1) == "for" else -1
        if depth == 0:
            return m.end() if m.end() > at else at
    return at


def _close_edit(session: TemplateSession, turn: Unclosed) -> tuple[str, int] | None:
    """The patched text and the line of the insertion."""
    text = session.text
    messages = (_CALL,) if turn.turn == "call" else (_CALL, _TOOL)
    found = last_writer(text, session.caps, messages, "Zqx7" if turn.turn == "call" else "Tlq8")
    if found is None:
        return None
    _, expr = found
    at = _after_loop(text, expr.end) if turn.turn == "call" else expr.end
    patched = spliced(text, (Splice(at, at, "{{- " + jinja_string(turn.end) + " }}"),))
    return (patched, text.count("\n", 0, at) + 1) if patched else None


def closing_edits(session: TemplateSession, keys: set[str]) -> Iterator[SmallEdit]:
    if "turn-unclosed" not in keys:
        return
    for turn in unclosed_turns(session):
        made = _close_edit(session, turn)
        if made is None:
            continue
        patched, line = made
        what = "each assistant turn with tool calls" if turn.turn == "call" else "each tool result"
        variants = CALL_VARIANTS if turn.turn == "call" else ("tool",)
        yield SmallEdit(f"close {what} with {turn.end!r}, as a plain assistant turn is closed (line {line})",
                        ("turn-unclosed",), patched, variants, Claim("closes", variants, turn.closer))


# --- %-formats --------------------------------------------------------------------------------


def _arguments(text: str, open_at: int) -> tuple[list[str], int] | None:
    """The top-level comma-separated arguments of the call whose ``(`` is at ``open_at``,
    and where its ``)`` ends."""
    depth, quote, start, out = 0, "", open_at + 1, []
    for i in range(open_at, len(text)):
        ch = text[i]
        if quote:
            if ch == "\\":
                continue
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                out.append(text[start:i].strip())
                return [a for a in out if a], i + 1
        elif ch == "," and depth == 1:
            out.append(text[start:i].strip())
            start = i + 1
    return None


def _concatenation(literal: str, quote: str, args: list[str]) -> str | None:
    pieces: list[str] = []
    last, used = 0, 0
    for m in _SPEC.finditer(literal):
        spec = m.group(0)
        if spec == "%%":
            continue
        if spec not in ("%s", "%d", "%i") or used >= len(args):
            return None
        pieces.append(quote + literal[last:m.start()].replace("%%", "%") + quote)
        pieces.append("(" + args[used] + ")")
        used += 1
        last = m.end()
    if used != len(args):
        return None
    pieces.append(quote + literal[last:].replace("%%", "%") + quote)
    kept = [p for p in pieces if p != quote + quote]
    return "(" + " ~ ".join(kept) + ")"


def _literal_edit(text: str, found: LiteralFormat) -> str | None:
    for m in re.finditer(re.escape(found.literal), text):
        quote = text[m.start() - 1] if m.start() else ""
        after = re.match(r"\s*\|\s*format\s*\(", text[m.end() + 1:])
        if quote not in "'\"" or after is None:
            continue
        open_at = m.end() + 1 + after.end() - 1
        parsed = _arguments(text, open_at)
        if parsed is None:
            return None
        args, end = parsed
        new = _concatenation(found.literal, quote, args)
        return None if new is None else text[:m.start() - 1] + new + text[end:]
    return None


def _plain(literal: str, quote: str) -> str:
    try:
        value = ast.literal_eval(quote + literal + quote)
    except (SyntaxError, ValueError):
        return literal
    return value if isinstance(value, str) else literal


def _turns_writing(session: TemplateSession, written: str) -> tuple[str, ...]:
    """The turns whose llama.cpp rendering holds ``written`` (the literal as rendered)."""
    owners: dict[str, None] = {}
    for (dialect, _thinking), renders in session_renders(session).items():
        if dialect != "llama.cpp":
            continue
        for (conversation, k, generation), text in renders.renders:
            if text is None or written not in text:
                continue
            common = tuple(w for w in words(conversation, abs(k)) if w in text)
            for segment in segments(text, conversation, abs(k), generation, common).values():
                if written in segment.text:
                    owners.update(dict.fromkeys(segment.owners))
    return tuple(owners)


def literal_edits(session: TemplateSession, keys: set[str]) -> Iterator[SmallEdit]:
    if "renders-literally" not in keys:
        return
    for found in literal_formats(session.text):
        patched = _literal_edit(session.text, found)
        if patched is None:
            continue
        quote = "'" if f"'{found.literal}'" in session.text else '"'
        written = _plain(_SPEC.split(found.literal)[0], quote) or found.literal
        names = _turns_writing(session, _plain(found.literal, quote)) or _turns_writing(session, written)
        yield SmallEdit(f"write {found.literal!r}|format(...) with ~ (line {found.line}), which llama.cpp's engine "
                        "renders as jinja2 does; llama.cpp's analysis is then read from the text it writes",
                        ("renders-literally",), patched, names, Claim("literal", text=_plain(found.literal, quote)),
                        FIELD_NAMES)


__all__ = ["SmallEdit", "closing_edits", "literal_edits"]
