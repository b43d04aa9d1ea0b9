"""The outputs the statement audit diagnoses: each template's own replies, mutated.

For a template (its session) and a request: the template's own replies (content, a call,
reasoning and a call) as the round trip cuts them, whole, cut at points, with one character
dropped, and with one tag misspelt (a letter dropped, two swapped, ``_`` for ``-``).
Deterministic for a seed. The statement-audit test draws from it; the local sweep
(``benchmarks/sweep_statements.py``) takes many more of each.
"""

from __future__ import annotations

import copy
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass

from explorer.apply import GET_WEATHER_TOOL, Request
from explorer.errors import ExplorerError
from explorer.session import TemplateSession

KINDS = ("reply", "call", "reasoning+call")
_TAG = re.compile(r"<[^<>\s]{2,40}>|\[[A-Z_/]{2,20}\]|<\|[^|<>]{1,30}\|>|<｜[^｜<>]{1,30}｜>")


@dataclass(frozen=True)
class Case:
    template: str
    thinking: bool
    how: str  # "whole", "cut 12", "drop 7", "misspell </tool_call> -> </tool_cal>"
    output: str


def requests(session: TemplateSession) -> Iterator[tuple[bool, Request]]:
    """The requests the audit diagnoses with: one tool (get_weather), thinking each way the
    template supports."""
    settings = (False, True) if session.supports_enable_thinking else (False,)
    for flag in settings:
        yield flag, session.request(tools=[copy.deepcopy(GET_WEATHER_TOOL)], enable_thinking=flag,
                                    chat_template_kwargs={"enable_thinking": flag, "thinking": flag})


def replies(session: TemplateSession, request: Request) -> list[str]:
    out: list[str] = []
    for kind in KINDS:
        try:
            reply = session.sample_reply(kind, request)  # type: ignore[arg-type]
        except ExplorerError:
            continue
        if reply and reply not in out:
            out.append(reply)
    return out


def misspellings(reply: str, rng: random.Random) -> list[tuple[str, str]]:
    """(how, output): one tag of the reply misspelt, for a few of its tags."""
    tags = [m for m in _TAG.finditer(reply)]
    rng.shuffle(tags)
    out: list[tuple[str, str]] = []
    for m in tags[:3]:
        tag = m.group(0)
        letters = [i for i, c in enumerate(tag) if c.isalpha()]
        if len(letters) < 3:
            continue
        i = rng.choice(letters[1:-1])
        kinds = [tag[:i] + tag[i + 1:], tag[:i] + tag[i + 1] + tag[i] + tag[i + 2:]]
        if "_" in tag:
            kinds.append(tag.replace("_", "-", 1))
        wrong = rng.choice([k for k in kinds if k != tag] or [tag[:i] + tag[i + 1:]])
        out.append((f"misspell {tag} -> {wrong}", reply[:m.start()] + wrong + reply[m.end():]))
    return out


def mutations(reply: str, rng: random.Random, cuts: int, drops: int) -> list[tuple[str, str]]:
    out = [("whole", reply)]
    n = len(reply)
    if n > 1:
        for k in sorted(rng.sample(range(1, n), min(cuts, n - 1))):
            out.append((f"cut {k}", reply[:k]))
        for k in sorted(rng.sample(range(n), min(drops, n))):
            out.append((f"drop {k}", reply[:k] + reply[k + 1:]))
    out += misspellings(reply, rng)
    return out


def cases(name: str, session: TemplateSession, *, seed: int = 18, cuts: int = 2, drops: int = 1,
          per_template: int | None = None) -> Iterator[tuple[Case, Request]]:
    """The template's cases (at most ``per_template``, chosen with the seed)."""
    rng = random.Random(f"{seed}:{name}")
    made: list[tuple[Case, Request]] = []
    for flag, request in requests(session):
        try:
            own = replies(session, request)
        except ExplorerError:
            continue
        for reply in own:
            for how, output in mutations(reply, rng, cuts, drops):
                made.append((Case(name, flag, how, output), request))
    if per_template is not None and len(made) > per_template:
        made = [made[0]] + rng.sample(made[1:], per_template - 1)
    yield from made
