"""Integer bounds -> GBNF alternatives matching exactly the decimal integers in range.

Input: inclusive ``minimum``/``maximum`` (INT64_MIN/INT64_MAX mean unbounded). Output:
the rule body llama.cpp's ``build_min_max_int`` writes, digit range by digit range.
"""

from __future__ import annotations

from explorer.errors import GrammarError
from explorer.schema import INT64_MAX, INT64_MIN

INT_MAX = 2**31 - 1


def _digit_range(out: list[str], lo: str, hi: str) -> None:
    out.append("[" + (lo if lo == hi else f"{lo}-{hi}") + "]")


def _more_digits(out: list[str], min_digits: int, max_digits: int) -> None:
    out.append("[0-9]")
    if min_digits == max_digits == 1:
        return
    out.append("{" + str(min_digits))
    if max_digits != min_digits:
        out.append(",")
        if max_digits != INT_MAX:
            out.append(str(max_digits))
    out.append("}")


def _dec(ch: str, by: int = 1) -> str:
    return chr(ord(ch) - by)


def _uniform_range(out: list[str], lo: str, hi: str) -> None:
    i = 0
    while i < len(lo) and i < len(hi) and lo[i] == hi[i]:
        i += 1
    if i > 0:
        out.append(f'"{lo[:i]}"')
    if i < len(lo) and i < len(hi):
        if i > 0:
            out.append(" ")
        sub_len = len(lo) - i - 1
        if sub_len > 0:
            lo_sub, hi_sub = lo[i + 1:], hi[i + 1:]
            zeros, nines = "0" * sub_len, "9" * sub_len
            to_reached = False
            out.append("(")
            if lo_sub == zeros:
                _digit_range(out, lo[i], _dec(hi[i]))
                out.append(" ")
                _more_digits(out, sub_len, sub_len)
            else:
                out.append(f"[{lo[i]}] (")
                _uniform_range(out, lo_sub, nines)
                out.append(")")
                if lo[i] < _dec(hi[i]):
                    out.append(" | ")
                    if hi_sub == nines:
                        _digit_range(out, chr(ord(lo[i]) + 1), hi[i])
                        to_reached = True
                    else:
                        _digit_range(out, chr(ord(lo[i]) + 1), _dec(hi[i]))
                    out.append(" ")
                    _more_digits(out, sub_len, sub_len)
            if not to_reached:
                out.append(" | ")
                _digit_range(out, hi[i], hi[i])
                out.append(" ")
                _uniform_range(out, zeros, hi_sub)
            out.append(")")
        else:
            out.append(f"[{lo[i]}-{hi[i]}]")


def _build(out: list[str], min_value: int, max_value: int, decimals_left: int = 16, top_level: bool = True) -> None:
    has_min = min_value != INT64_MIN
    has_max = max_value != INT64_MAX
    if has_min and has_max:
        if min_value < 0 and max_value < 0:
            out.append('"-" (')
            _build(out, -max_value, -min_value, decimals_left, True)
            out.append(")")
            return
        if min_value < 0:
            out.append('"-" (')
            _build(out, 0, -min_value, decimals_left, True)
            out.append(") | ")
            min_value = 0
        min_s, max_s = str(min_value), str(max_value)
        for digits in range(len(min_s), len(max_s)):
            _uniform_range(out, min_s, "9" * digits)
            min_s = "1" + "0" * digits
            out.append(" | ")
        _uniform_range(out, min_s, max_s)
        return
    less_decimals = max(decimals_left - 1, 1)
    if has_min:
        _build_lower_bound(out, min_value, decimals_left, less_decimals, top_level)
        return
    if has_max:
        if max_value >= 0:
            if top_level:
                out.append('"-" [1-9] ')
                _more_digits(out, 0, less_decimals)
                out.append(" | ")
            _build(out, 0, max_value, decimals_left, True)
        else:
            out.append('"-" (')
            _build(out, -max_value, INT64_MAX, decimals_left, False)
            out.append(")")
        return
    raise GrammarError("At least one of min_value or max_value must be set")


def _build_lower_bound(out: list[str], min_value: int, decimals_left: int, less_decimals: int,
                       top_level: bool) -> None:
    if min_value < 0:
        out.append('"-" (')
        _build(out, INT64_MIN, -min_value, decimals_left, False)
        out.append(") | [0] | [1-9] ")
        _more_digits(out, 0, decimals_left - 1)
    elif min_value == 0:
        if top_level:
            out.append("[0] | [1-9] ")
            _more_digits(out, 0, less_decimals)
        else:
            _more_digits(out, 1, decimals_left)
    elif min_value <= 9:
        c = str(min_value)
        range_start = "1" if top_level else "0"
        if c > range_start:
            _digit_range(out, range_start, _dec(c))
            out.append(" ")
            _more_digits(out, 1, less_decimals)
            out.append(" | ")
        _digit_range(out, c, "9")
        out.append(" ")
        _more_digits(out, 0, less_decimals)
    else:
        min_s = str(min_value)
        c = min_s[0]
        if c > "1":
            _digit_range(out, "1" if top_level else "0", _dec(c))
            out.append(" ")
            _more_digits(out, len(min_s), less_decimals)
            out.append(" | ")
        _digit_range(out, c, c)
        out.append(" (")
        _build(out, int(min_s[1:]), INT64_MAX, less_decimals, False)
        out.append(")")
        if c < "9":
            out.append(" | ")
            _digit_range(out, chr(ord(c) + 1), "9")
            out.append(" ")
            _more_digits(out, len(min_s) - 1, less_decimals)


def build_min_max_int(min_value: int, max_value: int) -> str:
    out: list[str] = []
    _build(out, min_value, max_value)
    return "".join(out)
