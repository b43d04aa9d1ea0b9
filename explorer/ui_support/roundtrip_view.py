"""The Try-it page's round-trip section: a report shaped for display, and the reply to prefill.

Input: a ``RoundTripReport`` (``explorer.roundtrip.roundtrip_report``) and the tool names
the page's request offers. Output: one frozen ``CaseRow`` per assistant message (what kind
of message, did it survive, what was lost in the report's own words, the grammar's
verdicts), the loud warnings for a grammar that refuses its own parser's output, and the
reply the raw-output box starts with; for a transformers-dialect report, one ``DialectRow`` per
message (trained reply vs llama.cpp's, in one triage sentence). Nothing here renders or
parses: the report did.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from explorer.ui_support.text import md_escape

OUTCOMES: Mapping[str, str] = {
    "exact": "✓ round-trips",
    "trimmed": "≈ equal once trimmed",
    "lossy": "✗ lossy",
    "refused": "! template refuses",
    "rejected": "! parser rejects",
}


@dataclass(frozen=True)
class CaseRow:
    """One assistant message of the round trip, as the verdict table shows it."""

    message_id: str
    kind: str  # "reasoning + tool call (get_weather)"
    outcome: str  # a key of OUTCOMES
    equal: str  # yes / no / - (not rendered)
    equal_trimmed: str
    lost: str  # the report's explanation, in plain words
    grammar: str  # the grammar's verdicts on the reply and its manglings
    reply: str | None  # the stripped reply the report cut out (None: nothing was cut)
    calls: tuple[str, ...] = ()  # the names of the tools the message calls
    alarm: str | None = None  # the grammar refuses this reply although it round-trips
    checker_note: str | None = None  # llguidance and a character-level reading disagree

    @property
    def outcome_label(self) -> str:
        return OUTCOMES[self.outcome]


def call_names(message: Mapping[str, Any]) -> list[str]:
    """The names of a message's tool calls, in order."""
    names = []
    for call in message.get("tool_calls") or []:
        fn = call.get("function", call) if isinstance(call, Mapping) else {}
        names.append(str(fn.get("name", "")) if isinstance(fn, Mapping) else "")
    return names


def message_kind(message: Mapping[str, Any]) -> str:
    """What an assistant message holds: 'reasoning + reply + 2 tool calls (get_weather, search)'."""
    parts = []
    if message.get("reasoning_content"):
        parts.append("reasoning")
    if message.get("content"):
        parts.append("reply")
    names = call_names(message)
    if names:
        count = "tool call" if len(names) == 1 else f"{len(names)} tool calls"
        parts.append(f"{count} ({', '.join(names)})")
    return " + ".join(parts) or "empty message"


def _yes_no(value: bool | None) -> str:
    return "-" if value is None else "yes" if value else "no"


def _outcome(case: Any) -> str:
    if case.render_exception is not None:
        return "refused"
    if case.result is None:
        return "rejected"
    if case.equal:
        return "exact"
    return "trimmed" if case.equal_trimmed else "lossy"


def verdict_text(verdict: Any) -> str:
    """One grammar verdict in words: 'rejects misspelled function name ✓'."""
    if verdict.label == "grammar error":
        return f"the grammar does not load: {verdict.message}"
    what = "the reply" if verdict.label == "rendered" else verdict.label
    text = f"{'accepts' if verdict.accepted else 'rejects'} {what}"
    if verdict.as_expected is True:
        text += " ✓"
    elif verdict.as_expected is False:
        text += f" ✗ (should {'accept' if verdict.should_accept else 'reject'})"
    else:
        text += " (no expectation)"
    if verdict.char_level_accepts is not None and verdict.char_level_accepts != verdict.accepted:
        text += " (llguidance only: a character-level reading of the GBNF " \
                + ("accepts" if verdict.char_level_accepts else "rejects") + " it)"
    return text


def grammar_cell(case: Any, has_grammar: bool) -> str:
    if not has_grammar:
        return "no grammar (output is free text)"
    if not case.grammar:
        return "-"
    return "; ".join(verdict_text(v) for v in case.grammar)


def _alarm(case: Any, kind: str) -> str | None:
    if not case.grammar_rejects_own_output:
        return None
    said = "; ".join(v.message for v in case.grammar if v.label == "rendered" and v.message)
    return (f"The grammar rejects its own parser's output for message {case.message_id} ({kind}): the reply "
            "parses back to the very message rendered, yet a model constrained by this grammar could not "
            "produce it." + (f" The grammar engine says: {said}" if said else ""))


def _checker_note(case: Any) -> str | None:
    if not case.grammar_checker_disagrees:
        return None
    return (f"Message {case.message_id}: llguidance and a character-level reading of the same GBNF disagree "
            "(llama.cpp's own grammar engine has no lexer, so the character-level verdict is the closer one).")


def case_row(case: Any, has_grammar: bool) -> CaseRow:
    kind = message_kind(case.message)
    outcome = _outcome(case)
    rendered = case.render_exception is None
    return CaseRow(
        message_id=str(case.message_id), kind=kind, outcome=outcome,
        equal=_yes_no(case.equal if rendered else None),
        equal_trimmed=_yes_no(case.equal_trimmed if rendered else None),
        lost="; ".join(case.explanation) or ("nothing" if outcome == "exact" else "-"),
        grammar=grammar_cell(case, has_grammar), reply=case.raw_output_stripped, calls=tuple(call_names(case.message)),
        alarm=_alarm(case, kind), checker_note=_checker_note(case),
    )


def case_rows(report: Any) -> tuple[CaseRow, ...]:
    return tuple(case_row(c, bool(report.has_grammar)) for c in report.cases)


def table_rows(rows: Sequence[CaseRow]) -> list[dict[str, str]]:
    """The verdict table, one dict per message (column name -> cell)."""
    return [{"message": r.message_id, "kind": r.kind, "result": r.outcome_label, "equal": r.equal,
             "equal_trimmed": r.equal_trimmed, "what was lost": r.lost, "grammar": r.grammar} for r in rows]


def summary(report: Any) -> str:
    """One line: how many messages survive, with which handler, format and grammar."""
    total = len(report.cases)
    trimmed = sum(1 for c in report.cases if c.equal_trimmed)
    grammar = ("no grammar" if not report.has_grammar
               else "a lazy grammar" if report.grammar_lazy else "an eager grammar")
    return (f"{report.equal_count} of {total} messages round-trip exactly, {trimmed} once surrounding whitespace "
            f"is trimmed (handler `{report.handler}`, format `{report.format}`, {grammar}, "
            f"enable_thinking {str(report.enable_thinking).lower()}).")


def all_refused(report: Any) -> str | None:
    """When the template renders no assistant message at all: what it said (else None)."""
    if not report.cases or any(c.render_exception is None for c in report.cases):
        return None
    first = report.cases[0].render_exception or {}
    return str(first.get("message", "")) or "the template raised"


# --- the reply the raw-output box starts with -----------------------------------------


@dataclass(frozen=True)
class Prefill:
    message_id: str
    text: str
    why: str  # which message it is, in words


def _calls_offered(case: Any, tool_names: Collection[str] | None) -> bool:
    return tool_names is None or all(n in tool_names for n in call_names(case.message))


def choose_prefill(report: Any, tool_names: Collection[str] | None = None) -> Prefill | None:
    """The template's own reply for a tool-call message, else for a plain reply.

    Only replies the report cut out (non-empty) count. A tool-call message qualifies when
    the page's request offers every tool it calls (``tool_names``; None: any tool). In
    order: the first tool-call message that round-trips (whitespace aside); the first whose
    reply the parser accepts and that names its first call; the first plain reply (no
    reasoning, no calls) the parser accepts; the first plain reply at all.
    """
    cut = [c for c in report.cases if c.raw_output_stripped]
    calls = [c for c in cut if call_names(c.message) and _calls_offered(c, tool_names)]
    plain = [c for c in cut if not call_names(c.message) and not c.message.get("reasoning_content")]
    choices = (
        ([c for c in calls if c.equal_trimmed], ", which round-trips"),
        ([c for c in calls if c.result is not None and call_names(c.message)[0] in c.raw_output_stripped],
         ", which parses, though not back to the same message"),
        ([c for c in plain if c.result is not None], " (no tool-call reply with this request's tools parses)"),
        (plain, " (no tool-call reply with this request's tools parses)"),
    )
    for cases, why in choices:
        if cases:
            case = cases[0]
            return Prefill(str(case.message_id), case.raw_output_stripped,
                           f"message {case.message_id}, a {message_kind(case.message)}{why}")
    return None


def should_prefill(current: str | None, last_prefill: str | None) -> bool:
    """Whether the box may be (re)filled: it was never set, or it still holds our last prefill.

    Anything else came from the user (typed, a sample, a case button, a link) and stays.
    """
    return current is None or (last_prefill is not None and current == last_prefill)


def missing_tools(calls: Sequence[str], offered: Collection[str]) -> list[str]:
    """The tools a message calls (``calls``, names) that the page's request does not offer."""
    return [n for n in dict.fromkeys(calls) if n not in offered]


def tool_names(tools: Sequence[Mapping[str, Any]] | None) -> list[str]:
    """The function names of an OpenAI tools list."""
    out = []
    for tool in tools or ():
        fn = tool.get("function", tool)
        if isinstance(fn, Mapping) and isinstance(fn.get("name"), str):
            out.append(fn["name"])
    return out


# --- the transformers round trip: what the model was trained on, read by llama.cpp -----

DIALECT_VERDICTS: Mapping[str, str] = {
    "same": "= same reply",
    "same_message": "≠ reply, same message",
    "parsed_differently": "≠ reply, parsed differently",
    "both_rejected": "≠ reply, parser rejects both",
    "transformers_refuses": "! transformers cannot render",
    "llama_refuses": "! llama.cpp cannot render",
    "neither": "! neither engine renders",
}


@dataclass(frozen=True)
class DialectRow:
    """One message rendered by both engines, as the comparison table shows it."""

    message_id: str
    kind: str
    verdict: str  # a key of DIALECT_VERDICTS
    headline: str  # the triage sentence: trained on X; llama.cpp renders Y and parses X as Z
    llama_reply: str | None
    transformers_reply: str | None
    refusal: str | None = None  # why transformers cannot render the message (its own words, line)

    @property
    def verdict_label(self) -> str:
        return DIALECT_VERDICTS[self.verdict]

    @property
    def differs(self) -> bool:
        return self.verdict in ("same_message", "parsed_differently", "both_rejected")


def _short(text: str, n: int = 80) -> str:
    return repr(text if len(text) <= n else text[: n - 1] + "…")


def _raised(exception: Mapping[str, Any] | None) -> str:
    """The error's own words and template line number, without the quoted source line."""
    message = str((exception or {}).get("message", "")).split("template raised an exception: ", 1)[-1]
    where = re.search(r" \(line (\d+)(?::| *\))", message)
    if where:
        message = message[: where.start()] + f" (line {where.group(1)})"
    lines = message.strip().splitlines()
    return lines[0] if lines else "it raised"


def parse_words(result: Mapping[str, Any] | None, exception: Mapping[str, Any] | None = None) -> str:
    """A parse in a few words: "content 'Hi' + get_weather({"city": "Paris"})"."""
    if result is None:
        said = (exception or {}).get("message")
        return "nothing: the parser rejects it" + (f" ({said})" if said else "")
    parts = []
    if result.get("reasoning_content"):
        parts.append(f"reasoning {_short(str(result['reasoning_content']), 40)}")
    if result.get("content"):
        parts.append(f"content {_short(str(result['content']), 40)}")
    parts += [f"{c.get('name', '')}({c.get('arguments', '')})" for c in result.get("tool_calls") or []]
    return " + ".join(parts) or "an empty message"


def _dialect_verdict(versus: Any) -> str:
    llama_refused = versus.llama.render_exception is not None
    transformers_refused = versus.transformers.render_exception is not None
    if llama_refused and transformers_refused:
        return "neither"
    if transformers_refused:
        return "transformers_refuses"
    if llama_refused:
        return "llama_refuses"
    if versus.replies_equal:
        return "same"
    if versus.llama.result is None and versus.transformers.result is None:
        return "both_rejected"
    return "same_message" if versus.same_parse else "parsed_differently"


def differing_parts(a: str, b: str, context: int = 24) -> tuple[str, str]:
    """Where two replies differ, with a little shared text around it (elided with …)."""
    from explorer.ui_support.diffs import common_prefix_len, common_suffix_len

    p = common_prefix_len(a, b)
    s = common_suffix_len(a, b, p)
    start = max(0, p - context)

    def cut(text: str) -> str:
        end = len(text) - s
        stop = min(len(text), end + context)
        return ("…" if start else "") + text[start:stop] + ("…" if stop < len(text) else "")

    return cut(a), cut(b)


def dialect_headline(versus: Any) -> str:
    """What triage asks of one message: does llama.cpp read back what the model was trained to emit?"""
    mid, verdict = versus.message_id, _dialect_verdict(versus)
    trained, own = versus.transformers_reply, versus.llama_reply
    read = parse_words(versus.transformers.result, versus.transformers.exception)
    if verdict == "neither":
        return f"Message {mid}: neither engine renders it ({_raised(versus.llama.render_exception)})."
    if verdict == "transformers_refuses":
        return (f"Message {mid}: transformers cannot render it ({_raised(versus.transformers.render_exception)}), "
                f"so no model was trained on it as written; llama.cpp renders {_short(own or '')}.")
    if verdict == "llama_refuses":
        return (f"Message {mid}: the model was trained on {_short(trained or '')}; llama.cpp cannot render it "
                f"({_raised(versus.llama.render_exception)}) and parses the trained reply as {read}.")
    if verdict == "same":
        return f"Message {mid}: both engines render the same reply; llama.cpp parses it as {read}."
    tail = {"same_message": "the same message as its own rendering",
            "both_rejected": "as it does its own rendering"}.get(
        verdict, f"while its own rendering parses as {parse_words(versus.llama.result, versus.llama.exception)}")
    ours, theirs = differing_parts(own or "", trained or "")
    return (f"Message {mid}: the model was trained on {_short(theirs, 120)}; llama.cpp renders {_short(ours, 120)} "
            f"and parses the trained reply as {read}, {tail}.")


def dialect_rows(report: Any) -> tuple[DialectRow, ...]:
    return tuple(DialectRow(str(v.message_id), message_kind(v.llama.message), _dialect_verdict(v), dialect_headline(v),
                            v.llama_reply, v.transformers_reply,
                            _raised(v.transformers.render_exception) if v.transformers.render_exception else None)
                 for v in report.versus)


def dialect_label(rows: Sequence[DialectRow]) -> str:
    """The comparison's expander title: how many replies differ (and how many cannot be rendered)."""
    differing = sum(1 for r in rows if r.differs)
    refused = sum(1 for r in rows if r.verdict in ("transformers_refuses", "neither"))
    extra = f", transformers cannot render {refused}" if refused else ""
    return f"Trained reply vs llama.cpp's reply ({differing}/{len(rows)} differ{extra})"


def refusal_groups(rows: Sequence[DialectRow]) -> list[str]:
    """One sentence per distinct reason transformers cannot render messages (llama.cpp can)."""
    groups: dict[str, list[str]] = {}
    for row in rows:
        if row.verdict == "transformers_refuses" and row.refusal:
            groups.setdefault(row.refusal, []).append(row.message_id)
    out = []
    for reason, ids in groups.items():
        which = f"message {ids[0]}" if len(ids) == 1 else f"messages {', '.join(ids)}"
        out.append(f"transformers cannot render {which} ({reason}), which llama.cpp renders: no model was "
                   "trained on these replies as llama.cpp writes them.")
    return out


def dialect_table_rows(rows: Sequence[DialectRow]) -> list[dict[str, str]]:
    """The comparison table, one dict per message (column name -> cell)."""
    return [{"message": r.message_id, "kind": r.kind, "trained vs llama.cpp": r.verdict_label} for r in rows]


def dialect_summary(report: Any) -> str:
    """One line: how many trained replies llama.cpp renders alike, differently, or not at all."""
    rows = dialect_rows(report)
    count = {key: sum(1 for r in rows if r.verdict == key) for key in DIALECT_VERDICTS}
    differ = count["same_message"] + count["parsed_differently"] + count["both_rejected"]
    text = (f"Of {len(rows)} messages, transformers renders {count['same']} exactly as llama.cpp does and "
            f"{differ} differently ({count['parsed_differently']} of them parse to a different message")
    if count["both_rejected"]:
        text += f", {count['both_rejected']} the parser rejects either way"
    text += ")"
    refused = count["transformers_refuses"] + count["neither"]
    if refused:
        text += f"; it cannot render {refused}"
    if count["llama_refuses"]:
        text += f"; llama.cpp cannot render {count['llama_refuses']} that transformers renders"
    return text + "."


def markdown_escape(text: str) -> str:
    """Text shown as Markdown verbatim (the replies quoted in a headline hold markup
    characters): the app's one escaping helper, ``explorer.ui_support.text.md_escape``."""
    return md_escape(text)
