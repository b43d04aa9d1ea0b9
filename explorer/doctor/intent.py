"""Design choices: what a template does on purpose, and the template lines that show it.

Input: a ``TemplateSession``. Output: ``DesignChoice`` s (``design_choices``), each read
off the template's own renderings of ``explorer.doctor.turns.CONVERSATIONS`` in llama.cpp's
dialect, per thinking setting:

- ``reasoning-stripped``: some assistant turns get their reasoning_content written and
  others do not (an earlier history turn, or a kind of turn: those with calls, those
  without), by the template's own conditions;
- ``reasoning-not-rendered``: no assistant turn's reasoning_content is written at all (a
  template without a thinking format, or one whose thinking switch leaves it out);
- ``content-only-without-calls``: a turn's content is written when it has no tool calls,
  and left out when it has them;
- ``thinking-closed``: the generation prompt closes the thinking block (the model answers
  without thinking);
- ``thinking-opened``: the generation prompt opens the thinking block for the model.

Each names its lines: the line that writes the thing (by render provenance,
``explorer.doctor.places``) and the innermost ``if`` branches around it whose condition is
about the choice (``explorer.doctor.blocks``), or the lines that cut reasoning out of the
content. A failure class a design choice explains (``DESIGN_CLASSES``) is a by-design
loss: reported as such, kept out of the verdict's losses and never "fixed".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal

from explorer.doctor.blocks import enclosing_branches
from explorer.doctor.candidates import next_turn_params, thinking_markers
from explorer.doctor.places import TurnLines
from explorer.doctor.turns import CONVERSATIONS, TOOLS, session_renders
from explorer.errors import ExplorerError
from explorer.session import TemplateSession

DesignKey = Literal["reasoning-stripped", "reasoning-not-rendered", "content-only-without-calls",
                    "thinking-closed", "thinking-opened"]
DESIGN_KEYS: tuple[DesignKey, ...] = ("reasoning-stripped", "reasoning-not-rendered", "content-only-without-calls",
                                      "thinking-closed", "thinking-opened")
# The failure classes (explorer.doctor.classes) each design choice makes on purpose.
DESIGN_CLASSES: dict[DesignKey, tuple[str, ...]] = {
    "reasoning-stripped": ("reasoning-dropped",), "reasoning-not-rendered": ("reasoning-dropped",),
    "content-only-without-calls": ("content-dropped",), "thinking-closed": ("thinking-closed",),
    "thinking-opened": ("thinking-opened",),
}
# Words a branch condition about the choice holds (a test of the field's own presence is no reason).
_ABOUT: dict[str, re.Pattern[str]] = {
    "reasoning": re.compile(r"last|index|thinking|query|after|loop|ns\.|preserve|drop|clear|keep"),
    "content": re.compile(r"tool"),
    "thinking": re.compile(r"thinking|reasoning|think|effort"),
}
_PRESENCE = re.compile(r"[\w.]*\[?['\"]?reasoning_content['\"]?\]?|\b(is|defined|not|none|string|and|or|length)\b")
MAX_GUARDS = 2


@dataclass(frozen=True)
class DesignChoice:
    key: DesignKey
    settings: tuple[bool, ...]  # the thinking settings it holds for
    summary: str
    lines: tuple[int, ...] = ()  # 1-based, in the template as llama.cpp compiles it
    source_lines: tuple[str, ...] = ()

    @property
    def classes(self) -> tuple[str, ...]:
        return DESIGN_CLASSES[self.key]

    def explains(self, key: str, cases: Sequence[str]) -> bool:
        """This choice makes failure class ``key`` on purpose for every one of ``cases``
        (``"<message>/<thinking>"``; a class without cases: wherever the choice holds)."""
        settings = {"true" if s else "false" for s in self.settings}
        return key in self.classes and all(c.rsplit("/", 1)[-1] in settings for c in cases)

    @property
    def where(self) -> str:
        if not self.lines:
            return ""
        if len(self.lines) > 1 and self.lines[-1] - self.lines[0] == len(self.lines) - 1:
            return f"lines {self.lines[0]}–{self.lines[-1]}"
        return ("line " if len(self.lines) == 1 else "lines ") + ", ".join(map(str, self.lines))

    def to_json(self) -> dict[str, object]:
        return {"key": self.key, "classes": list(self.classes), "enable_thinking": list(self.settings),
                "summary": self.summary, "lines": list(self.lines), "source_lines": list(self.source_lines)}


def by_design(choices: Iterable[DesignChoice], key: str, cases: Sequence[str]) -> DesignChoice | None:
    """The design choice that makes failure class ``key`` on purpose for all its cases."""
    return next((c for c in choices if c.explains(key, cases)), None)


def _misread(session: TemplateSession) -> bool:
    """The reasoning markers are a role header llama.cpp misread (no design can be read off them)."""
    return any(f.check == "template-marker-is-role" and f.field.startswith("reasoning.")
               for f in session.health.findings)


def _settings_text(settings: Sequence[bool]) -> str:
    return "enable_thinking " + " and ".join(str(s).lower() for s in settings)


@lru_cache(maxsize=32)
def design_choices(session: TemplateSession) -> tuple[DesignChoice, ...]:
    """What the template does on purpose (see the module docstring), made once per session."""
    if session.render_budget_exhausted or not session.text.strip():
        return ()
    try:
        return tuple(_Reader(session).choices())
    except ExplorerError:
        return ()


class _Reader:
    def __init__(self, session: TemplateSession) -> None:
        self.session = session
        self.renders = session_renders(session)
        self.source = session.compiled.source.split("\n")
        self.lines = TurnLines(session, TOOLS)

    def _render(self, conversation: str, k: int, thinking: bool, generation: bool = False) -> str:
        return self.renders[("llama.cpp", thinking)].get((conversation, k, generation)) or ""

    def choices(self) -> list[DesignChoice]:
        out: list[DesignChoice] = []
        out += self._reasoning()
        out += self._content()
        out += self._thinking()
        return out

    # --- lines ---------------------------------------------------------------------------

    def _guards(self, line: int | None, about: str) -> list[int]:
        if line is None:
            return []
        found: list[int] = []
        for branch in enclosing_branches(self.session.compiled.source, line):
            text = branch.text + " " + branch.if_text if branch.is_else else branch.text
            condition = _PRESENCE.sub(" ", text) if about == "reasoning" else text
            if _ABOUT[about].search(condition):
                found += [branch.if_line, branch.line] if branch.is_else else [branch.line]
            if len(found) >= MAX_GUARDS:
                break
        return found

    def _with(self, key: DesignKey, settings: list[bool], summary: str, lines: Iterable[int | None]) -> DesignChoice:
        shown = tuple(sorted({n for n in lines if n is not None and 0 < n <= len(self.source)}))
        text = tuple(self.source[n - 1].strip()[:160] for n in shown)
        choice = DesignChoice(key, tuple(settings), summary, shown, text)
        return replace(choice, summary=f"{summary} ({choice.where})") if choice.where else choice

    # --- reasoning -----------------------------------------------------------------------

    def _reasoning(self) -> list[DesignChoice]:
        # per setting: a turn's reasoning written when it is the last turn (the first such
        # turn), by variant; and a content turn's reasoning before the last user written
        last: dict[bool, tuple[str, dict[str, object]] | None] = {}
        last_variants: dict[bool, set[str]] = {}
        history: dict[bool, bool | None] = {}
        for thinking in (False, True):
            last[thinking], last_variants[thinking], history[thinking] = None, set(), None
            for name, turns in CONVERSATIONS:
                users = [i for i, t in enumerate(turns) if t.variant == "user"]
                whole = self._render(name, len(turns), thinking)
                for i, turn in enumerate(turns):
                    word = turn.message.get("reasoning_content")
                    if not isinstance(word, str) or not word:
                        continue
                    if word in self._render(name, i + 1, thinking):
                        last_variants[thinking].add(turn.variant)
                        last[thinking] = last[thinking] or (word, dict(turn.message))
                    if users and i < users[-1] and turn.variant == "assistant+reasoning":
                        history[thinking] = bool(history[thinking]) or word in whole
        out: list[DesignChoice] = []
        # some turns get their reasoning written, others (earlier ones, or other kinds) do not
        variants: set[str] = {t.variant for _, turns in CONVERSATIONS for t in turns
                              if t.message.get("reasoning_content")}
        partial = [t for t in (False, True) if last[t] is not None and
                   (history[t] is False or last_variants[t] != variants)]
        if partial:
            word, message = last[partial[0]] or ("", {})
            writer = self.lines.writer_line((message,), partial[0], word)
            kept = sorted(last_variants[partial[0]])
            left = sorted(variants - last_variants[partial[0]])
            what = ("earlier history turns" + (" and " + ", ".join(left) + " turns" if left else "")
                    if history[partial[0]] is False else ", ".join(left) + " turns")
            out.append(self._with("reasoning-stripped", partial,
                                  f"The template writes reasoning_content only in some assistant turns (as the last "
                                  f"turn: {', '.join(kept)}) and leaves it out of {what} "
                                  f"({_settings_text(partial)})", [writer, *self._guards(writer, "reasoning")]))
        never = [t for t in (False, True) if last[t] is None]
        if never:
            other = next((last[t] for t in (False, True) if last[t] is not None), None)
            lines: list[int | None] = []
            how = "it never writes reasoning_content"
            if other is not None:
                shown_in = next(t for t in (False, True) if last[t] is not None)
                writer = self.lines.writer_line((other[1],), shown_in, other[0])
                guards = self._guards(writer, "reasoning")
                if guards:
                    lines, how = list(guards), "its thinking switch decides it"
            if not lines:
                lines = list(self._split_lines())
                if lines:
                    how = "it cuts the reasoning out of the content of history turns"
            if not lines and "reasoning_content" in self.session.compiled.source:
                how = "it reads reasoning_content but writes it in none of these turns"
            out.append(self._with("reasoning-not-rendered", never,
                                  f"The template writes no assistant turn's reasoning_content ({_settings_text(never)}): "
                                  + how, lines))
        return out

    def _split_lines(self) -> list[int | None]:
        markers = thinking_markers(self.session)
        end = re.escape(markers[1].strip() if markers else "</think>")
        pattern = re.compile(r"split\(\s*['\"]" + end)
        return [i + 1 for i, line in enumerate(self.source) if pattern.search(line)]

    # --- content beside calls ----------------------------------------------------------------

    def _content(self) -> list[DesignChoice]:
        held: list[bool] = []
        first: tuple[str, dict[str, object]] | None = None
        for thinking in (False, True):
            alone = beside = call = False
            for name, turns in CONVERSATIONS:
                for i, turn in enumerate(turns):
                    content = turn.message.get("content")
                    if turn.message.get("role") != "assistant" or not isinstance(content, str) or not content:
                        continue
                    shown = self._render(name, i + 1, thinking)
                    if turn.message.get("tool_calls"):
                        call = call or any(w in shown for w in turn.texts if w != content)
                        beside = beside or content in shown
                    elif content in shown:
                        alone = True
                        first = first or (content, dict(turn.message))
            if alone and call and not beside:
                held.append(thinking)
        if not held or first is None:
            return []
        writer = self.lines.writer_line((first[1],), held[0], first[0])
        return [self._with("content-only-without-calls", held,
                           "The template writes an assistant turn's content only when the turn has no tool calls "
                           f"({_settings_text(held)})", [writer, *self._guards(writer, "content")])]

    # --- the generation prompt's thinking block --------------------------------------------

    def _thinking(self) -> list[DesignChoice]:
        markers = thinking_markers(self.session)
        if markers is None or not markers[1].strip() or _misread(self.session):
            return []
        start, end = markers[0].strip(), markers[1].strip()
        closed: list[bool] = []
        opened: list[bool] = []
        for thinking in (False, True):
            params = next_turn_params(self.session, thinking)
            prompt = params.generation_prompt if params is not None else ""
            at_end = prompt.rfind(end)
            if at_end >= 0 and (not start or prompt.rfind(start) < 0 or
                                not prompt[prompt.rfind(start) + len(start):at_end].strip()):
                closed.append(thinking)
            elif start and prompt.rstrip().endswith(start):
                opened.append(thinking)
        out: list[DesignChoice] = []
        kinds: tuple[tuple[DesignKey, list[bool], str, str], ...] = (
                ("thinking-closed", closed, end, "The generation prompt closes the thinking block, so the model "
                                                 "answers without thinking"),
                ("thinking-opened", opened, start, "The generation prompt opens the thinking block for the model to "
                                                   "think in"))
        for key, held, marker, summary in kinds:
            if not held:
                continue
            writer = self.lines.writer_line((), held[0], marker, generation=True, last=True)
            out.append(self._with(key, held, f"{summary} ({_settings_text(held)})", [writer, *self._guards(writer, "thinking")]))
        return out


__all__ = ["DESIGN_CLASSES", "DESIGN_KEYS", "DesignChoice", "DesignKey", "by_design", "design_choices"]
