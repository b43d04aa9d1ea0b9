"""The analysis' small tagged matcher: llama.cpp PEG semantics in non-partial mode."""

from __future__ import annotations

from explorer.analysis.matcher import (
    ANY,
    END,
    LAST_MARKER,
    MARKER,
    NON_MARKER_TEXT,
    REST,
    SPACE,
    choice,
    cp_len,
    find_first_marker,
    find_last_marker,
    lit,
    optional,
    scan_until,
    seq,
    tag,
    until,
    until_one_of,
)
from explorer.analysis.session import from_bytes, to_bytes


def test_until_stops_at_delimiter_or_at_a_tail_that_starts_one():
    p = seq(tag("t", until("</x>")), REST)
    assert p.match("abc</x>def").tags["t"] == "abc"
    # the input ends with "</" -- a proper prefix of the delimiter (trie PARTIAL_MATCH)
    assert p.match("abc</").tags["t"] == "abc"
    assert p.match("abc").tags["t"] == "abc"
    assert tag("t", until_one_of('"', "X")).match('ab"cX').tags["t"] == "ab"
    assert tag("t", until_one_of('"', "X")).match("abXc").tags["t"] == "ab"


def test_marker_and_last_marker():
    assert tag("m", MARKER).match("<a<b>c").tags["m"] == "<a<b>"
    assert not MARKER.match("<abc").success
    assert tag("m", MARKER).match("[x]y").tags["m"] == "[x]"
    assert find_last_marker("text <a> more [b] tail") == "[b]"
    assert find_last_marker("no markers") == ""
    assert find_first_marker("x [a] <b>") == "[a]"
    assert seq(NON_MARKER_TEXT, END).match("plain text").success
    assert LAST_MARKER.match("<z> tail").success and not LAST_MARKER.match("<z> <y>").success


def test_anywhere_takes_the_first_start_that_succeeds():
    p = seq(tag("pre", seq(MARKER, SPACE)), lit("BODY"), tag("post", seq(SPACE, MARKER, SPACE)), REST)
    m = p.match_anywhere("<a> x <b>\nBODY\n</b>\n rest")
    assert m.success and m.tags == {"pre": "<b>\n", "post": "\n</b>\n "}
    assert not p.match_anywhere("<b>BODY").success
    assert p.match_anywhere("").success is False


def test_scan_first_patterns_resume_after_a_failed_scan():
    # zero_or_more(!marker !"{" .) marker: the first marker reached before any "{".
    p = seq(scan_until(MARKER, "{"), tag("s", MARKER))
    assert p.match_anywhere("ab{cd<m>ef").tags["s"] == "<m>"
    assert p.match_anywhere("ab{cd").success is False


def test_optional_and_repetition_drop_empty_matches():
    p = seq(lit("R"), SPACE, optional(tag("post", seq(MARKER, SPACE))), REST)
    assert p.match("R  <e> x").tags == {"post": "<e> "}
    assert p.match("R x").tags == {}
    assert choice("a", "b").match("b").success and not choice("a", "b").match("c").success


def test_bytes_view_and_any_on_utf8():
    text = to_bytes("<｜tool▁sep｜>é")
    assert from_bytes(text) == "<｜tool▁sep｜>é"
    assert tag("m", MARKER).match(text).tags["m"] == to_bytes("<｜tool▁sep｜>")
    # any() takes a whole UTF-8 code point and refuses a stray continuation byte
    assert cp_len(to_bytes("é"), 0) == (True, 2)
    assert ANY.match(to_bytes("é")).success
    assert not ANY.match(to_bytes("é")[1:]).success
    # space() is C isspace: no-break space is not whitespace
    assert not seq(SPACE, END).match(to_bytes("\u00a0")).success
    assert seq(SPACE, END).match(" \t\n\v\f\r").success
