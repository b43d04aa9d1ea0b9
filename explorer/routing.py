"""Routing: which llama.cpp chat handler a template is sent to, and why.

Input: chat template text (as read from the model; llama.cpp's init-time source patches
are applied here first, exactly as ``common_chat_templates_init`` does before anything
else looks at the text). Output: a frozen ``Routing`` naming the handler as the oracle's
``routed.handler`` spells it, the substring evidence that decided it (with the template
line of each hit), every rule checked on the way, and the source patches and
message-level workarounds llama.cpp would apply to a request for this template.

The detection rules of ``common_chat_try_specialized_template`` are data
(``HANDLER_RULES``), checked in llama.cpp's order; the first rule that holds wins, and a
template that matches none goes to the differential ``autoparser``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable

AUTOPARSER = "autoparser"


# --- evidence -----------------------------------------------------------------


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


# --- the rule table ---------------------------------------------------------------


@dataclass(frozen=True)
class HandlerRule:
    """One ``src.find`` test of ``common_chat_try_specialized_template``.

    ``required``: every substring must be present. ``forbidden``: every substring must be
    absent. ``any_of``: for each group, at least one substring must be present.
    ``predicate``: an extra test on the source (none of llama.cpp's rules needs one today,
    but a future handler may).
    """

    name: str
    required: tuple[str, ...] = ()
    forbidden: tuple[str, ...] = ()
    any_of: tuple[tuple[str, ...], ...] = ()
    predicate: Callable[[str], bool] | None = field(default=None, compare=False)
    note: str = ""

    def check(self, source: str) -> "RuleCheck":
        evidence: list[SubstringEvidence] = []
        evidence += [find_substring(source, s, True) for s in self.required]
        evidence += [find_substring(source, s, False) for s in self.forbidden]
        groups_ok = True
        for group in self.any_of:
            hits = [replace(find_substring(source, s, True), alternative=True) for s in group]
            evidence += hits
            groups_ok = groups_ok and any(h.present for h in hits)
        plain_ok = all(
            e.satisfied for e in evidence[: len(self.required) + len(self.forbidden)]
        )
        pred_ok = self.predicate(source) if self.predicate is not None else True
        return RuleCheck(self.name, plain_ok and groups_ok and pred_ok, tuple(evidence))


@dataclass(frozen=True)
class RuleCheck:
    rule: str
    matched: bool
    evidence: tuple[SubstringEvidence, ...]


GEMMA4_CALL = "'<|tool_call>call:'"
GEMMA4_CURRENT_MARKER = "{#- OpenAI Chat Completions:"

# llama.cpp's order. The two Gemma 4 rows are one branch in llama.cpp: the outdated
# variant (no "OpenAI Chat Completions" comment) is listed first so the table stays a
# first-match list.
HANDLER_RULES: tuple[HandlerRule, ...] = (
    HandlerRule(
        "ministral-3",
        required=("[SYSTEM_PROMPT]", "[TOOL_CALLS]", "[ARGS]"),
        forbidden=("[CALL_ID]",),
        note="Mistral Small 3.2 has [CALL_ID], Ministral/Magistral Large 3 do not",
    ),
    HandlerRule("gpt-oss", required=("<|channel|>",)),
    HandlerRule("muse-glimmer", required=("<atem:function_calls>", "<|eom|>")),
    HandlerRule("functionary-v3.2", required=(">>>all", ">>>${recipient}")),
    HandlerRule("kimi-k2", required=("<|tool_calls_section_begin|>", "<|tool_call_begin|>")),
    HandlerRule("kimi-k3", required=("<|open|>", "<|close|>", "<|end_of_msg|>")),
    HandlerRule("ling3", required=("<role>ASSISTANT</role>", "<arg_key>")),
    HandlerRule("cohere2moe", required=("<|START_TEXT|>", "<|START_ACTION|>")),
    HandlerRule("lfm2", required=("<|tool_list_start|>", "<|tool_list_end|>")),
    HandlerRule("lfm2.5", required=("List of tools: [",), forbidden=("<|tool_list_start|>",)),
    HandlerRule(
        "gigachat-v3",
        required=("<|role_sep|>", "<|message_sep|>"),
        forbidden=("<|function_call|>",),
    ),
    HandlerRule("minimax-m3", required=("]<]minimax[>[", "<tool_call>", "<invoke name=")),
    HandlerRule(
        "deepseek-v3.2/v4",
        required=("dsml_token", "DSML"),
        any_of=(("function_calls", "tool_calls"),),
        note="V3.2 names the block function_calls, V4 tool_calls",
    ),
    HandlerRule(
        "gemma4(outdated-template-workarounds)",
        required=(GEMMA4_CALL,),
        forbidden=(GEMMA4_CURRENT_MARKER,),
        note="older Gemma 4 template: convert_tool_responses_gemma4 is applied",
    ),
    HandlerRule("gemma4", required=(GEMMA4_CALL,)),
    HandlerRule(
        "minicpm5",
        required=("Tool usage guidelines:", '<function name="', '<param name="'),
    ),
    HandlerRule(
        "qwen3-coder",
        required=("<tool_call>", "<function=", "<parameter="),
        forbidden=("'<tool_call><function=' ~ tool_call.name ~ '>'",),
        note="also Nemotron Nano 3, Qwen3.5, StepFun-3.5-Flash; excludes templates "
        "without newlines between the tags",
    ),
)

HANDLER_NAMES: tuple[str, ...] = tuple(r.name for r in HANDLER_RULES) + (AUTOPARSER,)


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


def _caps_get(caps: Any, name: str) -> bool | None:
    if caps is None:
        return None
    if isinstance(caps, dict):
        return caps.get(name)
    return getattr(caps, name, None)


def message_workarounds(source: str, handler: str, caps: Any = None) -> tuple[WorkaroundReport, ...]:
    """The message-level workarounds of ``common_chat_templates_apply_jinja``, in its order.

    ``source`` is the patched source; ``caps`` anything with the nine capability fields
    (a ``Caps`` or the oracle's dict), or None.
    """
    sysrole = _caps_get(caps, "supports_system_role")
    toolcalls = _caps_get(caps, "supports_tool_calls")
    objargs = _caps_get(caps, "supports_object_arguments")
    stepfun = STEPFUN_MARKER in source
    gpt_oss = GPT_OSS_MARKER in source
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
        WorkaroundReport(
            "convert_tool_responses_gemma4",
            handler == "gemma4(outdated-template-workarounds)",
            f"Gemma 4 template without {GEMMA4_CURRENT_MARKER!r}"
            if handler == "gemma4(outdated-template-workarounds)"
            else "only for outdated Gemma 4 templates",
        ),
    )


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

    def to_json(self) -> dict[str, Any]:
        def ev(e: SubstringEvidence) -> dict[str, Any]:
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
    for rule in HANDLER_RULES:
        check = rule.check(patched_source)
        checks.append(check)
        if check.matched:
            return rule.name, tuple(checks)
    return AUTOPARSER, tuple(checks)


def _detected_caps(patched_source: str) -> Any:
    """explorer.caps on the patched text, or None when it cannot run (the routing
    itself never needs a template that compiles)."""
    from explorer.errors import ExplorerError

    try:
        from explorer.analysis import template_caps
        from explorer.render import compile_template

        return template_caps(compile_template(patched_source))
    except (ImportError, ExplorerError):
        return None


def route(template_text: str, caps: Any = None, *, detect: bool = False) -> Routing:
    """Where ``common_chat_templates_apply`` sends this template, with the evidence.

    ``caps`` decides the capability-dependent workarounds; without it they are reported
    as unknown, unless ``detect`` asks for explorer.caps to detect them. Routing itself
    needs only the text.
    """
    patched = patch_source(template_text)
    if caps is None and detect:
        caps = _detected_caps(patched)
    handler, checks = route_source(patched)
    winner = checks[-1] if checks and checks[-1].matched else None
    note = next((r.note for r in HANDLER_RULES if r.name == handler), "")
    return Routing(
        handler=handler,
        evidence=winner.evidence if winner else (),
        checks=checks,
        patches=patch_reports(template_text),
        workarounds=message_workarounds(patched, handler, caps),
        note=note,
    )
