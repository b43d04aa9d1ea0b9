"""What each llama.cpp handler does to the prompt before building its parser.

Input: the routed handler name, the (patched) template source and the message dicts
after ``common_chat_templates_apply_jinja``'s workarounds. Output: per-handler data
(``HandlerApply``): the messages it renders instead (``messages_override``), extra
template context, whether it reports ``supports_thinking``, a fixed generation prompt,
and the touch-up it makes to the rendered prompt. Only the prompt side is here; the
parsers themselves are built elsewhere.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Callable

from explorer.routing import AUTOPARSER

Messages = list[dict]


@dataclass(frozen=True)
class RenderedPair:
    """The handler's final prompt and generation prompt."""

    prompt: str
    generation_prompt: str
    note: str = ""


def _reasoning_to_thinking(drop_content_with_calls: bool) -> Callable[[Messages, str, Any], Messages]:
    def adjust(messages: Messages, source: str, json_schema: Any) -> Messages:
        out = []
        for msg in copy.deepcopy(messages):
            if isinstance(msg.get("reasoning_content"), str):
                msg["thinking"] = msg["reasoning_content"]
                calls = msg.get("tool_calls")
                if drop_content_with_calls and isinstance(calls, list) and calls:
                    msg.pop("content", None)
            out.append(msg)
        return out

    return adjust


def ministral3_content_blocks(messages: Messages, source: str, json_schema: Any) -> Messages:
    """System and assistant messages get typed content: a ``thinking`` block from
    reasoning_content, then the text (or the given blocks)."""
    out = []
    for msg in messages:
        if msg.get("role") not in ("system", "assistant"):
            out.append(copy.deepcopy(msg))
            continue
        blocks: list[dict] = []
        if isinstance(msg.get("reasoning_content"), str):
            blocks.append({"type": "thinking", "thinking": msg["reasoning_content"]})
        if "content" in msg:
            if isinstance(msg["content"], str):
                blocks.append({"type": "text", "text": msg["content"]})
            elif isinstance(msg["content"], list):
                blocks.extend(copy.deepcopy(msg["content"]))
        adjusted = copy.deepcopy(msg)
        adjusted["content"] = blocks
        adjusted.pop("reasoning_content", None)
        out.append(adjusted)
    return out


def is_deepseek_v4(source: str) -> bool:
    return "function_calls" not in source


def deepseek_v4_sort_tool_results(messages: Messages, source: str, json_schema: Any) -> Messages | None:
    """V4 renders a run of tool results in the order of the calls that asked for them
    (matched by id). V3.2 renders them as given (no override)."""
    if not is_deepseek_v4(source):
        return None
    adjusted = copy.deepcopy(messages)
    call_order: dict[str, int] = {}
    i = 0
    while i < len(adjusted):
        role = adjusted[i].get("role", "")
        calls = adjusted[i].get("tool_calls")
        if role == "assistant" and isinstance(calls, list) and calls:
            call_order = {c.get("id", ""): k for k, c in enumerate(calls) if c.get("id", "")}
            i += 1
            continue
        if role not in ("user", "tool"):
            i += 1
            continue
        run_end = i
        tool_positions = []
        while run_end < len(adjusted):
            r = adjusted[run_end].get("role", "")
            if r == "tool":
                tool_positions.append(run_end)
            elif r != "user":
                break
            run_end += 1
        if len(tool_positions) > 1 and call_order:
            results = [adjusted[p] for p in tool_positions]
            # unknown ids sort as position 0, as in llama.cpp (stable sort)
            results.sort(key=lambda m: call_order.get(m.get("tool_call_id", ""), 0))
            for p, m in zip(tool_positions, results):
                adjusted[p] = m
        i = run_end
    return adjusted


def deepseek_v4_response_format(source: str, json_schema: Any) -> dict | None:
    if is_deepseek_v4(source) and isinstance(json_schema, dict):
        return {"response_format": json_schema}
    return None


def gemma4_open_model_turn(pair: RenderedPair, add_generation_prompt: bool) -> RenderedPair:
    """When the prompt ends a turn without opening the model's (content + tool call
    history), llama.cpp opens it itself."""
    if add_generation_prompt and pair.prompt.endswith("<turn|>\n"):
        gen = "<|turn>model\n"
        return RenderedPair(pair.prompt + gen, gen, "appended '<|turn>model\\n'")
    return pair


def gpt_oss_return_to_end(pair: RenderedPair, add_generation_prompt: bool) -> RenderedPair:
    """Without a generation prompt (inference), the last ``<|return|>`` becomes
    ``<|end|>`` (llama.cpp issue 15417)."""
    if add_generation_prompt:
        return pair
    pos = pair.prompt.rfind("<|return|>")
    if pos < 0:
        return pair
    prompt = pair.prompt[:pos] + "<|end|>" + pair.prompt[pos + len("<|return|>") :]
    return RenderedPair(prompt, pair.generation_prompt, "last '<|return|>' -> '<|end|>'")


@dataclass(frozen=True)
class HandlerApply:
    """The prompt-side behaviour of one handler.

    ``supports_thinking``: a constant, a test on the source, or None for the autoparser
    (reasoning mode from the analysis). ``messages_override``: returns the messages the
    handler renders itself (not normalised again), or None to render the inputs.
    ``fixed_generation_prompt``: the handler does not diff renders at all.
    """

    name: str
    supports_thinking: bool | Callable[[str], bool] | None
    messages_override: Callable[[Messages, str, Any], Messages | None] | None = None
    additional_context: Callable[[str, Any], dict | None] | None = None
    fixed_generation_prompt: str | None = None
    finish: Callable[[RenderedPair, bool], RenderedPair] | None = None

    def thinking_supported(self, source: str) -> bool | None:
        if callable(self.supports_thinking):
            return self.supports_thinking(source)
        return self.supports_thinking


_SPECS = (
    HandlerApply(AUTOPARSER, None),
    HandlerApply("ministral-3", True, messages_override=ministral3_content_blocks),
    HandlerApply(
        "gpt-oss",
        True,
        messages_override=_reasoning_to_thinking(drop_content_with_calls=True),
        finish=gpt_oss_return_to_end,
    ),
    HandlerApply("muse-glimmer", True, fixed_generation_prompt="<|start|>assistant"),
    HandlerApply("functionary-v3.2", False),
    HandlerApply("kimi-k2", True),
    HandlerApply("kimi-k3", True),
    HandlerApply("ling3", True),
    HandlerApply("cohere2moe", True),
    HandlerApply("lfm2", True, messages_override=_reasoning_to_thinking(False)),
    HandlerApply("lfm2.5", True, messages_override=_reasoning_to_thinking(False)),
    HandlerApply("gigachat-v3", False),
    HandlerApply("minimax-m3", True),
    HandlerApply(
        "deepseek-v3.2/v4",
        True,
        messages_override=deepseek_v4_sort_tool_results,
        additional_context=deepseek_v4_response_format,
    ),
    HandlerApply("gemma4", True, finish=gemma4_open_model_turn),
    HandlerApply("gemma4(outdated-template-workarounds)", True, finish=gemma4_open_model_turn),
    HandlerApply("minicpm5", True),
    # Qwen3-Coder itself does not think; Qwen3.5, Nemotron Nano 3 and StepFun do
    HandlerApply("qwen3-coder", lambda source: "<think>" in source),
)

HANDLER_APPLY: dict[str, HandlerApply] = {spec.name: spec for spec in _SPECS}
