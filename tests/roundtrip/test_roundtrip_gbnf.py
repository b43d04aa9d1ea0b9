"""The character-level GBNF recognizer used to double-check grammar refusals.

Grammars and texts are hand-made; expectations follow GBNF's meaning (llama.cpp's
grammars/README.md): literals, classes, groups, ?, *, +, {m,n}, comments, line breaks.
"""

from __future__ import annotations

import pytest

from explorer.errors import GrammarError
from explorer.roundtrip.gbnf_earley import recognize

GRAMMAR = r'''
root ::= "<c>" name space? (arg)+ space? "</c>" tail? # a comment
name ::= "get_weather" | "search"
arg ::= space? "<k>" [a-z_]+ "</k>" value
value ::= "\"" ( [^"\\] | "\\" ["\\n] )* "\""
space ::= | " " | "\n"{1,2} [ \t]{0,20}
tail ::= "\x41"
   | "B"
'''


@pytest.mark.parametrize("text, accepted", [
    ('<c>get_weather<k>city</k>"Paris"</c>', True),
    ('<c>search\n<k>q</k>"he said \\"hi\\""\n\n  </c>A', True),
    ('<c>search<k>q</k>"x"<k>limit</k>"3"</c>B', True),
    ('<c>get_wether<k>city</k>"Paris"</c>', False),  # misspelled name
    ('<c>search<k>q</k>"x</c>', False),  # unterminated string
    ('<c>search</c>', False),  # + needs one arg
    ('<c>search<k>q</k>"x"\n\n\n</c>', False),  # at most two newlines
    ('<c>search<k>q</k>"x"</c>C', False),
])
def test_recognize(text: str, accepted: bool) -> None:
    assert recognize(GRAMMAR, text).accepted is accepted


def test_consumed_points_at_the_refusal() -> None:
    assert recognize(GRAMMAR, '<c>get_wether').consumed == len("<c>get_we")


def test_bad_grammar_raises() -> None:
    with pytest.raises(GrammarError):
        recognize('root ::= missing', "x")
    with pytest.raises(GrammarError):
        recognize('start ::= "x"', "x")
