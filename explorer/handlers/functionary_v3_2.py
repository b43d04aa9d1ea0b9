"""Functionary v3.2: ``>>>all\\n{content}`` and ``>>>NAME\\n{json args}`` recipients.

Input: the template source (routing), ``GenerationParams`` (parser) and a ``GarbleInput``
(triage). Output: the ``FunctionaryV32`` handler class (llama.cpp's
``common/parsers/functionary-v3-2.cpp``). The generation prompt ends with ``>>>``; a
call wants ``NAME\\n{json}`` right after it, which is what its garbles look for.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from explorer.generator.chat_builder import ChatPeg, function_tools
from explorer.generator.spec import GenerationParams
from explorer.grammar.gbnf import tool_parameters
from explorer.handlers.base import Handler, include_tools, lazy_auto, pattern
from explorer.handlers.garbles import Garble, GarbleInput, Hit, argument_names
from explorer.handlers.prompting import ContentOnlyTurn
from explorer.jsonscan import json_object_at


def build(p: ChatPeg, i: GenerationParams) -> int:
    until_tool = p.cat(lambda: p.literal("all\n"), lambda: p.content(p.until(">>>")))
    until_end = p.cat(lambda: p.literal("all\n"), lambda: p.content(p.rest()))
    generation_prompt = p.literal("<|start_header_id|>assistant<|end_header_id|>\n\n>>>")
    if not i.wants_tools:
        return p.cat(generation_prompt, until_end, p.end)
    tool_choice = p.choice()
    for tool in function_tools(i.tools):
        fn = tool["function"]
        name = fn["name"]
        parser = p.tool(p.cat(
            lambda: p.tool_open(p.cat(lambda: p.tool_name(p.literal(name)), lambda: p.literal("\n"))),
            lambda: p.tool_args(p.schema(p.json(), f"tool-{name}-schema", tool_parameters(fn)))))
        tool_choice = p.choice([tool_choice, p.rule(f"tool-{name}", parser)])
    tools_only = p.trigger_rule("tools", p.one_or_more(tool_choice))
    content_and_tools = p.cat(until_tool, tools_only)
    p.eps()  # ret's initial value
    if i.required:
        if i.parallel_tool_calls:
            ret = p.cat(lambda: p.choice([content_and_tools, tools_only]), p.end)
        else:
            ret = p.cat(lambda: p.choice([p.cat(until_tool, tool_choice), tools_only]), p.end)
    elif i.parallel_tool_calls:
        ret = p.cat(lambda: p.choice([content_and_tools, until_end, tools_only]), p.end)
    else:
        content_and_tool = p.cat(until_tool, tool_choice)
        ret = p.cat(lambda: p.choice([content_and_tool, until_end, tool_choice]), p.end)
    return p.cat(generation_prompt, ret)


# --- garbles -----------------------------------------------------------------------------------

SOURCE = "llama.cpp's functionary-v3.2 handler (common/parsers/functionary-v3-2.cpp)"


def _slots(g: GarbleInput) -> Iterator[int]:
    """Where a recipient is due: the output's start (the generation prompt ends with ">>>")
    and after every ">>>" in the output."""
    if g.generation_prompt.endswith(">>>"):
        yield 0
    for m in re.finditer(">>>", g.output):
        yield m.end()


def _space(g: GarbleInput) -> Iterator[Hit]:
    for at in _slots(g):
        m = re.compile(r"[ \t]+(?P<name>[A-Za-z_][\w.\-]*)").match(g.output, at)
        if m and (m.group("name") in g.tool_names or m.group("name") == "all"):
            start = at - 3 if at else at  # the output's own ">>>" is part of what was found
            yield start, m.end(), g.output[start:m.end()], ">>>" + m.group("name")


def _repeated(g: GarbleInput) -> Iterator[Hit]:
    if g.generation_prompt.endswith(">>>") and g.output.startswith(">>>"):
        m = re.compile(r">>>(?P<name>[A-Za-z_][\w.\-]*)?").match(g.output)
        assert m is not None
        yield 0, 3, ">>>", m.group("name") or "all"


def _no_newline(g: GarbleInput) -> Iterator[Hit]:
    for at in _slots(g):
        m = re.compile(r"(?P<name>[A-Za-z_][\w.\-]*)(?P<bad>[^\n\w.\-])").match(g.output, at)
        if m and m.group("name") in g.tool_names:
            yield at, m.end(), m.group(0), m.group("name") + "\n"


# llama.cpp quirk: functionary-v3-2.cpp's content stops before ">>>" but no rule reads ">>>", so content
# followed by a call, or two calls, never parse as written (the call ends up in content or the parse fails).
def _after_first(g: GarbleInput) -> Iterator[Hit]:
    """A ">>>NAME" after content or after a call (the parser never reads that ">>>")."""
    for m in re.finditer(r">>>(?P<name>[A-Za-z_][\w.\-]*)\n", g.output):
        if m.group("name") in g.tool_names and m.start() > 0:
            yield m.start(), m.end(), m.group(0).rstrip("\n"), m.group("name") + "\n…"


def _call_as_content(g: GarbleInput) -> Iterator[Hit]:
    """A call written under the ``all`` recipient (content) instead of its own."""
    if g.has_calls or not g.output.startswith("all\n"):
        return
    body = len("all\n") + len(g.output[4:]) - len(g.output[4:].lstrip())
    m = re.compile(r"(?P<name>[A-Za-z_][\w.\-]*)\n\s*\{").match(g.output, body)
    if m and m.group("name") in g.tool_names:
        yield 0, m.end("name"), g.output[:m.end("name")], m.group("name")
        return
    if g.output.startswith("{", body):
        obj = json_object_at(g.output, body)
        wanted = argument_names(g)
        keys = set(obj.value) if isinstance(obj.value, dict) else set()
        if obj.looks_like_call or (keys and wanted and keys <= wanted):
            yield 0, obj.end, g.output[:min(obj.end, 40)], "NAME (the tool's name instead of all)"


GARBLES: tuple[Garble, ...] = (
    Garble(_space,
           "The recipient is written {found}, with whitespace after \">>>\": llama.cpp's functionary-v3.2 parser "
           "needs {expected} right after it.",
           f"{SOURCE}: a call is the tool's name as a literal right after \">>>\" (the generation "
           "prompt ends with it), then \"\\n\" and the JSON arguments; content is \"all\\n\" there.",
           "Model side: write >>>NAME (no space), as the template renders recipients."),
    Garble(_repeated,
           "The output starts with \">>>\" again: the generation prompt already ends with \">>>\", so llama.cpp's "
           "functionary-v3.2 parser wants the recipient ({expected}) first.",
           f"{SOURCE} parses the generation prompt (ending \">>>\") in front of the output, then "
           "\"all\\n\" or a tool's name.",
           "Model side: continue after the prompt's >>> with the recipient (all or a tool name)."),
    Garble(_no_newline,
           "The recipient {found} is not followed by a newline: llama.cpp's functionary-v3.2 parser needs "
           "{expected} before the JSON arguments.",
           f"{SOURCE}: a call is NAME + \"\\n\" + JSON arguments.",
           "Model side: write >>>NAME, a newline, then the arguments."),
    Garble(_after_first,
           "A call {found} follows content or another call; llama.cpp's functionary-v3.2 parser does not read that "
           "\">>>\", so the call is not recognised (it stays in content, or the output is rejected).",
           f"llama.cpp quirk: in {SOURCE} content after \">>>all\\n\" stops at \">>>\", but the tool "
           "rule that follows starts with the tool's name, not \">>>\"; calls in a row are NAME\\n{json}NAME\\n"
           "{json} with nothing between them. Only a call right after the generation prompt's \">>>\" is read.",
           "Model side: with llama.cpp, make the call the whole reply (>>>NAME\\n{…} right after the prompt); "
           "content before a call, or a second call, cannot be read."),
    Garble(_call_as_content,
           "The call is written under the recipient \"all\" ({found}…), which is content: llama.cpp's "
           "functionary-v3.2 parser returns it as text, not as a tool call; the recipient must be {expected}.",
           f"{SOURCE}: after the prompt's \">>>\" the recipient says what follows: \"all\\n\" is "
           "content, a tool's name + \"\\n\" is that tool's JSON arguments.",
           "Model side: write the tool's name as the recipient (>>>NAME, a newline, the arguments).", always=True),
)


class FunctionaryV32(Handler):
    name = "functionary-v3.2"
    required = (">>>all", ">>>${recipient}")

    supports_thinking = False
    continuation = ContentOnlyTurn("<|start_header_id|>assistant<|end_header_id|>\n\n>>>all\n")

    build = staticmethod(build)
    include = staticmethod(include_tools)
    lazy = staticmethod(lazy_auto)
    triggers = (pattern(">>>(?!all)"),)
    preserved_tokens = (">>>all",)
    reference = "common/parsers/functionary-v3-2.cpp"

    garbles = GARBLES
