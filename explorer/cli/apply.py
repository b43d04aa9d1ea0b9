"""``apply TEMPLATE``: the whole of llama.cpp's ``common_chat_templates_apply`` from the CLI.

Input: a TEMPLATE spec and request switches (messages, tools, thinking, tool_choice,
parallel calls, reasoning format, JSON schema, template kwargs). Output: the chat params
as JSON on stdout (the oracle's ``apply`` keys plus ``handler`` and ``why``), or one
field of them as raw text with ``--field``.

``add_parser``/``run`` follow the explorer.cli command contract; ``template_parser_settings``
is what ``parse TEMPLATE`` uses to build its parser (the whole pipeline).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from explorer.cli.inputs import (
    add_template_argument, kwargs_object, messages_and_tools, read_json, read_tools, template_text,
)

FIELDS = ("format", "generation_prompt", "prompt", "grammar", "grammar_lazy", "grammar_triggers",
          "preserved_tokens", "additional_stops", "supports_thinking", "thinking_start_tag", "thinking_end_tags",
          "message_delimiters", "parser", "handler", "why")


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "apply", help="route, render and build the parser and grammar for a request",
        description="Apply a chat request to a template exactly as llama.cpp's common_chat_templates_apply "
                    "does: routing, prompt, generation prompt, PEG parser, GBNF grammar and triggers.")
    add_template_argument(p)
    add_request_arguments(p)
    p.add_argument("--field", choices=FIELDS, help="print only this field (strings raw, others as JSON)")
    p.set_defaults(run=run)


def add_request_arguments(p: argparse.ArgumentParser, *, reasoning_format: bool = True) -> None:
    """The request switches (``parse`` already has its own ``--reasoning-format``)."""
    p.add_argument("--messages", metavar="FILE",
                   help="JSON list of messages, or an object with 'messages' (and 'tools'); "
                        'default [{"role": "user", "content": "Hello"}]')
    p.add_argument("--tools", metavar="FILE", help="JSON list of tools (OpenAI format)")
    p.add_argument("--thinking", choices=("true", "false"), default=None,
                   help="enable_thinking (default: whether the template supports it, as llama-server)")
    p.add_argument("--tool-choice", choices=("auto", "required", "none"), default="auto")
    p.add_argument("--parallel-tool-calls", choices=("true", "false"), default=None,
                   help="default: the template's supports_parallel_tool_calls, as llama-server")
    if reasoning_format:
        p.add_argument("--reasoning-format", choices=("deepseek", "none", "auto", "deepseek-legacy"),
                       default="deepseek")
    p.add_argument("--json-schema", metavar="FILE", help="response format: a JSON schema file")
    p.add_argument("--kwargs", metavar="JSON", default=None, help="chat_template_kwargs as a JSON object")
    p.add_argument("--skip-chat-parsing", action="store_true",
                   help="as llama-server's --skip-chat-parsing (force_pure_content): all output is content")


def _messages_and_tools(args: argparse.Namespace) -> tuple[list[Any], list[Any] | None]:
    messages: list[Any] = [{"role": "user", "content": "Hello"}]
    tools = None
    if getattr(args, "messages", None):
        messages, tools = messages_and_tools(read_json(args.messages, "messages"), args.messages)
    if getattr(args, "tools", None):
        tools = read_tools(args.tools)
    return messages, tools


def request_from_args(text: str, args: argparse.Namespace) -> Any:
    """The request llama-server would send for these switches (its defaults otherwise)."""
    from explorer.apply import Request, supports_enable_thinking

    messages, tools = _messages_and_tools(args)
    kwargs = kwargs_object(args.kwargs) if getattr(args, "kwargs", None) else {}
    thinking = getattr(args, "thinking", None)
    enable = bool(supports_enable_thinking(text)) if thinking is None else thinking == "true"
    parallel = getattr(args, "parallel_tool_calls", None)
    if parallel is None:
        from explorer.analysis import template_caps
        from explorer.render import compile_template
        from explorer.routing import patch_source

        parallel_on = template_caps(compile_template(patch_source(text))).supports_parallel_tool_calls
    else:
        parallel_on = parallel == "true"
    schema = read_json(args.json_schema, "JSON schema") if getattr(args, "json_schema", None) else None
    return Request(
        messages=tuple(messages), tools=tuple(tools) if tools is not None else None,
        tool_choice=getattr(args, "tool_choice", "auto"), parallel_tool_calls=parallel_on,
        enable_thinking=enable, reasoning_format=getattr(args, "reasoning_format", "deepseek"),
        chat_template_kwargs=kwargs, json_schema=schema,
        force_pure_content=bool(getattr(args, "skip_chat_parsing", False)),
    )


def run(args: argparse.Namespace) -> int:
    from explorer.handlers.pipeline import apply_template

    text = template_text(args.template)
    params = apply_template(text, request_from_args(text, args))
    out = params.to_oracle_json() | {"handler": params.handler, "why": params.why}
    if args.field:
        value = out[args.field]
        sys.stdout.write(value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False) + "\n")
        return 0
    print(json.dumps(out, indent=2, ensure_ascii=False))
    return 0


def template_parser_settings(args: argparse.Namespace) -> Any:
    """``parse TEMPLATE``: the parser, generation prompt and format of the request the
    switches describe (llama-server's defaults for those ``parse`` does not have)."""
    from explorer.cli.parse import ParserSettings
    from explorer.handlers.pipeline import apply_template
    from explorer.peg.arena import load_arena

    text = template_text(args.template)
    params = apply_template(text, request_from_args(text, args))
    return ParserSettings(load_arena(params.parser), params.generation_prompt, params.format)
