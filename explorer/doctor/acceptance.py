"""The acceptance standard: the checks every fix passes before it is shown, as data and code.

Input: the original ``TemplateSession``, its design choices and round trip, and a
``Candidate`` fix with what it changes (a session with the overrides or the patched text,
or the request change) and the round trip after it. Output: one ``CheckResult`` per check
of ``CHECKS``, in that order; the first failure ends the run (the rest are ``not run``),
and a candidate with a failure is withdrawn and listed with the check that failed.

The checks, cheapest first:

- ``keeps-intent``: the fix is for no failure class the template makes on purpose
  (``explorer.doctor.intent``);
- ``keeps-format``: it does not change what the model was trained to read or write (a
  separator between content and a call, a marker the template never writes, a role);
- ``roundtrip-better``: no message that came back before is lost, at least one more comes
  back (both thinking settings, ``RoundTripCount``);
- ``still-renders``: wherever the original renders a conversation of the message set
  (``explorer.doctor.turns``), in llama.cpp's dialect and the transformers dialect, with
  thinking off and on, the fixed template does too;
- ``turns-unchanged``: every piece of those renderings that differs belongs to a turn the
  fix names (a piece between two turns' own words belongs to both);
- ``analysis-fields``: llama.cpp's analysis changes only in the fields the fix names
  (``preserved_tokens`` follows the markers);
- ``no-new-health``: no health finding (warning or cause) the original does not have;
- ``grammar-no-worse``: no grammar verdict on the round trip's replies (llama-server's
  default thinking setting) goes against expectation that did not before;
- ``summary-true``: what the summary claims (``Claim``) holds for what changed; "each
  assistant turn" is every assistant-turn variant of the message set.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from explorer.analysis.model import FIELD_NAMES, field_value
from explorer.doctor.candidates import Candidate, next_turn_params
from explorer.doctor.intent import DesignChoice, by_design
from explorer.doctor.model import CheckResult, RoundTripCount
from explorer.doctor.turns import ALL_VARIANTS, CONVERSATIONS, RendersKey, TurnRenders, segments, session_renders, words
from explorer.errors import ExplorerError
from explorer.roundtrip import RequestChange
from explorer.session import TemplateSession
from explorer.triage.model import quote


@dataclass(frozen=True)
class Check:
    id: str
    title: str


CHECKS: tuple[Check, ...] = (
    Check("keeps-intent", "it fixes nothing the template does on purpose (a design choice is not a defect)"),
    Check("keeps-format", "it does not change what the model was trained to read or write (a separator, a marker, "
                          "a role)"),
    Check("roundtrip-better", "the round trip loses no message that came back before and gives at least one more "
                              "back"),
    Check("still-renders", "the fixed template still renders wherever the original did, in both dialects"),
    Check("turns-unchanged", "every turn the fix does not name renders byte-identical, in llama.cpp's and the "
                             "transformers dialect, over system, user, assistant, tool-call and tool-result turns, "
                             "with and without thinking"),
    Check("analysis-fields", "llama.cpp's analysis changes only in the fields the fix names"),
    Check("no-new-health", "no new health finding appears"),
    Check("grammar-no-worse", "the grammar's verdicts on the round trip's replies are no worse"),
    Check("summary-true", "what the fix's summary says holds for what changed (each assistant turn: every "
                          "assistant-turn variant of the message set)"),
)
CHECK_IDS: tuple[str, ...] = tuple(c.id for c in CHECKS)
TITLES: dict[str, str] = {c.id: c.title for c in CHECKS}
# Fields derived from the markers: a marker the fix names may move them.
_DERIVED = ("preserved_tokens",)


def _excerpt(text: str, other: str) -> str:
    """``text`` around where it first differs from ``other``, quoted."""
    at = next((i for i, (a, b) in enumerate(zip(text, other)) if a != b), min(len(text), len(other)))
    start = max(0, at - 20)
    return quote(("…" if start else "") + text[start:start + 70], 90)


@dataclass(frozen=True)
class Target:
    """What a candidate makes of the template: the session it reads (the original for a
    request change), the request change, and the round trip after it."""

    session: TemplateSession
    after: RoundTripCount
    errors: tuple[str, ...] = ()


class Standard:
    """The standard for one template's candidates; the original's side of each check is
    made once, when a check first needs it."""

    def __init__(self, session: TemplateSession, before: RoundTripCount, choices: Sequence[DesignChoice],
                 class_cases: Mapping[str, tuple[str, ...]]) -> None:
        self.session = session
        self.before = before
        self.choices = tuple(choices)
        self.class_cases = dict(class_cases)
        self.default = _default_thinking(session)

    # --- the original's side -------------------------------------------------------------

    @cached_property
    def renders(self) -> dict[RendersKey, TurnRenders]:
        return session_renders(self.session)

    @cached_property
    def fields(self) -> dict[str, object] | None:
        return _fields(self.session)

    @cached_property
    def health(self) -> frozenset[tuple[str, str]]:
        return _health(self.session)

    @cached_property
    def grammar(self) -> frozenset[tuple[str, str]] | None:
        return _grammar(self.session, self.default, None)

    def footprint(self, cand: Candidate, target: TemplateSession) -> int:
        """How much the fix changes: the renderings of the message set that differ, and the
        analysis fields (less is better, for ranking fixes that give as much back)."""
        after = self._after_renders(cand, Target(target, self.before))
        changed = 0
        if after is not None:
            for key, before in self.renders.items():
                changed += sum(1 for k, text in before.renders if after[key].get(k) != text)
        if target is not self.session:
            old, new = self.fields, _fields(target)
            if old is not None and new is not None:
                changed += sum(1 for n in FIELD_NAMES if old.get(n) != new.get(n))
        return changed

    # --- the checks ----------------------------------------------------------------------

    def before_measuring(self, cand: Candidate) -> tuple[CheckResult, ...] | None:
        """``keeps-intent`` and ``keeps-format``, which need no measurement: the results
        when one fails (the candidate is then not measured at all), else None."""
        intent = self._keeps_intent(cand)
        if not intent.passed:
            return _ended((intent,))
        form = self._keeps_format(cand)
        if not form.passed:
            return _ended((intent, form))
        return None

    def _steps(self) -> dict[str, Callable[[Candidate, Target], CheckResult]]:
        return {"roundtrip-better": self._roundtrip, "still-renders": self._still_renders,
                "turns-unchanged": self._turns, "analysis-fields": self._analysis, "no-new-health": self._health,
                "grammar-no-worse": self._grammar, "summary-true": self._summary}

    def check(self, check: str, cand: Candidate, target: Target) -> CheckResult:
        """One check of ``CHECKS`` alone, whatever the others say."""
        if check == "keeps-intent":
            return self._keeps_intent(cand)
        if check == "keeps-format":
            return self._keeps_format(cand)
        return self._steps()[check](cand, target)

    def judge(self, cand: Candidate, target: Target) -> tuple[CheckResult, ...]:
        """Every check on a measured candidate (the first failure ends the run)."""
        done: list[CheckResult] = [self._keeps_intent(cand), self._keeps_format(cand)]
        for step in self._steps().values():
            result = step(cand, target)
            done.append(result)
            if not result.passed:
                break
        return _ended(tuple(done))

    def _keeps_intent(self, cand: Candidate) -> CheckResult:
        for key in cand.classes:
            choice = by_design(self.choices, key, self.class_cases.get(key, ()))
            if choice is not None:
                return CheckResult("keeps-intent", "fail", f"the template does this on purpose ({key}): "
                                   f"{choice.summary}; a fix would undo the template's design")
        return CheckResult("keeps-intent", "pass", "none of its failure classes is a design choice of the template")

    def _keeps_format(self, cand: Candidate) -> CheckResult:
        if cand.format_change:
            return CheckResult("keeps-format", "fail", f"changes the model's format: {cand.format_change}")
        return CheckResult("keeps-format", "pass", "it writes nothing the template does not write already")

    def _roundtrip(self, cand: Candidate, target: Target) -> CheckResult:
        after, before = target.after, self.before
        lost = after.lost_from(before)
        if lost:
            return CheckResult("roundtrip-better", "fail", f"it loses {', '.join(lost)} (round trip {after} "
                               f"against {before})")
        if not after.better_than(before):
            return CheckResult("roundtrip-better", "fail", f"the round trip is no better ({after} against {before})")
        return CheckResult("roundtrip-better", "pass", f"round trip {before} -> {after}, nothing lost")

    def _after_renders(self, cand: Candidate, target: Target) -> dict[RendersKey, TurnRenders] | None:
        if cand.kind == "request-change":
            return session_renders(self.session, cand.change)
        if target.session.text == self.session.text:
            return None  # the same text and request: every render is the original's
        return session_renders(target.session)

    def _still_renders(self, cand: Candidate, target: Target) -> CheckResult:
        after = self._after_renders(cand, target)
        if after is None:
            return CheckResult("still-renders", "pass", "the template text and the request are unchanged")
        missing: list[str] = []
        count = 0
        for key, before in self.renders.items():
            for (conversation, k, generation), text in before.renders:
                if text is None:
                    continue
                count += 1
                if after[key].get((conversation, k, generation)) is None:
                    missing.append(f"{conversation} up to message {abs(k)}" + (" with the generation prompt"
                                   if generation else "") + f" ({key[0]}, enable_thinking {str(key[1]).lower()})")
        if missing:
            return CheckResult("still-renders", "fail", f"the fixed template no longer renders {missing[0]}"
                               + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""))
        return CheckResult("still-renders", "pass", f"all {count} renderings the original makes still render")

    def _turns(self, cand: Candidate, target: Target) -> CheckResult:
        after = self._after_renders(cand, target)
        if after is None:
            return CheckResult("turns-unchanged", "pass", "the template text and the request are unchanged: every "
                               "turn renders as before")
        named = set(cand.names)
        changed = compared = 0
        for key, before in self.renders.items():
            for (conversation, k, generation), text in before.renders:
                new = after[key].get((conversation, k, generation))
                if text is None or new is None:
                    continue
                compared += 1
                if new == text:
                    continue
                changed += 1
                bad = _unnamed_change(text, new, conversation, k, generation, named)
                if bad is not None:
                    owners, old_piece, new_piece = bad
                    return CheckResult("turns-unchanged", "fail", (
                        f"the edit changes the {' / '.join(owners)} turn ({conversation}, {key[0]}, enable_thinking "
                        f"{str(key[1]).lower()}): {_excerpt(old_piece, new_piece)} becomes "
                        f"{_excerpt(new_piece, old_piece)}"))
        if set(cand.names) >= set(ALL_VARIANTS):
            return CheckResult("turns-unchanged", "pass", f"{changed} of {compared} renderings differ; the request "
                               "change names every turn (it is what the client sends for the whole conversation)")
        names = ", ".join(cand.names) or "none"
        return CheckResult("turns-unchanged", "pass", f"{changed} of {compared} renderings differ, only in the turns "
                           f"the fix names ({names})")

    def _analysis(self, cand: Candidate, target: Target) -> CheckResult:
        if target.session is self.session:
            return CheckResult("analysis-fields", "pass", "the template is unchanged, and so is its analysis")
        before, after = self.fields, _fields(target.session)
        if before is None or after is None:
            if before is None and after is None:
                return CheckResult("analysis-fields", "pass", "llama.cpp's autoparser cannot analyse either version")
            state = "no longer analyses" if after is None else "now analyses"
            ok = after is not None and bool(cand.fields)
            return CheckResult("analysis-fields", "pass" if ok else "fail",
                               f"llama.cpp's autoparser {state} the template")
        changed = [n for n in FIELD_NAMES if before.get(n) != after.get(n)]
        allowed = set(cand.fields) | (set(_DERIVED) if cand.fields else set())
        stray = [n for n in changed if n not in allowed]
        if stray:
            name = stray[0]
            return CheckResult("analysis-fields", "fail", f"the analysis changes in {', '.join(stray)}, which the fix "
                               f"does not name ({name}: {before.get(name)!r} -> {after.get(name)!r})")
        return CheckResult("analysis-fields", "pass", ("changes " + ", ".join(changed)) if changed else
                           "no analysis field changes")

    def _health(self, cand: Candidate, target: Target) -> CheckResult:
        if target.session is self.session:
            return CheckResult("no-new-health", "pass", "the template is unchanged, and so is its health")
        new = sorted(_health(target.session) - self.health)
        if new:
            check, name = new[0]
            return CheckResult("no-new-health", "fail", f"a new health finding: {check}" + (f" ({name})" if name
                                                                                              else ""))
        return CheckResult("no-new-health", "pass", "no health finding the original lacks")

    def _grammar(self, cand: Candidate, target: Target) -> CheckResult:
        before = self.grammar
        after = _grammar(target.session, self.default, cand.change)
        if before is None or after is None:
            return CheckResult("grammar-no-worse", "pass" if after is not None or before is None else "fail",
                               "the round trip with grammar verdicts " + ("fails after the fix" if after is None
                                                                         else "could not run before the fix"))
        worse = sorted(after - before)
        if worse:
            case, label = worse[0]
            return CheckResult("grammar-no-worse", "fail", f"the grammar now goes against expectation on {case} "
                               f"({label})" + (f" and {len(worse) - 1} more" if len(worse) > 1 else ""))
        return CheckResult("grammar-no-worse", "pass", f"{len(after)} verdict(s) against expectation, none new "
                           f"(enable_thinking {str(self.default).lower()})")

    def _summary(self, cand: Candidate, target: Target) -> CheckResult:
        claim = cand.claim
        if claim.kind == "fields":
            for s in cand.overrides:
                try:
                    value = field_value(target.session.analysis, s.field)
                except ExplorerError as exc:
                    return CheckResult("summary-true", "fail", f"the analysis cannot be read: {exc}")
                if value != s.value:
                    return CheckResult("summary-true", "fail", f"the summary sets {s.field} to {s.value!r}, the "
                                       f"analysis holds {value!r}")
            return CheckResult("summary-true", "pass", "every field it names holds the value it names")
        if claim.kind == "stop":
            for thinking in (False, True):
                params = next_turn_params(target.session, thinking)
                if params is None or claim.text not in params.additional_stops:
                    return CheckResult("summary-true", "fail", f"{quote(claim.text, 40)} is not an additional stop "
                                       f"of the request (enable_thinking {str(thinking).lower()})")
            return CheckResult("summary-true", "pass", f"{quote(claim.text, 40)} is an additional stop of the request")
        if claim.kind == "request":
            assert cand.change is not None
            data = cand.change.to_json()
            kwargs = data.get("chat_template_kwargs")
            names = [*(k for k in data if k != "chat_template_kwargs"), *(kwargs if isinstance(kwargs, dict) else ())]
            missing = [n for n in names if n not in cand.summary]
            if missing:
                return CheckResult("summary-true", "fail", f"the summary does not name {', '.join(missing)}")
            return CheckResult("summary-true", "pass", "the summary names every field the request change sets")
        if claim.kind == "runs":
            if target.errors:
                return CheckResult("summary-true", "fail", "the round trip still fails: " + target.errors[0])
            return CheckResult("summary-true", "pass", "the round trip runs")
        after = self._after_renders(cand, target) or self.renders
        return _turn_claim(cand, self.renders, after)


def _ended(results: tuple[CheckResult, ...]) -> tuple[CheckResult, ...]:
    """The results, and every check after the last as ``not run``."""
    done = {r.check for r in results}
    return results + tuple(CheckResult(c, "not run") for c in CHECK_IDS if c not in done)


def _default_thinking(session: TemplateSession) -> bool:
    try:
        return session.supports_enable_thinking
    except ExplorerError:
        return False


def _fields(session: TemplateSession) -> dict[str, object] | None:
    if session.analysis_error is not None:
        return None
    analysis = session.analysis
    return {n: field_value(analysis, n) for n in FIELD_NAMES}


def _health(session: TemplateSession) -> frozenset[tuple[str, str]]:
    if session.render_budget_exhausted:
        return frozenset()
    return frozenset((f.check, f.field) for f in session.health.findings if f.severity != "info")


def _grammar(session: TemplateSession, thinking: bool, change: RequestChange | None
             ) -> frozenset[tuple[str, str]] | None:
    """The (message, label) of every grammar verdict against expectation (None: the round
    trip fails)."""
    try:
        report = session.roundtrip(thinking, grammar=True, change=change)
    except ExplorerError:
        return None
    return frozenset((c.message_id, v.label) for c in report.cases for v in c.grammar if v.as_expected is False)


def _unnamed_change(before: str, after: str, conversation: str, k: int, generation: bool, named: set[str]
                    ) -> tuple[tuple[str, ...], str, str] | None:
    """The first piece that differs between two renderings of one conversation and
    belongs to no named turn: (its owners, the piece before, after), or None."""
    common = tuple(w for w in words(conversation, k) if w in before and w in after)
    a = segments(before, conversation, k, generation, common)
    b = segments(after, conversation, k, generation, common)
    for key in dict.fromkeys([*a, *b]):
        old, new = a.get(key), b.get(key)
        if old is not None and new is not None and old.text == new.text:
            continue
        owners = tuple(dict.fromkeys([*(old.owners if old else ()), *(new.owners if new else ())]))
        if not named & set(owners):
            return owners, old.text if old else "", new.text if new else ""
    return None


def _turn_claim(cand: Candidate, before: dict[RendersKey, TurnRenders], after: dict[RendersKey, TurnRenders]
                ) -> CheckResult:
    """``renders``, ``closes`` and ``literal`` claims, on llama.cpp's renderings of the
    whole conversations (the turns as history), both thinking settings."""
    claim = cand.claim
    wanted = set(claim.variants)
    checked = 0
    for thinking in (False, True):
        renders = after[("llama.cpp", thinking)]
        for name, turns in CONVERSATIONS:
            whole = renders.get((name, len(turns), False))
            if claim.kind == "literal":
                old = before[("llama.cpp", thinking)].get((name, len(turns), False)) or ""
                if whole is not None and claim.text in old and claim.text in whole:
                    return CheckResult("summary-true", "fail", f"llama.cpp still writes {quote(claim.text, 40)} in "
                                       f"the {name} conversation (enable_thinking {str(thinking).lower()})")
                checked += 1
                continue
            for index, turn in enumerate(turns):
                if turn.variant not in wanted:
                    continue
                checked += 1
                if whole is None:
                    return CheckResult("summary-true", "fail", f"the {name} conversation does not render "
                                       f"(enable_thinking {str(thinking).lower()})")
                if claim.kind == "renders":
                    value = turn.message.get(claim.text)
                    if isinstance(value, str) and value and value not in whole:
                        return CheckResult("summary-true", "fail", f"the summary says each {turn.variant} turn "
                                           f"renders its {claim.text}; turn {index + 1} of the {name} conversation "
                                           f"does not (enable_thinking {str(thinking).lower()})")
                elif claim.kind == "closes":
                    last = max((whole.find(w) + len(w) for w in turn.texts if w in whole), default=-1)
                    following = [whole.find(w) for t in turns[index + 1:] for w in t.texts if w in whole]
                    upto = min([f for f in following if f > last], default=len(whole))
                    if last < 0 or claim.text not in whole[last:upto]:
                        return CheckResult("summary-true", "fail", f"the summary says each {turn.variant} turn is "
                                           f"closed with {quote(claim.text, 30)}; turn {index + 1} of the {name} "
                                           f"conversation is not (enable_thinking {str(thinking).lower()})")
    if not checked:
        return CheckResult("summary-true", "fail", f"the message set has no {', '.join(claim.variants)} turn to check "
                           "the summary on")
    return CheckResult("summary-true", "pass", f"holds for all {checked} turn(s) it names, both thinking settings")


__all__ = ["CHECKS", "CHECK_IDS", "TITLES", "Check", "Standard", "Target"]
