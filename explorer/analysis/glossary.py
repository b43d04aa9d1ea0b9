"""One glossary of the autoparser's vocabulary: its mode names and its marker fields.

Input: nothing (the entries are data, checked against llama.cpp 0c1e5709's
``common/chat-auto-parser.h`` enum comments and ``docs/autoparser.md``). Output: one line
per mode value (``explain("tools.format.mode", "TAG_WITH_TAGGED")``) and per marker field
(``field_line("tools.arguments.name_prefix")``), and the whole glossary as Markdown
(``glossary_markdown``: ``docs/glossary.md`` is this text, and a test checks it) and as
plain text (``glossary_text``: the CLI's ``--help`` epilog). The app's pages, the CLI and
docs/ read these same lines, so a mode is explained the same way everywhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType

from explorer.analysis.model import CallIdPosition, ContentMode, ReasoningMode, ToolFormat


@dataclass(frozen=True)
class ModeGroup:
    """One enumeration of the analysis: the field that holds it and a line per value."""

    field: str  # the oracle's dotted name
    enum: type[Enum]
    title: str
    values: Mapping[str, str]  # value name -> its meaning, one line


MODE_GROUPS: tuple[ModeGroup, ...] = (
    ModeGroup("reasoning.mode", ReasoningMode, "How the template writes reasoning", MappingProxyType({
        "NONE": "no reasoning markers were found: the parser takes no reasoning out of the output.",
        "TAG_BASED": "reasoning stands between a start and an end marker (<think>…</think>); with an empty "
                     "start (delimiter style) it is everything before the end marker.",
        "TOOLS_ONLY": "reasoning is rendered only in replies that call a tool, not next to plain content.",
    })),
    ModeGroup("content.mode", ContentMode, "How the template wraps the reply's content", MappingProxyType({
        "PLAIN": "no content markers: the content is the text outside reasoning and tool calls.",
        "ALWAYS_WRAPPED": "the content is always wrapped in markers (<response>…</response>).",
        "WRAPPED_WITH_REASONING": "the content is wrapped in markers only when reasoning is present.",
    })),
    ModeGroup("tools.format.mode", ToolFormat, "How the template writes a tool call", MappingProxyType({
        "NONE": "no tool calls were found in the renderings: the parser reads no tool calls.",
        "JSON_NATIVE": 'the whole call is JSON ({"name": "X", "arguments": {…}}), possibly inside section '
                       "markers such as <tool_call>…</tool_call>.",
        "TAG_WITH_JSON": "the function name stands in tags (<function=X>) and the arguments are one JSON "
                         "object after it.",
        "TAG_WITH_TAGGED": "the function name stands in tags and every argument in tags of its own "
                           "(<parameter=key>value</parameter>).",
    })),
    ModeGroup("tools.call_id.pos", CallIdPosition, "Where a tool call's id goes", MappingProxyType({
        "NONE": "no call id was found in the call.",
        "PRE_FUNC_NAME": "the id comes before the function name ([CALL_ID]id[FUNC]name{args}).",
        "BETWEEN_FUNC_AND_ARGS": "the id comes between the function name and the arguments "
                                 "([FUNC]name[CALL_ID]id{args}).",
        "POST_ARGS": "the id comes after the arguments ([FUNC]name{args}[CALL_ID]id).",
    })),
)

# The marker fields, as chat-auto-parser.h's comments describe them (with its examples).
FIELD_LINES: Mapping[str, str] = MappingProxyType({
    "reasoning.start": "the marker that opens reasoning (<think>, [THINK]); empty in delimiter style.",
    "reasoning.end": "the marker that closes reasoning (</think>, [BEGIN FINAL RESPONSE]).",
    "content.start": "the marker that opens wrapped content (<response>).",
    "content.end": "the marker that closes wrapped content (</response>).",
    "tools.format.section_start": "what opens the tool-call section (<tool_call>, [TOOL_CALLS]).",
    "tools.format.section_end": "what closes the tool-call section (</tool_call>).",
    "tools.format.per_call_start": "what opens each call when a section holds several (<|tool_call_begin|>).",
    "tools.format.per_call_end": "what closes each call (<|tool_call_end|>).",
    "tools.function.name_prefix": 'what stands right before the function name (<function=, "name": ").',
    "tools.function.name_suffix": 'what stands right after the function name (>, ").',
    "tools.function.args_separator": "a marker between the function name and its arguments (<tool_sep>).",
    "tools.function.close": "what closes a function in tag formats (</function>).",
    "tools.arguments.start": "what opens the argument block (<|tool_call_argument_begin|>, <args>).",
    "tools.arguments.end": "what closes the argument block.",
    "tools.arguments.name_prefix": 'what stands before each argument name (<parameter=, <arg_key>, ").',
    "tools.arguments.name_suffix": 'what stands after each argument name (>, </arg_key>, ":).',
    "tools.arguments.value_prefix": "what stands before each argument value (<arg_value>, often nothing).",
    "tools.arguments.value_suffix": "what stands after each argument value (</parameter>, </arg_value>).",
    "tools.arguments.separator": "what stands between two arguments (a newline, a comma, nothing).",
    "tools.call_id.prefix": "the marker before a call id value ([CALL_ID]).",
    "tools.call_id.suffix": "the marker after a call id value.",
})

_BY_FIELD: Mapping[str, ModeGroup] = MappingProxyType({g.field: g for g in MODE_GROUPS})


def mode_line(field: str, value: str | Enum) -> str | None:
    """The meaning of one mode value of ``field`` (None for a field or value not listed)."""
    group = _BY_FIELD.get(field)
    name = value.value if isinstance(value, Enum) else value
    return None if group is None else group.values.get(str(name))


def explain(field: str, value: object) -> str:
    """``VALUE: its meaning`` for a mode (the value alone when it is not listed)."""
    name = str(value.value if isinstance(value, Enum) else value)
    line = mode_line(field, name)
    return f"{name}: {line}" if line else name


def field_line(field: str) -> str | None:
    """What a marker field holds, one line (None for a field that is not a marker)."""
    return FIELD_LINES.get(field)


def glossary_markdown() -> str:
    """The whole glossary as Markdown: ``docs/glossary.md``."""
    out = ["# Glossary", "",
           "The names the autoparser's analysis uses (llama.cpp 0c1e5709, `common/chat-auto-parser.h`), one line "
           "each. The app shows these lines where a name first appears, `template-explorer --help` prints them, "
           "and this page is generated from `explorer/analysis/glossary.py` "
           "(`python -m explorer.analysis.glossary > docs/glossary.md`).", ""]
    for group in MODE_GROUPS:
        out += [f"## {group.title} (`{group.field}`)", "", "| value | meaning |", "|---|---|"]
        out += [f"| `{name}` | {_md_cell(line)} |" for name, line in group.values.items()]
        out.append("")
    out += ["## Marker fields", "", "| field | what it holds |", "|---|---|"]
    out += [f"| `{name}` | {_md_cell(line)} |" for name, line in FIELD_LINES.items()]
    return "\n".join(out) + "\n"


def _md_cell(text: str) -> str:
    """A table cell that GitHub shows as written (markers are markup-shaped: <think>)."""
    return "".join("\\" + ch if ch in "\\`*_[]<>|" else ch for ch in text)


def glossary_text(width: int = 100) -> str:
    """The mode names as plain text, for a ``--help`` epilog."""
    import textwrap

    out = ["mode names (the analysis' vocabulary; docs/glossary.md has the marker fields too):"]
    for group in MODE_GROUPS:
        out.append(f"  {group.field}:")
        for name, line in group.values.items():
            out += textwrap.wrap(f"{name}: {line}", width, initial_indent="    ", subsequent_indent="      ")
    return "\n".join(out)


__all__ = ["FIELD_LINES", "MODE_GROUPS", "ModeGroup", "explain", "field_line", "glossary_markdown",
           "glossary_text", "mode_line"]


if __name__ == "__main__":
    print(glossary_markdown(), end="")
