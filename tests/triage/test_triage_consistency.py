"""One diagnosis tells one story: no duplicates, no two findings contradicting, the parse untouched.

Outputs are generated from pieces of a few templates' own markup (their call openers and
closers, reasoning tags, the template's own rendered call cut at its markup, JSON
fragments, prose, end-of-turn tokens), on our example templates, our qwen3-coder-routed
tagged template, and our own Llama-3.2-style template whose reading llama.cpp gets wrong
(its template findings are causes). For each: (a) no finding makes a claim another finding (or the parse) refutes
(``CONTRADICTIONS``, as data; and ``consistency.RULES`` leave nothing to drop), (b) no
two findings say the same thing about one place, (c) the diagnosis's message and error
are ``session.parse``'s, (d) every ``fix_where`` is one of ``FIX_WHERE``. Then each rule
of ``explorer.triage.consistency`` on hand-made findings.
"""

from __future__ import annotations

import functools
import re
from dataclasses import replace

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from cases import LLAMA32_PYTHONIC, TAGGED
from explorer.apply import Request
from explorer.session import TemplateSession, open_session
from explorer.sources import from_example, from_text
from explorer.triage import audit, build_facts, consistency
from explorer.triage.checks_reasoning import COMMON_ENDS, COMMON_STARTS
from explorer.triage.model import FIX_WHERE, Diagnosis, Finding

WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
    "required": ["city"]}}}
TEMPLATES = ("chatml-think-tools", "tagged-parameters", "bracket-tool-calls", "llama32-pythonic", "qwen-tagged")
OWN = {"llama32-pythonic": LLAMA32_PYTHONIC, "qwen-tagged": TAGGED}  # our templates (qwen3-coder is routed)
GENERIC = ['{"city": "Paris"}', '{"name": "get_weather", "arguments": ', "{", "}", ", ", '"', "\n", " ",
           "The weather is fine.", "I will call get_weather", "get_weather(city='Paris')", "é", "```json\n",
           "<|im_end|>", "<|end|>", "<|eot_id|>"]
_MARKUP = re.compile(r"(<[^<>\n]{1,40}>|\[[A-Z_/]{2,20}\]|\n)")


def request(thinking: bool, parallel: bool) -> Request:
    return Request(messages=({"role": "user", "content": "Weather in Paris?"},), tools=(WEATHER,),
                   enable_thinking=thinking, parallel_tool_calls=parallel)


@functools.cache
def session(name: str) -> TemplateSession:
    return open_session(from_text(OWN[name]) if name in OWN else from_example(name))


@functools.cache
def openers(name: str, thinking: bool, parallel: bool) -> tuple[str, ...]:
    req = request(thinking, parallel)
    facts = build_facts(session(name).params(req), req, "")
    return tuple(m.text.strip() for m in facts.openers if m.text.strip())


@functools.cache
def pieces(name: str) -> tuple[str, ...]:
    """The template's own markup: its parser's markers and its rendered call, cut at the markup."""
    req = request(True, True)
    s = session(name)
    facts = build_facts(s.params(req), req, "")
    marks = [m.text for m in facts.openers + facts.closers + facts.name_prefixes + facts.reasoning_starts
             + facts.reasoning_ends if m.text]
    own = s.sample_reply("call", req) or ""
    cut = [p for p in _MARKUP.split(own[-300:]) if p]
    return tuple(dict.fromkeys(marks + cut + GENERIC + list(COMMON_STARTS[:1] + COMMON_ENDS[:1])))


def generated() -> st.SearchStrategy[tuple[str, str, bool, bool, bool]]:
    return st.sampled_from(TEMPLATES).flatmap(lambda name: st.tuples(
        st.just(name), st.lists(st.sampled_from(pieces(name)), max_size=14).map("".join),
        st.booleans(), st.booleans(), st.booleans()))


# --- the contradictions, as data: the statement audit's table (explorer.triage.audit.CONTRADICTIONS) ---------


def contradictions(d: Diagnosis, context_openers: tuple[str, ...]) -> list[str]:
    return audit.contradictions(d, context_openers)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(generated())
# found by hypothesis: bare call JSON then two openers; the parse fails, so "reads it as
# content" was false (llama.cpp returns no message at all)
@example(case=("chatml-think-tools", '{"name": "get_weather", "arguments": {"city": "Paris"}}<tool_call>\n<tool_call>\n',
               False, False, False))
# found by hypothesis: a partial parse that fails; its info finding said llama.cpp's
# "unparsed" warning prints the text from its place, but that warning is for a final parse only
@example(case=("bracket-tool-calls", "[TOOL_CALLS][TOOL_CALLS]", False, False, True))
# found by hypothesis: marker-in-prose gave the 40 characters from the opener as what it found,
# more than the opener its place names
@example(case=("chatml-think-tools", "</tool_call><tool_call>\nThe weather is fine.", False, False, False))
def test_generated_outputs_tell_one_story(case):
    name, output, thinking, parallel, partial = case
    s, req = session(name), request(thinking, parallel)
    d = s.diagnose(output, req, partial=partial)
    # (a) no claim refuted by another finding or by the parse
    assert not contradictions(d, openers(name, thinking, parallel)), (name, output)
    # (b) no duplicates, and no two findings saying the same thing about one place
    keys = [consistency.same_thing(f) for f in d.findings]
    assert len(keys) == len(set(keys)), (name, output, keys)
    # (c) the triage never changes the parse
    parse = s.parse(output, req, partial=partial)
    assert d.message == parse.message and str(d.error) == str(parse.error), (name, output)
    # (d) the fix belongs somewhere we name
    assert all(f.fix_where in FIX_WHERE for f in d.findings)
    # (e) every sentence checks out (the statement audit), and the headline is one sentence about the lead
    assert not [str(v) for v in audit.audit(d, s, req, openers=openers(name, thinking, parallel))], (name, output)
    assert d.headline.endswith(".") and (d.lead is None) == d.headline.endswith("no check found anything wrong.")


# --- the rules on hand-made findings -----------------------------------------------------------

OUT = "<think>get_weather <tool_call>\n{}</think>\nok"


def facts_of(output: str):
    req = request(True, True)
    return build_facts(session("chatml-think-tools").params(req), req, output)


def test_a_call_in_the_reasoning_outranks_tool_mentioned():
    cause = Finding("call-in-reasoning", "cause", "A tool call sits inside the reasoning block.", span=(19, 30))
    mention = Finding("tool-mentioned", "info", "The output mentions the tool, but no call.", span=(7, 18))
    assert consistency.resolve((cause, mention), facts_of(OUT)) == (cause,)
    assert consistency.resolve((mention,), facts_of(OUT)) == (mention,)  # alone it stays


def test_duplicates_and_same_place_findings_go():
    a = Finding("newline-rule", "cause", "needs a newline", span=(3, 4))
    b = Finding("whitespace-rule", "cause", "other whitespace", span=(3, 4))  # same family, same place
    c = Finding("newline-rule", "cause", "needs a newline", span=(9, 10))
    assert consistency.resolve((a, a, b, c), facts_of(OUT)) == (a, c)


def test_nothing_to_fix_never_beside_a_cause():
    fine = Finding("unconsumed-output", "info", "The parser stops at a stop string.", span=(40, 42),
                   fix_hint="Nothing to fix when the output came from llama-server.")
    cause = Finding("parse-error", "cause", "could not match", span=(0, 1))
    assert consistency.resolve((cause, fine), facts_of(OUT)) == (cause,)
    assert consistency.resolve((fine,), facts_of(OUT)) == (fine,)
    template = Finding("template-reply-fails", "cause", "The template's own reply does not parse back.")
    assert consistency.resolve((fine,), facts_of(OUT), context=(template,)) == ()


def test_a_reasoning_tag_left_unconsumed_gets_a_reasoning_verdict():
    output = "The answer.</think>"
    at = output.index("</think>")
    eot = Finding("unconsumed-output", "info", "The parser stops before \"</think>\", a special token at the very "
                  "end (an end-of-turn marker, by its look).", span=(at, len(output)), found="</think>",
                  fix_hint="Nothing to fix when the output came from llama-server.")
    (said,) = consistency.resolve((eot,), facts_of(output))
    assert said.check == "unconsumed-output" and "reasoning" in said.summary
    assert "end-of-turn" not in said.summary and not consistency.says_all_fine(said)


def test_a_loser_is_never_a_cause():
    cause = Finding("call-in-reasoning", "cause", "A tool call sits inside the reasoning block.", span=(19, 30))
    mention = replace(Finding("tool-mentioned", "cause", "mentions", span=(7, 18)))
    assert consistency.resolve((cause, mention), facts_of(OUT)) == (cause, mention)
    assert all(rule.loser not in consistency.CALL_SEEN | consistency.REASONING for rule in consistency.RULES)
