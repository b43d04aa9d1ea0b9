"""The acceptance standard: every offered fix holds when checked again independently
(``recheck``), on our own templates of every failure class (llama.cpp's corpus:
``test_fixes_oracle``), and each check withdraws the kind of fix it is there for.

The candidates of the check tests are ours: each edit is written here to break exactly one
rule (a macro every role shares, a template jinja2 cannot render, an edit of the user
turn's header, a summary that claims more turns than it patches, content glued to a call,
a by-design loss).
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import pytest
from doctor_cases import TEMPLATES
from recheck import recheck

from explorer.analysis.model import FIELD_NAMES
from explorer.doctor.acceptance import CHECK_IDS, Standard, Target
from explorer.doctor.candidates import Candidate, candidates
from explorer.doctor.classes import failure_classes, measure
from explorer.doctor.fixes import search_fixes
from explorer.doctor.intent import design_choices
from explorer.doctor.model import Claim, FixSearch
from explorer.doctor.turns import ALL_VARIANTS, ASSISTANT_VARIANTS, REASONING_VARIANTS
from explorer.session import open_session

pytest.importorskip("transformers")  # the re-check renders the transformers dialect with real transformers

# A turn macro every role shares; assistant turns write their reasoning, calls follow the content.
MACRO = ("{%- macro turn(role, body) %}{{ '<|im_start|>' + role + '\\n' + body + '<|im_end|>\\n' }}{%- endmacro %}"
         "{%- for m in messages %}{%- if m.role == 'assistant' %}"
         "{%- set body = ('<think>' + m.reasoning_content + '</think>' if m.reasoning_content else '') + "
         "(m.content or '') %}{%- if m.tool_calls %}{%- for tc in m.tool_calls %}{%- set body = body + "
         "'<tool_call>' + tc.function.name + ' ' + (tc.function.arguments | tojson) + '</tool_call>' %}"
         "{%- endfor %}{%- endif %}{{ turn('assistant', body) }}{%- else %}{{ turn(m.role, m.content) }}{%- endif %}"
         "{%- endfor %}{%- if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{%- endif %}")


@cache
def _search(key: str) -> FixSearch:
    return search_fixes(open_session(TEMPLATES[key]))


@pytest.mark.parametrize("key", sorted(TEMPLATES))
def test_every_fix_offered_on_our_templates_holds_when_checked_again(key: str) -> None:
    result = _search(key)
    for fix in result.fixes:
        assert [c.check for c in fix.checks] == list(CHECK_IDS) and all(c.passed for c in fix.checks), fix.summary
        assert recheck(TEMPLATES[key], fix) == [], (key, fix.summary)
    for tried in result.tried:
        assert tried.check in (*CHECK_IDS, "kept-better") and tried.why


# --- each check withdraws what it is there for -----------------------------------------------


def _check(original: str, check: str, cand: Candidate) -> tuple[str, str]:
    """(status, detail) of one check of the standard on ``cand``, whatever the others say."""
    session = open_session(original)
    standard = Standard(session, measure(session, (False, True)).count, design_choices(session), {})
    target = open_session(cand.patched) if cand.patched else session
    result = standard.check(check, cand, Target(target, measure(target, (False, True), cand.change).count))
    return result.status, result.detail


def test_an_edit_of_a_macro_every_role_shares_is_withdrawn_for_the_turns_it_does_not_name() -> None:
    patched = MACRO.replace("'\\n' + body +", "'\\n' + '<think>\\n\\n</think>' + body +")
    assert patched != MACRO
    cand = Candidate("template-edit", "render an empty thinking block in each assistant turn", ("thinking-opened",),
                     patched=patched, names=ASSISTANT_VARIANTS)
    status, detail = _check(MACRO, "turns-unchanged", cand)
    assert status == "fail" and "the edit changes the system" in detail and "<think>" in detail
    # the same block written in the assistant turns alone changes no other turn
    alone = MACRO.replace("{{ turn('assistant', body) }}", "{{ turn('assistant', '<think>\\n\\n</think>' + body) }}")
    assert _check(MACRO, "turns-unchanged", Candidate("template-edit", "the block in assistant turns",
                                                       ("thinking-opened",), patched=alone,
                                                       names=ASSISTANT_VARIANTS))[0] == "pass"


def test_an_edit_transformers_cannot_render_is_withdrawn() -> None:
    patched = MACRO.replace("{{ turn('assistant', body) }}", "{{ turn('assistant', '{}'|format(body)) }}")
    cand = Candidate("template-edit", "write the body through format", ("parser-rejected",), patched=patched,
                     names=ALL_VARIANTS)
    status, detail = _check(MACRO, "still-renders", cand)
    assert status == "fail" and "transformers" in detail


def test_an_edit_that_renames_the_user_turn_is_withdrawn_for_the_analysis_field_it_changes() -> None:
    patched = MACRO.replace("{{ turn(m.role, m.content) }}", "{{ turn(m.role + ' says', m.content) }}")
    cand = Candidate("template-edit", "name the user's turn", ("parser-rejected",), patched=patched,
                     names=ALL_VARIANTS)
    status, detail = _check(MACRO, "analysis-fields", cand)
    assert status == "fail" and "user_start" in detail
    assert _check(MACRO, "turns-unchanged", replace(cand, names=ASSISTANT_VARIANTS))[0] == "fail"


def test_a_summary_that_claims_each_assistant_turn_is_checked_on_every_assistant_turn_variant() -> None:
    original = TEMPLATES["calls-dropped"]  # writes content only: no reasoning anywhere
    patched = original.replace("{{ m.content }}", "{%- if m.reasoning_content and not m.tool_calls %}<think>"
                               "{{ m.reasoning_content }}</think>{%- endif %}{{ m.content }}")
    cand = Candidate("template-edit", "render each assistant turn's reasoning_content", ("reasoning-dropped",),
                     patched=patched, names=ASSISTANT_VARIANTS,
                     said=Claim("renders", REASONING_VARIANTS, "reasoning_content"))
    status, detail = _check(original, "summary-true", cand)
    assert status == "fail" and "assistant+reasoning+calls" in detail
    every = original.replace("{{ m.content }}", "{%- if m.reasoning_content %}<think>{{ m.reasoning_content }}"
                             "</think>{%- endif %}{{ m.content }}")
    assert _check(original, "summary-true", replace(cand, patched=every))[0] == "pass"


def test_a_new_health_finding_withdraws_an_edit_that_names_every_turn_and_field() -> None:
    original = TEMPLATES["parser-rejected"]
    cand = Candidate("template-edit", "append a format call", ("parser-rejected",),
                     patched=original + "{{ '%s'|format('') }}", names=ALL_VARIANTS, named_fields=FIELD_NAMES)
    status, detail = _check(original, "no-new-health", cand)
    assert status == "fail" and "template-renders-literally" in detail


def test_content_glued_to_a_call_changes_the_models_format_and_is_never_verified() -> None:
    session = open_session(TEMPLATES["content-dropped"])
    baseline = measure(session, (False, True), explain=True)
    classes = failure_classes(session, baseline)
    edits = [c for c in candidates(session, baseline, classes) if c.kind == "template-edit"]
    assert edits and all("a layout the template never renders" in c.format_change for c in edits)
    assert any("glued to its call with no separator" in c.format_change for c in edits)
    standard = Standard(session, baseline.count, (), {})  # no design choice: the format check alone withdraws
    for cand in edits:
        early = standard.before_measuring(cand)
        assert early is not None and [c.status for c in early[:2]] == ["pass", "fail"]
        assert early[1].detail.startswith("changes the model's format")


def test_a_fix_for_a_loss_the_template_makes_on_purpose_is_withdrawn_before_it_is_measured() -> None:
    result = _search("thinking-closed")
    [closed] = [c for c in result.classes if c.key == "thinking-closed"]
    assert closed.by_design and "closes the thinking block" in closed.by_design and closed.design_lines
    assert not result.fixes
    [tried] = [t for t in result.tried if t.kind == "request-change"]
    assert tried.check == "keeps-intent" and tried.roundtrip_after is None
    assert all(c.status == "not run" for c in tried.checks[1:])


