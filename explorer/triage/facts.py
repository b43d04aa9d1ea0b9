"""Everything the checks read, worked out once per diagnosis.

Input: ``ChatParams`` (what ``common_chat_templates_apply`` returned), the ``Request``,
the raw model output and optionally the autoparser's ``TemplateAnalysis``. Output: a
frozen ``Facts``: llama.cpp's parse (message or error, and where it stopped), the
request's tool names, whether a tool parser exists, the markers the parser waits for
(with their origins), the regex triggers and where they match, reasoning tags, the call
shape the parser expects, and the JSON objects in the output. With ``is_partial`` the
parse is llama.cpp's partial parse. Checks are pure functions of it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from explorer.analysis import TemplateAnalysis
from explorer.apply import Request, with_thinking
from explorer.apply.pipeline import ChatParams
from explorer.errors import ExplorerError, OutputParseError
from explorer.jsonscan import JsonObject, json_objects
from explorer.output.parse import ChatMessage, OutputParse, ToolCall, analyse_output
from explorer.peg.arena import Arena
from explorer.triage import markers as mk
from explorer.triage import patterns as pt
from explorer.triage.model import Place


@dataclass(frozen=True)
class Facts:
    params: ChatParams
    request: Request
    output: str
    analysis: TemplateAnalysis | None
    arena: Arena
    parse: OutputParse
    tool_names: tuple[str, ...]
    openers: tuple[mk.Marker, ...]
    closers: tuple[mk.Marker, ...]
    name_prefixes: tuple[mk.Marker, ...]
    reasoning_starts: tuple[mk.Marker, ...]
    reasoning_ends: tuple[mk.Marker, ...]
    call_keys: tuple[mk.CallKey, ...]
    name_affixes: tuple[tuple[str, str], ...]
    content_stops: tuple[str, ...]
    objects: tuple[JsonObject, ...]
    apply: Callable[[Request], ChatParams] | None = None  # the template's params for another request
    patterns: tuple[pt.TriggerPattern, ...] = ()  # regex grammar triggers (PATTERN / PATTERN_FULL)
    openings: tuple[pt.Opening, ...] = ()  # where they match: tool calls as the handler announces them
    is_partial: bool = False  # the caller's output may still grow (llama.cpp's partial parse)
    sample_call: Callable[[], str | None] | None = None  # the template's own reply with a call (a session's)
    own_call: Callable[[Request], str | None] | None = None  # the same for another request (a session's)

    @functools.cached_property
    def template_call(self) -> str | None:
        """How the template itself writes a call: its own reply with one tool call (the round
        trip's cut, ``TemplateSession.sample_reply("call")``), from the generation prompt on;
        None without a session or when the template renders no call."""
        if self.sample_call is None:
            return None
        try:
            reply = self.sample_call()
        except ExplorerError:
            return None
        if not reply:
            return None
        gp = self.gp.strip()
        if gp and gp in reply:
            reply = reply.rpartition(gp)[2]  # a cut that kept the turns before the reply
        reply = reply.strip()
        return reply if any(n in reply for n in self.tool_names) else None

    @property
    def flipped_request(self) -> Request:
        """The request with enable_thinking the other way (its thinking kwargs too)."""
        return with_thinking(self.request, not self.request.enable_thinking)

    @functools.cached_property
    def flipped_generation_prompt(self) -> str | None:
        """The generation prompt with enable_thinking the other way (None without the
        template, or when that request cannot be applied): does thinking change it?"""
        if self.apply is None:
            return None
        try:
            return self.apply(self.flipped_request).generation_prompt
        except ExplorerError:
            return None

    # --- the parse ------------------------------------------------------------------

    @property
    def gp(self) -> str:
        return self.params.generation_prompt

    @property
    def message(self) -> ChatMessage | None:
        return self.parse.message

    @property
    def error(self) -> OutputParseError | None:
        return self.parse.error

    @property
    def failed(self) -> bool:
        return self.parse.error is not None

    @property
    def partial_failed(self) -> bool:
        """A partial parse that did not match: llama.cpp returns an empty message, no error."""
        return self.is_partial and self.parse.error is None and self.parse.result.fail()

    @property
    def stop(self) -> int:
        """Where llama.cpp's parse stopped, as an offset into the output (0 when inside
        the generation prompt)."""
        return max(0, min(len(self.output), self.parse.result.end - len(self.gp)))

    def place(self, start: int, end: int | None = None) -> Place:
        """A place in the output in every coordinate (what a check's summary names)."""
        return Place.of(self.output, self.gp, start, end)

    @property
    def calls(self) -> tuple[ToolCall, ...]:
        return self.message.tool_calls if self.message is not None else ()

    def kept(self, text: str) -> bool:
        """Whether ``text`` survives somewhere in the message (content, reasoning, a call)."""
        m = self.message
        if m is None or not text:
            return m is not None
        return (text in m.content or text in m.reasoning_content
                or any(text in c.arguments or text in c.name for c in m.tool_calls)
                # the text is a call llama.cpp read: its name and its argument text are in it
                or any(c.name and c.name in text and c.arguments and c.arguments in text for c in m.tool_calls))

    def in_content(self, text: str) -> bool:
        return self.message is not None and bool(text) and text in self.message.content

    def is_cause(self, span: tuple[int, int]) -> bool:
        """Whether text at ``span`` explains the result: the parse failed, the text ended up in
        content, or it is nowhere in the message (dropped). Inside reasoning, or inside a call
        that parsed, a look-alike is the model's business and no finding is made."""
        text = self.output[span[0]:span[1]].strip()
        return self.failed or self.in_content(text) or not self.kept(text)

    # --- the request ----------------------------------------------------------------

    @property
    def tool_parser_reason(self) -> str | None:
        """Why this request has no tool-call parser, or None when it has one."""
        if self.request.force_pure_content:
            return "llama-server runs with --skip-chat-parsing (force_pure_content): the whole output is content"
        if not self.tool_names:
            return "the request lists no tools"
        if self.request.tool_choice == "none":
            return 'the request sets tool_choice "none"'
        if self.params.handler == "pure-content":
            return "the request was applied with force_pure_content: the whole output is content"
        if self.analysis is not None and self.params.handler == "autoparser":
            if not self.analysis.jinja_caps.supports_tool_calls:
                return "the template does not render tool calls (supports_tool_calls is false)"
            if self.analysis.tools.format.mode.value == "NONE":
                return "the autoparser found no tool-call format in the template (tools.format.mode NONE)"
        if not mk.has_tool_rules(self.arena):
            return ("the parser llama.cpp built for this request has no tool-call rules (it read no tool-call "
                    "format from the template)")
        return None

    @property
    def call_like_objects(self) -> tuple[JsonObject, ...]:
        return tuple(o for o in self.objects if o.looks_like_call)


def build_facts(params: ChatParams, request: Request, output: str, analysis: TemplateAnalysis | None = None,
                apply: Callable[[Request], ChatParams] | None = None, is_partial: bool = False,
                sample_call: Callable[[], str | None] | None = None,
                own_call: Callable[[Request], str | None] | None = None, parse: OutputParse | None = None) -> Facts:
    """The facts of one output; ``parse``: llama.cpp's parse of it with ``params`` when the
    caller holds it (a session's ``parse``), made here otherwise."""
    if params.handler != "autoparser":
        analysis = None  # a specialised handler's parser does not follow the autoparser's markers
    arena = params.arena
    if parse is None:
        parse = analyse_output(arena, output, generation_prompt=params.generation_prompt, format=params.format,
                               is_partial=is_partial)
    patterns = pt.trigger_patterns(params)
    starts, ends = mk.reasoning_tags(params, analysis)
    return Facts(
        params=params, request=request, output=output, analysis=analysis, arena=arena, parse=parse,
        tool_names=mk.request_tool_names(request),
        openers=mk.tool_openers(params, arena, analysis),
        closers=mk.tool_closers(params, arena, analysis),
        name_prefixes=mk.name_prefixes(params, arena, analysis),
        reasoning_starts=starts, reasoning_ends=ends,
        call_keys=mk.json_call_keys(arena),
        name_affixes=mk.name_affixes(arena),
        content_stops=mk.content_stops(arena),
        objects=json_objects(output),
        apply=apply,
        patterns=patterns,
        openings=pt.openings(patterns, params.generation_prompt, output),
        is_partial=is_partial,
        sample_call=sample_call,
        own_call=own_call,
    )
