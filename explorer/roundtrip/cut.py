"""Cutting the model's reply out of a rendered conversation, as llama.cpp's oracle harness does.

Input: the rendering R of ``[user, assistant MESSAGE]``, the next-turn prompt P and its
generation prompt G; the two end-marker probe renderings; the request's additional stops.
Output: ``Cut`` (where the reply starts and which rule found it), the probed end marker,
and ``Strip`` (the reply without its end-of-turn text and the rule that removed it).

Indices are code points: a common prefix counted in UTF-8 bytes and moved back to the
start of a character ends at the same place.
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.analysis.diff import WHITESPACE, common_prefix_len

# A cut moved back stops after one of these, so it never falls inside a marker like <think>.
BOUNDARY = frozenset(">]}): \t\r\n")


@dataclass(frozen=True)
class Cut:
    raw_output: str
    rule: str  # prompt, generation_prompt_found, snapped, snapped_in_generation_prompt, generation_prompt_tail_found
    prompt_is_prefix: bool
    prompt_unmatched: str  # P after the common prefix moved back to a boundary
    raw_output_simple: str  # R after the plain common prefix


@dataclass(frozen=True)
class EndMarker:
    marker: str | None  # None unless the probe is "ok"
    probe: str  # ok, ambiguous


@dataclass(frozen=True)
class Strip:
    text: str
    rule: str  # end_marker, end_marker_trimmed, additional_stop, none
    suffix: str  # what was removed


def _snap_back(text: str, pos: int, floor: int) -> int:
    while pos > floor and text[pos - 1] not in BOUNDARY:
        pos -= 1
    return pos


def _generation_prompt_found(rendering: str, k: int, generation_prompt: str) -> int | None:
    """End of the first G in R that ends after k and starts at/before k or after only whitespace."""
    if not generation_prompt:
        return None
    start = rendering.find(generation_prompt)
    while start != -1:
        end = start + len(generation_prompt)
        if end > k and (start <= k or not rendering[k:start].strip(WHITESPACE)):
            return end
        start = rendering.find(generation_prompt, start + 1)
    return None


def _tail_piece(rendering: str, cut: int, unmatched: str) -> str:
    """The longest final piece of the unmatched prompt text that R continues with at the cut."""
    for j in range(len(unmatched)):
        if j and unmatched[j - 1] not in BOUNDARY:
            continue
        piece = unmatched[j:]
        if piece.strip(WHITESPACE) and rendering.startswith(piece, cut):
            return piece
    return ""


def cut_reply(rendering: str, prompt: str, generation_prompt: str) -> Cut:
    if rendering.startswith(prompt):
        raw = rendering[len(prompt):]
        return Cut(raw, "prompt", True, "", raw)
    k = common_prefix_len(rendering, prompt)
    simple = rendering[k:]
    unmatched = prompt[_snap_back(prompt, k, 0):]
    found = _generation_prompt_found(rendering, k, generation_prompt)
    if found is not None:
        return Cut(rendering[found:], "generation_prompt_found", False, unmatched, simple)
    g_start = len(prompt) - len(generation_prompt)
    inside_g = bool(generation_prompt) and prompt.endswith(generation_prompt) and k >= g_start
    floor = g_start if inside_g else 0
    cut = _snap_back(rendering, k, floor)
    rule = "snapped_in_generation_prompt" if inside_g else "snapped"
    piece = _tail_piece(rendering, cut, prompt[cut:])
    if piece:
        cut += len(piece)
        rule = "generation_prompt_tail_found"
    return Cut(rendering[cut:], rule, False, unmatched, simple)


def probe_end_marker(with_x: str, with_xy: str) -> EndMarker:
    """R1 = A + "X" + S and R2 = A + "XY" + S give S, the text after a plain assistant turn."""
    k = common_prefix_len(with_x, with_xy)
    if with_x[:k].endswith("X") and with_xy == with_x[:k] + "Y" + with_x[k:]:
        return EndMarker(with_x[k:], "ok")
    return EndMarker(None, "ambiguous")


def strip_end(raw: str, end_marker: str | None, additional_stops: tuple[str, ...]) -> Strip:
    if end_marker and raw.endswith(end_marker):
        return Strip(raw[: -len(end_marker)], "end_marker", end_marker)
    trimmed_raw = raw.rstrip(WHITESPACE)
    marker = (end_marker or "").strip(WHITESPACE)
    if marker and trimmed_raw.endswith(marker):
        keep = len(trimmed_raw) - len(marker)
        return Strip(raw[:keep], "end_marker_trimmed", raw[keep:])
    for stop in additional_stops:
        if stop and trimmed_raw.endswith(stop):
            keep = len(trimmed_raw) - len(stop)
            return Strip(raw[:keep], "additional_stop", raw[keep:])
    return Strip(raw, "none", "")
