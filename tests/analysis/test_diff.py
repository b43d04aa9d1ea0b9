"""The marker-aware diff, checked against llama.cpp's own unit-test vectors
(tests/test-chat-auto-parser.cpp and the examples in chat-auto-parser-helpers.h)."""

from __future__ import annotations

import pytest

from explorer.analysis.diff import (
    DiffSplit,
    Segment,
    SegmentType,
    after_common_suffix,
    calculate_diff_split,
    naive_diff_split,
    prune_whitespace_segments,
    segmentize_markers,
    trace_diff,
    trim_trailing_whitespace,
    trim_whitespace,
    until_common_prefix,
)

T, M = SegmentType.TEXT, SegmentType.MARKER


def segs(*pairs):
    return [Segment(t, v) for t, v in pairs]


# --- segmentize_markers (test_marker_separation + header examples) -----------

SEGMENT_VECTORS = [
    ("pre_marker[marker]post_marker", segs((T, "pre_marker"), (M, "[marker]"), (T, "post_marker"))),
    ("pre_marker<marker>post_marker", segs((T, "pre_marker"), (M, "<marker>"), (T, "post_marker"))),
    ("<hello>world</hello>", segs((M, "<hello>"), (T, "world"), (M, "</hello>"))),
    ("<hello>[hello]<world>[world]", segs((M, "<hello>"), (M, "[hello]"), (M, "<world>"), (M, "[world]"))),
    (
        "im<blue>daba<dee>da[hey]",
        segs((T, "im"), (M, "<blue>"), (T, "daba"), (M, "<dee>"), (T, "da"), (M, "[hey]")),
    ),
    (
        "<html><head><title>The site title</title><body><div>Here's some <b>content</b></div></body></html>",
        segs(
            (M, "<html>"), (M, "<head>"), (M, "<title>"), (T, "The site title"), (M, "</title>"),
            (M, "<body>"), (M, "<div>"), (T, "Here's some "), (M, "<b>"), (T, "content"),
            (M, "</b>"), (M, "</div>"), (M, "</body>"), (M, "</html>"),
        ),
    ),
    (
        "<|tool_call|>[args]{ are here }[/args]<|tool_call_end|>",
        segs(
            (M, "<|tool_call|>"), (M, "[args]"), (T, "{ are here }"), (M, "[/args]"),
            (M, "<|tool_call_end|>"),
        ),
    ),
]


@pytest.mark.parametrize("text,expected", SEGMENT_VECTORS)
def test_segmentize_markers(text, expected):
    assert segmentize_markers(text) == expected


def test_segmentize_unclosed_marker_starts_its_own_text_segment():
    # The reference pushes the text before an opener, then the unclosed rest.
    assert segmentize_markers("abc<def") == segs((T, "abc"), (T, "<def"))
    assert segmentize_markers("a[b<c]d") == segs((T, "a"), (M, "[b<c]"), (T, "d"))
    assert segmentize_markers("") == []


def test_prune_whitespace_segments_header_example():
    x = segmentize_markers("<tool_call>\n<function=foo>\n<arg=bar>\n   \n</arg>\n</function>\n</tool_call>")
    assert [s.value for s in x] == [
        "<tool_call>", "\n", "<function=foo>", "\n", "<arg=bar>", "\n   \n", "</arg>", "\n",
        "</function>", "\n", "</tool_call>",
    ]
    assert [s.value for s in prune_whitespace_segments(x)] == [
        "<tool_call>", "<function=foo>", "<arg=bar>", "</arg>", "</function>", "</tool_call>",
    ]


# --- calculate_diff_split ----------------------------------------------------

# (left, right, prefix, left_part, right_part, suffix) from test_calculate_diff_split_*
SPLIT_VECTORS = [
    # basic
    ("hello world", "hello test", "hello ", "world", "test", ""),
    ("abc", "xyz", "", "abc", "xyz", ""),
    ("prefixA suffix", "prefixB suffix", "prefix", "A", "B", " suffix"),
    # identical
    ("hello", "hello", "hello", "", "", ""),
    ("", "", "", "", "", ""),
    ("a", "a", "a", "", "", ""),
    (
        "<row><row><row><your><boat><gently>", "<row><row><row><your><boat><gently>",
        "<row><row><row><your><boat><gently>", "", "", "",
    ),
    # common prefix
    ("abcdef", "abcxyz", "abc", "def", "xyz", ""),
    ("same", "sameagain", "same", "", "again", ""),
    ("test", "testing", "test", "", "ing", ""),
    # common suffix
    ("123end", "456end", "", "123", "456", "end"),
    ("start", "end", "", "start", "end", ""),
    ("abcsuffix", "xyzsuffix", "", "abc", "xyz", "suffix"),
    # common both
    ("helloXworld", "helloYworld", "hello", "X", "Y", "world"),
    ("ABCmiddleXYZ", "ABCdifferentXYZ", "ABC", "middle", "different", "XYZ"),
    ("startAend", "startBend", "start", "A", "B", "end"),
    ("aa", "ab", "a", "a", "b", ""),
    # empty cases
    ("", "hello", "", "", "hello", ""),
    ("hello", "", "", "hello", "", ""),
    ("a", "", "", "a", "", ""),
    ("", "a", "", "", "a", ""),
    # no common
    ("left", "right", "", "lef", "righ", "t"),
    ("123", "456", "", "123", "456", ""),
    # single char
    ("a", "b", "", "a", "b", ""),
    ("a", "ab", "a", "", "b", ""),
    ("ab", "a", "a", "b", "", ""),
    # overlaps
    ("testing", "test", "test", "ing", "", ""),
    ("Xtest", "Ytest", "", "X", "Y", "test"),
    ("testX", "testY", "test", "X", "Y", ""),
    ("abc", "cba", "", "abc", "cba", ""),
    # tag boundaries
    ("prefix<tag>", "prefix</tag>suffix", "prefix", "<tag>", "</tag>suffix", ""),
    ("prefix<div>content</div>", "prefix<div>different</div>", "prefix<div>", "cont", "differ", "ent</div>"),
    ("<tag>left</tag>", "<tag>righ</tag>", "<tag>", "left", "righ", "</tag>"),
    ("PREFIX</think>Sure", "PREFIX<think>Lemme think</think>Sure", "PREFIX", "", "<think>Lemme think", "</think>Sure"),
    # header examples
    (
        "<html><body>Something</body></html>", "<html><body></body><html>",
        "<html><body>", "Something</body></html>", "</body><html>", "",
    ),
]


@pytest.mark.parametrize("left,right,prefix,lpart,rpart,suffix", SPLIT_VECTORS)
def test_calculate_diff_split_vectors(left, right, prefix, lpart, rpart, suffix):
    assert calculate_diff_split(left, right) == DiffSplit(prefix=prefix, suffix=suffix, left=lpart, right=rpart)


def test_tag_boundaries_loose_vectors():
    r = calculate_diff_split("test<tag", "test>content")
    assert r.prefix.startswith("test")
    assert r.left or r.right or r.suffix
    r = calculate_diff_split("test[", "test]value")
    assert r.left or r.right or r.suffix
    r = calculate_diff_split("Hello <world>", "Hello test")
    assert (r.prefix, r.right, r.suffix) == ("Hello ", "test", "")
    assert "<world>" in r.left
    r = calculate_diff_split("test [array]", "test other")
    assert (r.prefix, r.right, r.suffix) == ("test ", "other", "")
    assert "[array]" in r.left


def test_special_token_boundary_is_completed():
    prefix = "SOME_PREFIX"
    suffix = "|><|END_OF_TURN_TOKEN|><|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>"
    left_diff = "<|START_RESPONSE|>Let me help you.<|END_RESPONSE"
    right_diff = (
        "<|START_THINKING|><|END_THINKING|><|START_ACTION|>[\n"
        '    {"tool_call_id": "0", "tool_name": "test_function_name", '
        '"parameters": {"param1": "value1", "param2": "value2"}}\n'
        "]<|END_ACTION"
    )
    r = calculate_diff_split(prefix + left_diff + suffix, prefix + right_diff + suffix)
    assert r.prefix == prefix
    assert r.left == "<|START_RESPONSE|>Let me help you.<|END_RESPONSE|>"
    assert "<|END_ACTION|>" in r.right
    assert r.suffix == "<|END_OF_TURN_TOKEN|><|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>"


def test_generation_prompt_split_is_not_rotated():
    left = "<|im_start|>user\nHello<|im_end|>\n"
    right = left + "<|im_start|>assistant\n<think>\n"
    assert calculate_diff_split(left, right) == DiffSplit(prefix=left, right="<|im_start|>assistant\n<think>\n")

    common = (
        "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"
        "<|im_start|>user\nSearch for files<|im_end|>\n"
        "<|im_start|>assistant\n<think>\nLet me search.\n</think>\n\n"
        "<tool_call>\n<function=search>\n</function>\n</tool_call><|im_end|>\n"
        "<|im_start|>user\n<tool_response>\nNo files found\n</tool_response><|im_end|>\n"
    )
    r = calculate_diff_split(common, common + "<|im_start|>assistant\n<think>\n")
    assert r.left == ""
    assert r.right == "<|im_start|>assistant\n<think>\n"


def test_trace_records_naive_split_and_steps():
    t = trace_diff("prefix<tag>", "prefix</tag>suffix")
    assert t.naive == DiffSplit(prefix="prefix<", left="tag>", right="/tag>suffix")
    assert t.final == calculate_diff_split("prefix<tag>", "prefix</tag>suffix")
    assert [s.name for s in t.steps][:2] == ["segments", "text"]
    assert t.steps[-1].split == t.final

    t = trace_diff("<|im_start|>user\nHi<|im_end|>\n", "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n")
    assert t.steps[-1].name == "left-is-prefix"


def test_naive_split_concatenates_back():
    for left, right, *_ in SPLIT_VECTORS:
        n = naive_diff_split(left, right)
        assert n.prefix + n.left + n.suffix == left
        assert n.prefix + n.right + n.suffix == right


# --- until_common_prefix / after_common_suffix --------------------------------

UNTIL_VECTORS = [
    ("<function name=foo><arg name=bar>", "<arg name=bar>", "<arg name=baz>", "<function name=foo>"),
    ("prefix<test>suffix", "<test>different", "<test>other", "prefix"),
    ("<common>rest", "<common>left", "<common>right", ""),
    ("something", "left", "right", ""),
    ("test", "", "right", ""),
    ("abcXYZ<shared_prefix>rest", "<shared_prefix>left", "<shared_prefix>right", "abcXYZ"),
    # header examples
    ("really want a FUNCTION call", "FUNCTION alpha", "FUNCTION beta", "really want a "),
    ("<tool_call>", "<something>", "<something_else>", ""),
    ("some text", "1234", "abcd", ""),
    # (the header's fourth example, "one arg two args..." -> "one ", is wrong in the
    # header itself: "argument " does not occur in the full text, so the code gives "")
    ("one arg two args three args four", "argument alpha", "argument beta", ""),
]


@pytest.mark.parametrize("full,left,right,expected", UNTIL_VECTORS)
def test_until_common_prefix(full, left, right, expected):
    assert until_common_prefix(full, left, right) == expected


AFTER_VECTORS = [
    ("<function name=foo><arg name=bar>100</arg></function>", "<arg name=bar>100</arg>", "<arg name=baz>535</arg>", "</function>"),
    ("rest<common>", "left<common>", "right<common>", ""),
    ("test", "left", "", ""),
    ("<outer><inner>value</inner></outer>", "<inner>value</inner>", "<inner>different</inner>", "</outer>"),
    ("prefix<shared>rest</shared>", "prefix<shared>left</shared>", "prefix<shared>right</shared>", ""),
    ("<tag>content</tag><extra>", "<tag>value</tag>", "<tag>other</tag>", "<extra>"),
    ("start<middle>end</middle>", "prefix<middle>left</middle>", "prefix<middle>right</middle>", ""),
    # header examples
    ("really want a FUNCTION call", "first FUNCTION", "second FUNCTION", " call"),
    # (the header claims " three args four"; the common suffix is "a-args", absent
    # from the full text, so the code gives "")
    ("one arg two-args three args four", "alpha-args", "beta-args", ""),
]


@pytest.mark.parametrize("full,left,right,expected", AFTER_VECTORS)
def test_after_common_suffix(full, left, right, expected):
    assert after_common_suffix(full, left, right) == expected


def test_trims_use_c_whitespace_only():
    assert trim_whitespace(" \t\n<x>\v\f\r ") == "<x>"
    assert trim_whitespace("\u00a0x\u00a0") == "\u00a0x\u00a0"  # not C whitespace
    assert trim_trailing_whitespace(" ") == ""
    assert trim_trailing_whitespace("a \n") == "a"


def test_split_is_bytewise_on_the_analysis_byte_view():
    # The analysis diffs UTF-8 bytes (as latin-1 characters), like the C++ std::string
    # code: a common prefix may end inside a multi-byte character.
    from explorer.analysis.session import from_bytes, to_bytes

    left, right = to_bytes("say “hi”"), to_bytes("say ”hi”")  # U+201C vs U+201D: E2 80 9C / 9D
    r = calculate_diff_split(left, right)
    assert r.prefix == to_bytes("say ") + "\xe2\x80"
    assert (r.left, r.right) == ("\x9c", "\x9d")
    assert from_bytes(r.prefix + r.left + r.suffix) == "say “hi”"


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_MARKUP = st.text(alphabet="ab<>[]/\n ", max_size=16)


@settings(max_examples=300, deadline=None)
@given(_MARKUP, _MARKUP)
def test_split_always_reassembles_both_sides(a, b):
    r = calculate_diff_split(a, b)
    assert r.prefix + r.left + r.suffix == a
    assert r.prefix + r.right + r.suffix == b
    assert trace_diff(a, b).final == r


def _reference_segmentize(text: str) -> list[Segment]:
    """segmentize_markers exactly as the C++ loop reads, one character at a time."""
    out: list[Segment] = []
    in_marker, opener, border = False, "", 0
    for pos, ch in enumerate(text):
        if not in_marker and ch in "<[":
            if border < pos:
                out.append(Segment(T, text[border:pos]))
            border, in_marker, opener = pos, True, ch
        elif in_marker and ch == {"<": ">", "[": "]"}[opener]:
            out.append(Segment(M, text[border : pos + 1]))
            border, in_marker = pos + 1, False
    if border < len(text):
        out.append(Segment(T, text[border:]))
    return out


@settings(max_examples=500, deadline=None)
@given(_MARKUP)
def test_segmentize_matches_the_reference_loop(text):
    assert segmentize_markers(text) == _reference_segmentize(text)
