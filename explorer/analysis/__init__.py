"""The differential analysis of a chat template, as llama.cpp's autoparser runs it.

Input: a ``CompiledTemplate`` (and optionally its capabilities). Output: a frozen
``TemplateAnalysis``: reasoning, content and tool-call formats with every marker,
the turn openers, preserved tokens and stops, each field's provenance, and the trace
of every probe (``.probes``). ``.to_oracle_json()`` is the oracle's ``autoparser``.

Order, as in ``autoparser::analyze_template``: reasoning (R1-R3), content (C1), tools
(T1-T7, A1, A2; only when the template supports tool calls), assistant and user
openers, preserved tokens, then the workarounds keyed on template text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from explorer.analysis.content import analyze_content
from explorer.analysis.draft import Draft
from explorer.analysis.model import (
    CallIdPosition,
    ContentMode,
    Provenance,
    ReasoningMode,
    TemplateAnalysis,
    ToolFormat,
)
from explorer.analysis.reasoning import analyze_reasoning
from explorer.analysis.roles import collect_preserved_tokens, detect_assistant_start, detect_user_start
from explorer.analysis.session import ANALYSIS_RENDER_BUDGET_SECONDS, ProbeSession
from explorer.analysis.tools import analyze_tools
from explorer.analysis.workarounds import WORKAROUNDS, Workaround, apply_workarounds
from explorer.caps import Caps
from explorer.errors import AnalysisError
from explorer.memo import Memo
from explorer.render import CompiledTemplate

__all__ = [
    "CallIdPosition",
    "ContentMode",
    "Provenance",
    "ReasoningMode",
    "TemplateAnalysis",
    "ToolFormat",
    "WORKAROUNDS",
    "Workaround",
    "analyze_template",
    "template_analysis",
    "template_caps",
]

_CAPS: Memo[tuple[Caps, bool]] = Memo()
_ANALYSES: Memo[TemplateAnalysis] = Memo()


def template_caps(tmpl: CompiledTemplate) -> Caps:
    """The template's jinja capabilities (``explorer.caps.detect_caps``), remembered per
    template text and dialect (for a minute only when the render budget cut the
    detection short: see ``explorer.memo``)."""
    from explorer.caps import detect_caps_trace

    def detect() -> tuple[Caps, bool]:
        caps, trace = detect_caps_trace(tmpl)
        return Caps.coerce(caps), any(p.timed_out for p in trace)

    return _CAPS.get((tmpl.sha256, tmpl.dialect), detect, provisional=lambda made: made[1])[0]


def template_analysis(tmpl: CompiledTemplate, caps: Caps | Mapping[str, bool] | None = None) -> TemplateAnalysis:
    """``analyze_template`` without the probe trace, remembered per template text, dialect
    and capabilities (the route, the request defaults and the parser all need it; for a
    minute only when the render budget cut it short). Raises what ``analyze_template`` raises."""
    jinja_caps = template_caps(tmpl) if caps is None else Caps.coerce(caps)
    key = (tmpl.sha256, tmpl.dialect, json.dumps(jinja_caps.to_json(), sort_keys=True))
    return _ANALYSES.get(key, lambda: analyze_template(tmpl, jinja_caps, trace=False),
                         provisional=lambda made: made.cut_short)


def analyze_template(tmpl: CompiledTemplate, caps: Caps | Mapping[str, bool] | None = None, *, trace: bool = True,
                     budget_seconds: float = ANALYSIS_RENDER_BUDGET_SECONDS, bos_token: str = "",
                     eos_token: str = "") -> TemplateAnalysis:
    """Run the full differential analysis.

    ``caps``: the nine capability flags (``Caps`` or a dict);
    detected from the template when omitted. ``trace``: keep each probe's diff steps.
    ``budget_seconds``: total render time allowed; probes past it fail (recorded).
    ``bos_token`` / ``eos_token``: the model's tokens (llama.cpp passes the vocabulary's;
    the oracle, with no model loaded, passes "").
    """
    jinja_caps = template_caps(tmpl) if caps is None else Caps.coerce(caps)
    session = ProbeSession(tmpl, jinja_caps, trace=trace, budget_seconds=budget_seconds,
                           bos_token=bos_token, eos_token=eos_token)
    d = Draft(session)
    try:
        analyze_reasoning(d, jinja_caps.supports_tool_calls)
        analyze_content(d)
        if jinja_caps.supports_tool_calls:
            analyze_tools(d, jinja_caps)
        detect_assistant_start(d)
        detect_user_start(d)
    except AnalysisError as exc:
        # llama.cpp throws out of analyze_template here; keep the trace up to the throw.
        exc.probes = session.probes()
        raise
    collect_preserved_tokens(d)
    d.decode()
    apply_workarounds(tmpl.source, d)
    return d.freeze(jinja_caps, complete=True)
