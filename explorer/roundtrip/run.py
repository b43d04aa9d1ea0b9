"""Running one message through the round trip, as llama.cpp's oracle harness does.

Input: how the conversations are rendered (``LlamaSetting``: the template pair, tools,
caps, thinking setting and an optional ``RequestChange`` to the oracle's request; or any
object with ``render``), the next-turn chat params and one assistant message. Output: a
``RoundTripCase``: the rendering R (with the Mistral id retry), the reply cut out of it,
its end of turn removed, llama.cpp's parse and the comparison with the message.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from explorer.apply import AppliedPrompt, Request, apply_request, thinking_kwargs
from explorer.apply.pipeline import ChatParams
from explorer.apply.prompt import Prompter
from explorer.apply.templates import ChatTemplates
from explorer.caps import Caps
from explorer.errors import ExplorerError, RequestError, exception_json
from explorer.jsontypes import JsonObject
from explorer.output.parse import OutputParse
from explorer.roundtrip.compare import compare
from explorer.roundtrip.cut import EndMarker, cut_reply, probe_end_marker, strip_end
from explorer.roundtrip.model import RoundTripCase
from explorer.vocabulary import REASONING_FORMATS

USER: JsonObject = {"role": "user", "content": "Hello"}
RETRY_IDS = ("call00001", "call00002", "call00003", "call00004")


class Renders(Protocol):
    """Whatever renders ``[user, *messages]`` without a generation prompt."""

    def render(self, *messages: dict[str, Any]) -> str: ...


KwargValue = str | bool | int | float


CHANGE_FIELDS = ("chat_template_kwargs", "reasoning_format", "parallel_tool_calls", "tool_order")


def tool_name(tool: Mapping[str, object]) -> str:
    """An OpenAI tool's function name (``""`` when it has none)."""
    function = tool.get("function", tool)
    name = function.get("name") if isinstance(function, Mapping) else None
    return name if isinstance(name, str) else ""


@dataclass(frozen=True)
class RequestChange:
    """What a client changes in the oracle's request (every rendering and the next-turn
    request alike, as a client sends one request shape for a conversation). None keeps the
    oracle's value; ``enable_thinking`` also sets the ``enable_thinking`` and ``thinking``
    template kwargs, as the oracle's request does. ``tool_order``: the tools' function names
    in the order the client sends them (tools it does not name follow, in their own order)."""

    enable_thinking: bool | None = None
    chat_template_kwargs: tuple[tuple[str, KwargValue], ...] = ()
    reasoning_format: str | None = None
    parallel_tool_calls: bool | None = None
    tool_order: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return self == RequestChange()

    def apply(self, request: Request) -> Request:
        kwargs = dict(request.chat_template_kwargs)
        thinking = request.enable_thinking if self.enable_thinking is None else self.enable_thinking
        if self.enable_thinking is not None:
            kwargs.update(thinking_kwargs(thinking))
        kwargs.update(self.chat_template_kwargs)
        tools = request.tools
        if self.tool_order and tools:
            rank = {name: i for i, name in enumerate(self.tool_order)}
            tools = tuple(sorted(tools, key=lambda t: rank.get(tool_name(t), len(rank))))  # stable
        return replace(
            request, tools=tools, enable_thinking=thinking, chat_template_kwargs=kwargs,
            reasoning_format=request.reasoning_format if self.reasoning_format is None else self.reasoning_format,
            parallel_tool_calls=(request.parallel_tool_calls if self.parallel_tool_calls is None
                                 else self.parallel_tool_calls))

    def describe(self) -> str:
        """``enable_thinking false, parallel_tool_calls true``: the changed fields, in words."""
        parts = [f"{k} {json.dumps(v)}" for k, v in (("enable_thinking", self.enable_thinking),
                                                     ("reasoning_format", self.reasoning_format),
                                                     ("parallel_tool_calls", self.parallel_tool_calls))
                 if v is not None]
        if self.chat_template_kwargs:
            parts.append("chat_template_kwargs " + json.dumps(dict(self.chat_template_kwargs), ensure_ascii=False))
        if self.tool_order:
            parts.append("tool order " + ", ".join(self.tool_order))
        return ", ".join(parts) or "no request change"

    def check(self, request: Request) -> None:
        """``RequestError`` unless the tool order is a permutation of ``request``'s tool names."""
        if not self.tool_order:
            return
        names = [tool_name(t) for t in request.tools or ()]
        if sorted(self.tool_order) != sorted(names):
            raise RequestError(f"tool order: expected an order of the request's tools ({', '.join(names) or 'none'}),"
                               f" found {', '.join(self.tool_order)}")

    @staticmethod
    def from_json(data: object) -> RequestChange:
        """The change a llama-server JSON body fragment makes (``to_json``'s inverse):
        ``chat_template_kwargs`` (an object of strings, numbers and booleans; its
        ``enable_thinking`` sets the request's flag, as llama-server reads it),
        ``reasoning_format``, ``parallel_tool_calls`` and ``tool_order`` (a list of distinct
        names: the order of the body's ``tools``). Anything else: ``RequestError``."""
        if not isinstance(data, dict):
            raise RequestError(f"request change: expected a JSON object, found {type(data).__name__}")
        unknown = sorted(set(data) - set(CHANGE_FIELDS))
        if unknown:
            raise RequestError(f"request change: unknown field(s) {', '.join(map(repr, unknown))}; fields: "
                               f"{', '.join(CHANGE_FIELDS)}")
        kwargs = data.get("chat_template_kwargs", {})
        if not isinstance(kwargs, dict):
            raise RequestError(f"chat_template_kwargs: expected a JSON object, found {type(kwargs).__name__}")
        for name, value in kwargs.items():
            if not isinstance(value, (str, bool, int, float)):
                raise RequestError(f"chat_template_kwargs {name!r}: expected a string, number or boolean, "
                                   f"found {type(value).__name__}")
        thinking = kwargs.get("enable_thinking")
        if thinking is not None and not isinstance(thinking, bool):
            raise RequestError(f"chat_template_kwargs enable_thinking: expected true or false, found {thinking!r}")
        fmt = data.get("reasoning_format")
        if fmt is not None and fmt not in REASONING_FORMATS:
            raise RequestError(f"reasoning_format: expected one of {', '.join(REASONING_FORMATS)}, found {fmt!r}")
        parallel = data.get("parallel_tool_calls")
        if parallel is not None and not isinstance(parallel, bool):
            raise RequestError(f"parallel_tool_calls: expected true or false, found {parallel!r}")
        order = data.get("tool_order", [])
        if not isinstance(order, list) or not all(isinstance(n, str) for n in order) or len(set(order)) < len(order):
            raise RequestError(f"tool_order: expected a JSON list of distinct tool names, found {order!r}")
        rest = tuple((str(k), v) for k, v in kwargs.items() if k != "enable_thinking")
        return RequestChange(enable_thinking=thinking, chat_template_kwargs=rest, reasoning_format=fmt,
                             parallel_tool_calls=parallel, tool_order=tuple(order))

    def to_json(self) -> dict[str, object]:
        """The request fields as llama-server's JSON body names them (only those changed)."""
        out: dict[str, object] = {}
        kwargs: dict[str, object] = {}
        if self.enable_thinking is not None:
            kwargs.update(enable_thinking=self.enable_thinking)
        kwargs.update(self.chat_template_kwargs)
        if kwargs:
            out["chat_template_kwargs"] = kwargs
        if self.reasoning_format is not None:
            out["reasoning_format"] = self.reasoning_format
        if self.parallel_tool_calls is not None:
            out["parallel_tool_calls"] = self.parallel_tool_calls
        if self.tool_order:
            out["tool_order"] = list(self.tool_order)  # not a body field: the order of the body's tools
        return out


@dataclass(frozen=True)
class LlamaSetting:
    """How llama.cpp renders the round trip's conversations (chat.cpp's apply path)."""

    templates: ChatTemplates
    tools: tuple[JsonObject, ...]
    caps: Caps
    enable_thinking: bool
    change: RequestChange = field(default_factory=RequestChange)
    prompts: Prompter | None = field(default=None, compare=False, repr=False)  # a session's remembered prompts

    def request(self, messages: tuple[JsonObject, ...], add_generation_prompt: bool) -> Request:
        flag = self.enable_thinking
        return self.change.apply(Request(
            messages=messages, tools=self.tools, tool_choice="auto",
            parallel_tool_calls=bool(self.caps.supports_parallel_tool_calls),
            enable_thinking=flag, reasoning_format="deepseek",
            chat_template_kwargs=thinking_kwargs(flag),
            add_generation_prompt=add_generation_prompt))

    def applied(self, messages: tuple[JsonObject, ...], add_generation_prompt: bool) -> AppliedPrompt:
        """``messages`` after a user turn, through the whole apply path (messages and prompt)."""
        request = self.request((USER, *messages), add_generation_prompt)
        if self.prompts is not None:
            return self.prompts(request, None)
        return apply_request(self.templates, request, caps=self.caps)

    def render(self, *messages: JsonObject) -> str:
        return self.applied(messages, False).prompt


def _with_retry_ids(message: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(message)
    for call, new_id in zip(out.get("tool_calls") or [], RETRY_IDS):
        call["id"] = new_id
    return out


def _render_case(setting: Renders, message: dict[str, Any]
                 ) -> tuple[dict, str | None, dict | None, dict | None, bool | None]:
    """(message used, R, render_exception, render_exception_first, ids rewritten)."""
    try:
        return message, setting.render(message), None, None, None
    except ExplorerError as exc:
        first = exception_json(exc)
    if not message.get("tool_calls"):
        return message, None, first, None, None
    # Mistral templates accept only nine-character alphanumeric ids: the harness retries once.
    retried = _with_retry_ids(message)
    try:
        return retried, setting.render(retried), None, first, True
    except ExplorerError:
        return message, None, first, None, None


def render_end_marker(setting: Renders) -> tuple[EndMarker | None, dict | None]:
    try:
        one = setting.render({"role": "assistant", "content": "X"})
        two = setting.render({"role": "assistant", "content": "XY"})
    except ExplorerError as exc:
        return None, exception_json(exc)
    return probe_end_marker(one, two), None


def _parse(params: ChatParams, text: str, parse: Callable[[str], OutputParse] | None
           ) -> tuple[dict | None, dict | None]:
    try:
        if parse is None:
            return params.parse(text).to_oracle_json(), None
        parsed = parse(text)
        if parsed.error is not None:
            raise parsed.error
        assert parsed.message is not None
        return parsed.message.to_oracle_json(), None
    except ExplorerError as exc:
        return None, exception_json(exc)


def run_case(setting: Renders, params: ChatParams, marker: tuple[EndMarker | None, dict | None],
             message_id: str, message: dict[str, Any], next_turn: tuple[str, str] | None = None,
             parse: Callable[[str], OutputParse] | None = None) -> RoundTripCase:
    """One message: render with ``setting``, cut with ``next_turn`` (P, G; default the
    request's own), strip, parse with ``params`` (llama.cpp's parser; ``parse``: the
    caller's parse with those params, when it remembers parses), compare."""
    prompt, gen = next_turn if next_turn is not None else (params.prompt, params.generation_prompt)
    used, rendering, exc, first, rewritten = _render_case(setting, message)
    base = RoundTripCase(message_id=message_id, message=used, rendering=rendering, prompt=prompt,
                         generation_prompt=gen, render_exception=exc,
                         render_exception_first=first, tool_call_ids_rewritten=rewritten,
                         end_marker=marker[0], end_marker_exception=marker[1])
    if rendering is None:
        return base
    cut = cut_reply(rendering, prompt, gen)
    strip = strip_end(cut.raw_output, marker[0].marker if marker[0] else None, tuple(params.additional_stops))
    result, parse_exc = _parse(params, strip.text, parse)
    return replace(base, cut=cut, strip=strip, result=result, exception=parse_exc,
                   comparison=compare(used, result))
