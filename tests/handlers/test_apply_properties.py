"""Properties of the apply helpers that hold for any input (hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.apply import (
    PrefillOutcome,
    classify_reasoning_prefill,
    convert_tool_responses_gemma4,
    diff_suffix,
    map_developer_role_to_system,
    parser_prefix,
    system_message_not_supported,
)
from explorer.apply.messages import parse_oaicompat, to_json_oaicompat
from explorer.routing import route

text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30)
roles = st.sampled_from(["system", "user", "assistant", "developer", "tool"])
messages = st.lists(st.fixed_dictionaries({"role": roles, "content": text}), max_size=6)


@given(text, text, text)
def test_diff_suffix_completes_the_common_prefix(prefix, a, b):
    without, with_gen = prefix + a, prefix + b
    suffix = diff_suffix(without, with_gen)
    raw_with = with_gen.encode("utf-8")
    raw_suffix = suffix.encode("utf-8", "surrogateescape")
    assert raw_with.endswith(raw_suffix)
    cut = len(raw_with) - len(raw_suffix)
    # everything before the suffix is shared, and the next byte differs (or one ended)
    assert without.encode("utf-8")[:cut] == raw_with[:cut]
    if cut < len(without.encode("utf-8")) and raw_suffix:
        assert without.encode("utf-8")[cut] != raw_with[cut]


@given(text, text)
def test_generation_prompt_of_an_appended_suffix_is_that_suffix(prompt, gen):
    assert diff_suffix(prompt, prompt + gen) == gen


@given(messages)
def test_developer_mapping_is_idempotent_and_keeps_length(msgs):
    once = map_developer_role_to_system(msgs)
    assert map_developer_role_to_system(once) == once
    assert len(once) == len(msgs)
    assert all(m["role"] != "developer" for m in once)


@given(messages)
def test_system_merge_removes_exactly_a_leading_system(msgs):
    out = system_message_not_supported(msgs)
    if msgs and msgs[0]["role"] == "system":
        assert len(out) == len(msgs) - 1
        if len(msgs) > 1:
            assert out[0]["content"] == msgs[0]["content"] + "\n" + msgs[1]["content"]
    else:
        assert out == msgs


@given(messages)
def test_gemma4_conversion_is_identity_without_tool_calls(msgs):
    assert convert_tool_responses_gemma4(msgs) == msgs


@given(messages)
def test_message_round_trip_is_stable(msgs):
    once = [to_json_oaicompat(m) for m in parse_oaicompat(msgs)]
    twice = [to_json_oaicompat(m) for m in parse_oaicompat(once)]
    assert once == twice


@given(text, text, text)
def test_parser_prefix_is_a_prefix_without_the_marker(gen, start, end):
    pre = parser_prefix(gen, start)
    assert gen.startswith(pre)
    p = classify_reasoning_prefill(gen, start, end)
    assert p.outcome in PrefillOutcome
    if p.outcome is PrefillOutcome.START_ONLY:
        assert p.after_start.strip(" \t\n\v\f\r") == ""


@settings(max_examples=50)
@given(st.lists(st.sampled_from([
    "<|channel|>", "[TOOL_CALLS]", "[ARGS]", "[SYSTEM_PROMPT]", "<tool_call>", "<function=",
    "<parameter=", "dsml_token", "DSML", "tool_calls", "'<|tool_call>call:'", "<|role_sep|>",
    "<|message_sep|>", "List of tools: [", "<|tool_list_start|>", "x", "\n",
]), max_size=8))
def test_routing_evidence_explains_the_handler(parts):
    src = "".join(parts)
    r = route(src)
    assert r.checks[-1].matched == (r.handler != "autoparser")
    assert all(not c.matched for c in r.checks[:-1])
    for e in r.evidence:
        if not e.alternative:
            assert e.satisfied
        if e.present:
            assert e.needle in src.split("\n")[e.line - 1] or "\n" in e.needle
