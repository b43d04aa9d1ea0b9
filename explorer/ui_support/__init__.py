"""Pure display helpers for the Streamlit app (no streamlit import).

Input: strings and plain data produced by the library stages (template text, probe
outputs, diff splits, parse trees, permalink query parameters). Output: HTML fragments
with inline styles, plain strings with whitespace made visible, query-parameter dicts
and Markdown. Everything is a pure function or a frozen dataclass, so the pages stay
display-only and these helpers are unit tested without a browser.

Submodules: ``text`` (whitespace, highlighting, ``md_escape``: the one Markdown escaping
helper), ``diffs`` (probe pairs, split tables,
tinted parse spans), ``links`` (source requests, permalinks, bug reports), ``requests``
(tools JSON, fixture verdicts), ``whatif_link`` (a what-if's permalink parameters; imported
by its own name, as it imports ``explorer.whatif``).
"""

from explorer.comparison import FieldChange, compare_fields, flatten_json
from explorer.ui_support.diffs import (
    LEFT_BG,
    LEFT_STRONG,
    PROBE_GROUPS,
    RIGHT_BG,
    RIGHT_STRONG,
    SPAN_PALETTE,
    PairView,
    Span,
    ast_spans,
    char_diff,
    common_prefix_len,
    common_suffix_len,
    legend_html,
    pair_view,
    probe_group,
    spans_html,
    split_html,
)
from explorer.ui_support.links import (
    LLAMA_CPP_COMMIT,
    PERMALINK_TEXT_LIMIT,
    Permalink,
    RequestInputs,
    SourceRequest,
    bug_report_markdown,
    compress_text,
    decode_permalink,
    decompress_text,
    encode_permalink,
    hf_spec,
    parse_hf_spec,
    permalink_for,
    query_string,
)
from explorer.ui_support.requests import (
    FixtureVerdict,
    count_scope,
    fixture_verdict,
    judge_fixture,
    match_family,
    parse_tools_json,
    transformers_call,
)
from explorer.ui_support.text import (
    DIM,
    GLYPH,
    MONO,
    WS_GLYPHS,
    GbnfLexer,
    highlight_html,
    marker_html,
    marker_text,
    md_code,
    md_escape,
    mono_block,
    source_excerpt,
    visible_whitespace,
    visible_whitespace_html,
)

__all__ = [
    "DIM", "GLYPH", "LEFT_BG", "LEFT_STRONG", "LLAMA_CPP_COMMIT", "MONO", "PERMALINK_TEXT_LIMIT", "PROBE_GROUPS",
    "RIGHT_BG", "RIGHT_STRONG", "SPAN_PALETTE", "WS_GLYPHS", "FieldChange", "FixtureVerdict", "GbnfLexer",
    "transformers_call", "PairView", "Permalink", "RequestInputs", "SourceRequest", "Span", "ast_spans", "bug_report_markdown", "char_diff",
    "common_prefix_len", "common_suffix_len", "compare_fields", "compress_text",
    "decode_permalink", "decompress_text", "encode_permalink", "fixture_verdict",
    "flatten_json", "highlight_html", "hf_spec", "legend_html", "marker_html", "marker_text", "md_code", "md_escape",
    "mono_block", "pair_view", "parse_hf_spec", "parse_tools_json", "count_scope", "judge_fixture", "match_family",
    "permalink_for", "probe_group",
    "query_string", "source_excerpt", "spans_html", "split_html", "visible_whitespace",
    "visible_whitespace_html",
]
