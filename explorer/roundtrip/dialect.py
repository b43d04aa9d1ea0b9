"""The round trip as the model was trained: replies rendered by transformers, parsed by llama.cpp.

Input: the template text, llama.cpp's round-trip setting (tools, thinking, its apply path),
llama.cpp's next-turn ``ChatParams`` (its parser, generation prompt and stops) and the
numbered assistant messages.
Output: one ``RoundTripCase`` per message whose rendering, next-turn prompt, end marker,
cut and strip come from the transformers dialect (jinja2 as Hugging Face
``apply_chat_template`` renders training data) and whose parse is llama.cpp's; and
``DialectComparison``: llama.cpp's own round trip of the message next to that one (the
two replies, their character diff, whether they parse to the same message).

transformers renders the template exactly as published (no llama.cpp source patches, no
ChatML fallback, no touch-ups of the rendered text) with its own context
(``explorer.render.build_context``: no date variables, ``tools`` and
``add_generation_prompt`` always defined, None-valued message keys dropped, reasoning
aliased, the real clock), but with the very messages and tools llama.cpp's template
receives, so that every difference is the engines'. ``TransformersCall`` says how the
caller calls ``apply_chat_template``: with the round trip's thinking flag as
``enable_thinking``/``thinking`` or without them, and with a fixed date or the real clock.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from explorer.apply.context import diff_suffix
from explorer.apply.pipeline import ChatParams
from explorer.comparison import DiffOp, char_diff
from explorer.errors import ExplorerError, TemplateError, exception_json
from explorer.render import CompiledTemplate, RenderInputs, compile_template, render
from explorer.roundtrip.compare import arguments_equal
from explorer.roundtrip.model import RoundTripCase
from explorer.roundtrip.run import USER, LlamaSetting, render_end_marker, run_case


@dataclass(frozen=True)
class TransformersCall:
    """How ``apply_chat_template`` is called: ``thinking_passed`` False leaves
    ``enable_thinking`` and ``thinking`` undefined (llama.cpp's side then renders with its
    own default); ``date`` fixes ``strftime_now``'s clock (None: the real clock)."""

    thinking_passed: bool = True
    date: datetime | None = None

    @property
    def clock(self) -> Callable[[], datetime] | None:
        date = self.date
        return None if date is None else (lambda: date)


@dataclass(frozen=True)
class TransformersSetting:
    """Renders ``[user, *messages]`` the way ``apply_chat_template`` does for training.

    The template receives the messages and tools llama.cpp's own render gives it (after
    chat.cpp's workarounds and the handler's message rewrites: e.g. reasoning_content as
    ``thinking`` for templates that read that field), so that a difference in the reply is
    the engines' and not the message shape's. When llama.cpp's render of a conversation
    fails, there is nothing to borrow and the messages go as sent.
    """

    template: CompiledTemplate | None
    compile_error: TemplateError | None
    llama: LlamaSetting
    call: TransformersCall = TransformersCall()

    @classmethod
    def load(cls, template_text: str, llama: LlamaSetting,
             call: TransformersCall = TransformersCall()) -> TransformersSetting:
        try:
            if not template_text.strip() or template_text.strip() == "chatml":
                raise TemplateError("transformers has no chat template to render: llama.cpp's built-in "
                                    "fallback is llama.cpp's alone")
            return cls(compile_template(template_text, "transformers"), None, llama, call)
        except TemplateError as exc:
            return cls(None, exc, llama, call)

    def _inputs(self, messages: tuple[dict[str, Any], ...], add_generation_prompt: bool) -> RenderInputs:
        flag = self.llama.enable_thinking
        try:
            applied = self.llama.applied(messages, add_generation_prompt)
            conversation, tools = list(applied.rendered_messages), list(applied.tools or ()) or None
        except ExplorerError:
            conversation, tools = [USER, *messages], list(self.llama.tools) or None
        # apply_chat_template(..., enable_thinking=flag, thinking=flag): the round trip's
        # chat_template_kwargs reach the template as plain variables
        if not self.call.thinking_passed:
            return RenderInputs(messages=conversation, tools=tools, add_generation_prompt=add_generation_prompt)
        return RenderInputs(messages=conversation, tools=tools, add_generation_prompt=add_generation_prompt,
                            enable_thinking=flag, extra_context={"thinking": flag})

    def _render(self, messages: tuple[dict[str, Any], ...], add_generation_prompt: bool) -> str:
        if self.template is None:
            assert self.compile_error is not None
            raise self.compile_error
        return render(self.template, self._inputs(messages, add_generation_prompt), clock=self.call.clock)

    def render(self, *messages: dict[str, Any]) -> str:
        return self._render(messages, False)

    def next_turn(self) -> tuple[str, str]:
        """(P, G): the prompt for the reply and what add_generation_prompt added to it."""
        with_gen = self._render((), True)
        return with_gen, diff_suffix(self._render((), False), with_gen)


def transformers_cases(template_text: str, llama: LlamaSetting, params: ChatParams,
                       messages: Sequence[tuple[str, dict[str, Any]]], call: TransformersCall = TransformersCall(),
                       ) -> tuple[list[RoundTripCase], tuple[str, ...]]:
    """Every message rendered by transformers, cut by the oracle's rules, parsed with ``params``.

    The reply is cut at transformers' own next-turn prompt (the prompt the model saw in
    training); when transformers cannot render that prompt, at llama.cpp's (said in the notes).
    """
    setting = TransformersSetting.load(template_text, llama, call)
    notes: list[str] = []
    if setting.compile_error is not None:
        notes.append(f"transformers cannot load the template: {setting.compile_error}")
    next_turn: tuple[str, str] | None
    try:
        next_turn = setting.next_turn()
    except ExplorerError as exc:
        next_turn = None
        if setting.template is not None:
            notes.append("transformers cannot render the next-turn prompt ([user] with add_generation_prompt): "
                         f"{exception_json(exc)['message']}; replies are cut at llama.cpp's prompt instead")
    marker = render_end_marker(setting)
    return [run_case(setting, params, marker, mid, msg, next_turn) for mid, msg in messages], tuple(notes)


@dataclass(frozen=True)
class DialectComparison:
    """One message rendered by both engines: the two round trips and how their replies differ."""

    llama: RoundTripCase  # llama.cpp renders, cuts and parses
    transformers: RoundTripCase  # transformers renders (as in training), llama.cpp cuts the same way and parses
    reply_diff: tuple[DiffOp, ...] = field(default=())  # empty when the replies are equal or one is missing

    @property
    def message_id(self) -> str:
        return self.llama.message_id

    @property
    def llama_reply(self) -> str | None:
        return self.llama.raw_output_stripped

    @property
    def transformers_reply(self) -> str | None:
        return self.transformers.raw_output_stripped

    @property
    def replies_equal(self) -> bool | None:
        """None when either engine rendered nothing for the message."""
        if self.llama_reply is None or self.transformers_reply is None:
            return None
        return self.llama_reply == self.transformers_reply

    @property
    def same_parse(self) -> bool | None:
        """Whether llama.cpp's parser reads both replies as the same message, by the oracle's
        comparison rules (ids ignored, arguments as JSON values: ``2`` and ``2.0`` agree);
        both refusing counts as the same. None when either engine rendered nothing."""
        if self.replies_equal is None:
            return None
        a, b = self.llama.result, self.transformers.result
        if a is None or b is None:
            return a is None and b is None
        return same_message(a, b)

    @property
    def identical_parse(self) -> bool | None:
        """The two parses are equal field for field (the arguments' text included)."""
        if self.replies_equal is None:
            return None
        return self.llama.result == self.transformers.result

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.message_id, "llama_reply": self.llama_reply, "transformers_reply": self.transformers_reply,
            "replies_equal": self.replies_equal, "reply_diff": [list(op) for op in self.reply_diff],
            "same_parse": self.same_parse, "identical_parse": self.identical_parse,
            "llama_render_exception": self.llama.render_exception,
            "transformers_render_exception": self.transformers.render_exception,
            "llama_result": self.llama.result, "llama_exception": self.llama.exception,
            "transformers_result": self.transformers.result, "transformers_exception": self.transformers.exception,
            "llama_equal": self.llama.equal, "transformers_equal": self.transformers.equal,
        }


def same_message(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Two parses (the oracle's ``result`` shape) as the same message: exact texts, the
    same calls in order with the same names and JSON-equal arguments."""
    if (a.get("content") or "") != (b.get("content") or ""):
        return False
    if (a.get("reasoning_content") or "") != (b.get("reasoning_content") or ""):
        return False
    calls_a, calls_b = a.get("tool_calls") or [], b.get("tool_calls") or []
    return len(calls_a) == len(calls_b) and all(
        x.get("name") == y.get("name") and _same_arguments(x.get("arguments", ""), y.get("arguments", ""))
        for x, y in zip(calls_a, calls_b))


def _same_arguments(a: str, b: str) -> bool:
    if a == b:
        return True
    try:
        return arguments_equal(a, json.loads(b))
    except ValueError:
        return False


def compare_dialects(llama: RoundTripCase, transformers: RoundTripCase) -> DialectComparison:
    a, b = llama.raw_output_stripped, transformers.raw_output_stripped
    if a is None or b is None or a == b:
        return DialectComparison(llama, transformers)
    return DialectComparison(llama, transformers, tuple(char_diff(a, b)))
