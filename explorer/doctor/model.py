"""What the doctor says about a template: the verified fixes it proposes, and the checks behind them.

Input: nothing (definitions). Output: ``RoundTripCount`` (how many assistant messages a
template gives back equal, over both thinking settings), ``FailureClass`` (one way the
template loses messages or is misread, with the cases it loses and, when no fix can be
sound, why), ``Fix``: one concrete change (an analysis override exported as a llama.cpp
workaround lambda, a template edit as a unified diff and the patched file, or a request
change), with the round trip before and after it, ``TriedFix`` (a candidate that did not
verify, and why) and ``FixSearch`` (all of it for one template). A ``Fix`` exists only once
our own pipeline re-ran with it: the round trip is better and no message that came back
equal before comes back different now.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from explorer.analysis.overrides import FieldSetting
from explorer.roundtrip.run import RequestChange

FixKind = Literal["analysis-override", "template-edit", "request-change"]
FIX_KINDS: tuple[FixKind, ...] = ("analysis-override", "template-edit", "request-change")
# The one unit of every round-trip count the doctor shows.
ROUNDTRIP_UNIT = "assistant messages given back equal, over enable_thinking false and true"
ClaimKind = Literal["fields", "stop", "request", "renders", "closes", "literal", "runs"]


@dataclass(frozen=True)
class Claim:
    """What a fix's summary says it does, in a form the acceptance standard's summary
    check tests (``explorer.doctor.acceptance``): ``fields`` the overrides' values are the
    analysis's; ``stop`` ``text`` is an additional stop of the request; ``request`` the
    summary names every field of the request change; ``renders`` every turn of
    ``variants`` writes its ``text`` field (reasoning_content, content) in history;
    ``closes`` every turn of ``variants`` is followed by ``text``; ``literal`` llama.cpp
    no longer writes ``text`` where it wrote it; ``runs`` the round trip runs."""

    kind: ClaimKind
    variants: tuple[str, ...] = ()
    text: str = ""


@dataclass(frozen=True)
class CheckResult:
    """One check of the acceptance standard on one fix: ``pass``, ``fail`` (``detail``
    says what failed) or ``not run`` (an earlier check failed)."""

    check: str
    status: Literal["pass", "fail", "not run"]
    detail: str = ""

    @property
    def passed(self) -> bool:
        return self.status == "pass"

    def to_json(self) -> dict[str, object]:
        return {"check": self.check, "status": self.status, "detail": self.detail}


@dataclass(frozen=True)
class RoundTripCount:
    """Messages given back equal (content and reasoning trimmed, calls by name and JSON
    arguments) of all those rendered, and which ones: ``"<message id>/<thinking>"``."""

    equal: int
    total: int
    equal_ids: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {"equal": self.equal, "total": self.total, "unit": ROUNDTRIP_UNIT}

    def better_than(self, other: RoundTripCount) -> bool:
        """More messages back, and every message that was back before still is."""
        return self.equal > other.equal and set(other.equal_ids) <= set(self.equal_ids)

    def lost_from(self, other: RoundTripCount) -> tuple[str, ...]:
        """The messages ``other`` gave back that this count does not."""
        return tuple(i for i in other.equal_ids if i not in set(self.equal_ids))

    def __str__(self) -> str:
        return f"{self.equal}/{self.total}"


@dataclass(frozen=True)
class FailureClass:
    """One way the template loses round-trip messages or is misread by llama.cpp.

    ``key`` is stable (``reasoning-dropped``, ``sentinel-in-marker``, ...; see
    ``explorer.doctor.classes.CLASS_TITLES``); ``cases`` are the round-trip cases it loses
    (``"<message id>/<thinking>"``), empty for a health finding that loses none;
    ``findings`` the health checks behind it; ``no_fix`` says why no fix can be sound,
    when that is known before any candidate is tried."""

    key: str
    title: str
    cases: tuple[str, ...] = ()
    findings: tuple[str, ...] = ()
    no_fix: str = ""
    by_design: str = ""  # the design choice that makes this loss on purpose (explorer.doctor.intent)
    design_lines: tuple[int, ...] = ()  # the template lines that show it

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"key": self.key, "title": self.title, "cases": list(self.cases)}
        if self.findings:
            out["findings"] = list(self.findings)
        if self.no_fix:
            out["no_fix"] = self.no_fix
        if self.by_design:
            out |= {"by_design": self.by_design, "design_lines": list(self.design_lines)}
        return out


@dataclass(frozen=True)
class Fix:
    kind: FixKind
    summary: str
    roundtrip_before: RoundTripCount
    roundtrip_after: RoundTripCount
    classes: tuple[str, ...] = ()  # the FailureClass keys it was proposed for
    # analysis-override
    overrides: tuple[FieldSetting, ...] = ()
    substring: str = ""  # what the workaround keys on
    substring_matches: tuple[str, ...] = ()  # the templates of the corpus at hand holding it
    workaround_cpp: str = ""
    # template-edit
    diff: str = ""
    patched_template: str = ""
    # request-change
    request_change: RequestChange | None = None
    notes: tuple[str, ...] = ()
    # the acceptance standard's checks (explorer.doctor.acceptance), every one passed
    checks: tuple[CheckResult, ...] = ()
    footprint: int = 0  # renderings and analysis fields it changes (less is better)
    turns: tuple[str, ...] = ()  # the turns (explorer.doctor.turns variants) it may change
    fields: tuple[str, ...] = ()  # the analysis fields it may change
    claim: Claim | None = None  # what its summary says, as the summary check tests it
    corpus: str = ""  # which corpus the substring was searched in ("": none at hand)
    corpus_size: int = 0

    @property
    def uniqueness(self) -> str:
        """How unique the workaround's substring is in the corpus searched, in words."""
        if not self.substring:
            return ""
        return uniqueness_text(self.substring_matches, self.corpus, self.corpus_size)

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"kind": self.kind, "summary": self.summary, "classes": list(self.classes),
                                  "roundtrip_before": self.roundtrip_before.to_json(),
                                  "roundtrip_after": self.roundtrip_after.to_json(),
                                  "checks": [c.to_json() for c in self.checks], "footprint": self.footprint,
                                  "turns": list(self.turns), "fields": list(self.fields)}
        if self.kind == "analysis-override":
            out |= {"overrides": [s.to_json() for s in self.overrides], "set": [s.spec for s in self.overrides],
                    "substring": self.substring, "substring_matches": list(self.substring_matches),
                    "uniqueness": self.uniqueness, "corpus": self.corpus, "corpus_size": self.corpus_size,
                    "workaround_cpp": self.workaround_cpp}
        elif self.kind == "request-change":
            out |= {"request_change": self.request_change.to_json() if self.request_change else {}}
        if self.diff:  # a template edit, or the edit an override needs first
            out |= {"diff": self.diff, "patched_template": self.patched_template}
        if self.notes:
            out["notes"] = list(self.notes)
        return out


@dataclass(frozen=True)
class TriedFix:
    """A candidate that is not offered: what it was, the acceptance check it failed
    (``check``; ``roundtrip-better`` for one that gives nothing more back) and why, with
    every check's result."""

    kind: FixKind
    summary: str
    why: str  # "the round trip is no better (5/9)", "loses c/false", "the patched template does not compile: ..."
    classes: tuple[str, ...] = ()
    roundtrip_after: RoundTripCount | None = None  # None: it could not be measured
    check: str = "roundtrip-better"
    checks: tuple[CheckResult, ...] = ()

    @property
    def withdrawn(self) -> bool:
        """It gives more back, but another check of the standard failed."""
        return self.check not in ("roundtrip-better", "kept-better")

    @property
    def changes_format(self) -> bool:
        return self.check == "keeps-format"

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "summary": self.summary, "why": self.why, "classes": list(self.classes),
                "roundtrip_after": self.roundtrip_after.to_json() if self.roundtrip_after else None,
                "check": self.check, "checks": [c.to_json() for c in self.checks]}


def uniqueness_text(holders: tuple[str, ...], corpus: str, size: int) -> str:
    """A substring's uniqueness, saying which corpus was searched and how many templates
    it holds; "uniqueness not checked" where no corpus was at hand (``holders``: the
    templates holding it, the template itself first)."""
    if not corpus:
        return ("uniqueness not checked: no template corpus was at hand (llama.cpp's models/templates of the build "
                "it targets, or --corpus)")
    others = holders[1:]
    if not others:
        return f"unique among the {size} templates searched ({corpus})"
    return (f"also in {len(others)} other template(s) of the {size} searched ({corpus}): " + ", ".join(others[:5])
            + ("…" if len(others) > 5 else "") + "; the workaround would patch them too")


@dataclass(frozen=True)
class FixSearch:
    """Everything the fix search found for one template: its failure classes, the round
    trip before any fix, the verified fixes (best first) and the candidates that failed."""

    classes: tuple[FailureClass, ...]
    roundtrip_before: RoundTripCount
    fixes: tuple[Fix, ...]
    tried: tuple[TriedFix, ...]

    def fixes_for(self, key: str) -> tuple[Fix, ...]:
        return tuple(f for f in self.fixes if key in f.classes)

    @property
    def withdrawn(self) -> tuple[TriedFix, ...]:
        """The candidates the acceptance standard took back (each with the check it failed)."""
        return tuple(t for t in self.tried if t.withdrawn)

    def to_json(self) -> dict[str, object]:
        return {"classes": [c.to_json() for c in self.classes], "roundtrip_before": self.roundtrip_before.to_json(),
                "fixes": [f.to_json() for f in self.fixes], "tried": [t.to_json() for t in self.tried]}
