"""``render TEMPLATE --messages FILE``: print a template's rendering of a conversation.

Input: a TEMPLATE spec, a JSON messages file (a list of messages, or an object with
``messages`` and optionally ``tools``, e.g. an oracle ``inputs`` object), optional tools,
thinking and generation-prompt switches. Output: the rendered text, exactly, on stdout.

This is the direct render (llama.cpp's ``common_chat_template_direct_apply``), with the
``datetime``/``date_string`` variables llama.cpp's chat layer adds; message workarounds
of the full apply path are not applied here.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from explorer.cli.inputs import (
    add_template_argument, kwargs_object, load_template_text, messages_and_tools, read_json, read_tools,
)
from explorer.render import RenderInputs, RenderLimits, chat_extra_context, compile_template, render


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "render", help="render a conversation with a template",
        description="Render messages (and tools) with a chat template, as llama.cpp does.")
    add_template_argument(p)
    p.add_argument("--messages", metavar="FILE", required=True,
                   help="JSON list of messages, or an object with 'messages' (and 'tools')")
    p.add_argument("--tools", metavar="FILE", help="JSON list of tools (OpenAI format)")
    p.add_argument("--thinking", choices=("true", "false"), default="true",
                   help="enable_thinking (default true)")
    p.add_argument("--add-generation-prompt", action="store_true")
    p.add_argument("--kwargs", metavar="JSON", default=None,
                   help="chat_template_kwargs as a JSON object (extra template variables)")
    p.add_argument("--dialect", choices=("llama.cpp", "transformers"), default="llama.cpp")
    p.add_argument("--bos-token", default=None, help="default: the source's BOS, else empty")
    p.add_argument("--eos-token", default=None, help="default: the source's EOS, else empty")
    p.add_argument("--timeout", type=float, default=RenderLimits().wall_seconds,
                   help="wall-time budget in seconds")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    text, source = load_template_text(args.template)
    messages, tools = messages_and_tools(read_json(args.messages, "messages"), args.messages)
    if args.tools:
        tools = read_tools(args.tools)
    extra: dict[str, Any] = chat_extra_context() if args.dialect == "llama.cpp" else {}
    if args.kwargs:
        extra.update(kwargs_object(args.kwargs))
    bos = args.bos_token if args.bos_token is not None else (getattr(source, "bos_token", None) or "")
    eos = args.eos_token if args.eos_token is not None else (getattr(source, "eos_token", None) or "")
    inputs = RenderInputs(
        messages=messages, tools=tools, add_generation_prompt=args.add_generation_prompt,
        enable_thinking=args.thinking == "true", bos_token=bos, eos_token=eos, extra_context=extra,
    )
    out = render(compile_template(text, args.dialect), inputs, limits=RenderLimits(wall_seconds=args.timeout))
    sys.stdout.write(out)
    sys.stdout.flush()
    return 0
