"""The post-analysis workarounds llama.cpp keys on template substrings.

Input: the template source and a decoded ``Draft``. Output: the draft with each
matching workaround's fields overwritten (provenance: the workaround's name), in the
reference's order. Each workaround is data: the substrings that must all occur, those
that must not, an optional condition on the analysis so far, and the field values.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from explorer.analysis.diff import trim_whitespace
from explorer.analysis.draft import Draft
from explorer.analysis.model import ContentMode, ReasoningMode, ToolFormat

# A value is a constant, or a function of the current draft (for trims and appends).
Value = Any | Callable[[Draft], Any]


@dataclass(frozen=True)
class Workaround:
    name: str
    requires: tuple[str, ...]
    forbids: tuple[str, ...] = ()
    when: Callable[[Draft], bool] | None = None
    sets: tuple[tuple[str, Value], ...] = ()
    preserved: tuple[str, ...] = ()  # appended to preserved_tokens (no de-duplication)
    clear_preserved: bool = False
    stops: tuple[str, ...] = ()  # appended to additional_stops

    def matches(self, source: str, d: Draft) -> bool:
        return (
            all(s in source for s in self.requires)
            and not any(s in source for s in self.forbids)
            and (self.when is None or self.when(d))
        )

    def apply(self, d: Draft) -> None:
        for name, value in self.sets:
            d.set_by_workaround(name, value(d) if callable(value) else value, self.name)
        if self.clear_preserved or self.preserved:
            tokens = [] if self.clear_preserved else list(d["preserved_tokens"])
            d.set_by_workaround("preserved_tokens", tuple(tokens) + self.preserved, self.name)
        if self.stops:
            d.set_by_workaround("additional_stops", tuple(d["additional_stops"]) + self.stops, self.name)


def _trimmed(name: str) -> Callable[[Draft], str]:
    return lambda d: trim_whitespace(d[name])


WORKAROUNDS: tuple[Workaround, ...] = (
    Workaround(
        "old Qwen/DeepSeek thinking template",
        requires=("content.split('</think>')",),
        forbids=("reasoning_content", "<SPECIAL_12>"),
        when=lambda d: d["reasoning.mode"] is ReasoningMode.NONE,
        sets=(("reasoning.mode", ReasoningMode.TAG_BASED), ("reasoning.start", "<think>"),
              ("reasoning.end", "</think>")),
        preserved=("<think>", "</think>"),
    ),
    Workaround(
        "Granite 3.3",
        requires=("Write your thoughts between <think></think> and write your response between "
                  "<response></response>",),
        sets=(("reasoning.mode", ReasoningMode.TAG_BASED), ("reasoning.start", "<think>"),
              ("reasoning.end", "</think>"), ("content.mode", ContentMode.WRAPPED_WITH_REASONING),
              ("content.start", "<response>"), ("content.end", "</response>")),
        preserved=("<think>", "</think>", "<response>", "</response>"),
    ),
    Workaround(
        "Cohere Command R+",
        requires=("<|CHATBOT_TOKEN|>", "<|END_OF_TURN_TOKEN|>"),
        when=lambda d: not d["content.start"],
        sets=(("content.mode", ContentMode.ALWAYS_WRAPPED), ("content.start", "<|CHATBOT_TOKEN|>"),
              ("content.end", "<|END_OF_TURN_TOKEN|>"), ("user_start", "<|START_OF_TURN_TOKEN|><|USER_TOKEN|>")),
        preserved=("<|CHATBOT_TOKEN|>", "<|END_OF_TURN_TOKEN|>"),
    ),
    Workaround(
        "Functionary 3.1",
        requires=('set has_code_interpreter = tools | selectattr("type", "equalto", '
                  '"code_interpreter") | list | length > 0',),
        sets=(("content.mode", ContentMode.PLAIN), ("content.end", ""), ("tools.function.name_prefix", ""),
              ("tools.format.section_start", ""), ("tools.format.section_end", ""),
              ("tools.format.per_call_start", "<function="), ("tools.format.per_call_end", "</function>"),
              ("tools.function.close", "")),
        clear_preserved=True,
        preserved=("<|eot_id|>", "<|eom_id|>", "<function=", ">", "</function>"),
    ),
    Workaround(
        "DeepSeek-R1-Distill-Qwen",
        requires=("{{'<｜Assistant｜><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>'",),
        sets=(("tools.format.section_start", "<｜tool▁calls▁begin｜>"),
              ("tools.format.section_end", "<｜tool▁calls▁end｜>"),
              ("tools.format.per_call_start", "<｜tool▁call▁begin｜>function"),
              ("tools.function.name_prefix", "<｜tool▁sep｜>"),
              ("tools.format.per_call_end", "<｜tool▁call▁end｜>"),
              ("tools.function.close", "```")),
    ),
    Workaround(
        "Nemotron Nano v2",
        requires=("<SPECIAL_10>", "<SPECIAL_11>", "<SPECIAL_12>", "<TOOL_RESPONSE>"),
        sets=(("tools.format.mode", ToolFormat.JSON_NATIVE), ("tools.format.section_start", ""),
              ("tools.format.section_end", ""), ("tools.format.per_call_start", "<TOOLCALL>"),
              ("tools.format.per_call_end", "</TOOLCALL>"), ("tools.format.tools_array_wrapped", True),
              ("content.mode", ContentMode.PLAIN), ("content.start", ""), ("content.end", ""),
              ("reasoning.mode", ReasoningMode.TAG_BASED), ("reasoning.start", "<think>\n"),
              ("reasoning.end", "</think>"), ("assistant_start", "<SPECIAL_11>Assistant"),
              ("user_start", "<SPECIAL_11>User")),
        clear_preserved=True,
        preserved=("<SPECIAL_11>", "</think>", "<TOOLCALL>", "</TOOLCALL>"),
    ),
    Workaround(
        "Fireworks v2",
        requires=("{%- set system_prompt = '<|start_header_id|>' + 'system' + '<|end_header_id|>\\n\\n'"
                  " + message['content'] | trim + '\\n' + system_prompt_suffix + '<|eot_id|>' -%}",),
        sets=(("assistant_start", "<|start_header_id|>assistant<|end_header_id|>"),
              ("user_start", "<|start_header_id|>user<|end_header_id|>")),
    ),
    Workaround(
        "Solar Open",
        requires=("<|begin|>assistant<|think|><|end|>",),
        sets=(("assistant_start", "<|begin|>assistant"),),
    ),
    Workaround(
        "Apriel 1.6",
        requires=("if not loop.last and '[BEGIN FINAL RESPONSE]' in asst_text",),
        sets=(("user_start", "<|begin_user|>"), ("assistant_start", "<|begin_assistant|>")),
    ),
    Workaround(
        "JSON name/parameters tool instruction",
        requires=('Respond in the format {"name": function name', "Do not use variables."),
        sets=(("tools.format.openai_wrapper_trigger", True),),
    ),
    Workaround(
        "Laguna",
        requires=("laguna_glm_thinking",),
        sets=(("reasoning.start", _trimmed("reasoning.start")), ("reasoning.end", _trimmed("reasoning.end")),
              ("tools.arguments.value_prefix", _trimmed("tools.arguments.value_prefix")),
              ("tools.arguments.value_suffix", _trimmed("tools.arguments.value_suffix")),
              ("tools.arguments.separator", _trimmed("tools.arguments.separator")),
              ("tools.arguments.tolerate_intertag_whitespace", True)),
        stops=("</assistant>",),
    ),
    Workaround(
        "Bailing V3",
        requires=("Bailing V3 chat template",),
        sets=(("tools.arguments.value_suffix", _trimmed("tools.arguments.value_suffix")),
              ("tools.arguments.tolerate_intertag_whitespace", True)),
    ),
)


def lexer_source(text: str) -> str:
    """The template text llama.cpp keeps as ``tmpl.src`` (what the workarounds search):
    CR LF and lone CR become LF, and one trailing newline of the original is dropped."""
    if not text:
        return text
    src = text.replace("\r\n", "\n").replace("\r", "\n")
    # llama.cpp quirk: the trailing-newline test reads the original text, so a final
    # lone "\r" (now "\n") is kept.
    return src[:-1] if text.endswith("\n") else src


def apply_workarounds(source: str, d: Draft, workarounds: tuple[Workaround, ...] = WORKAROUNDS) -> None:
    source = lexer_source(source)
    for workaround in workarounds:
        if workaround.matches(source, d):
            workaround.apply(d)
            d.workarounds.append(workaround.name)

