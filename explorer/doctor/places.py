"""Where in the template a round-trip loss or a doctor finding comes from: its template line.

Input: a ``TemplateSession``, the tools a reply was rendered with and the request whose
parser read it back; a ``RoundTripCase`` and one of its ``Loss`` es (or a health
``Finding``). Output: a 1-based template line, or None where none can be named.

The case's rendering is rendered again with provenance (``explorer.render.provenance``),
through llama.cpp's apply path exactly as the round trip rendered it (the same messages
after the workarounds, the same context), and checked against the recorded rendering;
the reply is the part the round trip cut out. Then, by what was lost:

- the template does not render X (``template-drops``): the line that renders the turn
  where X would stand: for reasoning, the line writing the content (else the call); for
  content beside calls, the line writing the first call; for calls, the content's line;
  a turn the template refuses to render: the line that raised;
- the parser does not give X back (``parser-loses``): the line that wrote X in the reply
  (the call's function name, the content, the reasoning); a reply the parser rejected:
  the line that wrote the reply where the parser stopped (its furthest failure);
- a thinking block the generation prompt opens or closes: the line that wrote the end of
  the generation prompt; a stop token left in the turn: the line that wrote the end of
  the reply; parallel calls off: the first call's line.

Each rendering is made once per message, thinking setting and tools (``TurnLines``).
A health finding without a line of its own gets the line of its field's marker
(``LineFinder``), else, for a reply of the template's own that fails, the line where the
parser stopped in it, and for a content or call format without delimiters the line that
writes the content or the call in the template's own reply.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence

from explorer.analysis.lines import MarkerLines
from explorer.apply import Request
from explorer.doctor.losses import Loss, Lost
from explorer.errors import ExplorerError
from explorer.jsontypes import Json
from explorer.peg.expectations import furthest_failure
from explorer.render import CompiledTemplate, RenderedText, RenderInputs, render_with_provenance
from explorer.render.template import FIXED_CLOCK
from explorer.roundtrip import RoundTripCase
from explorer.roundtrip.cases import ReplyKind
from explorer.roundtrip.run import USER, LlamaSetting
from explorer.session import TemplateSession
from explorer.triage.health import KIND_WORDS, Health, health_request
from explorer.triage.model import Finding

RequestFor = Callable[[bool], Request]  # the thinking setting -> the request whose parser reads the reply
Rendered = tuple[RenderedText, int, int] | int | None  # (text, reply start, reply end), a raise's line, nothing


class TurnLines:
    """Template lines for one session's replies rendered with ``tools``, read back by
    ``request_for(enable_thinking)``'s parser. Callable as a ``TemplateLineHook``."""

    def __init__(self, session: TemplateSession, tools: Sequence[Mapping[str, Json]],
                 request_for: RequestFor | None = None) -> None:
        self.session = session
        self.tools = tuple(dict(t) for t in tools)
        self.request_for = request_for or self._next_turn
        self._turns: dict[tuple[str, bool], Rendered] = {}
        self._prompts: dict[bool, int | None] = {}

    def _setting(self, enable_thinking: bool) -> LlamaSetting:
        return LlamaSetting(self.session.templates, self.tools, self.session.caps, enable_thinking)

    def _next_turn(self, enable_thinking: bool) -> Request:
        return self._setting(enable_thinking).request((USER,), True)

    def __call__(self, case: RoundTripCase, loss: Loss) -> int | None:
        try:
            return self._line(case, loss)
        except ExplorerError:
            return None

    # --- renderings --------------------------------------------------------------------

    def _render(self, messages: tuple[dict, ...], enable_thinking: bool, add_generation_prompt: bool
                ) -> tuple[RenderedText, str, int] | int | None:
        """(provenance render, the text the apply path gave, where that text starts in the
        render: after a BOS token the apply path dropped), or the line a raise names."""
        setting = self._setting(enable_thinking)
        try:
            applied = setting.applied(messages, add_generation_prompt)
        except ExplorerError as exc:
            return exc.location.line if exc.location is not None else None
        compiled = _compiled(self.session, applied.source)
        if compiled is None:
            return None
        ctx = dict(applied.context)
        inputs = RenderInputs(
            messages=list(applied.rendered_messages), tools=list(applied.tools) if applied.tools else None,
            add_generation_prompt=bool(ctx.pop("add_generation_prompt", False)),
            enable_thinking=bool(ctx.pop("enable_thinking", True)), bos_token=str(ctx.pop("bos_token", "")),
            eos_token=str(ctx.pop("eos_token", "")), extra_context=ctx or None)
        try:
            out = render_with_provenance(compiled, inputs, clock=lambda: FIXED_CLOCK)
        except ExplorerError as exc:
            return exc.location.line if exc.location is not None else None
        shift = _shift(out.text, applied.prompt, inputs.bos_token)
        return (out, applied.prompt, shift) if shift is not None else None

    def turn(self, case: RoundTripCase, enable_thinking: bool) -> Rendered:
        """The case's rendering with provenance and where its (stripped) reply stands in it."""
        key = (json.dumps(case.message, sort_keys=True, default=str), enable_thinking)
        if key not in self._turns:
            self._turns[key] = self._turn(case, enable_thinking)
        return self._turns[key]

    def _turn(self, case: RoundTripCase, enable_thinking: bool) -> Rendered:
        got = self._render((case.message,), enable_thinking, False)
        if not isinstance(got, tuple):
            return got if case.rendering is None else None
        out, prompt, shift = got
        if case.rendering is None or prompt != case.rendering or case.raw_output is None:
            return None
        start = shift + len(prompt) - len(case.raw_output)
        return out, start, start + len(case.raw_output_stripped or "")

    def writer_line(self, messages: tuple[dict, ...], enable_thinking: bool, needle: str, *,
                    generation: bool = False, last: bool = False) -> int | None:
        """The line that wrote ``needle`` (its first character; ``last``: its last
        occurrence) in ``[user, *messages]`` (``generation``: with the generation prompt)."""
        try:
            got = self._render(messages, enable_thinking, generation)
        except ExplorerError:
            return None
        if not isinstance(got, tuple) or not needle:
            return None
        out, prompt, shift = got
        at = prompt.rfind(needle) if last else prompt.find(needle)
        return _line_at(out, shift + at) if at >= 0 else None

    def generation_prompt_line(self, enable_thinking: bool) -> int | None:
        """The line that wrote the end of the next-turn generation prompt."""
        if enable_thinking not in self._prompts:
            self._prompts[enable_thinking] = self._prompt_line(enable_thinking)
        return self._prompts[enable_thinking]

    def _prompt_line(self, enable_thinking: bool) -> int | None:
        got = self._render((), enable_thinking, True)
        if not isinstance(got, tuple):
            return None
        out, prompt, shift = got
        gen = self.session.params(self.request_for(enable_thinking)).generation_prompt.rstrip()
        if not gen or not prompt.rstrip().endswith(gen):
            return None
        return _line_at(out, shift + len(prompt.rstrip()) - 1)

    # --- lines by loss ---------------------------------------------------------------------

    def _line(self, case: RoundTripCase, loss: Loss) -> int | None:
        if loss.kind in ("whitespace", "note"):
            return None
        if loss.kind == "thinking-prompt":
            return self.generation_prompt_line(loss.enable_thinking)
        rendered = self.turn(case, loss.enable_thinking)
        if not isinstance(rendered, tuple):
            return rendered  # the line that raised, or None
        out, start, end = rendered
        message = case.message
        content, reasoning = _text(message.get("content")), _text(message.get("reasoning_content"))
        name = _first_call_name(message)
        order: tuple[str, ...]
        if loss.kind == "template-drops":
            order = {"reasoning_content": (content, name), "content": (name, content),
                     "tool_calls": (content,)}.get(loss.lost, ())
        elif loss.kind == "stop-token":
            return _line_at(out, _last_visible(out.text, start, end))
        elif loss.lost == "reply" and loss.kind in ("parser-loses", "unclassified"):
            stop = self.parser_stop(out.text[start:end], loss.enable_thinking)
            if stop is not None:
                return _line_at(out, start + min(stop, max(end - start - 1, 0)))
            order = (name, content)
        else:
            order = {"reasoning_content": (reasoning, content), "content": (content, name),
                     "tool_calls": (name, content)}.get(loss.lost, (name, content))
        for needle in order:
            line = _line_of(out, needle, start, end)
            if line is not None:
                return line
        return _line_at(out, _first_visible(out.text, start, end))

    def parser_stop(self, reply: str, enable_thinking: bool) -> int | None:
        """How far into ``reply`` the request's parser gets before it fails (None: it parses)."""
        params = self.session.params(self.request_for(enable_thinking))
        failure = furthest_failure(params.arena, params.generation_prompt + reply)
        if failure is None:
            return None
        return max(failure.offset - len(params.generation_prompt), 0)


def _compiled(session: TemplateSession, source: str) -> CompiledTemplate | None:
    templates = session.templates
    return next((t for t in (templates.default, templates.tool_use) if t is not None and t.source == source), None)


def _shift(text: str, rendering: str, bos: str) -> int | None:
    """Where the apply path's text starts in the provenance render: 0, or after the BOS
    token it dropped (None: the texts disagree, so no line is named)."""
    if text.startswith(rendering):
        return 0
    if bos and text.startswith(bos) and text[len(bos):].startswith(rendering):
        return len(bos)
    return None


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _first_call_name(message: Mapping[str, object]) -> str:
    calls = message.get("tool_calls")
    if isinstance(calls, list) and calls and isinstance(calls[0], Mapping):
        function = calls[0].get("function")
        if isinstance(function, Mapping):
            return _text(function.get("name"))
    return ""


def _line_at(out: RenderedText, offset: int | None) -> int | None:
    if offset is None or not 0 <= offset < len(out.text):
        return None
    return out.span_at(offset).line


def _line_of(out: RenderedText, needle: str, start: int, end: int) -> int | None:
    """The line that wrote the first character of ``needle`` in ``[start, end)``."""
    needle = needle.strip()
    if not needle:
        return None
    at = out.text.find(needle, start, max(end, start + len(needle)))
    return _line_at(out, at) if at >= 0 else None


def _first_visible(text: str, start: int, end: int) -> int | None:
    return next((i for i in range(start, min(end, len(text))) if not text[i].isspace()), None)


def _last_visible(text: str, start: int, end: int) -> int | None:
    return next((i for i in range(min(end, len(text)) - 1, start - 1, -1) if not text[i].isspace()), None)


# --- health findings ---------------------------------------------------------------------------

_OWN_REPLY: dict[str, ReplyKind] = {"template-content-unmatchable": "reply", "template-no-call-opener": "call",
                                    "template-reply-extra-text": "reply"}


def health_place(session: TemplateSession, finding: Finding, health: Health) -> tuple[int | None, str]:
    """(template line, probe) of a health finding, its own where it names them (see the
    module docstring)."""
    probe = finding.probe
    if finding.template_line is not None:
        return finding.template_line, probe
    marker = _marker(session, finding.field)
    if marker is not None and marker.lines:
        return marker.lines[0], probe or marker.probe or ""
    failed = (next((r for r in health.replies if r.fails and KIND_WORDS[r.kind] in finding.summary), None)
              if finding.check == "template-reply-fails" else None)
    kind: ReplyKind | None = failed.kind if failed is not None else _OWN_REPLY.get(finding.check)
    if kind is None:
        return None, probe
    thinking = failed.enable_thinking if failed is not None else False
    request = health_request(session, thinking)
    turns = TurnLines(session, request.tools or (), lambda flag: health_request(session, flag))
    try:
        case = session.reply_case(kind, request)
    except ExplorerError:
        return None, probe
    lost: Lost = "reply" if failed is not None else ("tool_calls" if kind == "call" else "content")
    return turns(case, Loss(kind, thinking, "parser-loses", "llama.cpp", lost, finding.summary)), probe


def _marker(session: TemplateSession, name: str) -> MarkerLines | None:
    """Where a field's marker (or a preserved token, ``preserved_tokens[i]``) was written."""
    if not name or name.startswith("additional_stops"):
        return None
    try:
        if name.startswith("preserved_tokens["):
            index = int(name[len("preserved_tokens["):].rstrip("]"))
            tokens = session.lines.preserved_tokens()
            return tokens[index] if 0 <= index < len(tokens) else None
        return session.lines.field(name)
    except (ExplorerError, AttributeError, ValueError):
        return None


__all__ = ["RequestFor", "TurnLines", "health_place"]
