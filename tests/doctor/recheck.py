"""Every offered fix checked again, independently of the code that produced it.

Input: the original template text and a ``Fix``. Output: ``recheck(text, fix)``: the
problems found (empty: the fix holds), by rules written here and not imported from
``explorer.doctor.acceptance``: fresh sessions (the cache forgotten), a conversation of our
own (system, user, assistant turns with content, with reasoning, with a call, a tool
result and the answer after it), llama.cpp's dialect through the apply path and the
transformers dialect through real transformers' ``render_jinja_template``, each turn read
as what appending it adds to the rendering (a turn whose neighbour is a turn the fix names
is left out, the boundary being both turns'), the analysis as llama.cpp's oracle JSON, the
health, the grammar verdicts and the round trip run again, and the summary's claim
tested on the renderings.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from typing import Any

from explorer.analysis.model import FIELD_NAMES
from explorer.apply import Request, apply_request, thinking_kwargs
from explorer.apply.templates import falls_back, init_templates
from explorer.doctor.model import Fix
from explorer.errors import ExplorerError
from explorer.roundtrip import RequestChange
from explorer.roundtrip.cases import GET_WEATHER
from explorer.session import TemplateSession, forget_sessions, open_session

CALL = {"id": "call_7", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Quito"}}}
# (label, message): the labels are explorer.doctor.turns' variant names, so a fix's ``turns`` can be read
CONVERSATION: tuple[tuple[str, dict[str, Any]], ...] = (
    ("system", {"role": "system", "content": "Be brief, QsysA"}),
    ("user", {"role": "user", "content": "Question QusrB"}),
    ("assistant", {"role": "assistant", "content": "Answer QastC"}),
    ("user", {"role": "user", "content": "Question QusrD"}),
    ("assistant+reasoning", {"role": "assistant", "reasoning_content": "Thought QrsnE", "content": "Answer QastF"}),
    ("user", {"role": "user", "content": "Question QusrG"}),
    ("assistant+calls", {"role": "assistant", "content": "", "tool_calls": [CALL]}),
    ("tool", {"role": "tool", "tool_call_id": "call_7", "content": "Result QtolH"}),
    ("assistant-after-tool", {"role": "assistant", "content": "Answer QastI"}),
)
DESIGN_CLASSES = {"reasoning-dropped", "content-dropped", "thinking-opened", "thinking-closed"}

Render = Callable[[tuple[dict[str, Any], ...], bool], "str | None"]


def _llama(text: str, thinking: bool, change: RequestChange | None) -> Render:
    templates = init_templates(text)

    def render(messages: tuple[dict[str, Any], ...], generation: bool) -> str | None:
        request = Request(messages=copy.deepcopy(messages), tools=(GET_WEATHER,), enable_thinking=thinking,
                          chat_template_kwargs=thinking_kwargs(thinking), add_generation_prompt=generation)
        try:
            return apply_request(templates, change.apply(request) if change else request).prompt
        except ExplorerError:
            return None
    return render


def _transformers(text: str, thinking: bool, change: RequestChange | None) -> Render:
    from transformers.utils.chat_template_utils import render_jinja_template

    def render(messages: tuple[dict[str, Any], ...], generation: bool) -> str | None:
        if falls_back(text):
            return None
        base = Request(messages=messages, tools=(GET_WEATHER,), enable_thinking=thinking,
                       chat_template_kwargs=thinking_kwargs(thinking))
        request = change.apply(base) if change else base
        try:
            out, _ = render_jinja_template(conversations=[copy.deepcopy(list(messages))],
                                           tools=[copy.deepcopy(GET_WEATHER)], chat_template=text,
                                           add_generation_prompt=generation, **dict(request.chat_template_kwargs))
        except Exception:  # noqa: BLE001 - any jinja2 or template error is "does not render"
            return None
        return out[0] if isinstance(out, list) else str(out)
    return render


def _common(a: str, b: str) -> int:
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    return i


def _increments(render: Render) -> list[str | None]:
    """What appending each message adds to the rendering (None: it does not render)."""
    messages = tuple(m for _, m in CONVERSATION)
    out: list[str | None] = []
    before: str | None = ""
    for k in range(1, len(messages) + 1):
        now = render(messages[:k], False)
        out.append(None if now is None or before is None else now[_common(before, now):])
        before = now
    return out


def _renders(text: str, change: RequestChange | None) -> dict[tuple[str, bool], list[str | None]]:
    return {(name, thinking): _increments(make(text, thinking, change))
            for name, make in (("llama.cpp", _llama), ("transformers", _transformers)) for thinking in (False, True)}


def _flat(data: object, prefix: str = "") -> dict[str, object]:
    if isinstance(data, Mapping):
        out: dict[str, object] = {}
        for k, v in data.items():
            out |= _flat(v, f"{prefix}.{k}" if prefix else str(k))
        return out
    return {prefix: data}


def _analysis(session: TemplateSession) -> dict[str, object] | None:
    try:
        return _flat(session.analysis.to_oracle_json())
    except ExplorerError:
        return None


def _grammar(session: TemplateSession, thinking: bool, change: RequestChange | None) -> set[tuple[str, str]]:
    try:
        report = session.roundtrip(thinking, grammar=True, change=change)
    except ExplorerError:
        return set()
    return {(c.message_id, v.label) for c in report.cases for v in c.grammar if v.as_expected is False}


def _back(session: TemplateSession, change: RequestChange | None) -> list[str]:
    out = []
    for thinking in (False, True):
        try:
            cases = session.roundtrip(thinking, grammar=False, change=change).cases
        except ExplorerError:
            continue  # the round trip itself fails: nothing comes back
        for case in cases:
            if case.equal_trimmed:
                out.append(f"{case.message_id}/{str(thinking).lower()}")
    return out


def _design_problem(original: TemplateSession, fix: Fix) -> str:
    """A fix for a loss the template makes on purpose, read off our own conversation."""
    keys = set(fix.classes) & DESIGN_CLASSES
    if not keys:
        return ""
    renders = _renders(original.text, None)
    llama = renders[("llama.cpp", False)] + renders[("llama.cpp", True)]
    shown = "".join(t for t in llama if t)
    if "reasoning-dropped" in keys and "QrsnE" not in shown:
        return "it fixes reasoning the template never writes (a design choice)"
    if "content-dropped" in keys and "QastC" in shown:
        return "it fixes content beside calls that the template leaves out on purpose (it writes content alone)"
    if keys & {"thinking-opened", "thinking-closed"}:
        return "it changes the thinking block the generation prompt opens or closes on purpose"
    return ""


def _claim_problem(fix: Fix, target: TemplateSession, original_text: str) -> str:
    claim = fix.claim
    if claim is None:
        return "the fix records no claim"
    if claim.kind == "fields":
        for s in fix.overrides:
            held = _flat(target.analysis.to_oracle_json())
            key = s.field
            value = s.to_json()["value"]
            if held.get(key) != value:
                return f"the summary sets {key} to {value!r}, the analysis holds {held.get(key)!r}"
        return ""
    if claim.kind == "stop":
        for thinking in (False, True):
            request = target.request(tools=[GET_WEATHER], enable_thinking=thinking,
                                     chat_template_kwargs=thinking_kwargs(thinking))
            if claim.text not in target.params(request).additional_stops:
                return f"{claim.text!r} is no additional stop"
        return ""
    if claim.kind == "request":
        assert fix.request_change is not None
        body = fix.request_change.to_json()
        kwargs = body.get("chat_template_kwargs")
        names = [k for k in body if k != "chat_template_kwargs"] + list(kwargs if isinstance(kwargs, dict) else ())
        return ", ".join(n for n in names if n not in fix.summary)
    if claim.kind == "runs":
        return ""
    whole = _llama(fix.patched_template or original_text, False, None)(tuple(m for _, m in CONVERSATION), False) or ""
    if claim.kind == "literal":
        return f"llama.cpp still writes {claim.text!r}" if claim.text in whole else ""
    if claim.kind == "closes":
        after = whole[whole.find("Quito"):]
        return "" if claim.text in after[:after.find("QtolH")] else f"the call turn is not closed with {claim.text!r}"
    if claim.kind == "renders":
        wanted = {"reasoning_content": "QrsnE", "content": "QastC"}.get(claim.text, "")
        return "" if wanted in whole else f"a turn does not render its {claim.text}"
    return f"unknown claim {claim.kind}"


def recheck(text: str, fix: Fix) -> list[str]:
    """The problems of ``fix`` on the template ``text`` (see the module docstring)."""
    forget_sessions()
    original = open_session(text)
    change = fix.request_change if fix.kind == "request-change" else None
    target = open_session(fix.patched_template) if fix.patched_template else original
    if fix.overrides:
        target = target.with_overrides(fix.overrides)
    problems: list[str] = []
    before, after = _back(original, None), _back(target, change)
    if sorted(after) != sorted(fix.roundtrip_after.equal_ids):
        problems.append(f"the round trip gives back {sorted(after)}, the fix says {sorted(fix.roundtrip_after.equal_ids)}")
    if not set(before) <= set(after) or len(after) <= len(before):
        problems.append(f"the round trip is not better: {len(before)} -> {len(after)}, lost {set(before) - set(after)}")
    if fix.patched_template or change is not None:
        old = _renders(text, None)
        new = _renders(fix.patched_template or text, change)
        named = set(fix.turns)
        for key, turns in old.items():
            for k, (label, _) in enumerate(CONVERSATION):
                a, b = turns[k], new[key][k]
                if a is not None and b is None:
                    problems.append(f"{key}: the fixed template no longer renders up to message {k + 1}")
                elif a is not None and a != b and label not in named and (k == 0 or CONVERSATION[k - 1][0] not in
                                                                         named) and "preamble" not in named:
                    problems.append(f"{key}: the {label} turn {k + 1} changed: {a[:60]!r} -> {(b or '')[:60]!r}")
    if target is not original:
        a0, b0 = _analysis(original), _analysis(target)
        if a0 is not None and b0 is not None:
            allowed = set(fix.fields) | {"preserved_tokens"}
            rereads = set(FIELD_NAMES) <= allowed  # a fix that has llama.cpp read the template afresh
            stray = [k for k in set(a0) | set(b0) if a0.get(k) != b0.get(k) and k not in allowed
                     and not (rereads and k.startswith(("jinja_caps.", "analysis_complete")))]
            if stray:
                problems.append(f"the analysis changes in {sorted(stray)}, which the fix does not name")
        if not original.render_budget_exhausted:
            old_health = {(f.check, f.field) for f in original.health.findings if f.severity != "info"}
            new_health = {(f.check, f.field) for f in target.health.findings if f.severity != "info"}
            if new_health - old_health:
                problems.append(f"new health findings: {sorted(new_health - old_health)}")
    default = original.supports_enable_thinking
    worse = _grammar(target, default, change) - _grammar(original, default, None)
    if worse:
        problems.append(f"the grammar is worse on {sorted(worse)}")
    design = _design_problem(original, fix)
    if design:
        problems.append(design)
    claim = _claim_problem(fix, target, text)
    if claim:
        problems.append("the summary does not hold: " + claim)
    json.dumps(fix.to_json())
    return problems


__all__ = ["CONVERSATION", "recheck"]
