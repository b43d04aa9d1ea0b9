"""Grammar-side causes: does the request's grammar load, would the lazy grammar have woken,
does it accept the output, and does it agree with the parser.

Input: ``Facts`` (read through ``grammar_view.view``: the GBNF, its triggers, llguidance's
verdict). Output: findings of four checks -- ``grammar_build`` (llama.cpp's own GBNF parser
refuses the grammar, or the eager grammar refuses its own generation prompt: llama-server
answers with an error before generating), ``grammar_trigger`` (where the lazy grammar
wakes, by which trigger and from where; a call it never woke for, woke late for, or a
trigger inside content or reasoning), ``grammar_accepts`` (a refusal the parser shares, a
check cut short for size, a grammar llguidance cannot read) and ``grammar_vs_parser`` (the
parser and the grammar built from it disagree: a llama.cpp inconsistency). Also
``build_failure``: the ``Diagnosis`` of a request whose params cannot be built at all.
"""

from __future__ import annotations

from dataclasses import replace

from explorer.errors import GrammarError
from explorer.grammar.limits import grammar_limits
from explorer.triage import suggest as sg
from explorer.triage.facts import Facts
from explorer.triage.grammar_view import GRAMMAR_CHECK_BYTES, GRAMMAR_CHECK_SECONDS, GrammarView, view
from explorer.triage.model import END_OF_OUTPUT, Diagnosis, Finding, quote, shown

SAMPLER_INIT = "common_sampler_init (common/sampling.cpp)"
GRAMMAR_PARSER = "llama_grammar_parser::parse_sequence (src/llama-grammar.cpp), loaded by " + SAMPLER_INIT
TRIGGER_BUFFER = ("the lazy grammar's trigger buffer in llama_grammar_accept_impl (src/llama-grammar.cpp), fed by "
                  "common_sampler_accept (common/sampling.cpp)")
REASONING_GATE = ("common_reasoning_budget (common/reasoning-budget.cpp) via grammar_should_apply "
                  "(common/sampling.cpp)")
PARSER_VS_GRAMMAR = ("the PEG parser (common_chat_peg_parse) vs the GBNF built from it by "
                     "common_peg_arena::build_grammar (common/peg-parser.cpp)")
SERVER_ERROR = ("llama-server answers the request with an error (\"Failed to initialize samplers: failed to parse "
                "grammar\", HTTP 400) before generating")


# --- does the grammar load ------------------------------------------------------------------


def grammar_build(f: Facts) -> tuple[Finding, ...]:
    grammar = f.params.grammar
    if not grammar:
        return ()
    out: list[Finding] = []
    for limit in grammar_limits(grammar):
        if limit.kind == "refused":
            out.insert(0, Finding(
                check="grammar-build", severity="cause",
                summary=f"llama.cpp cannot load this request's grammar: its GBNF parser refuses rule "
                        f"{limit.rule!r} ({shown(limit.repetition)}: \"{limit.message}\"), so {SERVER_ERROR}; "
                        "no output can come from this request.",
                detail="The grammar is parsed when the sampler is set up for the request, after the chat params "
                       "are built: its repetition limit (2000) counts a repeated element's rules times the "
                       "repetition.",
                expected="a repetition within llama.cpp's limit (2000)", found=limit.repetition,
                fix_where="request", llama_cpp=GRAMMAR_PARSER,
                rule="llama_grammar_parser throws when a {m,n} count passes 2000, or a repeated element's rule "
                     "count times the repetition does.",
                fix_hint="Lower the count in the tool's schema behind this rule (minLength/maxLength, "
                         "minItems/maxItems, or a pattern's {m,n})."))
        else:
            out.append(Finding(
                check="grammar-build", severity="info",
                summary=f"llama.cpp loosens rule {limit.rule!r} of this request's grammar: {limit.message} "
                        f"({shown(limit.repetition)}).",
                found=limit.repetition, fix_where="request", llama_cpp=GRAMMAR_PARSER,
                rule="llama_grammar_parser drops an upper bound over 2000."))
    if f.params.grammar_lazy and not f.params.grammar_triggers:
        out.insert(0, Finding(
            check="grammar-build", severity="cause",
            summary="This request's grammar is lazy but has no triggers: llama-server refuses such a request "
                    "(\"Error: no triggers set for lazy grammar!\") before generating.",
            expected="at least one grammar trigger", found="grammar_lazy true, grammar_triggers []",
            fix_where="llama.cpp", quirk=True,
            llama_cpp="the handler's chat params vs the sampling params check in tools/server/server-schema.cpp",
            rule="llama-server reads a lazy grammar's triggers from the chat params and needs one."))
    v = view(f)
    run = v.run if v is not None else None
    if run is not None and run.verdict is not None and run.verdict.message.startswith("grammar refused the prefill"):
        out.insert(0, Finding(
            check="grammar-build", severity="cause",
            summary=f"This request's grammar refuses its own generation prompt {quote(f.gp, 60, keep='end')}: llama.cpp "
                    "feeds the prompt to the grammar when it sets up the sampler, that throws, and llama-server "
                    "answers the request with an error before generating.",
            detail=f"llguidance: {run.verdict.message}; the grammar wanted {run.verdict.allowed or 'something else'} "
                   "there. llama.cpp feeds the prompt as tokens; a tokenizer that adds a leading space is "
                   "skipped there.",
            expected=run.verdict.allowed, found=f.gp[-60:], fix_where="llama.cpp", quirk=True,
            llama_cpp=SAMPLER_INIT + " (prefill of the generation prompt) vs " + PARSER_VS_GRAMMAR,
            rule="An output-format or tool-call grammar is given the generation prompt first."))
    return tuple(out)


def build_failure(error: GrammarError, output: str, *, handler: str, generation_prompt: str = "") -> Diagnosis:
    """The diagnosis of a request whose chat params (grammar included) cannot be built: the
    output is not parsed, because llama-server never gets to generate it."""
    deep = "too deeply" in str(error)
    detail = ("llama.cpp builds the grammar inside common_chat_templates_apply, before it generates; when that "
              "throws, the request ends there.")
    if deep:
        detail += (" Here the explorer's own recursion limit stopped the build; llama.cpp recurses the same way in "
                   "C++ without a limit of its own, so a schema nested this deep either builds there or exhausts "
                   "the server's stack.")
    finding = Finding(
        check="grammar-build", severity="cause",
        summary=f"The request's grammar cannot be built ({error}): llama-server answers the request with an error "
                "before generating, so no model output is parsed for it.",
        detail=detail, expected="tools whose schemas convert to a grammar", found=str(error), fix_where="request",
        llama_cpp="common_chat_templates_apply (common/chat.cpp) building the grammar "
                  "(common_peg_arena::build_grammar, json_schema_to_grammar)",
        rule="The chat params, grammar included, are built for every request before generation starts.",
        fix_hint="Change the tools (their parameter schemas) so that the grammar builds: simpler, shallower, "
                 "with resolvable $refs.")
    return Diagnosis(output=output, generation_prompt=generation_prompt, handler=handler, message=None, error=None,
                     findings=(finding,), build_error=error)


# --- does the lazy grammar wake -------------------------------------------------------------


def _trigger_in_text(v: GrammarView) -> str:
    """The text region (content, reasoning) the wake-up lands in, or ""."""
    wake = v.wake
    return v.region_at(wake.start) if wake is not None and wake.start is not None else ""


def _run_words(v: GrammarView) -> str:
    run = v.run
    if run is None:
        return ""
    if run.error:
        return ", which llguidance could not check (see grammar-accepts)"
    if run.truncated and run.ok:
        return f"; the grammar takes its first {run.checked_bytes} bytes from there (the rest was not checked)"
    if run.ok:
        return "; the grammar accepts the output from there" + (
            f" up to the trailing {shown(run.stop_token)}, where llama.cpp stops" if run.stop_token else "")
    see = "grammar-vs-parser" if v.parser == "accepts" else "grammar-accepts"
    if run.refused is not None:
        return f"; the grammar refuses the output further on (see {see})"
    return f"; the output ends before the grammar may stop (see {see})"


def _run_detail(f: Facts, v: GrammarView) -> str:
    """Where the grammar refused, for a detail (a summary names only its own place)."""
    run = v.run
    if run is None or run.refused is None:
        return ""
    return f" The grammar refuses the output at {f.place(run.refused).where()}."


def _span(f: Facts, at: int, width: int = 1) -> tuple[int, int]:
    return (at, min(len(f.output), at + max(1, width)))


def _never_woke(f: Facts, v: GrammarView, call: int) -> Finding:
    wake = v.wake
    assert wake is not None
    names = ", ".join(f"{t.type} {shown(t.value)}" for t in f.params.grammar_triggers)
    if wake.in_prompt:
        why = (f"the generation prompt {quote(f.gp, 30, keep='end')} already wrote the start of the trigger {wake.in_prompt}, and "
               "llama.cpp's trigger buffer holds only generated text, so a call right after the prompt never "
               "wakes the grammar")
        llama = TRIGGER_BUFFER
        held = ""
    elif wake.held_back is not None:
        start, ends = f.params.thinking_start_tag, f.params.thinking_end_tags
        opened = f.gp.rfind(start) > max((f.gp.rfind(e) for e in ends if e), default=-1)
        block = ("a thinking block the generation prompt opened and the output does not close before it"
                 if opened else "a thinking block")
        why = (f"the trigger text lies inside {block} ({shown(start)} … "
               f"{shown(', '.join(ends))}), where llama.cpp's reasoning-budget sampler keeps the lazy grammar "
               "asleep, yet the parser reads a call there")
        held = f" The trigger text is at {f.place(wake.held_back).where()}."
        llama = REASONING_GATE + " vs the PEG parser (common_chat_peg_parse)"
    else:
        why = (f"no trigger ({names}) occurs in the output before the call, and the parser reads the call without "
               "one")
        llama = "the grammar triggers of the chat params vs the PEG parser (common_chat_peg_parse)"
        held = ""
    return Finding(
        check="grammar-trigger", severity="warning",
        summary=f"llama.cpp's lazy grammar never wakes for the tool call the parser reads at "
                f"{f.place(*_span(f, call, 30)).where()}: {why}. The model wrote that call unconstrained.",
        detail="A lazy grammar constrains generation only from the first trigger match on; a call before it is not "
               "held to the tools' schemas, so the model could have written any arguments (or a broken call)."
               + held,
        span=_span(f, call, 30), expected=names, found=f.output[call:call + 30], fix_where="llama.cpp", quirk=True,
        llama_cpp=llama, rule="The lazy grammar wakes where a trigger matches the generated text (outside thinking "
        "blocks); the parser reads calls by its own rules.",
        fix_hint="Nothing to change in this output (it parsed); to keep the model to the schema, a request with "
                 "tool_choice \"required\" makes the grammar eager.",
        suggestion=sg.changed_request(f, replace(f.request, tool_choice="required"), 'tool_choice "required"',
                                      'send tool_choice "required": the grammar is then eager and holds every call '
                                      "to the tools' schemas", sg.calls_as_returned(f)))


def _match_width(f: Facts, at: int) -> int:
    """How much of the output a PATTERN trigger's match covers from where it wakes the grammar
    (its first group on), so a finding shows the matched text, not its first character."""
    opening = next((o for o in f.openings if o.start == at and not o.in_prompt), None)
    return max(1, opening.end - opening.start) if opening is not None else 1


def grammar_trigger(f: Facts) -> tuple[Finding, ...]:
    v = view(f)
    if v is None or not v.lazy or v.wake is None or not f.params.grammar_triggers:
        return ()  # no triggers at all: grammar-build says llama-server refuses the request
    wake = v.wake
    first = v.calls[0] if v.calls else None
    if wake.start is None:
        return (_never_woke(f, v, first),) if first is not None else ()
    at = wake.start
    origin = f" ({wake.origin})" if wake.origin else ""
    fired = f.params.grammar_triggers[wake.feed.trigger] if wake.feed.trigger is not None else None
    width = len(fired.value) if fired is not None and fired.type == "WORD" else _match_width(f, at)
    region = _trigger_in_text(v)
    if region:
        run = v.run
        refusal = ""
        if run is not None and run.refused is not None and run.verdict is not None:
            refusal = (f" The grammar refuses the output at {f.place(run.refused).where()} "
                       f"({quote(f.output, 20, start=run.refused)}), wanting {run.verdict.allowed}.")
        gate = ""
        if region == "reasoning":
            gate = (" (llama.cpp holds the grammar back only inside " + shown(f.params.thinking_start_tag) + " … "
                    + shown(", ".join(f.params.thinking_end_tags)) + ")" if f.params.thinking_start_tag
                    else " (the request has no thinking tags, so llama.cpp does not hold the grammar back there)")
        return (Finding(
            check="grammar-trigger", severity="warning",
            summary=f"The lazy grammar's trigger {wake.trigger} fires at {f.place(*_span(f, at, width)).where()}, "
                    f"inside what the parser reads as {region}{gate}: from there llama.cpp holds the model to a tool "
                    f"call, so it could not have gone on writing {region}.",
            detail=f"The trigger comes from {wake.origin or 'the chat params'}. Once it fires, the grammar constrains "
                   "everything generated after it, to the end of the output." + refusal,
            span=_span(f, at, width), expected="a tool call from the trigger on", found=f.output[at:at + width],
            field=wake.field, probe=wake.probe, fix_where="model",
            llama_cpp=TRIGGER_BUFFER,
            rule="The first trigger match (outside thinking blocks) wakes the lazy grammar for the rest of the "
                 "output.",
            fix_hint="Model side: the trigger text must only appear where a call starts (not quoted in prose or "
                     "reasoning)."),)
    if first is not None and at > first:
        return (Finding(
            check="grammar-trigger", severity="warning",
            summary=f"The lazy grammar wakes late: the tool call the parser reads at "
                    f"{f.place(*_span(f, first, at - first)).where()} comes before its trigger {wake.trigger}{origin} "
                    "first matches, so that call was written unconstrained." + _run_words(v),
            detail="The parser reads a call the trigger does not announce (the call's opening differs from the "
                   f"trigger text), so the grammar only wakes at a later trigger match, at {f.place(at).where()}."
                   + _run_detail(f, v),
            span=_span(f, first, at - first), found=f.output[first:min(at, first + 40)],
            expected=wake.trigger, field=wake.field, probe=wake.probe, fix_where="llama.cpp", quirk=True,
            llama_cpp="the grammar triggers of the chat params vs the PEG parser (common_chat_peg_parse)",
            rule="The lazy grammar wakes at the first trigger match; the parser reads calls by its own rules."),)
    where = ("at the first tool call" if at == first
             else "where the first tool call starts" if first is not None else "where no tool call was parsed")
    body = (f" The parser reads the call's body from {f.place(first).where()}."
            if first is not None and first != at else "")
    return (Finding(
        check="grammar-trigger", severity="info",
        summary=f"The lazy grammar wakes at {f.place(*_span(f, at, width)).where()} on its trigger {wake.trigger}, "
                f"{where}" + _run_words(v) + ".",
        detail=f"The trigger comes from {wake.origin or 'the chat params'}." + body + _run_detail(f, v)
               + (" Thinking blocks are skipped, as llama.cpp's reasoning-budget sampler does."
                  if f.params.thinking_start_tag else "")
               + (" llama-server turns a WORD that is one token of the model's vocabulary into a TOKEN trigger, "
                  "which fires on that token only (the text here is read as characters)."
                  if fired is not None and fired.type == "WORD" else ""),
        span=_span(f, at, width), expected=wake.trigger, found=f.output[at:at + width], field=wake.field,
        probe=wake.probe, llama_cpp=TRIGGER_BUFFER, fix_where="llama.cpp",
        rule="The first trigger match wakes the lazy grammar; from there it constrains the rest of the output."),)


# --- does the grammar accept the output -----------------------------------------------------


def _refused_words(f: Facts, v: GrammarView) -> tuple[str, tuple[int, int] | None, str]:
    run = v.run
    assert run is not None and run.verdict is not None
    if run.refused is not None:
        at = run.refused
        return (f"refuses the output at {f.place(*_span(f, at, 20)).where()} ({quote(f.output, 20, start=at)}), where it wanted "
                f"{run.verdict.allowed}"), _span(f, at, 20), f.output[at:at + 20]
    return (f"takes all of it, but cannot end where the output ends (it wanted {run.verdict.allowed})",
            (len(f.output), len(f.output)), END_OF_OUTPUT)


def grammar_accepts(f: Facts) -> tuple[Finding, ...]:
    v = view(f)
    if v is None or v.run is None:
        return ()
    run = v.run
    if run.error:
        return (Finding(
            check="grammar-accepts", severity="info",
            summary="The request's grammar could not be checked against the output: llguidance cannot read it "
                    f"({run.error[:200]}).",
            detail="The explorer checks grammars with llguidance (llama.cpp's own sampler reads GBNF without it); "
                   "this says nothing about llama.cpp loading the grammar (see grammar-build).",
            fix_where="llama.cpp"),)
    out: list[Finding] = []
    if run.truncated:
        out.append(Finding(
            check="grammar-accepts", severity="info",
            summary=f"Only the first {run.checked_bytes} of {run.total_bytes} bytes the grammar constrains were "
                    "checked against it (the triage bounds the grammar check to stay fast on long outputs)"
                    + (": the grammar takes all of them." if run.ok else "."),
            detail=f"The grammar check stops after {GRAMMAR_CHECK_BYTES} bytes or {GRAMMAR_CHECK_SECONDS} s of "
                   "llguidance (its cost per byte grows with a long lexeme, such as one long string argument); a "
                   "refusal later in the output is not looked for.", fix_where="llama.cpp"))
    if run.ok or _trigger_in_text(v) or (v.parser == "accepts" and not (run.refused is None and v.parser_wants_more)):
        return tuple(out)  # agreement, a wake-up in the wrong place, or a disagreement: other findings say it
    if run.refused is None and (v.parser == "unsure" or v.parser_wants_more):
        return tuple(out)  # the output ends early: the parser and the grammar both wait for more
    words, span, found = _refused_words(f, v)
    also = "too" if v.parser == "rejects" else "(the parser did not read all of it either)"
    out.append(Finding(
        check="grammar-accepts", severity="info",
        summary=f"llama.cpp's grammar {words}: it refuses this output {also}.",
        detail=("A model generating under this grammar could not have written this output; "
                + ("the grammar woke at character " + str(v.constrained_from) + "." if v.lazy
                   else "the grammar is eager: it constrains the whole output after the generation prompt.")),
        span=span, expected=run.verdict.allowed if run.verdict else "", found=found, fix_where="model",
        llama_cpp=PARSER_VS_GRAMMAR))
    return tuple(out)


# --- does the grammar agree with the parser -------------------------------------------------


def _failure_at(f: Facts) -> int:
    """Where the parser failed, as an output character (its furthest failure when cheap)."""
    from explorer.peg.expectations import furthest_failure

    try:
        far = furthest_failure(f.arena, f.gp + f.output)
    except Exception:  # noqa: BLE001 - an explanation must never break the parse it explains
        far = None
    return max(f.stop, int(far.offset) - len(f.gp)) if far is not None else f.stop


def grammar_vs_parser(f: Facts) -> tuple[Finding, ...]:
    v = view(f)
    run = v.run if v is not None else None
    if v is None or run is None or run.verdict is None or run.error or _trigger_in_text(v):
        return ()
    start = v.constrained_from or 0
    lazy = "from its trigger on " if v.lazy else ""
    ends_early = run.refused is None and (run.truncated or v.parser_wants_more)  # both would wait for more
    if v.parser == "accepts" and not run.ok and not ends_early:
        words, span, found = _refused_words(f, v)
        if run.char_level:
            return (Finding(
                check="grammar-vs-parser", severity="info",
                summary=f"llguidance {words}, but a character-level reading of the "
                        "same GBNF takes it: the refusal is llguidance's, and llama.cpp's sampler (which reads the "
                        "grammar character by character, with no lexer) would let this output through.",
                detail="The explorer's grammar verdicts come from llguidance, which splits a grammar into lexemes; "
                       "when it and the character-level reading (explorer.roundtrip.gbnf_earley) disagree, the "
                       "character-level reading is llama.cpp's.",
                span=span, expected=run.verdict.allowed, found=found, fix_where="llama.cpp"),)
        confirmed = " (a character-level reading of the GBNF agrees)" if run.char_level is False else ""
        return (Finding(
            check="grammar-vs-parser", severity="warning",
            summary=f"The parser accepts this output, but the grammar llama.cpp builds from it {words}{confirmed}: "
                    f"the grammar is stricter, so a model generating under it {lazy}could not have written this.",
            detail="llama.cpp builds the GBNF from the same PEG parser, yet the two read the output differently "
                   "here (the grammar also holds tool arguments to their JSON schemas, which the parser does not "
                   "check)." + ("" if run.char_level is not None else " The verdict is llguidance's; the "
                   "character-level reading that would confirm it (llama.cpp's sampler has no lexer) was not run: "
                   "the text up to the refusal is too long for it."),
            span=span, expected=run.verdict.allowed, found=found, fix_where="llama.cpp", quirk=True,
            llama_cpp=PARSER_VS_GRAMMAR,
            rule="The grammar that constrains generation and the parser that reads the result should accept the "
                 "same texts."),)
    if v.parser == "rejects" and run.refused is None and not run.truncated:
        failed = _failure_at(f)
        if failed < start:
            return ()  # the parser failed before the grammar woke: grammar-trigger says why
        return (Finding(
            check="grammar-vs-parser", severity="cause",
            summary=f"The grammar llama.cpp builds from the parser takes this output {lazy}"
                    f"{'in full' if run.ok else '(every byte)'}, but the parser rejects it at "
                    f"{f.place(*_span(f, failed, 20)).where()}: "
                    "the grammar is looser, so llama.cpp let the model write an output its own parser then refuses.",
            detail="common_peg_arena::build_grammar turns each parser into GBNF; where a rule's GBNF allows more "
                   "than the parser (e.g. the string rule's escape class lists a space, so the grammar takes "
                   "\"\\ \", which the parser's JSON string refuses), generation and parsing part ways.",
            span=_span(f, failed, 20), found=f.output[failed:failed + 20], fix_where="llama.cpp", quirk=True,
            llama_cpp=PARSER_VS_GRAMMAR,
            rule="The grammar that constrains generation and the parser that reads the result should accept the "
                 "same texts."),)
    return ()
