"""What-if: a template's inputs changed, and everything downstream built again for the change.

Input: a ``TemplateSession`` (the original) and a ``WhatIf``: analysis overrides (each a
``FieldSetting``, as ``--set FIELD=VALUE`` reads it), an optional edited template text and
a request change (``explorer.roundtrip.RequestChange``: what a client sends differently).
Output: the modified session (``WhatIf.apply``: the edited text opened in the same dialect,
with the overrides), the modified request (``WhatIf.request``), ``what_changed`` (the
session comparison of original and modified, the original request's chat params beside the
changed request's, the round trip under the change, the template's canitoolcall fixture
family and the triage of an output, each before and after), and the exports a
llama.cpp user needs to get the same parser: the C++ workaround lambda for the overrides
(``WhatIf.workaround_cpp``, keyed on a substring chosen against a corpus, with how unique it
is) and the unified diff plus the patched template for ``--chat-template-file``
(``WhatIf.patch``).

Overriding analysis fields is what a llama.cpp workaround lambda does (it sets fields of
the ``autoparser`` analysis after the probes), so the parser, grammar and triggers built
from the overridden analysis are what llama.cpp would build with that workaround.
Errors are ``ExplorerError`` s: ``OverrideError`` for a bad field or value,
``TemplateError`` for an edited text that does not compile.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import Enum

from explorer.analysis.model import field_value
from explorer.analysis.overrides import FieldSetting, parse_setting, workaround_lambda
from explorer.apply import Request
from explorer.comparison import FieldChange
from explorer.doctor.classes import measure, thinking_settings
from explorer.doctor.corpus import THIS_TEMPLATE, choose_substring, load_corpus
from explorer.doctor.edits import unified_diff
from explorer.doctor.model import RoundTripCount, uniqueness_text
from explorer.errors import ExplorerError
from explorer.fixtures import FamilyMatch, match_family, run_family
from explorer.roundtrip import RequestChange
from explorer.routing import AUTOPARSER
from explorer.session import SessionComparison, TemplateSession, open_session
from explorer.triage import Diagnosis

WORKAROUND_SENTENCE = (
    "Overriding analysis fields is what a llama.cpp workaround lambda does: it sets fields of the autoparser's "
    "analysis after the probes (the workarounds vector of common/chat-diff-analyzer.cpp). The parser, GBNF grammar "
    "and triggers built from the overridden analysis are therefore what llama.cpp would build with that workaround.")
HANDLER_NOTE = (
    "llama.cpp routes this template to its specialised handler '{handler}', which does not read the analysis: "
    "the overrides change only what the autoparser would build, not the parser llama.cpp uses.")
FIXTURES_NOTE = ("The request change does not reach the fixtures: each canitoolcall fixture carries its own request, "
                 "so their counts change only with the overrides and the edited text.")
PARAMS_PREFIX = "params."
# The chat-params fields that make up "the parser" a request gets, in the order shown.
PARSER_FIELDS = ("params.parser", "params.grammar", "params.grammar_lazy", "params.grammar_triggers",
                 "params.preserved_tokens", "params.additional_stops", "params.format", "params.generation_prompt")


def value_text(value: object) -> str:
    """A field's value as ``--set`` reads it back (JSON)."""
    if isinstance(value, Enum):
        value = value.value
    if isinstance(value, tuple):
        value = list(value)
    return json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True)
class Workaround:
    """The C++ lambda for a what-if's overrides and the substring it keys on.
    ``holders``: every template of the corpus holding the substring, this one first."""

    cpp: str
    substring: str
    holders: tuple[str, ...]
    corpus_size: int
    corpus: str = ""  # which corpus was searched ("": none at hand)

    @property
    def uniqueness(self) -> str:
        """How unique the substring is in the corpus searched, in words."""
        if not self.substring:
            return ("No substring of the template could be chosen (it has no marker, literal or line to key on): "
                    "the lambda's condition must be written by hand.")
        return (f"The lambda keys on the substring {self.substring!r}: "
                + uniqueness_text(self.holders, self.corpus, self.corpus_size) + ".")


@dataclass(frozen=True)
class Patch:
    """An edited template as llama.cpp users load it: the unified diff and the whole text."""

    diff: str
    patched: str
    file_name: str


@dataclass(frozen=True)
class WhatIf:
    """The user's changes to a template's inputs: analysis overrides (one per field, in
    the order given), an edited template text (None: the original text) and a change to
    the request the client sends (applied on top of whatever request the pages build)."""

    overrides: tuple[FieldSetting, ...] = ()
    text: str | None = None
    change: RequestChange = field(default_factory=RequestChange)

    @property
    def empty(self) -> bool:
        return not self.overrides and self.text is None and self.change.empty

    @property
    def changes_session(self) -> bool:
        """Overrides or an edited text: the template's session itself is another."""
        return bool(self.overrides) or self.text is not None

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(s.field for s in self.overrides)

    def describe(self) -> str:
        """``2 overrides / edited template``, for a banner."""
        parts = []
        if self.overrides:
            n = len(self.overrides)
            parts.append(f"{n} override{'s' if n != 1 else ''}")
        if self.text is not None:
            parts.append("edited template")
        if not self.change.empty:
            parts.append("request change")
        return " / ".join(parts) or "nothing changed"

    # --- building one -----------------------------------------------------------------

    @staticmethod
    def setting(name: str, raw: str) -> FieldSetting:
        """One override from a field name and a value as ``--set`` reads it (JSON when it
        parses as JSON, raw text otherwise); ``OverrideError`` for a bad name or type."""
        return parse_setting(f"{name}={raw}")

    def with_setting(self, setting: FieldSetting) -> WhatIf:
        """This what-if with ``setting`` in place of any earlier override of its field."""
        kept = tuple(s for s in self.overrides if s.field != setting.field)
        return replace(self, overrides=(*kept, setting))

    def without(self, name: str) -> WhatIf:
        return replace(self, overrides=tuple(s for s in self.overrides if s.field != name))

    def with_text(self, text: str | None, original: str) -> WhatIf:
        """This what-if with the template text edited (the original text, or None, undoes it)."""
        return replace(self, text=None if text is None or text == original else text)

    def with_change(self, change: RequestChange | None) -> WhatIf:
        """This what-if with ``change`` as its request change (None removes it)."""
        return replace(self, change=change or RequestChange())

    # --- running it -------------------------------------------------------------------

    def apply(self, session: TemplateSession) -> TemplateSession:
        """The modified session: the edited text (or the session's own) in the session's
        dialect, with the session's overrides and then these. Raises ``TemplateError``
        when the edited text does not compile, ``OverrideError`` for a bad setting."""
        if not self.changes_session:
            return session
        return open_session(session.text if self.text is None else self.text, session.dialect,
                            overrides=session.overrides + self.overrides)

    def request(self, request: Request) -> Request:
        """The request the modified side gets: ``request`` with the change on top
        (``RequestError`` when the changed request is not one llama.cpp accepts)."""
        return self.change.apply(request) if not self.change.empty else request

    # --- exports ----------------------------------------------------------------------

    def workaround_cpp(self, original_text: str, corpus: Sequence[str] = ()) -> Workaround | None:
        """The lambda llama.cpp's contributor docs use for these overrides (None without
        overrides), keyed on the shortest substring of the template llama.cpp will load (the
        edited one, if edited; as its init-time patches leave it) that as few other templates
        of the corpus (llama.cpp's own models/templates of the targeted build, when at hand,
        and the ``corpus`` paths) hold as possible."""
        if not self.overrides:
            return None
        at_hand = load_corpus(corpus)
        text = original_text if self.text is None else self.text
        name = at_hand.name_of(original_text)
        source = open_session(text).compiled.source
        substring, holders = choose_substring(text, at_hand, also_in=source, own=name)
        label = f"what-if for {name}" if name != THIS_TEMPLATE else "what-if workaround"
        return Workaround(workaround_lambda(self.overrides, substring, label), substring, holders,
                          len(at_hand.entries), at_hand.describe())

    def patch(self, original_text: str, name: str = "template.jinja") -> Patch | None:
        """The unified diff (``patch -p1`` applies it to ``name``) and the patched text, for
        llama-server's ``--chat-template-file``; None when the text is not edited."""
        if self.text is None or self.text == original_text:
            return None
        return Patch(unified_diff(original_text, self.text, name), self.text, name)


# --- what changed ---------------------------------------------------------------------


@dataclass(frozen=True)
class WhatChanged:
    """The original (A) beside the modified version (B) of one template.

    ``comparison``: route, caps, every analysis field and the chat params of ``request``
    for A beside those of the changed request (``request_after``) for B
    (``TemplateSession.compare``). The round trip is counted over the original's thinking
    settings for both, B's under ``change`` (``errors_*``: settings whose round trip
    failed). The fixtures are the original's canitoolcall family
    (``explorer.fixtures.match_family``), judged with each version's parser (counts per
    status; fixtures carry their own request, so ``change`` does not reach them). The
    triage is of the given output under each side's request (None without one)."""

    comparison: SessionComparison
    request: Request
    change: RequestChange = field(default_factory=RequestChange)
    roundtrip_before: RoundTripCount | None = None
    roundtrip_after: RoundTripCount | None = None
    errors_before: tuple[str, ...] = ()
    errors_after: tuple[str, ...] = ()
    triage_before: Diagnosis | None = None
    triage_after: Diagnosis | None = None
    family: FamilyMatch | None = None
    fixtures_before: dict[str, int] | None = None
    fixtures_after: dict[str, int] | None = None
    notes: tuple[str, ...] = ()

    @property
    def request_after(self) -> Request:
        """The modified side's request: ``request`` with the change on top."""
        return self.change.apply(self.request) if not self.change.empty else self.request

    @property
    def changed(self) -> tuple[FieldChange, ...]:
        return self.comparison.changed

    @property
    def template_changes(self) -> tuple[FieldChange, ...]:
        """Route, capabilities and analysis fields that differ."""
        return tuple(c for c in self.changed if not c.field.startswith(PARAMS_PREFIX))

    @property
    def parser_changes(self) -> tuple[FieldChange, ...]:
        """The request's parser, GBNF, triggers, tokens and stops where they differ."""
        by_name = {c.field: c for c in self.changed}
        return tuple(by_name[f] for f in PARSER_FIELDS if f in by_name)

    @property
    def other_params_changes(self) -> tuple[FieldChange, ...]:
        return tuple(c for c in self.changed if c.field.startswith(PARAMS_PREFIX) and c.field not in PARSER_FIELDS)

    @property
    def nothing(self) -> bool:
        """Nothing downstream differs (e.g. a field set to the value it had)."""
        return not self.changed and all(a == b for _, a, b in self.comparison.prompts) \
            and self.roundtrip_before == self.roundtrip_after and self.fixtures_before == self.fixtures_after

    @property
    def roundtrip_line(self) -> str:
        """``round trip 4/8 → 6/8 (+2 messages back)``, or why it is missing."""
        before, after = self.roundtrip_before, self.roundtrip_after
        if before is None or after is None:
            return "round trip not run"
        line = f"round trip {before} → {after} ({after.equal - before.equal:+d} messages back)"
        lost = after.lost_from(before)
        if lost:
            line += "; lost: " + ", ".join(lost)
        return line

    @property
    def fixtures_line(self) -> str:
        """``fixtures of qwen3-hermes: pass 22 → 12, soft_pass 11 → 2, ...`` (empty without a family)."""
        before, after = self.fixtures_before, self.fixtures_after
        if self.family is None or before is None or after is None:
            return ""
        counts = ", ".join(f"{k} {before.get(k, 0)} → {after.get(k, 0)}" for k in dict.fromkeys([*before, *after]))
        return f"canitoolcall fixtures of {self.family.name} ({self.family.slug}): {counts}"

    @property
    def triage_line(self) -> str:
        if self.triage_before is None or self.triage_after is None:
            return ""
        return f"{self.triage_before.verdict} → {self.triage_after.verdict}"


def what_changed(original: TemplateSession, modified: TemplateSession, request: Request, output: str | None = None,
                 *, change: RequestChange | None = None, roundtrip: bool = True, fixtures: bool = True
                 ) -> WhatChanged:
    """Everything downstream of a what-if, for the original and the modified version:
    ``modified`` is ``WhatIf.apply``'s session, ``change`` the what-if's request change
    (the modified side's requests, round trip and triage get it on top of the original's)."""
    change = None if change is None or change.empty else change
    comparison = original.compare(modified, request, enable_thinking=request.enable_thinking, change=change)
    notes: list[str] = []
    if modified.overrides and modified.handler != AUTOPARSER:
        notes.append(HANDLER_NOTE.format(handler=modified.handler))
    out = WhatChanged(comparison, request, change or RequestChange())
    if roundtrip and not (original.render_budget_exhausted or modified.render_budget_exhausted):
        settings = thinking_settings(original)
        before, after = measure(original, settings), measure(modified, settings, change)
        out = replace(out, roundtrip_before=before.count, roundtrip_after=after.count, errors_before=before.errors,
                      errors_after=after.errors)
    family = _family(original) if fixtures and not modified.render_budget_exhausted else None
    if family is not None:
        before_counts = run_family(original, family).counts()
        after_counts = before_counts if modified is original else run_family(modified, family).counts()
        out = replace(out, family=family, fixtures_before=before_counts, fixtures_after=after_counts)
        if change is not None:
            notes.append(FIXTURES_NOTE)
    if output is not None:
        after_request = out.request_after
        out = replace(out, triage_before=_diagnosed(original, output, request),
                      triage_after=_diagnosed(modified, output, after_request))
    return replace(out, notes=tuple(notes))


def _family(session: TemplateSession) -> FamilyMatch | None:
    if session.render_budget_exhausted:
        return None
    try:
        return match_family(session.text, session)
    except ExplorerError:
        return None


def _diagnosed(session: TemplateSession, output: str, request: Request) -> Diagnosis | None:
    try:
        return session.diagnose(output, request)
    except ExplorerError:
        return None


__all__ = ["FIXTURES_NOTE", "HANDLER_NOTE", "PARSER_FIELDS", "WORKAROUND_SENTENCE", "Patch", "WhatChanged", "WhatIf", "Workaround",
           "field_value", "value_text", "what_changed"]
