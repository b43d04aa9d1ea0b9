"""One visitor over the PEG arena's node kinds: dispatch by the node's class.

Input: a parser node (``explorer.peg.nodes``) and whatever the visit needs beside it.
Output: what the subclass's ``visit_<Class>`` method returns for that node (``visit_Literal``,
``visit_Sequence``, ...), or ``generic_visit`` for a kind it does not name. As jinja's
``NodeVisitor`` (``visit_`` plus the node's class name), with the method of each node
class looked up when the visitor class is defined and kept in a table on that class, so a
visit is one dict lookup and a call, cheaper than a chain of ``isinstance`` tests. Kinds a visitor
treats alike share one method by aliasing (``visit_Gbnf = visit_Ac = visit_Schema``).
A visitor declared ``exhaustive=True`` must name every kind: one that does not fails when
its class is defined, not on the first arena that holds the kind it lacks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Generic, TypeVar

from explorer.errors import PegError
from explorer.peg.nodes import ALL_KINDS, ParserNode

R = TypeVar("R")


class _Methods(dict[type, Callable[..., Any]]):
    """A visitor class's table: every node kind's method, and ``generic_visit`` for any
    other type (looked up the first time one comes)."""

    def __init__(self, visitor: type[NodeVisitor[Any]]) -> None:
        super().__init__()
        self.visitor = visitor

    def __missing__(self, kind: type) -> Callable[..., Any]:
        method: Callable[..., Any] = getattr(self.visitor, f"visit_{kind.__name__}", None) \
            or self.visitor.generic_visit
        self[kind] = method
        return method


class NodeVisitor(Generic[R]):
    """``visit(node, *args)`` runs ``visit_<type(node).__name__>(node, *args)``."""

    _methods: ClassVar[_Methods]

    def __init_subclass__(cls, *, exhaustive: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        missing = [k.__name__ for k in ALL_KINDS if not hasattr(cls, f"visit_{k.__name__}")]
        if exhaustive and missing:
            raise TypeError(f"{cls.__name__} visits every parser kind but names no visit_{', visit_'.join(missing)}")
        cls._methods = _Methods(cls)  # each visitor class its own table, filled now for every kind
        for kind in ALL_KINDS:
            cls._methods.__missing__(kind)

    def visit(self, node: ParserNode, *args: Any) -> R:
        result: R = self._methods[type(node)](self, node, *args)
        return result

    def generic_visit(self, node: ParserNode, *args: Any) -> R:
        """What a kind the visitor does not name gives: an error, unless overridden."""
        raise PegError(f"{type(self).__name__}: no visit for parser kind {type(node).__name__}")


__all__ = ["NodeVisitor"]
