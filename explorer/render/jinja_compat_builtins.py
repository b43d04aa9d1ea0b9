"""llama.cpp's per-type built-in filters/methods and tests, for the ``llama.cpp`` dialect.

Input: a Python value, a filter/method/test name and its arguments. Output: what the
built-in of that name does in llama.cpp's engine (common/jinja/value.cpp ``get_builtins``
and the ``test_is_*`` globals), or ``LlamaError`` where llama.cpp raises. Filters and
methods share one table per value type, as in llama.cpp: ``x | f(a)`` and ``x.f(a)`` are
the same call.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from typing import Any

from jinja2.runtime import Undefined
from jinja2.utils import Namespace

from explorer.render.jinja_compat_llama import (
    _MISSING,
    FUNCTION_NO_BUILTINS,
    LlamaError,
    LlamaFunction,
    LlamaNotImplemented,
    _arg,
    _truthy,
    as_string,
    f_tojson,
    items_of,
    type_name,
)
from explorer.render.jinja_compat_state import current

# --- shared helpers -----------------------------------------------------------------------


def f_default(v: Any, default: Any = _MISSING, boolean: Any = False, **kwargs: Any) -> Any:
    boolean = kwargs.get("boolean", boolean)
    if _truthy(boolean):
        missing = not _truthy(v)
    else:
        missing = v is None or isinstance(v, Undefined)
    return default if missing else v


def _get_attribute(item: Any, attr: Any, default: Any = _MISSING) -> Any:
    if isinstance(attr, Undefined):
        return default
    if isinstance(item, (list, tuple)):
        if isinstance(attr, str) and attr.isdigit() and attr.isascii():
            attr = int(attr)
        if isinstance(attr, int) and -len(item) <= attr < len(item):
            return item[attr]
        return default
    if isinstance(item, dict):
        return item.get(attr, default) if _hashable(attr) else default
    if isinstance(item, Namespace):
        return dict(items_of(item)).get(attr, default)
    return default


def _hashable(v: Any) -> bool:
    try:
        hash(v)
    except TypeError:
        return False
    return True


def equal(a: Any, b: Any) -> bool:
    """value_t equivalence (``operator==``: ``==``, ``!=``, ``in`` over an array).

    llama.cpp quirk: arrays and objects are only equal when both are "hashable", i.e. hold
    no array, object, undefined or function (tuples are fine), so ``[[1]] == [[1]]`` is
    false; an array never equals a tuple, and objects compare their pairs in order.
    """
    if isinstance(a, Undefined) or isinstance(b, Undefined):
        return isinstance(a, Undefined) and isinstance(b, Undefined)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, str) or isinstance(b, str):  # (tracked strings of caps probes are str subclasses)
        return isinstance(a, str) and isinstance(b, str) and a == b
    if a is None or b is None:
        return a is b
    if type_name(a) == type_name(b) == "Function":
        # llama.cpp quirk: value_func_t::equivalent compares std::function::target<func_hptr>(),
        # which is null for every stored lambda, so any two functions are equal (`m == range`).
        return True
    if isinstance(a, (list, tuple, range)):
        if type_name(a) != type_name(b) or not (_equatable(a) and _equatable(b)) or len(a) != len(b):
            return False
        return all(equal(x, y) for x, y in zip(a, b))
    if isinstance(a, (dict, Namespace)):
        if not isinstance(b, (dict, Namespace)):
            return False
        pa, pb = items_of(a), items_of(b)
        if not (_equatable([v for _, v in pa]) and _equatable([v for _, v in pb])) or len(pa) != len(pb):
            return False
        return all(equal(ka, kb) and equal(va, vb) for (ka, va), (kb, vb) in zip(pa, pb))
    return a is b


def _equatable(items: Any) -> bool:
    """value_array/value_object ``is_hashable``: every item immutable and hashable."""
    for v in items:
        if isinstance(v, (list, dict, Namespace, Undefined)) or callable(v):
            return False
        if isinstance(v, tuple) and not _equatable(v):
            return False
    return True


def compare(a: Any, b: Any, op: str) -> bool:
    """value_compare, used by tests and sort."""
    num = (int, float)
    if isinstance(a, num) and isinstance(b, num) and not (isinstance(a, bool) and isinstance(b, bool)):
        return {"eq": a == b, "ge": a >= b, "gt": a > b, "lt": a < b, "ne": a != b}[op]
    if (isinstance(a, str) and isinstance(b, (str, int, float))) or (
        isinstance(b, str) and isinstance(a, (int, float))
    ):
        x, y = as_string(a).encode(), as_string(b).encode()
        return {"eq": x == y, "ge": x >= y, "gt": x > y, "lt": x < y, "ne": x != y}[op]
    if isinstance(a, bool) and isinstance(b, bool):
        if op in ("eq", "ne"):
            return (a == b) == (op == "eq")
        raise LlamaError("Unsupported comparison operator for bool type")
    return False


# --- per-type built-ins (value.cpp get_builtins) ------------------------------------------

_WS = " \t\n\v\f\r"


def _ascii_upper(s: str) -> str:
    return "".join(c.upper() if c.isascii() else c for c in s)


def _ascii_lower(s: str) -> str:
    return "".join(c.lower() if c.isascii() else c for c in s)


def _title(s: str) -> str:
    out, cap = [], True
    for c in s:
        if c in _WS:
            cap = True
            out.append(c)
        elif cap:
            out.append(c.upper() if c.isascii() else c)
            cap = False
        else:
            out.append(c.lower() if c.isascii() else c)
    return "".join(out)


def _capitalize(s: str) -> str:
    return (_ascii_upper(s[0]) + _ascii_lower(s[1:])) if s else s


def _strip_fn(left: bool, right: bool) -> Callable[..., str]:
    def strip(v: Any, *args: Any, **kwargs: Any) -> str:
        if not isinstance(v, str):
            raise LlamaError("strip() first argument must be a string")
        chars = _arg(args, kwargs, "chars", 0)
        chars = _WS if isinstance(chars, Undefined) else as_string(chars)
        if left and right:
            return v.strip(chars)
        return v.lstrip(chars) if left else v.rstrip(chars)

    return strip


def _split(v: Any, sep: Any = " ", maxsplit: Any = -1, *, right: bool = False) -> list[str]:
    if not isinstance(v, str):
        raise LlamaError(f"{'r' if right else ''}split() first argument must be a string")
    sep = as_string(sep)
    if not sep:
        raise LlamaError("empty separator")
    return v.rsplit(sep, maxsplit) if right else v.split(sep, maxsplit)


def _replace(v: Any, old: Any, new: Any, count: Any = -1) -> str:
    old, new = as_string(old), as_string(new)
    if isinstance(count, int) and count > 0:
        raise LlamaNotImplemented("String replace with count argument not implemented")
    if old == new:
        return v
    hits = len(v) + 1 if not old else v.count(old)
    current().check_size(len(v) + hits * (len(new) - len(old)), "replace() result")
    return v.replace(old, new)


def _format(v: Any, *args: Any, **kwargs: Any) -> str:
    args = args + tuple(kwargs.values())  # llama.cpp passes keyword values positionally
    out, i, k = [], 0, 0
    while i < len(v):
        if v[i] != "{":
            out.append(v[i])
            i += 1
            continue
        if i + 1 >= len(v) or v[i + 1] != "}":
            raise LlamaNotImplemented("format() only supports simple '{}' placeholders")
        if k >= len(args):
            raise LlamaError(f"Function 'format' expected at least {k + 2} arguments, got {len(args) + 1}")
        out.append(as_string(args[k]))
        k += 1
        i += 2
    return "".join(out)


def _indent(v: Any, *args: Any, **kwargs: Any) -> str:
    width = _arg(args, kwargs, "width", 0)
    first = _truthy(_arg(args, kwargs, "first", 1))
    blank = _truthy(_arg(args, kwargs, "blank", 2))
    if not isinstance(v, str):
        raise LlamaError("indent() first argument must be a string")
    if isinstance(width, int) and not isinstance(width, bool):
        current().check_size(max(width, 0) * (v.count("\n") + 1) + len(v), "indent() result")
        pad = " " * width
    elif isinstance(width, str):
        current().check_size(len(width) * (v.count("\n") + 1) + len(v), "indent() result")
        pad = width
    else:
        pad = "    "
    lines = v.split("\n")
    if lines[-1] == "":
        lines.pop()  # std::getline yields no piece after a final newline
    out = ""
    for line in lines:
        if out:
            out += "\n"
        # llama.cpp quirk: "first line" means "nothing written yet", so leading empty
        # lines are swallowed together with their newline.
        if (first if not out else (line or blank)):
            out += pad
        out += line
    if v.endswith("\n"):
        out += "\n" + (pad if blank else "")
    return out


_DIGITS36 = "0123456789abcdefghijklmnopqrstuvwxyz"
_FLOAT_PREFIX = re.compile(
    r"[ \t\n\v\f\r]*([+-]?(?:inf(?:inity)?|nan|(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?))", re.IGNORECASE
)


def _stoi(text: str, base: int) -> int:
    """C++ std::stoi: skip whitespace, read the longest valid prefix, throw if none or too big."""
    i = 0
    while i < len(text) and text[i] in _WS:
        i += 1
    sign = 1
    if i < len(text) and text[i] in "+-":
        sign = -1 if text[i] == "-" else 1
        i += 1
    rest = text[i:].lower()
    if base in (0, 16) and rest.startswith("0x") and len(rest) > 2 and rest[2] in _DIGITS36[:16]:
        rest, base = rest[2:], 16
    elif base == 0:
        base = 8 if rest.startswith("0") else 10
    n = 0
    while n < len(rest) and rest[n] in _DIGITS36[:base]:
        n += 1
    if n == 0:
        raise ValueError("no digits")
    value = sign * int(rest[:n], base)
    if not -(2**31) <= value < 2**31:
        raise ValueError("out of range")
    return value


def _str_int(v: Any, default: Any = _MISSING, base: Any = 10) -> int:
    base = 10 if isinstance(base, Undefined) else int(base)
    if base != 0 and not 2 <= base <= 36:
        raise LlamaError("int() base must be 0 or between 2 and 36")
    if not isinstance(v, str):
        raise LlamaError("int() first argument must be a string")
    try:
        return _stoi(v, base)
    except ValueError:
        return 0 if isinstance(default, Undefined) else int(default)


def _str_float(v: str, default: Any = _MISSING) -> float:
    """C++ std::stod: the longest numeric prefix, else the default."""
    m = _FLOAT_PREFIX.match(v)
    if m is None:
        return 0.0 if isinstance(default, Undefined) else float(default)
    return float(m.group(1))


def _slice(v: Any, *args: Any) -> Any:
    if not args:
        raise LlamaError("Function 'slice' expected at least 2 arguments, got 1")
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (args[0], args[1], args[2] if len(args) > 2 else 1)
    if step == 0:
        raise LlamaError("slice step cannot be zero")
    return v[slice(start, stop, step)]


def _select(reject: bool) -> Callable[..., list]:
    def select(v: Any, *args: Any) -> list:
        if len(args) == 1:
            keep = [x for x in v if _truthy(_get_attribute(x, args[0])) != reject]
        elif len(args) == 2:
            test = _test_fn(as_string(args[0]), "selectattr")
            keep = [x for x in v if _truthy(test(x, args[1])) != reject]
        elif len(args) == 3:
            test = _test_fn(as_string(args[1]), "selectattr")
            keep = [x for x in v if _truthy(test(_get_attribute(x, args[0]), args[2])) != reject]
        else:
            raise LlamaError("selectattr: invalid number of arguments")
        return keep

    return select


def _test_fn(name: str, who: str) -> Callable[..., Any]:
    fn = TESTS.get(name)
    if fn is None:
        raise LlamaError(f"{who}: unknown test '{name}'")
    return fn


def _join(v: Any, d: Any = _MISSING, attribute: Any = _MISSING) -> str:
    delim = "" if isinstance(d, Undefined) else as_string(d)
    parts = []
    for x in v:
        if not isinstance(attribute, Undefined):
            x = _get_attribute(x, attribute)
        if not isinstance(x, (str, int, float)):
            raise LlamaError("join() can only join arrays of strings or numerics")
        parts.append(as_string(x))
    size = sum(map(len, parts)) + len(delim) * max(0, len(parts) - 1)
    current().check_size(size, "join() result")
    return delim.join(parts)


def _map(v: Any, *args: Any, **kwargs: Any) -> Any:
    if args or not kwargs:
        raise LlamaNotImplemented("map: filter-mapping not implemented")
    attribute = kwargs.get("attribute", _MISSING)
    default = kwargs.get("default", _MISSING)
    out = [_get_attribute(item, attribute, default) for item in v]
    return tuple(out) if isinstance(v, tuple) else out


def _append(v: list, item: Any) -> list:
    if isinstance(v, tuple):
        raise LlamaError("Attempting to modify immutable type")
    state = current()
    if len(v) >= state.max_chars:
        state.check_size(len(v) + 1, "array")
    v.append(item)
    return v


def _pop(v: list, index: int = -1) -> Any:
    if isinstance(v, tuple):
        raise LlamaError("Attempting to modify immutable type")
    if not -len(v) <= index < len(v):
        raise LlamaError(f"Index {index} out of bounds for array of size {len(v)}")
    return v.pop(index)


def _sort(v: Any, reverse: Any = False, case_sensitive: Any = False, attribute: Any = _MISSING) -> Any:
    import functools

    def key_of(x: Any) -> Any:
        return x if isinstance(attribute, Undefined) else _get_attribute(x, attribute)

    op = "gt" if _truthy(reverse) else "lt"
    tick = _deadline_ticker()

    def cmp(a: Any, b: Any) -> int:
        tick()
        ka, kb = key_of(a), key_of(b)
        if compare(ka, kb, op):
            return -1
        return 1 if compare(kb, ka, op) else 0

    out = sorted(v, key=functools.cmp_to_key(cmp))
    return tuple(out) if isinstance(v, tuple) else out


def _deadline_ticker(every: int = 1024) -> Callable[[], None]:
    """A callback for comparison functions: sorting a long list is a single call, so the
    render deadline is re-checked every ``every`` comparisons inside it."""
    state = current()
    state.check_time()
    count = 0

    def tick() -> None:
        nonlocal count
        count += 1
        if not count % every:
            state.check_time()

    return tick


def _reverse(v: Any) -> Any:
    current().check_time()
    return v[::-1]


def _minmax(op: str) -> Callable[..., Any]:
    def pick(v: Any, case_sensitive: Any = False, attribute: Any = _MISSING) -> Any:
        if not v:
            return _MISSING
        best = v[0]
        for item in v:
            a, b = item, best
            if not isinstance(attribute, Undefined):
                a, b = _get_attribute(a, attribute), _get_attribute(b, attribute)
            if compare(a, b, op):
                best = item
        return best

    return pick


def _dictsort(v: Any, case_sensitive: Any = False, by: Any = "key", reverse: Any = False) -> list:
    import functools

    idx = 1 if by == "value" else 0
    op = "gt" if _truthy(reverse) else "lt"
    pairs = items_of(v)
    tick = _deadline_ticker()

    def cmp(a: Any, b: Any) -> int:
        tick()
        if compare(a[idx], b[idx], op):
            return -1
        return 1 if compare(b[idx], a[idx], op) else 0

    return sorted(pairs, key=functools.cmp_to_key(cmp))


def _obj_get(v: Any, key: Any = _MISSING, default: Any = None) -> Any:
    if not isinstance(key, str):
        raise LlamaError("get: second argument must be a string (key)")
    return dict(items_of(v)).get(key, default)


def _not_impl(what: str) -> Callable[..., Any]:
    def fail(*_a: Any, **_k: Any) -> Any:
        raise LlamaNotImplemented(what)

    return fail


def _const(value: Callable[[], Any]) -> Callable[..., Any]:
    return lambda *_a, **_k: value()


def _to_string_deep(v: Any, *_a: Any) -> str:
    return as_string(v)


_NUM: dict[str, Callable[..., Any]] = {
    "default": f_default,
    "abs": lambda v: abs(v),
    "int": lambda v: int(v),
    "float": lambda v: float(v),
    "safe": f_tojson,
    "string": f_tojson,
    "tojson": f_tojson,
}

BUILTINS: dict[str, dict[str, Callable[..., Any]]] = {
    "Integer": _NUM,
    "Float": _NUM,
    "Boolean": {
        "default": f_default,
        "int": lambda v: int(v),
        "float": lambda v: float(v),
        "safe": lambda v: "True" if v else "False",
        "string": lambda v: "True" if v else "False",
        "tojson": f_tojson,
    },
    "String": {
        "default": f_default,
        "upper": lambda v: _ascii_upper(v),
        "lower": lambda v: _ascii_lower(v),
        "strip": _strip_fn(True, True),
        "rstrip": _strip_fn(False, True),
        "lstrip": _strip_fn(True, False),
        "title": lambda v: _title(v),
        "capitalize": lambda v: _capitalize(v),
        "length": lambda v: len(v.encode("utf-8", "surrogatepass")),
        "startswith": lambda v, p: v.startswith(as_string(p)),
        "endswith": lambda v, s: v.endswith(as_string(s)),
        "split": _split,
        "rsplit": partial(_split, right=True),
        "replace": _replace,
        "format": _format,
        "int": _str_int,
        "float": _str_float,
        "string": lambda v: v,
        "slice": _slice,
        "safe": lambda v: v,
        "tojson": f_tojson,
        "indent": _indent,
        "join": _not_impl("String join builtin not implemented"),
    },
    "Array": {
        "default": f_default,
        "list": lambda v: list(v),
        "first": lambda v: v[0] if v else _MISSING,
        "last": lambda v: v[-1] if v else _MISSING,
        "length": lambda v: len(v),
        "slice": _slice,
        "selectattr": _select(False),
        "select": _select(False),
        "rejectattr": _select(True),
        "reject": _select(True),
        "join": _join,
        "string": _to_string_deep,
        "tojson": f_tojson,
        "map": _map,
        "append": _append,
        "pop": _pop,
        "sort": _sort,
        "reverse": _reverse,
        "min": _minmax("lt"),
        "max": _minmax("gt"),
        "unique": _not_impl("Array unique builtin not implemented"),
    },
    "Object": {
        "get": _obj_get,
        "keys": lambda v: [k for k, _ in items_of(v)],
        "values": lambda v: [x for _, x in items_of(v)],
        "items": lambda v: [tuple(p) for p in items_of(v)],
        "tojson": f_tojson,
        "string": _to_string_deep,
        "length": lambda v: len(items_of(v)),
        "dictsort": _dictsort,
        "join": _not_impl("object join not implemented"),
    },
    "None": {
        "default": f_default,
        "tojson": f_tojson,
        "string": _const(lambda: "None"),
        "safe": _const(lambda: "None"),
        **{k: _const(list) for k in ("items", "map", "reject", "rejectattr", "select", "selectattr", "unique")},
    },
    "Undefined": {
        "default": f_default,
        **{k: _const(str) for k in ("capitalize", "join", "lower", "replace", "safe", "string", "strip",
                                     "title", "truncate", "upper")},
        **{k: _const(list) for k in ("items", "list", "map", "reject", "rejectattr", "reverse", "select",
                                     "selectattr", "sort", "unique")},
        **{k: _const(lambda: _MISSING) for k in ("first", "last", "max", "min")},
        **{k: _const(int) for k in ("length", "sum", "wordcount")},
    },
}
BUILTINS["Tuple"] = BUILTINS["Array"]

FILTER_ALIASES = {"count": "length", "d": "default", "e": "escape", "trim": "strip"}
COERCED_FILTERS = frozenset({"capitalize", "lower", "replace", "strip", "title", "upper", "wordcount"})


_FAST_TYPES = {str: "String", dict: "Object", list: "Array", int: "Integer", bool: "Boolean"}


def builtin(value: Any, name: str) -> Callable[..., Any] | None:
    fast = _FAST_TYPES.get(type(value))
    table = BUILTINS.get(fast if fast is not None else type_name(value))
    return None if table is None else table.get(name)


def make_filter(name: str) -> Callable[..., Any]:
    """A jinja2 filter that dispatches on the value's llama.cpp type, like apply_filter."""
    resolved = FILTER_ALIASES.get(name, name)
    coerce = resolved in COERCED_FILTERS

    def llama_filter(value: Any, *args: Any, **kwargs: Any) -> Any:
        if coerce and not isinstance(value, (str, Undefined)):
            value = as_string(value)
        fn = builtin(value, resolved)
        if fn is None:
            if type_name(value) == "Function":
                raise LlamaError(FUNCTION_NO_BUILTINS)
            raise LlamaError(f"Unknown (built-in) filter '{resolved}' for type {type_name(value)}")
        return fn(value, *args, **kwargs)

    llama_filter.__name__ = f"llama_filter_{resolved}"
    return llama_filter


def bound_method(value: Any, name: str) -> Callable[..., Any] | None:
    """``value.name`` when ``name`` is a built-in of the value's type (member_expression)."""
    fn = builtin(value, name)
    return None if fn is None else BoundBuiltin(fn, value)


class BoundBuiltin(LlamaFunction):
    """A built-in method bound to its value (try_builtin_func's value_func with ``arg0``).

    ``{% if schema['items'] %}`` on an object without that key finds the object's ``items``
    method, so that test raises like any other function's truth value.
    """


# --- tests (global_builtins "test_is_*") -------------------------------------------------


def _is_type(*names: str) -> Callable[..., bool]:
    return lambda v, *_: type_name(v) in names


def _test_in(needle: Any, haystack: Any) -> bool:
    if isinstance(haystack, Undefined):
        return False
    if isinstance(haystack, (list, tuple, range)):
        return any(equal(needle, x) for x in haystack)
    if isinstance(haystack, str):
        if not isinstance(needle, str):
            raise LlamaError(
                f"'in' test expects args[1] as string when args[0] is string, got args[1] as {type_name(needle)}"
            )
        return needle in haystack
    if isinstance(haystack, (dict, Namespace)):
        return _hashable(needle) and needle in dict(items_of(haystack))
    raise LlamaError(f"'in' test expects iterable as first argument, got {type_name(haystack)}")


test_in = _test_in


def _sameas(a: Any, b: Any) -> bool:
    if isinstance(a, Undefined) or isinstance(b, Undefined):
        return False
    if a is None and b is None:
        return True
    if isinstance(a, bool) and isinstance(b, bool):
        return a == b
    if type_name(a) == type_name(b) == "Integer":
        return -5 <= a <= 256 and a == b
    return a is b


def _cmp_test(op: str) -> Callable[..., bool]:
    return lambda a, b: compare(a, b, op)


TESTS: dict[str, Callable[..., Any]] = {
    "boolean": _is_type("Boolean"),
    "callable": _is_type("Function"),
    "odd": lambda v: int(v) % 2 != 0,
    "even": lambda v: int(v) % 2 == 0,
    "false": lambda v: v is False,
    "true": lambda v: v is True,
    "divisibleby": lambda v, n: int(v) % int(n) == 0,
    "string": _is_type("String"),
    "integer": _is_type("Integer"),
    "float": _is_type("Float"),
    "number": _is_type("Integer", "Float"),
    "iterable": _is_type("Object", "Array", "Tuple", "String", "Undefined"),
    "sequence": _is_type("Object", "Array", "Tuple", "String", "Undefined"),
    "mapping": _is_type("Object"),
    "lower": lambda v: not any(c.isascii() and c.isupper() for c in v),
    "upper": lambda v: not any(c.isascii() and c.islower() for c in v),
    "none": _is_type("None"),
    "defined": lambda v: not isinstance(v, Undefined),
    "undefined": _is_type("Undefined"),
    "eq": _cmp_test("eq"),
    "equalto": _cmp_test("eq"),
    "ge": _cmp_test("ge"),
    "gt": _cmp_test("gt"),
    "greaterthan": _cmp_test("gt"),
    "lt": _cmp_test("lt"),
    "lessthan": _cmp_test("lt"),
    "ne": _cmp_test("ne"),
    "in": _test_in,
    "test": lambda v: as_string(v) in TESTS,
    "sameas": _sameas,
    "escaped": _not_impl("escaped test not implemented"),
    "filter": _not_impl("filter test not implemented"),
}
