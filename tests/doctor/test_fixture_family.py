"""A template's own canitoolcall fixture family: the marker rule checked on the oracle's 70
templates against family_templates.json, the oracle's per-fixture request, and the
fixtures judged through the session."""

from __future__ import annotations

import json
from collections import Counter
from functools import cache

import pytest
from doctor_templates import SOUND

from explorer.fixtures import family_fixtures, fixture_request, judge, match_family, run_family
from explorer.session import open_session
from oracle_data import ORACLE, load_oracle_template, requires_oracle

# Pairs family_templates.json lists that no marker rule can find: Magistral-Small-2506's one
# fixture writes only <think> tags, which the Mistral Small 3.2 template never renders.
UNREACHABLE = {("Mistral-Small-3.2-24B-Instruct-2506", "mistralai/Magistral-Small-2506")}
# Templates that speak no family's format (checked by hand): no fixtures to run.
NO_FAMILY = ("llama-cpp-rwkv-world", "google-gemma-2-2b-it", "CohereForAI-c4ai-command-r-plus-tool_use",
             "microsoft-Phi-3.5-mini-instruct", "MiniMax-M2", "ByteDance-Seed-OSS", "HuggingFaceTB-SmolLM3-3B")


def _assigned() -> dict[str, dict[str, set[str]]]:
    """template name -> family -> the reference models the oracle ran with it."""
    data = json.loads((ORACLE / "family_templates.json").read_text(encoding="utf-8"))
    out: dict[str, dict[str, set[str]]] = {}
    for slug, family in data["families"].items():
        for model, row in family["models"].items():
            if row["template"]:
                out.setdefault(row["template"].removesuffix(".jinja"), {}).setdefault(slug, set()).add(model)
    return out


@cache
def _session(name: str):  # noqa: ANN202 - a test helper
    return open_session(load_oracle_template(name))


@requires_oracle
@pytest.mark.parametrize("name", sorted(_assigned()) if ORACLE.is_dir() else [])
def test_each_template_the_oracle_ran_a_family_with_is_matched_to_that_family_and_model(name: str) -> None:
    [(slug, models)] = _assigned()[name].items()
    match = match_family(load_oracle_template(name), _session(name))
    assert match is not None and match.slug == slug
    kept = {m.model for m in match.models}
    wanted = {m for m in models if (name, m) not in UNREACHABLE}
    assert wanted <= kept, f"{name}: {sorted(wanted - kept)} left out ({[m.to_json() for m in match.left_out]})"


@requires_oracle
@pytest.mark.parametrize("name", NO_FAMILY)
def test_a_template_without_a_familys_markers_has_no_family(name: str) -> None:
    assert match_family(load_oracle_template(name)) is None


@requires_oracle
def test_the_generation_prompt_decides_between_models_that_write_the_same_markers() -> None:
    glm46 = match_family(load_oracle_template("GLM-4.6"), _session("GLM-4.6"))
    glm47 = match_family(load_oracle_template("GLM-4.7-Flash"), _session("GLM-4.7-Flash"))
    assert glm46 is not None and glm47 is not None
    assert "zai-org/GLM-4.7" not in {m.model for m in glm46.models}
    assert "zai-org/GLM-4.5" not in {m.model for m in glm47.models}
    qwq = match_family(load_oracle_template("Qwen-QwQ-32B"), _session("Qwen-QwQ-32B"))
    assert qwq is not None and [m.model for m in qwq.models] == ["Qwen/Qwen3-4B-Thinking-2507"]


@requires_oracle
def test_an_older_sub_format_with_fewer_call_markers_is_dropped() -> None:
    match = match_family(load_oracle_template("Mistral-Small-3.2-24B-Instruct-2506"))
    assert match is not None and [m.model for m in match.models] == ["mistralai/Mistral-Small-3.2-24B-Instruct-2506"]


@requires_oracle
def test_fixtures_run_with_the_oracles_request_parse_as_llama_cpp_parsed_them() -> None:
    """Every oracle parse row of a template whose family the doctor runs there: our parse of
    the fixture, with the request ``fixture_request`` builds, is llama.cpp's."""
    compared = Counter()
    for path in sorted((ORACLE / "parse").glob("*.jsonl")):
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        fixtures = {f.id: f for f in family_fixtures(path.stem)}
        for row in rows:
            name = row["template"].removesuffix(".jinja")
            session = _session(name)
            match = match_family(session.text, session)
            if match is None or row["model"] not in {m.model for m in match.models}:
                continue
            request = fixture_request(session, fixtures[row["id"]])
            assert request.enable_thinking == row["enable_thinking"], row["id"]
            assert dict(request.chat_template_kwargs) == row["chat_template_kwargs"], row["id"]
            assert session.params(request).generation_prompt == row["generation_prompt"], row["id"]
            parsed = session.parse(fixtures[row["id"]].raw_output, request)
            got = parsed.message.to_oracle_json() if parsed.message is not None else None
            assert got == row["result"], row["id"]
            compared[path.stem] += 1
    print("oracle parse rows compared per family:", dict(compared))
    assert len(compared) == 9


def test_a_fixtures_own_thinking_flag_goes_out_in_both_spellings_and_a_null_one_leaves_the_default() -> None:
    session = open_session(SOUND)
    fixtures = family_fixtures("qwen3-hermes")
    flagged = next(f for f in fixtures if f.thinking is False)
    unset = next(f for f in fixtures if f.thinking is None)
    request = fixture_request(session, flagged)
    assert request.enable_thinking is False
    assert dict(request.chat_template_kwargs) == {"enable_thinking": False, "thinking": False}
    assert request.tools and request.tools[0]["function"]["name"] == flagged.tools[0]["function"]["name"]
    default = fixture_request(session, unset)
    assert default.enable_thinking == session.supports_enable_thinking and not default.chat_template_kwargs
    assert default.parallel_tool_calls == session.caps.supports_parallel_tool_calls


def test_a_family_run_counts_every_fixture_of_the_kept_models() -> None:
    session = open_session(SOUND)
    match = match_family(SOUND, session)
    assert match is not None and match.slug == "qwen3-hermes"
    run = run_family(session, match)
    assert len(run.rows) == len(match.fixture_ids) == sum(run.counts().values())
    assert set(run.per_model()) == {m.model for m in match.models}
    assert {r.verdict.status for r in run.rows} <= {"pass", "soft_pass", "fail", "error"}
    assert run.to_json()["counts"] == run.counts()


def test_a_request_the_template_cannot_apply_is_an_error_verdict() -> None:
    session = open_session("{{ raise_exception('no') }}")
    fixture = family_fixtures("qwen3-hermes")[0]
    verdict = judge(session, fixture, None)
    assert verdict.status == "error" and "no" in verdict.detail
