"""The ``src.find`` tests of ``common_chat_try_specialized_template``, with their evidence.

Input: a (patched) template source and the substrings one handler's routing rule names:
``required`` (all present), ``forbidden`` (all absent), ``any_of`` (per group, one
present). Output: a frozen ``RuleCheck``: whether the rule holds and, per substring, a
``SubstringEvidence`` with the 1-based line and the text of that line where it was found.
Each handler class declares its substrings; ``explorer.routing`` checks them in order.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class SubstringEvidence:
    """One substring test: was ``needle`` in the source, and where (1-based line)."""

    needle: str
    wanted: bool  # True: must be present; False: must be absent
    present: bool
    line: int | None = None
    source_line: str | None = None
    alternative: bool = False  # one of an any_of group: only the group must hold

    @property
    def satisfied(self) -> bool:
        return self.present == self.wanted

    def describe(self) -> str:
        verb = "contains" if self.present else "lacks"
        where = f" (line {self.line}: {(self.source_line or '').strip()[:120]})" if self.line else ""
        ok = "one of" if self.alternative else ("ok" if self.satisfied else "fails")
        return f"{verb} {self.needle!r}{where} [{ok}]"


def find_substring(source: str, needle: str, wanted: bool = True) -> SubstringEvidence:
    """Locate the first occurrence of ``needle`` (llama.cpp's ``src.find``)."""
    pos = source.find(needle)
    if pos < 0:
        return SubstringEvidence(needle=needle, wanted=wanted, present=False)
    line_no = source.count("\n", 0, pos) + 1
    start = source.rfind("\n", 0, pos) + 1
    end = source.find("\n", pos)
    text = source[start : end if end >= 0 else len(source)]
    return SubstringEvidence(needle, wanted, True, line_no, text)


@dataclass(frozen=True)
class RuleCheck:
    rule: str  # the handler's name
    matched: bool
    evidence: tuple[SubstringEvidence, ...]


def check_rule(
    name: str,
    source: str,
    required: tuple[str, ...] = (),
    forbidden: tuple[str, ...] = (),
    any_of: tuple[tuple[str, ...], ...] = (),
) -> RuleCheck:
    """Evidence is listed required first, then forbidden, then each any_of group."""
    evidence: list[SubstringEvidence] = []
    evidence += [find_substring(source, s, True) for s in required]
    evidence += [find_substring(source, s, False) for s in forbidden]
    groups_ok = True
    for group in any_of:
        hits = [replace(find_substring(source, s, True), alternative=True) for s in group]
        evidence += hits
        groups_ok = groups_ok and any(h.present for h in hits)
    plain_ok = all(e.satisfied for e in evidence[: len(required) + len(forbidden)])
    return RuleCheck(name, plain_ok and groups_ok, tuple(evidence))
