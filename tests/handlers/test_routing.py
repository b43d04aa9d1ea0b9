"""Routing: handler detection (common_chat_try_specialized_template), source patches
(common_chat_templates_init) and the list of message workarounds."""

from __future__ import annotations

import pytest

from explorer.caps import Caps
from explorer.handlers import HANDLER_CLASSES, route_names
from explorer.routing import (
    AUTOPARSER,
    patch_source,
    route,
)
from explorer.session import open_session
from oracle_data import (
    load_oracle_analysis,
    load_oracle_template,
    oracle_template_names,
    requires_oracle,
)

# --- hand-written templates: just the decisive substrings ------------------------------

# Each asserts one `src.find` chain of common_chat_try_specialized_template.
MINIMAL = {
    "ministral-3": "[SYSTEM_PROMPT]{{ x }}[TOOL_CALLS]{{ y }}[ARGS]",
    "gpt-oss": "<|start|>assistant<|channel|>final",
    "muse-glimmer": "<atem:function_calls> ... <|eom|>",
    "functionary-v3.2": ">>>all\n>>>${recipient}",
    "kimi-k2": "<|tool_calls_section_begin|><|tool_call_begin|>",
    "kimi-k3": "<|open|>x<|close|>y<|end_of_msg|>",
    "ling3": "<role>ASSISTANT</role><arg_key>",
    "cohere2moe": "<|START_TEXT|><|START_ACTION|>",
    "lfm2": "<|tool_list_start|>[]<|tool_list_end|>",
    "lfm2.5": "List of tools: [{{ tools }}]",
    "gigachat-v3": "<|role_sep|>\n<|message_sep|>",
    "minimax-m3": "]<]minimax[>[<tool_call><invoke name=",
    "deepseek-v3.2/v4": "{% set dsml_token = '｜DSML｜' %}function_calls",
    "gemma4(outdated-template-workarounds)": "{{ '<|tool_call>call:' }}",
    "gemma4": "{#- OpenAI Chat Completions: ... #}{{ '<|tool_call>call:' }}",
    "minicpm5": 'Tool usage guidelines: <function name="f"><param name="p">',
    "qwen3-coder": "<tool_call>\n<function=f>\n<parameter=p>",
}


@requires_oracle
def test_every_llama_cpp_handler_has_a_minimal_template():
    """Each handler the oracle's templates reach (llama.cpp's own) is routed from a template
    written here; the names are real handlers."""
    reached = {load_oracle_analysis(name)["routed"]["handler"] for name in oracle_template_names()}
    assert reached - {AUTOPARSER} <= set(MINIMAL) <= set(route_names()) - {AUTOPARSER}


@pytest.mark.parametrize("handler", sorted(MINIMAL))
def test_minimal_template_routes(handler):
    assert route(MINIMAL[handler]).handler == handler


def test_plain_chatml_goes_to_autoparser():
    r = route("<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>")
    assert r.handler == AUTOPARSER
    assert r.evidence == ()
    # every rule was checked and failed
    assert [c.rule for c in r.checks] == [cls.name for cls in HANDLER_CLASSES]
    assert not any(c.matched for c in r.checks)


def test_mistral_small_with_call_id_is_not_ministral():
    # [CALL_ID] marks Mistral Small 3.2, which goes to the autoparser
    assert route(MINIMAL["ministral-3"] + "[CALL_ID]").handler == AUTOPARSER


def test_lfm25_rule_rejects_tool_list_tokens():
    # List of tools with the LFM2 tokens is LFM2 (checked first), with only the start
    # token it is neither
    assert route("List of tools: [<|tool_list_start|><|tool_list_end|>").handler == "lfm2"
    assert route("List of tools: [<|tool_list_start|>").handler == AUTOPARSER


def test_gigachat_with_function_call_token_is_not_gigachat():
    assert route(MINIMAL["gigachat-v3"] + "<|function_call|>").handler == AUTOPARSER


def test_deepseek_needs_one_of_the_block_names():
    assert route("dsml_token DSML tool_calls").handler == "deepseek-v3.2/v4"
    assert route("dsml_token DSML").handler == AUTOPARSER


def test_qwen3_coder_excludes_tags_without_newlines():
    src = MINIMAL["qwen3-coder"] + "{{ '<tool_call><function=' ~ tool_call.name ~ '>' }}"
    assert route(src).handler == AUTOPARSER


def test_order_gpt_oss_before_qwen3_coder():
    # both rules hold; llama.cpp checks GPT-OSS first
    r = route(MINIMAL["qwen3-coder"] + MINIMAL["gpt-oss"])
    assert r.handler == "gpt-oss"
    assert [c.rule for c in r.checks] == ["ministral-3", "gpt-oss"]


def test_order_minimax_before_qwen3_coder():
    r = route("]<]minimax[>[<tool_call>\n<invoke name=<function=<parameter=")
    assert r.handler == "minimax-m3"


def test_evidence_has_lines():
    src = "line one\n{{ x }} <|tool_list_start|>\nthird\n<|tool_list_end|>\n"
    r = route(src)
    assert r.handler == "lfm2"
    assert [(e.needle, e.present, e.line) for e in r.evidence] == [
        ("<|tool_list_start|>", True, 2),
        ("<|tool_list_end|>", True, 4),
    ]
    assert r.evidence[0].source_line == "{{ x }} <|tool_list_start|>"


def test_forbidden_evidence_records_absence():
    r = route(MINIMAL["ministral-3"])
    absent = [e for e in r.evidence if not e.wanted]
    assert [(e.needle, e.present, e.line) for e in absent] == [("[CALL_ID]", False, None)]


# --- source patches ---------------------------------------------------------------------

GPT_OSS_GUARD = (
    '{%- if "<|channel|>analysis<|message|>" in message.content or '
    '"<|channel|>final<|message|>" in message.content %}'
)
MISTRAL_GUARD = (
    "{%- if (message['content'] is none or message['content'] == '' or "
    "message['content']|length == 0) and (message['tool_calls'] is not defined or "
    "message['tool_calls'] is none or message['tool_calls']|length == 0) %}"
)


def test_gpt_oss_patch_replaces_every_guard():
    src = "<|channel|>" + GPT_OSS_GUARD + "A{% endif %}" + GPT_OSS_GUARD + "B{% endif %}"
    assert patch_source(src) == "<|channel|>{%- if false %}A{% endif %}{%- if false %}B{% endif %}"
    reports = {p.name: p for p in route(src).patches}
    assert reports["gpt-oss"].triggered and reports["gpt-oss"].replaced
    assert not reports["mistral"].triggered


def test_patch_trigger_without_exact_text_changes_nothing():
    src = "<|channel|> x in message.content or y"
    assert patch_source(src) == src
    rep = {p.name: p for p in route(src).patches}["gpt-oss"]
    assert rep.triggered and not rep.replaced


def test_mistral_patch():
    src = "[TOOL_CALLS]" + MISTRAL_GUARD + "{{ raise_exception('x') }}{% endif %}"
    assert patch_source(src) == "[TOOL_CALLS]{%- if false %}{{ raise_exception('x') }}{% endif %}"
    assert patch_source(MISTRAL_GUARD) == MISTRAL_GUARD


# --- workaround listing -----------------------------------------------------------------


def _wk(r):
    return {w.name: w.applies for w in r.workarounds}


def test_workarounds_without_caps_are_unknown():
    w = _wk(route("plain"))
    assert w == {
        "trim_all_content": False,
        "map_developer_role_to_system": True,
        "system_message_not_supported": None,
        "requires_non_null_content": None,
        "func_args_not_string": None,
        "convert_tool_responses_gemma4": False,
    }


def test_workarounds_follow_caps_and_markers():
    caps = Caps(supports_system_role=False, supports_tool_calls=True, supports_object_arguments=False)
    src = "You have access to the following functions in JSONSchema format <|channel|>"
    w = _wk(route(src, caps))
    assert w["trim_all_content"] is True
    assert w["map_developer_role_to_system"] is False  # GPT-OSS keeps developer
    assert w["system_message_not_supported"] is True
    assert w["requires_non_null_content"] is True
    assert w["func_args_not_string"] is False
    assert _wk(route(MINIMAL["gemma4(outdated-template-workarounds)"]))[
        "convert_tool_responses_gemma4"
    ]
    assert not _wk(route(MINIMAL["gemma4"]))["convert_tool_responses_gemma4"]


# --- oracle: all 70 templates --------------------------------------------------------------


@requires_oracle
def test_routing_matches_oracle():
    names = oracle_template_names()
    mismatches = []
    for name in names:
        want = load_oracle_analysis(name)["routed"]["handler"]
        got = route(load_oracle_template(name)).handler
        if got != want:
            mismatches.append((name, got, want))
    print(f"routing: {len(names) - len(mismatches)}/{len(names)} match the oracle")
    for m in mismatches[:10]:
        print("  mismatch", m)
    assert len(names) == 70
    assert mismatches == []


@requires_oracle
def test_oracle_patches_apply_where_expected():
    triggered = {
        name: [p.name for p in route(load_oracle_template(name)).patches if p.replaced]
        for name in oracle_template_names()
    }
    hit = {k: v for k, v in triggered.items() if v}
    assert hit == {
        "mistralai-Ministral-3-14B-Reasoning-2512": ["mistral"],
        "openai-gpt-oss-120b": ["gpt-oss"],
    }


def test_detect_caps_for_the_workaround_listing():
    # a template that never renders a system message has no system role
    tmpl = "{% for m in messages %}{% if m.role == 'user' %}{{ m.content }}{% endif %}{% endfor %}"
    w = {x.name: x.applies for x in open_session(tmpl).routing.workarounds}
    assert w["system_message_not_supported"] is True
    # a template that does not compile keeps its routing; caps stay unknown
    broken = route("{% if %}<|channel|>")
    assert broken.handler == "gpt-oss"
    assert {x.name: x.applies for x in broken.workarounds}["requires_non_null_content"] is None


def test_any_of_evidence_is_marked_alternative():
    r = route("dsml_token DSML tool_calls")
    alts = [(e.needle, e.present) for e in r.evidence if e.alternative]
    assert alts == [("function_calls", False), ("tool_calls", True)]
    assert "[one of]" in r.evidence[-2].describe()
    assert r.to_json()["evidence"][0]["needle"] == "dsml_token"
