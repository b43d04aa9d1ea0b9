"""A round trip's losses read again once the template's design and the server's stops are known.

Input: one case's ``Loss`` es (``explorer.doctor.losses.case_losses``), the case, its
thinking setting, the session and its ``DesignChoice`` s. Output: the losses with two
readings changed:

- a loss a design choice makes on purpose (reasoning left out of the turns, content left
  out beside calls, a thinking block the generation prompt opens or closes, and what the
  parser then does with that block) is ``by-design``: its sentence names the choice and its
  line is the first line that shows it;
- a reply the parser rejects only for the template's end-of-turn token at its end
  (``explorer.doctor.artifacts.stop_artifact``) is a ``stop-token`` artifact, not a parser
  loss.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from explorer.doctor.artifacts import stop_artifact
from explorer.doctor.intent import DesignChoice, by_design
from explorer.doctor.losses import Loss, case_id
from explorer.roundtrip import RoundTripCase
from explorer.session import TemplateSession

_READ_AS_REASONING = ("content is parsed as reasoning", "sit inside what the parser read as reasoning")


def _class_of(loss: Loss) -> str:
    if loss.kind == "template-drops" and loss.lost == "reasoning_content":
        return "reasoning-dropped"
    if loss.kind == "template-drops" and loss.lost == "content":
        return "content-dropped"
    if loss.kind == "thinking-prompt":
        if "opens a thinking block" in loss.sentence:
            return "thinking-opened"
        if "closes the thinking block" in loss.sentence:
            return "thinking-closed"
    return ""


def design_class(loss: Loss) -> str:
    """The failure class a by-design loss is (read off the sentence it keeps)."""
    if loss.kind != "by-design":
        return ""
    for fragment, key in (("drops reasoning_content", "reasoning-dropped"), ("drops content", "content-dropped"),
                          ("closes the thinking block", "thinking-closed")):
        if fragment in loss.sentence:
            return key
    return "thinking-opened"


def design_losses(cases: Iterable[tuple[str, bool, Sequence[Loss]]], choices: Sequence[DesignChoice]
                  ) -> list[dict[str, object]]:
    """Per failure class made on purpose: its cases (``"<message>/<thinking>"``), the design
    choice and the lines that show it; ``cases`` are (case id, thinking, losses)."""
    found: dict[str, tuple[list[str], str, list[int]]] = {}
    for cid, thinking, losses in cases:
        for loss in losses:
            key = design_class(loss)
            if not key:
                continue
            choice = next((d for d in choices if key in d.classes and thinking in d.settings), None)
            ids, _, _ = found.setdefault(key, ([], choice.key if choice else "", list(choice.lines) if choice else []))
            if cid not in ids:
                ids.append(cid)
    return [{"class": k, "cases": ids, "design": design, "lines": lines} for k, (ids, design, lines) in found.items()]


def explainable(loss: Loss) -> bool:
    """A loss a design choice could explain (worth reading the template's design for)."""
    return bool(_class_of(loss)) or (loss.kind == "parser-loses" and any(s in loss.sentence for s in _READ_AS_REASONING))


def reread(losses: tuple[Loss, ...], case: RoundTripCase, thinking: bool, session: TemplateSession,
           choices: Sequence[DesignChoice]) -> tuple[Loss, ...]:
    """The case's losses with the by-design and stop-token readings (see the module docstring)."""
    cid = case_id(case.message_id, thinking)
    prompt_choice = next((c for loss in losses if (k := _class_of(loss)) in ("thinking-opened", "thinking-closed")
                          and (c := by_design(choices, k, (cid,))) is not None), None)
    # what a prompt that opens the block does to the reply (read as reasoning) is that block's
    opened = by_design(choices, "thinking-opened", (cid,))
    token: str | None = None
    if any(loss.kind == "parser-loses" and loss.lost == "reply" for loss in losses):
        token = stop_artifact(session, case, thinking)
    out: list[Loss] = []
    for loss in losses:
        key = _class_of(loss)
        choice = by_design(choices, key, (cid,)) if key else None
        if choice is None and loss.kind == "thinking-prompt":
            choice = prompt_choice
        if choice is None and loss.kind == "parser-loses" and any(s in loss.sentence for s in _READ_AS_REASONING):
            choice = opened
        if choice is not None:
            # the first line that shows the choice (unless lines are turned off: no_template_line)
            line = choice.lines[0] if choice.lines and loss.template_line is not None else loss.template_line
            out.append(replace(loss, kind="by-design", where="template", template_line=line,
                               sentence=f"{loss.sentence}; by design: {choice.summary}"))
        elif token is not None and loss.kind == "parser-loses" and loss.lost == "reply":
            out.append(replace(loss, kind="stop-token", where="llama.cpp", sentence=(
                f"the reply ends with the template's end-of-turn token {token!r}, which the server never hands to "
                "the parser (a model stops on it); without it the reply parses back: a stop-token artifact, not "
                "a parser loss")))
        else:
            out.append(loss)
    return tuple(out)


__all__ = ["design_class", "design_losses", "explainable", "reread"]
