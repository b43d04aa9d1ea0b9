"""The analysis on small templates written for these tests.

Expected modes and markers are what a reader derives by hand from llama.cpp's
algorithm (the derivations are summarised next to each template), not our output.
"""

from __future__ import annotations

import pytest

from cases import TAGGED
from explorer.analysis import (
    WORKAROUNDS,
    CallIdPosition,
    ContentMode,
    ReasoningMode,
    ToolFormat,
    analyze_template,
)
from explorer.caps import Caps
from explorer.errors import AnalysisError, TemplateSyntaxError
from explorer.render import compile_template

TOOL_CAPS = Caps()  # llama.cpp's defaults: tools, tool calls, parallel calls, string content
NO_TOOL_CAPS = Caps(supports_tools=False, supports_tool_calls=False, supports_parallel_tool_calls=False)

# ChatML turns; reasoning between <think></think>; each call a JSON object in <tool_call>;
# enable_thinking=false closes an empty think block in the generation prompt.
CHATML_THINK = (
    "{% for m in messages %}<|im_start|>{{ m.role }}\n"
    "{% if m.reasoning_content %}<think>{{ m.reasoning_content }}</think>{% endif %}"
    "{% if m.tool_calls %}{% for tc in m.tool_calls %}<tool_call>"
    '{"name": "{{ tc.function.name }}", "arguments": {{ tc.function.arguments | tojson }}}'
    "</tool_call>{% endfor %}{% else %}{{ m.content }}{% endif %}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n"
    "{% if not enable_thinking %}<think></think>{% endif %}{% endif %}"
)

# Mistral style: [INST] turns; calls as one JSON array after [TOOL_CALLS], with ids.
TOOL_CALLS = (
    "{% for m in messages %}{% if m.role == 'user' %}[INST]{{ m.content }}[/INST]"
    "{% elif m.tool_calls %}[TOOL_CALLS][{% for tc in m.tool_calls %}"
    '{"name": "{{ tc.function.name }}", "arguments": {{ tc.function.arguments | tojson }}, '
    '"id": "{{ tc.id }}"}{% if not loop.last %}, {% endif %}{% endfor %}]</s>'
    "{% else %}{{ m.content }}</s>{% endif %}{% endfor %}"
)

PLAIN = (
    "{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}"
    "{% if add_generation_prompt %}assistant:{% endif %}"
)


def analyze(text: str, caps: Caps = TOOL_CAPS):
    return analyze_template(compile_template(text), caps)


def test_chatml_with_think():
    a = analyze(CHATML_THINK)
    # R1: "<think>" + reasoning + "</think>" in output B: wrapped markers.
    assert (a.reasoning.mode, a.reasoning.start, a.reasoning.end) == (ReasoningMode.TAG_BASED, "<think>", "</think>")
    # R2 only adds an end marker when none is known: R1's stand.
    assert a.provenance["reasoning.start"].probe == "R1"
    # C1: the reply is the whole diff against a reasoning-only reply.
    assert (a.content.mode, a.content.start, a.content.end) == (ContentMode.PLAIN, "", "")
    f = a.tools.format
    # T1: the name is a quoted JSON value; T1.parallel: the second call repeats <tool_call>.
    assert f.mode is ToolFormat.JSON_NATIVE
    assert (f.section_start, f.section_end) == ("", "")
    assert (f.per_call_start, f.per_call_end) == ("<tool_call>", "</tool_call>")
    assert (f.name_field, f.args_field, f.function_field, f.id_field) == ("name", "arguments", "function", "")
    assert f.parameter_order == ("name", "arguments")
    assert not f.tools_array_wrapped and not f.fun_name_is_key
    assert a.provenance["tools.format.per_call_start"].probe == "T1.parallel"
    assert (a.user_start, a.assistant_start) == ("<|im_start|>user", "<|im_start|>assistant")
    assert a.preserved_tokens == ("<think>", "</think>", "<tool_call>", "</tool_call>")
    assert a.additional_stops == ()
    # JSON formats stop after T1: no marker probes ran.
    assert [p.name for p in a.probes] == [
        "R1", "R2", "R3", "C1.tools", "C1.reasoning", "T1", "T1.parallel", "assistant-start", "user-start",
    ]
    assert a.failures == ()


def test_tool_calls_json_array():
    a = analyze(TOOL_CALLS)
    assert a.reasoning.mode is ReasoningMode.NONE
    assert a.content.mode is ContentMode.PLAIN
    f = a.tools.format
    assert f.mode is ToolFormat.JSON_NATIVE
    # "[TOOL_CALLS][" + call + "]": the array bracket is structure, not a section end.
    assert (f.section_start, f.section_end, f.per_call_start, f.per_call_end) == ("[TOOL_CALLS]", "", "", "")
    assert f.tools_array_wrapped
    assert (f.name_field, f.args_field, f.id_field) == ("name", "arguments", "id")
    assert f.parameter_order == ("name", "arguments", "id")
    assert (a.user_start, a.assistant_start) == ("[INST]", "")
    assert a.preserved_tokens == ("[TOOL_CALLS]",)


def test_tagged_arguments():
    a = analyze(TAGGED)
    assert a.reasoning.mode is ReasoningMode.NONE
    assert a.content.mode is ContentMode.PLAIN
    f, fn, args = a.tools.format, a.tools.function, a.tools.arguments
    assert f.mode is ToolFormat.TAG_WITH_TAGGED
    # T1 sees <tool_call> as a section; T2 finds it again before the second call.
    assert (f.section_start, f.section_end) == ("", "")
    assert (f.per_call_start, f.per_call_end) == ("<tool_call>\n", "</tool_call>")
    assert a.provenance["tools.format.per_call_start"].probe == "T2"
    # T3: FFF_FIRST_FUN_F versus SSS_SECOND_FUN_S inside <function=...>.
    assert (fn.name_prefix, fn.name_suffix, fn.args_separator, fn.close) == ("<function=", ">\n", "", "</function>\n")
    # A1 / A2: <parameter=NAME>\nVALUE\n</parameter>\n
    assert (args.name_prefix, args.name_suffix) == ("<parameter=", ">\n")
    assert (args.value_prefix, args.value_suffix) == ("", "\n</parameter>\n")
    assert (args.start, args.end, args.separator) == ("", "", "")
    # T7: the id is not rendered.
    assert a.tools.call_id.pos is CallIdPosition.NONE
    assert a.preserved_tokens == (
        "<tool_call>", "</tool_call>", "<function=", ">", "</function>", "<parameter=", "</parameter>",
    )
    assert [p.name for p in a.probes][5:] == [
        "T1", "T2", "T3", "A1", "A2", "T5", "T6", "T7", "assistant-start", "user-start",
    ]


def test_plain_template_without_tool_support():
    a = analyze(PLAIN, NO_TOOL_CAPS)
    assert a.reasoning == type(a.reasoning)()
    assert (a.content.mode, a.content.start, a.content.end) == (ContentMode.PLAIN, "", "")
    assert a.tools.format.mode is ToolFormat.NONE
    assert not any(p.name.startswith("T") for p in a.probes)
    assert (a.user_start, a.assistant_start) == ("user:", "assistant:")
    assert a.preserved_tokens == ()


def test_oracle_json_has_the_oracle_layout():
    out = analyze(TAGGED).to_oracle_json()
    assert list(out) == [
        "jinja_caps", "reasoning", "content", "tools", "user_start", "assistant_start",
        "preserved_tokens", "additional_stops", "analysis_complete",
    ]
    assert out["tools"]["format"]["mode"] == "TAG_WITH_TAGGED"
    assert out["tools"]["call_id"] == {"pos": "NONE", "prefix": "", "suffix": ""}
    assert out["analysis_complete"] is True


def test_probe_trace_records_inputs_outputs_and_fields():
    a = analyze(CHATML_THINK)
    r1 = next(p for p in a.probes if p.name == "R1")
    assert r1.inputs_b.messages[-1]["reasoning_content"] == "REASON_PART I am thinking END_R"
    assert "<think>REASON_PART I am thinking END_R</think>" in r1.output_b
    assert r1.diff is not None and r1.diff.left == "" and "REASON_PART" in r1.diff.right
    assert ("reasoning.start", "<think>") in r1.fields_set
    assert r1.diff_steps and r1.diff_steps[-1].split == r1.diff
    js = r1.to_json()
    assert js["name"] == "R1" and js["error"] is None and js["inputs_a"]["tools"] is None


def test_render_failure_is_recorded_with_probe_and_line():
    # Rejects reasoning_content: the reference silently skips R1; we keep why.
    text = (
        "{% for m in messages %}{% if m.reasoning_content %}\n{{ raise_exception('no reasoning here') }}"
        "{% endif %}<|{{ m.role }}|>{{ m.content }}{% endfor %}"
    )
    a = analyze(text, NO_TOOL_CAPS)
    assert a.reasoning.mode is ReasoningMode.NONE
    r1 = next(p for p in a.probes if p.name == "R1")
    assert r1.error is not None and r1.error.side == "B"
    assert "no reasoning here" in r1.error.message and r1.error.line == 2
    assert r1.diff is None and r1.output_b is None
    assert r1.output_a == "<|user|>U_USER_MSG Hello END_U<|assistant|>A_ASST_MSG I can help END_A"
    assert any(f.probe == "R1" for f in a.failures)
    # C1.reasoning fails the same way, so content analysis gives up (PLAIN).
    assert a.content.mode is ContentMode.PLAIN
    assert any(f.probe == "C1.reasoning" for f in a.failures)


def test_hostile_templates_fail_cleanly():
    with pytest.raises(TemplateSyntaxError) as exc:
        compile_template("{% for x in %}")
    assert exc.value.location is not None and exc.value.location.line == 1

    raising = analyze("{{ raise_exception('never') }}")
    assert raising.tools.format.mode is ToolFormat.NONE
    assert raising.failures and all("never" in f.message for f in raising.failures)

    slow = "{% for i in range(900000) %}{% for j in range(900000) %}{% endfor %}{% endfor %}x"
    a = analyze_template(compile_template(slow), TOOL_CAPS, budget_seconds=0.2)
    assert a.failures and all(p.error is not None for p in a.probes)


def test_workaround_is_data_and_records_provenance():
    names = [w.name for w in WORKAROUNDS]
    assert names == [
        "old Qwen/DeepSeek thinking template", "Granite 3.3", "Cohere Command R+", "Functionary 3.1",
        "DeepSeek-R1-Distill-Qwen", "Nemotron Nano v2", "Fireworks v2", "Solar Open", "Apriel 1.6",
        "JSON name/parameters tool instruction", "Laguna", "Bailing V3",
    ]
    # The old-Qwen patch: content.split('</think>') without reasoning_content.
    text = "{# content.split('</think>') #}" + PLAIN
    a = analyze(text, NO_TOOL_CAPS)
    assert (a.reasoning.mode, a.reasoning.start, a.reasoning.end) == (ReasoningMode.TAG_BASED, "<think>", "</think>")
    assert a.provenance["reasoning.end"].workaround == "old Qwen/DeepSeek thinking template"
    assert a.preserved_tokens == ("<think>", "</think>")
    assert a.workarounds_applied == ("old Qwen/DeepSeek thinking template",)

    laguna = analyze("{# laguna_glm_thinking #}" + PLAIN, NO_TOOL_CAPS)
    assert laguna.additional_stops == ("</assistant>",)
    assert laguna.tools.arguments.tolerate_intertag_whitespace


def test_invalid_json_tool_call_throws_like_the_reference():
    # The name is a quoted JSON value (JSON_NATIVE), but the call is not JSON: llama.cpp's
    # json::parse throws out of the analysis; we raise AnalysisError located at T1.
    text = (
        "{% for m in messages %}{% if m.tool_calls %}{% for tc in m.tool_calls %}"
        '<call>{"name": "{{ tc.function.name }}", "arguments": oops}</call>{% endfor %}'
        "{% else %}{{ m.content }}{% endif %}\n{% endfor %}"
    )
    with pytest.raises(AnalysisError) as exc:
        analyze(text)
    assert exc.value.location is not None and exc.value.location.probe == "T1"
    assert [p.name for p in exc.value.probes][-1] == "T1"


# Bracket-tagged calls with the id before the name: "[CALL_ID]id[NAME]name[ARGS]{json}".
ID_BEFORE_NAME = (
    "{% for m in messages %}{% if m.tool_calls %}{% for tc in m.tool_calls %}"
    "[CALL_ID]{{ tc.id }}[NAME]{{ tc.function.name }}[ARGS]{{ tc.function.arguments | tojson }}"
    "{% endfor %}{% else %}{{ m.content }}{% endif %}\n{% endfor %}"
)
# ... and with the id after the arguments: "[NAME]name[ARGS]{json}[ID]id".
ID_AFTER_ARGS = (
    "{% for m in messages %}{% if m.tool_calls %}{% for tc in m.tool_calls %}"
    "[NAME]{{ tc.function.name }}[ARGS]{{ tc.function.arguments | tojson }}[ID]{{ tc.id }}"
    "{% endfor %}{% else %}{{ m.content }}{% endif %}\n{% endfor %}"
)


def test_call_id_before_the_function_name():
    a = analyze(ID_BEFORE_NAME)
    f, fn = a.tools.format, a.tools.function
    # T1: argument names are quoted JSON keys, the function name is not.
    assert f.mode is ToolFormat.TAG_WITH_JSON
    # T1: no marker directly precedes "[NAME]FFF..." twice, so "[NAME]" is the section
    # opener; T2: the second call starts with "[CALL_ID]", so it stays a section.
    assert (f.section_start, f.section_end, f.per_call_start, f.per_call_end) == ("[NAME]", "", "", "")
    # T3: calls differ in id (call00001 / call00002) and name; the diff starts inside the
    # id, so the name prefix carries the id's last digit (a llama.cpp quirk).
    assert (fn.name_prefix, fn.name_suffix, fn.close) == ("1[NAME]", "", "")
    # T7: the function name follows the id.
    cid = a.tools.call_id
    assert (cid.pos, cid.prefix, cid.suffix) == (CallIdPosition.PRE_FUNC_NAME, "[CALL_ID]", "[NAME]")
    assert a.preserved_tokens == ("[NAME]", "1[NAME]", "[CALL_ID]")
    assert (a.user_start, a.assistant_start) == ("", "")


def test_call_id_after_the_arguments():
    a = analyze(ID_AFTER_ARGS)
    assert a.tools.format.mode is ToolFormat.TAG_WITH_JSON
    cid = a.tools.call_id
    assert (cid.pos, cid.prefix, cid.suffix) == (CallIdPosition.POST_ARGS, "[ID]", "")
    assert a.provenance["tools.call_id.pos"].probe == "T7"


def test_probe_lookup_helpers():
    a = analyze(TAGGED)
    assert a.probe("T3") is not None and a.probe("T3").name == "T3"
    assert a.probe("no such probe") is None
    # T1 saw <tool_call> as a section opener; T2 moved it to per_call_start.
    assert a.probes_setting("tools.format.section_start") == ("T1", "T2")
    assert a.probes_setting("tools.format.per_call_start") == ("T2",)
    assert a.provenance["tools.format.per_call_start"].side == "diff.right"
    assert a.provenance["content.start"].kind == "default"


def test_workarounds_search_the_lexer_normalised_source():
    from explorer.analysis.workarounds import lexer_source

    assert lexer_source("a\r\nb\rc\n") == "a\nb\nc"
    assert lexer_source("a\r") == "a\n"
    assert lexer_source("a\n\n") == "a\n"
    assert lexer_source("") == ""


def _reasoning_with_calls_only(reasoning: str) -> str:
    return (
        "{% for m in messages %}<|{{ m.role }}|>{% if m.tool_calls %}{% if m.reasoning_content %}"
        + reasoning + "{% endif %}{% for tc in m.tool_calls %}<call>{{ tc.function.name }}</call>{% endfor %}"
        "{% else %}{{ m.content }}{% endif %}{% endfor %}"
    )


def test_reasoning_rendered_only_with_tool_calls_is_tools_only():
    # R1/R2 see nothing; R3 finds the reasoning only in the tool-call reply, between markers.
    a = analyze(_reasoning_with_calls_only("<think>{{ m.reasoning_content }}</think>"))
    assert (a.reasoning.mode, a.reasoning.start, a.reasoning.end) == (ReasoningMode.TOOLS_ONLY, "<think>", "</think>")
    assert a.provenance["reasoning.mode"].probe == "R3"
    # With no marker right before the reasoning, R3 falls back to the closing marker alone.
    a = analyze(_reasoning_with_calls_only("x {{ m.reasoning_content }} <sep>"))
    assert (a.reasoning.mode, a.reasoning.start, a.reasoning.end) == (ReasoningMode.TOOLS_ONLY, "", "<sep>")
