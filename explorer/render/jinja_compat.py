"""The jinja2 environments behind ``explorer.render``: one per dialect, plus llama.cpp stats.

Input: a dialect name (``"llama.cpp"`` or ``"transformers"``) and whether usage statistics
are wanted. Output: a sandboxed jinja2 ``Environment`` configured like Hugging Face
transformers' chat-template environment, whose hooks enforce the render budgets and, for
the ``llama.cpp`` dialect, reproduce llama.cpp's own Jinja engine (see
``explorer.render.jinja_compat_llama`` and docs/jinja-differences.md).

Compiling rewrites the jinja2 syntax tree so that loops (``jx_loop``), ``~``
(``jx_concat``), ordering comparisons (``jx_order``), free names inside macros
(``jx_scoped``) and, for capability detection, identifiers (``jx_mark``) go through
environment hooks (in the transformers dialect, loops and ``~`` go through context
filters of the same names: ``explorer.render.transformers_env``). Budgets are cooperative
(``explorer.render.jinja_compat_budget``): every sandboxed call, loop, ``+``/``*``/
``**``/``%``/``~`` and output chunk checks the per-render state, so a runaway template
stops inside the budget without a subprocess.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Iterable
from typing import Any

import jinja2
from jinja2 import nodes
from jinja2.ext import Extension
from jinja2.runtime import LoopContext, Macro, Undefined
from jinja2.sandbox import SandboxedEnvironment, SecurityError
from jinja2.utils import Namespace

from explorer.errors import RenderLimitError
from explorer.render import jinja_compat_builtins as lb
from explorer.render import jinja_compat_llama as ll
from explorer.render import transformers_env as te
from explorer.render.jinja_compat_budget import GUARDED_LOOP_LEN, Budgeted, runtime_only
from explorer.render.jinja_compat_state import current, mark, mark_deep

DIALECTS = ("llama.cpp", "transformers")

# Template global holding each macro's number of parameters without a default.
MACRO_TABLE = "_jx_macro_required"
# Keyword argument carrying the caller's scope snapshot into a macro call.
SCOPE_KW = "_jx_scope"


class TemplateRaised(Exception):
    """``raise_exception(msg)`` was called by the template."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def raise_exception(message: Any = "") -> None:
    raise TemplateRaised(message if isinstance(message, str) else str(message))


class GenerationExtension(Extension):
    """``{% generation %}...{% endgeneration %}``: transformers' assistant-mask block.

    Both transformers (AssistantTracker) and llama.cpp render the body unchanged.
    """

    tags = {"generation"}

    def parse(self, parser: Any) -> list[nodes.Node]:
        next(parser.stream)
        return parser.parse_statements(("name:endgeneration",), drop_needle=True)


def _is_function(v: Any) -> bool:
    return isinstance(v, (ll.LlamaFunction, Macro))


# --- compile-time rewriting --------------------------------------------------------------


class _Rewriter:
    """Routes loops, ``~`` and comparisons through environment hooks; for stats, identifiers.

    For the llama.cpp dialect it also gives macros llama.cpp's dynamic scope: a macro body
    runs in a copy of the *caller's* scope there, so a free name inside a macro sees the
    caller's loop variables. Each call of a known macro passes the values of that macro's
    free names (``SCOPE_KW``); inside the body those names read that snapshot first.
    """

    def __init__(self, mark_names: bool, llama: bool) -> None:
        self.mark_names = mark_names
        self.llama = llama
        self.macro_required: dict[str, int] = {}
        self.macro_free: dict[str, tuple[str, ...]] = {}
        self.in_macro: list[str] = []

    def prepare(self, tree: nodes.Template) -> None:
        macros = list(tree.find_all(nodes.Macro))
        names = {m.name for m in macros}
        bound: dict[str, set[str]] = {}
        calls: dict[str, set[str]] = {}
        free: dict[str, set[str]] = {}
        for m in macros:
            self.macro_required[m.name] = len(m.args) - len(m.defaults)
            free[m.name], bound[m.name] = _free_names(m, names)
            calls[m.name] = {c.node.name for c in m.find_all(nodes.Call)
                             if isinstance(c.node, nodes.Name) and c.node.name in names}
        # A macro also needs what the macros it calls read (their scope is copied from it).
        changed = True
        while changed:
            changed = False
            for name, callees in calls.items():
                extra = set().union(*(free[c] for c in callees)) - bound[name] - free[name] if callees else set()
                if extra:
                    free[name] |= extra
                    changed = True
        if self.llama:
            self.macro_free = {name: tuple(sorted(v)) for name, v in free.items()}

    def visit(self, node: nodes.Node) -> nodes.Node:
        callee = None
        if isinstance(node, nodes.Call) and isinstance(node.node, nodes.Name):
            callee = node.node.name if self.macro_free.get(node.node.name) else None
        if isinstance(node, nodes.Macro):
            self.in_macro.append(node.name)
        for field in node.fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                setattr(node, field, [self.visit(v) if isinstance(v, nodes.Node) else v for v in value])
            elif isinstance(value, nodes.Node):
                setattr(node, field, self.visit(value))
        if isinstance(node, nodes.Macro):
            self.in_macro.pop()
        if callee is not None and isinstance(node, nodes.Call):
            pairs = [nodes.Pair(nodes.Const(v), self.scoped(nodes.Name(v, "load"))) for v in self.macro_free[callee]]
            node.kwargs.append(nodes.Keyword(SCOPE_KW, nodes.Dict(pairs)))
            node.set_lineno(node.lineno, override=True)
        return self.rewrite(node)

    def scoped(self, name: nodes.Name) -> nodes.Expr:
        """A free name inside a macro: the caller's value first (llama.cpp's dynamic scope)."""
        if self.in_macro and name.name in self.macro_free.get(self.in_macro[-1], ()):
            args: list[nodes.Node] = [nodes.Const(self.in_macro[-1]), nodes.Const(name.name), name]
            return _env_call("jx_scoped", args, name.lineno or 1)
        return name

    def rewrite(self, node: nodes.Node) -> nodes.Node:
        if isinstance(node, nodes.For):
            pairs = nodes.Const(isinstance(node.target, nodes.Tuple))
            node.iter = (_env_call if self.llama else _hook_filter)("jx_loop", [node.iter, pairs], node.lineno)
        elif isinstance(node, nodes.Concat):
            return (_env_call if self.llama else _hook_filter)("jx_concat", list(node.nodes), node.lineno)
        elif self.llama and isinstance(node, nodes.Getitem) and isinstance(node.arg, nodes.Slice):
            # jinja2 slices with Python's [] directly; llama.cpp's bounds and byte strings differ
            bounds = [v if v is not None else nodes.Const(None) for v in (node.arg.start, node.arg.stop, node.arg.step)]
            return _env_call("jx_slice", [node.node, *bounds], node.lineno)
        elif self.llama and isinstance(node, nodes.Compare) and len(node.ops) > 1:
            # llama.cpp's parser folds comparisons left to right: `1 < x < 3` is `(1 < x) < 3`
            expr: nodes.Node = node.expr
            for op in node.ops:
                expr = self.rewrite(nodes.Compare(expr, [op], lineno=node.lineno))
            return expr
        elif self.llama and isinstance(node, nodes.Compare) and len(node.ops) == 1 and node.ops[0].op in _ORDERING:
            op = node.ops[0]
            return _env_call("jx_order", [node.expr, nodes.Const(op.op), op.expr], node.lineno)
        elif self.llama and isinstance(node, nodes.Compare) and len(node.ops) == 1 and node.ops[0].op in ("eq", "ne"):
            op = node.ops[0]
            return _env_call("jx_eq", [node.expr, nodes.Const(op.op), op.expr], node.lineno)
        elif self.llama and isinstance(node, nodes.Compare) and len(node.ops) == 1 and node.ops[0].op in _MEMBERSHIP:
            op = node.ops[0]
            return _env_call("jx_in", [node.expr, nodes.Const(op.op), op.expr], node.lineno)
        elif isinstance(node, nodes.Name) and node.ctx == "load":
            expr = self.scoped(node)
            return _env_call("jx_mark", [expr], node.lineno) if self.mark_names else expr
        return node


_NOT_FREE = frozenset({"caller", "varargs", "kwargs", "loop", "raise_exception", "range", "namespace", "dict",
                       "tojson", "strftime_now", "true", "false", "none", "True", "False", "None"})


def _free_names(macro: nodes.Macro, macro_names: set[str]) -> tuple[set[str], set[str]]:
    """(names a macro body reads but never binds itself, the names it binds)."""
    bound = {a.name for a in macro.args} | macro_names | _NOT_FREE
    for name in macro.find_all(nodes.Name):
        if name.ctx in ("store", "param"):
            bound.add(name.name)
    read = {n.name for n in macro.find_all(nodes.Name) if n.ctx == "load"}
    return read - bound, bound


_ORDERING = {"lt": "<", "lteq": "<=", "gt": ">", "gteq": ">="}
_MEMBERSHIP = {"in": "in", "notin": "not in"}


def _env_call(hook: str, args: list[nodes.Node], lineno: int) -> nodes.Call:
    call = nodes.Call(nodes.EnvironmentAttribute(hook), args, [], None, None)
    call.set_lineno(lineno, override=True)
    return call


def _hook_filter(hook: str, args: list[nodes.Node], lineno: int) -> nodes.Filter:
    """The transformers dialect's hooks as (context-taking, never folded) filters: a sandbox
    calls an environment attribute through ``environment.call``, a filter directly."""
    node = nodes.Filter(args[0], hook, args[1:], [], None, None)
    node.set_lineno(lineno, override=True)
    return node


# --- the sandbox -------------------------------------------------------------------------

def _checked_range(*args: Any) -> list[int] | range:
    for a in args:
        if not isinstance(a, int) or isinstance(a, bool):
            raise ll.LlamaError(f"Function 'range' expected value of type Integer, got {ll.type_name(a)}")
    if not 1 <= len(args) <= 3:
        raise ll.LlamaError(f"Function 'range' expected between 1 and 3 arguments, got {len(args)}")
    if len(args) == 3 and args[2] == 0:
        raise ll.LlamaError("range() step argument must not be zero")
    rng = range(*args)
    state = current()
    if len(rng) > state.max_range:
        raise RenderLimitError(f"range of {len(rng):,} items is over the {state.max_range:,} item cap")
    return list(rng) if len(rng) <= GUARDED_LOOP_LEN else rng


class _AnyName(dict):
    """A filter/test table that resolves every name at runtime, as llama.cpp does."""

    def __init__(self, factory: Callable[[str], Callable[..., Any]]) -> None:
        super().__init__()
        self._factory = factory

    def __missing__(self, name: str) -> Callable[..., Any]:
        fn = self._factory(name)
        self[name] = fn
        return fn

    def get(self, name: str, default: Any = None) -> Any:
        return self[name]

    def __contains__(self, name: object) -> bool:
        return True


def _unknown_test(name: str) -> Callable[..., Any]:
    def fail(*_a: Any, **_k: Any) -> Any:
        raise ll.LlamaError(f"Unknown test '{name}'")

    return fail


class LlamaSandbox(Budgeted, SandboxedEnvironment):
    """llama.cpp's engine semantics on top of the jinja2 sandbox."""

    intercepted_binops = frozenset({"+", "-", "*", "%"})
    code_generator_class = ll.LlamaCodeGenerator
    context_class = ll.LlamaContext
    macro_class = ll.LlamaMacro

    @staticmethod
    def jx_set_member(target: Any, name: str, value: Any) -> None:
        ll.set_member(target, name, value)

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
        if type(__obj) is lb.BoundBuiltin:  # our own bound built-ins (lb.bound_method): safe
            current().check_time()
            kwargs.pop("_loop_vars", None)  # jinja2's Context.call strips these two
            kwargs.pop("_block_vars", None)
            return __obj(*args, **kwargs)
        scope = kwargs.pop(SCOPE_KW, None)
        if not isinstance(__obj, Macro):
            return super().call(__context, __obj, *args, **kwargs)
        required = __context.get(MACRO_TABLE, {}).get(__obj.name, 0)
        args, kwargs = _bind_like_llama(__obj, required, args, kwargs)
        if scope is None:
            return super().call(__context, __obj, *args, **kwargs)
        scopes = current().scopes
        scopes.append((__obj.name, scope))
        try:
            return super().call(__context, __obj, *args, **kwargs)
        finally:
            scopes.pop()

    def jx_scoped(self, macro: str, name: str, fallback: Any) -> Any:
        scopes = current().scopes
        if scopes and scopes[-1][0] == macro:
            return scopes[-1][1].get(name, fallback)
        return fallback

    def jx_loop(self, iterable: Any, pairs: bool = False) -> Iterable[Any]:
        if isinstance(iterable, Undefined):
            return ()
        if isinstance(iterable, (dict, Namespace)):
            iterable = ll.items_of(iterable) if pairs else [k for k, _ in ll.items_of(iterable)]
        elif not isinstance(iterable, (list, tuple, range)):
            raise ll.LlamaError(f"Expected iterable or object type in for loop: got {ll.type_name(iterable)}")
        return super().jx_loop(iterable, pairs)

    def jx_order(self, left: Any, op: str, right: Any) -> bool:
        """llama.cpp orders numbers only (booleans are not numbers there)."""
        if not (_is_num(left) and _is_num(right)):
            if isinstance(left, Undefined) or isinstance(right, Undefined):
                raise ll.LlamaError(f"Cannot perform operation {_ORDERING[op]} on undefined values")
            if left is None or right is None:
                raise ll.LlamaError("Cannot perform operation on null values")
            raise ll.LlamaError(
                f'Unknown operator "{_ORDERING[op]}" between {ll.type_name(left)} and {ll.type_name(right)}'
            )
        if op == "lt":
            return left < right
        if op == "lteq":
            return left <= right
        return left > right if op == "gt" else left >= right

    def jx_slice(self, obj: Any, start: Any, stop: Any, step: Any) -> Any:
        return self.getitem(obj, slice(start, stop, step))

    def jx_eq(self, left: Any, op: str, right: Any) -> bool:
        """``==`` / ``!=``: llama.cpp's value equivalence, which never raises."""
        same = lb.equal(left, right)
        return same if op == "eq" else not same

    def jx_in(self, left: Any, op: str, right: Any) -> bool:
        """``in`` / ``not in`` with llama.cpp's operand checks (binary_expression) before the test."""
        name = _MEMBERSHIP[op]
        if isinstance(right, Undefined):
            return op == "notin"  # anything in undefined is false
        if isinstance(left, Undefined):
            raise ll.LlamaError(f"Cannot perform operation {name} on undefined values")
        if right is None:
            raise ll.LlamaError("Cannot perform operation on null values")
        arrays = (list, tuple, range)  # a long range() stays a Python range here
        both_arrays = isinstance(left, arrays) and isinstance(right, arrays)
        # llama.cpp quirk: an array on both sides is only handled for "+", so `[..] in [..]` raises
        if left is not None and both_arrays or left is not None and not (
            isinstance(right, (*arrays, dict, Namespace)) or (isinstance(left, str) and isinstance(right, str))
        ):
            raise ll.LlamaError(f'Unknown operator "{name}" between {ll.type_name(left)} and {ll.type_name(right)}')
        member = lb.test_in(left, right)
        return member if op == "in" else not member

    def jx_concat(self, *values: Any) -> Any:
        acc = values[0]
        for v in values[1:]:
            acc = self._concat2("~", acc, v)
        return acc

    def _concat2(self, op: str, a: Any, b: Any) -> Any:
        a_null = a is None or isinstance(a, Undefined)
        b_null = b is None or isinstance(b, Undefined)
        if a_null or b_null:
            if (a_null and isinstance(b, str)) or (b_null and isinstance(a, str)):
                return b if a_null else a
            if isinstance(a, Undefined) or isinstance(b, Undefined):
                raise ll.LlamaError(f"Cannot perform operation {op} on undefined values")
            raise ll.LlamaError("Cannot perform operation on null values")
        if op == "+":
            if _is_num(a) and _is_num(b):
                return _arith("+", a, b)
            if isinstance(a, list) and isinstance(b, list):
                current().check_size(len(a) + len(b), "array concatenation")
                return a + b
        if isinstance(a, str) or isinstance(b, str):
            out = ll.as_string(a) + ll.as_string(b)
            current().check_size(len(out), f"'{op}' result")
            return out
        raise ll.LlamaError(f'Unknown operator "{op}" between {ll.type_name(a)} and {ll.type_name(b)}')

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        self.check_binop(operator, left, right)
        if operator == "+":
            return self._concat2("+", left, right)
        if operator == "-":
            if _is_num(left) and _is_num(right):
                return _arith("-", left, right)
            if isinstance(left, Undefined) or isinstance(right, Undefined):
                raise ll.LlamaError("Cannot perform operation - on undefined values")
            if left is None or right is None:
                raise ll.LlamaError("Cannot perform operation on null values")
            raise ll.LlamaError(f'Unknown operator "-" between {ll.type_name(left)} and {ll.type_name(right)}')
        if operator == "*":
            if _is_num(left) and _is_num(right):
                return _arith("*", left, right)
            if isinstance(left, str) and _is_int(right):
                return left * right
            if _is_int(left) and isinstance(right, str):
                return right * left
            raise ll.LlamaError(f'Unknown operator "*" between {ll.type_name(left)} and {ll.type_name(right)}')
        if operator == "%":
            if _is_num(left) and _is_num(right):
                # C fmod: the result takes the dividend's sign (Python's % takes the divisor's)
                rem = math.fmod(left, right)
                return int(rem) if _is_int(left) and _is_int(right) else rem
            raise ll.LlamaError(f'Unknown operator "%" between {ll.type_name(left)} and {ll.type_name(right)}')
        return super().call_binop(context, operator, left, right)

    def getattr(self, obj: Any, attribute: str) -> Any:
        if attribute[:2] == "__":
            raise SecurityError(f"access to attribute {attribute!r} of {type(obj).__name__!r} is unsafe")
        if _is_function(obj):  # member_expression -> try_builtin_func -> value_t::get_builtins
            raise ll.LlamaError(lb.FUNCTION_NO_BUILTINS)
        if isinstance(obj, LoopContext) and attribute not in _LOOP_FIELDS:
            return self.undefined(name=attribute)  # llama.cpp's loop object has no cycle(), depth...
        if type(obj) is dict:  # the common case, kept short: built-in first, then the key
            if attribute in _OBJECT_BUILTINS:
                return lb.bound_method(obj, attribute)
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(name=attribute)
        if not _is_llama_value(obj):
            return super().getattr(obj, attribute)
        method = lb.bound_method(obj, attribute)
        if method is not None:
            return method
        return self._lookup(obj, attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        if isinstance(argument, str) and argument[:2] == "__":
            raise SecurityError(f"access to item {argument!r} of {type(obj).__name__!r} is unsafe")
        if isinstance(argument, slice):
            if isinstance(obj, str):  # llama.cpp slices the UTF-8 bytes
                raw = obj.encode("utf-8", "surrogatepass")
                return raw[_llama_slice(len(raw), argument)].decode("utf-8", "replace")
            if isinstance(obj, (list, tuple)):
                return obj[_llama_slice(len(obj), argument)]
            raise ll.LlamaError(f"Unknown (built-in) filter 'slice' for type {ll.type_name(obj)}")
        if _is_function(obj):
            return self._function_item(argument)
        if not _is_llama_value(obj):
            return super().getitem(obj, argument)
        if isinstance(argument, Undefined):
            return self.undefined(name="object_property")
        if isinstance(argument, (list, dict)):
            raise ll.LlamaError(f"Type: {ll.type_name(argument)} is not allowed as object key")
        val = self._lookup(obj, argument)
        if isinstance(val, Undefined) and isinstance(argument, str):
            method = lb.bound_method(obj, argument)
            if method is not None:
                return method
        return val

    def _function_item(self, key: Any) -> Any:
        """``f[key]`` (member_expression, computed): llama.cpp only looks up built-ins."""
        if isinstance(key, Undefined):
            return self.undefined(name="object_property")
        if isinstance(key, (list, dict)):
            raise ll.LlamaError(f"Type: {ll.type_name(key)} is not allowed as object key")
        if not isinstance(key, str):
            raise ll.LlamaError(f"Cannot access property with non-string: got {ll.type_name(key)}")
        raise ll.LlamaError(lb.FUNCTION_NO_BUILTINS)

    def _lookup(self, obj: Any, key: Any) -> Any:
        if isinstance(obj, dict):
            try:
                return obj[key]
            except (KeyError, TypeError):
                return self.undefined(name=str(key))
        if isinstance(obj, Namespace):
            return dict(ll.items_of(obj)).get(key, self.undefined(name=str(key)))
        if isinstance(obj, (list, tuple, str)):
            if isinstance(key, int):
                if isinstance(obj, str):
                    raw = obj.encode("utf-8", "surrogatepass")
                    if 0 <= key < len(raw):
                        return raw[key : key + 1].decode("utf-8", "replace")
                elif -len(obj) <= key < len(obj):
                    return obj[key]
            return self.undefined(name=str(key))
        if isinstance(obj, Undefined):
            return obj
        if not isinstance(key, str):
            raise ll.LlamaError(f"Cannot access property with non-string: got {ll.type_name(key)}")
        return self.undefined(name=key)


class LlamaStatsSandbox(LlamaSandbox):
    """llama.cpp with ``is_get_stats``: records which inputs the template touches."""

    def jx_mark(self, value: Any) -> Any:
        mark(value)
        return value

    def jx_loop(self, iterable: Any, pairs: bool = False) -> Iterable[Any]:
        mark(iterable, "array_access")
        if isinstance(iterable, dict):
            mark(iterable, "object_access")
        return super().jx_loop(iterable, pairs)

    def getattr(self, obj: Any, attribute: str) -> Any:
        if attribute[:2] != "__" and _is_llama_value(obj):
            mark(obj, attribute)
            method = lb.bound_method(obj, attribute)
            if method is not None:
                return method
            val = self._lookup(obj, attribute)
            _mark_access(obj, attribute, val)
            return val
        return super().getattr(obj, attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        val = super().getitem(obj, argument)
        if not isinstance(argument, (slice, Undefined)) and _is_llama_value(obj):
            if isinstance(val, functools.partial):
                mark(obj, argument)
            else:
                _mark_access(obj, argument, val)
        elif isinstance(argument, slice) and _is_llama_value(obj):
            mark(obj, "slice")
        return val


def _mark_access(obj: Any, prop: Any, val: Any) -> None:
    mark(val)
    mark(prop)
    if isinstance(obj, dict) or isinstance(prop, (str, float, list)) or prop is None:
        mark(obj, "object_access")
    elif isinstance(prop, int):
        mark(obj, "array_access")
    else:
        mark(obj)


_OBJECT_BUILTINS = frozenset(lb.BUILTINS["Object"])
_LOOP_FIELDS = frozenset({"index", "index0", "revindex", "revindex0", "first", "last", "length", "previtem", "nextitem"})


def _bind_like_llama(
    macro: Macro, required: int, args: tuple, kwargs: dict[str, Any]
) -> tuple[tuple, dict[str, Any]]:
    """llama.cpp's bind_parameters: too few arguments is an error, extra ones are ignored."""
    names = macro.arguments
    if len(args) + len(kwargs) < required:
        raise ll.LlamaError(f"Not enough arguments provided to '{macro.name}'")
    if not macro.catch_varargs:
        args = args[: len(names)]
    if not macro.catch_kwargs:
        kwargs = {k: v for k, v in kwargs.items() if k in names or k == "caller"}
    return args, kwargs


def _llama_slice(length: int, given: slice) -> slice:
    """``x[start:stop:step]`` as value.cpp's slice() bounds it, as a Python slice.

    It differs from Python's for a negative step: an explicit stop of -1 means "through
    index 0" and a start before the beginning is clamped to 0 (``'abc'[-5::-1]`` is ``a``).
    """
    step = 1 if given.step is None else given.step
    if not all(isinstance(v, int) for v in (given.start, given.stop, step) if v is not None):
        return given  # not integers: Python reports it
    if step == 0:
        raise ll.LlamaError("slice step cannot be zero")
    start = given.start if given.start is not None else (length - 1 if step < 0 else 0)
    stop = given.stop if given.stop is not None else (-1 if step < 0 else length)
    if step > 0:
        start = max(length + start, 0) if start < 0 else min(start, length)
        stop = max(length + stop, 0) if stop < 0 else min(stop, length)
        return slice(start, stop, step)
    start = max(length + start, 0) if start < 0 else min(start, length - 1)
    stop = max(length + stop, -1) if stop < -1 else min(stop, length - 1)
    if length == 0 or start <= stop:
        return slice(0, 0)
    return slice(start, None if stop < 0 else stop, step)


def _as_double(v: int | float) -> float:
    try:
        return float(v)
    except OverflowError:
        return math.copysign(math.inf, v)


def _arith(op: str, a: int | float, b: int | float) -> int | float:
    """``+``, ``-``, ``*`` on numbers as llama.cpp computes them: in double precision.

    llama.cpp quirk: two integers are also added/multiplied as doubles and cast back to
    int64, so results beyond 2**53 lose precision. A result outside int64 has no defined
    value there (C++ leaves the cast undefined), so it stops the render as a limit.
    """
    if isinstance(a, float) or isinstance(b, float):
        return a + b if op == "+" else a - b if op == "-" else a * b
    x, y = _as_double(a), _as_double(b)
    r = x + y if op == "+" else x - y if op == "-" else x * y
    if not -(2.0**63) <= r < 2.0**63:
        shown = [v if abs(v) < 10**12 else f"<{abs(v).bit_length()}-bit integer>" for v in (a, b)]
        raise RenderLimitError(f"{shown[0]} {op} {shown[1]} is too large to compute: the result is outside "
                               "int64, where llama.cpp's conversion from double is undefined")
    return int(r)


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_llama_value(v: Any) -> bool:
    return v is None or isinstance(v, (str, int, float, list, tuple, dict, Namespace, Undefined))


def _toobject(*args: Any, **kwargs: Any) -> Namespace:
    items: dict[Any, Any] = {}
    if args:
        first = args[0]
        if isinstance(first, (dict, Namespace)):
            items.update(ll.items_of(first))
        elif isinstance(first, (list, tuple)):
            for pair in first:
                if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                    raise ll.LlamaError(
                        f"namespace/dict() iterable argument must consist of tuples, not {ll.type_name(pair)}"
                    )
                items[pair[0]] = pair[1]
        else:
            raise ll.LlamaError(
                f"namespace/dict() arguments must be kwargs, dict and/or iterable of tuples, not {ll.type_name(first)}"
            )
        if len(args) > 1:
            raise ll.LlamaError("namespace/dict() arguments must be kwargs, dict and/or iterable of tuples")
    items.update(kwargs)
    return Namespace(items)


def _llama_dict(*args: Any, **kwargs: Any) -> dict:
    return dict(ll.items_of(_toobject(*args, **kwargs)))


def _llama_filter(name: str) -> Callable[..., Any]:
    return runtime_only(lb.make_filter(name))


def _stats_filter(name: str) -> Callable[..., Any]:
    resolved = lb.FILTER_ALIASES.get(name, name)
    inner = lb.make_filter(name)

    @jinja2.pass_context
    def stats_filter(_context: Any, value: Any, *args: Any, **kwargs: Any) -> Any:
        if resolved == "tojson" or (resolved == "string" and isinstance(value, (list, tuple, dict))):
            mark_deep(value)
        if not (resolved in lb.COERCED_FILTERS and not isinstance(value, (str, Undefined))):
            mark(value, resolved)
        return inner(value, *args, **kwargs)

    return stats_filter


def _stats_test(name: str) -> Callable[..., Any]:
    inner = lb.TESTS.get(name) or _unknown_test(name)

    def stats_test(value: Any, *args: Any) -> Any:
        if name in lb.TESTS:
            mark(value, "test_is_" + name)
        return inner(value, *args)

    return stats_test


@functools.cache
def environment(dialect: str, stats: bool = False) -> jinja2.Environment:
    """The (shared, thread-safe) environment of a dialect; ``stats`` only for llama.cpp."""
    options: dict[str, Any] = dict(
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=["jinja2.ext.loopcontrols", GenerationExtension],
    )
    if dialect == "transformers":
        return te.transformers_environment(options, raise_exception)
    if dialect != "llama.cpp":
        raise ValueError(f"unknown dialect {dialect!r}; expected one of {DIALECTS}")
    cls = LlamaStatsSandbox if stats else LlamaSandbox
    env = cls(undefined=ll.LlamaUndefined, finalize=ll.print_value, **options)
    env.filters = _AnyName(_stats_filter if stats else _llama_filter)
    if stats:
        env.tests = _AnyName(_stats_test)
    else:
        tests = _AnyName(_unknown_test)
        tests.update(lb.TESTS)
        env.tests = tests
    env.globals.clear()
    env.globals.update({name: ll.LlamaFunction(fn) for name, fn in (
        ("raise_exception", raise_exception),
        ("dict", _llama_dict),
        ("namespace", _toobject),
        ("range", _checked_range),
        ("tojson", ll.f_tojson),
    )})
    # identifier::execute_impl resolves any global_builtins() name, the tests' too
    env.globals.update({"test_is_" + name: ll.LlamaFunction(fn) for name, fn in lb.TESTS.items()})
    return env


# Statements and operators jinja2 parses but llama.cpp's parser rejects ("Unknown statement").
_LLAMA_UNSUPPORTED: tuple[tuple[type[nodes.Node], str], ...] = (
    (nodes.Extends, "{% extends %}"),
    (nodes.Include, "{% include %}"),
    (nodes.Import, "{% import %}"),
    (nodes.FromImport, "{% from ... import %}"),
    (nodes.Block, "{% block %}"),
    (nodes.With, "{% with %}"),
    (nodes.ScopedEvalContextModifier, "{% autoescape %}"),
    (nodes.Pow, "the '**' operator"),
    (nodes.FloorDiv, "the '//' operator"),
)
_RAW_TAG = re.compile(r"\{%[-+]?\s*raw\s*[-+]?%\}")


_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_LLAMA_ESCAPES = frozenset("ntrbfv\\'\"")
_LLAMA_NUMBER = re.compile(r"\d+(\.\d+)?")


def _check_llama_tokens(env: jinja2.Environment, source: str) -> None:
    """String escapes and number literals llama.cpp's lexer accepts (lexer.h escape_chars)."""
    for lineno, kind, value in env.lex(source):
        if kind == "string":
            bad = next((m for m in _ESCAPE.finditer(value[1:-1]) if m.group(1) not in _LLAMA_ESCAPES), None)
            if bad:
                raise jinja2.TemplateSyntaxError(
                    f"llama.cpp's Jinja lexer rejects the escape \\{bad.group(1)!r}"
                    " (it knows \\n \\t \\r \\b \\f \\v \\\\ \\' \\\")", lineno)
        elif kind in ("integer", "float") and not _LLAMA_NUMBER.fullmatch(value):
            raise jinja2.TemplateSyntaxError(f"llama.cpp's Jinja lexer cannot read the number {value!r}", lineno)


def check_llama_support(tree: nodes.Template, source: str, env: jinja2.Environment | None = None) -> None:
    """Refuse what llama.cpp's own parser cannot load, at the line where it appears."""
    if env is not None:
        _check_llama_tokens(env, source)
    for node in tree.find_all(nodes.Node):
        for cls, what in _LLAMA_UNSUPPORTED:
            if isinstance(node, cls):
                raise jinja2.TemplateSyntaxError(f"llama.cpp's Jinja engine does not support {what}", node.lineno)
        if isinstance(node, nodes.For) and node.recursive:
            raise jinja2.TemplateSyntaxError("llama.cpp's Jinja engine does not support recursive loops", node.lineno)
    raw = _RAW_TAG.search(source)
    if raw:
        line = source.count("\n", 0, raw.start()) + 1
        raise jinja2.TemplateSyntaxError("llama.cpp's Jinja engine does not support {% raw %}", line)


def compile_ast(env: jinja2.Environment, source: str, *, stats: bool = False,
                annotate: Callable[[nodes.Template], None] | None = None) -> jinja2.Template:
    """Parse, rewrite the hooks in, and compile a template (raises jinja2 errors).

    ``annotate`` sees the rewritten tree just before code generation (the provenance
    variant numbers its output nodes there: explorer.render.provenance_codegen).
    """
    tree = env.parse(source)
    if isinstance(env, LlamaSandbox):
        check_llama_support(tree, source, env)
    rewriter = _Rewriter(mark_names=stats, llama=isinstance(env, LlamaSandbox))
    rewriter.prepare(tree)
    rewriter.visit(tree)
    if annotate is not None:
        annotate(tree)
    code = env.compile(tree, filename="<template>")
    template_globals = env.make_globals({MACRO_TABLE: rewriter.macro_required})
    template = env.template_class.from_code(env, code, template_globals, None)
    mutates = isinstance(env, LlamaSandbox) and _mutates_lists(tree)
    template.jx_mutates_inputs = mutates  # type: ignore[attr-defined]  # our flag, carried on jinja2's Template
    return template


def _mutates_lists(tree: nodes.Template) -> bool:
    """Whether the template names llama.cpp's in-place list methods (append, pop), or sets
    a member of a name it never binds to a ``namespace(...)`` (llama.cpp assigns into a
    dict there, which may be an input's).

    Inputs are copied before a render only when it does (a key computed at run time that
    happens to spell "append" is not caught; it would change the caller's list only).
    """
    namespaces = {a.target.name for a in tree.find_all(nodes.Assign) if isinstance(a.target, nodes.Name)
                  and isinstance(a.node, nodes.Call) and isinstance(a.node.node, nodes.Name)
                  and a.node.node.name == "namespace"}
    if any(ref.name not in namespaces for ref in tree.find_all(nodes.NSRef)):
        return True
    for node in tree.find_all((nodes.Getattr, nodes.Getitem)):
        if isinstance(node, nodes.Getattr) and node.attr in ("append", "pop"):
            return True
        if isinstance(node, nodes.Getitem) and isinstance(node.arg, nodes.Const) and node.arg.value in ("append", "pop"):
            return True
    return False
