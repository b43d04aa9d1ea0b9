"""Continuing the final assistant message (``continue_final_message``).

Input: the routed handler, the generation prompt and prompt it rendered for the
conversation without the last message, that last message and the continuation mode.
Output: the generation prompt the handler builds by hand (reasoning opened, optionally
closed, then the content so far); llama.cpp appends it to the prompt.

Each handler spells its assistant turn with its own markers; they are data here
(``TaggedTurn``), with functions only for the handlers whose turn depends on the input.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from explorer.apply.messages import ChatMsg

def render_content(msg: ChatMsg, delimiter: str = "\n\n") -> str:
    """``common_chat_msg::render_content``: the content, or its text parts joined."""
    if msg.content:
        return msg.content
    return delimiter.join(p.text for p in msg.content_parts if p.type == "text")


def resolve_mode(mode: str, msg: ChatMsg | None) -> str:
    """``auto`` becomes ``reasoning`` for a message with only reasoning, else ``content``."""
    if mode != "auto" or msg is None:
        return mode
    if msg.reasoning_content and not msg.content and not msg.content_parts:
        return "reasoning"
    return "content"


@dataclass(frozen=True)
class ContinuationInputs:
    generation_prompt: str  # the rendered diff (before the handler's rewrite)
    prompt: str
    msg: ChatMsg
    mode: str  # "reasoning" or "content"
    source: str
    reasoning_start: str = ""  # autoparser only
    reasoning_end: str = ""


@dataclass(frozen=True)
class TaggedTurn:
    """prefix + think_start + reasoning [+ think_end + content_start + content]."""

    prefix: str
    think_start: str
    think_end: str
    content_start: str = ""

    def __call__(self, c: ContinuationInputs) -> str:
        gen = self.prefix + self.think_start + c.msg.reasoning_content
        if c.mode == "content":
            gen += self.think_end + self.content_start + render_content(c.msg)
        return gen


@dataclass(frozen=True)
class ContentOnlyTurn:
    """Handlers without reasoning: prefix + content, whatever the mode."""

    prefix: str

    def __call__(self, c: ContinuationInputs) -> str:
        return self.prefix + render_content(c.msg)


def autoparser_turn(c: ContinuationInputs) -> str:
    # the generation prompt is cut at the reasoning start marker and re-opened there
    gen = c.generation_prompt
    if c.reasoning_start:
        pos = gen.find(c.reasoning_start)
        gen = (gen if pos < 0 else gen[:pos]) + c.reasoning_start + c.msg.reasoning_content
        if c.mode == "content":
            gen += c.reasoning_end
    if c.mode == "content":
        gen += render_content(c.msg)
    return gen


def deepseek_turn(c: ContinuationInputs) -> str:
    is_v4 = "function_calls" not in c.source
    if is_v4 and not c.msg.reasoning_content:
        gen = "<｜Assistant｜></think>"
        return gen + render_content(c.msg) if c.mode == "content" else gen
    return TaggedTurn("<｜Assistant｜>", "<think>", "</think>")(c)


def gemma4_turn(c: ContinuationInputs) -> str:
    prefix = "<|turn>model\n" if c.prompt.endswith("<turn|>\n") else ""
    return TaggedTurn(prefix, "<|channel>thought\n", "<channel|>")(c)


def minimax_m3_turn(c: ContinuationInputs) -> str:
    return TaggedTurn(c.generation_prompt, "<mm:think>", "</mm:think>")(c)


def qwen3_coder_turn(c: ContinuationInputs) -> str:
    gen = "<|im_start|>assistant\n"
    if "<think>" in c.source:
        gen += "<think>\n" + c.msg.reasoning_content
        if c.mode == "content":
            gen += "\n</think>\n\n"
    if c.mode == "content":
        gen += render_content(c.msg)
    return gen


ContinuationFn = Callable[[ContinuationInputs], str]

CONTINUATIONS: dict[str, ContinuationFn] = {
    "autoparser": autoparser_turn,
    "ministral-3": TaggedTurn("", "[THINK]", "[/THINK]"),
    "gpt-oss": TaggedTurn(
        "<|start|>assistant", "<|channel|>analysis<|message|>",
        "<|end|><|start|>assistant<|channel|>final<|message|>",
    ),
    "muse-glimmer": TaggedTurn(
        "<|start|>assistant", " to=self<|message|>", "<|eom|><|start|>assistant to=user<|message|>"
    ),
    "functionary-v3.2": ContentOnlyTurn("<|start_header_id|>assistant<|end_header_id|>\n\n>>>all\n"),
    "kimi-k2": TaggedTurn("<|im_assistant|>assistant<|im_middle|>", "<think>", "</think>"),
    "kimi-k3": TaggedTurn(
        '<|open|>message role="assistant"<|sep|>', "<|open|>think<|sep|>",
        "<|close|>think<|sep|>", "<|open|>response<|sep|>",
    ),
    "ling3": TaggedTurn("<role>ASSISTANT</role>\n", "<think>", "</think>"),
    "cohere2moe": TaggedTurn(
        "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>", "<|START_THINKING|>",
        "<|END_THINKING|>", "<|START_TEXT|>",
    ),
    "lfm2": TaggedTurn("<|im_start|>assistant\n", "<think>", "</think>"),
    "lfm2.5": TaggedTurn("<|im_start|>assistant\n", "<think>", "</think>"),
    "gigachat-v3": ContentOnlyTurn("assistant<|role_sep|>\n"),
    "minimax-m3": minimax_m3_turn,
    "deepseek-v3.2/v4": deepseek_turn,
    "gemma4": gemma4_turn,
    "gemma4(outdated-template-workarounds)": gemma4_turn,
    "minicpm5": TaggedTurn("<|im_start|>assistant\n", "<think>\n", "\n</think>\n\n"),
    "qwen3-coder": qwen3_coder_turn,
}


def continuation_generation_prompt(handler: str, inputs: ContinuationInputs) -> str:
    return CONTINUATIONS[handler](inputs)
