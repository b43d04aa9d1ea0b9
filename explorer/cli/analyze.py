"""``analyze TEMPLATE``: llama.cpp's differential analysis of a template.

Input: a TEMPLATE spec (path, ``hf:owner/repo``, ``example:NAME`` or ``-``). Output, by
default, a readable report (``explorer.ui_support.analysis_view.analysis_text``: the
route and why, the modes with their glossary line, every marker with the probe and the
template line that wrote it, the generation prompts). With ``--json``, one JSON object
with the oracle's schema -- ``caps``, ``routed``, ``autoparser`` (every field, same names
and enum spellings), ``generation_prompt`` (thinking false/true) -- plus ``health``
(whether llama.cpp's reading of the template is broken, first: see
``explorer.triage.health``), ``provenance`` (where each field came from), ``workarounds``
and ``failures``; ``--trace`` adds ``probes`` (every probe's inputs, outputs and diff).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from explorer.apply import standard_request
from explorer.apply.prompt import AppliedPrompt
from explorer.cli import inputs
from explorer.errors import AnalysisError, ExplorerError
from explorer.session import TemplateSession
from explorer.ui_support.analysis_view import analysis_text


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "analyze", help="the autoparser's differential analysis, with every probe",
        description="Run llama.cpp's differential template analysis and print it as JSON.")
    inputs.add_template_argument(p)
    inputs.add_override_argument(p)
    p.add_argument("--json", action="store_true", help="the oracle's JSON schema instead of the readable report")
    p.add_argument("--trace", action="store_true", help="with the probe trace (every probe's inputs, outputs and "
                   "diff); implies --json")
    p.add_argument("--no-trace", action="store_true", help=argparse.SUPPRESS)  # the default now; kept for scripts
    p.add_argument("--compact", action="store_true", help="the JSON on one line; implies --json")
    p.set_defaults(run=run)


def analysis_report(session: TemplateSession, *, trace: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {"caps": session.caps.to_json(),
                           "routed": {"handler": session.handler, "specialized": session.routing.specialized}}
    try:
        analysis = session.analysis
    except AnalysisError as exc:  # the reference throws too: the oracle's null + exception
        out["health"] = session.health.to_json()
        out["autoparser"] = None
        out["autoparser_exception"] = str(exc)
        if trace:
            out["probes"] = [p.to_json() for p in exc.probes]
        return out
    out["health"] = session.health.to_json()
    out["autoparser"] = analysis.to_oracle_json()
    applied, errors = _generation_prompts(session)
    out["generation_prompt"] = {key: a.generation_prompt if a else None for key, a in applied.items()}
    if errors:
        out["generation_prompt_exception"] = errors
    out["provenance"] = analysis.provenance_json()
    out["workarounds"] = list(analysis.workarounds_applied)
    out["failures"] = [f.to_json() for f in analysis.failures]
    if trace:
        out["probes"] = [p.to_json() for p in analysis.probes]
        out["probes"] += [_generation_prompt_probe(key, a) for key, a in applied.items() if a]
    return out


def _generation_prompts(session: TemplateSession) -> tuple[dict[str, AppliedPrompt | None], dict[str, str]]:
    """chat.cpp's apply path for the oracle's standard request; a throw is reported as
    the oracle reports it (per thinking setting), not as a failure of the analysis."""
    applied: dict[str, AppliedPrompt | None] = {}
    errors: dict[str, str] = {}
    for flag in (False, True):
        key = f"thinking_{str(flag).lower()}"
        try:
            applied[key] = session.applied(standard_request(flag))
        except ExplorerError as exc:
            applied[key] = None
            errors[key] = str(exc)
    return applied, errors


def _generation_prompt_probe(key: str, applied: AppliedPrompt) -> dict[str, Any]:
    """The generation-prompt comparison (add_generation_prompt false vs true) as a probe."""
    thinking = key == "thinking_true"
    without = applied.prompt_without_generation
    common = len(applied.prompt) - len(applied.generation_prompt)

    def side(agp: bool) -> dict[str, Any]:
        return {"messages": list(applied.rendered_messages), "tools": applied.tools,
                "add_generation_prompt": agp, "enable_thinking": thinking}

    return {
        "name": f"generation-prompt ({key.replace('_', '=')})",
        "purpose": "The standard request without and with add_generation_prompt: what the "
                   "template appends for the model's turn (chat.cpp, not the analysis)",
        "inputs_a": side(False),
        "inputs_b": side(True),
        "output_a": without,
        "output_b": applied.prompt,
        "diff": {"prefix": applied.prompt[:common], "suffix": "",
                 "left": (without or "")[common:], "right": applied.generation_prompt},
        "diff_naive": None,
        "diff_steps": [],
        "error": None,
        "fields_set": [{"field": f"generation_prompt.{key}", "value": applied.generation_prompt}],
        "notes": [f"{s.name}: {s.detail}" for s in applied.steps],
    }


def run(args: argparse.Namespace) -> int:
    session, _ = inputs.session_from_args(args)
    if not (args.json or args.trace or args.compact):
        print(analysis_text(session, args.template))
        return 0
    report = analysis_report(session, trace=args.trace and not args.no_trace)
    indent = None if args.compact else 2
    print(json.dumps(report, indent=indent, ensure_ascii=False))
    return 0
