"""Unit tests of the app's pure display helpers (explorer.ui_support)."""

from __future__ import annotations

import base64
import html
import json
import os
import re
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer import ui_support as ui
from explorer.errors import SourceError


def strip_tags(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


# --- whitespace -------------------------------------------------------------------


def test_visible_whitespace_marks_newlines_tabs_and_trailing_spaces():
    # the space before the tab is inner, the two before the newline and the last are trailing
    assert ui.visible_whitespace("a \tb  \nc ") == "a →b··↵\nc·"


def test_visible_whitespace_all_spaces_and_single_line():
    assert ui.visible_whitespace("a b\n", spaces="all", keep_newlines=False) == "a·b↵"
    assert ui.visible_whitespace("a b ", spaces="none") == "a b "
    assert ui.visible_whitespace("x\r\n") == "x␍↵\n"


def test_marker_text_shows_every_whitespace_and_empty_marker():
    assert ui.marker_text("") == "∅"
    assert ui.marker_text("<think>\n") == "<think>↵"
    assert ui.marker_text(" [TOOL_CALLS] ") == "·[TOOL_CALLS]·"


def test_whitespace_html_escapes_markup():
    out = ui.visible_whitespace_html("<b>&</b> \n")
    assert "&lt;b&gt;&amp;&lt;/b&gt;" in out
    assert "<b>" not in out
    assert strip_tags(out) == "<b>&</b>·↵\n"


@given(st.text(alphabet=st.sampled_from("ab <>&\n\t\r"), max_size=40))
def test_whitespace_html_keeps_every_character(text):
    # removing the glyphs (and the newline glyph's companion) gives the text back
    shown = strip_tags(ui.visible_whitespace_html(text, spaces="none"))
    assert shown.replace("↵", "").replace("→", "\t").replace("␍", "\r") == text


# --- diffs ------------------------------------------------------------------------


@given(st.text(max_size=30), st.text(max_size=30))
@settings(max_examples=150)
def test_char_diff_rebuilds_both_sides(a, b):
    ops = ui.char_diff(a, b)
    assert "".join(t for op, t in ops if op <= 0) == a
    assert "".join(t for op, t in ops if op >= 0) == b


def test_pair_view_splits_on_common_prefix_and_suffix():
    a = "<|user|>Hello<|end|>\n"
    b = "<|user|>Hi there<|end|>\n"
    view = ui.pair_view(a, b)
    # "<|user|>H" is shared, then "ello" vs "i there", then "<|end|>\n"
    assert view.prefix_len == len("<|user|>H")
    assert view.suffix_len == len("<|end|>\n")
    assert (view.left, view.right) == ("ello", "i there")
    assert strip_tags(view.html_a) == "<|user|>Hello<|end|>↵\n"
    assert strip_tags(view.html_b) == "<|user|>Hi·there<|end|>↵\n"
    assert ui.LEFT_STRONG in view.html_a and ui.RIGHT_STRONG in view.html_b


def test_pair_view_uses_a_consistent_given_split_and_rejects_a_wrong_one():
    a, b = "<think>x</think>", "<think>y</think>"
    # the marker-aware split keeps whole markers out of the prefix
    view = ui.pair_view(a, b, prefix_len=len("<think>"), suffix_len=len("</think>"))
    assert (view.left, view.right) == ("x", "y")
    bad = ui.pair_view(a, b, prefix_len=3, suffix_len=40)
    assert (bad.prefix_len, bad.suffix_len) == (7, 8)


def test_pair_view_marks_an_empty_side():
    view = ui.pair_view("ab", "aXb")
    assert view.left == "" and view.right == "X"
    assert "∅" in view.html_a


def test_pair_view_elides_long_shared_context():
    a = "x" * 1000 + "A" + "y" * 500
    b = "x" * 1000 + "B" + "y" * 500
    view = ui.pair_view(a, b, context=10)
    text = strip_tags(view.html_a)
    assert text == "… 990 more characters …" + "x" * 10 + "A" + "y" * 10 + "… 490 more characters …"


def test_probe_groups_follow_the_reference_names():
    assert [ui.probe_group(n) for n in ("R1", "R3", "C1.tools", "T1.parallel", "A2", "T7")] == [
        "Reasoning", "Reasoning", "Content", "Tools", "Tools", "Tools"]
    assert ui.probe_group("assistant-start") == ui.probe_group("user-start.fallback") == "Turn markers"


def test_split_html_lists_the_four_parts():
    out = ui.split_html("pre", "L", "R R", "suf")
    text = strip_tags(out)
    for part in ("prefix", "left", "right", "suffix", "R·R", "3 chars"):
        assert part in text
    long = strip_tags(ui.split_html("x" * 100 + "P", "L", "R", "S" + "y" * 100, context=5))
    assert "…xxxxP" in long and "Syyyy…" in long and "101 chars" in long


# --- highlighting -------------------------------------------------------------------


def test_highlight_html_has_line_numbers_and_marks_lines():
    src = "{% if x %}\n  {{ y }}\n{% endif %}\n"
    out = ui.highlight_html(src, "jinja", hl_lines=[2])
    style, _, body = out.partition("</style>")
    text = strip_tags(body)
    assert text.replace(" ", "").startswith("1{%ifx%}\n2{{y}}\n3{%endif%}")
    assert "3" in text and "endif" in text
    marked = re.search(r'<span class="hll">(.*?)\n</span>', body)
    assert marked and strip_tags(marked.group(1)).strip() == "2  {{ y }}"
    # pygments' hl_lines colour in the default style, scoped to the highlight's class
    assert f".{ui.text.HIGHLIGHT_CLASS} .hll {{ background-color: #ffffcc }}" in style


def test_highlight_html_styles_by_class_with_a_scoped_stylesheet():
    src = "{% for m in messages %}{{ m.content }}{% endfor %}\n" * 200
    out = ui.highlight_html(src, "jinja")
    style, _, body = out.partition("</style>")
    assert 'style="color' not in body  # no inline style per token
    rules = [r for r in style.removeprefix("<style>").splitlines() if r.strip()]
    assert rules and all(r.startswith(f".{ui.text.HIGHLIGHT_CLASS}") for r in rules), rules[:3]
    assert len(out) < 8 * len(src)  # inline styles made it 11.3 times the source, classes 6.7


def test_highlight_html_escapes_template_markup():
    out = ui.highlight_html("<|im_start|>{{ '<b>' }}", "jinja", linenos=False)
    assert "&#39;&lt;b&gt;&#39;" in out or "'&lt;b&gt;'" in out
    assert "<b>" not in out
    assert "&lt;|im_start|&gt;" in out


def test_gbnf_lexer_names_rules_and_literals():
    from pygments.token import Name, String

    toks = list(ui.GbnfLexer().get_tokens('root ::= "<tool_call>" [a-z]+ ws # c\nws ::= [ \\t]*\n'))
    kinds = {(t, v) for t, v in toks}
    assert (Name.Function, "root") in kinds and (Name.Function, "ws") in kinds
    assert (String.Double, '"<tool_call>"') in kinds
    assert (String.Regex, "[a-z]") in kinds
    assert (Name.Variable, "ws") in kinds


def test_source_excerpt_clamps_to_the_template():
    text = "\n".join(f"line {i}" for i in range(1, 11))
    assert ui.source_excerpt(text, 1) == (1, "line 1\nline 2\nline 3")
    assert ui.source_excerpt(text, 10, context=1) == (9, "line 9\nline 10")


# --- spans --------------------------------------------------------------------------


def test_spans_html_tints_each_tag_and_builds_a_legend():
    text = "<think>hm</think>Hi"
    spans = [ui.Span(0, 17, "reasoning"), ui.Span(7, 9, "reasoning-content"), ui.Span(17, 19, "content")]
    out, legend = ui.spans_html(text, spans)
    assert list(legend) == ["reasoning", "reasoning-content", "content"]
    assert strip_tags(out) == text
    assert 'title="reasoning-content">hm<' in out


# --- permalinks ---------------------------------------------------------------------


@given(st.text(max_size=300))
def test_compressed_text_round_trips(text):
    text = text.encode("utf-8", "replace").decode("utf-8")  # no lone surrogates
    token = ui.compress_text(text)
    assert re.fullmatch(r"z1[A-Za-z0-9_-]*", token)
    assert ui.decompress_text(token) == text


def test_damaged_or_oversized_tokens_raise_source_error():
    with pytest.raises(SourceError):
        ui.decompress_text("z1!!!notbase64")
    with pytest.raises(SourceError):
        ui.decompress_text("xx" + ui.compress_text("a")[2:])
    token = ui.compress_text("some template text " * 20)
    with pytest.raises(SourceError, match="truncated"):
        ui.decompress_text(token[:-6])
    bomb = "z1" + base64.urlsafe_b64encode(zlib.compress(b"\0" * 5_000_000, 9)).decode().rstrip("=")
    with pytest.raises(SourceError, match="larger than"):
        ui.decompress_text(bomb)


def test_permalink_round_trip_for_each_source_kind():
    for link in (
        ui.Permalink(page="template", example="qwen3"),
        ui.Permalink(page="probes", hf="owner/model@abc123#tool_use", focus="T2"),
        ui.Permalink(page="try", text="{{ messages[0]['content'] }}\n"),
        ui.Permalink(page="try", example="x", output="<tool_call>{}</tool_call>"),
        ui.Permalink(page="grammar"),
    ):
        params = ui.encode_permalink(link)
        assert ui.decode_permalink(params) == link


def test_a_permalink_carries_the_request_inputs_that_differ_from_the_defaults():
    inputs = ui.RequestInputs(thinking=False, tool_choice="required", tools_json='[{"type": "function"}]',
                              skip_chat_parsing=True)
    link = ui.Permalink(page="try", example="x", inputs=inputs)
    params = ui.encode_permalink(link)
    assert (params["think"], params["tc"], params["skip"]) == ("0", "required", "1")
    assert ui.decode_permalink(params) == link
    # defaults stay out of the URL
    assert set(ui.encode_permalink(ui.Permalink(page="try", example="x"))) == {"page", "example"}
    assert ui.decode_permalink({"example": "x"}).inputs.is_default


def test_a_permalink_carries_enable_thinking_not_passed_the_date_and_the_dialect():
    inputs = ui.RequestInputs(thinking_passed=False, date="2031-03-07T00:00:00", dialect="transformers")
    link = ui.Permalink(page="try", example="x", inputs=inputs)
    params = ui.encode_permalink(link)
    assert (params["think"], params["date"], params["dialect"]) == ("u", "2031-03-07T00:00:00", "transformers")
    assert ui.decode_permalink(params) == link
    # a date as a user types it comes back in one ISO form
    assert ui.decode_permalink({"example": "x", "date": "2031-03-07"}).inputs.date == "2031-03-07T00:00:00"
    assert "dialect" not in ui.encode_permalink(ui.Permalink(example="x", inputs=ui.RequestInputs(dialect="llama.cpp")))


def test_the_transformers_call_of_the_request_controls():
    from datetime import datetime

    from explorer.errors import RequestError

    call = ui.transformers_call(False, " 2031-03-07 ")
    assert not call.thinking_passed and call.date == datetime(2031, 3, 7) and call.clock() == datetime(2031, 3, 7)
    assert ui.transformers_call(True, "").clock is None  # the real clock
    with pytest.raises(RequestError, match="expected an ISO date"):
        ui.transformers_call(True, "7 March")


@pytest.mark.parametrize("params, phrase", [
    ({"think": "yes"}, "think: expected 0, 1 or u (not passed), found 'yes'"),
    ({"date": "tomorrow"}, "date: expected an ISO date"),
    ({"dialect": "vllm"}, "dialect: expected one of llama.cpp, transformers, found 'vllm'"),
    ({"skip": "2"}, "skip: expected 0 or 1"),
    ({"tc": "always"}, "tc: expected one of auto, required, none, found 'always'"),
])
def test_bad_request_parameters_in_a_link_are_named(params, phrase):
    with pytest.raises(SourceError, match=re.escape(phrase)):
        ui.decode_permalink({"example": "x", **params})


def test_tools_too_long_for_a_url_are_left_out_of_the_link():
    huge = json.dumps([{"type": "function", "function": {"name": f"tool{i}", "description": os.urandom(64).hex()}}
                       for i in range(300)])
    link = ui.permalink_for(ui.SourceRequest("example", name="x"), None, "try",
                            inputs=ui.RequestInputs(thinking=False, tools_json=huge))
    assert link is not None and link.inputs == ui.RequestInputs(thinking=False)


def test_decode_accepts_list_values_and_gives_a_source_request():
    link = ui.decode_permalink({"hf": ["ignored/old", "owner/model@v1#rag"], "page": "analysis"})
    assert link.source_request() == ui.SourceRequest("hub", name="owner/model", revision="v1", variant="rag")
    assert ui.decode_permalink({"example": "x"}).source_request() == ui.SourceRequest("example", name="x")
    assert ui.decode_permalink({}).source_request() is None


def test_permalink_for_chooses_the_shortest_faithful_form():
    ex = ui.SourceRequest("example", name="qwen3")
    assert ui.permalink_for(ex, "ignored", "probes") == ui.Permalink(page="probes", example="qwen3")
    hub = ui.SourceRequest("hub", name="o/m", revision="main", variant="default")
    assert ui.permalink_for(hub, "x", None).hf == "o/m@main#default"
    # an uploaded file is shared as its (selected) template text
    up = ui.SourceRequest("upload", name="tokenizer_config.json", data=b"{}", variant="tool_use")
    assert ui.permalink_for(up, "{{ x }}", "template").text == "{{ x }}"
    import random

    rng = random.Random(7)
    noise = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz{}%<>|") for _ in range(20_000))
    assert ui.permalink_for(ui.SourceRequest("text", text=noise), noise, "template") is None
    # a long output is dropped from the link, the template stays
    assert ui.permalink_for(ex, None, "try", output=noise) == ui.Permalink(page="try", example="qwen3")
    assert ui.permalink_for(ex, None, "try", output="hi").output == "hi"


def test_hf_spec_round_trip_and_rejects_bad_ids():
    assert ui.parse_hf_spec(ui.hf_spec("a/b", "rev", "v")) == ("a/b", "rev", "v")
    assert ui.parse_hf_spec("hf:a/b") == ("a/b", None, None)
    with pytest.raises(SourceError):
        ui.parse_hf_spec("not-a-repo")


def test_source_request_cache_key_tracks_uploaded_bytes_and_variant():
    a = ui.SourceRequest("upload", name="t.json", data=b"one")
    b = ui.SourceRequest("upload", name="t.json", data=b"two")
    assert a.cache_key() != b.cache_key()
    assert a.with_variant("rag").cache_key() != a.cache_key()
    assert a.with_variant("rag").data == b"one"


# --- bug report ---------------------------------------------------------------------


def test_bug_report_fences_survive_backticks_and_truncate_long_templates():
    template = "```\n{{ x }}\n````" + "y" * 50
    md = ui.bug_report_markdown(
        title="Parse drops content",
        source_name="mine.jinja",
        source_origin="upload",
        sha256="ab" * 32,
        template_text=template,
        handler="autoparser",
        raw_output="Hi <tool_call>",
        parsed_json='{"content": "Hi"}',
        max_template_chars=30,
    )
    assert md.startswith("### Parse drops content\n")
    assert "`autoparser`" in md and "0c1e5709" in md
    # the template holds a run of four backticks, so its fence needs five
    assert "`````jinja\n```\n{{ x }}\n````" in md
    assert "truncated to 30 of" in md
    assert "```\nHi <tool_call>\n```" in md


# --- parse trees and requests -----------------------------------------------------------


class _Node:
    def __init__(self, tag, rule, start, end, children=()):
        self.tag, self.rule, self.start, self.end, self.children = tag, rule, start, end, tuple(children)


def test_ast_spans_by_tag_or_rule_with_offset():
    tree = [_Node("", "root", 0, 12, [_Node("reasoning", "", 3, 7), _Node("content", "body", 7, 12)])]
    assert sorted(ui.ast_spans(tree, offset=3), key=lambda s: s.start) == [
        ui.Span(0, 4, "reasoning"), ui.Span(4, 9, "content")]
    assert {s.tag for s in ui.ast_spans(tree, by="rule")} == {"root", "body"}


def test_parse_tools_json_accepts_lists_and_single_tools_and_reports_errors():
    from explorer.errors import RequestError

    tool = {"type": "function", "function": {"name": "f", "parameters": {}}}
    assert ui.parse_tools_json("") is None
    assert ui.parse_tools_json('[{"type": "function", "function": {"name": "f", "parameters": {}}}]') == [tool]
    assert ui.parse_tools_json('{"type": "function", "function": {"name": "f", "parameters": {}}}') == [tool]
    with pytest.raises(RequestError, match="line 2, column 1"):
        ui.parse_tools_json("[\n}")
    with pytest.raises(RequestError, match="tools\\[0\\]"):
        ui.parse_tools_json('[{"type": "function"}]')
    with pytest.raises(RequestError, match="list of tool objects"):
        ui.parse_tools_json('"f"')


# --- sample replies: the session's, cut by the round trip's rules (once ui_support's) -------------

TAGGED = ("{% for m in messages %}<{{ m.role[0] }}>{{ m.content }}</{{ m.role[0] }}>{{ end }}{% endfor %}"
          "{% if add_generation_prompt %}<a>{{ opens }}{% endif %}")


def sample(template: str, kind: str = "reply") -> str | None:
    from explorer.session import open_session

    session = open_session(template)
    return session.sample_reply(kind, session.request(enable_thinking=False))


def test_a_sample_reply_is_the_rendering_after_the_prompt_without_its_end_marker():
    # R = <u>Hello</u><a>REPLY</a>, P = <u>Hello</u><a>: the reply is what follows P, and the
    # text after a plain assistant turn ("</a>") is the end marker a model stops on
    assert sample(TAGGED.replace("{{ end }}", "").replace("{{ opens }}", "")) == "The weather in Paris is sunny."
    # the end marker as the X / XY probes find it, whitespace after it included
    with_newline = TAGGED.replace("{{ end }}", "<|end|>\n").replace("{{ opens }}", "")
    assert sample(with_newline) == "The weather in Paris is sunny."


def test_an_x_in_the_template_text_does_not_confuse_the_end_marker():
    template = "{% for m in messages %}X-{{ m.role }}: {{ m.content }}[/X]{% endfor %}"
    assert sample(template) == "X-assistant: The weather in Paris is sunny."


def test_a_generation_prompt_the_history_does_not_repeat_is_cut_by_the_round_trips_rules():
    # the generation prompt opens <think>, a history turn does not: the prompt is no prefix of
    # the rendering, so the reply starts where they part, moved back to a tag boundary
    # (the oracle harness' "snapped" rule; the page's own cut used to give no sample here)
    opens = TAGGED.replace("{{ end }}", "").replace("{{ opens }}", "<think>")
    assert sample(opens) == "The weather in Paris is sunny."


def test_a_template_that_refuses_assistant_turns_has_no_sample():
    refuses = ("{% for m in messages %}{% if m.role == 'assistant' %}{{ raise_exception('no') }}{% endif %}"
               "<{{ m.role }}>{{ m.content }}{% endfor %}{% if add_generation_prompt %}<a>{% endif %}")
    assert sample(refuses) is None


# --- fixture verdicts ---------------------------------------------------------------------


def _message(content="", reasoning="", calls=()):
    from types import SimpleNamespace

    return SimpleNamespace(content=content, reasoning_content=reasoning,
                           tool_calls=tuple(SimpleNamespace(name=n, arguments=a) for n, a in calls))


def test_fixture_verdict_uses_canitoolcalls_comparison():
    import json as _json

    from canitoolcall.fixtures import load_families, load_fixtures

    fixtures = load_fixtures(families=["qwen3-hermes"])
    family = load_families()["qwen3-hermes"]
    fx = next(f for f in fixtures if f.expected is not None and f.expected.tool_calls)
    exp = fx.expected
    perfect = _message(exp.content or "", exp.reasoning_content or "",
                       [(c.name, _json.dumps(dict(c.arguments))) for c in exp.tool_calls])
    assert ui.fixture_verdict(fx, family, perfect, None).status == "pass"
    wrong = _message(exp.content or "", exp.reasoning_content or "", [("other_tool", "{}")])
    verdict = ui.fixture_verdict(fx, family, wrong, None)
    assert verdict.status == "fail" and "other_tool" in verdict.detail
    raised = ui.fixture_verdict(fx, family, None, "std::runtime_error: no match")
    assert raised.status == "fail" and raised.got["exception"] == "std::runtime_error: no match"


def test_fixture_verdict_for_expected_errors_follows_the_accepted_outcomes():
    from canitoolcall.fixtures import load_families, load_fixtures

    fixtures = load_fixtures()
    fx = next(f for f in fixtures if f.expected_error is not None and "exception" in f.expected_error.accept)
    family = load_families()[fx.family]
    assert ui.fixture_verdict(fx, family, None, "std::runtime_error: x").status == "pass"
    called = _message("", "", [("get_weather", "{}")])
    assert ui.fixture_verdict(fx, family, called, None).status == "fail"


def test_flatten_and_compare_nested_fields():
    a = {"reasoning": {"mode": "TAG_BASED", "start": "<think>"}, "tokens": ["a"], "caps": {}}
    b = {"reasoning": {"mode": "NONE", "start": "<think>"}, "tokens": ["a"], "extra": 1}
    assert ui.flatten_json(a) == {"reasoning.mode": "TAG_BASED", "reasoning.start": "<think>", "tokens": ["a"], "caps": {}}
    changes = {c.field: c for c in ui.compare_fields(a, b)}
    assert not changes["reasoning.mode"].same and changes["reasoning.start"].same
    assert changes["tokens"].same
    assert (changes["extra"].a, changes["extra"].b) == (None, 1)
    assert (changes["caps"].a, changes["caps"].b) == ({}, None)


def test_changes_table_tints_the_differences_and_can_hide_the_rest():
    from explorer.comparison import FieldChange
    from explorer.ui_support.changes import CHANGED_BG, changes_table_html

    rows = [FieldChange("a", "<x>\n", "<y>\n"), FieldChange("b", True, True)]
    both = changes_table_html(rows, False, ("original", "what-if"))
    assert both.count("<tr") == 3 and both.count(CHANGED_BG) == 1 and ">what-if</th>" in both
    assert "&lt;y&gt;" in both  # values escaped, as markers
    only = changes_table_html(rows, True)
    assert only.count("<tr") == 2 and "<code>b</code>" not in only
    assert changes_table_html(rows[1:], True) == "<i>no differences</i>"
