"""Template edits: where in the source an assistant turn's content or call is written, and
the edited source that also writes what the template drops.

Input: a template's text, the session's capabilities, and what to add (the thinking
markers, the content next to calls). Output: ``TemplateEdit`` s, each a summary and the
patched text (none verified here: ``explorer.doctor.fixes`` verifies them by the round
trip of a session opened on the patched text), ``attribute_items_edit`` for a template
that reads a JSON schema's ``items`` as an attribute, and ``unified_diff``.

The place is found by rendering, not by reading the template's logic: every ``{{ ... }}``
expression gets an invisible numbered mark after it, an assistant turn with a unique
content (or a call) is rendered, and the mark right after that text names the expression
that wrote it. The edit then either wraps the content reference inside that expression
(``(REASONING + content)``) or inserts an expression before the statement that loops over
the turn's calls; both keep the template's whitespace control.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Literal

from explorer.apply.templates import init_templates
from explorer.caps import Caps
from explorer.errors import ExplorerError
from explorer.jsontypes import Json, JsonObject
from explorer.roundtrip.cases import DEFAULT_TOOLS
from explorer.roundtrip.run import LlamaSetting

_FOR_MESSAGES = re.compile(r"\{%[-+]?\s*for\s+(\w+)\s+in\s+(\w*messages\w*)\b")
_CONTENT_REF = re.compile(r"(?<![\w.'\"])(\w+)\s*(?:\.\s*content\b|\[\s*(['\"])content\2\s*\])|(?<![\w.'\"])content\b"
                          r"(?!\s*[=(])")
_MARK = "\u2063"  # invisible separator: no template writes it
_MARKED = re.compile(_MARK + r"(\d+)" + _MARK)
CONTENT_SENTINEL = "Zq9 content sentinel 7Xv"
_CALL_NAME = "get_weather"


@dataclass(frozen=True)
class TemplateEdit:
    summary: str
    patched: str


def jinja_string(text: str) -> str:
    """A Jinja string literal of ``text`` (JSON escapes, which Jinja and llama.cpp read)."""
    return json.dumps(text, ensure_ascii=False)


@dataclass(frozen=True)
class Expression:
    """One ``{{ ... }}`` of the source: where it is, its whitespace controls and its inside."""

    start: int
    end: int
    inner_start: int
    inner: str
    left: str  # "-", "+" or ""



def expressions(text: str) -> list[Expression]:
    """Every ``{{ ... }}`` outside comments and statements, string literals respected."""
    out: list[Expression] = []
    i, n = 0, len(text)
    while i < n:
        at = text.find("{", i)
        if at < 0 or at + 1 >= n:
            break
        kind = text[at + 1]
        if kind == "#":
            close = text.find("#}", at + 2)
            i = n if close < 0 else close + 2
        elif kind in "%{":
            closer = "%}" if kind == "%" else "}}"
            end = _closing(text, at + 2, closer)
            if end < 0:
                break
            if kind == "{":
                left = text[at + 2] if text[at + 2] in "-+" else ""
                a = at + 2 + len(left)
                b = end - 1 if text[end - 1] in "-+" and end - 1 >= a else end
                out.append(Expression(at, end + 2, a, text[a:b], left))
            i = end + 2
        else:
            i = at + 1
    return out


def _closing(text: str, i: int, closer: str) -> int:
    """Where ``closer`` ends the tag that starts before ``i`` (quotes skipped), or -1."""
    quote = ""
    n = len(text)
    while i < n:
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif text.startswith(closer, i):
            return i
        i += 1
    return -1


def _instrumented(text: str) -> tuple[str, list[Expression]]:
    spans = expressions(text)
    out: list[str] = []
    last = 0
    for i, e in enumerate(spans):
        out += [text[last:e.end], "{{ '", _MARK, str(i), _MARK, "' }}"]
        last = e.end
    out.append(text[last:])
    return "".join(out), spans


def _rendered(text: str, caps: Caps, message: Mapping[str, Json], thinking: bool) -> str | None:
    try:
        setting = LlamaSetting(init_templates(text), tuple(DEFAULT_TOOLS), caps, thinking)
        return setting.render(dict(message))
    except ExplorerError:
        return None


def _writer_of(rendering: str, needle: str, after: int = 0) -> int | None:
    """The index of the expression whose output holds ``needle`` (first after ``after``)."""
    at = rendering.find(needle, after)
    if at < 0:
        return None
    m = _MARKED.search(rendering, at + len(needle))
    if m is None:
        return None
    before = _MARKED.search(rendering[at:at + len(needle)])
    return None if before else int(m.group(1))


def locate(text: str, caps: Caps, message: Mapping[str, Json], needle: str) -> tuple[int, Expression] | None:
    """The expression (index, match in ``text``) that writes ``needle`` in the assistant
    turn of ``[user, message]`` (the tool list before the turn is skipped)."""
    marked, spans = _instrumented(text)
    for thinking in (False, True):
        rendering = _rendered(marked, caps, message, thinking)
        if rendering is None:
            continue
        user = rendering.rfind("Hello")
        index = _writer_of(rendering, needle, max(user, 0))
        if index is not None and index < len(spans):
            return index, spans[index]
    return None


def last_writer(text: str, caps: Caps, messages: tuple[Mapping[str, Json], ...], after: str
                ) -> tuple[int, Expression] | None:
    """The expression that writes the last visible text of ``[user, *messages]`` after
    ``after`` (no generation prompt; thinking off, then on)."""
    marked, spans = _instrumented(text)
    for thinking in (False, True):
        try:
            setting = LlamaSetting(init_templates(marked), tuple(DEFAULT_TOOLS), caps, thinking)
            rendering = setting.render(*(dict(m) for m in messages))
        except ExplorerError:
            continue
        start = rendering.rfind(after)
        if start < 0:
            continue
        marks = list(_MARKED.finditer(rendering, start))
        for i in range(len(marks) - 1, -1, -1):
            begin = marks[i - 1].end() if i else start
            written = _MARKED.sub("", rendering[begin:marks[i].start()])
            if written.strip():
                index = int(marks[i].group(1))
                return (index, spans[index]) if index < len(spans) else None
    return None


def _loop_variable(text: str, before: int) -> str:
    found = [m.group(1) for m in _FOR_MESSAGES.finditer(text, 0, before)]
    return found[-1] if found else "message"


@dataclass(frozen=True)
class Splice:
    """Replace ``text[start:end]`` with ``new``."""

    start: int
    end: int
    new: str


def spliced(text: str, splices: tuple[Splice, ...]) -> str:
    """``text`` with every splice made; "" when two of them overlap."""
    out = text
    last = len(text) + 1
    for s in sorted(splices, key=lambda s: (s.start, s.end), reverse=True):
        if s.end > last:
            return ""
        out = out[:s.start] + s.new + out[s.end:]
        last = s.start
    return out


def _wrapped_content(text: str, expr: Expression, block: str) -> Iterator[Splice]:
    """One content reference of ``expr`` written as ``(block + reference)``."""
    inner_start = expr.inner_start
    for ref in _CONTENT_REF.finditer(expr.inner):
        a, b = inner_start + ref.start(), inner_start + ref.end()
        yield Splice(a, b, "(" + block + " + " + text[a:b] + ")")


def _before_call_loop(text: str, expr: Expression, variable: str, written: str) -> Splice:
    """``{{ written }}`` just before the statement that loops over the turn's calls (or
    before the call's own expression when there is no loop), with that statement's left
    whitespace control."""
    loop = None
    pattern = re.compile(r"\{%([-+]?)\s*for\s+\w+\s+in\s+" + re.escape(variable)
                         + r"\s*(?:\.\s*tool_calls|\[\s*['\"]tool_calls['\"]\s*\])")
    for m in pattern.finditer(text, 0, expr.start):
        loop = m
    at, strip = (loop.start(), loop.group(1)) if loop is not None else (expr.start, expr.left)
    return Splice(at, at, "{{" + strip + " " + written + " }}")


def _after_header(expr: Expression, header: str, written: str) -> Splice | None:
    """``written`` spliced into ``expr`` right after the assistant header, when one of the
    expression's string literals writes the header and goes on after it."""
    header = header.strip()
    if not header:
        return None
    for lit in re.finditer(r"'([^'\\]*)'|\"([^\"\\]*)\"", expr.inner):
        value = lit.group(1) if lit.group(1) is not None else lit.group(2)
        cut = value.find(header)
        if cut < 0 or cut + len(header) == len(value):
            continue
        quote = expr.inner[lit.start()]
        at = expr.inner_start + lit.start() + 1 + cut + len(header)
        return Splice(at, at, quote + " + " + written + " + " + quote)
    return None


BlockMode = Literal["present", "always", "empty"]


def reasoning_edits(text: str, caps: Caps, start: str, end: str, header: str, *, mode: BlockMode
                    ) -> tuple[TemplateEdit, ...]:
    """Edits that write a thinking block before the turn's content and before its calls
    (each alone, and both). ``mode``: "present" writes the turn's reasoning_content when it
    has one; "always" also writes an empty block when it has none; "empty" writes only the
    empty block, for a template that writes the reasoning itself (a history turn then
    looks like what a model writes after a generation prompt that opens the block)."""
    content: list[Splice] = []
    found = locate(text, caps, {"role": "assistant", "content": CONTENT_SENTINEL}, CONTENT_SENTINEL)
    if found is not None:
        block = _reasoning_block(_loop_variable(text, found[1].start), start, end, mode)
        content = list(_wrapped_content(text, found[1], block))
    calls = _call_splices(text, caps, lambda v: _reasoning_block(v, start, end, mode), header)
    combos = [(c, k) for c in content[:1] for k in calls] + [(c,) for c in content] + [(k,) for k in calls]
    out: dict[str, TemplateEdit] = {}
    for combo in combos:
        patched = spliced(text, combo)
        where = " and ".join(("before its content" if s in content else "before its calls")
                             + f" (line {text.count(chr(10), 0, s.start) + 1})"
                             for s in sorted(combo, key=lambda s: s.start))
        if patched and patched not in out:
            out[patched] = TemplateEdit(_reasoning_summary(start, end, mode) + " " + where, patched)
    return tuple(out.values())


def _call_splices(text: str, caps: Caps, block_for: Callable[[str], str], header: str) -> list[Splice]:
    message: JsonObject = {"role": "assistant", "content": "", "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": _CALL_NAME, "arguments": {"city": "Paris"}}}]}
    found = locate(text, caps, message, _CALL_NAME)
    if found is None:
        return []
    variable = _loop_variable(text, found[1].start)
    written = block_for(variable)
    out = [_before_call_loop(text, found[1], variable, written), _after_header(found[1], header, written)]
    return [p for p in out if p is not None]


def _reasoning_block(variable: str, start: str, end: str, mode: BlockMode) -> str:
    rc = f"{variable}.reasoning_content"
    has = f"{rc} is string and {rc}"
    if mode == "always":
        return f"({jinja_string(start)} + ({rc} if {has} else '') + {jinja_string(end)})"
    if mode == "empty":
        return f"('' if {has} else {jinja_string(start + end)})"
    return f"(({jinja_string(start)} + {rc} + {jinja_string(end)}) if {has} else '')"


def _reasoning_summary(start: str, end: str, mode: BlockMode) -> str:
    block = f"{start}…{end}".replace("\n", "\\n")
    if mode == "empty":
        return f"render an empty thinking block {(start + end)!r} in assistant turns without reasoning_content,"
    return (f"render each assistant turn's reasoning_content as {block}"
            + (" (an empty block when it has none)," if mode == "always" else ","))


def content_edits(text: str, caps: Caps, header: str) -> tuple[TemplateEdit, ...]:
    """Edits that write an assistant turn's content before its tool calls (right before,
    or after a newline)."""
    out: list[TemplateEdit] = []
    for sep in ("", "\n"):
        def block(variable: str, sep: str = sep) -> str:
            content = f"{variable}.content"
            written = f"({jinja_string(sep)} + {content})" if sep else content
            return f"({written} if {content} is string and {content} else '')"
        for splice in _call_splices(text, caps, block, header):
            line = text.count("\n", 0, splice.start) + 1
            out.append(TemplateEdit(f"render an assistant turn's content before its tool calls (line {line}"
                                    + (", after a newline)" if sep else ")"), spliced(text, (splice,))))
    return tuple(out)


def attribute_items_edit(text: str) -> TemplateEdit | None:
    """``x.items`` read as a JSON schema's "items" is the mapping's items() method in
    llama.cpp's Jinja (and in jinja2): ``x['items']`` reads the key."""
    patched = re.sub(r"(?<=[\w\]\)])\.items\b(?!\s*\()", "['items']", text)
    if patched == text:
        return None
    return TemplateEdit("read a JSON schema's items as x['items'] (x.items is the mapping's items method)", patched)


def unified_diff(before: str, after: str, name: str) -> str:
    """A unified diff ``patch -p1`` applies to ``name`` (a missing final newline is marked)."""
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    lines = []
    for line in difflib.unified_diff(a, b, fromfile=f"a/{name}", tofile=f"b/{name}"):
        lines.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(lines)


__all__ = ["CONTENT_SENTINEL", "TemplateEdit", "attribute_items_edit", "content_edits", "jinja_string", "locate",
           "reasoning_edits", "unified_diff"]
