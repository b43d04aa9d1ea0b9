"""Regex grammar triggers (PATTERN / PATTERN_FULL) as tool-call openers.

Input: ``ChatParams`` (its ``grammar_triggers``; for a request without tools, the routed
handler's declared triggers), the generation prompt and the model output. Output:
``TriggerPattern`` (the trigger compiled with Python's ``re``, or why it could not be) and
``Opening`` (a place in the output where llama-server's lazy grammar would wake up: the
start of a tool call as the handler announces it).

llama.cpp compiles triggers with ``std::regex`` (ECMAScript) and checks them against the
text generated so far after every token; a pattern written ``^...$`` must match that whole
text, any other pattern is searched in it, and the constrained part starts at the first
non-empty capture group (else at the match).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from explorer.handlers.registry import find_handler

PATTERN_KINDS = ("PATTERN", "PATTERN_FULL")
MAX_ANCHORED_PREFIX = 400  # an anchored trigger fires early in the output or never


@dataclass(frozen=True)
class TriggerPattern:
    source: str  # as llama.cpp holds it (ECMAScript)
    kind: str  # PATTERN or PATTERN_FULL
    origin: str
    regex: re.Pattern[str] | None
    note: str = ""  # how Python's reading differs, or why it could not compile

    @property
    def anchored(self) -> bool:
        """Matched against the whole output so far (``^...$``, or PATTERN_FULL)."""
        return self.kind == "PATTERN_FULL" or (self.source.startswith("^") and self.source.endswith("$"))


@dataclass(frozen=True)
class Opening:
    """Where a trigger pattern matches: ``start`` is where the tool call starts (the
    first non-empty group, as llama.cpp takes it); ``in_prompt`` when the match began in
    the generation prompt (the output continues a call the prompt opened)."""

    start: int
    end: int
    pattern: TriggerPattern
    in_prompt: bool = False


_UNSUPPORTED = (("[^]", "the ECMAScript class [^] (any character)"), ("\\c", "a \\c control escape"),
                ("(?<=", "lookbehind (std::regex has none)"), ("(?<!", "lookbehind (std::regex has none)"))


def to_python(source: str) -> tuple[str | None, str]:
    """The ECMAScript pattern as a Python pattern, and a note on what differs.

    Differences handled: an unescaped ``$`` ends the text only (Python's also matches
    before a final newline), so it becomes ``\\Z``; ``\\s``/``\\w``/``\\d`` are ASCII in
    std::regex over bytes (re.ASCII). Not handled (None): constructs Python lacks or reads
    otherwise."""
    for token, what in _UNSUPPORTED:
        if token in source:
            return None, f"uses {what}, which Python's re reads differently"
    out: list[str] = []
    i, in_class = 0, False
    while i < len(source):
        ch = source[i]
        if ch == "\\" and i + 1 < len(source):
            out.append(source[i:i + 2])
            i += 2
            continue
        if ch == "[" and not in_class:
            in_class = True
        elif ch == "]" and in_class:
            in_class = False
        elif ch == "$" and not in_class:
            ch = r"\Z"
        out.append(ch)
        i += 1
    note = ("'.' also matches \\r here (not in ECMAScript)" if "." in source.replace("\\.", "") else "")
    return "".join(out), note


def compile_trigger(source: str, kind: str, origin: str) -> TriggerPattern:
    translated, note = to_python(source)
    if translated is None:
        return TriggerPattern(source, kind, origin, None, note)
    try:
        regex = re.compile(translated, re.ASCII)
    except re.error as exc:
        return TriggerPattern(source, kind, origin, None, f"Python's re cannot compile it ({exc})")
    return TriggerPattern(source, kind, origin, regex, note)


def trigger_patterns(params: Any) -> tuple[TriggerPattern, ...]:
    """The request's regex triggers; without tools (no triggers), the routed handler's own."""
    whose = "" if params.handler == "autoparser" else f" of llama.cpp's {params.handler} handler"
    triggers = [(t.type, t.value) for t in params.grammar_triggers if t.type in PATTERN_KINDS]
    declared = ""
    handler = find_handler(params.handler)
    if not params.grammar_triggers and handler is not None:
        # the constant declaration: triggers that depend on the request (DeepSeek's,
        # Qwen3-Coder's) are all WORD triggers, never patterns
        triggers = [(t.type, t.value) for t in handler.triggers if t.type in PATTERN_KINDS]
        declared = " (declared by the handler; this request builds no grammar)"
    return tuple(compile_trigger(value, kind, f"grammar trigger ({kind}){whose}{declared}: the lazy grammar "
                                 f"wakes up where it matches") for kind, value in triggers)


def _call_start(m: re.Match[str]) -> int:
    for group in range(1, (m.re.groups or 0) + 1):
        if m.start(group) >= 0 and m.end(group) > m.start(group):
            return m.start(group)
    return m.start()


def openings(patterns: tuple[TriggerPattern, ...], generation_prompt: str, output: str) -> tuple[Opening, ...]:
    """Every place a trigger pattern matches in the output, earliest first.

    Anchored patterns are tried on each prefix of the output's start (llama.cpp checks
    them after every token; a token boundary is assumed anywhere). Search patterns are
    matched in generation prompt + output, so a call whose announcing text the prompt
    already wrote (Functionary v3.2's ``>>>``) counts from output offset 0; llama.cpp's own
    trigger buffer holds the output only, so its grammar does not wake up there.
    """
    if not output:
        return ()
    found: dict[int, Opening] = {}
    gp = len(generation_prompt)
    for pat in patterns:
        if pat.regex is None:
            continue
        if pat.anchored:
            for k in range(1, min(len(output), MAX_ANCHORED_PREFIX) + 1):
                m = pat.regex.fullmatch(output, 0, k)
                if m is not None:
                    found.setdefault(_call_start(m), Opening(_call_start(m), m.end(), pat))
                    break
            continue
        # llama.cpp quirk (tokenisation): a lookahead at the end of a pattern is checked against the
        # text so far, so ">>>(?!all)" fires on ">>>" unless ">>>all" arrives as one token; here the
        # whole output is visible, as when the token is one piece.
        for m in pat.regex.finditer(output):  # llama.cpp's trigger buffer: the output alone
            found.setdefault(_call_start(m), Opening(_call_start(m), m.end(), pat))
        for m in pat.regex.finditer(generation_prompt + output):
            if m.start() >= gp or m.end() < gp or (m.end() == gp and m.start() == m.end()):
                continue  # in the output (above), or wholly inside the prompt
            start = max(0, _call_start(m) - gp)
            found.setdefault(start, Opening(start, m.end() - gp, pat, in_prompt=True))
    return tuple(found[k] for k in sorted(found))


def example_text(pat: TriggerPattern) -> str:
    """A literal text the pattern matches, from its fixed parts (first alternatives,
    one space for ``\\s+``); "" when it has no long fixed part. Near misses are looked for
    against it."""
    if pat.regex is None:
        return ""
    try:
        from re import _parser as sre_parse  # type: ignore[attr-defined]  # private: typeshed has no stub for it

        tree = sre_parse.parse(pat.regex.pattern, re.ASCII)
    except Exception:  # noqa: BLE001 - a private module: an example is optional
        return ""
    return _example(tree, 0).strip("\n")


def _example(items: Any, depth: int) -> str:
    from re import _constants as c  # type: ignore[attr-defined]  # private: typeshed has no stub for it

    if depth > 20:
        return ""
    out = ""
    for op, arg in items:
        if op is c.LITERAL:
            out += chr(arg)
        elif op is c.SUBPATTERN:
            out += _example(arg[-1], depth + 1)
        elif op is c.BRANCH:
            alts = [_example(alt, depth + 1) for alt in arg[1]]
            out += max(alts, key=len) if alts else ""
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT):
            low, high, body = arg
            text = _example(body, depth + 1)
            if text.isspace():
                out += text
                continue
            if not text:
                return out  # a run of a class: the fixed part ends here
            out += text * low
            if high != low:
                return out
        elif op is c.IN:
            if any(o is c.CATEGORY and a is c.CATEGORY_SPACE for o, a in arg):
                out += " "
            else:
                return out  # a class of characters: the fixed part ends here
        elif op in (c.AT, c.ASSERT, c.ASSERT_NOT):
            continue
        else:
            return out
    return out
