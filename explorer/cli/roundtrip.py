"""``roundtrip TEMPLATE``: the round-trip self-test of a chat template.

Input: a TEMPLATE spec (path, ``hf:owner/repo``, ``example:NAME`` or ``-``) and the
thinking setting. Output: a table, one row per assistant message (did it survive render
-> cut -> parse, what differs, the grammar's verdicts), each followed by why; with
``--json`` the whole ``RoundTripReport``. A lossy template is a finding, not an error:
exit code 0; 1 when the template or the next-turn request fails.
"""

from __future__ import annotations

import argparse
import json

from explorer.cli.inputs import (
    THINKING_UNSET,
    add_override_argument,
    add_template_argument,
    parse_date,
    parse_thinking,
    session_from_args,
)
from explorer.render.jinja_compat import DIALECTS
from explorer.roundtrip import RoundTripCase, RoundTripReport, TransformersCall
from explorer.ui_support.roundtrip_view import dialect_headline, dialect_summary


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "roundtrip", help="render assistant messages, cut the reply out, parse it back",
        description="Round-trip self-test: render assistant messages with the template, cut the reply out "
                    "as llama.cpp's oracle harness does, parse it with the parser llama.cpp builds for the "
                    "next turn, compare, and check the reply against the request's grammar.")
    add_template_argument(p)
    add_override_argument(p)
    p.add_argument("--thinking", type=parse_thinking, default=True, metavar=f"true|false|{THINKING_UNSET}",
                   help="enable_thinking (default true). With --dialect transformers, unset calls "
                        "apply_chat_template without enable_thinking/thinking (llama.cpp's side then "
                        "renders with llama-server's default: whether the template supports thinking)")
    p.add_argument("--date", type=parse_date, default=None, metavar="YYYY-MM-DD[THH:MM[:SS]]",
                   help="--dialect transformers: fix the date strftime_now prints (default: the real clock)")
    p.add_argument("--dialect", choices=DIALECTS, default="llama.cpp",
                   help="the engine that renders the replies: llama.cpp's (default) or transformers' "
                        "(the text the model was trained on, set next to llama.cpp's per message); "
                        "the parser is llama.cpp's either way")
    p.add_argument("--no-grammar", action="store_true", help="skip the grammar verdicts")
    p.add_argument("--json", action="store_true", help="print the whole report as JSON")
    p.set_defaults(run=run)


def _grammar_cell(case: RoundTripCase, has_grammar: bool) -> str:
    if not has_grammar:
        return "no grammar"
    if not case.grammar:
        return "-"
    parts = []
    for v in case.grammar:
        word = "accepts" if v.accepted else "rejects"
        mark = "" if v.as_expected in (True, None) else " (WRONG)"
        if v.char_level_accepts is not None and v.char_level_accepts != v.accepted:
            mark = " (llguidance only: a character-level reading of the GBNF accepts it)"
        parts.append(f"{word} {'reply' if v.label == 'rendered' else v.label}{mark}")
    return "; ".join(parts)


def format_table(report: RoundTripReport) -> str:
    rows = [("message", "equal", "trimmed", "what differs", "grammar")]
    for c in report.cases:
        if c.render_exception is not None:
            rows.append((c.message_id, "-", "-", "render threw", "-"))
            continue
        rows.append((c.message_id, "yes" if c.equal else "no", "yes" if c.equal_trimmed else "no",
                     ", ".join(c.diff or ()) or "-", _grammar_cell(c, report.has_grammar)))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = [f"handler {report.handler}, format {report.format}, thinking {str(report.enable_thinking).lower()}, "
             f"generation prompt {report.generation_prompt!r}, grammar "
             + ("none" if not report.has_grammar else "lazy" if report.grammar_lazy else "eager"),
             f"{report.equal_count}/{len(report.cases)} messages round-trip exactly", ""]
    for row in rows:
        lines.append("  ".join(cell.ljust(widths[i]) if i < 4 else cell for i, cell in enumerate(row)).rstrip())
    lines.append("")
    for c in report.cases:
        lines.append(f"{c.message_id}: " + "; ".join(c.explanation))
        if c.grammar_checker_disagrees:
            lines.append(f"  note: llguidance refuses the reply for {c.message_id} but a character-level reading of "
                         "the same GBNF (llama.cpp's engine has no lexer) accepts it")
        if c.grammar_rejects_own_output:
            lines.append(f"  !!! GRAMMAR REJECTS ITS OWN PARSER'S OUTPUT for {c.message_id}: "
                         + "; ".join(v.message for v in c.grammar if v.label == "rendered"))
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    session, _source = session_from_args(args)
    thinking = session.supports_enable_thinking if args.thinking is None else args.thinking
    trained_as = TransformersCall(thinking_passed=args.thinking is not None, date=args.date)
    report = session.roundtrip(thinking, grammar=not args.no_grammar, dialect=args.dialect, trained_as=trained_as)
    health = [f for f in session.health.findings if f.severity != "info"]
    if args.json:
        print(json.dumps(report.to_json() | {"health": [f.to_json() for f in health]}, ensure_ascii=False, indent=2))
    else:
        for f in health:
            print(f"[{f.severity}] template: {f.summary}")
        if health:
            print()
        print(format_table(report))
        if report.versus:
            print("\n" + format_versus(report))
    return 0


def format_versus(report: RoundTripReport) -> str:
    """The transformers round trip set next to llama.cpp's: a summary, then one line per message."""
    lines = ["trained (transformers) vs llama.cpp:", dialect_summary(report)]
    lines += [f"note: {n}" for n in report.dialect_notes]
    lines += [dialect_headline(v) for v in report.versus]
    return "\n".join(lines)
