"""Every turn of a small message set, rendered in both dialects: what a fix must leave alone.

Input: a template's text (and the ``ChatTemplates`` llama.cpp builds of it), its
capabilities, a thinking setting and an optional ``RequestChange``. Output:
``TurnRenders``: for each conversation of ``CONVERSATIONS`` (system, user, assistant
turns of every variant: content, reasoning, tool calls, content and calls, reasoning and
calls, a reply after a tool result; tool results), in llama.cpp's dialect (its apply path,
as llama-server renders a request) and in the transformers dialect (jinja2, the messages as
sent), each turn's text twice: as a history turn (its segment of the whole conversation)
and as the last turn (what appending it added to the conversation before it), and the
generation prompt after the whole conversation. A render that raises is None.

A turn's segment runs from where the conversation before it stops being a prefix of the
whole rendering to where the conversation with it stops being one, so a header, the
content and the closing token of a turn are that turn's, and a template that rewrites an
earlier turn once a later one comes (the last user turn, the last assistant turn) shows it
in the later turn's "as last" text.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from explorer.apply import Request, apply_request, thinking_kwargs
from explorer.apply.templates import ChatTemplates, falls_back
from explorer.caps import Caps
from explorer.errors import ExplorerError
from explorer.jsontypes import Json
from explorer.render import CompiledTemplate, RenderInputs, compile_template, fixed_clock, render
from explorer.render.template import Dialect
from explorer.roundtrip.cases import GET_WEATHER
from explorer.roundtrip.run import RequestChange
from explorer.session import TemplateSession

DIALECTS: tuple[Dialect, ...] = ("llama.cpp", "transformers")
Variant = Literal["system", "user", "tool", "assistant", "assistant+reasoning", "assistant+calls",
                  "assistant+content+calls", "assistant+reasoning+calls", "assistant-after-tool",
                  "assistant-after-tool+reasoning", "generation-prompt", "preamble"]
ASSISTANT_VARIANTS: tuple[Variant, ...] = (
    "assistant", "assistant+reasoning", "assistant+calls", "assistant+content+calls", "assistant+reasoning+calls",
    "assistant-after-tool", "assistant-after-tool+reasoning")
ALL_VARIANTS: tuple[Variant, ...] = ("system", "user", "tool", *ASSISTANT_VARIANTS, "generation-prompt", "preamble")
CALL_VARIANTS: tuple[Variant, ...] = ("assistant+calls", "assistant+content+calls", "assistant+reasoning+calls")
REASONING_VARIANTS: tuple[Variant, ...] = ("assistant+reasoning", "assistant+reasoning+calls",
                                           "assistant-after-tool+reasoning")
TOOLS: tuple[dict[str, Json], ...] = (GET_WEATHER,)


def _call(n: int, city: str) -> dict[str, Json]:
    return {"id": f"call_{n}", "type": "function", "function": {"name": "get_weather", "arguments": {"city": city}}}


@dataclass(frozen=True)
class Turn:
    variant: Variant
    message: Mapping[str, Json]

    @property
    def texts(self) -> tuple[str, ...]:
        """The message's own words (content, reasoning, a call's argument), each unique in the set."""
        out = [v for k in ("content", "reasoning_content") if isinstance(v := self.message.get(k), str) and v]
        calls = self.message.get("tool_calls")
        for call in calls if isinstance(calls, list) else ():
            function = call.get("function") if isinstance(call, Mapping) else None
            arguments = function.get("arguments") if isinstance(function, Mapping) else None
            if isinstance(arguments, Mapping):
                out += [str(v) for v in arguments.values()]
        return tuple(out)


def _a(variant: Variant, **fields: Json) -> Turn:
    return Turn(variant, {"role": "assistant", **fields})


CONVERSATIONS: tuple[tuple[str, tuple[Turn, ...]], ...] = (
    ("chat", (
        Turn("system", {"role": "system", "content": "Answer briefly, Sys9"}),
        Turn("user", {"role": "user", "content": "First question Usr1"}),
        _a("assistant", content="First answer Ast1"),
        Turn("user", {"role": "user", "content": "Second question Usr2"}),
        _a("assistant+reasoning", reasoning_content="Second thought Rsn2", content="Second answer Ast2"))),
    ("tools", (
        Turn("user", {"role": "user", "content": "Weather question Usr3"}),
        _a("assistant+reasoning+calls", reasoning_content="Call thought Rsn3", content="",
           tool_calls=[_call(1, "Oslo")]),
        Turn("tool", {"role": "tool", "tool_call_id": "call_1", "content": "Tool result Tol1"}),
        _a("assistant-after-tool", content="After tool Ast4"),
        Turn("user", {"role": "user", "content": "Another question Usr4"}),
        _a("assistant+content+calls", content="Let me look Ast5", tool_calls=[_call(2, "Lima")]),
        Turn("tool", {"role": "tool", "tool_call_id": "call_2", "content": "Tool result Tol2"}),
        _a("assistant-after-tool+reasoning", reasoning_content="Result thought Rsn6", content="After tool Ast6"))),
    ("history", (
        Turn("user", {"role": "user", "content": "Earlier question Usr6"}),
        _a("assistant+reasoning", reasoning_content="Earlier thought Rsn8", content="Earlier answer Ast8"),
        Turn("user", {"role": "user", "content": "Later question Usr7"}),
        _a("assistant", content="Later answer Ast9"))),
    ("calls", (
        Turn("user", {"role": "user", "content": "Plain call Usr5"}),
        _a("assistant+calls", content="", tool_calls=[_call(3, "Kyiv")]),
        Turn("tool", {"role": "tool", "tool_call_id": "call_3", "content": "Tool result Tol3"}),
        _a("assistant-after-tool", content="After tool Ast7"))),
)


Key = tuple[str, int, bool]  # (conversation, messages rendered, with the generation prompt)


class TurnRenders:
    """Every prefix of every conversation, rendered in one dialect and thinking setting:
    ``(conversation, k, False)`` is its first k messages, ``(conversation, n, True)`` all n
    with the generation prompt (None: the render raised). Each is rendered when first
    asked for (``get``), all of them for ``renders``."""

    def __init__(self, renderer: _Renderer) -> None:
        self.renderer = renderer
        self.dialect: Dialect = renderer.dialect
        self.enable_thinking = renderer.thinking
        self._done: dict[Key, str | None] = {}

    @property
    def error(self) -> str:
        """Why the dialect cannot load the template at all ("" when it can)."""
        return self.renderer.load_error

    def get(self, key: Key) -> str | None:
        if key not in self._done:
            name, k, generation = key
            turns = _turns(name)
            self._done[key] = self.renderer.render(tuple(t.message for t in turns[:k]), generation)
        return self._done[key]

    @property
    def renders(self) -> tuple[tuple[Key, str | None], ...]:
        return tuple((key, self.get(key)) for key in ALL_KEYS)


@dataclass(frozen=True)
class Segment:
    """A piece of one rendering between two of its messages' own words, and the turns it
    belongs to (a piece between two turns' words is both turns': the one's closing and
    the other's header)."""

    text: str
    owners: tuple[Variant, ...]
    turns: tuple[int, ...]


def words(conversation: str, k: int) -> dict[str, int]:
    """Each of the first k messages' own words, with the index of the message it is of."""
    return {word: index for index, turn in enumerate(_turns(conversation)[:k]) for word in turn.texts}


def segments(rendering: str, conversation: str, k: int, generation: bool, anchors: tuple[str, ...]
             ) -> dict[str, Segment]:
    """The rendering's pieces between ``anchors`` (message words it holds), each under the
    word before it ("^" for the first piece)."""
    turns = _turns(conversation)[:k]
    owner_of = words(conversation, k)
    marks = sorted((at, word) for word in anchors if (at := rendering.find(word)) >= 0)
    out: dict[str, Segment] = {}
    at, owner, before = 0, 0, "^"
    for found, word in marks:
        if found < at:
            continue  # overlapping words: the later one is read as part of the piece
        index = owner_of[word]
        out[before] = _segment(rendering[at:found], turns, min(owner, index), max(owner, index),
                               preamble=before == "^", generation=False)
        at, owner, before = found + len(word), index, word
    out[before] = _segment(rendering[at:], turns, owner, len(turns) - 1, preamble=before == "^",
                           generation=generation)
    return out


def _segment(text: str, turns: tuple[Turn, ...], first: int, last: int, *, preamble: bool, generation: bool
             ) -> Segment:
    indices = tuple(range(first, last + 1))
    owners: list[Variant] = [turns[i].variant for i in indices]
    if preamble:  # before the first words: the tool list and the system preamble
        owners.append("preamble")
    if generation:
        owners.append("generation-prompt")
    return Segment(text, tuple(dict.fromkeys(owners)), indices)


def _turns(conversation: str) -> tuple[Turn, ...]:
    return next(turns for name, turns in CONVERSATIONS if name == conversation)


class _Renderer:
    """One dialect's render of a conversation (None when it raises)."""

    def __init__(self, text: str, templates: ChatTemplates, caps: Caps, dialect: Dialect, thinking: bool,
                 change: RequestChange | None) -> None:
        self.text, self.templates, self.caps, self.dialect, self.thinking = text, templates, caps, dialect, thinking
        self.change = change
        self._compiled: CompiledTemplate | None = None
        self._error: str | None = None

    @property
    def load_error(self) -> str:
        self._load()
        return self._error or ""

    def _load(self) -> CompiledTemplate | None:
        if self._error is None and self._compiled is None:
            self._error = ""
            if falls_back(self.text):
                self._error = "transformers has no chat template to render (llama.cpp's ChatML fallback is its alone)"
            else:
                try:
                    self._compiled = compile_template(self.text, "transformers")
                except ExplorerError as exc:
                    self._error = str(exc)
        return self._compiled

    def request(self, messages: tuple[Mapping[str, Json], ...], generation: bool) -> Request:
        request = Request(messages=tuple(copy.deepcopy(dict(m)) for m in messages), tools=TOOLS,
                          parallel_tool_calls=bool(self.caps.supports_parallel_tool_calls),
                          enable_thinking=self.thinking, chat_template_kwargs=thinking_kwargs(self.thinking),
                          add_generation_prompt=generation)
        return self.change.apply(request) if self.change is not None else request

    def render(self, messages: tuple[Mapping[str, Json], ...], generation: bool) -> str | None:
        request = self.request(messages, generation)
        try:
            if self.dialect == "llama.cpp":
                return apply_request(self.templates, request, caps=self.caps).prompt
            compiled = self._load()
            if compiled is None:
                return None
            return render(compiled, RenderInputs(
                messages=[dict(m) for m in request.messages], tools=list(request.tools or ()),
                add_generation_prompt=generation, enable_thinking=request.enable_thinking,
                extra_context=dict(request.chat_template_kwargs)), clock=fixed_clock)
        except ExplorerError:
            return None


def turn_renders(text: str, templates: ChatTemplates, caps: Caps, dialect: Dialect, thinking: bool,
                 change: RequestChange | None = None) -> TurnRenders:
    """Every prefix of every conversation of ``CONVERSATIONS`` in one dialect and thinking
    setting, and each whole conversation with the generation prompt (rendered when asked for)."""
    return TurnRenders(_Renderer(text, templates, caps, dialect, thinking, change))


ALL_KEYS: tuple[Key, ...] = tuple(
    key for name, turns in CONVERSATIONS
    for key in (*((name, k, False) for k in range(1, len(turns) + 1)), (name, len(turns), True)))


RendersKey = tuple[Dialect, bool]


@lru_cache(maxsize=32)
def session_renders(session: TemplateSession, change: RequestChange | None = None
                    ) -> dict[RendersKey, TurnRenders]:
    """Both dialects' and both thinking settings' renders of the session's template (under
    ``change``), made once per session."""
    return {(d, t): turn_renders(session.text, session.templates, session.caps, d, t, change)
            for d in DIALECTS for t in (False, True)}


def turn_of(conversation: str, index: int) -> Turn | None:
    for name, turns in CONVERSATIONS:
        if name == conversation and 0 <= index < len(turns):
            return turns[index]
    return None


def variants_with(predicate: str) -> tuple[Variant, ...]:
    """The assistant variants whose message has ``predicate`` (content, reasoning_content, tool_calls)."""
    found: dict[Variant, None] = {}
    for _, turns in CONVERSATIONS:
        for turn in turns:
            if turn.variant in ASSISTANT_VARIANTS and turn.message.get(predicate):
                found[turn.variant] = None
    return tuple(found)


def assistant_turns() -> Iterator[tuple[str, int, Turn]]:
    for name, turns in CONVERSATIONS:
        for index, turn in enumerate(turns):
            if turn.variant in ASSISTANT_VARIANTS:
                yield name, index, turn


__all__ = ["ALL_VARIANTS", "ASSISTANT_VARIANTS", "CALL_VARIANTS", "CONVERSATIONS", "DIALECTS", "REASONING_VARIANTS", "TOOLS",
           "Key", "RendersKey", "Segment", "Turn", "TurnRenders", "Variant", "assistant_turns", "turn_of", "turn_renders",
           "segments", "session_renders", "variants_with", "words"]
