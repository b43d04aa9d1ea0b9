"""The "log" findings: llama-server's log about one parse, placed in the output and held
against our parse of it.

Input: a ``LogReading`` (``explorer.triage.logs.locate``), our ``OutputParse`` of the output
the reading found (the request's parser: llama.cpp 0c1e5709's) and the ``Diagnosis`` of that
output. Output: a ``LogDiagnosis``: the reading and the diagnosis with the log's findings
first -- an info finding placing the log's position (which coordinate its number counts,
the output character and line:column it points at), and a warning at our parse's stop when
that is elsewhere (or when llama.cpp failed and our parse does not) -- or, when the log
holds no output, the reason. ``diagnose_log`` does it from the log text (pure).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from explorer.output.parse import OutputParse
from explorer.triage.consistency import references
from explorer.triage.llama_changes import (
    NEW_WORDING_FROM,
    OLD_WORDING_UP_TO,
    REFERENCE_COMMIT,
    changes_after,
    regressions_in,
)
from explorer.triage.logs import LogReading, locate, read_log
from explorer.triage.model import END_OF_OUTPUT, Diagnosis, Finding, Place, shown

CHECK = "log"
FOUND_CHARS = 40
OLDER = ("failed-at-pos",)


@dataclass(frozen=True)
class LogDiagnosis:
    """What the log says, and the diagnosis of the output it holds (None: ``problem``)."""

    reading: LogReading
    diagnosis: Diagnosis | None

    @property
    def problem(self) -> str:
        return self.reading.problem

    def header(self) -> list[str]:
        """What was read from the log, in lines (before the diagnosis)."""
        r = self.reading
        lines = [f"log: {len(r.log.failures)} parse failure record(s), {len(r.log.dumps)} dump(s) of the raw output"
                 + (" (--log-jsonl)" if r.log.jsonl else "")]
        if r.log.build is not None:
            lines.append(f"log: llama.cpp build {r.log.build.words()}, line {r.log.build.line_no}")
        if r.failure is not None:
            lines.append(f"log: read {r.failure.source}, line {r.failure.line_no}: {_clip(r.failure.line)}")
        if r.dump is not None:
            lines.append(f"log: the output comes from {r.dump.source}, line {r.dump.line_no}")
        elif r.output_from == "given":
            lines.append("log: the output is the one you gave")
        elif r.output_from == "log tail":
            lines.append("log: the output comes from the failure's own text")
        return lines + [f"log: {note}" for note in r.notes]

    def to_text(self, verbose: bool = False) -> str:
        text = "\n".join(self.header()) + "\n"
        if self.diagnosis is None:
            return text + self.problem + "\n"
        return self.diagnosis.headline + "\n\n" + text + "\n" + self.diagnosis.to_text(verbose).split("\n", 1)[1]

    def to_json(self) -> dict[str, Any]:
        r = self.reading
        return {
            "log": {
                "failure": None if r.failure is None else {
                    "kind": r.failure.kind, "source": r.failure.source, "line_no": r.failure.line_no,
                    "line": r.failure.line, "format": r.failure.format, "number": r.failure.number,
                    "tail": r.failure.tail},
                "dump": None if r.dump is None else {"kind": r.dump.kind, "source": r.dump.source,
                                                     "line_no": r.dump.line_no, "holds": r.dump.holds},
                "output_from": r.output_from or None, "counts": r.counts, "offset": r.offset, "char": r.char,
                "in_prompt": r.in_prompt, "exact": r.exact, "notes": list(r.notes), "problem": r.problem or None,
            },
            "diagnosis": self.diagnosis.to_json() if self.diagnosis is not None else None,
        }


def _clip(text: str, n: int = 120) -> str:
    return text if len(text) <= n else text[:n] + "…"


def _place(output: str, generation_prompt: str, at: int) -> tuple[Place, str]:
    found = output[at:at + FOUND_CHARS] or END_OF_OUTPUT
    return Place.of(output, generation_prompt, at, at if found == END_OF_OUTPUT else at + len(found)), found


def _coordinate(r: LogReading, place: Place) -> str:
    """What the log's number (or text) counts, in words, with the place's coordinates (each
    named only where it is the log's own number: a log with another generation prompt, or a
    byte inside a character, has other numbers than the place)."""
    assert r.failure is not None and r.offset is not None
    number = r.failure.number
    llama = f" (llama.cpp offset {place.llama_offset})" if place.llama_offset == r.offset and not r.in_prompt else ""
    if r.failure.kind == "unparsed":
        how = f"its text starts {r.offset} bytes into generation prompt + output{llama}"
    elif r.counts == "output":
        how = f"its number {number} counts bytes of the model output alone" + (
            f" (older builds' pos {place.pos})" if place.pos == number else "")
    else:
        how = f"its number {number} counts bytes of generation prompt + output{llama}"
    if r.in_prompt:
        return how + (": it points into the generation prompt, before the output (the parse stopped before "
                      f"reading any of it); in the output that is its start, {place.where()}")
    return how + f": it points at {place.where()}"


def build_explains(r: LogReading, signs: set[str]) -> str:
    """Why the log's llama.cpp and 0c1e5709's parser read this output differently, when a
    known change between the builds explains it (``explorer.triage.llama_changes``); "" when
    none does (then the request or the template differs)."""
    build = r.log.build
    number = build.number if build is not None else None
    words = build.words() if build is not None else ""
    regs = regressions_in(number, signs)
    if regs:
        c = regs[0]
        return (f"your build {words} is one of the builds {c.ref} reports broken for outputs like this one ({c.what}; "
                f"{c.separates()}; {c.url}); llama.cpp {REFERENCE_COMMIT}'s parser reads this output")
    shown, other = changes_after(number, signs)
    if shown:
        refs = "; ".join(f"{c.ref} ({c.date}: {c.what}; {c.separates()}; {c.url})" for c in shown[:3])
        return (f"your build {words} predates {refs}, which changed how outputs like this one parse; llama.cpp "
                f"{REFERENCE_COMMIT}'s parser, which has {'them' if len(shown) > 1 else 'it'}, reads this output")
    if number is None and r.failure is not None and r.failure.kind in OLDER:
        return (f"the log's wording (\"Failed to parse input at pos N\") is older builds' (reported up to "
                f"b{OLD_WORDING_UP_TO}; from about b{NEW_WORDING_FROM} llama.cpp prints \"does not match the expected "
                "… format\", as 0c1e5709 does), so the server ran an older build than 0c1e5709, whose parser changed "
                "since (the log names no build line: llama-server prints \"build: N (commit)\" when it starts)")
    if other:
        refs = ", ".join(c.ref for c in other[:4])
        return (f"your build {words} predates parser changes ({refs}); one of them may explain it, else the request "
                "or the template differs")
    return ""


def log_findings(r: LogReading, parse: OutputParse, generation_prompt: str, format: str,
                 signs: set[str] | None = None) -> tuple[Finding, ...]:
    """The log's findings for the output ``r`` found, given our parse of it (``signs``: the
    checks with findings in the diagnosis, for the changes that explain a difference)."""
    signs = signs or set()
    assert r.output is not None
    output = r.output
    detail = " ".join(r.notes)
    our_at = max(0, min(len(output), parse.result.end - len(generation_prompt)))
    our_in_prompt = parse.result.end < len(generation_prompt)
    we_fail = parse.error is not None or parse.result.fail()
    if r.failure is None:
        return (Finding(check=CHECK, severity="info", fix_where="model",
                        summary="The log records no parse failure; its output is diagnosed as it is."
                                + (" Our parse of it fails (see parse-error)." if we_fail else ""),
                        detail=detail),)
    if r.char is None:  # a failure the log does not place (or places in another output)
        if not we_fail:
            return (_ours_succeed(r, detail, signs),)
        place, found = _place(output, generation_prompt, our_at)
        return (Finding(
            check=CHECK, severity="info",
            summary=f"The log records {r.failure.source} without a place in this output; our parse of it stops at "
                    f"{place.where()} (llama.cpp 0c1e5709's warning \"unparsed {format} output:\" prints the "
                    "text from there).",
            detail=detail, span=(place.char, place.end), found=found, place=place),)
    place, found = _place(output, generation_prompt, r.char)
    agree = we_fail and (our_at, our_in_prompt) == (r.char, r.in_prompt)
    verdict = ("; our parse of this output (llama.cpp 0c1e5709's parser for this request) stops there too."
               if agree else ".")
    first = Finding(
        check=CHECK, severity="info",
        summary=f"llama-server's log: {r.failure.source}; {_coordinate(r, place)}{verdict}",
        detail=(f"The log's record (its line {r.failure.line_no} as pasted): {shown(_clip(r.failure.line))}. "
                + detail).strip(),
        span=(place.char, place.end), found=found, place=place,
        rule="llama.cpp 0c1e5709 counts bytes of generation prompt + output (result.end); older builds counted "
             "bytes of the output alone; the triage's spans count characters of the output.")
    if agree:
        return (first,)
    if not we_fail:
        return (first, _ours_succeed(r, "", signs))
    ours, ours_found = _place(output, generation_prompt, our_at)
    explained = build_explains(r, signs)
    why = explained or ("the request the switches describe (tools, tool_choice, enable_thinking, reasoning_format, "
                        "chat template kwargs) or the template is not the one the server had")
    where = ("in the generation prompt, before the output (here: " + ours.where() + ")" if our_in_prompt
             else f"at {ours.where()}")
    return (first, Finding(
        check=CHECK, severity="warning", fix_where="llama.cpp" if explained else "request",
        summary=f"Our parse of this output stops {where}, not where the log says: {why}.",
        detail="The findings below explain our parse; when the places differ they may not be what the server saw.",
        span=(ours.char, ours.end), found=ours_found, place=ours,
        fix_hint=_UPGRADE if explained else _SAME_REQUEST))


_SAME_REQUEST = "Give the request the server got (--tools, --tool-choice, --thinking, --kwargs) or its template."
_UPGRADE = ("Run a llama.cpp build that has the change (0c1e5709 or later), or give the request the server got "
            "(--tools, --tool-choice, --thinking, --kwargs) if the build is not the difference.")


def _ours_succeed(r: LogReading, detail: str, signs: set[str] | None = None) -> Finding:
    assert r.failure is not None
    explained = build_explains(r, signs or set())
    why = explained or "the request or template is not the one the server had"
    return Finding(
        check=CHECK, severity="warning", fix_where="llama.cpp" if explained else "request",
        summary=f"The log records a failed parse ({r.failure.source}), but our parse of this output with this "
                f"request does not fail: {why}.",
        detail=detail, fix_hint=_UPGRADE if explained else _SAME_REQUEST)


def with_log(r: LogReading, parse: OutputParse, diagnosis: Diagnosis, format: str) -> LogDiagnosis:
    """The diagnosis with the log's findings first (``format``: the request's chat format
    name, as llama.cpp's messages print it)."""
    found = log_findings(r, parse, diagnosis.generation_prompt, format, {f.check for f in diagnosis.findings})
    here = diagnosis.unparsed_place
    if here is not None:  # llama.cpp's "unparsed" text starts at one place: the log's findings there say so too
        found = tuple(replace(f, place=replace(f.place, unparsed=True)) if f.place is not None
                      and f.place.char == here.char else f for f in found)
    return LogDiagnosis(r, replace(diagnosis, findings=references(found + diagnosis.findings)))


def read(log_text: str, generation_prompt: str, output: str | None = None) -> LogReading:
    """``read_log`` then ``locate``: the log text's failure placed in the output."""
    return locate(read_log(log_text), generation_prompt, output)
