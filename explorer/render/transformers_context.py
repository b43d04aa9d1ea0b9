"""The context Hugging Face transformers gives a chat template, and the release it follows.

Input: ``RenderInputs`` (messages, tools, documents, flags, extra context). Output: the
template variables ``apply_chat_template(..., tokenize=False)`` passes to
``render_jinja_template`` in ``TRANSFORMERS_RELEASE``, built by the same rules:

- each message is a dict; a key whose value is None is dropped (``content: null`` on a
  tool-call turn is undefined, not ``None``; 5.23 on), top level only;
- a message's reasoning is copied between ``reasoning_content`` and ``thinking`` (the
  first non-null of ``reasoning_content``, ``thinking``, ``reasoning``; ``thinking`` is
  the first key, with the message's own value when it has one; 5.21.1 on);
- ``messages``, ``tools`` (None without tools), ``documents`` (None without) and
  ``add_generation_prompt`` are always defined; the special tokens and the caller's
  keyword arguments follow, so ``enable_thinking`` is defined only when the caller
  passes it; the keyword arguments win over the special tokens.

Tool-call arguments reach the template as they were given (a dict, or a JSON string),
as do ``tool_call_id`` and every other key. The environment's own globals
(``strftime_now``, ``raise_exception``, ``dict``, ``namespace``, ``range``) are in
``explorer.render.jinja_compat``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from explorer.errors import RequestError

if TYPE_CHECKING:
    from explorer.render.template import RenderInputs

# The transformers release whose apply_chat_template this module follows; requirements-dev.txt
# pins it for the test that renders with it (tests/render/test_transformers_parity.py).
TRANSFORMERS_RELEASE = "5.24.0"

# The names a message's reasoning is passed under, the standard one first (transformers'
# _REASONING_FIELDS).
REASONING_FIELDS = ("reasoning_content", "thinking", "reasoning")


def transformers_messages(messages: Any) -> list[dict[str, Any]]:
    """The messages as transformers hands them to the template (None keys dropped, the
    reasoning aliased). The caller's dicts are never changed: a message that needs a change
    is a new dict, the others are shared (the immutable sandbox cannot change them)."""
    out: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        if message.__class__ is not dict and not isinstance(message, dict):
            raise RequestError(f"message {index}: transformers takes each message as a JSON object, "
                               f"got {type(message).__name__}")
        if None in message.values():
            message = {key: value for key, value in message.items() if value is not None}
        # the first of REASONING_FIELDS the message has (None values are gone by now)
        reasoning = message.get("reasoning_content")
        if reasoning is None:
            reasoning = message.get("thinking")
            if reasoning is None:
                reasoning = message.get("reasoning")
        if reasoning is not None:  # ``thinking`` comes first even when the message has its own
            message = {"thinking": reasoning, **message, "reasoning_content": reasoning}
        out.append(message)
    return out


def transformers_context(inputs: RenderInputs) -> dict[str, Any]:
    """The variables ``render_jinja_template`` renders with (``strftime_now`` is the
    environment's, added by the caller with its clock)."""
    if inputs.documents is not None:
        for index, document in enumerate(inputs.documents):
            if not isinstance(document, dict):
                raise RequestError(f"document {index}: transformers takes documents as a list of JSON objects "
                                   f"(with 'title' and 'text'), got {type(document).__name__}")
    ctx: dict[str, Any] = {
        "messages": transformers_messages(inputs.messages),
        "tools": None if inputs.tools is None else list(inputs.tools),
        "documents": None if inputs.documents is None else list(inputs.documents),
        "add_generation_prompt": inputs.add_generation_prompt,
        # apply_chat_template: {**special_tokens_map, **kwargs}
        "bos_token": inputs.bos_token,
        "eos_token": inputs.eos_token,
    }
    if inputs.enable_thinking is not None:
        ctx["enable_thinking"] = inputs.enable_thinking
    if inputs.extra_context:
        ctx.update(inputs.extra_context)
    return ctx
