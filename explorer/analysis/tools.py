"""Phase 3, tool calls: T1 (format and section markers) and T2 (per-call markers).

Input: a ``Draft`` with reasoning set, and the template's capabilities. Output: every
``tools.*`` field, as llama.cpp's ``analyze_tools`` sets them; the finer markers
(T3, A1, A2, T5, T6, T7) are in ``tool_markers``.
"""

from __future__ import annotations

import json
from typing import Any

from explorer.analysis import tool_markers
from explorer.analysis.diff import calculate_diff_split, trim_leading_whitespace, trim_whitespace
from explorer.analysis.draft import Draft
from explorer.analysis.matcher import (
    END,
    MARKER,
    REST,
    SPACE,
    P,
    choice,
    lit,
    negate,
    seq,
    tag,
    until,
    until_one_of,
)
from explorer.analysis.model import ToolFormat
from explorer.analysis.probes import ARG_FIRST, FUN_FIRST
from explorer.analysis.session import from_bytes, to_bytes
from explorer.caps import Caps
from explorer.errors import AnalysisError, Location

_NOT_FOUND = 1 << 62  # std::string::npos sorts after every real position


def analyze_tools(d: Draft, caps: Caps) -> None:
    analyze_tool_calls(d, caps.supports_parallel_tool_calls)
    mode = d["tools.format.mode"]
    if mode in (ToolFormat.NONE, ToolFormat.JSON_NATIVE):
        return
    if caps.supports_parallel_tool_calls:
        check_per_call_markers(d)
    tool_markers.extract_function_markers(d)
    if mode is ToolFormat.TAG_WITH_TAGGED:
        tool_markers.extract_argument_name_markers(d)
        tool_markers.extract_argument_value_markers(d)
    tool_markers.extract_argument_separator(d)
    tool_markers.extract_args_markers(d)
    tool_markers.extract_call_id_markers(d)


def _in_json(haystack: str, needle: str) -> bool:
    """The needle, quoted, right after ``{`` or ``:`` (whitespace allowed between)."""
    return seq(choice("{", ":"), SPACE, tag("dq", lit(f'"{needle}"'))).match_anywhere(haystack).success


def analyze_tool_calls(d: Draft, supports_parallel: bool) -> None:
    cmp = d.session.compare("T1")
    if cmp is None:
        return
    haystack = cmp.diff.right
    if not haystack:
        d.session.note("T1", "a tool call adds nothing to the rendering: tool format NONE")
        return

    if _in_json(haystack, FUN_FIRST):
        mode, why = ToolFormat.JSON_NATIVE, "the function name is a quoted JSON value"
    elif _in_json(haystack, ARG_FIRST):
        mode, why = ToolFormat.TAG_WITH_JSON, "argument names are quoted JSON keys, the function name is not"
    else:
        mode, why = ToolFormat.TAG_WITH_TAGGED, "neither name appears in a JSON context"
    d.set("tools.format.mode", mode, "T1", "diff.right", why)

    clean = haystack
    start, end = d["reasoning.start"], d["reasoning.end"]
    if start and start in haystack:
        pos = haystack.find(start)
        clean = haystack[:pos] + haystack[pos + len(start) :]
    if end and end in clean:
        pos = clean.find(end)
        clean = clean[:pos] + clean[pos + len(end) :]

    if mode is ToolFormat.JSON_NATIVE:
        _json_native(d, clean)
        if supports_parallel:
            _json_native_parallel_calls(d)
    else:
        _non_json(d, clean)
    # Ending markers never affect content, so their whitespace is relaxed.
    for name in ("tools.format.section_end", "tools.format.per_call_end"):
        if d[name] != trim_whitespace(d[name]):
            d.set(name, trim_whitespace(d[name]), "T1", "diff.right", "whitespace trimmed")


# --- JSON_NATIVE -----------------------------------------------------------------


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _reject_constant(name: str) -> Any:
    raise ValueError(f"invalid JSON literal {name}")


def _parse_call(cut: str) -> Any:
    try:
        return json.loads(from_bytes(cut), parse_constant=_reject_constant)
    except ValueError as exc:
        # llama.cpp quirk: json::parse throws here and the whole analysis fails.
        raise AnalysisError(
            f"the tool call of probe T1 is not valid JSON ({exc}): {from_bytes(cut)[:200]!r}",
            Location(probe="T1"),
        ) from exc


def _json_native(d: Draft, clean: str) -> None:
    json_start = clean.find("{")
    json_end = clean.rfind("}")
    if json_start < 0:
        raise AnalysisError(
            "the JSON tool call of probe T1 has no '{' (llama.cpp throws out_of_range here)",
            Location(probe="T1"),
        )
    count = json_end - json_start + 1
    # substr(start, count): a negative count wraps round to "everything after start"
    cut = clean[json_start : json_start + count] if count >= 0 else clean[json_start:]
    call = _parse_call(cut)
    fields: dict[str, str] = {
        "function_field": d["tools.format.function_field"],
        "name_field": d["tools.format.name_field"],
        "args_field": d["tools.format.args_field"],
        "id_field": "",
        "gen_id_field": "",
    }

    def register(prefix: str, key: str, value: Any) -> None:
        path = f"{prefix}.{key}" if prefix else key
        if isinstance(value, str) and "call0000" in value:
            fields["id_field"] = path
        elif isinstance(value, str) and value == FUN_FIRST:
            fields["name_field"] = path
        elif ARG_FIRST in _dump(value):  # arguments as an object or as a string
            fields["args_field"] = path
        elif "id" in key:
            fields["gen_id_field"] = path

    items = call.items() if isinstance(call, dict) else enumerate(call) if isinstance(call, list) else ()
    for key, value in items:
        key = str(key)
        if key == FUN_FIRST:
            d.set("tools.format.fun_name_is_key", True, "T1", "diff.right", "the function name is the JSON key")
            fields["name_field"] = ""
            fields["args_field"] = ""
            continue
        if isinstance(value, dict) and ARG_FIRST not in _dump(value):
            fields["function_field"] = key
            for sub_key, sub_value in value.items():
                register(key, sub_key, sub_value)
        register("", key, value)
    for name, value in fields.items():
        if value != d[f"tools.format.{name}"]:
            d.set(f"tools.format.{name}", to_bytes(value), "T1", "diff.right", "field of the JSON call")

    wrapped = seq(tag("pre", seq("[", SPACE)), lit(cut), tag("post", seq(SPACE, "]"))).match_anywhere(clean)
    if wrapped.success:
        d.set("tools.format.tools_array_wrapped", True, "T1", "diff.right", "the call sits in a JSON array")
        json_start -= len(wrapped.tag("pre"))
        json_end += len(wrapped.tag("post"))
    json_end += 1

    located = []
    for name in ("name_field", "args_field", "id_field", "gen_id_field"):
        value = d[f"tools.format.{name}"]
        if value:
            pos = clean.find(value)
            located.append((pos if pos >= 0 else _NOT_FOUND, value))
    order = tuple(name for _, name in sorted(located))
    if order:
        d.set("tools.format.parameter_order", order, "T1", "diff.right", "fields in order of appearance")

    section_start = trim_leading_whitespace(clean[:json_start])
    if json_end > len(clean):
        raise AnalysisError("tool call end lies past the rendering (llama.cpp throws out_of_range)",
                            Location(probe="T1"))
    section_end = trim_whitespace(clean[json_end:])
    if d["tools.format.tools_array_wrapped"] and section_end == "]":
        section_end = ""
    if section_start:
        d.set("tools.format.section_start", section_start, "T1", "diff.right", "text before the JSON call")
    if section_end:
        d.set("tools.format.section_end", section_end, "T1", "diff.right", "text after the JSON call")


def _json_native_parallel_calls(d: Draft) -> None:
    cmp = d.session.compare("T1.parallel")
    if cmp is None:
        return
    start = d["tools.format.section_start"]
    if start and start in cmp.diff.right:
        _section_to_per_call(d, "T1.parallel", "the second call repeats the section opener")


def _section_to_per_call(d: Draft, probe: str, why: str) -> None:
    d.set("tools.format.per_call_start", d["tools.format.section_start"], probe, "diff.right", why)
    d.set("tools.format.per_call_end", d["tools.format.section_end"], probe, "diff.right", why)
    d.set("tools.format.section_start", "", probe, "diff.right", why)
    d.set("tools.format.section_end", "", probe, "diff.right", why)


# --- tag formats -----------------------------------------------------------------


def _function_marker_parser(fun: str) -> P:
    angle = seq(
        tag("fun_pre", seq("<", until_one_of(">", fun))), lit(fun),
        tag("fun_post", seq(negate(seq(SPACE, "<")), until(">"), ">")), SPACE,
    )
    # llama.cpp quirk: the bracket form's "fun_post" never consumes the closing "]".
    square = seq(
        tag("fun_pre", seq("[", until_one_of("]", fun))), lit(fun),
        tag("fun_post", seq(negate(seq(SPACE, "[", until("]"), "]")), SPACE)),
    )
    return tag("fun_marker", choice(angle, square))


_TWO_CLOSERS = seq(tag("call_end", seq(MARKER, SPACE)), tag("sec_end", seq(MARKER, SPACE)), END)
_ONE_CLOSER = seq(tag("sec_end", seq(MARKER, SPACE)), END)


def _non_json(d: Draft, clean: str) -> None:
    fun_res = _function_marker_parser(FUN_FIRST).match_anywhere(clean)
    fun_marker = fun_res.tag("fun_marker") if fun_res.success else FUN_FIRST
    per_tool = seq(
        tag("sec_start", seq(MARKER, SPACE)), tag("call_start", seq(MARKER, SPACE)),
        tag("fun_pre", until(fun_marker)), lit(fun_marker), tag("rest", REST),
    )
    result = per_tool.match_anywhere(clean)
    if result.success:
        closers = _TWO_CLOSERS.match_anywhere(result.tag("rest"))
        prefix = fun_res.tag("fun_pre") + d["tools.function.name_prefix"]
        if prefix:
            d.set("tools.function.name_prefix", prefix, "T1", "diff.right", "inside the tag holding the name")
        how = "two markers before the function marker"
    else:
        section = seq(tag("sec_start", seq(MARKER, SPACE)), lit(fun_marker), tag("rest", REST))
        result = section.match_anywhere(clean)
        closers = _ONE_CLOSER.match_anywhere(result.tag("rest"))
        how = "one marker before the function marker"
    if not result.success:
        d.session.note("T1", "no marker directly before the function marker: no section markers")
    for name, value, src in (
        ("per_call_start", result.tag("call_start"), how),
        ("per_call_end", closers.tag("call_end"), "closing markers at the end"),
        ("section_start", result.tag("sec_start"), how),
        ("section_end", closers.tag("sec_end"), "closing markers at the end"),
    ):
        if value:
            d.set(f"tools.format.{name}", value, "T1", "diff.right", src)


def check_per_call_markers(d: Draft) -> None:
    cmp = d.session.compare("T2")
    if cmp is None:
        return
    second = trim_leading_whitespace(calculate_diff_split(cmp.diff.suffix, cmp.diff.right).right)
    start = d["tools.format.section_start"]
    if start and second.startswith(start):
        _section_to_per_call(d, "T2", "the second call starts with the section opener")
    per_call_end = d["tools.format.per_call_end"]
    if per_call_end:
        calls_one = _count(cmp.output_a, per_call_end)
        calls_two = _count(cmp.output_b, per_call_end)
        if calls_one > 0 and calls_one == calls_two:
            why = "the per-call closer appears once however many calls: it closes the section"
            d.set("tools.format.section_end", per_call_end, "T2", "A/B", why)
            d.set("tools.format.per_call_end", "", "T2", "A/B", why)


def _count(haystack: str, needle: str) -> int:
    return haystack.count(needle)
