"""``apply TEMPLATE``: the whole of llama.cpp's ``common_chat_templates_apply`` from the CLI.

Input: a TEMPLATE spec and request switches (messages, tools, thinking, tool_choice,
parallel calls, reasoning format, JSON schema, template kwargs). Output: the chat params
as JSON on stdout (the oracle's ``apply`` keys plus ``handler`` and ``why``), or one
field of them as raw text with ``--field``. ``--llama-cpp DRIVER``: the same request
through that real build too; whether it agrees (or the fields that differ) on stderr,
and under ``llama_cpp`` in the JSON.

``add_parser``/``run`` follow the explorer.cli command contract.
"""

from __future__ import annotations

import argparse
import json
import sys

from explorer.cli.inputs import (
    add_override_argument,
    add_request_arguments,
    add_template_argument,
    request_from_args,
    session_from_args,
)
from explorer.cli.llama_cpp_args import add_llama_cpp_argument, agreement_json, driver_from_args, tell
from explorer.llama_cpp.compare import compare_apply

FIELDS = ("format", "generation_prompt", "prompt", "grammar", "grammar_lazy", "grammar_triggers",
          "preserved_tokens", "additional_stops", "supports_thinking", "thinking_start_tag", "thinking_end_tags",
          "message_delimiters", "parser", "handler", "why")


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "apply", help="route, render and build the parser and grammar for a request",
        description="Apply a chat request to a template exactly as llama.cpp's common_chat_templates_apply "
                    "does: routing, prompt, generation prompt, PEG parser, GBNF grammar and triggers.")
    add_template_argument(p)
    add_override_argument(p)
    add_request_arguments(p)
    p.add_argument("--field", choices=FIELDS, help="print only this field (strings raw, others as JSON)")
    add_llama_cpp_argument(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    driver = driver_from_args(args)
    session, _source = session_from_args(args)
    request = request_from_args(session, args)
    params = session.params(request)
    out = params.to_oracle_json() | {"handler": params.handler, "why": params.why}
    if driver is not None:
        agreement = compare_apply(session, request, driver)
        tell(agreement)
        out["llama_cpp"] = agreement_json(agreement)
    if args.field:
        value = out[args.field]
        sys.stdout.write(value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False) + "\n")
        return 0
    print(json.dumps(out, indent=2, ensure_ascii=False))
    return 0
