"""Text as HTML: whitespace made visible, syntax highlighting with line numbers.

Input: template text, markers, model output, GBNF. Output: HTML fragments with inline
styles (no stylesheet needed) and plain strings with whitespace glyphs.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Iterable, Sequence
from types import MappingProxyType
from typing import Literal

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import RegexLexer, bygroups
from pygments.lexers import get_lexer_by_name
from pygments.token import Comment, Name, Number, Operator, Punctuation, String, Text

# --- whitespace made visible ----------------------------------------------------

WS_GLYPHS = MappingProxyType({"\n": "↵", "\t": "→", "\r": "␍", " ": "·", "\u00a0": "⍽"})
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


# --- text shown as written where Streamlit reads Markdown ------------------------

# What Streamlit's Markdown gives a meaning to, anywhere in a line: CommonMark's emphasis,
# code, links, HTML and entities, GitHub's tables and strikethrough, Streamlit's ``$`` maths.
_INLINE = re.compile(r"([\\`*\[\]<>|~$&])")
# ``_`` only where it can open or close emphasis (not inside a word: get_weather stays).
_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
# Streamlit's own directives: :material/icon:, :red[x], :smile: (escaping the first colon
# alone does not stop them: each colon and slash of the shape is escaped)
_DIRECTIVE = re.compile(r":[A-Za-z][\w-]*(?:/[\w-]+)?(?::|(?=\\\[))")
# At the start of a line: headings, quotes, lists, setext underlines, numbered lists.
_BLOCK = re.compile(r"^(\s*)([#+=-])")
_NUMBERED = re.compile(r"^(\s*\d+)([.)])")


def _escape_directive(match: re.Match[str]) -> str:
    return match.group(0).replace(":", "\\:").replace("/", "\\/")


def md_escape(text: object) -> str:
    """Any value from a template, an output or an error as Markdown that shows it as
    written (``**x**`` stays two stars, ``>`` no quote bar, ``<b>`` no bold, a code fence
    stays backticks, ``:material/x:`` no icon). The one escaping helper the pages use
    wherever Streamlit reads Markdown: st.markdown, st.caption, st.info/warning/error/
    success, st.table cells, labels. Only what Markdown would read is escaped, so plain
    words and names (``get_weather``, ``tools: invalid JSON``) stay as they are."""
    lines = []
    for line in str(text).split("\n"):
        line = _UNDERSCORE.sub(r"\\_", _INLINE.sub(r"\\\1", line))
        line = _DIRECTIVE.sub(_escape_directive, line)
        line = _NUMBERED.sub(r"\1\\\2", _BLOCK.sub(r"\1\\\2", line))
        lines.append(line)
    return "\n".join(lines)


def md_code(text: object) -> str:
    """A value as inline code inside Markdown, whatever backticks it holds (the fence is
    one longer than its longest run; Streamlit reads nothing inside code)."""
    shown = str(text)
    longest = run = 0
    for ch in shown:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    ticks = "`" * (longest + 1)
    pad = " " if shown.startswith("`") or shown.endswith("`") or not shown.strip() else ""
    return f"{ticks}{pad}{shown}{pad}{ticks}"


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


HIGHLIGHT_CLASS = "tx-hl"


@functools.lru_cache(maxsize=8)
def _highlight_css(style: str) -> str:
    # One stylesheet scoped to the highlight's own class: inline styles on every token made
    # a 10 KB template about 90 KB of HTML.
    fmt, scope = HtmlFormatter(style=style), f".{HIGHLIGHT_CLASS}"
    numbers = f"{scope} span.linenos {{ color: #999; padding-right: 8px; user-select: none; }}"
    return "\n".join([*fmt.get_background_style_defs(scope), *fmt.get_token_style_defs(scope), numbers])


def highlight_html(
    text: str,
    language: str = "jinja",
    *,
    linenos: bool = True,
    hl_lines: Iterable[int] = (),
    style: str = "default",
) -> str:
    """Syntax-highlighted HTML (token classes and their scoped stylesheet) with optional
    line numbers.

    ``hl_lines`` are 1-based line numbers to mark (for example the line an error names).
    """
    formatter = HtmlFormatter(
        cssclass=HIGHLIGHT_CLASS,
        style=style,
        linenos="inline" if linenos else False,
        hl_lines=list(hl_lines),
        wrapcode=True,
        prestyles="white-space:pre-wrap;word-break:break-all;font-size:13px;margin:0",
    )
    body = highlight(text, _lexer(language), formatter)
    return f'<style>{_highlight_css(style)}</style><div style="max-height:none;overflow:auto">{body}</div>'


def source_excerpt(text: str, line: int, *, context: int = 2) -> tuple[int, str]:
    """The lines around 1-based ``line``: (first line number, excerpt text)."""
    lines = text.splitlines()
    first = max(1, line - context)
    last = min(len(lines), line + context)
    return first, "\n".join(lines[first - 1 : last])
