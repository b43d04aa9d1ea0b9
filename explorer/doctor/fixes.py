"""Verified fixes for a template: candidates per failure class, each re-run before it is shown.

Input: a ``TemplateSession`` and the corpus at hand (paths of ``.jinja`` files or folders;
the built-in examples are always part of it). Output: ``propose_fixes``: the verified
``Fix`` es, best first; ``search_fixes``: the whole ``FixSearch`` (the failure classes, the
round trip before, the fixes, and the candidates that did not verify, with why).

Verification is the round trip's (default messages and tools, both thinking settings
where the template supports thinking): an analysis override through
``session.with_overrides``, a template edit through a session opened on the patched text,
a request change through the round trip under that request. A candidate is a fix only when
more messages come back and every message that came back before still does
(``RoundTripCount.better_than``). Of the fixes of one kind for the same classes only the
best is kept, and none another fix of its kind beats on every message. A class no fix
verified for says why (``FailureClass.no_fix``).

Two searches go on from a candidate that did not verify: an override that gets the parser
further into a rejected reply is tried with the next field the furthest failure names (up
to ``_Repair.MAX_DEPTH`` more), and when the round trip itself fails, a template edit that
makes it run is searched on (its fixes carry the edit's diff).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import replace

from explorer.analysis.overrides import workaround_lambda
from explorer.doctor.acceptance import Standard, Target
from explorer.doctor.candidates import (
    CALL_IDS,
    REJECTION_CLASSES,
    Candidate,
    candidates,
    failure_candidates,
    failure_offset,
    rejected_replies,
    thinking_markers,
)
from explorer.doctor.classes import Baseline, failure_classes, measure, thinking_settings
from explorer.doctor.corpus import THIS_TEMPLATE, Corpus, choose_substring, load_corpus
from explorer.doctor.edits import unified_diff
from explorer.doctor.intent import DesignChoice, by_design, design_choices
from explorer.doctor.model import FIX_KINDS, CheckResult, Claim, FailureClass, Fix, FixSearch, RoundTripCount, TriedFix
from explorer.errors import ExplorerError
from explorer.routing import AUTOPARSER
from explorer.session import TemplateSession, open_session

# Why a class has no sound fix, when no candidate verified (or none can exist).
_HANDLER = ("llama.cpp sends this template to its specialised '{handler}' handler, whose parser is code rather "
            "than analysis fields: the fix belongs in that handler (no workaround lambda reaches it).")
_NO_FIX: dict[str, str] = {
    "calls-dropped": ("The template writes no tool call (or not every call) of an assistant turn into the prompt: "
                      "there is no call syntax in it to restore, and inventing one would show the model a format "
                      "it was not trained on. This is the template's choice."),
    "render-refused": ("The template itself raises on this message (for example it allows one call per turn): "
                       "that is its rule, not a misreading. A request cannot make it render the message."),
    "reasoning-dropped": ("The template has no thinking markers (neither llama.cpp's analysis nor its handler knows "
                          "any): it keeps no reasoning in history by design. This is the template's choice."),
    "content-dropped": ("No edit that writes the content before the calls gave more back (the call is written "
                        "together with the turn's header, or the parser then reads the content as part of the "
                        "call). Dropping it is the template's choice."),
    "no-call-opener": ("Nothing is lost in the round trip (the calls parse back). The remedy, tool_choice "
                       "\"required\" when a call is wanted, constrains what the model writes, which the round trip "
                       "does not measure, so it is not shown as a verified fix."),
    "probe-threw": ("The template refuses a probe's input; llama.cpp keeps the defaults of the fields it decides. "
                    "Nothing verified better."),
    "roundtrip-failed": "The next-turn request fails and no edit of the template made it work.",
    "stop-token-left": ("The template writes more after the turn's stop token (the next turn's header), and the "
                        "round trip removes a stop only at the very end of a turn, so an additional stop cannot be "
                        "shown to help; a model stops on that token anyway and the server never passes it on."),
    "sentinel-in-marker": ("No marker without the probe's text gave more back: the template's own replies still "
                           "fail to parse."),
}
_ID_FIRST = ("The call id comes before the function name ({field} = {value!r}): llama.cpp's autoparser reads a call "
             "id only between the name and the arguments (call_id.pos BETWEEN_FUNC_AND_ARGS is the only position its "
             "parser generator builds), so no analysis field matches a call; a dedicated handler is needed.")


def propose_fixes(session: TemplateSession, corpus: Sequence[str] = ()) -> tuple[Fix, ...]:
    """The verified fixes for the template, best first (more messages back first)."""
    return search_fixes(session, corpus).fixes


def search_fixes(session: TemplateSession, corpus: Sequence[str] = ()) -> FixSearch:
    """Failure classes, candidates and their verification for one template."""
    return _search(session, load_corpus(corpus), session.text)


def _search(session: TemplateSession, at_hand: Corpus, original: str, depth: int = 0) -> FixSearch:
    settings = thinking_settings(session)
    baseline = measure(session, settings, explain=True)
    choices = design_choices(session)
    classes = _with_design(failure_classes(session, baseline), choices)
    if not classes:
        return FixSearch((), baseline.count, (), ())
    standard = Standard(session, baseline.count, choices, {c.key: c.cases for c in classes})
    fixes: list[Fix] = []
    tried: list[TriedFix] = []
    unblocked: list[Candidate] = []  # template edits that make a failing round trip run
    done: set[tuple[str, tuple[str, ...]]] = set()  # template edits: the first that verifies per classes
    repair = _Repair(session, baseline, classes)
    queue = deque(candidates(session, baseline, classes))
    seen = {c.identity for c in queue}
    while queue:
        cand = queue.popleft()
        if (cand.kind, cand.classes) in done:
            continue
        early = standard.before_measuring(cand)
        if early is not None:
            tried.append(_not_offered(cand, early, None))
            continue
        target, after, error = _measured(session, cand, settings, baseline)
        if after is not None and target is not None and after.count.better_than(baseline.count):
            checks = standard.judge(cand, Target(target, after.count, after.errors))
            if all(c.status != "fail" for c in checks):
                fixes.append(_fix(session, cand, baseline.count, after.count, at_hand, original, checks,
                                  standard.footprint(cand, target)))
                if cand.kind == "template-edit":  # each edit costs a template compile and analysis
                    done.update(("template-edit", c) for c in _subsets(cand.classes))
            else:
                tried.append(_not_offered(cand, checks, after.count))
            continue
        count = after.count if after is not None else None
        tried.append(TriedFix(cand.kind, cand.summary, error or _why_not(baseline.count, count), cand.classes,
                              count))
        if count is not None and baseline.errors and cand.kind == "template-edit":
            unblocked.append(cand)
        for follow in repair.after(cand):
            if follow.identity not in seen:
                seen.add(follow.identity)
                queue.append(follow)
    if depth == 0 and not fixes:
        for fix, cand in _on_top(session, unblocked[:1], baseline.count, at_hand, original):
            combined = standard.judge(cand, Target(_target_of(fix), fix.roundtrip_after))
            if all(c.status != "fail" for c in combined):
                fixes.append(replace(fix, checks=combined, turns=cand.names, fields=cand.fields, claim=cand.claim))
            else:
                tried.append(_not_offered(cand, combined, fix.roundtrip_after))
    kept = _best(fixes)
    tried += [TriedFix(f.kind, f.summary, f"a better {f.kind} for the same classes was kept", f.classes,
                       f.roundtrip_after, check="kept-better", checks=f.checks) for f in fixes if f not in kept]
    return FixSearch(_with_reasons(session, classes, kept, tried), baseline.count, tuple(kept), tuple(tried))


def _not_offered(cand: Candidate, checks: tuple[CheckResult, ...], after: RoundTripCount | None) -> TriedFix:
    failed = next(c for c in checks if c.status == "fail")
    return TriedFix(cand.kind, cand.summary, failed.detail, cand.classes, after, check=failed.check, checks=checks)


def _with_design(classes: tuple[FailureClass, ...], choices: Sequence[DesignChoice]) -> tuple[FailureClass, ...]:
    """Each class a design choice of the template makes on purpose, marked so."""
    out = []
    for c in classes:
        choice = by_design(choices, c.key, c.cases)
        out.append(replace(c, by_design=choice.summary, design_lines=choice.lines) if choice is not None else c)
    return tuple(out)


def _target_of(fix: Fix) -> TemplateSession:
    session = open_session(fix.patched_template)
    return session.with_overrides(fix.overrides) if fix.overrides else session


def _on_top(session: TemplateSession, edits: list[Candidate], before: RoundTripCount, at_hand: Corpus,
            original: str) -> list[tuple[Fix, Candidate]]:
    """Fixes that need a template edit first: the edit makes the round trip run but gives
    nothing back alone (a second fault hides behind it), so the search goes on from the
    edited template; each fix found there carries the edit (its diff and patched text),
    with the candidate the standard judges the two by (the edit's turns, its fields and
    the fix's)."""
    out: list[tuple[Fix, Candidate]] = []
    for edit in edits:
        patched = open_session(edit.patched, session.dialect, overrides=session.overrides)
        for fix in _search(patched, at_hand, original, depth=1).fixes:
            if not fix.roundtrip_after.better_than(before):
                continue
            file = _file_name(at_hand, original)
            summary = f"{edit.summary}, then {fix.summary}"
            classes = tuple(dict.fromkeys((*edit.classes, *fix.classes)))
            judged = replace(edit, kind=fix.kind, summary=summary, classes=classes, overrides=fix.overrides,
                             patched=fix.patched_template or edit.patched,
                             named_fields=(*edit.fields, *(s.field for s in fix.overrides)),
                             said=Claim("fields") if fix.overrides else Claim("runs"))
            out.append((replace(
                fix, summary=summary, roundtrip_before=before, classes=classes,
                diff=unified_diff(original, edit.patched, file) if not fix.diff else
                unified_diff(original, fix.patched_template, file),
                patched_template=fix.patched_template or edit.patched,
                notes=(*fix.notes, "This fix needs the template edit of its diff first: the edit alone makes the "
                       "round trip run, and gives nothing back until this fix is made too.")), judged))
    return out


class _Repair:
    """Overrides that get the parser further without a whole fix: the next field its
    furthest failure points at is tried on top of them (a misread format often has two
    wrong markers, and the second shows only once the first is right)."""

    MAX_DEPTH = 2  # overrides chained on top of the first
    BUDGET = 12  # repairs tried per template

    def __init__(self, session: TemplateSession, baseline: Baseline, classes: tuple[FailureClass, ...]) -> None:
        self.session = session
        keys = {c.key for c in classes}
        wanted = session.handler == AUTOPARSER and session.analysis_error is None and keys & REJECTION_CLASSES
        self.rejected = rejected_replies(session, baseline, "reply-fails" in keys) if wanted else ()
        self.start = [failure_offset(session, r) for r in self.rejected]
        self.budget = self.BUDGET

    def after(self, cand: Candidate) -> list[Candidate]:
        if cand.kind != "analysis-override" or cand.depth >= self.MAX_DEPTH or self.budget <= 0:
            return []
        try:
            target = self.session.with_overrides(cand.overrides)
        except ExplorerError:
            return []
        for reply, start in zip(self.rejected, self.start):
            offset = failure_offset(target, reply)
            if offset is not None and start is not None and offset > start:
                follow = list(failure_candidates(target, reply, cand.classes, base=cand))[:self.budget]
                self.budget -= len(follow)
                return follow
        return []


def _measured(session: TemplateSession, cand: Candidate, settings: tuple[bool, ...], before: Baseline
              ) -> tuple[TemplateSession | None, Baseline | None, str]:
    """(the session the candidate makes, its round trip, why it could not be measured)."""
    try:
        if cand.kind == "analysis-override":
            target = session.with_overrides(cand.overrides)
        elif cand.kind == "template-edit":
            # the session's own overrides (a user's --set) stay on the edited template
            target = open_session(cand.patched, session.dialect, overrides=session.overrides)
        else:
            target = session
        result = measure(target, settings, cand.change, keep=before.count if not before.errors else None)
    except ExplorerError as exc:
        what = "the patched template" if cand.kind == "template-edit" else "the change"
        return None, None, f"{what} fails: {exc}"
    if result.lost_early:
        return target, None, f"it loses {', '.join(result.lost_early)}"
    if result.errors:
        return target, None, "the round trip fails: " + "; ".join(result.errors)
    return target, result, ""


def _why_not(before: RoundTripCount, after: RoundTripCount | None) -> str:
    if after is None:
        return "it could not be measured"
    lost = after.lost_from(before)
    if lost:
        return f"it loses {', '.join(lost)} (round trip {after} against {before})"
    return f"the round trip is no better ({after} against {before})"


def _file_name(corpus: Corpus, text: str) -> str:
    name = corpus.name_of(text)
    return (name if name != THIS_TEMPLATE else "template") + ".jinja"


def _fix(session: TemplateSession, cand: Candidate, before: RoundTripCount, after: RoundTripCount,
         corpus: Corpus, original: str, checks: tuple[CheckResult, ...] = (), footprint: int = 0) -> Fix:
    name = corpus.name_of(original)
    fix = Fix(cand.kind, cand.summary, before, after, classes=cand.classes, notes=cand.notes, checks=checks,
              footprint=footprint, turns=cand.names, fields=cand.fields, claim=cand.claim)
    if cand.kind == "analysis-override":
        substring, holders = choose_substring(session.text, corpus, also_in=session.compiled.source, own=name)
        label = name if name != THIS_TEMPLATE else "doctor fix"
        return replace(fix, overrides=cand.overrides, substring=substring, substring_matches=holders,
                       workaround_cpp=workaround_lambda(cand.overrides, substring, label),
                       corpus=corpus.describe(), corpus_size=len(corpus.entries))
    if cand.kind == "template-edit":
        return replace(fix, diff=unified_diff(original, cand.patched, _file_name(corpus, original)),
                       patched_template=cand.patched)
    return replace(fix, request_change=cand.change)


def _subsets(classes: tuple[str, ...]) -> list[tuple[str, ...]]:
    return [tuple(c for i, c in enumerate(classes) if mask >> i & 1) for mask in range(1, 1 << len(classes))]


def _best(fixes: list[Fix]) -> list[Fix]:
    """One fix per (kind, classes), the one that gives most back (of equals, the one that
    changes least, then the first), and none that another fix of its kind beats on every
    message; ranked by how much comes back, then how little changes."""
    best: dict[tuple[str, tuple[str, ...]], Fix] = {}
    for fix in fixes:
        key = (fix.kind, fix.classes)
        rank = (-fix.roundtrip_after.equal, fix.footprint)
        if key not in best or rank < (-best[key].roundtrip_after.equal, best[key].footprint):
            best[key] = fix
    kept = [f for f in best.values() if not any(
        o is not f and o.kind == f.kind and o.roundtrip_after.equal > f.roundtrip_after.equal
        and set(f.roundtrip_after.equal_ids) <= set(o.roundtrip_after.equal_ids) for o in best.values())]
    kinds = {k: i for i, k in enumerate(FIX_KINDS)}
    return sorted(kept, key=lambda f: (-f.roundtrip_after.equal, f.footprint, kinds[f.kind]))


def _with_reasons(session: TemplateSession, classes: tuple[FailureClass, ...], fixes: list[Fix],
                  tried: Sequence[TriedFix] = ()) -> tuple[FailureClass, ...]:
    fixed = {k for f in fixes for k in f.classes}
    out = []
    for c in classes:
        if c.key in fixed:
            out.append(c)
            continue
        withdrawn = next((t for t in tried if c.key in t.classes and t.withdrawn and t.check != "keeps-intent"), None)
        if c.by_design:
            reason = (f"By design: {c.by_design}. The doctor does not fix what the template does on purpose: the "
                      "model was trained on it.")
        elif withdrawn is not None:
            reason = f"No sound fix: {withdrawn.why} (check {withdrawn.check})."
        elif session.handler != AUTOPARSER and c.key not in ("reasoning-dropped", "calls-dropped", "render-refused",
                                                             "content-dropped", "thinking-closed", "turn-unclosed",
                                                             "renders-literally"):
            reason = _HANDLER.format(handler=session.handler)
        elif c.key == "sentinel-in-marker" and (first := _id_first(session)) is not None:
            reason = _ID_FIRST.format(field=first[0], value=first[1])
        elif c.key == "reasoning-dropped" and thinking_markers(session) is not None:
            reason = ("No edit that writes the reasoning into the turn gave more back without losing a message; "
                      "dropping earlier reasoning is the template's choice.")
        else:
            reason = _NO_FIX.get(c.key, "No candidate fix gave more back without losing a message.")
        out.append(replace(c, no_fix=reason))
    return tuple(out)


def _id_first(session: TemplateSession) -> tuple[str, str] | None:
    """(field, value) of a marker before the function name that holds a probe's call id."""
    analysis = session.analysis
    for name, value in (("tools.function.name_prefix", analysis.tools.function.name_prefix),
                        ("tools.format.per_call_start", analysis.tools.format.per_call_start)):
        if any(i in value or value.startswith(i[-3:]) for i in CALL_IDS):
            return name, value
    return None


__all__ = ["propose_fixes", "search_fixes"]
