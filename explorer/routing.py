"""Routing: which llama.cpp chat handler a template is sent to, and why.

Input: chat template text (as read from the model; llama.cpp's init-time source patches
are applied here first, exactly as ``common_chat_templates_init`` does before anything
else looks at the text). Output: a frozen ``Routing`` naming the handler as the oracle's
``routed.handler`` spells it, the substring evidence that decided it (with the template
line of each hit), every rule checked on the way, and the source patches and
message-level workarounds llama.cpp would apply to a request for this template.

The detection rules of ``common_chat_try_specialized_template`` are declared by the
handler classes (``explorer.handlers``) and checked here in the registry's order
(``HANDLER_CLASSES``, llama.cpp's); the first rule that holds wins, and a template that
matches none goes to the differential ``autoparser``.
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.caps import Caps
from explorer.handlers import registry
from explorer.handlers.detection import RuleCheck, SubstringEvidence, find_substring
from explorer.handlers.prompting import MessageWorkaround
from explorer.handlers.registry import FALLBACK, route_named
from explorer.jsontypes import JsonObject

AUTOPARSER = FALLBACK.name

__all__ = [
    "AUTOPARSER", "PatchReport", "RuleCheck", "Routing", "SOURCE_PATCHES", "SourcePatch",
    "SubstringEvidence", "WorkaroundReport", "find_substring", "message_workarounds", "patch_reports",
    "patch_source", "route", "route_source",
]


# --- source patches (common_chat_templates_init) ---------------------------------


@dataclass(frozen=True)
class SourcePatch:
    """A ``string_replace_all`` llama.cpp makes on the template text at init."""

    name: str
    triggers: tuple[str, ...]  # all must be present for the patch to run
    old: str
    new: str
    reason: str

    def triggered(self, source: str) -> bool:
        return all(t in source for t in self.triggers)

    def apply(self, source: str) -> str:
        return source.replace(self.old, self.new) if self.triggered(source) else source


SOURCE_PATCHES: tuple[SourcePatch, ...] = (
    SourcePatch(
        name="gpt-oss",
        triggers=("<|channel|>", "in message.content or"),
        old='{%- if "<|channel|>analysis<|message|>" in message.content or '
        '"<|channel|>final<|message|>" in message.content %}',
        new="{%- if false %}",
        reason="the GPT-OSS template raises when a message's content holds channel "
        "markers; llama.cpp disables that check (temporary hack, PR 15230)",
    ),
    SourcePatch(
        name="mistral",
        triggers=("[TOOL_CALLS]", "if (message['content'] is none or"),
        old="{%- if (message['content'] is none or message['content'] == '' or "
        "message['content']|length == 0) and (message['tool_calls'] is not defined or "
        "message['tool_calls'] is none or message['tool_calls']|length == 0) %}",
        new="{%- if false %}",
        reason="the Mistral template raises on an empty assistant message; llama.cpp "
        "disables that check pending Minja changes (PR 17713)",
    ),
)


@dataclass(frozen=True)
class PatchReport:
    name: str
    triggered: bool  # trigger substrings present
    replaced: bool  # the exact text was found and changed
    reason: str


def patch_source(source: str) -> str:
    """The template text llama.cpp actually compiles (both patches, in order)."""
    for patch in SOURCE_PATCHES:
        source = patch.apply(source)
    return source


def patch_reports(source: str) -> tuple[PatchReport, ...]:
    reports = []
    for patch in SOURCE_PATCHES:
        trig = patch.triggered(source)
        reports.append(PatchReport(patch.name, trig, trig and patch.old in source, patch.reason))
        source = patch.apply(source)
    return tuple(reports)


# --- message workarounds ------------------------------------------------------------

STEPFUN_MARKER = "You have access to the following functions in JSONSchema format"
GPT_OSS_MARKER = "<|channel|>"


@dataclass(frozen=True)
class WorkaroundReport:
    """Whether a ``workaround::`` function runs for this template.

    ``applies`` is None when it depends on a capability that was not supplied.
    """

    name: str
    applies: bool | None
    reason: str


def message_workarounds(source: str, handler: str, caps: Caps | None = None) -> tuple[WorkaroundReport, ...]:
    """The message-level workarounds of ``common_chat_templates_apply_jinja``, in its order.

    ``source`` is the patched source; ``caps`` the template's capabilities, or None
    (those that depend on them are then reported as unknown).
    """
    sysrole = None if caps is None else caps.supports_system_role
    toolcalls = None if caps is None else caps.supports_tool_calls
    objargs = None if caps is None else caps.supports_object_arguments
    stepfun = STEPFUN_MARKER in source
    gpt_oss = GPT_OSS_MARKER in source
    routed = route_named(handler).message_workarounds
    return (
        WorkaroundReport(
            "trim_all_content",
            stepfun,
            f"source {'contains' if stepfun else 'lacks'} the StepFun marker "
            f"{STEPFUN_MARKER!r} (whitespace drove the model into reasoning loops)",
        ),
        WorkaroundReport(
            "map_developer_role_to_system",
            not gpt_oss,
            "GPT-OSS templates (with '<|channel|>') keep the developer role"
            if gpt_oss
            else "source lacks '<|channel|>', so role developer becomes system",
        ),
        WorkaroundReport(
            "system_message_not_supported",
            None if sysrole is None else not sysrole,
            "depends on caps.supports_system_role"
            if sysrole is None
            else f"caps.supports_system_role is {str(sysrole).lower()}",
        ),
        WorkaroundReport(
            "requires_non_null_content",
            toolcalls,
            "depends on caps.supports_tool_calls"
            if toolcalls is None
            else f"caps.supports_tool_calls is {str(toolcalls).lower()}",
        ),
        WorkaroundReport(
            "func_args_not_string",
            objargs,
            "depends on caps.supports_object_arguments"
            if objargs is None
            else f"caps.supports_object_arguments is {str(objargs).lower()}",
        ),
    ) + tuple(
        WorkaroundReport(w.name, w in routed, w.applies_reason if w in routed else w.skipped_reason)
        for w in _route_workarounds()
    )


def _route_workarounds() -> tuple[MessageWorkaround, ...]:
    """Every workaround a route declares, once, in registry order: the report lists
    them for any template, as not applying off their route."""
    seen: list[MessageWorkaround] = []
    for cls in registry.routes():
        seen += [w for w in cls.message_workarounds if w not in seen]
    return tuple(seen)


# --- the routing result ---------------------------------------------------------------


@dataclass(frozen=True)
class Routing:
    handler: str
    evidence: tuple[SubstringEvidence, ...]  # the winning rule's tests (empty: autoparser)
    checks: tuple[RuleCheck, ...]  # every rule checked, in order, up to the winner
    patches: tuple[PatchReport, ...]
    workarounds: tuple[WorkaroundReport, ...]
    note: str = ""

    @property
    def specialized(self) -> bool:
        return self.handler != AUTOPARSER

    def to_json(self) -> JsonObject:
        def ev(e: SubstringEvidence) -> JsonObject:
            return {
                "needle": e.needle,
                "wanted": e.wanted,
                "present": e.present,
                "line": e.line,
                "source_line": e.source_line,
                "alternative": e.alternative,
            }

        return {
            "handler": self.handler,
            "specialized": self.specialized,
            "evidence": [ev(e) for e in self.evidence],
            "checks": [
                {"rule": c.rule, "matched": c.matched, "evidence": [ev(e) for e in c.evidence]}
                for c in self.checks
            ],
            "patches": [p.__dict__ for p in self.patches],
            "workarounds": [w.__dict__ for w in self.workarounds],
            "note": self.note,
        }


def route_source(patched_source: str) -> tuple[str, tuple[RuleCheck, ...]]:
    """First matching rule on an already patched source (no workaround listing)."""
    checks: list[RuleCheck] = []
    for cls in registry.HANDLER_CLASSES:  # read when routing: the registry's one list
        check = cls.check(patched_source)
        checks.append(check)
        if check.matched:
            return cls.name, tuple(checks)
    return AUTOPARSER, tuple(checks)


def route(template_text: str, caps: Caps | None = None, *,
          decided: tuple[str, tuple[RuleCheck, ...]] | None = None) -> Routing:
    """Where ``common_chat_templates_apply`` sends this template, with the evidence.

    ``caps`` decides the capability-dependent workarounds; without it they are reported
    as unknown. Routing itself needs only the text (a template that does not compile
    is still routed). ``decided``: ``route_source`` of the patched text, when the caller
    has it already (a session's templates decided it).
    """
    patched = patch_source(template_text)
    handler, checks = decided if decided is not None else route_source(patched)
    winner = checks[-1] if checks and checks[-1].matched else None
    note = route_named(handler).note
    return Routing(
        handler=handler,
        evidence=winner.evidence if winner else (),
        checks=checks,
        patches=patch_reports(template_text),
        workarounds=message_workarounds(patched, handler, caps),
        note=note,
    )
