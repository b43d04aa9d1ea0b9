"""Phase 3, the finer tool-call markers of tag formats: T3, A1, A2, T5, T6, T7.

Input: a ``Draft`` whose tool format and section/per-call markers are set (T1, T2).
Output: function name prefix/suffix/separator/close (T3), argument name and value
markers (A1, A2), the argument separator (T5), argument block markers (T6, JSON only)
and call-id position and markers (T7), as llama.cpp's ``analyze_tools`` sets them.
"""

from __future__ import annotations

from explorer.analysis.diff import common_prefix_len, trim_leading_whitespace, trim_whitespace, until_common_prefix
from explorer.analysis.draft import Draft
from explorer.analysis.matcher import (
    ANY,
    LAST_MARKER,
    MARKER,
    NON_MARKER_TEXT,
    REST,
    SPACE,
    choice,
    find_first_marker,
    find_last_marker,
    lit,
    negate,
    scan_until,
    seq,
    tag,
    until,
    until_one_of,
    zero_or_more,
)
from explorer.analysis.model import CallIdPosition, ToolFormat
from explorer.analysis.probes import ARG_FIRST, ARG_SECOND, CALL_ID_001, CALL_ID_999, FUN_FIRST, FUN_SECOND
from explorer.analysis.session import Comparison
from explorer.errors import AnalysisError, Location

_NAME = seq(tag("pre", until(FUN_FIRST)), lit(FUN_FIRST), tag("post", NON_MARKER_TEXT))
_JSON_NAME_SUFFIX = seq(
    tag("ext", zero_or_more(choice(MARKER, seq(negate("{"), negate("["), ANY)))),
    NON_MARKER_TEXT, MARKER,
)
_TAGGED_NAME_SUFFIX = tag("ext", NON_MARKER_TEXT)
_ARG_START = seq(MARKER, SPACE, choice(ARG_FIRST, ARG_SECOND))
_SEPARATOR = seq(tag("sep", scan_until(_ARG_START)), _ARG_START)
_TAGGED_CLOSER = seq(until("YYYY"), "YYYY", SPACE, MARKER, SPACE, tag("close", REST))
_JSON_CLOSER = seq(until("YYYY"), "YYYY", tag("post_val", REST))
_ARG_NAME_LEFT = seq(tag("pre", until(ARG_FIRST)), lit(ARG_FIRST), tag("suffix", until_one_of('"', "X")))
_ARG_NAME_RIGHT = seq(tag("pre", until(ARG_SECOND)), lit(ARG_SECOND), tag("suffix", until_one_of('"', "Y")))
_LAST_MARKER_NAME_PREFIX = seq(scan_until(LAST_MARKER), tag("name_prefix", LAST_MARKER))
_LAST_MARKER_VAL_PREFIX = seq(scan_until(LAST_MARKER), tag("val_prefix", LAST_MARKER))
_ARG_NAME_SUFFIX = tag("suffix", seq(NON_MARKER_TEXT, MARKER, SPACE))


def _end_marker(d: Draft, kind: str) -> str:
    """per_call_<kind> if set, else section_<kind>."""
    marker: str = d[f"tools.format.per_call_{kind}"] or d[f"tools.format.section_{kind}"]
    return marker


def extract_function_markers(d: Draft) -> None:
    cmp = d.session.compare("T3")
    if cmp is None:
        return
    diff = cmp.diff
    if FUN_FIRST not in diff.left or FUN_SECOND not in diff.right:
        d.session.note("T3", "the function names are not where the diff puts them: no function markers")
        return
    mode = d["tools.format.mode"]
    prefix_marker = _end_marker(d, "start")
    if prefix_marker and prefix_marker in diff.prefix:
        d.set("tools.function.name_prefix", diff.prefix[diff.prefix.rfind(prefix_marker) + len(prefix_marker) :],
              "T3", "diff.prefix", "after the last call/section opener")

    name = _NAME.match(diff.left)
    if name.success:
        d.set("tools.function.name_prefix", d["tools.function.name_prefix"] + name.tag("pre"), "T3", "diff.left",
              "before the function name")
        d.set("tools.function.name_suffix", name.tag("post"), "T3", "diff.left", "after the name, up to a marker")

    if mode is ToolFormat.TAG_WITH_JSON:
        ext = _JSON_NAME_SUFFIX.match(diff.suffix)
        if ext.success:
            d.set("tools.function.name_suffix", d["tools.function.name_suffix"] + ext.tag("ext"), "T3",
                  "diff.suffix", "up to the JSON arguments")
    else:
        ext = _TAGGED_NAME_SUFFIX.match(diff.suffix)
        if ext.success:
            d.set("tools.function.name_suffix", d["tools.function.name_suffix"] + ext.tag("ext"), "T3",
                  "diff.suffix", "up to the first argument marker")
            sep = _SEPARATOR.match(diff.suffix[len(ext.tag("ext")) :])
            if sep.success:
                d.set("tools.function.args_separator", trim_whitespace(sep.tag("sep")), "T3", "diff.suffix",
                      "between the name and the first argument marker")

    closer_suffix, closer_probe = _closer_suffix(d, cmp)
    if closer_suffix:
        if mode is ToolFormat.TAG_WITH_TAGGED:
            close = _TAGGED_CLOSER.match(closer_suffix)
            if close.success:
                d.set("tools.function.close", close.tag("close"), closer_probe, "diff",
                      "after the last argument's closing marker")
        elif mode is ToolFormat.TAG_WITH_JSON:
            close = _JSON_CLOSER.match(closer_suffix)
            if close.success:
                post = close.tag("post_val")
                pos = max(post.rfind("}"), post.rfind("]"))
                if 0 <= pos < len(post) - 1:
                    d.set("tools.function.close", trim_leading_whitespace(post[pos + 1 :]), closer_probe, "diff",
                          "after the JSON arguments")
    close = d["tools.function.close"]
    if close != trim_leading_whitespace(close):
        d.set("tools.function.close", trim_leading_whitespace(close), "T3", None, "leading whitespace trimmed")


def _closer_suffix(d: Draft, cmp: Comparison) -> tuple[str, str]:
    suffix_marker = _end_marker(d, "end")
    if suffix_marker:
        pos = cmp.diff.suffix.find(suffix_marker)
        return (cmp.diff.suffix if pos < 0 else cmp.diff.suffix[:pos]), "T3"
    nocall = d.session.compare("T3.closer")
    if nocall is None:
        return "", "T3.closer"
    left = nocall.diff.left
    pos = left.find("YYYY")
    # llama.cpp quirk: without "YYYY", find() + 4 wraps npos round to 3.
    start = pos + 4 if pos >= 0 else 3
    if start > len(left):
        raise AnalysisError(
            f"probe T3.closer: no 'YYYY' in a diff shorter than 3 bytes ({left!r}); llama.cpp throws "
            "out_of_range here", Location(probe="T3.closer"),
        )
    if pos < 0:
        d.session.note("T3.closer", "no 'YYYY' in the diff: the reference cuts at byte 3 (npos + 4)")
    return left[start:], "T3.closer"


def extract_argument_name_markers(d: Draft) -> None:
    cmp = d.session.compare("A1")
    if cmp is None:
        return
    diff = cmp.diff
    if not diff.left or not diff.right:
        return
    left = _ARG_NAME_LEFT.match_anywhere(diff.left)
    right = _ARG_NAME_RIGHT.match_anywhere(diff.right)
    if (left.success and right.success and left.tag("pre") and left.tag("pre") == right.tag("pre")
            and left.tag("suffix") == right.tag("suffix")):
        why = "the structure shared around both names"
        d.set("tools.arguments.name_prefix", left.tag("pre"), "A1", "diff.left", why)
        d.set("tools.arguments.name_suffix", left.tag("suffix"), "A1", "diff.left", why)
    elif diff.left.startswith(ARG_FIRST) and diff.right.startswith(ARG_SECOND):
        pre = _LAST_MARKER_NAME_PREFIX.match(diff.prefix)
        if pre.success:
            d.set("tools.arguments.name_prefix", pre.tag("name_prefix"), "A1", "diff.prefix",
                  "the last marker before the name")
        else:
            d.set("tools.arguments.name_prefix", diff.prefix, "A1", "diff.prefix", "no marker: the whole prefix")
        suffix = _ARG_NAME_SUFFIX.match_anywhere(diff.left[len(ARG_FIRST) :] + diff.suffix)
        if suffix.success:
            d.set("tools.arguments.name_suffix", suffix.tag("suffix"), "A1", "diff.left+diff.suffix",
                  "up to and including the next marker")
    else:
        d.session.note("A1", "the argument names sit in neither a shared structure nor at the diff start")


def extract_argument_value_markers(d: Draft) -> None:
    cmp = d.session.compare("A2")
    if cmp is None:
        return
    diff = cmp.diff
    if diff.left != "XXXX" or diff.right != "YYYY":
        d.session.note("A2", "the diff is not exactly the two values: no value markers")
        return
    name_ending = ARG_FIRST + d["tools.arguments.name_suffix"]
    prefix = diff.prefix
    if name_ending in prefix:
        prefix = prefix[prefix.rfind(name_ending) + len(name_ending) :]
    if prefix:
        pre = _LAST_MARKER_VAL_PREFIX.match(prefix)
        d.set("tools.arguments.value_prefix", pre.tag("val_prefix") if pre.success else prefix, "A2",
              "diff.prefix", "between the argument name and its value")
    value_suffix = diff.suffix
    close = d["tools.function.close"]
    if close:
        pos = value_suffix.find(close)
        if pos >= 0:
            value_suffix = value_suffix[:pos]
    else:
        end_marker = _end_marker(d, "end")
        if end_marker:
            pos = value_suffix.find(end_marker)
            if pos >= 0:
                value_suffix = value_suffix[:pos]
    if trim_whitespace(value_suffix):
        d.set("tools.arguments.value_suffix", value_suffix, "A2", "diff.suffix",
              "after the value, up to the function close or end marker")


def extract_argument_separator(d: Draft) -> None:
    cmp = d.session.compare("T5")
    if cmp is None:
        return
    if cmp.diff.right:
        # llama.cpp quirk: the two argument names share no prefix, so this is always "".
        d.set("tools.arguments.separator", until_common_prefix(cmp.diff.right, ARG_FIRST, ARG_SECOND), "T5",
              "diff.right", "until_common_prefix(AA_ARG_FST_AA, BB_ARG_SND_BB) is always empty")


def extract_args_markers(d: Draft) -> None:
    d.session.compare("T6")
    # llama.cpp quirk: T6 extracts markers only for JSON_NATIVE, but it only runs for tag
    # formats, so it never sets anything; the probe is still rendered.
    d.session.note("T6", "only used for JSON_NATIVE, which never reaches this probe: nothing set")


def extract_call_id_markers(d: Draft) -> None:
    cmp = d.session.compare("T7")
    if cmp is None:
        return
    diff = cmp.diff
    if not diff.left and not diff.right:
        d.session.note("T7", "the call id does not render: no call id")
        return
    common_id = CALL_ID_001[: common_prefix_len(CALL_ID_001, CALL_ID_999)]
    in_prefix = diff.prefix.rfind(FUN_FIRST)
    in_suffix = diff.suffix.find(FUN_FIRST)
    pos, id_prefix, id_suffix = CallIdPosition.NONE, "", ""

    if in_prefix >= 0 and in_suffix < 0:
        args_in_prefix = diff.prefix.find("{", in_prefix)
        args_in_suffix = diff.suffix.find("{")
        if args_in_suffix >= 0 and args_in_prefix < 0:
            pos = CallIdPosition.BETWEEN_FUNC_AND_ARGS
            after_func = diff.prefix[in_prefix + len(FUN_FIRST) :]
            found = seq(tag("prefix", MARKER), scan_until(MARKER, lit(common_id)), lit(common_id)) \
                .match_anywhere(after_func)
            id_prefix = found.tag("prefix") if found.success else find_last_marker(after_func)
            suffix = seq(scan_until(MARKER, "{"), tag("suffix", MARKER)).match_anywhere(diff.suffix)
            if suffix.success:
                id_suffix = suffix.tag("suffix")
        elif args_in_prefix >= 0:
            pos = CallIdPosition.POST_ARGS
            after_args = diff.prefix[args_in_prefix:]
            brace = after_args.rfind("}")
            if brace >= 0:
                id_prefix = find_last_marker(after_args[brace + 1 :])
            id_suffix = find_first_marker(diff.suffix)
    elif in_suffix >= 0 and in_prefix < 0:
        pos = CallIdPosition.PRE_FUNC_NAME
        id_prefix = find_last_marker(diff.prefix)
        id_suffix = find_first_marker(diff.suffix[:in_suffix])

    if id_prefix == d["tools.arguments.end"]:
        id_prefix = ""
    if id_suffix == d["tools.arguments.start"]:
        id_suffix = ""
    if pos is not CallIdPosition.NONE:
        d.set("tools.call_id.pos", pos, "T7", "diff", "where the function name and '{' sit around the id")
    if id_prefix:
        d.set("tools.call_id.prefix", id_prefix, "T7", "diff.prefix", "marker before the id")
    if id_suffix:
        d.set("tools.call_id.suffix", id_suffix, "T7", "diff.suffix", "marker after the id")
    per_call_end = d["tools.format.per_call_end"]
    if pos is not CallIdPosition.NONE and id_suffix and per_call_end.startswith(id_suffix):
        d.set("tools.format.per_call_end", "", "T7", "diff.suffix", "it began with the call id suffix")
