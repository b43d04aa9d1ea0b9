"""What llama.cpp's grammar does with one output, worked out once per diagnosis.

Input: ``Facts`` (the request's GBNF, laziness, triggers, thinking tags and generation
prompt; the parse and its tree; the analysis, for where a trigger comes from). Output: a
``GrammarView``: for a lazy grammar where it wakes (``Wake``: which trigger, from where,
a trigger match the reasoning gate held back, a trigger the generation prompt began), the
parsed calls' starts and the content/reasoning spans, and ``GrammarRun``: llguidance's
verdict on the constrained text (refusal placed as an output character, what the grammar
wanted there, a trailing stop token that explains it, the character-level reading when
llguidance and the parser disagree), plus whether the parser accepted the output.

Cost is bounded: the constrained text is checked up to ``GRAMMAR_CHECK_BYTES`` (the run
says when it stopped there) and the character-level reading runs on at most
``CHAR_LEVEL_CHARS`` characters; llguidance's compiled grammar is cached per GBNF text
(``explorer.grammar.check.compile_gbnf``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from explorer.generator.params import OPENAI_WRAPPER_TRIGGER, GrammarTrigger
from explorer.grammar.check import Verdict, check_constrained
from explorer.grammar.triggers import GrammarFeed, lazy_feed, trigger_regex
from explorer.handlers.registry import source_of
from explorer.roundtrip.gbnf_earley import recognize
from explorer.triage.facts import Facts
from explorer.triage.model import shown
from explorer.triage.textscan import TAG

GRAMMAR_CHECK_BYTES = 16_000  # ~20 ms of llguidance; a 100 KB output's triage stays within 0.5 s
# llguidance's cost per byte can grow with a lexeme's length (a long Gemma 4 string argument:
# 48 s for 2 KB), so the check also stops on the clock; what it did not read is said.
GRAMMAR_CHECK_SECONDS = 0.15
CHAR_LEVEL_CHARS = 200  # the Earley reading grows fast: 200 characters take ~0.07 s, 400 up to 2 s

# Special tokens at the end of the output: llama.cpp stops on the first (an end-of-generation
# token), so the grammar never has to take them (as explorer.roundtrip.verdicts reads a reply).
_TRAILING_TOKENS = re.compile(r"(?:\s*(?:" + TAG.pattern + r"))+\s*\Z")

ParserSays = Literal["accepts", "rejects", "unsure"]


@dataclass(frozen=True)
class Wake:
    """Where a lazy grammar wakes (``start`` None: never)."""

    feed: GrammarFeed
    trigger: str  # 'WORD "<tool_call>\n"', or "" when none fired
    origin: str  # where that trigger comes from, in words
    field: str = ""  # the analysis field behind it
    probe: str = ""
    held_back: int | None = None  # an earlier trigger match inside a thinking block (the gate skipped it)
    in_prompt: str = ""  # a trigger the generation prompt already began (llama.cpp's buffer holds the output only)

    @property
    def start(self) -> int | None:
        return self.feed.start


@dataclass(frozen=True)
class GrammarRun:
    """llguidance over the constrained text. ``refused``: the output character it refused
    (None: it took every byte it was given); ``stop_token``: a trailing special token (or
    whitespace) the refusal is about, after which the grammar may stop (llama.cpp stops
    there); ``char_level``: the character-level reading's verdict on the same question,
    asked only when the parser accepts (None: not asked, or too long)."""

    verdict: Verdict | None
    error: str = ""
    refused: int | None = None
    stop_token: str = ""
    char_level: bool | None = None
    checked_bytes: int = 0
    total_bytes: int = 0

    @property
    def ok(self) -> bool:
        """The grammar takes the text (a trailing stop token aside)."""
        return self.verdict is not None and (self.verdict.accepted or bool(self.stop_token))

    @property
    def truncated(self) -> bool:
        return self.verdict is not None and self.verdict.truncated


@dataclass(frozen=True)
class GrammarView:
    lazy: bool
    wake: Wake | None  # lazy grammars only
    run: GrammarRun | None  # None: nothing constrained (no grammar, or the lazy grammar never woke)
    calls: tuple[int, ...]  # output characters where the parsed calls start
    regions: tuple[tuple[str, int, int], ...]  # ("content" | "reasoning", start, end) as the parser read them
    parser: ParserSays
    constrained_from: int | None  # output character the grammar constrains from (0 for an eager grammar)
    parser_wants_more: bool = False  # the parse reached the end inside an open rule (lenient)

    def region_at(self, at: int) -> str:
        return next((tag for tag, a, b in self.regions if a <= at < b), "")


def triggers_json(f: Facts) -> list[dict[str, Any]]:
    return [t.to_json() for t in f.params.grammar_triggers]


def thinking(f: Facts) -> tuple[str, tuple[str, ...]] | None:
    p = f.params
    return (p.thinking_start_tag, tuple(p.thinking_end_tags)) if p.thinking_start_tag else None


def _parser_says(f: Facts) -> ParserSays:
    if f.failed or f.partial_failed:
        return "rejects"
    result = f.parse.result
    if f.is_partial or result.end < len(f.parse.input):
        return "unsure"  # still being written, or text dropped: the parser did not read it all
    return "accepts"  # a lenient final parse that wants more input is still llama-server's answer


def _tree(f: Facts) -> tuple[tuple[int, ...], tuple[tuple[str, int, int], ...]]:
    if f.message is None:
        return (), ()
    gp = len(f.gp)
    calls: dict[str, set[int]] = {"tool": set(), "tool-open": set(), "tool-name": set()}
    regions: list[tuple[str, int, int]] = []
    for node in f.parse.result.walk():
        if node.tag in calls:
            calls[node.tag].add(max(0, node.start - gp))
        elif node.tag in ("content", "reasoning") and node.end > gp:
            regions.append((node.tag, max(0, node.start - gp), node.end - gp))
    starts = calls["tool"] or calls["tool-open"] or calls["tool-name"]
    return tuple(sorted(starts)), tuple(regions)


def describe_trigger(trigger: GrammarTrigger) -> str:
    return f"{trigger.type} {shown(trigger.value)}"


def trigger_origin(f: Facts, trigger: GrammarTrigger) -> tuple[str, str, str]:
    """(where the trigger comes from, the analysis field, its probe)."""
    p = f.params
    if p.handler != "autoparser":
        return f"llama.cpp's {p.handler} handler, which declares it ({source_of(p.handler)})", "", ""
    if trigger.value == OPENAI_WRAPPER_TRIGGER:
        return ("the wrapper trigger peg_generator::generate_parser adds when the analysis finds an OpenAI-style "
                "wrapper (tools.format.openai_wrapper_trigger)"), "tools.format.openai_wrapper_trigger", ""
    fmt = f.analysis.tools.format if f.analysis is not None else None
    for name in ("section_start", "per_call_start"):
        value = getattr(fmt, name, "") if fmt is not None else ""
        if value and value.strip() == trigger.value.strip():
            field = f"tools.format.{name}"
            prov = f.analysis.provenance.get(field) if f.analysis is not None else None
            probe = getattr(prov, "probe", None) or ""
            why = "" if name == "section_start" else " (the format has no section_start)"
            return (f"the analysis' {field}{why}" + (f", set by probe {probe}" if probe else "")
                    + ": peg_generator::generate_parser makes it a WORD trigger"), field, probe
    return ("the analysis' tools.format.section_start, else per_call_start: peg_generator::generate_parser makes "
            "it a WORD trigger"), "", ""


def _in_prompt(f: Facts) -> str:
    """A trigger that matches across the generation prompt's end: the prompt wrote its
    beginning, and llama.cpp's trigger buffer holds generated text only."""
    gp = f.gp
    if not gp:
        return ""
    for t in f.params.grammar_triggers:
        regex = trigger_regex(t.to_json())
        if regex is None:
            continue
        head = max(0, len(gp) - 400)
        text = gp[head:] + f.output[:400]
        cut = len(gp) - head
        for m in regex.finditer(text):
            if m.start() < cut <= m.end() and m.end() > m.start():
                return describe_trigger(t)
    return ""


def _wake(f: Facts, calls: tuple[int, ...]) -> Wake:
    triggers = triggers_json(f)
    feed = lazy_feed(f.output, triggers, generation_prompt=f.gp, thinking=thinking(f))
    held_back = None
    # a trigger the reasoning gate held back only matters for a call the grammar missed
    missed = bool(calls) and (feed.start is None or calls[0] < feed.start)
    if thinking(f) is not None and missed:
        free = lazy_feed(f.output, triggers, generation_prompt=f.gp, thinking=None)
        if free.start is not None and (feed.start is None or free.start < feed.start):
            held_back = free.start
    if feed.trigger is None:
        return Wake(feed, "", "", held_back=held_back, in_prompt=_in_prompt(f))
    trigger = f.params.grammar_triggers[feed.trigger]
    origin, field, probe = trigger_origin(f, trigger)
    return Wake(feed, describe_trigger(trigger), origin, field, probe, held_back, _in_prompt(f))


def _char_level(f: Facts, text: str, upto: int | None) -> bool | None:
    """Does a character-level reading of the GBNF take ``text`` (up to and including
    character ``upto``; all of it, and may it stop there, when None)?"""
    piece = text if upto is None else text[:upto + 1]
    if len(piece) > CHAR_LEVEL_CHARS:
        return None
    try:
        seen = recognize(f.params.grammar, piece)
    except Exception:  # noqa: BLE001 - an explanation must never break the parse it explains
        return None
    return seen.accepted if upto is None else seen.consumed >= len(piece)


def _stop_tokens(f: Facts, fed: str, refused_fed: int, verdict: Verdict, lazy: bool) -> str:
    """The trailing special tokens (or whitespace) a refusal is about, when the grammar takes
    the text without them and may stop there; "" otherwise."""
    rest = fed[refused_fed:].strip()
    if verdict.complete and (not rest or rest in f.params.additional_stops):
        return rest or "(trailing whitespace)"
    tail = _TRAILING_TOKENS.search(fed)
    if tail is None:
        return ""
    # the special token the refusal falls in (or the last one before it): llama.cpp stops there
    at = refused_fed + len(fed[refused_fed:]) - len(fed[refused_fed:].lstrip())  # past whitespace
    starts = [m.start() for m in TAG.finditer(fed, tail.start()) if m.start() <= at]
    if not starts or starts[-1] == 0:
        return ""
    head = fed[:starts[-1]]
    for shorter in dict.fromkeys((head, head.rstrip())):
        try:
            shorter_verdict = check_constrained(f.params.grammar, shorter, prefill="" if lazy else f.gp,
                                                max_bytes=GRAMMAR_CHECK_BYTES, max_seconds=GRAMMAR_CHECK_SECONDS)
            if shorter_verdict.accepted and not shorter_verdict.truncated:
                first = TAG.match(fed, starts[-1])
                return first.group() if first else fed[starts[-1]:].strip()
        except Exception:  # noqa: BLE001 - an explanation must never break the parse it explains
            return ""
    return ""


def _run(f: Facts, fed: str, to_output: Callable[[int], int], parser: ParserSays) -> GrammarRun:
    lazy = f.params.grammar_lazy
    data = fed.encode("utf-8", "surrogatepass")
    try:
        verdict = check_constrained(f.params.grammar, fed, prefill="" if lazy else f.gp,
                                    max_bytes=GRAMMAR_CHECK_BYTES, max_seconds=GRAMMAR_CHECK_SECONDS)
    except Exception as exc:  # noqa: BLE001 - llguidance's own errors, or a grammar it cannot read
        return GrammarRun(None, error=str(exc), total_bytes=len(data))
    checked = verdict.consumed_bytes if verdict.truncated else min(len(data), GRAMMAR_CHECK_BYTES)
    if verdict.accepted:
        return GrammarRun(verdict, checked_bytes=checked, total_bytes=len(data))
    if verdict.message.startswith("grammar refused the prefill"):
        return GrammarRun(verdict, checked_bytes=0, total_bytes=len(data))
    refused_fed = len(data[:verdict.consumed_bytes].decode("utf-8", "ignore"))
    refused = to_output(refused_fed) if verdict.consumed_bytes < len(data) else None
    stop = _stop_tokens(f, fed, refused_fed, verdict, lazy)
    char_level = None
    if not stop and parser == "accepts":
        text = fed if lazy else f.gp + fed
        shift = 0 if lazy else len(f.gp)
        char_level = _char_level(f, text, None if refused is None else refused_fed + shift)
    return GrammarRun(verdict, refused=refused, stop_token=stop, char_level=char_level, checked_bytes=checked,
                      total_bytes=len(data))


def build_view(f: Facts) -> GrammarView | None:
    """None when the request has no grammar."""
    if not f.params.grammar:
        return None
    calls, regions = _tree(f)
    parser = _parser_says(f)
    more = f.parse.result.need_more_input()
    if not f.params.grammar_lazy:
        return GrammarView(False, None, _run(f, f.output, lambda i: i, parser), calls, regions, parser, 0, more)
    wake = _wake(f, calls)
    if wake.start is None:
        return GrammarView(True, wake, None, calls, regions, parser, None, more)
    run = _run(f, wake.feed.text, wake.feed.output_index, parser)
    return GrammarView(True, wake, run, calls, regions, parser, wake.start, more)


_VIEWS: list[tuple[Facts, GrammarView | None]] = []


def view(f: Facts) -> GrammarView | None:
    """The view of these facts, worked out once for the grammar checks that share it."""
    for facts, made in _VIEWS:
        if facts is f:
            return made
    made = build_view(f)
    _VIEWS.insert(0, (f, made))
    del _VIEWS[4:]
    return made
