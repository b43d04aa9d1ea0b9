"""What the doctor says about a template: the verified fixes it proposes.

Input: nothing (definitions). Output: ``RoundTripCount`` (how many assistant messages a
template gives back equal, over both thinking settings) and ``Fix``: one concrete change
(an analysis override exported as a llama.cpp workaround lambda, a template edit as a
unified diff and the patched file, or a request change), with the round trip before and
after it. A ``Fix`` exists only once our own pipeline re-ran with it: the round trip is
better and no message that came back equal before comes back different now.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from explorer.analysis.overrides import FieldSetting

FixKind = Literal["analysis-override", "template-edit", "request-change"]
FIX_KINDS: tuple[FixKind, ...] = ("analysis-override", "template-edit", "request-change")


@dataclass(frozen=True)
class RoundTripCount:
    """Messages given back equal (content and reasoning trimmed, calls by name and JSON
    arguments) of all those rendered, and which ones: ``"<message id>/<thinking>"``."""

    equal: int
    total: int
    equal_ids: tuple[str, ...] = ()

    def to_json(self) -> dict[str, int]:
        return {"equal": self.equal, "total": self.total}

    def better_than(self, other: RoundTripCount) -> bool:
        """More messages back, and every message that was back before still is."""
        return self.equal > other.equal and set(other.equal_ids) <= set(self.equal_ids)


@dataclass(frozen=True)
class Fix:
    kind: FixKind
    summary: str
    roundtrip_before: RoundTripCount
    roundtrip_after: RoundTripCount
    # analysis-override
    overrides: tuple[FieldSetting, ...] = ()
    substring: str = ""  # what the workaround keys on
    substring_matches: tuple[str, ...] = ()  # the templates of the corpus at hand holding it
    workaround_cpp: str = ""
    # template-edit
    diff: str = ""
    patched_template: str = ""
    # request-change
    request_change: dict[str, object] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def uniqueness(self) -> str:
        """How unique the workaround's substring is in the corpus at hand, in words."""
        if not self.substring:
            return ""
        n = len(self.substring_matches)
        return "unique in the corpus" if n <= 1 else f"also in {n - 1} other template(s): " + ", ".join(
            self.substring_matches[1:6])

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"kind": self.kind, "summary": self.summary,
                                  "roundtrip_before": self.roundtrip_before.to_json(),
                                  "roundtrip_after": self.roundtrip_after.to_json()}
        if self.kind == "analysis-override":
            out |= {"overrides": [s.to_json() for s in self.overrides], "set": [s.spec for s in self.overrides],
                    "substring": self.substring, "substring_matches": list(self.substring_matches),
                    "uniqueness": self.uniqueness, "workaround_cpp": self.workaround_cpp}
        elif self.kind == "template-edit":
            out |= {"diff": self.diff, "patched_template": self.patched_template}
        else:
            out |= {"request_change": self.request_change}
        if self.notes:
            out["notes"] = list(self.notes)
        return out
