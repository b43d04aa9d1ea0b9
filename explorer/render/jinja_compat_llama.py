"""llama.cpp's Jinja value semantics, for the ``llama.cpp`` dialect of the renderer.

Input: Python values as a jinja2 template sees them. Output: what llama.cpp's own Jinja
engine (common/jinja/value.cpp, runtime.cpp) computes for them: type names, string
conversion, printing, ``tojson``. The per-type built-ins and tests are in
``explorer.render.jinja_compat_builtins``.

Only behaviour is ported; llama.cpp's value classes map onto Python values:
Undefined -> jinja2 ``Undefined``, None -> ``None``, Boolean/Integer/Float/String ->
``bool``/``int``/``float``/``str``, Array -> ``list`` (Tuple -> ``tuple``), Object ->
``dict`` or jinja2 ``Namespace``, Function -> ``LlamaFunction`` / ``LlamaMacro`` (callables
without a truth value).
"""

from __future__ import annotations

import functools
import io
import json
import types
from typing import Any

from jinja2.compiler import CodeGenerator
from jinja2.runtime import Context, Macro, Undefined
from jinja2.utils import Namespace

from explorer.errors import TemplateSyntaxError
from explorer.render.jinja_compat_state import current


class LlamaError(Exception):
    """A runtime error llama.cpp's engine would raise (its std::runtime_error)."""


class LlamaNotImplemented(LlamaError):
    """llama.cpp's not_implemented_exception: a feature its engine lacks."""

    def __init__(self, message: str) -> None:
        super().__init__(f"NotImplemented: {message}")


class LlamaUndefined(Undefined):
    """llama.cpp's undefined: lenient everywhere except when called or compared in order."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        if name[:2] == "__":
            raise AttributeError(name)
        return self

    def __getitem__(self, key: Any) -> LlamaUndefined:  # type: ignore[override]  # jinja2's raises; llama.cpp's undefined subscripts to undefined
        return self

    def __str__(self) -> str:
        return ""


# --- classification -----------------------------------------------------------------------


def type_name(v: Any) -> str:
    if isinstance(v, Undefined):
        return "Undefined"
    if v is None:
        return "None"
    if isinstance(v, bool):
        return "Boolean"
    if isinstance(v, int):
        return "Integer"
    if isinstance(v, float):
        return "Float"
    if isinstance(v, str):
        return "String"
    if isinstance(v, tuple):
        return "Tuple"
    if isinstance(v, list):
        return "Array"
    if isinstance(v, (dict, Namespace)):
        return "Object"
    if callable(v):
        return "Function"
    if hasattr(v, "__iter__"):
        return "Array"
    return type(v).__name__


def items_of(obj: Any) -> list[tuple[Any, Any]]:
    if isinstance(obj, Namespace):
        return list(obj._Namespace__attrs.items())
    return list(obj.items())


def _truthy(v: Any) -> bool:
    if isinstance(v, Namespace):
        return bool(items_of(v))
    return bool(v)


# --- Function values (value_func_t) -------------------------------------------------------


class LlamaFunction(functools.partial):
    """A llama.cpp Function value (value_func_t): a global such as ``raise_exception``.

    value_func_t has no ``as_bool``, so the base value_t::as_bool raises: ``if``, ``and``,
    ``or``, ``not``, ternaries and loop filters on a function fail instead of being true.
    """

    def __bool__(self) -> bool:
        raise LlamaError(FUNCTION_NOT_BOOL)


FUNCTION_NOT_BOOL = "Function is not a bool value"
# value_func_t has no get_builtins either: every filter and member access on it raises this.
FUNCTION_NO_BUILTINS = "Function has no builtins"


class LlamaMacro(Macro):
    """A macro (or ``{% call %}`` caller) in the llama.cpp dialect: a value_func_t there.

    macro_statement::execute_impl stores the macro as a value_func, which has no as_bool,
    so ``{% if m %}`` raises "Function is not a bool value" instead of being true.
    """

    def __bool__(self) -> bool:
        raise LlamaError(FUNCTION_NOT_BOOL)


class LlamaCodeGenerator(CodeGenerator):
    """jinja2's code generator, building macros as ``LlamaMacro`` and member assignments as
    llama.cpp runs them (this dialect only)."""

    def visit_Assign(self, node: Any, frame: Any) -> None:
        # set_statement::execute_impl: ``{% set a.b = v %}`` evaluates v first, then a, and
        # assigns into any object (a namespace or a dict); jinja2 checks first that a is a
        # Namespace. The order shows in capability detection: v's inputs are read (used)
        # even when the assignment then fails. Checked against the real build (the llama.cpp
        # driver); tests/render/test_llama_set_member.py.
        target = node.target
        if type(target).__name__ != "NSRef":
            super().visit_Assign(node, frame)
            return
        self.push_assign_tracking()
        value = self.temporary_identifier()
        self.newline(node)
        self.write(f"{value} = ")
        self.visit(node.node, frame)
        self.writeline(f"environment.jx_set_member({frame.symbols.ref(target.name)}, {target.attr!r}, {value})")
        self.pop_assign_tracking(frame)

    def macro_def(self, macro_ref: Any, frame: Any) -> None:
        # jinja2 writes ``Macro(environment, macro, ...)`` with the Macro imported into the
        # compiled module; the same call goes to the environment's class instead.
        stream, self.stream = self.stream, io.StringIO()
        try:
            super().macro_def(macro_ref, frame)
            text = self.stream.getvalue()
        finally:
            self.stream = stream
        if text.count("Macro(environment, ") != 1:
            # only a jinja2 other than the pinned one gets here: refuse rather than lose fidelity
            raise TemplateSyntaxError(f"this jinja2 version writes macro definitions as {text[:60]!r}; "
                                      "the llama.cpp dialect expects 'Macro(environment, ...)'")
        self.stream.write(text.replace("Macro(environment, ", "environment.macro_class(environment, "))


SET_MEMBER_OF_NON_OBJECT = "Cannot assign to member of non-object"


def set_member(target: Any, name: str, value: Any) -> None:
    """``{% set target.name = value %}``: into a namespace or a dict (llama.cpp's objects)."""
    if isinstance(target, Namespace):
        target[name] = value
    elif isinstance(target, dict):
        target[name] = value
    else:
        raise LlamaError(SET_MEMBER_OF_NON_OBJECT)


class LlamaContext(Context):
    """A render context whose plain Python functions (``strftime_now`` passed by the
    caller) are llama.cpp Function values, like the environment's own globals."""

    def __init__(self, environment: Any, parent: dict[str, Any], *args: Any, **kwargs: Any) -> None:
        for name, value in parent.items():
            if isinstance(value, _PLAIN_FUNCTIONS) and not isinstance(value, LlamaFunction):
                parent[name] = LlamaFunction(value)
        super().__init__(environment, parent, *args, **kwargs)


_PLAIN_FUNCTIONS = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, functools.partial)


# --- string conversion (value_t::as_string, gather_string_parts) -------------------------


def float_str(x: float) -> str:
    if x != x or x in (float("inf"), float("-inf")):
        return {"nan": "nan", "inf": "inf", "-inf": "-inf"}[repr(x)]
    out = "%f" % x
    out = out.rstrip("0")
    return out + "0" if out.endswith(".") else out


def repr_str(v: Any) -> str:
    """value_to_string_repr: how a value appears inside an array/object's as_string."""
    if isinstance(v, str):
        return to_json(v) if "'" in v else f"'{v}'"
    if isinstance(v, Undefined):
        return "Undefined"
    return as_string(v)


def as_string(v: Any) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return float_str(v)
    if v is None:
        return "None"
    if isinstance(v, Undefined):
        raise LlamaError("Undefined is not a string value")
    if isinstance(v, tuple):
        inner = ", ".join(repr_str(x) for x in v)
        return f"({inner},)" if len(v) == 1 else f"({inner})"
    if isinstance(v, list):
        return "[" + ", ".join(repr_str(x) for x in v) + "]"
    if isinstance(v, (dict, Namespace)):
        return "{" + ", ".join(f"{repr_str(k)}: {repr_str(x)}" for k, x in items_of(v)) + "}"
    raise LlamaError(f"{type_name(v)} is not a string value")


def print_value(v: Any) -> str:
    """gather_string_parts_recursive: what ``{{ v }}`` writes (None/objects write nothing)."""
    if isinstance(v, str):
        return v
    if isinstance(v, (bool, int, float)):
        return as_string(v)
    if isinstance(v, (list, tuple)):
        return "".join(print_value(x) for x in v)
    return ""


# --- tojson (value_to_json) ---------------------------------------------------------------


def _json_parts(v: Any, out: list[str], lvl: int, indent: int, item_sep: str, key_sep: str) -> None:
    if v is None or isinstance(v, Undefined):
        out.append("null")
    elif isinstance(v, bool):
        out.append("true" if v else "false")
    elif isinstance(v, int):
        out.append(str(v))
    elif isinstance(v, float):
        out.append("%g" % v)
    elif isinstance(v, str):
        out.append(json.dumps(v, ensure_ascii=False))
    elif isinstance(v, (list, tuple, dict, Namespace)):
        is_obj = not isinstance(v, (list, tuple))
        entries = items_of(v) if is_obj else v
        out.append("{" if is_obj else "[")
        if entries:
            nl = "\n" if indent >= 0 else ""
            pad = " " * (lvl * indent) if indent > 0 else ""
            step = " " * indent if indent > 0 else ""
            out.append(nl)
            last = len(entries) - 1
            for i, entry in enumerate(entries):
                out.append(pad + step)
                if is_obj:
                    out.append(json.dumps(as_string(entry[0]), ensure_ascii=False))
                    out.append(key_sep)
                    _json_parts(entry[1], out, lvl + 1, indent, item_sep, key_sep)
                else:
                    _json_parts(entry, out, lvl + 1, indent, item_sep, key_sep)
                if i < last:
                    out.append(item_sep)
                out.append(nl)
            out.append(pad)
        out.append("}" if is_obj else "]")
    elif hasattr(v, "__iter__") and not callable(v):
        _json_parts(list(v), out, lvl, indent, item_sep, key_sep)
    else:
        out.append("null")


def _plain(v: Any) -> bool:
    """True when json.dumps writes ``v`` exactly as llama.cpp would (no floats, str keys)."""
    t = type(v)
    if t is str or t is int or t is bool or v is None:
        return True
    if t is dict:
        return all(type(k) is str and _plain(x) for k, x in v.items())
    if t is list or t is tuple:
        return all(_plain(x) for x in v)
    return False


def to_json(v: Any, indent: int = -1, item_sep: str | None = None, key_sep: str = ": ") -> str:
    if item_sep is None:
        item_sep = ", " if indent < 0 else ","
    if _plain(v):  # the C encoder, for speed; same bytes as the port below
        return json.dumps(v, ensure_ascii=False, indent=indent if indent >= 0 else None,
                          separators=(item_sep, key_sep))
    out: list[str] = []
    _json_parts(v, out, 0, indent, item_sep, key_sep)
    return "".join(out)


_MISSING = LlamaUndefined()


def _arg(args: tuple, kwargs: dict, key: str, pos: int) -> Any:
    """func_args::get_kwarg_or_pos, with ``pos`` counted after the bound value."""
    if key in kwargs:
        return kwargs[key]
    return args[pos] if pos < len(args) else _MISSING


def f_tojson(v: Any, *args: Any, **kwargs: Any) -> str:
    ensure_ascii = _arg(args, kwargs, "ensure_ascii", 0)
    indent_v = _arg(args, kwargs, "indent", 1)
    seps = _arg(args, kwargs, "separators", 2)
    if _truthy(_arg(args, kwargs, "sort_keys", 3)):
        raise LlamaNotImplemented("tojson sort_keys=true not implemented")
    indent = indent_v if isinstance(indent_v, int) and not isinstance(indent_v, bool) else -1
    seps = list(seps) if isinstance(seps, (list, tuple)) else []
    item_sep = as_string(seps[0]) if seps else None
    key_sep = as_string(seps[1]) if len(seps) > 1 else ": "
    if indent > 0:
        nodes, depth = json_shape(v)
        current().check_size(nodes * depth * indent, "tojson output")
    text = to_json(v, indent, item_sep, key_sep)
    if _truthy(ensure_ascii):
        text = _ascii_json(text)
    current().check_size(len(text), "tojson output")
    return text


def json_shape(v: Any, depth: int = 1) -> tuple[int, int]:
    """(number of values, nesting depth) of a JSON-like value, to bound indented output."""
    if isinstance(v, (dict, Namespace)):
        children = [x for _, x in items_of(v)]
    elif isinstance(v, (list, tuple)):
        children = list(v)
    else:
        return 1, depth
    nodes, deepest = 1, depth
    for child in children:
        n, d = json_shape(child, depth + 1)
        nodes, deepest = nodes + n, max(deepest, d)
    return nodes, deepest


def _ascii_json(text: str) -> str:
    out = []
    for ch in text:
        cp = ord(ch)
        if cp < 0x80:
            out.append(ch)
        elif cp <= 0xFFFF:
            out.append("\\u%04x" % cp)
        else:
            cp -= 0x10000
            out.append("\\u%04x\\u%04x" % (0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF)))
    return "".join(out)
