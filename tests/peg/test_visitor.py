"""explorer.peg.visitor: one dispatch over the arena's node kinds (jinja's NodeVisitor model)."""

from __future__ import annotations

import pytest

from explorer.errors import PegError
from explorer.peg.builder import build_arena
from explorer.peg.nodes import ALL_KINDS, Literal, ParserNode, Rule, Sequence, Tag
from explorer.peg.visitor import NodeVisitor


class Kinds(NodeVisitor[str]):
    def visit_Literal(self, node: Literal, suffix: str) -> str:
        return f"lit {node.literal}{suffix}"

    def visit_Tag(self, node: Tag | Rule, suffix: str) -> str:
        return f"named {node.tag if isinstance(node, Tag) else node.name}{suffix}"

    visit_Rule = visit_Tag  # kinds treated alike share a method

    def generic_visit(self, node: ParserNode, suffix: str) -> str:
        return f"other {type(node).__name__}{suffix}"


class Louder(Kinds):
    def visit_Literal(self, node: Literal, suffix: str) -> str:
        return super().visit_Literal(node, suffix).upper()


def test_dispatch_by_class_name_with_arguments_and_a_fallback():
    arena = build_arena(lambda p: p.tag("content", p.sequence([p.literal("a"), p.rule("r", p.literal("b"))])))
    kinds = Kinds()
    by_kind = {type(n).__name__: kinds.visit(n, "!") for n in arena.parsers}
    assert by_kind["Literal"] == "lit b!"  # the last literal built
    assert by_kind["Tag"] == "named content!"
    assert by_kind["Sequence"] == "other Sequence!"
    assert kinds.visit(arena.parsers[arena.rule_id("r")], "") == "named r"  # the alias
    assert kinds.visit(object(), "?") == "other object?"  # a type no kind names: the fallback too


def test_each_visitor_class_keeps_its_own_table():
    node = Literal("x")
    assert Kinds().visit(node, "") == "lit x"
    assert Louder().visit(node, "") == "LIT X"  # the subclass's method, not the one Kinds cached
    assert Kinds().visit(node, "") == "lit x"
    assert Louder._methods is not Kinds._methods


def test_a_kind_without_a_method_is_an_error_by_default():
    class OnlyLiterals(NodeVisitor[int]):
        def visit_Literal(self, node: Literal) -> int:
            return len(node.literal)

    assert OnlyLiterals().visit(Literal("abc")) == 3
    with pytest.raises(PegError, match="OnlyLiterals: no visit for parser kind Sequence"):
        OnlyLiterals().visit(Sequence((0,)))


def test_an_exhaustive_visitor_names_every_kind_when_defined():
    with pytest.raises(TypeError, match=r"Partial visits every parser kind but names no visit_Epsilon, .*visit_Ac"):
        class Partial(NodeVisitor[None], exhaustive=True):
            def visit_Literal(self, node: Literal) -> None:
                return None

    methods = {f"visit_{k.__name__}": (lambda self, node: type(node).__name__) for k in ALL_KINDS}
    whole = type("Whole", (NodeVisitor,), methods, exhaustive=True)
    assert whole().visit(Literal("x")) == "Literal"
