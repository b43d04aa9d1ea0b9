"""``render TEMPLATE --messages FILE``: print a template's rendering of a conversation.

Input: a TEMPLATE spec, a JSON messages file (a list of messages, or an object with
``messages`` and optionally ``tools`` and ``documents``, e.g. an oracle ``inputs``
object), optional tools, documents, thinking, date and generation-prompt switches.
Output: the rendered text, exactly, on stdout.

``--dialect llama.cpp`` (default) is the direct render (llama.cpp's
``common_chat_template_direct_apply``), with the ``datetime``/``date_string`` variables
llama.cpp's chat layer adds and enable_thinking always passed (true unless
``--thinking false``); message workarounds of the full apply path are not applied here.
``--dialect transformers`` is ``apply_chat_template(..., tokenize=False)`` of the
transformers release ``explorer.render`` follows: enable_thinking passed only when
``--thinking`` says true or false, the real clock unless ``--date`` fixes it.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from explorer.cli.inputs import (
    THINKING_UNSET,
    add_template_argument,
    documents_of,
    kwargs_object,
    load_template_text,
    messages_and_tools,
    parse_date,
    parse_thinking,
    read_json,
    read_tools,
)
from explorer.errors import RequestError
from explorer.render import (
    TRANSFORMERS_RELEASE,
    RenderInputs,
    RenderLimits,
    chat_extra_context,
    compile_template,
    default_clock,
    render,
)


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "render", help="render a conversation with a template",
        description="Render messages (and tools) with a chat template, as llama.cpp does, or as Hugging Face "
                    f"transformers {TRANSFORMERS_RELEASE}'s apply_chat_template(tokenize=False) does "
                    "(--dialect transformers).")
    add_template_argument(p)
    p.add_argument("--messages", metavar="FILE", required=True,
                   help="JSON list of messages, or an object with 'messages' (and 'tools', 'documents')")
    p.add_argument("--tools", metavar="FILE", help="JSON list of tools (OpenAI format)")
    p.add_argument("--documents", metavar="FILE",
                   help="JSON list of documents (transformers' documents argument; transformers dialect only)")
    p.add_argument("--thinking", type=parse_thinking, default=None, metavar=f"true|false|{THINKING_UNSET}",
                   help="enable_thinking. llama.cpp always passes it (default true). transformers passes it "
                        f"only when given: without --thinking (or with --thinking {THINKING_UNSET}) the "
                        "template sees it undefined, as apply_chat_template without enable_thinking=")
    p.add_argument("--date", type=parse_date, default=None, metavar="YYYY-MM-DD[THH:MM[:SS]]",
                   help="fix the clock strftime_now reads (and llama.cpp's datetime/date_string), for a "
                        "reproducible render; default: the real clock (transformers), llama.cpp's recorded "
                        "run date 2026-11-29 (llama.cpp, as in the oracle)")
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
    data = read_json(args.messages, "messages")
    messages, tools = messages_and_tools(data, args.messages)
    documents = documents_of(data, args.messages)
    if args.tools:
        tools = read_tools(args.tools)
    if args.documents:
        documents = documents_of({"documents": read_json(args.documents, "documents")}, args.documents)
    llama = args.dialect == "llama.cpp"
    if llama and documents is not None:
        raise RequestError("documents are transformers' argument: llama.cpp never passes them to a template "
                           "(use --dialect transformers, or --kwargs '{\"documents\": [...]}')")
    clock = (lambda: args.date) if args.date is not None else default_clock(args.dialect)
    extra: dict[str, Any] = chat_extra_context(clock) if llama else {}
    if args.kwargs:
        extra.update(kwargs_object(args.kwargs))
    bos = args.bos_token if args.bos_token is not None else (getattr(source, "bos_token", None) or "")
    eos = args.eos_token if args.eos_token is not None else (getattr(source, "eos_token", None) or "")
    inputs = RenderInputs(
        messages=messages, tools=tools, documents=documents, add_generation_prompt=args.add_generation_prompt,
        enable_thinking=args.thinking, bos_token=bos, eos_token=eos, extra_context=extra,
    )
    out = render(compile_template(text, args.dialect), inputs, limits=RenderLimits(wall_seconds=args.timeout),
                 clock=clock)
    sys.stdout.write(out)
    sys.stdout.flush()
    return 0
