"""What a bug report needs to reproduce a case anywhere: the template as a CLI spec, the
request as llama-server's body, and the commands.

Input: the page's ``SourceRequest`` (how the template was chosen), its ``TemplateSource``,
the ``Request``, the raw output and its parse and triage, and the app's public address
when it has one. Output: ``TemplateSpec`` (``example:NAME`` and ``hf:owner/repo@rev#name``
reload anywhere; an upload or a paste travels as the attached ``template.jinja``),
``request_body`` (llama-server's JSON body fields of the request), ``reproduce_commands``
(``template-explorer parse`` and ``why`` for that template, output and request) and
``try_bug_report`` (the Try it page's Markdown, with the app's URL only when the app is
public: a ``localhost`` link means nothing in a public issue).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from explorer.apply import Request
from explorer.sources.model import TemplateSource
from explorer.ui_support.links import SourceRequest, bug_report_markdown, hf_spec

if TYPE_CHECKING:
    from explorer.doctor.model import Fix

PROGRAM = "template-explorer"
ATTACHED = "template.jinja"  # the name the report gives the attached template text
OUTPUT_FILE, TOOLS_FILE = "output.txt", "tools.json"


@dataclass(frozen=True)
class TemplateSpec:
    """The template as the CLI's TEMPLATE argument, and how the report names it."""

    spec: str  # example:NAME, hf:owner/repo[@rev][#name], or ATTACHED
    label: str  # in words, for the report's first line
    attached: bool  # the report's attached text is the only copy (an upload, a paste)


def template_spec(request: SourceRequest | None, source: TemplateSource) -> TemplateSpec:
    """How another person loads the same template."""
    if request is not None and request.kind == "example":
        return TemplateSpec(f"example:{request.name}", f"`example:{request.name}` (a Template Explorer built-in "
                                                         "example)", False)
    if request is not None and request.kind == "hub":
        spec = "hf:" + hf_spec(request.name, request.revision, request.variant or source.variant)
        return TemplateSpec(spec, f"`{spec}` (Hugging Face Hub)", False)
    variant = f", named template `{source.variant}`" if source.variant else ""
    if request is not None and request.kind == "upload":
        return TemplateSpec(ATTACHED, f"the uploaded file `{request.name}`{variant} (its template is attached "
                                      f"below; save it as {ATTACHED})", True)
    return TemplateSpec(ATTACHED, f"a pasted template (attached below; save it as {ATTACHED})", True)


def request_body(request: Request) -> dict[str, Any]:
    """The request's fields as llama-server's ``/v1/chat/completions`` body names them."""
    body: dict[str, Any] = {"messages": [dict(m) for m in request.messages]}
    if request.tools:
        body["tools"] = [dict(t) for t in request.tools]
    body["tool_choice"] = request.tool_choice
    body["parallel_tool_calls"] = request.parallel_tool_calls
    body["reasoning_format"] = request.reasoning_format
    kwargs = dict(request.chat_template_kwargs)
    kwargs.setdefault("enable_thinking", request.enable_thinking)
    body["chat_template_kwargs"] = kwargs
    return body


def request_switches(request: Request) -> list[str]:
    """The CLI switches that build the same request (the default user turn is the CLI's own)."""
    argv = []
    if request.tools:
        argv += ["--tools", TOOLS_FILE]
    argv += ["--thinking", "true" if request.enable_thinking else "false"]
    if request.tool_choice != "auto":
        argv += ["--tool-choice", request.tool_choice]
    argv += ["--parallel-tool-calls", "true" if request.parallel_tool_calls else "false"]
    if request.reasoning_format != "deepseek":
        argv += ["--reasoning-format", request.reasoning_format]
    if request.chat_template_kwargs:
        argv += ["--kwargs", json.dumps(dict(request.chat_template_kwargs), ensure_ascii=False, sort_keys=True)]
    if request.force_pure_content:
        argv.append("--skip-chat-parsing")
    return argv


def reproduce_commands(spec: TemplateSpec, request: Request, *, partial: bool = False) -> list[str]:
    """``parse`` and ``why`` for the case (output in output.txt, tools in tools.json)."""
    common = [spec.spec, "--output-file", OUTPUT_FILE, *request_switches(request)]
    parse = [PROGRAM, "parse", *common] + (["--partial"] if partial else [])
    why = [PROGRAM, "why", *common] + (["--partial"] if partial else [])
    return [shlex.join(parse), shlex.join(why)]


def _reproduce_lines(spec: TemplateSpec, request: Request, commands: Sequence[str]) -> list[str]:
    files = [f"the model output above as `{OUTPUT_FILE}`"]
    if request.tools:
        files.append(f"the request's `tools` as `{TOOLS_FILE}`")
    if spec.attached:
        files.append(f"the attached template as `{ATTACHED}`")
    return ["Save " + ", ".join(files) + " (`pip install template-explorer`, or a checkout's `pip install .`), "
            "then:", "", "```bash", *commands, "```"]


def try_bug_report(*, source: TemplateSource, source_request: SourceRequest | None, request: Request,
                   handler: str, raw_output: str, parsed_json: str, analysis_json: str | None = None,
                   findings: Sequence[Any] | None = None, fix: Fix | None = None, partial: bool = False,
                   public_url: str | None = None, query: str | None = None) -> str:
    """The Try it page's bug report: everything that reproduces the case, the app's view
    only when ``public_url`` says the app is public."""
    spec = template_spec(source_request, source)
    commands = reproduce_commands(spec, request, partial=partial)
    view = f"{public_url.rstrip('/')}/try?{query}" if public_url and query else None
    return bug_report_markdown(
        title=f"Chat parsing of {source.display_name}: unexpected result", source_name=source.display_name,
        source_origin=source.origin, sha256=source.sha256, template_text=source.text, handler=handler,
        analysis_json=analysis_json, raw_output=raw_output, parsed_json=parsed_json, permalink=view,
        findings=findings, fix=fix, template_label=spec.label,
        request_json=json.dumps(request_body(request), indent=2, ensure_ascii=False),
        reproduce=_reproduce_lines(spec, request, commands))


def doctor_commands(spec: TemplateSpec) -> list[str]:
    """The doctor's report of the template, from the CLI."""
    return [shlex.join([PROGRAM, "doctor", spec.spec])]


def doctor_reproduce(spec: TemplateSpec) -> list[str]:
    head = f"Save the attached template as `{ATTACHED}`, then:" if spec.attached else "Run:"
    return [head, "", "```bash", *doctor_commands(spec), "```"]


__all__ = ["ATTACHED", "TemplateSpec", "doctor_commands", "doctor_reproduce", "reproduce_commands",
           "request_body", "request_switches", "template_spec", "try_bug_report"]
