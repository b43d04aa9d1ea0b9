"""Pure display helpers for the Streamlit app (no streamlit import).

Input: strings and plain data produced by the library stages (template text, probe
outputs, diff splits, parser spans, permalink query parameters). Output: HTML fragments
with inline styles (so they need no stylesheet), plain strings with whitespace made
visible, query-parameter dicts, and Markdown for bug reports. Everything here is a pure
function or a frozen dataclass, so the pages stay display-only and this module is unit
tested without a browser.
"""

from __future__ import annotations

import base64
import binascii
import html
import importlib
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Literal

from diff_match_patch import diff_match_patch
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import RegexLexer, bygroups
from pygments.lexers import get_lexer_by_name
from pygments.token import Comment, Name, Number, Operator, Punctuation, String, Text

from explorer.errors import RequestError, SourceError

# --- optional library stages ----------------------------------------------------


def optional_module(name: str, *needs: str) -> ModuleType | None:
    """Import a library stage, or None when it has not landed yet.

    "Not landed" means the module itself does not exist, or it exists without the names
    in ``needs`` (a package directory still being written). An ImportError raised
    *inside* an existing module (a real bug) propagates, so a broken stage is never
    shown as merely missing.
    """
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name or (exc.name and name.startswith(exc.name + ".")):
            return None
        raise
    if any(not hasattr(module, attr) for attr in needs):
        return None
    return module


# --- whitespace made visible ----------------------------------------------------

WS_GLYPHS = {"\n": "↵", "\t": "→", "\r": "␍", " ": "·", "\u00a0": "⍽"}
SpaceMode = Literal["all", "trailing", "none"]

DIM = "color:#9a9a9a"
GLYPH = "color:#b08a3a;opacity:.75"
MONO = (
    "font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px;"
    "white-space:pre-wrap;word-break:break-all;line-height:1.45"
)


def _trailing_space_mask(text: str) -> list[bool]:
    """True at each space (or tab) that is followed only by blanks up to a newline or the end."""
    mask = [False] * len(text)
    trailing = True
    for i in range(len(text) - 1, -1, -1):
        ch = text[i]
        if ch in "\n\r":
            trailing = True
        elif ch in " \t":
            mask[i] = trailing
        else:
            trailing = False
    return mask


def _visible_char(ch: str, is_trailing: bool, spaces: SpaceMode) -> str | None:
    """The glyph for a whitespace character, or None when it stays as is."""
    if ch == " " or ch == "\u00a0":
        if spaces == "all" or (spaces == "trailing" and is_trailing):
            return WS_GLYPHS[ch]
        return None
    return WS_GLYPHS.get(ch)


def visible_whitespace(text: str, *, spaces: SpaceMode = "trailing", keep_newlines: bool = True) -> str:
    """Plain text with newlines, tabs, CRs (and trailing or all spaces) shown as glyphs."""
    mask = _trailing_space_mask(text)
    out: list[str] = []
    for i, ch in enumerate(text):
        glyph = _visible_char(ch, mask[i], spaces)
        if glyph is None:
            out.append(ch)
        elif ch == "\n":
            out.append(glyph + ("\n" if keep_newlines else ""))
        else:
            out.append(glyph)
    return "".join(out)


def marker_text(marker: str) -> str:
    """A marker on one line with every whitespace visible; the empty marker is shown as ∅."""
    if marker == "":
        return "∅"
    return visible_whitespace(marker, spaces="all", keep_newlines=False)


def _html_visible(
    text: str, offset: int, mask: Sequence[bool], spaces: SpaceMode
) -> str:
    """Escaped HTML of ``text`` (which starts at ``offset`` in the masked string)."""
    out: list[str] = []
    for i, ch in enumerate(text):
        glyph = _visible_char(ch, mask[offset + i] if offset + i < len(mask) else False, spaces)
        if glyph is None:
            out.append(html.escape(ch))
        else:
            out.append(f'<span style="{GLYPH}">{glyph}</span>' + ("\n" if ch == "\n" else ""))
    return "".join(out)


def visible_whitespace_html(text: str, *, spaces: SpaceMode = "trailing") -> str:
    """Escaped HTML of ``text`` with whitespace glyphs dimmed so they read as markup."""
    return _html_visible(text, 0, _trailing_space_mask(text), spaces)


def mono_block(inner_html: str, *, border: str = "#ddd") -> str:
    """Wrap an HTML fragment in a monospace, wrapping, bordered block."""
    return (
        f'<div style="{MONO};border:1px solid {border};border-radius:4px;padding:6px 8px;'
        f'margin:2px 0 8px 0">{inner_html}</div>'
    )


def marker_html(marker: str) -> str:
    """A marker as inline code with every whitespace visible."""
    if marker == "":
        return f'<code style="{DIM}">∅</code>'
    return "<code>" + _html_visible(marker, 0, [True] * len(marker), "all").replace("\n", "") + "</code>"


# --- syntax highlighting ----------------------------------------------------------


class GbnfLexer(RegexLexer):
    """llama.cpp's GBNF grammar notation (rules, literals, character classes)."""

    name = "GBNF"
    aliases = ["gbnf"]
    filenames = ["*.gbnf"]
    tokens = {
        "root": [
            (r"#.*?$", Comment.Single),
            (r"^([A-Za-z0-9_-]+)(\s*)(::=)", bygroups(Name.Function, Text, Operator)),
            (r'"(\\.|[^"\\])*"', String.Double),
            (r"\[(\\.|[^\]\\])*\]", String.Regex),
            (r"\{\s*\d*\s*(,\s*\d*\s*)?\}", Number),
            (r"[|*+?]", Operator),
            (r"[()]", Punctuation),
            (r"[A-Za-z0-9_-]+", Name.Variable),
            (r"\s+", Text),
            (r".", Text),
        ]
    }


def _lexer(language: str):
    if language == "gbnf":
        return GbnfLexer(stripnl=False, ensurenl=False)
    name = "jinja" if language in ("jinja", "jinja2") else language
    return get_lexer_by_name(name, stripnl=False, ensurenl=False)


def highlight_html(
    text: str,
    language: str = "jinja",
    *,
    linenos: bool = True,
    hl_lines: Iterable[int] = (),
    style: str = "default",
) -> str:
    """Syntax-highlighted HTML with inline styles and optional line numbers.

    ``hl_lines`` are 1-based line numbers to mark (for example the line an error names).
    """
    formatter = HtmlFormatter(
        noclasses=True,
        style=style,
        linenos="inline" if linenos else False,
        hl_lines=list(hl_lines),
        wrapcode=True,
        prestyles="white-space:pre-wrap;word-break:break-all;font-size:13px;margin:0",
    )
    body = highlight(text, _lexer(language), formatter)
    return f'<div style="max-height:none;overflow:auto">{body}</div>'


def source_excerpt(text: str, line: int, *, context: int = 2) -> tuple[int, str]:
    """The lines around 1-based ``line``: (first line number, excerpt text)."""
    lines = text.splitlines()
    first = max(1, line - context)
    last = min(len(lines), line + context)
    return first, "\n".join(lines[first - 1 : last])


# --- diffs -------------------------------------------------------------------------

LEFT_BG = "background:#ffe3e3"
RIGHT_BG = "background:#dcf5dc"
LEFT_STRONG = "background:#ff9d9d;font-weight:600"
RIGHT_STRONG = "background:#86d986;font-weight:600"

DiffOp = tuple[int, str]  # (-1 deleted from A, 0 equal, 1 inserted in B), text


def char_diff(a: str, b: str) -> list[DiffOp]:
    """Character-level diff of two strings (diff-match-patch, semantic cleanup, no timeout)."""
    dmp = diff_match_patch()
    dmp.Diff_Timeout = 0
    ops = dmp.diff_main(a, b)
    dmp.diff_cleanupSemantic(ops)
    return [(int(op), str(chunk)) for op, chunk in ops]


def common_prefix_len(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def common_suffix_len(a: str, b: str, prefix_len: int = 0) -> int:
    """Longest common suffix that does not overlap the first ``prefix_len`` characters."""
    n = min(len(a), len(b)) - prefix_len
    i = 0
    while i < n and a[-1 - i] == b[-1 - i]:
        i += 1
    return i


@dataclass(frozen=True)
class PairView:
    """Two outputs split into a shared prefix, differing middles and a shared suffix."""

    prefix_len: int
    suffix_len: int
    html_a: str
    html_b: str
    left: str
    right: str


def _is_valid_split(a: str, b: str, p: int, s: int) -> bool:
    return (
        0 <= p
        and 0 <= s
        and p + s <= len(a)
        and p + s <= len(b)
        and a[:p] == b[:p]
        and a[len(a) - s :] == b[len(b) - s :]
    )


def _elided(n: int) -> str:
    return f'<span style="{DIM};font-style:italic">… {n} more characters …</span>'


def _side_html(
    text: str, p: int, s: int, ops: Sequence[DiffOp], keep: int, strong: str, soft: str,
    context: int | None = None,
) -> str:
    """One side of a pair: dim prefix, the middle with its char diff, dim suffix.

    With ``context`` only that many characters of the prefix and suffix next to the
    difference are shown; the rest is elided with a count.
    """
    mask = _trailing_space_mask(text)
    end = len(text) - s
    start = 0 if context is None else max(0, p - context)
    stop = len(text) if context is None else min(len(text), end + context)
    parts = [_elided(start)] if start else []
    parts.append(f'<span style="{DIM}">{_html_visible(text[start:p], start, mask, "trailing")}</span>')
    pos = p
    for op, chunk in ops:
        if op not in (0, keep):
            continue
        style = soft if op == 0 else strong
        parts.append(f'<span style="{style}">{_html_visible(chunk, pos, mask, "all")}</span>')
        pos += len(chunk)
    if p == end:
        parts.append(f'<span style="{soft};{DIM}" title="nothing here">∅</span>')
    parts.append(f'<span style="{DIM}">{_html_visible(text[end:stop], end, mask, "trailing")}</span>')
    if stop < len(text):
        parts.append(_elided(len(text) - stop))
    return "".join(parts)


def pair_view(
    a: str, b: str, *, prefix_len: int | None = None, suffix_len: int | None = None,
    context: int | None = None,
) -> PairView:
    """Side-by-side HTML of outputs A and B.

    The common prefix and suffix are dimmed, the left (A only) and right (B only) regions
    are tinted, and inside them a character diff marks exactly what changed. When the
    analysis gives its own split (after tag-boundary fixing) pass its lengths; an
    inconsistent split falls back to the plain longest common prefix and suffix.
    ``context`` limits how much of the shared text around the difference is shown.
    """
    if prefix_len is None or suffix_len is None or not _is_valid_split(a, b, prefix_len, suffix_len):
        prefix_len = common_prefix_len(a, b)
        suffix_len = common_suffix_len(a, b, prefix_len)
    left = a[prefix_len : len(a) - suffix_len]
    right = b[prefix_len : len(b) - suffix_len]
    ops = char_diff(left, right)
    return PairView(
        prefix_len=prefix_len,
        suffix_len=suffix_len,
        html_a=_side_html(a, prefix_len, suffix_len, ops, -1, LEFT_STRONG, LEFT_BG, context),
        html_b=_side_html(b, prefix_len, suffix_len, ops, 1, RIGHT_STRONG, RIGHT_BG, context),
        left=left,
        right=right,
    )


PROBE_GROUPS = ("Reasoning", "Content", "Tools", "Turn markers")


def probe_group(name: str) -> str:
    """Which analyzer a probe belongs to, from its reference name (R1, C1.tools, T2, A1...)."""
    if name.startswith(("assistant-start", "user-start")):
        return "Turn markers"
    return {"R": "Reasoning", "C": "Content", "T": "Tools", "A": "Tools"}.get(name[:1], "Turn markers")


def split_html(prefix: str, left: str, right: str, suffix: str, *, context: int = 80) -> str:
    """A diff split (prefix | left / right | suffix) as a small table, whitespace visible.

    Only the ``context`` characters of the prefix and suffix next to the difference are
    shown (an ellipsis marks the cut); left and right are shown whole.
    """
    cell = 'style="padding:2px 8px;vertical-align:top;border-bottom:1px solid #eee"'
    count = 'style="padding:2px 8px;vertical-align:top;border-bottom:1px solid #eee;white-space:nowrap;color:#777"'

    def show(text: str, style: str = "", cut: str = "") -> str:
        ell = ""
        if cut == "head" and len(text) > context:
            text, ell = text[-context:], "…"
        elif cut == "tail" and len(text) > context:
            text, ell = text[:context], "…"
        inner = _html_visible(text, 0, [True] * len(text), "all").replace("\n", "")
        inner = inner or "∅"
        inner = (ell + inner) if cut == "head" else (inner + ell)
        return f'<code style="{style};white-space:pre-wrap;word-break:break-all">{inner}</code>'

    rows = [
        ("prefix", show(prefix, DIM, "head"), len(prefix)),
        ("left", show(left, LEFT_BG), len(left)),
        ("right", show(right, RIGHT_BG), len(right)),
        ("suffix", show(suffix, DIM, "tail"), len(suffix)),
    ]
    body = "".join(
        f"<tr><td {cell}><b>{name}</b></td><td {count}>{n} chars</td><td {cell}>{value}</td></tr>"
        for name, value, n in rows
    )
    return f'<table style="border-collapse:collapse;font-size:13px;width:100%;table-layout:auto">{body}</table>'


# --- spans coloured by the rule that consumed them ---------------------------------

SPAN_PALETTE = (
    "#cfe8ff", "#ffe0b3", "#d9f2d9", "#f2d9f2", "#fff3b0", "#d9e0ff", "#ffd6d6", "#c8f0ec",
)


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    tag: str


def spans_html(text: str, spans: Iterable[Span], *, colours: Mapping[str, str] | None = None) -> tuple[str, dict[str, str]]:
    """``text`` with each span tinted by its tag; returns (html, tag -> colour legend).

    Overlapping spans are resolved in favour of the innermost (latest-starting, shortest);
    characters no span covers stay plain.
    """
    ordered = sorted(spans, key=lambda s: (s.start, -(s.end - s.start)))
    owner: list[str | None] = [None] * len(text)
    for span in ordered:
        for i in range(max(0, span.start), min(len(text), span.end)):
            owner[i] = span.tag
    legend: dict[str, str] = dict(colours or {})
    for tag in owner:
        if tag is not None and tag not in legend:
            legend[tag] = SPAN_PALETTE[len(legend) % len(SPAN_PALETTE)]
    mask = _trailing_space_mask(text)
    parts: list[str] = []
    i = 0
    while i < len(text):
        j = i
        while j < len(text) and owner[j] == owner[i]:
            j += 1
        chunk = _html_visible(text[i:j], i, mask, "trailing")
        tag = owner[i]
        if tag is None:
            parts.append(chunk)
        else:
            title = html.escape(tag, quote=True)
            parts.append(f'<span style="background:{legend[tag]}" title="{title}">{chunk}</span>')
        i = j
    return "".join(parts), legend


def legend_html(legend: Mapping[str, str]) -> str:
    return " ".join(
        f'<span style="background:{colour};padding:1px 6px;border-radius:3px;font-size:12px">'
        f"{html.escape(tag)}</span>"
        for tag, colour in legend.items()
    )


def ast_spans(nodes: Iterable[Any], *, by: Literal["tag", "rule"] = "tag", offset: int = 0) -> list[Span]:
    """Spans of a PEG parse tree (nodes with ``tag``/``rule``/``start``/``end``/``children``).

    ``offset`` is subtracted from every position, so spans can be drawn on the model
    output alone when the parser saw the generation prompt in front of it.
    """
    spans: list[Span] = []
    stack = list(nodes)
    while stack:
        node = stack.pop()
        label = node.tag if by == "tag" else node.rule
        if label and node.end > node.start:
            spans.append(Span(node.start - offset, node.end - offset, label))
        stack.extend(node.children)
    return spans


# --- request inputs -------------------------------------------------------------------


def parse_tools_json(text: str) -> list[dict[str, Any]] | None:
    """The request's tools from the user's JSON (empty text: no tools).

    Accepts a list of OpenAI tool objects, or one object; raises RequestError saying where
    the JSON is wrong.
    """
    import json

    if not text.strip():
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RequestError(f"tools: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from exc
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(t, dict) for t in value):
        raise RequestError(f"tools: expected a JSON list of tool objects, found {type(value).__name__}")
    for i, tool in enumerate(value):
        fn = tool.get("function", tool)
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            raise RequestError(f"tools[{i}]: expected {{'type': 'function', 'function': {{'name': ...}}}}")
    return value


def continuation_after(prompt: str, rendered: str) -> str | None:
    """What a model would have generated: ``rendered`` after the next-turn ``prompt``.

    None when the prompt is not a prefix of the rendered conversation (the template
    renders history turns differently from the generation prompt).
    """
    if not rendered.startswith(prompt):
        return None
    return rendered[len(prompt):]


def end_marker_from_probes(rendered_x: str, rendered_xy: str) -> str | None:
    """The text a template appends after an assistant message.

    ``rendered_x`` and ``rendered_xy`` render the same conversation ending in an assistant
    message "X" and "XY". If the second is the first with "Y" inserted right after "X",
    what follows that "X" is the end marker; otherwise None (ambiguous).
    """
    cut = rendered_x.rfind("X")
    while cut >= 0:
        head, tail = rendered_x[: cut + 1], rendered_x[cut + 1 :]
        if rendered_xy == head + "Y" + tail:
            return tail
        cut = rendered_x.rfind("X", 0, cut)
    return None


def strip_end_marker(text: str, marker: str | None) -> str:
    """Remove a trailing end marker: exactly, or (trimmed) before trailing whitespace."""
    if not marker:
        return text
    if text.endswith(marker):
        return text[: len(text) - len(marker)]
    core = marker.strip()
    body = text.rstrip()
    if core and body.endswith(core):
        return body[: len(body) - len(core)]
    return text


# --- comparing two templates -------------------------------------------------------------


def flatten_json(value: Any, prefix: str = "") -> dict[str, Any]:
    """Nested dicts as dotted keys (lists stay values), in the input's order."""
    if not isinstance(value, Mapping):
        return {prefix: value}
    out: dict[str, Any] = {}
    for key, inner in value.items():
        name = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(inner, Mapping) and inner:
            out.update(flatten_json(inner, name))
        else:
            out[name] = inner
    return out


@dataclass(frozen=True)
class FieldChange:
    field: str
    a: Any
    b: Any

    @property
    def same(self) -> bool:
        return self.a == self.b


def compare_fields(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[FieldChange]:
    """Field-by-field comparison of two nested JSON objects (keys of A first, then B's extra)."""
    fa, fb = flatten_json(a), flatten_json(b)
    keys = list(fa) + [k for k in fb if k not in fa]
    return [FieldChange(k, fa.get(k), fb.get(k)) for k in keys]


# --- conformance fixtures (canitoolcall) ---------------------------------------------


@dataclass(frozen=True)
class FixtureVerdict:
    """How our parse of one fixture compares with what the fixture expects."""

    status: str  # canitoolcall's Status value: pass, soft_pass, fail
    detail: str
    got: dict[str, Any]  # the parse in canitoolcall's ParseResult.to_dict() shape


def fixture_verdict(fixture: Any, family: Any, message: Any | None, exception: str | None) -> FixtureVerdict:
    """Judge one parse (a ChatMessage, or the parser's exception) by canitoolcall's own checks.

    ``expected`` fixtures use ``compare`` (strict, then whitespace-soft); ``expected_error``
    fixtures use ``check_expected_error`` on the non-streaming parse.
    """
    from canitoolcall import checks
    from canitoolcall.results import Observation, ParsedToolCall, ParseResult, Status

    if message is None:
        got = ParseResult(exception=exception or "error")
    else:
        got = ParseResult(
            content=message.content, reasoning_content=message.reasoning_content,
            tool_calls=tuple(ParsedToolCall(c.name, c.arguments) for c in message.tool_calls),
        )
    if fixture.expected is not None:
        want = checks.expected_as_result(fixture.expected)
        status = checks.compare(want, got)
        detail = "" if status is Status.PASS else checks.describe_difference(want, got)
        return FixtureVerdict(status.value, detail, got.to_dict())
    rows = checks.check_expected_error(fixture, family, Observation(nonstream=got, streams={}))
    if not rows:
        return FixtureVerdict(Status.PASS.value, "nothing to check", got.to_dict())
    worst = checks.case_status(rows)
    detail = "; ".join(r.detail for r in rows if r.detail) or f"accepted: {fixture.expected_error.reason}"
    return FixtureVerdict(worst.value, detail, got.to_dict())


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

    def load(self) -> Any:
        """The TemplateSource (explorer.sources must exist; callers check first)."""
        sources = importlib.import_module("explorer.sources")
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
class Permalink:
    """What a shared link reproduces: the page and the template source."""

    page: str | None = None
    example: str | None = None
    hf: str | None = None  # owner/repo[@revision][#variant]
    text: str | None = None  # the template text itself (short templates only)
    focus: str | None = None  # what the page shows first (a probe name, ...)
    output: str | None = None  # the model output on the Try-it page

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
    output: str | None = None,
) -> Permalink | None:
    """The permalink for a view, or None when the template is too long to put in a URL.

    A model output too long for a URL is left out (the link still gives the template).
    """
    if output is not None and (output == "" or len(compress_text(output)) > PERMALINK_TEXT_LIMIT):
        output = None
    view = {"page": page, "focus": focus, "output": output}
    if request is None:
        return Permalink(**view)
    if request.kind == "example":
        return Permalink(example=request.name, **view)
    if request.kind == "hub":
        return Permalink(hf=hf_spec(request.name, request.revision, request.variant), **view)
    text = template_text if template_text is not None else request.text
    if len(compress_text(text)) > PERMALINK_TEXT_LIMIT:
        return None
    return Permalink(text=text, **view)


def encode_permalink(link: Permalink) -> dict[str, str]:
    """Query parameters for a permalink (keys: page, focus, example, hf, t, o)."""
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
    return params


def _one(params: Mapping[str, Any], key: str) -> str | None:
    value = params.get(key)
    if isinstance(value, (list, tuple)):
        value = value[-1] if value else None
    return None if value is None else str(value)


def decode_permalink(params: Mapping[str, Any]) -> Permalink:
    """Read a permalink back from query parameters (a bad ``t`` token raises SourceError)."""
    token = _one(params, "t")
    output = _one(params, "o")
    return Permalink(
        page=_one(params, "page"),
        example=_one(params, "example"),
        hf=_one(params, "hf"),
        text=decompress_text(token) if token else None,
        focus=_one(params, "focus"),
        output=decompress_text(output) if output else None,
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
) -> str:
    """A self-contained Markdown bug report for llama.cpp's chat parsing of one template."""
    lines = [
        f"### {title}",
        "",
        f"- template: `{source_name}` ({source_origin})",
        f"- template sha256: `{sha256}`",
        f"- llama.cpp commit the explorer mirrors: `{LLAMA_CPP_COMMIT}`",
    ]
    if handler:
        lines.append(f"- route: `{handler}`")
    if permalink:
        lines.append(f"- explorer view: {permalink}")
    if raw_output is not None:
        lines += ["", "**Model output (verbatim)**", "", _fence(raw_output)]
    if parsed_json is not None:
        lines += ["", "**Parsed message**", "", _fence(parsed_json, "json")]
    if expected:
        lines += ["", "**Expected**", "", expected]
    if analysis_json is not None:
        lines += ["", "<details><summary>Autoparser analysis</summary>", "", _fence(analysis_json, "json"), "", "</details>"]
    shown = template_text
    note = ""
    if len(shown) > max_template_chars:
        shown = shown[:max_template_chars]
        note = f"\n\n(template truncated to {max_template_chars} of {len(template_text)} characters)"
    lines += ["", "<details><summary>Chat template</summary>", "", _fence(shown, "jinja") + note, "", "</details>"]
    return "\n".join(lines) + "\n"


def json_html(value_json: str) -> str:
    """Highlighted JSON without line numbers."""
    return highlight_html(value_json, "json", linenos=False)


def call_or_error(fn: Callable[[], Any], errors: tuple[type[BaseException], ...]) -> tuple[Any, BaseException | None]:
    """Run ``fn`` and return (result, None) or (None, error) for the expected error types."""
    try:
        return fn(), None
    except errors as exc:
        return None, exc
