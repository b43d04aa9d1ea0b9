"""Template sources as requests, permalinks and bug reports.

Input: how the user chose a template (example, paste, upload, Hub) and the page's view.
Output: a reloadable ``SourceRequest``; query parameters that reproduce the view (the
template text zlib-compressed when short) and back; a Markdown bug report, optionally
with a verified fix the doctor proposed (``fix_markdown``).
"""

from __future__ import annotations

import base64
import binascii
import json
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from explorer import sources
from explorer.errors import SourceError
from explorer.render.jinja_compat import DIALECTS
from explorer.sources.model import TemplateSource
from explorer.vocabulary import TOOL_CHOICES

if TYPE_CHECKING:
    from explorer.doctor.model import Fix



# --- template sources and permalinks -----------------------------------------------

SourceKind = Literal["example", "text", "upload", "hub"]


@dataclass(frozen=True)
class SourceRequest:
    """How the user asked for a template; loading it again gives the same TemplateSource.

    Kept instead of the loaded source so a different named variant can be picked from the
    same upload or repository.
    """

    kind: SourceKind
    name: str = ""  # example name, uploaded file name, or Hub repo id
    text: str = ""  # pasted text
    data: bytes = field(default=b"", repr=False)  # uploaded bytes
    revision: str | None = None
    variant: str | None = None

    def with_variant(self, variant: str | None) -> SourceRequest:
        return SourceRequest(self.kind, self.name, self.text, self.data, self.revision, variant)

    def load(self) -> TemplateSource:
        """The TemplateSource (raises SourceError, FetchError or GGUFError). The loaders
        are looked up on ``explorer.sources`` at call time, so a test's stand-in is used."""
        if self.kind == "example":
            return sources.from_example(self.name)
        if self.kind == "text":
            return sources.from_text(self.text)
        if self.kind == "upload":
            return sources.from_upload(self.data, self.name, variant=self.variant)
        return sources.from_hub(self.name, revision=self.revision or None, variant=self.variant)

    def cache_key(self) -> tuple[Any, ...]:
        digest = zlib.crc32(self.data) if self.data else 0
        return (self.kind, self.name, self.text, digest, len(self.data), self.revision, self.variant)


def hf_spec(repo_id: str, revision: str | None = None, variant: str | None = None) -> str:
    """``owner/repo[@revision][#variant]`` as the CLI's ``hf:`` spec uses it (without ``hf:``)."""
    spec = repo_id.strip()
    if revision:
        spec += "@" + revision.strip()
    if variant:
        spec += "#" + variant.strip()
    return spec


def parse_hf_spec(spec: str) -> tuple[str, str | None, str | None]:
    """Split ``owner/repo[@revision][#variant]`` into its three parts."""
    spec = spec.strip()
    if spec.startswith("hf:"):
        spec = spec[3:]
    rest, _, variant = spec.partition("#")
    repo, _, revision = rest.partition("@")
    if not repo or "/" not in repo:
        raise SourceError(f"expected a Hub source 'owner/repo[@revision][#name]', found {spec!r}")
    return repo, revision or None, variant or None


PERMALINK_TEXT_LIMIT = 6000  # characters of encoded text; longer templates get no link
_DECOMPRESS_LIMIT = 2_000_000  # bytes, so a crafted link cannot inflate without bound
_TEXT_PREFIX = "z1"


def compress_text(text: str) -> str:
    """Template text as zlib + URL-safe base64 (unpadded), prefixed by a format tag."""
    raw = zlib.compress(text.encode("utf-8", "surrogatepass"), 9)
    return _TEXT_PREFIX + base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def decompress_text(token: str) -> str:
    """Inverse of ``compress_text``; a damaged or oversized token raises SourceError."""
    if not token.startswith(_TEXT_PREFIX):
        raise SourceError(f"permalink template text: expected a '{_TEXT_PREFIX}' token, found {token[:12]!r}")
    body = token[len(_TEXT_PREFIX) :]
    try:
        raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        inflater = zlib.decompressobj()
        data = inflater.decompress(raw, _DECOMPRESS_LIMIT)
        if inflater.unconsumed_tail:
            raise SourceError(f"permalink template text: larger than {_DECOMPRESS_LIMIT} bytes")
        if not inflater.eof:
            raise SourceError("permalink template text: truncated (the link was cut short)")
        return data.decode("utf-8")
    except (binascii.Error, zlib.error, UnicodeDecodeError, ValueError) as exc:
        raise SourceError(f"permalink template text: cannot decode ({exc})") from exc


@dataclass(frozen=True)
class RequestInputs:
    """The request a Try-it or Grammar view was built for; None / False: the app's default."""

    thinking: bool | None = None
    tool_choice: str | None = None
    tools_json: str | None = None  # the tools box's text
    skip_chat_parsing: bool = False
    thinking_passed: bool = True  # False: the request does not pass enable_thinking (think=u)
    date: str | None = None  # the fixed date of transformers' strftime_now (ISO), None: the real clock
    dialect: str | None = None  # the Jinja dialect the view was built in, None: llama.cpp

    @property
    def is_default(self) -> bool:
        return self == RequestInputs()


@dataclass(frozen=True)
class Permalink:
    """What a shared link reproduces: the page, the template source and the view's inputs."""

    page: str | None = None
    example: str | None = None
    hf: str | None = None  # owner/repo[@revision][#variant]
    text: str | None = None  # the template text itself (short templates only)
    focus: str | None = None  # what the page shows first (a probe name, ...)
    output: str | None = None  # the model output on the Try-it page
    inputs: RequestInputs = RequestInputs()

    def source_request(self) -> SourceRequest | None:
        if self.example:
            return SourceRequest("example", name=self.example)
        if self.hf:
            repo, revision, variant = parse_hf_spec(self.hf)
            return SourceRequest("hub", name=repo, revision=revision, variant=variant)
        if self.text is not None:
            return SourceRequest("text", text=self.text)
        return None


def permalink_for(
    request: SourceRequest | None, template_text: str | None, page: str | None, focus: str | None = None,
    output: str | None = None, inputs: RequestInputs = RequestInputs(),
) -> Permalink | None:
    """The permalink for a view, or None when the template is too long to put in a URL.

    A model output or tools list too long for a URL is left out (the link still gives the
    template).
    """
    if output is not None and (output == "" or len(compress_text(output)) > PERMALINK_TEXT_LIMIT):
        output = None
    if inputs.tools_json is not None and len(compress_text(inputs.tools_json)) > PERMALINK_TEXT_LIMIT:
        inputs = replace(inputs, tools_json=None)
    view = Permalink(page=page, focus=focus, output=output, inputs=inputs)
    if request is None:
        return view
    if request.kind == "example":
        return replace(view, example=request.name)
    if request.kind == "hub":
        return replace(view, hf=hf_spec(request.name, request.revision, request.variant))
    text = template_text if template_text is not None else request.text
    if len(compress_text(text)) > PERMALINK_TEXT_LIMIT:
        return None
    return replace(view, text=text)


def encode_permalink(link: Permalink) -> dict[str, str]:
    """Query parameters for a permalink (keys: page, focus, example, hf, t, o; the request's
    think (1, 0, or u: not passed), tc, tools, skip, date and dialect when they differ from
    the app's defaults)."""
    params: dict[str, str] = {}
    if link.page:
        params["page"] = link.page
    if link.focus:
        params["focus"] = link.focus
    if link.example:
        params["example"] = link.example
    elif link.hf:
        params["hf"] = link.hf
    elif link.text is not None:
        params["t"] = compress_text(link.text)
    if link.output:
        params["o"] = compress_text(link.output)
    return params | _encode_inputs(link.inputs)


def _encode_inputs(inputs: RequestInputs) -> dict[str, str]:
    params: dict[str, str] = {}
    if not inputs.thinking_passed:
        params["think"] = "u"
    elif inputs.thinking is not None:
        params["think"] = "1" if inputs.thinking else "0"
    if inputs.tool_choice is not None:
        params["tc"] = inputs.tool_choice
    if inputs.tools_json is not None:
        params["tools"] = compress_text(inputs.tools_json)
    if inputs.skip_chat_parsing:
        params["skip"] = "1"
    if inputs.date:
        params["date"] = inputs.date
    if inputs.dialect and inputs.dialect != "llama.cpp":
        params["dialect"] = inputs.dialect
    return params


def _flag(params: Mapping[str, Any], key: str) -> bool | None:
    value = _one(params, key)
    if value is None:
        return None
    if value not in ("0", "1"):
        raise SourceError(f"link parameter {key}: expected 0 or 1, found {value[:20]!r}")
    return value == "1"


def _decode_inputs(params: Mapping[str, Any]) -> RequestInputs:
    choice = _one(params, "tc")
    if choice is not None and choice not in TOOL_CHOICES:
        raise SourceError(f"link parameter tc: expected one of {', '.join(TOOL_CHOICES)}, found {choice[:20]!r}")
    tools = _one(params, "tools")
    think = _one(params, "think")
    if think is not None and think not in ("0", "1", "u"):
        raise SourceError(f"link parameter think: expected 0, 1 or u (not passed), found {think[:20]!r}")
    unset = think == "u"
    date = _one(params, "date")
    if date is not None:
        date = parse_date_field(date, "link parameter date").isoformat() if date else None
    dialect = _one(params, "dialect")
    if dialect is not None and dialect not in DIALECTS:
        raise SourceError(f"link parameter dialect: expected one of {', '.join(DIALECTS)}, found {dialect[:20]!r}")
    return RequestInputs(thinking=None if unset else _flag(params, "think"), tool_choice=choice,
                         tools_json=decompress_text(tools) if tools else None,
                         skip_chat_parsing=bool(_flag(params, "skip")), thinking_passed=not unset, date=date,
                         dialect=dialect)


def parse_date_field(text: str, what: str = "date") -> datetime:
    """A fixed date as a user types it (ISO 8601: 2026-11-29, or with a time 2026-11-29T14:30);
    raises SourceError naming ``what``."""
    try:
        return datetime.fromisoformat(text.strip())
    except ValueError:
        raise SourceError(f"{what}: expected an ISO date such as 2026-11-29 or 2026-11-29T14:30, "
                          f"found {text[:40]!r}") from None


def _one(params: Mapping[str, Any], key: str) -> str | None:
    value = params.get(key)
    if isinstance(value, (list, tuple)):
        value = value[-1] if value else None
    return None if value is None else str(value)


def decode_permalink(params: Mapping[str, Any]) -> Permalink:
    """Read a permalink back from query parameters (a bad ``t`` token or request
    parameter raises SourceError)."""
    token = _one(params, "t")
    output = _one(params, "o")
    return Permalink(
        page=_one(params, "page"),
        example=_one(params, "example"),
        hf=_one(params, "hf"),
        text=decompress_text(token) if token else None,
        focus=_one(params, "focus"),
        output=decompress_text(output) if output else None,
        inputs=_decode_inputs(params),
    )


def query_string(params: Mapping[str, str]) -> str:
    from urllib.parse import urlencode

    return urlencode(dict(params))


# --- bug report ----------------------------------------------------------------------

LLAMA_CPP_COMMIT = "0c1e5709"


def _fence(text: str, lang: str = "") -> str:
    longest = 2
    run = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    ticks = "`" * (longest + 1)
    return f"{ticks}{lang}\n{text}\n{ticks}"


def _inline(text: str) -> str:
    """A string as inline code, its whitespace escaped so newlines show (``<tool_call>\\n``)."""
    shown = json.dumps(text, ensure_ascii=False)[1:-1]
    ticks = "``" if "`" in shown else "`"
    pad = " " if shown.startswith("`") or shown.endswith("`") else ""
    return f"{ticks}{pad}{shown}{pad}{ticks}"


def _findings_markdown(findings: Sequence[Any]) -> list[str]:
    if not findings:
        return ["No check found anything to explain."]
    lines: list[str] = []
    for f in findings:
        line = f"- **{f.severity}** `{f.check}`: {f.summary}"
        place = getattr(f, "place", None)
        if place is not None:
            line += f" (at {place.describe()})"
        expected, found = getattr(f, "expected", ""), getattr(f, "found", "")
        if expected or found:
            line += f" (expected {_inline(expected)}, found {_inline(found)})"
        template_line = getattr(f, "template_line", None)
        if template_line:
            source = getattr(f, "source_line", "")
            line += f" (template line {template_line}" + (f": {_inline(source)})" if source else ")")
        if f.fix_hint:
            line += f" Fix: {f.fix_hint}"
        lines.append(line)
    return lines


def bug_report_markdown(
    *,
    title: str,
    source_name: str,
    source_origin: str,
    sha256: str,
    template_text: str,
    handler: str | None = None,
    analysis_json: str | None = None,
    raw_output: str | None = None,
    parsed_json: str | None = None,
    expected: str | None = None,
    permalink: str | None = None,
    max_template_chars: int = 20_000,
    findings: Sequence[Any] | None = None,
    findings_title: str = "Why (Template Explorer's triage)",
    fix: Fix | None = None,
    template_label: str | None = None,
    request_json: str | None = None,
    reproduce: Sequence[str] = (),
) -> str:
    """A self-contained Markdown bug report for llama.cpp's chat parsing of one template.

    ``findings``: the triage's findings (``explorer.triage.Finding``: check, severity,
    summary, expected, found, fix_hint) or the doctor's (``DoctorFinding``, with template
    lines) so the report says why, under ``findings_title``; left out when None.
    ``fix``: a verified fix to propose (``fix_markdown``). ``template_label``: how to load
    the template anywhere (``explorer.ui_support.bug_report.template_spec``; default its
    name and origin); ``request_json``: the request as llama-server's body; ``reproduce``:
    Markdown lines with the CLI commands that reproduce the case; ``permalink``: the app's
    view, for an app others can reach.
    """
    lines = [
        f"### {title}",
        "",
        f"- template: {template_label}" if template_label else f"- template: `{source_name}` ({source_origin})",
        f"- template sha256: `{sha256}`",
        f"- llama.cpp commit the explorer mirrors: `{LLAMA_CPP_COMMIT}`",
    ]
    if handler:
        lines.append(f"- route: `{handler}`")
    if permalink:
        lines.append(f"- explorer view: {permalink}")
    if request_json is not None:
        lines += ["", "**Request** (llama-server's request body)", "", _fence(request_json, "json")]
    if raw_output is not None:
        lines += ["", "**Model output (verbatim)**", "", _fence(raw_output)]
    if reproduce:
        lines += ["", "**Reproduce**", "", *reproduce]
    if parsed_json is not None:
        lines += ["", "**Parsed message**", "", _fence(parsed_json, "json")]
    if findings is not None:
        lines += ["", f"**{findings_title}**", ""] + _findings_markdown(findings)
    if expected:
        lines += ["", "**Expected**", "", expected]
    if fix is not None:
        lines += [""] + fix_markdown(fix)
    if analysis_json is not None:
        lines += ["", "<details><summary>Autoparser analysis</summary>", "", _fence(analysis_json, "json"), "", "</details>"]
    shown = template_text
    note = ""
    if len(shown) > max_template_chars:
        shown = shown[:max_template_chars]
        note = f"\n\n(template truncated to {max_template_chars} of {len(template_text)} characters)"
    lines += ["", "<details><summary>Chat template</summary>", "", _fence(shown, "jinja") + note, "", "</details>"]
    return "\n".join(lines) + "\n"


# The session-state key under which the Doctor page leaves the fix chosen for the bug
# report, as (template sha256, Fix), for the Try it page's bug report to offer too.
CHOSEN_FIX_STATE = "doctor_chosen_fix"

FIX_KIND_WORDS = {"analysis-override": "an analysis override (a llama.cpp workaround lambda)",
                  "template-edit": "a template edit", "request-change": "a change to the request"}


def fix_markdown(fix: Fix) -> list[str]:
    """A verified fix as bug-report Markdown lines: kind, summary, the round trip before and
    after, then the ``--set`` lines and the workaround lambda, the diff, or the request
    change (as llama-server's JSON body names it), and the fix's notes."""
    before, after = fix.roundtrip_before, fix.roundtrip_after
    lines = ["**Proposed fix (verified by Template Explorer's doctor)**", "",
             f"- kind: `{fix.kind}` ({FIX_KIND_WORDS.get(fix.kind, fix.kind)})", f"- what: {fix.summary}",
             f"- round trip: {before.equal}/{before.total} messages come back before, {after.equal}/{after.total} "
             f"after ({after.equal - before.equal:+d}); no message that came back before is lost"]
    if fix.classes:
        lines.append("- for: " + ", ".join(f"`{c}`" for c in fix.classes))
    if fix.kind == "analysis-override":
        lines += ["", "Analysis overrides (`python -m explorer ... --set`):", "",
                  _fence("\n".join(f"--set {s.spec}" for s in fix.overrides))]
        if fix.substring:
            lines += ["", f"The workaround keys on the substring {_inline(fix.substring)} ({fix.uniqueness})."]
        if fix.workaround_cpp:
            lines += ["", "Workaround lambda for llama.cpp:", "", _fence(fix.workaround_cpp, "cpp")]
    elif fix.kind == "request-change":
        change = fix.request_change.to_json() if fix.request_change is not None else {}
        lines += ["", "Request change (llama-server's request body):", "",
                  _fence(json.dumps(change, indent=2, ensure_ascii=False), "json")]
    if fix.diff:
        lines += ["", "Template edit (unified diff, `patch -p1`):", "", _fence(fix.diff, "diff")]
    if fix.notes:
        lines += [""] + [f"- note: {n}" for n in fix.notes]
    return lines
