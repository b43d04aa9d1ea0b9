"""Verified fixes on our own templates: each failure class gets a fix that re-runs better
(or, where the template does it on purpose, none), and each kind of fix exports what a
user applies (the C++ workaround lambda, a diff that GNU patch applies, the request fields).

The templates are ours (``doctor_cases``); the oracle test runs the same search over
llama.cpp's corpus. llama.cpp's own template corpus is kept out of reach here (the
uniqueness of a substring is then "not checked"); ``test_corpus`` measures it.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterator
from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest
from doctor_cases import TEMPLATES, patched
from doctor_templates import SOUND

from explorer.analysis.overrides import cpp_string, parse_setting
from explorer.doctor.artifacts import stop_artifact
from explorer.doctor.classes import measure, thinking_settings
from explorer.doctor.corpus import LLAMA_CPP_ENV, THIS_TEMPLATE
from explorer.doctor.fixes import propose_fixes, search_fixes
from explorer.doctor.model import Fix, FixSearch
from explorer.session import TemplateSession, forget_sessions, open_session

BROKEN_END = (parse_setting("content.end="),)  # a workaround gone wrong: wrapped content without its end


@pytest.fixture(scope="module", autouse=True)
def no_llama_cpp_corpus() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(LLAMA_CPP_ENV, "/nonexistent/llama.cpp")
        search.cache_clear()
        yield
    search.cache_clear()


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
    assert fix.substring_matches == (THIS_TEMPLATE,) and fix.uniqueness.startswith("uniqueness not checked")
    rerun = measure(session_of("sentinel-in-marker").with_overrides(fix.overrides), (False, True))
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
    assert fix.uniqueness.startswith(f"also in 1 other template(s) of the 2 searched (--corpus {tmp_path}: 2): "
                                     "sibling")
    (tmp_path / "sibling.jinja").write_text(text.replace("<tc>", "<call>"), encoding="utf-8")
    fix = fix_for(search_fixes(open_session(text), [str(tmp_path / "sibling.jinja"), str(tmp_path / "mine.jinja")]),
                  "analysis-override", "sentinel-in-marker")
    assert fix.substring_matches == ("mine",) and fix.uniqueness.startswith("unique among the 2 templates searched")
    assert fix.substring not in (tmp_path / "sibling.jinja").read_text(encoding="utf-8")


# --- template edits -------------------------------------------------------------------------


def test_reasoning_cut_from_history_under_an_opened_thinking_block_is_by_design_and_never_fixed() -> None:
    result = search("thinking-opened")
    keys = {c.key: c for c in result.classes}
    assert keys["reasoning-dropped"].by_design and keys["thinking-opened"].by_design
    assert "cuts the reasoning out of the content" in keys["reasoning-dropped"].by_design
    assert not result.fixes
    edits = [t for t in result.tried if t.kind == "template-edit"]
    assert edits and all(t.check == "keeps-intent" and t.roundtrip_after is None for t in edits)


def test_content_left_out_beside_calls_is_by_design_and_never_fixed() -> None:
    result = search("content-dropped")
    [dropped] = [c for c in result.classes if c.key == "content-dropped"]
    assert "only when the turn has no tool calls" in dropped.by_design and dropped.design_lines == (1,)
    assert not result.fixes and all(t.check == "keeps-intent" for t in result.tried)


def test_a_schema_read_through_its_items_method_is_read_by_key_and_the_round_trip_runs() -> None:
    result = search("roundtrip-failed")
    assert result.roundtrip_before.equal == 0
    fix = fix_for(result, "template-edit", "roundtrip-failed")
    assert_verified(fix)
    original = TEMPLATES["roundtrip-failed"]
    assert fix.patched_template == original.replace("s.items", "s['items']")
    assert patched(original, fix.diff) == fix.patched_template


# --- request changes ------------------------------------------------------------------------


def test_a_thinking_block_the_prompt_closes_with_thinking_off_is_by_design() -> None:
    result = search("thinking-closed")
    [closed] = [c for c in result.classes if c.key == "thinking-closed"]
    assert closed.by_design and not result.fixes
    [asked] = [t for t in result.tried if t.kind == "request-change"]
    assert asked.summary.startswith("send enable_thinking true") and asked.check == "keeps-intent"


def test_a_reply_rejected_only_for_its_end_of_turn_token_is_a_stop_token_artifact() -> None:
    session = open_session(SOUND)
    case = next(c for c in session.roundtrip(False, grammar=False).cases if c.message_id == "c")
    assert case.strip is not None and case.equal_trimmed
    ended = replace(case, strip=replace(case.strip, text=case.strip.text + "<|eom|>"), result=None)
    assert stop_artifact(session, ended, False) == "<|eom|>"
    garbled = replace(case, strip=replace(case.strip, text=case.strip.text.replace("get_weather", "get_")
                                          + "<|eom|>"), result=None)
    assert stop_artifact(session, garbled, False) is None  # the reply is lost without the token too


def test_a_percent_format_llama_cpp_renders_literally_is_written_with_concatenation() -> None:
    result = search("renders-literally")
    fix = fix_for(result, "template-edit", "renders-literally")
    assert_verified(fix)
    original = TEMPLATES["renders-literally"]
    assert "|format(" not in fix.patched_template and "~ (tc.function.name) ~" in fix.patched_template
    assert patched(original, fix.diff) == fix.patched_template
    assert fix.roundtrip_after.equal > fix.roundtrip_before.equal + 4  # every call comes back


def test_closing_an_unclosed_turn_is_tried_and_shown_only_if_it_gives_something_back() -> None:
    result = search("turn-unclosed")
    closes = [t for t in result.tried if t.summary.startswith("close each")]
    assert {t.summary.split(" with ")[0] for t in closes} == {"close each assistant turn", "close each tool result"}
    assert all(t.check == "roundtrip-better" for t in closes) and not result.fixes_for("turn-unclosed")
    [unclosed] = [c for c in result.classes if c.key == "turn-unclosed"]
    assert unclosed.no_fix


def test_a_role_header_read_as_the_reasoning_opener_is_not_fixed_by_turning_thinking_off() -> None:
    result = search("marker-is-role")
    assert "marker-is-role" in {c.key for c in result.classes}
    assert not any(t.summary == "send enable_thinking false" for t in result.tried)
    assert not any(f.kind == "request-change" for f in result.fixes)


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
