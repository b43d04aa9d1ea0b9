"""Cross-check: the analysis' small matcher against the project's PEG engine.

Both port llama.cpp's PEG semantics (non-partial mode here). Each extraction pattern
the analyzers use is built in both from one description and run on random marker-ish
text, start position by start position as ``parse_anywhere_and_extract`` does; success
and tags must agree. The analysis does not use the engine; this only checks the two
ports against each other.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from explorer import peg
from explorer.analysis import matcher as m

# Pattern descriptions: ("lit", s) ("marker",) ("space",) ("any",) ("end",) ("rest",)
# ("until", [delims]) ("seq", *p) ("choice", *p) ("opt", p) ("star", p) ("not", p)
# ("tag", name, p) ("scan", *stops) -- scan = zero_or_more(!stop1 !stop2 ... any)
MARKER = ("marker",)
SP = ("space",)
LAST = ("seq", MARKER, ("scan", MARKER), ("end",))

PATTERNS = {
    "reasoning-wrapped": ("seq", ("tag", "pre", ("seq", MARKER, SP)), ("lit", "RR"),
                          ("tag", "post", ("seq", SP, MARKER, SP)), ("rest",)),
    "reasoning-delimiter": ("seq", ("lit", "RR"), SP, ("opt", ("tag", "post", ("seq", MARKER, SP))), ("rest",)),
    "content-plain": ("seq", SP, ("lit", "a<b>"), SP, ("opt", MARKER), SP, ("end",)),
    "json-context": ("seq", ("choice", ("lit", "{"), ("lit", ":")), SP, ("tag", "dq", ("lit", '"ab"'))),
    "function-marker": ("tag", "fun_marker", ("choice",
                        ("seq", ("tag", "fun_pre", ("seq", ("lit", "<"), ("until", [">", "ab"]))), ("lit", "ab"),
                         ("tag", "fun_post", ("seq", ("not", ("seq", SP, ("lit", "<"))), ("until", [">"]),
                                              ("lit", ">"))), SP),
                        ("seq", ("tag", "fun_pre", ("seq", ("lit", "["), ("until", ["]", "ab"]))), ("lit", "ab"),
                         ("tag", "fun_post", ("seq", ("not", ("seq", SP, ("lit", "["), ("until", ["]"]),
                                                              ("lit", "]"))), SP))))),
    "two-openers": ("seq", ("tag", "sec_start", ("seq", MARKER, SP)), ("tag", "call_start", ("seq", MARKER, SP)),
                    ("tag", "fun_pre", ("until", ["ab"])), ("lit", "ab"), ("tag", "rest", ("rest",))),
    "two-closers": ("seq", ("tag", "call_end", ("seq", MARKER, SP)), ("tag", "sec_end", ("seq", MARKER, SP)),
                    ("end",)),
    "name": ("seq", ("tag", "pre", ("until", ["ab"])), ("lit", "ab"), ("tag", "post", ("scan", MARKER))),
    "json-name-suffix": ("seq", ("tag", "ext", ("star", ("choice", MARKER, ("seq", ("not", ("lit", "{")),
                                                                               ("not", ("lit", "[")), ("any",))))),
                         ("scan", MARKER), MARKER),
    "arg-name": ("seq", ("tag", "pre", ("until", ["ab"])), ("lit", "ab"), ("tag", "suffix", ("until", ['"', "X"]))),
    "last-marker": ("seq", ("scan", LAST), ("tag", "m", MARKER)),
    "last-marker-tail": ("seq", ("scan", LAST), ("tag", "v", LAST)),
    "id-prefix": ("seq", ("tag", "prefix", MARKER), ("scan", MARKER, ("lit", "ca")), ("lit", "ca")),
    "id-suffix": ("seq", ("scan", MARKER, ("lit", "{")), ("tag", "suffix", MARKER)),
    "separator": ("seq", ("tag", "sep", ("scan", ("seq", MARKER, SP, ("choice", ("lit", "ab"), ("lit", "ba"))))),
                  ("seq", MARKER, SP, ("choice", ("lit", "ab"), ("lit", "ba")))),
    "closer": ("seq", ("until", ["YY"]), ("lit", "YY"), SP, MARKER, SP, ("tag", "close", ("rest",))),
}


def build_ours(d) -> m.P:
    kind, *args = d
    if kind == "lit":
        return m.lit(args[0])
    if kind == "marker":
        return m.MARKER
    if kind == "space":
        return m.SPACE
    if kind == "any":
        return m.ANY
    if kind == "end":
        return m.END
    if kind == "rest":
        return m.REST
    if kind == "until":
        return m.until_one_of(*args[0])
    if kind == "seq":
        return m.seq(*(build_ours(a) for a in args))
    if kind == "choice":
        return m.choice(*(build_ours(a) for a in args))
    if kind == "opt":
        return m.optional(build_ours(args[0]))
    if kind == "star":
        return m.zero_or_more(build_ours(args[0]))
    if kind == "not":
        return m.negate(build_ours(args[0]))
    if kind == "tag":
        return m.tag(args[0], build_ours(args[1]))
    if kind == "scan":
        return m.scan_until(*(build_ours(a) for a in args))
    raise ValueError(kind)


def build_engine(b, d) -> int:
    kind, *args = d
    if kind == "lit":
        return b.literal(args[0])
    if kind == "marker":
        return b.choice([b.sequence([b.literal("<"), b.until(">"), b.literal(">")]),
                         b.sequence([b.literal("["), b.until("]"), b.literal("]")])])
    if kind == "space":
        return b.space()
    if kind == "any":
        return b.any()
    if kind == "end":
        return b.end()
    if kind == "rest":
        return b.rest()
    if kind == "until":
        return b.until_one_of(args[0])
    if kind == "seq":
        return b.sequence([build_engine(b, a) for a in args])
    if kind == "choice":
        return b.choice([build_engine(b, a) for a in args])
    if kind == "opt":
        return b.optional(build_engine(b, args[0]))
    if kind == "star":
        return b.zero_or_more(build_engine(b, args[0]))
    if kind == "not":
        return b.negate(build_engine(b, args[0]))
    if kind == "tag":
        return b.tag(args[0], build_engine(b, args[1]))
    if kind == "scan":
        stops = [b.negate(build_engine(b, s)) for s in args]
        return b.zero_or_more(b.sequence(stops + [b.any()]))
    raise ValueError(kind)


def engine_anywhere(engine, text: str) -> tuple[bool, dict[str, str]]:
    """parse_anywhere_and_extract on the engine: every start, first success wins."""
    starts = range(len(text)) if text else [0]
    for start in starts:
        result = engine.parse(text, lenient=False, start=start)
        if result.success():
            tags: dict[str, str] = {}
            for node in result.walk():
                if node.tag:
                    tags[node.tag] = node.text
            return True, tags
    return False, {}


COMPILED = {
    name: (build_ours(d), peg.Engine(peg.build_arena(lambda b, d=d: build_engine(b, d))))
    for name, d in PATTERNS.items()
}

TEXT = st.lists(st.sampled_from(["<", ">", "[", "]", "a", "b", "ab", "RR", "YY", "X", '"', "{", ":", " ", "\n",
                                 "<x>", "[y]", "ca", "</t>"]), max_size=14).map("".join)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(sorted(PATTERNS)), TEXT)
def test_matcher_agrees_with_the_engine(name: str, text: str) -> None:
    ours, engine = COMPILED[name]
    got = ours.match_anywhere(text)
    ok, tags = engine_anywhere(engine, text)
    assert (got.success, got.tags) == (ok, tags), f"{name} on {text!r}"
