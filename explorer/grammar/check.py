"""GBNF grammar + texts -> verdicts from a real grammar engine (llguidance).

Input: GBNF text (llama.cpp's dialect) and candidate texts; optionally the lazy
grammar's trigger words. Output: one ``Verdict`` per text: accepted or not, how many
bytes the grammar took before it refused, and the engine's message.

The engine runs over a byte-level vocabulary (256 one-byte tokens and an end token), so a
verdict depends on the text alone, never on a model's tokenizer. For a lazy grammar the
grammar only constrains the text from the first trigger on, as llama.cpp's sampler does
(``triggers.py``, thinking blocks included); a text without a trigger is unconstrained.
``check_constrained`` checks one text the grammar constrains from its first byte, at most
``max_bytes`` of it, and says what the grammar would have taken where it refused.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from explorer.errors import GrammarError
from explorer.grammar.triggers import Trigger, lazy_feed
from explorer.memo import Memo


@dataclass(frozen=True)
class Verdict:
    text: str
    accepted: bool  # every byte taken and the grammar may stop there
    consumed_bytes: int  # bytes of the constrained part the grammar took
    constrained_from: int | None  # byte offset where the grammar starts (None: never triggered)
    complete: bool  # the grammar may stop after what it took
    message: str = ""
    allowed: str = ""  # at a refusal: what the grammar would have taken there (``describe_allowed``)
    truncated: bool = False  # only the first ``max_bytes`` were checked (``check_constrained``)

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "accepted": self.accepted, "consumed_bytes": self.consumed_bytes,
                "constrained_from": self.constrained_from, "complete": self.complete, "message": self.message,
                "allowed": self.allowed, "truncated": self.truncated}


class _ByteVocabulary:
    """What llguidance's TokenizerWrapper reads: one token per byte, plus an end token."""

    eos_token_id = 256
    bos_token_id = None
    special_token_ids = [256]

    def __init__(self) -> None:
        self.tokens = [bytes([i]) for i in range(256)] + [b"<|end|>"]

    def __call__(self, text: bytes | str) -> list[int]:
        return list(text.encode("utf-8") if isinstance(text, str) else text)


@lru_cache(maxsize=1)
def _tokenizer() -> Any:
    import llguidance

    return llguidance.LLTokenizer(llguidance.TokenizerWrapper(_ByteVocabulary()))


def rename_rule(gbnf: str, old: str, new: str) -> str:
    """Rename a rule and its references, leaving string literals and classes alone."""
    out: list[str] = []
    i, n = 0, len(gbnf)
    while i < n:
        ch = gbnf[i]
        if ch in "\"[":
            close = '"' if ch == '"' else "]"
            j = i + 1
            while j < n and gbnf[j] != close:
                j += 2 if gbnf[j] == "\\" else 1
            out.append(gbnf[i:j + 1])
            i = j + 1
        elif ch.isalnum() or ch in "-_":
            j = i
            while j < n and (gbnf[j].isalnum() or gbnf[j] in "-_"):
                j += 1
            word = gbnf[i:j]
            out.append(new if word == old else word)
            i = j
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _free_start(gbnf: str) -> str:
    """llguidance's converter renames ``root`` to ``start``; move a rule already so named."""
    names = {line.split(" ::= ", 1)[0] for line in gbnf.splitlines() if " ::= " in line}
    if "start" not in names:
        return gbnf
    new = "start-rule"
    while new in names:
        new += "-"
    return rename_rule(gbnf, "start", new)


def _hex_dash(gbnf: str) -> str:
    """llama.cpp's GBNF reads ``\\-`` (in classes and literals); llguidance's converter does
    not, so each becomes the equivalent ``\\x2D``."""
    out: list[str] = []
    i = 0
    while i < len(gbnf):
        if gbnf[i] == "\\" and i + 1 < len(gbnf):
            out.append("\\x2D" if gbnf[i + 1] == "-" else gbnf[i:i + 2])
            i += 2
        else:
            out.append(gbnf[i])
            i += 1
    return "".join(out)


_COMPILED: Memo[str] = Memo(size=64)


def compile_gbnf(gbnf: str) -> str:
    """GBNF -> llguidance grammar (via its Lark converter), made once per grammar while it
    stays among the newest compiled; GrammarError if it cannot."""
    return _COMPILED.get(gbnf, lambda: _compile_gbnf(gbnf))


def _compile_gbnf(gbnf: str) -> str:
    import llguidance
    from llguidance.gbnf_to_lark import gbnf_to_lark

    # gbnf_to_lark directly: llguidance's format sniffing takes a rule named "start" for Lark
    try:
        grammar = llguidance.LLMatcher.grammar_from_lark(gbnf_to_lark(_hex_dash(_free_start(gbnf))))
    except Exception as exc:  # the converter raises its own error types
        raise GrammarError(f"llguidance could not read the GBNF grammar: {exc}") from None
    is_error, messages = llguidance.LLMatcher.validate_grammar_with_warnings(grammar, _tokenizer())
    if is_error:
        raise GrammarError(f"llguidance rejected the grammar: {messages[0] if messages else 'unknown error'}")
    return grammar


def _check_one(grammar: str, text: str, triggers: Sequence[Trigger] | None, prefill: str = "",
               thinking: tuple[str, Sequence[str]] | None = None) -> Verdict:
    import llguidance

    start: int | None = 0
    part = list(text.encode("utf-8"))
    if triggers is not None:
        feed = lazy_feed(text, triggers, generation_prompt=prefill, thinking=thinking)
        if feed.start is None:
            return Verdict(text, True, 0, None, True, "no trigger: the lazy grammar never applies")
        start = len(text[:feed.start].encode("utf-8"))
        part = list(feed.text.encode("utf-8"))
    matcher = llguidance.LLMatcher(_tokenizer(), grammar, log_level=0)
    if matcher.is_error():
        raise GrammarError(f"llguidance could not start the grammar: {matcher.get_error()}")
    if prefill and triggers is None:
        head = list(prefill.encode("utf-8"))
        taken = matcher.validate_tokens(head)
        if taken < len(head):
            return Verdict(text, False, 0, start, False,
                           f"grammar refused the prefill (generation prompt) at its byte {taken}")
        matcher.consume_tokens(head)
    taken = matcher.validate_tokens(part)
    matcher.consume_tokens(part[:taken])
    complete = matcher.is_accepting()
    accepted = taken == len(part) and complete
    if accepted:
        message = ""
    elif taken < len(part):
        message = f"grammar refused byte {taken} of what it was given ({bytes(part[taken:taken + 1])!r})"
    else:
        message = "text ends before the grammar may stop"
    return Verdict(text, accepted, taken, start, complete, message)


def describe_allowed(matcher: Any) -> str:
    """What a matcher takes next, in words: the bytes it forces, or its allowed bytes as
    ranges (and whether it may end there)."""
    forced = matcher.compute_ff_bytes()
    if forced:
        return json.dumps(forced.decode("utf-8", "replace"), ensure_ascii=False)
    mask = matcher.compute_bitmask()
    allowed = [i for i in range(256) if mask[i // 8] >> (i % 8) & 1]
    ends = bool(mask[256 // 8] >> (256 % 8) & 1)
    if not allowed:
        return "the end of the output" if ends else "nothing"
    runs: list[tuple[int, int]] = []
    for b in allowed:
        if runs and runs[-1][1] == b - 1:
            runs[-1] = (runs[-1][0], b)
        else:
            runs.append((b, b))

    def show(b: int) -> str:
        return json.dumps(chr(b), ensure_ascii=True) if b < 0x80 else f"0x{b:02X}"
    parts = [show(a) if a == b else f"{show(a)}..{show(b)}" for a, b in runs[:8]]
    more = " …" if len(runs) > 8 else ""
    return "one of " + ", ".join(parts) + more + (", or the end of the output" if ends else "")


def _validate(matcher: Any, tokens: list[int], max_seconds: float | None) -> tuple[int, bool]:
    """(bytes the matcher took and consumed, whether the clock stopped it first). llguidance's
    cost per byte can grow with the length of a lexeme (a long string argument of Gemma 4's
    ``<|"|>`` form took 48 s for 2 KB), so a bounded check feeds it in chunks."""
    if max_seconds is None:
        taken = matcher.validate_tokens(tokens)
        matcher.consume_tokens(tokens[:taken])
        return taken, False
    deadline = time.perf_counter() + max_seconds
    done = 0
    while done < len(tokens):
        chunk = tokens[done:done + _CHUNK]
        taken = matcher.validate_tokens(chunk)
        matcher.consume_tokens(chunk[:taken])
        done += taken
        if taken < len(chunk):
            return done, False
        if done < len(tokens) and time.perf_counter() > deadline:
            return done, True
    return done, False


_CHUNK = 256  # bytes per validate call in a bounded check


def check_constrained(gbnf: str, text: str, *, prefill: str = "", max_bytes: int | None = None,
                      max_seconds: float | None = None) -> Verdict:
    """One text the grammar constrains from its first byte (a lazy grammar's fed text, or an
    eager grammar's output after ``prefill``). With ``max_bytes`` only that many bytes are
    checked, with ``max_seconds`` only as many as llguidance reads in that time (either way
    ``truncated``, and ``consumed`` says how many; accepted then means every checked byte was
    taken). A refusal says in ``allowed`` what the grammar would have taken there."""
    import llguidance

    grammar = compile_gbnf(gbnf)
    part = text.encode("utf-8", "surrogatepass")
    truncated = max_bytes is not None and len(part) > max_bytes
    if truncated:
        part = part[:max_bytes]
    matcher = llguidance.LLMatcher(_tokenizer(), grammar, log_level=0)
    if matcher.is_error():
        raise GrammarError(f"llguidance could not start the grammar: {matcher.get_error()}")
    if prefill:
        head = list(prefill.encode("utf-8"))
        taken = matcher.validate_tokens(head)
        if taken < len(head):
            return Verdict(text, False, 0, 0, False, f"grammar refused the prefill (generation prompt) at its byte "
                           f"{taken}", allowed=describe_allowed(matcher), truncated=truncated)
        matcher.consume_tokens(head)
    tokens = list(part)
    taken, timed_out = _validate(matcher, tokens, max_seconds)
    complete = matcher.is_accepting()
    if timed_out:
        return Verdict(text, True, taken, 0, complete, f"only the first {taken} bytes were checked (time bound)",
                       truncated=True)
    if taken < len(tokens):
        return Verdict(text, False, taken, 0, complete, f"grammar refused byte {taken} of what it was given "
                       f"({bytes(part[taken:taken + 1])!r})", allowed=describe_allowed(matcher), truncated=truncated)
    if truncated:
        return Verdict(text, True, taken, 0, complete, f"only the first {max_bytes} bytes were checked",
                       truncated=True)
    if not complete:
        return Verdict(text, False, taken, 0, False, "text ends before the grammar may stop",
                       allowed=describe_allowed(matcher))
    return Verdict(text, True, taken, 0, True)


def check_grammar(gbnf: str, texts: Sequence[str], *, triggers: Sequence[Trigger] | None = None,
                  prefill: str = "", thinking: tuple[str, Sequence[str]] | None = None) -> list[Verdict]:
    """Run each text through the grammar.

    ``triggers`` makes the grammar lazy: llama.cpp's trigger objects (``{"type": "WORD" |
    "PATTERN" | "PATTERN_FULL", "value": ...}``) or plain words. ``prefill`` is the
    generation prompt: fed to an eager grammar first, as llama.cpp's sampler does, and for a
    lazy one only read for the thinking state. ``thinking`` (start tag, end tags) holds a lazy
    grammar back inside thinking blocks, as llama.cpp's reasoning-budget sampler does.
    """
    grammar = compile_gbnf(gbnf)
    return [_check_one(grammar, text, triggers, prefill, thinking) for text in texts]


__all__ = ["Verdict", "check_constrained", "check_grammar", "compile_gbnf", "describe_allowed"]
