"""Template health checks read off the template's text and renderings, beside the analysis's.

Input: a ``TemplateSession``. Output: ``Finding`` s, each of a stable check id:

- ``empty-template`` (``EMPTY_CHECK``): the text is empty (or the word chatml), so llama.cpp
  puts its built-in ChatML template in its place and everything shown is ChatML's;
- ``template-turn-unclosed``: a plain assistant turn ends with an end-of-turn text, but an
  assistant turn with tool calls (or a tool result) is followed by nothing that closes it
  (``unclosed_turns`` gives the turn and the closing text, for the doctor's edit);
- ``template-renders-literally``: a ``'%s'|format(...)`` call, which llama.cpp's Jinja
  engine renders as the literal string (its format() knows only ``{}``), losing every
  argument, where transformers' jinja2 formats it (``literal_formats``);
- ``template-marker-is-role``: a role or turn marker (the assistant header, a
  ``<|begin_assistant|>``- or ``<[role_assistant]>``-shaped tag) read by llama.cpp's
  autoparser as a reasoning, content or tool-call marker.

On a specialised handler's route the autoparser's reading is not used: the marker check
is then information only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from explorer.analysis.overrides import string_fields
from explorer.apply import Request, apply_request, thinking_kwargs
from explorer.apply.templates import falls_back
from explorer.errors import ExplorerError
from explorer.jsontypes import Json
from explorer.roundtrip.cases import GET_WEATHER
from explorer.roundtrip.cut import probe_end_marker
from explorer.routing import AUTOPARSER
from explorer.triage.model import Finding, quote, shown

if TYPE_CHECKING:
    from explorer.session import TemplateSession

EMPTY_CHECK = "empty-template"
UNCLOSED_CHECK = "template-turn-unclosed"
LITERAL_CHECK = "template-renders-literally"
ROLE_CHECK = "template-marker-is-role"
TEMPLATE_CHECKS = (EMPTY_CHECK, UNCLOSED_CHECK, LITERAL_CHECK, ROLE_CHECK)
# what closes a call itself: quotes, braces, brackets and closing tags after its last argument
_CALL_CLOSING = re.compile(r"^(?:[\s\"'}\])]|</[\w:.|-]+>|<\|/[\w:.-]+\|>)*")
# A turn marker that names a role: <|assistant|>, <|begin_assistant|>, <[role_assistant]>, <start_of_turn>model
_ROLE = re.compile(r"<[|\[｜]?(?:[^<>\s]*?[^\w<>\s]|[^<>\s]*?_)?(assistant|user|system|model|human)"
                   r"(?:[^\w<>\s][^<>\s]*?|_[^<>\s]*?)?[|\]｜]?>", re.I)
_ROLE_WORD = re.compile(r"(?<![a-z])(assistant|user|system|model|human)(?![a-z])", re.I)
# a token that ends something: </x>, <x|>, <|/x|>, <|end…|>, <|eot_id|>, <|END_OF_TURN_TOKEN|>
_ENDING = re.compile(r"</[\w:.|-]+>|<[\w:.-]+\|>|<\|/[\w:.-]+\|>|<[|｜][^<>\s]*(?:end|eot|eom|END)[^<>\s]*[|｜]>")
# '...%s...'|format(...): a %-style format string through the format filter
_PERCENT_FORMAT = re.compile(r"(['\"])((?:(?!\1)[^\\\n]|\\.)*%[-#0 +]*\d*(?:\.\d+)?[sdifrxXeEgGc](?:(?!\1)[^\\\n]|"
                             r"\\.)*)\1\s*\|\s*format\s*\(")
_MARKER_FIELDS = ("reasoning.start", "reasoning.end", "content.start", "content.end", "tools.format.section_start",
                  "tools.format.per_call_start", "tools.function.name_prefix")


def empty_finding(text: str) -> Finding | None:
    """The first finding of an empty template (or the word chatml): what llama.cpp does."""
    if not falls_back(text):
        return None
    what = "empty" if text == "" else "the word chatml"
    return Finding(
        check=EMPTY_CHECK, severity="warning",
        summary=(f"The template is {what}: llama.cpp does not analyse it as written. common_chat_templates_init "
                 "puts its built-in ChatML template in its place (the model's tool_use template instead, when it "
                 "has one), so the route, analysis, round trip and fixes reported here are that ChatML template's, "
                 "not a model's, and no template line of this file is named."),
        fix_hint="Template side: ship the model's chat template (tokenizer_config.json chat_template).",
        fix_where="template", llama_cpp="common_chat_templates_init (chat.cpp)")


# --- turns the template never closes ------------------------------------------------------

TurnKind = Literal["call", "tool"]


@dataclass(frozen=True)
class Unclosed:
    """A turn the template leaves open: which, the text plain turns close with, and what
    follows the turn instead."""

    turn: TurnKind
    closer: str  # stripped
    found: str
    end: str = ""  # the plain turn's whole end (the closer with its whitespace)


def _render(session: TemplateSession, messages: tuple[dict[str, Json], ...]) -> str | None:
    request = Request(messages=({"role": "user", "content": "Hello"}, *messages), tools=(GET_WEATHER,),
                      enable_thinking=False, chat_template_kwargs=thinking_kwargs(False), add_generation_prompt=False)
    try:
        return apply_request(session.templates, request, caps=session.caps).prompt
    except ExplorerError:
        return None


def _call(city: str) -> dict[str, Json]:
    return {"role": "assistant", "content": "", "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": {"city": city}}}]}


@lru_cache(maxsize=64)
def unclosed_turns(session: TemplateSession) -> tuple[Unclosed, ...]:
    """The call turn and the tool-result turn, when the template closes neither the way it
    closes a plain assistant turn (and, for the tool result, a user turn)."""
    if session.render_budget_exhausted or not session.caps.supports_tool_calls:
        return ()
    one = _render(session, ({"role": "assistant", "content": "X"},))
    two = _render(session, ({"role": "assistant", "content": "XY"},))
    if one is None or two is None:
        return ()
    end = probe_end_marker(one, two).marker or ""
    closer = end.strip()
    if not closer:
        return ()
    out: list[Unclosed] = []
    call = _render(session, (_call("Zqx7"),))
    if call is not None and "Zqx7" in call:
        tail = call[call.rfind("Zqx7") + 4:]
        if closer not in tail and not _CALL_CLOSING.sub("", tail):  # nothing after the call's own closing
            out.append(Unclosed("call", closer, tail, end))
    after_user = one[one.find("Hello") + 5:one.rfind("X")]
    tool = _render(session, (_call("Zqx7"), {"role": "tool", "tool_call_id": "call_1", "content": "Tlq8"},
                             {"role": "assistant", "content": "Awz9"}))
    if tool is not None and "Tlq8" in tool and "Awz9" in tool and closer in after_user:
        gap = tool[tool.find("Tlq8") + 4:tool.find("Awz9")]
        if closer not in gap and not _ENDING.search(gap):
            out.append(Unclosed("tool", closer, gap, end))
    return tuple(out)


_TURN_WORDS: dict[TurnKind, str] = {"call": "an assistant turn with tool calls", "tool": "a tool result"}


def _unclosed_findings(session: TemplateSession) -> Iterator[Finding]:
    for turn in unclosed_turns(session):
        yield Finding(
            check=UNCLOSED_CHECK, severity="warning",
            summary=(f"The template never closes {_TURN_WORDS[turn.turn]}: a plain assistant turn ends with "
                     f"{shown(turn.closer)}, but " + (
                         f"a turn with tool calls ends right after its call ({quote(turn.found, 40)})"
                         if turn.turn == "call" else
                         f"a tool result is followed by {quote(turn.found, 40) if turn.found else 'the next turn'} "
                         "without it") + "."),
            detail=("llama.cpp's autoparser reads the turn's end from the plain turn; a turn that is never closed "
                    "leaves the parser (and the model) without that end."),
            expected=turn.closer, found=turn.found[:80],
            fix_hint=f"Template side: write {shown(turn.closer)} after {_TURN_WORDS[turn.turn]}.",
            fix_where="template")


# --- constructs llama.cpp's engine renders literally ------------------------------------------


@dataclass(frozen=True)
class LiteralFormat:
    """A ``'...%s...'|format(...)`` call: its line, the format string (as written)."""

    line: int
    literal: str


def literal_formats(source: str) -> tuple[LiteralFormat, ...]:
    out: list[LiteralFormat] = []
    for m in _PERCENT_FORMAT.finditer(source):
        out.append(LiteralFormat(source.count("\n", 0, m.start()) + 1, m.group(2)))
    return tuple(out)


def _literal_findings(session: TemplateSession) -> Iterator[Finding]:
    for found in literal_formats(session.compiled.source):
        yield Finding(
            check=LITERAL_CHECK, severity="warning",
            summary=(f"llama.cpp's Jinja engine renders {shown(found.literal)}|format(...) literally: its format() "
                     "knows only '{}' placeholders, so every argument is lost (transformers' jinja2 fills the "
                     "%-placeholders in)."),
            detail="common/jinja/value.cpp: format() copies every character that is not '{}' as it is.",
            expected="the format string with its arguments filled in", found=found.literal,
            fix_hint="Template side: build the text with ~ (concatenation), which both engines render alike.",
            fix_where="template", quirk=True, llama_cpp="the Jinja format() filter (common/jinja/value.cpp)",
            template_line=found.line)


# --- a role marker read as another marker ----------------------------------------------------


def _role_findings(session: TemplateSession) -> Iterator[Finding]:
    if session.analysis_error is not None:
        return
    analysis = session.analysis
    routed = session.handler != AUTOPARSER
    headers = {h.strip() for h in (analysis.assistant_start, analysis.user_start) if h.strip()}
    for name, value in string_fields(analysis):
        if name not in _MARKER_FIELDS or not value.strip():
            continue
        marker = value.strip()
        named = [h for h in headers if h in marker and _ROLE_WORD.search(h)]
        role = named[0] if named else (m.group(0) if (m := _ROLE.search(marker)) else None)
        if role is None:
            continue
        yield Finding(
            check=ROLE_CHECK, severity="info" if routed else "warning",
            summary=(f"llama.cpp's autoparser reads the turn marker {shown(role)} as {name} ({shown(value)}): a "
                     "role's header is not a reasoning, content or tool-call marker, so what the model writes after "
                     "it is read by the wrong rule." + (f" llama.cpp sends this template to its '{session.handler}' "
                                                         "handler, so this reading is not used." if routed else "")),
            detail=("The autoparser keeps what differs between two renderings; when the turn's header is written "
                    "only with the thing probed, the header becomes that thing's marker."),
            fix_hint=("llama.cpp side: a workaround that sets this field for templates like this one; turning "
                      "thinking off is no fix: it hides the misreading."),
            fix_where="llama.cpp" if not routed else "model", quirk=not routed, field=name,
            llama_cpp="autoparser::analyze_template (chat-diff-analyzer.cpp)")


def template_findings(session: TemplateSession) -> tuple[Finding, ...]:
    """Every check of this module on the session's template (an empty one: that alone)."""
    empty = empty_finding(session.text)
    if empty is not None:
        return (empty,)
    if session.render_budget_exhausted:
        return ()
    return (*_unclosed_findings(session), *_literal_findings(session), *_role_findings(session))


__all__ = ["EMPTY_CHECK", "LITERAL_CHECK", "ROLE_CHECK", "TEMPLATE_CHECKS", "UNCLOSED_CHECK", "LiteralFormat",
           "Unclosed", "empty_finding", "literal_formats", "template_findings", "unclosed_turns"]
