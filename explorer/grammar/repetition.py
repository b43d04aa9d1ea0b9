"""An item repeated m..n times, as GBNF text: llama.cpp's ``build_repetition``.

Input: an item's GBNF text, the bounds (``INT_MAX`` for no upper bound, as in C++) and
an optional separator rule. Output: GBNF text (``x?``, ``x*``, ``x{2,5}``, or the item
and separated repeats). The schema converter (``json_schema.py``) uses it for arrays and
string lengths, the regex translator (``pattern.py``) for quantifiers.
"""

from __future__ import annotations

# C++ INT_MAX: the "no upper bound" both callers pass
INT_MAX = 2**31 - 1


def build_repetition(item_rule: str, min_items: int, max_items: int, separator_rule: str = "") -> str:
    has_max = max_items != INT_MAX
    if max_items == 0:
        return ""
    if min_items == 0 and max_items == 1:
        return item_rule + "?"
    if not separator_rule:
        if min_items == 1 and not has_max:
            return item_rule + "+"
        if min_items == 0 and not has_max:
            return item_rule + "*"
        return f"{item_rule}{{{min_items},{max_items if has_max else ''}}}"
    result = item_rule + " " + build_repetition(
        f"({separator_rule} {item_rule})",
        0 if min_items == 0 else min_items - 1,
        max_items - 1 if has_max else max_items,
    )
    if min_items == 0:
        result = f"({result})?"
    return result


__all__ = ["INT_MAX", "build_repetition"]
