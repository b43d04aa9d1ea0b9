"""llama.cpp's GBNF-generation vectors (tests/peg-parser/test-gbnf-generation.cpp), rebuilt
with our builder (creation order included: rule names like ``until-0``/``ac-3`` carry
parser ids) and emitted with our GBNF emitter."""

from __future__ import annotations

import re

import pytest

from explorer.grammar.gbnf import arena_to_gbnf
from explorer.peg.builder import Builder

SPACE = 'space ::= | " " | "\\n"{1,2} [ \\t]{0,20}'


def _trim(text: str) -> str:
    return re.sub(r"(^|\n)\s+", r"\1", text.strip())


def _emit(build, lazy: bool = False) -> str:
    p = Builder()
    arena = p.build(build(p))
    return arena_to_gbnf(arena, lazy=lazy)


def _emit_rules_1_to_4(p: Builder) -> int:
    rule1 = p.rule("rule-1", p.cat(lambda: p.literal("a"), lambda: p.ref("rule-2")))
    p.rule("rule-2", p.cat(lambda: p.literal("b"), lambda: p.ref("rule-3")), True)
    p.rule("rule-3", p.cat(lambda: p.literal("c"), lambda: p.ref("rule-4")))
    p.rule("rule-4", p.literal("d"), True)
    return rule1


def _orphan(p: Builder) -> int:
    p.rule("orphan", p.literal("orphan"))
    return p.cat(lambda: p.literal("hello"), lambda: p.rule("child", p.literal(" world")))


CASES = {
    "literal": (lambda p: p.literal("hello"), 'root ::= "hello"'),
    "char class": (lambda p: p.chars("[a-z]", 1, 1), "root ::= [a-z]"),
    "sequence": (lambda p: p.cat(lambda: p.literal("hello"), lambda: p.literal(" "), lambda: p.literal("world")),
                 'root ::= "hello" " " "world"'),
    "choice": (lambda p: p.alt(lambda: p.literal("cat"), lambda: p.literal("dog")), 'root ::= "cat" | "dog"'),
    "one_or_more": (lambda p: p.one_or_more(p.literal("a")), 'root ::= "a"+'),
    "zero_or_more": (lambda p: p.zero_or_more(p.literal("a")), 'root ::= "a"*'),
    "optional": (lambda p: p.cat(lambda: p.literal("hello"), lambda: p.optional(p.literal(" world"))),
                 'root ::= "hello" " world"?'),
    "until": (lambda p: p.until("</tag>"), """
        root ::= until-0
        until-0 ::= | [<] until-0-01 | [^<] until-0
        until-0-01 ::= | [<] until-0-01 | [/] until-0-02 | [^/<] until-0
        until-0-02 ::= | [<] until-0-01 | [t] until-0-03 | [^<t] until-0
        until-0-03 ::= | [<] until-0-01 | [a] until-0-04 | [^<a] until-0
        until-0-04 ::= | [<] until-0-01 | [g] until-0-05 | [^<g] until-0
        until-0-05 ::= | [<] until-0-01 | [^<>] until-0"""),
    "until overlapping delimiter": (lambda p: p.until("\n</parameter>\n"), """
        root ::= until-0
        until-0 ::= | [\\n] until-0-01 | [^\\n] until-0
        until-0-01 ::= | [\\n] until-0-01 | [<] until-0-02 | [^\\n<] until-0
        until-0-02 ::= | [\\n] until-0-01 | [/] until-0-03 | [^\\n/] until-0
        until-0-03 ::= | [\\n] until-0-01 | [p] until-0-04 | [^\\np] until-0
        until-0-04 ::= | [\\n] until-0-01 | [a] until-0-05 | [^\\na] until-0
        until-0-05 ::= | [\\n] until-0-01 | [r] until-0-06 | [^\\nr] until-0
        until-0-06 ::= | [\\n] until-0-01 | [a] until-0-07 | [^\\na] until-0
        until-0-07 ::= | [\\n] until-0-01 | [m] until-0-08 | [^\\nm] until-0
        until-0-08 ::= | [\\n] until-0-01 | [e] until-0-09 | [^\\ne] until-0
        until-0-09 ::= | [\\n] until-0-01 | [t] until-0-10 | [^\\nt] until-0
        until-0-10 ::= | [\\n] until-0-01 | [e] until-0-11 | [^\\ne] until-0
        until-0-11 ::= | [\\n] until-0-01 | [r] until-0-12 | [^\\nr] until-0
        until-0-12 ::= | [\\n] until-0-01 | [>] until-0-13 | [^\\n>] until-0
        until-0-13 ::= | [^\\n] until-0"""),
    "ac terminates at first delimiter": (
        lambda p: p.ac(p.cat(lambda: p.until("\n</parameter>\n"), lambda: p.literal("\n</parameter>\n")),
                       "\n</parameter>\n"), """
        ac-3 ::= [\\n] ac-3-01 | [^\\n] ac-3
        ac-3-01 ::= [\\n] ac-3-01 | [<] ac-3-02 | [^\\n<] ac-3
        ac-3-02 ::= [\\n] ac-3-01 | [/] ac-3-03 | [^\\n/] ac-3
        ac-3-03 ::= [\\n] ac-3-01 | [p] ac-3-04 | [^\\np] ac-3
        ac-3-04 ::= [\\n] ac-3-01 | [a] ac-3-05 | [^\\na] ac-3
        ac-3-05 ::= [\\n] ac-3-01 | [r] ac-3-06 | [^\\nr] ac-3
        ac-3-06 ::= [\\n] ac-3-01 | [a] ac-3-07 | [^\\na] ac-3
        ac-3-07 ::= [\\n] ac-3-01 | [m] ac-3-08 | [^\\nm] ac-3
        ac-3-08 ::= [\\n] ac-3-01 | [e] ac-3-09 | [^\\ne] ac-3
        ac-3-09 ::= [\\n] ac-3-01 | [t] ac-3-10 | [^\\nt] ac-3
        ac-3-10 ::= [\\n] ac-3-01 | [e] ac-3-11 | [^\\ne] ac-3
        ac-3-11 ::= [\\n] ac-3-01 | [r] ac-3-12 | [^\\nr] ac-3
        ac-3-12 ::= [\\n] ac-3-01 | [>] ac-3-13 | [^\\n>] ac-3
        ac-3-13 ::= [\\n] | [^\\n] ac-3
        root ::= ac-3"""),
    "until unicode delimiter": (lambda p: p.until("<｜DSML｜"), """
        root ::= until-0
        until-0 ::= | [<] until-0-01 | [^<] until-0
        until-0-01 ::= | [<] until-0-01 | [\\uFF5C] until-0-02 | [^<\\uFF5C] until-0
        until-0-02 ::= | [<] until-0-01 | [D] until-0-03 | [^<D] until-0
        until-0-03 ::= | [<] until-0-01 | [S] until-0-04 | [^<S] until-0
        until-0-04 ::= | [<] until-0-01 | [M] until-0-05 | [^<M] until-0
        until-0-05 ::= | [<] until-0-01 | [L] until-0-06 | [^<L] until-0
        until-0-06 ::= | [<] until-0-01 | [^<\\uFF5C] until-0"""),
    "until multiple delimiters": (lambda p: p.until_one_of(["ab", "cd", "ef"]), """
        root ::= until-0
        until-0 ::= | [a] until-0-01 | [c] until-0-03 | [e] until-0-05 | [^ace] until-0
        until-0-01 ::= | [a] until-0-01 | [c] until-0-03 | [e] until-0-05 | [^abce] until-0
        until-0-03 ::= | [a] until-0-01 | [c] until-0-03 | [e] until-0-05 | [^acde] until-0
        until-0-05 ::= | [a] until-0-01 | [c] until-0-03 | [e] until-0-05 | [^acef] until-0"""),
    "ac": (lambda p: p.ac(p.cat(lambda: p.until("</tag>"), lambda: p.literal("</tag>")), "</tag>"), """
        ac-3 ::= [<] ac-3-01 | [^<] ac-3
        ac-3-01 ::= [<] ac-3-01 | [/] ac-3-02 | [^/<] ac-3
        ac-3-02 ::= [<] ac-3-01 | [t] ac-3-03 | [^<t] ac-3
        ac-3-03 ::= [<] ac-3-01 | [a] ac-3-04 | [^<a] ac-3
        ac-3-04 ::= [<] ac-3-01 | [g] ac-3-05 | [^<g] ac-3
        ac-3-05 ::= [>] | [<] ac-3-01 | [^<>] ac-3
        root ::= ac-3"""),
    "ac multiple delimiters": (lambda p: p.ac(p.eps(), ["ab", "cd", "ef"]), """
        ac-1 ::= [a] ac-1-01 | [c] ac-1-03 | [e] ac-1-05 | [^ace] ac-1
        ac-1-01 ::= [b] | [a] ac-1-01 | [c] ac-1-03 | [e] ac-1-05 | [^abce] ac-1
        ac-1-03 ::= [d] | [a] ac-1-01 | [c] ac-1-03 | [e] ac-1-05 | [^acde] ac-1
        ac-1-05 ::= [f] | [a] ac-1-01 | [c] ac-1-03 | [e] ac-1-05 | [^acef] ac-1
        root ::= ac-1"""),
    "parentheses": (lambda p: p.one_or_more(p.alt(lambda: p.literal("a"), lambda: p.literal("b"))),
                    'root ::= ("a" | "b")+'),
    "rule references": (lambda p: p.one_or_more(p.rule("digit", p.chars("[0-9]", 1, 1))),
                        "digit ::= [0-9]\nroot ::= digit+"),
    "escaping": (lambda p: p.literal("hello\nworld\n!"), 'root ::= "hello\\nworld\\n!"'),
    "operator<<": (lambda p: p.shl(lambda: p.literal("hello"), lambda: p.literal("world")),
                   'root ::= "hello" space "world"'),
    "only reachable rules": (_orphan, 'child ::= " world"\nroot ::= "hello" child'),
    "tagged choice in sequence": (
        lambda p: p.cat(lambda: p.literal("a"), lambda: p.tag("t", p.alt(lambda: p.literal("b"),
                                                                         lambda: p.literal("c")))),
        'root ::= "a" ("b" | "c")'),
    "tagged sequence in choice": (
        lambda p: p.alt(lambda: p.tag("t", p.cat(lambda: p.literal("a"), lambda: p.literal("b"))),
                        lambda: p.literal("c")),
        'root ::= "a" "b" | "c"'),
    "atomic choice in repetition": (
        lambda p: p.one_or_more(p.atomic(p.alt(lambda: p.literal("a"), lambda: p.literal("b")))),
        'root ::= ("a" | "b")+'),
    "silent gbnf": (lambda p: p.cat(lambda: p.literal("hello"), lambda: p.gbnf(p.literal("world"), "")),
                    'root ::= "hello"'),
    "silent choice in sequence": (
        lambda p: p.cat(lambda: p.literal("a"), lambda: p.gbnf(p.alt(lambda: p.literal("b"), lambda: p.literal("c")), ""),
                        lambda: p.literal("d")),
        'root ::= "a" "d"'),
    "silent in tag": (lambda p: p.cat(lambda: p.literal("a"), lambda: p.tag("t", p.gbnf(p.literal("b"), ""))),
                      'root ::= "a"'),
    "custom gbnf": (lambda p: p.cat(lambda: p.literal("a"), lambda: p.gbnf(p.literal("b"), "[a-z]+")),
                    'root ::= "a" [a-z]+'),
    "nested wrappers": (
        lambda p: p.cat(lambda: p.literal("x"), lambda: p.tag("outer", p.atomic(
            p.alt(lambda: p.literal("a"), lambda: p.literal("b"))))),
        'root ::= "x" ("a" | "b")'),
    "all rules eager": (_emit_rules_1_to_4, """
        root ::= rule-1
        rule-1 ::= "a" rule-2
        rule-2 ::= "b" rule-3
        rule-3 ::= "c" rule-4
        rule-4 ::= "d\""""),
}


@pytest.mark.parametrize("name", list(CASES))
def test_reference_vector(name: str) -> None:
    build, expected = CASES[name]
    lines = [line for line in _trim(expected).splitlines()] + [SPACE]
    assert _trim(_emit(build)) == "\n".join(sorted(lines))


def test_lazy_grammar_keeps_trigger_rules_and_their_references() -> None:
    expected = """
        root ::= rule-2 | rule-4
        rule-2 ::= "b" rule-3
        rule-3 ::= "c" rule-4
        rule-4 ::= "d"
    """
    assert _trim(_emit(_emit_rules_1_to_4, lazy=True)) == "\n".join(sorted(_trim(expected).splitlines() + [SPACE]))
