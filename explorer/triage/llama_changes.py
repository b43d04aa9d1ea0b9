"""llama.cpp's parser and template behaviour changes, as data, and the build a log names.

Input: the text of a llama-server log (or a ``--version`` line, a release name, a
response's ``system_fingerprint``). Output: ``Build`` (the build number and commit the log
names, from its build line), the ``CHANGES`` table (each change with its PR or issue, the
builds the reports place on each side of it, what it changed, and the findings that show
an output of its class), and ``changes_after(build)``: the changes a build predates.

Every row stands on public reports, cited by URL; a build number is one a report names
(a build that had the old behaviour, a build that had the new one), never a guess. Where
a report names no build, the row says so and only its date is known; ``about_build``
places a date between the builds reports name with dates (``ANCHORS``), and says "about".
The reference llama.cpp, 0c1e5709 (committed 2026-10-01), has every change below.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

REFERENCE_COMMIT = "0c1e5709"
REFERENCE_DATE = "2026-10-01"


@dataclass(frozen=True)
class Build:
    """The build a log names: its number (None: a commit alone) and commit."""

    number: int | None
    commit: str
    line: str  # the line it was read from
    line_no: int

    def words(self) -> str:
        return (f"b{self.number}" if self.number is not None else "a build") + (f" ({self.commit})" if self.commit else "")


# How llama.cpp names its build, newest wording first:
# 0c1e5709, common_params_print_info:  "build 10405 (e79e4bf66) with <compiler> for <target>"
# older llama-server main:              "build: 7743 (6a023e898) with <compiler> for <target>"
# very old:                             "main: build = 656 (303f580)"
# --version, newer:                     "version: 0.1.0-dev (build 10405, commit e79e4bf66)"
# --version, older:                     "version: 7743 (6a023e898)"
# a response's system_fingerprint and the release names: "b8029-3096ecaa9", "llama-b10405-bin-..."
_BUILD_LINES = (
    re.compile(r"\bbuild[:=]?\s*=?\s*(\d+)\s*\(([0-9a-f]{6,40}|unknown)\)"),
    re.compile(r"\bversion: [^\s(]+ \(build (\d+), commit ([0-9a-f]{6,40}|unknown)\)"),
    re.compile(r"\bversion: (\d+) \(([0-9a-f]{6,40}|unknown)\)"),
    re.compile(r"\bb(\d{3,6})-([0-9a-f]{7,40})\b"),
    re.compile(r"\bllama-b(\d{3,6})-bin\b()"),
)


def read_build(lines: list[str]) -> Build | None:
    """The first build line of the log (a log may hold several runs: the first is the
    server's start); None when it names none."""
    for i, line in enumerate(lines):
        for pattern in _BUILD_LINES:
            m = pattern.search(line)
            if m is not None:
                number = int(m.group(1)) if m.group(1) else None
                commit = m.group(2) if m.group(2) and m.group(2) != "unknown" else ""
                return Build(number if number else None, commit, line.strip(), i + 1)
    return None


@dataclass(frozen=True)
class Anchor:
    """A build a report names, with the date of the report."""

    build: int
    date: str
    url: str


ANCHORS: tuple[Anchor, ...] = (
    Anchor(8240, "2026-03-09", "https://github.com/ggml-org/llama.cpp/issues/20260"),
    Anchor(9652, "2026-06-15", "https://github.com/ggml-org/llama.cpp/issues/24644"),
    Anchor(10405, "2026-08-13", "https://github.com/ggml-org/llama.cpp/issues/27025"),
    Anchor(10766, "2026-09-04", "https://github.com/ggml-org/llama.cpp/issues/27733"),
)


def _days(date: str) -> int:
    import datetime

    return datetime.date.fromisoformat(date).toordinal()


def about_build(date: str) -> int:
    """The build number a date falls on, interpolated between the reported builds (the
    nearest two anchors; past the last, at the last two's rate): "about", never exact."""
    pts = sorted((_days(a.date), a.build) for a in ANCHORS)
    d = _days(date)
    lo, hi = (pts[0], pts[1]) if d <= pts[1][0] else next(
        ((a, b) for a, b in zip(pts, pts[1:]) if a[0] <= d <= b[0]), (pts[-2], pts[-1]))
    rate = (hi[1] - lo[1]) / max(1, hi[0] - lo[0])
    return round(lo[1] + (d - lo[0]) * rate)


@dataclass(frozen=True)
class Change:
    """One change in llama.cpp's chat parsing or templates.

    ``before``: a build a report shows with the old behaviour (None: no report names one);
    ``after``: a build a report shows with the new behaviour (None: likewise); ``date``:
    when the PR was opened or the change reported. ``signs``: the triage checks whose
    findings show an output of the class it changed ("" none: any output)."""

    id: str
    ref: str  # "PR #20191" or "issue #27733"
    url: str
    date: str
    what: str
    before: int | None = None
    after: int | None = None
    signs: tuple[str, ...] = ()
    evidence: tuple[str, ...] = ()

    def first_build(self) -> tuple[int, bool]:
        """The first build with the change: a reported one (exact False: the first build
        reported with it), else about the build of its date."""
        if self.after is not None:
            return self.after, False
        return about_build(self.date), False

    def separates(self) -> str:
        if self.before is not None and self.after is not None:
            return f"reported old on b{self.before}, new on b{self.after}"
        if self.after is not None:
            return f"reported new on b{self.after}"
        if self.before is not None:
            return f"reported old on b{self.before}"
        return f"no report names a build; from {self.date}, about b{about_build(self.date)}"


CHANGES: tuple[Change, ...] = (
    Change("autoparser", "PR #18675", "https://github.com/ggml-org/llama.cpp/pull/18675", "2026-03-07",
           "the autoparser: templates without a dedicated handler are parsed by a PEG parser generated from the "
           "template (chat format \"peg-native\"), instead of the per-model parsers", after=8240,
           evidence=("https://github.com/ggml-org/llama.cpp/issues/20260 (b8240, peg-native)",)),
    Change("incomplete-output", "PR #20191", "https://github.com/ggml-org/llama.cpp/pull/20191", "2026-03-07",
           "an output cut off (max_tokens, the end of the context) parses to the partial message instead of failing "
           "with \"Failed to parse input at pos N\"",
           signs=("call-cut-off", "malformed-arguments", "arguments-json", "reasoning-never-closed"),
           evidence=("https://github.com/ggml-org/llama.cpp/pull/18675 (2026-03-08: max_tokens 1 fails with "
                     "\"Failed to parse input at pos 0\")",)),
    Change("reasoning-whitespace", "PR #21085", "https://github.com/ggml-org/llama.cpp/pull/21085", "2026-03-27",
           "whitespace after the reasoning start marker goes with the marker, not into reasoning_content",
           signs=("reasoning-start-repeated", "reasoning-not-extracted")),
    Change("json-tool-type", "PR #24329", "https://github.com/ggml-org/llama.cpp/pull/24329", "2026-06-09",
           "JSON tool calls written with a \"type\": \"function\" key parse (Llama 3.3's variant), and a failed PEG "
           "parse is an error instead of an empty assistant turn",
           signs=("call-json-keys",)),
    Change("whitespace", "PR #24624", "https://github.com/ggml-org/llama.cpp/pull/24624", "2026-06-14",
           "no trailing whitespace in the JSON string rules and no whitespace trimming in the mapper; Qwen 3.6 "
           "tagged calls with JSON-looking values then failed (\"Failed to parse input at pos N\")",
           before=9626, after=9652, signs=("newline-rule", "whitespace-rule", "value-swallowed", "parse-error"),
           evidence=("https://github.com/ggml-org/llama.cpp/issues/24644 (works on b9626, fails on b9652; the "
                     "maintainers point at the whitespace changes)",)),
    Change("lfm2-arg-prefix", "PR #26960", "https://github.com/ggml-org/llama.cpp/pull/26960", "2026-08-12",
           "LFM2 tool calls: an argument name that is a prefix of another is held back until its \"=\" (streamed "
           "deltas)"),
    Change("trailing-think", "issue #27733", "https://github.com/ggml-org/llama.cpp/issues/27733", "2026-09-04",
           "a completed generation that ends in a trailing \"<think>\" fails the final peg-native parse (\"unparsed "
           "peg-native output: <think>\"); a regression between the reported builds, open when reported",
           before=10431, after=10766, signs=("unconsumed-output", "parse-error")),
)

# The wording of llama.cpp's parse failure, by build: older builds throw "Failed to parse
# input at pos N"; later ones warn "unparsed <format> output:" and throw "The model produced
# output that does not match the expected <format> format" (0c1e5709's).
OLD_WORDING_UP_TO = 9652  # https://github.com/ggml-org/llama.cpp/issues/24644 prints "Failed to parse input at pos"
NEW_WORDING_FROM = 10405  # https://github.com/ggml-org/llama.cpp/issues/27025 prints "does not match the expected"


def is_regression(c: Change) -> bool:
    """A change reported as breaking outputs that parsed before (old and new builds named)."""
    return c.id in REGRESSIONS


REGRESSIONS = frozenset({"whitespace", "trailing-think"})


def changes_after(build: int | None, signs: set[str]) -> tuple[list[Change], list[Change]]:
    """The changes (regressions aside) a build predates: (those whose signs this output
    shows, the others). A build of None (the log names none) predates none for sure."""
    shown: list[Change] = []
    other: list[Change] = []
    if build is None:
        return shown, other
    for c in CHANGES:
        if is_regression(c) or build >= c.first_build()[0]:
            continue
        (shown if c.signs and signs & set(c.signs) else other).append(c)
    return shown, other


def regressions_in(build: int | None, signs: set[str]) -> list[Change]:
    """The reported regressions this build is one of the broken builds of (at or after the
    first build reported broken), whose signs this output shows."""
    if build is None:
        return []
    return [c for c in CHANGES if is_regression(c) and c.after is not None and build >= c.after
            and (not c.signs or signs & set(c.signs))]
