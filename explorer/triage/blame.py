"""One fact, one ``fix_where``: where the fix belongs, for each fact several places state.

Input: a ``Finding`` (the triage's, or the template health's) or a doctor loss kind.
Output: the fact it states (``FACT_OF_CHECK``, a finding's own ``fact``) and the one
``fix_where`` every finding, page and the doctor give that fact (``FACT_FIX_WHERE``).

The facts several places state:

- ``output-cut-off``: the output ends inside a call (max_tokens, or a stop string inside
  the call): the request (llama.cpp returning the open call as complete is its quirk,
  marked as such, but the fix a user can make is the limit or the stops);
- ``parser-loses``: the template renders it, llama.cpp's parser does not give it back (the
  template health's own reply that fails, the doctor's round-trip loss, the Try it triage
  of that reply): llama.cpp, whose autoparser reads the template;
- ``template-misread``: llama.cpp's autoparser read a marker wrongly: llama.cpp;
- ``template-drops``: the template does not render it in a history turn: the template;
- ``template-throws``: the template throws on a probe's inputs: the template;
- ``grammar-looser``: the grammar llama.cpp builds takes text its own parser refuses, so a
  model generating under it wrote what the parser then rejects: llama.cpp (every cause at
  that place states it, ``PLACE_FACTS``).
"""

from __future__ import annotations

from dataclasses import replace

from explorer.triage.model import Finding, FixWhere

FACT_FIX_WHERE: dict[str, FixWhere] = {
    "output-cut-off": "request",
    "parser-loses": "llama.cpp",
    "template-misread": "llama.cpp",
    "template-drops": "template",
    "template-throws": "template",
    "grammar-looser": "llama.cpp",
}

# A fact a check's cause states about its place, which every other cause at that place states
# too: where the GBNF llama.cpp builds takes what its parser refuses, the model wrote what the
# grammar let it write (a malformed value, the parse error there) and the fix is llama.cpp's.
PLACE_FACTS: dict[str, str] = {"grammar-vs-parser": "grammar-looser"}

# The facts the template health's checks state (their findings carry no ``fact`` of their own).
FACT_OF_CHECK: dict[str, str] = {
    "template-reply-fails": "parser-loses",
    "template-reply-extra-text": "parser-loses",
    "template-sentinel-in-marker": "template-misread",
    "template-content-unmatchable": "template-misread",
    "template-analysis-threw": "template-misread",
    "template-probe-threw": "template-throws",
    "template-marker-is-role": "template-misread",
}

# The doctor's round-trip loss kinds (``explorer.doctor.losses``) that are one of these facts.
FACT_OF_LOSS: dict[str, str] = {"parser-loses": "parser-loses", "template-drops": "template-drops"}


def fact_of(finding: Finding) -> str:
    return finding.fact or FACT_OF_CHECK.get(finding.check, "")


def fix_where_of(finding: Finding) -> FixWhere:
    """Where the fix of the finding's fact belongs (its own ``fix_where`` when it states no
    shared fact). A routed template's health finding about the autoparser is information
    only: what it says is not used, so nothing there is to fix and it keeps its own."""
    fact = fact_of(finding)
    if not fact or (finding.check in FACT_OF_CHECK and finding.severity == "info"):
        return finding.fix_where
    return FACT_FIX_WHERE[fact]


def with_fact_fix_where(finding: Finding) -> Finding:
    """The finding with its fact's ``fix_where`` (and its fact named)."""
    where, fact = fix_where_of(finding), fact_of(finding)
    if where == finding.fix_where and fact == finding.fact:
        return finding
    return replace(finding, fix_where=where, fact=fact)


def loss_fix_where(kind: str, where: str) -> str:
    """Where a doctor loss's fix belongs: its fact's, when it is one of the shared facts."""
    fact = FACT_OF_LOSS.get(kind)
    return FACT_FIX_WHERE[fact] if fact else where
