"""Verified fixes on our own templates: each failure class gets a fix that re-runs better,
and each kind of fix exports what a user applies (the C++ workaround lambda, a diff that
GNU patch applies, the request fields).

The templates are ours (``doctor_cases``); the oracle test runs the same search over
llama.cpp's corpus.
"""

from __future__ import annotations

import difflib
import json
from functools import cache
from pathlib import Path

import pytest
from doctor_cases import TEMPLATES, patched

from explorer.analysis.overrides import cpp_string, parse_setting
from explorer.doctor.classes import case_id, measure, thinking_settings
from explorer.doctor.corpus import THIS_TEMPLATE
from explorer.doctor.fixes import propose_fixes, search_fixes
from explorer.doctor.model import Fix, FixSearch
from explorer.roundtrip import RequestChange
from explorer.session import TemplateSession, forget_sessions, open_session

BROKEN_END = (parse_setting("content.end="),)  # a workaround gone wrong: wrapped content without its end


def session_of(key: str) -> TemplateSession:
    session = open_session(TEMPLATES[key])
    return session.with_overrides(BROKEN_END) if key == "content-unmatchable" else session


@cache
def search(key: str) -> FixSearch:
    return search_fixes(session_of(key))


def fix_for(result: FixSearch, kind: str, key: str) -> Fix:
    found = [f for f in result.fixes if f.kind == kind and key in f.classes]
    assert found, (kind, key, [(f.kind, f.classes, f.summary) for f in result.fixes],
                   [(t.summary, t.why) for t in result.tried])
    return found[0]


def inserted_only(before: str, after: str) -> list[str]:
    """The text an edit inserted, asserting it inserted and removed nothing else."""
    ops = difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes()
    assert all(tag in ("equal", "insert") for tag, *_ in ops), [o for o in ops if o[0] != "equal"]
    return [after[j1:j2] for tag, _, _, j1, j2 in ops if tag == "insert"]


def assert_verified(fix: Fix) -> None:
    before, after = fix.roundtrip_before, fix.roundtrip_after
    assert after.better_than(before) and after.equal == len(after.equal_ids)
    assert set(before.equal_ids) <= set(after.equal_ids)


# --- analysis overrides -----------------------------------------------------------------------


def test_a_probe_id_in_a_marker_becomes_the_call_id_fields_exported_as_a_workaround_lambda() -> None:
    result = search("sentinel-in-marker")
    fix = fix_for(result, "analysis-override", "sentinel-in-marker")
    assert_verified(fix)
    specs = [s.spec for s in fix.overrides]
    assert 'tools.call_id.pos="BETWEEN_FUNC_AND_ARGS"' in specs and 'tools.call_id.prefix="#"' in specs
    assert 'tools.call_id.suffix="\\n"' in specs and 'tools.function.name_suffix=""' in specs
    lambda_text = fix.workaround_cpp
    assert f"if (tmpl.src.find({cpp_string(fix.substring)}) != std::string::npos) {{" in lambda_text
    assert "analysis.tools.call_id.pos = call_id_position::BETWEEN_FUNC_AND_ARGS;" in lambda_text
    assert 'analysis.tools.call_id.prefix = "#";' in lambda_text
    assert fix.substring in TEMPLATES["sentinel-in-marker"]
    assert fix.substring_matches == (THIS_TEMPLATE,) and fix.uniqueness == "unique in the corpus"
    rerun = measure(session_of("sentinel-in-marker").with_overrides(fix.overrides), (False,))
    assert rerun.count.equal_ids == fix.roundtrip_after.equal_ids


def test_the_field_the_furthest_failure_names_is_set_to_what_the_reply_has_there() -> None:
    fix = fix_for(search("parser-rejected"), "analysis-override", "parser-rejected")
    assert_verified(fix)
    assert 'tools.function.name_suffix="</name>"' in [s.spec for s in fix.overrides]
    assert "c/false" in fix.roundtrip_after.equal_ids and "c/false" not in fix.roundtrip_before.equal_ids


def test_a_stop_token_left_at_the_end_of_a_call_turn_becomes_an_additional_stop() -> None:
    fix = fix_for(search("stop-token-left"), "analysis-override", "stop-token-left")
    assert_verified(fix)
    stops = [s.value for s in fix.overrides if s.field == "additional_stops"]
    assert stops and "<|eom|>" in stops[0]
    assert 'analysis.additional_stops = {"<|eom|>"};' in fix.workaround_cpp


def test_wrapped_content_without_its_end_gets_the_tag_the_templates_own_turn_closes_with() -> None:
    result = search("content-unmatchable")
    assert "content-unmatchable" in {c.key for c in result.classes}
    fix = fix_for(result, "analysis-override", "content-unmatchable")
    assert_verified(fix)
    assert [s.spec for s in fix.overrides] == ['content.end="</response>"']


def test_the_substring_a_workaround_keys_on_says_how_many_templates_of_the_corpus_hold_it(tmp_path: Path) -> None:
    text = TEMPLATES["sentinel-in-marker"]
    (tmp_path / "mine.jinja").write_text(text, encoding="utf-8")
    (tmp_path / "sibling.jinja").write_text("{#- a sibling -#}\n" + text, encoding="utf-8")
    fix = fix_for(search_fixes(open_session(text), [str(tmp_path)]), "analysis-override", "sentinel-in-marker")
    assert fix.substring_matches == ("mine", "sibling")  # every piece of it is in the sibling too
    assert fix.uniqueness == "also in 1 other template(s): sibling"
    (tmp_path / "sibling.jinja").write_text(text.replace("<tc>", "<call>"), encoding="utf-8")
    fix = fix_for(search_fixes(open_session(text), [str(tmp_path / "sibling.jinja"), str(tmp_path / "mine.jinja")]),
                  "analysis-override", "sentinel-in-marker")
    assert fix.substring_matches == ("mine",) and fix.uniqueness == "unique in the corpus"
    assert fix.substring not in (tmp_path / "sibling.jinja").read_text(encoding="utf-8")


# --- template edits -------------------------------------------------------------------------


def test_reasoning_dropped_under_an_opened_thinking_block_is_rendered_back_by_a_template_edit() -> None:
    result = search("thinking-opened")
    fix = fix_for(result, "template-edit", "thinking-opened")
    assert_verified(fix)
    original = TEMPLATES["thinking-opened"]
    assert patched(original, fix.diff) == fix.patched_template
    added = "".join(inserted_only(original, fix.patched_template))
    assert "m.reasoning_content" in added and '"<think>"' in added and '"</think>"' in added
    assert fix.diff.startswith("--- a/template.jinja\n+++ b/template.jinja\n")
    rerun = measure(open_session(fix.patched_template), thinking_settings(session_of("thinking-opened")))
    assert rerun.count.equal_ids == fix.roundtrip_after.equal_ids
    # the request changes were tried too, and are not shown unless they verified
    assert any(t.kind == "request-change" for t in result.tried) or any(
        f.kind == "request-change" for f in result.fixes)


def test_content_dropped_next_to_calls_is_rendered_before_them_by_a_template_edit() -> None:
    fix = fix_for(search("content-dropped"), "template-edit", "content-dropped")
    assert_verified(fix)
    original = TEMPLATES["content-dropped"]
    assert patched(original, fix.diff) == fix.patched_template
    assert "m.content" in "".join(inserted_only(original, fix.patched_template))
    assert {"f/false", "h-unicode/false"} <= set(fix.roundtrip_after.equal_ids)


def test_a_schema_read_through_its_items_method_is_read_by_key_and_the_round_trip_runs() -> None:
    result = search("roundtrip-failed")
    assert result.roundtrip_before.equal == 0
    fix = fix_for(result, "template-edit", "roundtrip-failed")
    assert_verified(fix)
    original = TEMPLATES["roundtrip-failed"]
    assert fix.patched_template == original.replace("s.items", "s['items']")
    assert patched(original, fix.diff) == fix.patched_template


# --- request changes ------------------------------------------------------------------------


def test_reasoning_read_as_content_with_thinking_off_is_fixed_by_asking_for_thinking() -> None:
    fix = fix_for(search("thinking-closed"), "request-change", "thinking-closed")
    assert_verified(fix)
    assert fix.request_change == RequestChange(enable_thinking=True)
    assert fix.to_json()["request_change"] == {"chat_template_kwargs": {"enable_thinking": True}}
    session = session_of("thinking-closed")
    back = [case_id(c.message_id, t) for t in (False, True)
            for c in session.roundtrip(t, grammar=False, change=fix.request_change).cases if c.equal_trimmed]
    assert tuple(back) == fix.roundtrip_after.equal_ids


# --- what is not fixed ----------------------------------------------------------------------


def test_a_template_that_writes_no_calls_gets_no_fix_and_says_it_is_the_templates_choice() -> None:
    result = search("calls-dropped")
    assert not result.fixes
    [dropped] = [c for c in result.classes if c.key == "calls-dropped"]
    assert "template's choice" in dropped.no_fix and dropped.cases


@pytest.mark.parametrize("key", sorted(TEMPLATES))
def test_no_fix_loses_a_message_that_came_back_before(key: str) -> None:
    """Every returned fix, applied again from scratch (sessions forgotten), gives back what
    it says it does, and everything the template gave back before."""
    result = search(key)
    assert propose_fixes(session_of(key)) == result.fixes
    forget_sessions()
    session = session_of(key)
    settings = thinking_settings(session)
    for fix in result.fixes:
        if fix.kind == "analysis-override":
            target, change = session.with_overrides(fix.overrides), None
            if fix.patched_template:
                target = open_session(fix.patched_template).with_overrides(fix.overrides)
        elif fix.kind == "template-edit":
            target, change = open_session(fix.patched_template), None
        else:
            target, change = session, fix.request_change
        again = measure(target, settings, change).count
        assert again.equal_ids == fix.roundtrip_after.equal_ids, (key, fix.summary)
        assert set(result.roundtrip_before.equal_ids) <= set(again.equal_ids), (key, fix.summary)
        json.dumps(fix.to_json())
    assert not {t.summary for t in result.tried if t.why.startswith("it loses")} & {f.summary for f in result.fixes}
