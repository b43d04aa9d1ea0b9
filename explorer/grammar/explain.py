"""What the GBNF rules llama.cpp generates from a PEG arena stand for, in words.

Input: a GBNF grammar's text and the ``Arena`` it was emitted from. Output: one
``GeneratedRule`` per automaton family (``until-16`` with ``until-16-01``…, ``ac-25``
with ``ac-25-01``…): the PEG parser it comes from (the number is that parser's id in the
arena), its delimiters, the state rules it is made of, and a sentence. ``until-N`` is the
"anything not containing DELIMITER" automaton of an ``until`` parser; ``ac-N`` the "anything
up to and including the first DELIMITER" automaton of an ``ac`` parser; each ``-NN`` rule
is one state of the Aho-Corasick automaton over the delimiters (how much of a delimiter
the text has just matched), as ``explorer.grammar.automaton`` emits them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from explorer.peg import Arena
from explorer.peg.nodes import Ac, Until

_RULE = re.compile(r"^(until|ac)-(\d+)(?:-(\d+))?\s*::=", re.MULTILINE)


@dataclass(frozen=True)
class GeneratedRule:
    """One automaton family of rules in the grammar."""

    name: str  # the entry rule: until-16, ac-25
    kind: str  # "until" or "ac"
    parser_id: int
    delimiters: tuple[str, ...]
    states: tuple[str, ...]  # every rule of the family, the entry rule first

    def sentence(self) -> str:
        shown = " or ".join(json.dumps(d, ensure_ascii=False) for d in self.delimiters) or "(none)"
        states = f"{len(self.states) - 1} state rule(s) {self.states[1]}…{self.states[-1]}" \
            if len(self.states) > 1 else "no state rules"
        if self.kind == "until":
            what = f"any text that does not contain {shown}: it stops right before the delimiter"
        else:
            what = f"any text up to and including the first {shown}"
        return (f"{self.name}: {what} (PEG parser #{self.parser_id}, an {self.kind} parser; an \"until this "
                f"literal\" automaton over the delimiter's characters, with {states}, each one how much of the "
                "delimiter the text has just matched).")


def generated_rules(grammar: str, arena: Arena) -> tuple[GeneratedRule, ...]:
    """The automaton families of ``grammar``, in the order their entry rules appear."""
    families: dict[str, list[str]] = {}
    for m in _RULE.finditer(grammar):
        entry = f"{m.group(1)}-{m.group(2)}"
        families.setdefault(entry, []).append(entry if m.group(3) is None else f"{entry}-{m.group(3)}")
    out = []
    for entry, rules in families.items():
        kind, pid = entry.rsplit("-", 1)
        node = arena.parsers[int(pid)] if int(pid) < len(arena.parsers) else None
        if not isinstance(node, (Until, Ac)):
            continue  # a rule that only looks generated
        ordered = sorted(set(rules), key=lambda r: (r != entry, r))
        out.append(GeneratedRule(entry, kind, int(pid), tuple(node.delimiters), tuple(ordered)))
    return tuple(out)


def rule_note(rule_name: str, rules: tuple[GeneratedRule, ...]) -> GeneratedRule | None:
    """The family a rule name belongs to (``until-16-03`` → ``until-16``), if any."""
    return next((r for r in rules if rule_name == r.name or rule_name.startswith(r.name + "-")), None)


__all__ = ["GeneratedRule", "generated_rules", "rule_note"]
