"""The statement audit: is every sentence of a diagnosis true in its details?

Input: a ``Diagnosis`` (and, for the checks that re-run something, the
``TemplateSession`` and ``Request`` it was made with). Output: ``Violation``s, one per
sentence (or field) that breaks an invariant, each naming the invariant
(``INVARIANTS``), the finding's check and what is wrong. ``audit`` runs them all; the
statement-audit test and the local sweep (``benchmarks/sweep_statements.py``) call it.

The invariants, each checked mechanically:

- ``found``: a finding's ``found`` is the output text at its ``span``, or a cut of it
  (``model.cut``: its start and ``…``), or ``END_OF_OUTPUT`` for an empty span at the end;
  its ``place`` is that span; every position its summary names is that place's;
- ``excerpt``: a quoted excerpt that is not whole says so: ``…`` at each cut side and
  which characters of how many it shows (``model.quote``); a quote of the output (or the
  generation prompt, or the returned message) never starts or ends inside a word there;
- ``see``: every "(see X)" names a check with a finding in the same diagnosis, and the
  finding lists it in ``see``;
- ``fix-where``: one fact, one ``fix_where`` (``blame``), across the findings;
- ``contradiction``: no finding makes a claim another finding or the parse refutes
  (``CONTRADICTIONS``, as data, and ``consistency.RULES``);
- ``starts-here``: "starts here" ("prints the text from there") is said of one place only,
  the one where llama.cpp's failed final parse stopped;
- ``suggestion``: every suggestion, re-run, gives a message without an error (a corrected
  output under the same request, the output under a changed request) and, for a request
  change, the template's own call parses under it too; no fix hint names a request
  change that is not its finding's verified suggestion.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from explorer.errors import ExplorerError
from explorer.triage import blame, consistency
from explorer.triage.checks_reasoning import COMMON_ENDS, COMMON_STARTS
from explorer.triage.model import CUT, END_OF_OUTPUT, SEE, Diagnosis, Finding, Place, is_cut_of

if TYPE_CHECKING:
    from explorer.apply import Request
    from explorer.session import TemplateSession

INVARIANTS: tuple[str, ...] = ("found", "excerpt", "see", "fix-where", "contradiction", "starts-here", "suggestion")


@dataclass(frozen=True)
class Violation:
    invariant: str
    check: str
    what: str

    def __str__(self) -> str:
        return f"[{self.invariant}] {self.check}: {self.what}"


# --- found and place ---------------------------------------------------------------------------

WHERE = re.compile(r"output character (\d+), line (\d+), column (\d+)")
LLAMA_OFFSET = re.compile(r"llama\.cpp offset (\d+)|\(offset (\d+)\)")
POS = re.compile(r"\bpos (\d+)")
ANY_POSITION = re.compile(r"\b(?<!template )(?:character|line|column|offset|pos) \d+")


def _found(d: Diagnosis, f: Finding) -> list[str]:
    out = d.output
    if f.span is None:
        placed = [] if f.place is None else ["a finding without a span has a place"]
        return placed + (["a summary without a place names a position"] if ANY_POSITION.search(f.summary) else [])
    start, end = f.span
    if not 0 <= start <= end <= len(out):
        return [f"span {f.span} lies outside the output ({len(out)} characters)"]
    bad: list[str] = []
    if f.place is None or replace(f.place, unparsed=False) != Place.of(out, d.generation_prompt, start, end):
        bad.append(f"place {f.place} is not the span {f.span}")
    if f.found == END_OF_OUTPUT:
        if not start == end == len(out):
            bad.append(f"found says the end of the output, the span is {f.span}")
    elif not is_cut_of(f.found, out[start:end]):
        bad.append(f"found {f.found!r} is not the output at {f.span} ({out[start:end][:60]!r}) nor a cut of it")
    if f.place is not None:
        p = f.place
        for m in WHERE.finditer(f.summary):
            if tuple(int(g) for g in m.groups()) != (p.char, p.line, p.column):
                bad.append(f"the summary names {m.group(0)!r}, the place is {p.where()}")
        for m in LLAMA_OFFSET.finditer(f.summary):
            if int(m.group(1) or m.group(2)) != p.llama_offset:
                bad.append(f"the summary names {m.group(0)!r}, the place is offset {p.llama_offset}")
        for m in POS.finditer(f.summary):
            if int(m.group(1)) != p.pos:
                bad.append(f"the summary names {m.group(0)!r}, the place is pos {p.pos}")
        rest = LLAMA_OFFSET.sub("", POS.sub("", WHERE.sub("", f.summary)))
        other = ANY_POSITION.search(rest)
        if other:
            bad.append(f"another position wording in the summary: {other.group(0)!r}")
    return bad


# --- excerpts ----------------------------------------------------------------------------------

_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')
_LENGTH_NOTE = re.compile(r" \((?:the first (\d+)|the last (\d+)|characters (\d+)–(\d+)) of (\d+)(?: characters)?\)")
MIN_CUT_CHECK = 6  # shorter quotes are names and markers, whole by construction
_NAME = re.compile(r"[A-Za-z_][\w.\-]*")  # a name (a tool's, a key's) is quoted whole, whatever stands beside it


# a grammar's or parser's expectation, or a diff's reference point: no quote of a text
_WANTED = re.compile(r"(?:wanted|wanting|wants|expects|expected|needs|after|extra|missing|WORD|TOKEN|PATTERN|"
                     r"PATTERN_FULL) $")


def quotes(text: str) -> list[tuple[str, int]]:
    """The JSON-quoted strings of a sentence that quote a text (an expectation, the rest
    of a literal the grammar wanted, is not one), decoded, with where each quote ends."""
    out = []
    for m in _QUOTED.finditer(text):
        if _WANTED.search(text, 0, m.start()):
            continue
        try:
            value = json.loads(m.group(0))
        except ValueError:
            continue
        if isinstance(value, str):
            out.append((value, m.end()))
    return out


def _mid_word(text: str, at: int, piece: str) -> bool:
    end = at + len(piece)
    starts_inside = at > 0 and text[at - 1].isalnum() and piece[0].isalnum()
    ends_inside = end < len(text) and text[end].isalnum() and piece[-1].isalnum()
    return starts_inside or ends_inside


def _cut_unmarked(piece: str, sources: tuple[str, ...]) -> bool:
    """The piece occurs in a source text, and every occurrence starts or ends inside a word."""
    seen = False
    for text in sources:
        at = text.find(piece)
        while at >= 0:
            seen = True
            if not _mid_word(text, at, piece):
                return False
            at = text.find(piece, at + 1)
    return seen


def _excerpts(d: Diagnosis, f: Finding) -> list[str]:
    m = d.message
    sources = (d.output, d.generation_prompt) + ((m.content, m.reasoning_content, *(c.arguments for c in m.tool_calls))
                                                 if m is not None else ())
    bad: list[str] = []
    for field, text in (("summary", f.summary), ("detail", f.detail), ("fix_hint", f.fix_hint), ("rule", f.rule)):
        for piece, end in quotes(text):
            inner = piece.removeprefix(CUT).removesuffix(CUT)
            if piece != inner and not piece.strip(CUT) == "":
                note = _LENGTH_NOTE.match(text, end)
                if note is None:
                    bad.append(f"{field}: the cut excerpt {piece[:50]!r} does not say which characters of how many")
                else:
                    first, last, a, b, total = note.groups()
                    shown_chars = int(first or last or 0) or (int(b) - int(a))
                    if shown_chars != len(inner):
                        bad.append(f"{field}: the excerpt shows {len(inner)} characters, its note says {shown_chars}")
                    if int(total) < len(inner):
                        bad.append(f"{field}: the excerpt is longer than the {total} characters it cuts")
            elif len(piece) >= MIN_CUT_CHECK and not _NAME.fullmatch(piece) and _cut_unmarked(piece, sources):
                bad.append(f"{field}: the quote {piece[:50]!r} starts or ends inside a word of the text it quotes, "
                           "with no mark of the cut")
    return bad


# --- references, facts, the "starts here" label -----------------------------------------------


def _references(d: Diagnosis, f: Finding) -> list[str]:
    present = {g.check for g in d.findings}
    named = [m.group(1) for text in (f.summary, f.detail, f.fix_hint, f.rule) for m in SEE.finditer(text)]
    bad = [f"\"(see {c})\" points at no finding of the diagnosis" for c in named if c not in present]
    if set(f.see) != {c for c in named if c in present}:
        bad.append(f"see {f.see} is not the references of its text {named}")
    return bad


def _fix_where(d: Diagnosis) -> list[Violation]:
    out: list[Violation] = []
    by_fact: dict[str, set[str]] = {}
    for f in d.findings:
        fact = blame.fact_of(f)
        if fact:
            by_fact.setdefault(fact, set()).add(f.fix_where)
        if blame.fix_where_of(f) != f.fix_where:
            out.append(Violation("fix-where", f.check, f"fix_where {f.fix_where}, its fact {fact} says "
                                                       f"{blame.fix_where_of(f)}"))
    for fact, wheres in by_fact.items():
        if len(wheres) > 1:
            out.append(Violation("fix-where", fact, f"one fact, several fix_where: {sorted(wheres)}"))
    return out


STARTS_HERE = ("starts here", "prints the text from there", "prints the text from here")


def _starts_here(d: Diagnosis, stop: int | None) -> list[Violation]:
    """``stop``: the output character llama.cpp's failed final parse stopped at (None: it did
    not fail, or stopped in the generation prompt)."""
    out: list[Violation] = []
    marked = {f.place.char for f in d.findings if f.place is not None and f.place.unparsed}
    if marked - ({stop} if stop is not None else set()):
        out.append(Violation("starts-here", "", f"places {sorted(marked)} marked, llama.cpp stopped at {stop}"))
    for f in d.findings:
        said = any(s in text for s in STARTS_HERE for text in (f.summary, f.detail))
        if said and (f.place is None or not f.place.unparsed):
            out.append(Violation("starts-here", f.check, "says the unparsed text starts at its place, which is not "
                                                         "where llama.cpp stopped"))
    return out


# --- contradictions, as data --------------------------------------------------------------------


@dataclass(frozen=True)
class Context:
    diagnosis: Diagnosis
    openers: tuple[str, ...]


@dataclass(frozen=True)
class Contradiction:
    """A claim a finding makes (``claims``), and what in the same diagnosis refutes it."""

    says: str
    claims: Callable[[Finding], bool]
    refuted: Callable[[Context, Finding], bool]


REASONING_TAGS = COMMON_STARTS + COMMON_ENDS + ("<reasoning>", "</reasoning>")


def _call_markup_seen(c: Context, f: Finding) -> bool:
    del f
    return any(o in c.diagnosis.output for o in c.openers) or any(
        g.check in consistency.CALL_SEEN for g in c.diagnosis.findings)


def _stops_elsewhere(c: Context, f: Finding) -> bool:
    """unconsumed-output places llama.cpp's stop elsewhere (past more than whitespace)."""
    if f.span is None:
        return False
    for g in c.diagnosis.findings:
        if g.check == "unconsumed-output" and "stopped at" in g.summary and g.span is not None:
            a, b = sorted((f.span[0], g.span[0]))
            if c.diagnosis.output[a:b].strip():
                return True
    return False


def _end_in_reasoning(c: Context, f: Finding) -> bool:
    """The output's end is reasoning so far (so no call is on its way there)."""
    m, tail = c.diagnosis.message, c.diagnosis.output.strip()[-12:]
    return m is not None and bool(tail) and not m.content and m.reasoning_content.rstrip().endswith(tail)


# what a finding says llama.cpp returned in the message: false when there is no message
MESSAGE_CLAIMS = ("keeps the reasoning in content", "stays in content", "returns the text as content",
                  "keeps it as reasoning text", "returns the whole output as reasoning_content",
                  "leaves the reasoning in content", "reads it as content", "the reasoning stays in content",
                  "keeps the second one as text", "llama.cpp returns the partial call", "llama.cpp returns")


def _claims_message(f: Finding) -> bool:
    return f.severity != "info" and any(w in f.summary for w in MESSAGE_CLAIMS)


def _misspelt_close(c: Context, f: Finding) -> bool:
    """The call the finding calls cut off ends in a closing tag spelt wrong (a closer-near-miss)."""
    return any(g.check == "closer-near-miss" for g in c.diagnosis.findings)


CONTRADICTIONS: tuple[Contradiction, ...] = (
    Contradiction("a tool call has started (and will be readable)",
                  lambda f: f.check == "partial-output" and "A tool call has started" in f.summary,
                  _end_in_reasoning),
    Contradiction("llama.cpp stops here without an error",
                  lambda f: "stops there without an error" in f.summary, _stops_elsewhere),
    Contradiction("nothing in the output matched the start of a tool call",
                  lambda f: f.check == "tool-mentioned", _call_markup_seen),
    Contradiction("the text left is an end-of-turn marker or a stop string (nothing to fix)",
                  lambda f: f.check == "unconsumed-output" and ("end-of-turn" in f.summary
                                                                 or "stop strings" in f.summary),
                  lambda c, f: f.found.strip().startswith(REASONING_TAGS)),
    Contradiction("all is fine (nothing to fix, read the way the format describes it)",
                  consistency.says_all_fine, lambda c, f: bool(c.diagnosis.causes)),
    Contradiction("llama-server answers with an error (HTTP 500) / rejects the whole output",
                  lambda f: f.severity != "info" and ("(HTTP 500)" in f.summary or "rejects the whole output"
                                                      in f.summary or "whole output is rejected" in f.summary),
                  lambda c, f: c.diagnosis.error is None and c.diagnosis.build_error is None),
    Contradiction("the parse succeeded (stopped without an error)",
                  lambda f: "without an error" in f.summary and f.check != "log",
                  lambda c, f: c.diagnosis.error is not None),
    Contradiction("llama.cpp returns a call",
                  lambda f: f.check in ("arguments-json", "value-swallowed", "call-cut-off"),
                  lambda c, f: c.diagnosis.message is None or not c.diagnosis.message.tool_calls),
    Contradiction("the output has no tool call",
                  lambda f: f.check == "required-call-missing",
                  lambda c, f: c.diagnosis.message is not None and bool(c.diagnosis.message.tool_calls)),
    Contradiction("llama.cpp returned this in the message (content, reasoning, a call)",
                  _claims_message, lambda c, f: c.diagnosis.message is None),
    Contradiction("the output was cut off inside a call (generation stopped there)",
                  lambda f: f.fact == "output-cut-off", _misspelt_close),
)


def contradictions(d: Diagnosis, openers: tuple[str, ...] = ()) -> list[str]:
    c = Context(d, openers)
    found = [f"{x.says}: {f.check}: {f.summary}" for f in d.findings for x in CONTRADICTIONS
             if x.claims(f) and x.refuted(c, f)]
    found += [f"{hit[0].why}: {f.check} beside {hit[1].check}" for f in d.findings
              for hit in [consistency.contradicted_by(f, d.findings)] if hit is not None]
    return found


# --- suggestions, re-run --------------------------------------------------------------------------

REQUEST_ADVICE = consistency.REQUEST_ADVICE


def _suggestions(d: Diagnosis, f: Finding, session: TemplateSession | None, request: Request | None) -> list[str]:
    s = f.suggestion
    bad: list[str] = []
    verified_change = s.request_change if s is not None and s.kind == "request" and s.verified else ""
    advising = " ".join(x for x in consistency.sentences(f.fix_hint) if consistency.advises(x))
    for m in REQUEST_ADVICE.finditer(advising):
        said = m.group(0).replace('\\"', '"')
        if said.replace('"', "") not in verified_change.replace('"', ""):
            bad.append(f"the fix hint advises {said!r}, which no verified suggestion of this finding re-ran")
    if s is None or session is None or request is None:
        return bad
    if not s.verified:
        return bad + ["a suggestion without a verification"]
    try:
        if s.kind == "output":
            parse = session.parse(s.text, request)
            if parse.error is not None or parse.result.end < len(parse.input):
                bad.append("the corrected output, re-parsed, does not parse whole")
        elif s.request is not None:
            parse = session.parse(d.output, s.request)
            if parse.error is not None:
                bad.append(f"the output under the changed request ({s.request_change}) still fails")
            own = session.own_call(s.request)
            if own and s.request.tools and s.request.tool_choice != "none":
                back = session.parse(own, s.request)
                if back.error is not None or back.message is None or not back.message.tool_calls:
                    bad.append(f"under {s.request_change} the template's own call does not parse back")
        else:
            bad.append("a request suggestion without the request it changes to")
    except ExplorerError as exc:
        bad.append(f"re-running the suggestion raised: {exc}")
    return bad


def audit_found(d: Diagnosis) -> list[Violation]:
    """The ``found`` invariant alone: each finding's found, span, place and positions agree."""
    return [Violation("found", f.check, w) for f in d.findings for w in _found(d, f)]


# --- all of it --------------------------------------------------------------------------------------


def audit(d: Diagnosis, session: TemplateSession | None = None, request: Request | None = None, *,
          openers: tuple[str, ...] = (), stop: int | None = None) -> list[Violation]:
    """Every invariant over the diagnosis. ``stop``: where llama.cpp's failed final parse
    stopped, as an output character (``Facts.stop``), when it failed past the generation
    prompt; given by a caller that parsed (with ``session`` it is worked out here)."""
    out: list[Violation] = []
    if session is not None and request is not None and stop is None and d.error is not None and not d.is_partial:
        params = session.params(request)
        end = session.parse(d.output, request).result.end
        stop = end - len(params.generation_prompt) if end >= len(params.generation_prompt) else None
    for f in d.findings:
        out += [Violation("found", f.check, w) for w in _found(d, f)]
        out += [Violation("excerpt", f.check, w) for w in _excerpts(d, f)]
        out += [Violation("see", f.check, w) for w in _references(d, f)]
        out += [Violation("suggestion", f.check, w) for w in _suggestions(d, f, session, request)]
    out += _fix_where(d)
    out += _starts_here(d, stop)
    out += [Violation("contradiction", "", w) for w in contradictions(d, openers)]
    return out
