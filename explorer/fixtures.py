"""canitoolcall's conformance fixtures through a template's session, judged by canitoolcall.

Input: a ``TemplateSession`` (or just a template's text) and canitoolcall's fixtures and
families. Output:

- ``fixture_verdict``: one parse (a ``ChatMessage``, or the parser's exception) judged by
  canitoolcall's own checks (``FixtureVerdict``);
- ``fixture_request``: the request llama-server receives for a fixture, as the oracle
  README's "Parse files" builds it (one user turn, the fixture's tools, thinking per
  fixture);
- ``match_family``: the template's own family (``FamilyMatch``), read off the family
  markers the template text holds, and which reference models' fixtures it speaks;
- ``run_family``: every fixture of those reference models parsed with the session and
  judged (``FamilyRun``).

The family rule. A family lists the marker strings of its format; each reference model's
fixtures show which of them its outputs really use (``ModelProfile.uses``: marker ->
fixtures whose output holds it). A template speaks a reference model's format when it
holds at least ``MATCH_SHARE`` of those uses, weighted by fixture count, and at least one
of the markers is not generic (listed by more than half of the families: ``<think>``).
The family is the one whose best model scores highest, ties going to the family with more
distinct non-generic markers in the template (GLM's ``<arg_key>`` over Hermes'
``<tool_call>``). Within it, the models with the best score are kept, except a model
whose call markers are a strict subset of another kept model's (Mistral 7B's bare
``[TOOL_CALLS]`` beside ``[TOOL_CALLS]...[ARGS]``): that is an older sub-format the
template does not write. Reasoning markers (mostly seen with reasoning) are left out of
that comparison, so a thinking and a non-thinking model of one format both stay.

With the session at hand, the generation prompt decides between models that write the
same markers: each fixture records the generation prompt its model was given, and a
model is dropped when the template reproduces its fixtures' prompts less than half as
often as the best model's (Qwen3-4B-Thinking's ``<think>`` pre-fill against Qwen3's bare
assistant turn; GLM-4.5's ``<|assistant|>`` against GLM-4.7's ``<|assistant|><think>``).
A model whose fixtures record no prompt stays; when no model's prompt is reproduced at all
(llama.cpp's Mistral prompts are empty, ``[/INST]`` belongs to the user turn) none is
dropped.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from types import MappingProxyType
from typing import Literal

from canitoolcall import checks
from canitoolcall.fixtures import Family, Fixture, load_families, load_fixtures
from canitoolcall.results import Observation, ParsedToolCall, ParseResult, Status

from explorer.apply import Request, thinking_kwargs
from explorer.errors import ExplorerError
from explorer.output.parse import ChatMessage
from explorer.session import TemplateSession

MATCH_SHARE = 0.75  # of a model's marker uses the template must hold
REASONING_SHARE = 0.8  # of the fixtures showing a marker that expect reasoning: a reasoning marker
FIXTURE_STATUSES = ("pass", "soft_pass", "fail", "error")


# --- one verdict -------------------------------------------------------------------------


@dataclass(frozen=True)
class FixtureVerdict:
    """How our parse of one fixture compares with what the fixture expects."""

    status: str  # canitoolcall's Status value: pass, soft_pass, fail; or error (the request failed)
    detail: str
    got: dict[str, object]  # the parse in canitoolcall's ParseResult.to_dict() shape


def fixture_verdict(fixture: Fixture, family: Family | None, message: ChatMessage | None,
                    exception: str | None) -> FixtureVerdict:
    """Judge one parse (a ChatMessage, or the parser's exception) by canitoolcall's own checks.

    ``expected`` fixtures use ``compare`` (strict, then whitespace-soft); ``expected_error``
    fixtures use ``check_expected_error`` on the non-streaming parse.
    """
    if message is None:
        got = ParseResult(exception=exception or "error")
    else:
        got = ParseResult(
            content=message.content, reasoning_content=message.reasoning_content,
            tool_calls=tuple(ParsedToolCall(c.name, c.arguments) for c in message.tool_calls),
        )
    if fixture.expected is not None:
        want = checks.expected_as_result(fixture.expected)
        status = checks.compare(want, got)
        detail = "" if status is Status.PASS else checks.describe_difference(want, got)
        return FixtureVerdict(status.value, detail, got.to_dict())
    rows = checks.check_expected_error(fixture, family, Observation(nonstream=got, streams={}))
    if not rows:
        return FixtureVerdict(Status.PASS.value, "nothing to check", got.to_dict())
    worst = checks.case_status(rows)
    reason = fixture.expected_error.reason if fixture.expected_error is not None else ""
    detail = "; ".join(r.detail for r in rows if r.detail) or f"accepted: {reason}"
    return FixtureVerdict(worst.value, detail, got.to_dict())


# --- the request of a fixture ------------------------------------------------------------


def fixture_request(session: TemplateSession, fixture: Fixture) -> Request:
    """The oracle's request for a fixture: one user turn, the fixture's tools, tool_choice
    auto, parallel calls as the template's capability; a fixture's own thinking flag goes
    out as enable_thinking and as both kwargs spellings, a null one leaves llama-server's
    default (the template's support for thinking) and no kwargs."""
    tools = [copy.deepcopy(dict(t)) for t in fixture.tools] or None
    if fixture.thinking is None:
        return session.request(tools=tools)
    flag = bool(fixture.thinking)
    return session.request(tools=tools, enable_thinking=flag,
                           chat_template_kwargs=thinking_kwargs(flag))


def judge(session: TemplateSession, fixture: Fixture, family: Family | None) -> FixtureVerdict:
    """One fixture through the session's parser for its request, judged; a request the
    template cannot apply is an ``error`` verdict."""
    try:
        parsed = session.parse(fixture.raw_output, fixture_request(session, fixture))
    except ExplorerError as exc:
        return FixtureVerdict("error", str(exc), {})
    exception = None if parsed.error is None else f"std::runtime_error: {parsed.error.message}"
    return fixture_verdict(fixture, family, parsed.message, exception)


# --- which family a template speaks --------------------------------------------------------


@dataclass(frozen=True)
class ModelProfile:
    """One reference model of a family: its fixtures and the family markers they use."""

    model: str
    fixture_ids: tuple[str, ...]
    uses: Mapping[str, int]  # marker -> fixtures of this model whose output holds it


@dataclass(frozen=True)
class FamilyProfile:
    family: Family
    models: tuple[ModelProfile, ...]
    reasoning_markers: frozenset[str]  # mostly seen in outputs that expect reasoning


@lru_cache(maxsize=1)
def _corpus() -> tuple[Mapping[str, Family], tuple[Fixture, ...]]:
    return MappingProxyType(load_families()), tuple(load_fixtures())


def family_fixtures(slug: str) -> tuple[Fixture, ...]:
    return tuple(f for f in _corpus()[1] if f.family == slug)


@lru_cache(maxsize=1)
def family_profiles() -> Mapping[str, FamilyProfile]:
    """Every family's markers as its reference models' fixtures use them (read once)."""
    families, fixtures = _corpus()
    out: dict[str, FamilyProfile] = {}
    for slug, family in families.items():
        mine = [f for f in fixtures if f.family == slug]
        by_model: dict[str, list[Fixture]] = {}
        for f in mine:
            by_model.setdefault(f.reference_model, []).append(f)
        models = tuple(ModelProfile(model, tuple(f.id for f in group), MappingProxyType(dict(Counter(
            m for f in group for m in family.markers if m in f.raw_output)))) for model, group in by_model.items())
        reasoning = set()
        for marker in family.markers:
            shown = [f for f in mine if marker in f.raw_output and f.expected is not None]
            if shown and sum(1 for f in shown if f.expected and f.expected.reasoning_content) \
                    >= REASONING_SHARE * len(shown):
                reasoning.add(marker)
        out[slug] = FamilyProfile(family, models, frozenset(reasoning))
    return MappingProxyType(out)


@lru_cache(maxsize=1)
def generic_markers() -> frozenset[str]:
    """Markers listed by more than half of the families: no evidence of any one format."""
    profiles = family_profiles()
    counts = Counter(m for p in profiles.values() for m in set(p.family.markers))
    return frozenset(m for m, n in counts.items() if n * 2 > len(profiles))


@dataclass(frozen=True)
class ModelMatch:
    """How much of one reference model's marker use the template holds."""

    model: str
    score: float  # the held share of the model's marker uses, by fixture count
    held: tuple[str, ...]  # the model's markers found in the template
    missing: tuple[str, ...]  # the model's markers the template lacks
    fixture_ids: tuple[str, ...]
    prompts: tuple[int, int] | None = None  # fixtures whose generation prompt the template gives, of those recording one

    @property
    def prompt_share(self) -> float | None:
        if self.prompts is None or not self.prompts[1]:
            return None
        return self.prompts[0] / self.prompts[1]

    @property
    def evidence(self) -> int:
        return len([m for m in self.held if m not in generic_markers()])

    def to_json(self) -> dict[str, object]:
        return {"model": self.model, "score": round(self.score, 3), "held": list(self.held),
                "missing": list(self.missing), "fixtures": len(self.fixture_ids),
                "generation_prompts": list(self.prompts) if self.prompts is not None else None}


@dataclass(frozen=True)
class FamilyMatch:
    """The template's family and the reference models whose fixtures it speaks."""

    slug: str
    name: str
    models: tuple[ModelMatch, ...]  # kept, best first
    left_out: tuple[ModelMatch, ...] = ()  # the family's other models, and why (their scores)

    @property
    def fixture_ids(self) -> tuple[str, ...]:
        return tuple(i for m in self.models for i in m.fixture_ids)

    def to_json(self) -> dict[str, object]:
        return {"family": self.slug, "name": self.name, "models": [m.to_json() for m in self.models],
                "left_out": [m.to_json() for m in self.left_out]}


def _model_match(text: str, profile: ModelProfile) -> ModelMatch:
    total = sum(profile.uses.values())
    held = tuple(m for m in profile.uses if m in text)
    score = sum(profile.uses[m] for m in held) / total if total else 0.0
    return ModelMatch(profile.model, score, held, tuple(m for m in profile.uses if m not in text),
                      profile.fixture_ids)


def _call_markers(match: ModelMatch, profile: FamilyProfile, generic: frozenset[str]) -> frozenset[str]:
    """The model's markers in the template that say how it calls (not generic, not reasoning)."""
    return frozenset(x for x in match.held if x not in generic and x not in profile.reasoning_markers)


def _speaks(match: ModelMatch) -> bool:
    return match.score >= MATCH_SHARE and match.evidence > 0


def _prompts(session: TemplateSession, match: ModelMatch) -> ModelMatch:
    fixtures = {f.id: f for f in _corpus()[1]}
    recorded = [fixtures[i] for i in match.fixture_ids if fixtures[i].generation_prompt is not None]
    same = 0
    for f in recorded:
        try:
            same += session.params(fixture_request(session, f)).generation_prompt == f.generation_prompt
        except ExplorerError:
            pass  # a request the template cannot apply gives no prompt to compare
    return replace(match, prompts=(same, len(recorded)))


def _by_prompt(session: TemplateSession, kept: list[ModelMatch]) -> tuple[list[ModelMatch], list[ModelMatch]]:
    """(kept, dropped) by how often the template gives each model's generation prompt."""
    if len(kept) < 2:
        return kept, []  # nothing to decide between
    kept = [_prompts(session, m) for m in kept]
    best = max((m.prompt_share or 0.0 for m in kept), default=0.0)
    if best == 0.0:
        return kept, []
    stay = [m for m in kept if m.prompt_share is None or m.prompt_share * 2 >= best]
    return stay, [m for m in kept if m not in stay]


def match_family(text: str, session: TemplateSession | None = None) -> FamilyMatch | None:
    """The family whose format the template text writes (the rule is the module's), or
    None when it speaks none of them. With the template's ``session`` the generation
    prompts decide between the family's models too."""
    generic = generic_markers()
    best: tuple[tuple[float, int], str, list[ModelMatch], list[ModelMatch]] | None = None
    for slug, profile in family_profiles().items():
        matches = [_model_match(text, p) for p in profile.models]
        speaking = [m for m in matches if _speaks(m)]
        if not speaking:
            continue
        top = max(m.score for m in speaking)
        kept = [m for m in speaking if m.score == top]
        calls = {m.model: _call_markers(m, profile, generic) for m in kept}
        kept = [m for m in kept if not any(calls[m.model] < calls[o.model] for o in kept)]
        key = (top, max(m.evidence for m in kept))
        if best is None or key > best[0]:
            best = (key, slug, kept, matches)
    if best is None:
        return None
    _, slug, kept, matches = best
    dropped: list[ModelMatch] = []
    if session is not None:
        kept, dropped = _by_prompt(session, kept)
    kept_names = {m.model for m in kept}
    left_out = dropped + [m for m in matches if m.model not in kept_names and m not in dropped
                          and m.model not in {d.model for d in dropped}]
    return FamilyMatch(slug, family_profiles()[slug].family.name,
                       tuple(sorted(kept, key=lambda m: (-m.score, -len(m.fixture_ids), m.model))), tuple(left_out))


# --- a family's fixtures through a session -------------------------------------------------


@dataclass(frozen=True)
class FixtureRow:
    fixture_id: str
    model: str
    enable_thinking: bool | None  # the fixture's own flag (None: the template's default)
    verdict: FixtureVerdict

    def to_json(self) -> dict[str, object]:
        return {"id": self.fixture_id, "model": self.model, "status": self.verdict.status,
                "detail": self.verdict.detail}


@dataclass(frozen=True)
class FamilyRun:
    """Every fixture of the matched models, judged."""

    match: FamilyMatch
    rows: tuple[FixtureRow, ...]

    def counts(self) -> dict[str, int]:
        found = Counter(r.verdict.status for r in self.rows)
        return {s: found.get(s, 0) for s in FIXTURE_STATUSES}

    def per_model(self) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for r in self.rows:
            counts = out.setdefault(r.model, dict.fromkeys(FIXTURE_STATUSES, 0))
            counts[r.verdict.status] = counts.get(r.verdict.status, 0) + 1
        return out

    @property
    def failures(self) -> tuple[FixtureRow, ...]:
        return tuple(r for r in self.rows if r.verdict.status in ("fail", "error"))

    def to_json(self) -> dict[str, object]:
        return self.match.to_json() | {"counts": self.counts(), "per_model": self.per_model(),
                                       "failures": [r.to_json() for r in self.failures]}


def count_scope(slug: str, match: FamilyMatch | None, page: Literal["fixtures", "doctor"], *,
                only_matched: bool = False) -> str:
    """What a page's count of a family's fixtures counts, in words, and how it relates to the
    other page's: the Doctor counts the fixtures of the family's reference models whose
    format the template writes (``match``); the Fixtures page the same by default
    (``only_matched``) and every fixture of the family when its toggle is off."""
    total = len(family_fixtures(slug))
    models = sorted({f.reference_model for f in family_fixtures(slug)})
    mine = match if match is not None and match.slug == slug else None
    kept = len(mine.fixture_ids) if mine is not None else 0
    names = ", ".join(m.model for m in mine.models) if mine is not None else ""
    if page == "fixtures" and only_matched and mine is not None:
        return (f"{kept} fixtures: those of {names}, the family's models whose format this template writes, as "
                f"the Doctor counts them" + (f" (the family has {total})." if kept < total else "."))
    if page == "fixtures":
        said = f"{total} fixtures: every fixture of the {slug} family ({len(models)} reference models)."
        if mine is not None and kept < total:
            said += (f" The Doctor counts {kept} of them: those of {names}, the models whose format this template "
                     "writes.")
        return said
    if mine is None:
        return f"{total} fixtures of the {slug} family."
    said = f"{kept} fixtures: those of {names}, the family's models whose format this template writes"
    return said + (f", of the family's {total} (the Fixtures page shows all {total} with its switch 'Only the "
                   "models this template speaks' off)." if kept < total else ".")


def run_family(session: TemplateSession, match: FamilyMatch) -> FamilyRun:
    """The matched models' fixtures through the session, each judged by canitoolcall."""
    families, fixtures = _corpus()
    family = families.get(match.slug)
    wanted = set(match.fixture_ids)
    rows = tuple(FixtureRow(f.id, f.reference_model, f.thinking, judge(session, f, family))
                 for f in fixtures if f.id in wanted)
    return FamilyRun(match, rows)

__all__ = [
    "FIXTURE_STATUSES", "MATCH_SHARE", "FamilyMatch", "FamilyProfile", "FamilyRun", "FixtureRow", "FixtureVerdict",
    "ModelMatch", "ModelProfile", "count_scope", "family_fixtures", "family_profiles", "fixture_request", "fixture_verdict",
    "generic_markers", "judge", "match_family", "run_family",
]
