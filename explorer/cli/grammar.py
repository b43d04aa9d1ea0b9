"""``grammar TEMPLATE``: the parser and GBNF grammar llama.cpp's autoparser generates.

Input: a TEMPLATE spec (path, ``hf:owner/repo``, ``example:NAME`` or ``-``), optional
tools (a JSON file: an array of OpenAI tools, or an object with ``tools``), the thinking
setting and request options. Output: the GBNF grammar as text, or with ``--json`` one
object with the oracle's apply keys (generation_prompt, grammar, grammar_lazy,
grammar_triggers, preserved_tokens, parser, additional_stops). ``--check FILE`` runs model
outputs through the grammar (llguidance) instead: one verdict per file, exit code 2 when
any is rejected. The parser is the one llama.cpp builds on the template's route: the
autoparser's, or a specialized handler's.

"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path
from typing import Any

from explorer.apply import GET_WEATHER_TOOL
from explorer.cli.inputs import add_override_argument, add_template_argument, parse_bool, read_json, session_from_args
from explorer.errors import GrammarError, SourceError
from explorer.grammar.check import check_grammar
from explorer.session import TemplateSession
from explorer.vocabulary import REASONING_FORMATS, TOOL_CHOICES


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "grammar", help="the generated PEG parser and GBNF grammar",
        description="Generate the parser and GBNF grammar llama.cpp builds for a request (autoparser or "
                    "specialized handler, as llama.cpp routes the template), or check outputs against it.")
    add_template_argument(p)
    add_override_argument(p)
    p.add_argument("--tools", metavar="FILE",
                   help="JSON tools (array, or object with 'tools'); default: the oracle's get_weather tool")
    p.add_argument("--no-tools", action="store_true", help="a request without tools")
    p.add_argument("--thinking", type=parse_bool, default=True, metavar="true|false",
                   help="enable_thinking (default true)")
    p.add_argument("--tool-choice", choices=TOOL_CHOICES, default="auto")
    p.add_argument("--parallel-tool-calls", type=parse_bool, default=True, metavar="true|false")
    p.add_argument("--reasoning-format", choices=REASONING_FORMATS, default="deepseek")
    p.add_argument("--json-schema", metavar="FILE", help="response_format JSON schema file")
    p.add_argument("--json", action="store_true", help="print the oracle's apply keys as one JSON object")
    p.add_argument("--check", metavar="FILE", action="append", default=[],
                   help="check a model output (the file's whole text) against the grammar with llguidance; "
                        "repeatable")
    p.set_defaults(run=run)


def load_tools(args: argparse.Namespace) -> list[dict[str, Any]] | None:
    if args.no_tools:
        return None
    if not args.tools:
        return [copy.deepcopy(GET_WEATHER_TOOL)]  # the oracle's tool
    data = read_json(args.tools, "tools")
    if isinstance(data, dict) and "tools" in data:
        data = data["tools"]
    if not isinstance(data, list) or not all(isinstance(t, dict) for t in data):
        raise SourceError(f"tools file {args.tools} must hold an array of tool objects (or {{'tools': [...]}})")
    return data


# the oracle's apply keys the command prints, in its order
APPLY_KEYS = ("generation_prompt", "grammar", "grammar_lazy", "grammar_triggers", "preserved_tokens", "parser",
              "additional_stops", "supports_thinking", "thinking_start_tag", "thinking_end_tags")


def generate_for_template(session: TemplateSession, args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    """Route, analyse, apply and generate (one user message); returns the apply keys and
    the routed handler."""
    json_schema = read_json(args.json_schema, "JSON schema") if args.json_schema else None
    params = session.params(session.request(
        tools=load_tools(args), tool_choice=args.tool_choice, parallel_tool_calls=args.parallel_tool_calls,
        enable_thinking=args.thinking, reasoning_format=args.reasoning_format, json_schema=json_schema))
    out = params.to_oracle_json()
    return {k: out[k] for k in APPLY_KEYS}, params.handler


def _check(out: dict[str, Any], files: list[str]) -> list[dict[str, Any]]:
    if not out["grammar"]:
        raise GrammarError("--check needs a grammar, and this request has none")
    texts = []
    for path in files:
        try:
            texts.append(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise SourceError(f"cannot read the text file {path}: {exc.strerror}") from None
    triggers = out["grammar_triggers"] if out["grammar_lazy"] else None
    # an eager grammar starts from the generation prompt, which llama.cpp feeds it first
    thinking = (out["thinking_start_tag"], out["thinking_end_tags"]) if out["supports_thinking"] else None
    verdicts = check_grammar(out["grammar"], texts, triggers=triggers, prefill=out["generation_prompt"],
                             thinking=thinking)
    return [dict(v.to_json(), file=path) for path, v in zip(files, verdicts)]


def run(args: argparse.Namespace) -> int:
    out, handler = generate_for_template(session_from_args(args)[0], args)
    if handler != "autoparser":
        print(f"note: llama.cpp routes this template to its specialized '{handler}' handler", file=sys.stderr)
    checks = _check(out, args.check) if args.check else None
    if args.json:
        if checks is not None:
            out = dict(out, check=checks)
        print(json.dumps(out, indent=2, ensure_ascii=False))
    elif checks is not None:
        for verdict in checks:
            state = "accepted" if verdict["accepted"] else f"rejected: {verdict['message']}"
            print(f"{verdict['file']}: {state}")
    elif out["grammar"]:
        sys.stdout.write(out["grammar"])
    else:
        print("no grammar: llama.cpp builds one only for tools with a trigger marker, tool_choice "
              "required, or a JSON schema", file=sys.stderr)
    if checks is not None and not all(v["accepted"] for v in checks):
        return 2
    return 0
