"""The app on llama.cpp's own templates (../shared/oracle): every page renders, and what
the pages show agrees with llama.cpp's analysis (route, modes, generation prompt).

One template per routed handler plus a spread of autoparser templates keeps the run
short; the expected values are the oracle's, never the explorer's own output.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from apptest_support import md_plain
from explorer import ui_support as ui
from oracle_data import (
    ORACLE,
    PROJECT_ROOT,
    load_oracle_analysis,
    load_oracle_template,
    oracle_available,
    requires_oracle,
)

APP = str(PROJECT_ROOT / "app.py")
PAGES = ("pages/template_page.py", "pages/probes_page.py", "pages/analysis_page.py", "pages/grammar_page.py", "pages/try_it_page.py",
         "pages/fixtures_page.py", "pages/compare_page.py")
AUTOPARSER_SAMPLE = 5

pytestmark = [requires_oracle, pytest.mark.timeout(900)]


def chosen_templates() -> list[str]:
    if not oracle_available():
        return []
    rows = json.loads((ORACLE / "analysis" / "INDEX.json").read_text(encoding="utf-8"))["templates"]
    seen: set[str] = set()
    chosen: list[str] = []
    auto = [r for r in rows if r["routed_handler"] == "autoparser"]
    for row in rows:
        if row["routed_handler"] != "autoparser" and row["routed_handler"] not in seen:
            seen.add(row["routed_handler"])
            chosen.append(row["template"])
    step = max(1, len(auto) // AUTOPARSER_SAMPLE)
    chosen += [r["template"] for r in auto[::step][:AUTOPARSER_SAMPLE]]
    return [Path(name).stem for name in chosen]


def run_page(page: str, text: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    at.session_state["source_request"] = ui.SourceRequest("text", text=text)
    at.run()
    if page != PAGES[0]:
        at.switch_page(page).run()
    return at


@pytest.mark.parametrize("name", chosen_templates())
def test_pages_render_and_agree_with_llama_cpp(name):
    expected = load_oracle_analysis(name)
    text = load_oracle_template(name)
    shown: dict[str, AppTest] = {}
    for page in PAGES:
        at = run_page(page, text)
        assert not at.exception, (page, [e.value for e in at.exception])
        shown[page] = at
    handler = expected["routed"]["handler"]
    banner = " ".join(w.value for w in shown["pages/template_page.py"].warning) + " ".join(
        s.value for s in shown["pages/template_page.py"].success)
    if handler == "autoparser":
        assert "Route: the differential autoparser" in banner
    else:
        assert f"specialized handler {handler}." in md_plain(banner)
    metrics = {m.label: m.value for m in shown["pages/analysis_page.py"].metric}
    auto = expected["autoparser"]
    assert metrics["Reasoning"] == auto["reasoning"]["mode"]
    assert metrics["Content"] == auto["content"]["mode"]
    assert metrics["Tool calls"] == auto["tools"]["format"]["mode"]
    # the Try-it page shows llama.cpp's generation prompt for the default request (thinking on)
    gen = expected["apply"]["thinking_true"]["generation_prompt"]
    try_html = " ".join(h.proto.body for h in shown["pages/try_it_page.py"].get("html"))
    assert ui.visible_whitespace_html(gen, spaces="all") in try_html


# --- the Fixtures page against llama.cpp's parses of the same fixtures ----------------------


def family_cases() -> list[tuple[str, str]]:
    """(family, template) for every template llama.cpp parsed a family's fixtures with."""
    if not oracle_available():
        return []
    cases = set()
    for path in sorted((ORACLE / "parse").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            cases.add((path.stem, Path(json.loads(line)["template"]).stem))
    return sorted(cases)


@pytest.mark.parametrize(("family", "template"), family_cases())
def test_fixture_parses_match_llama_cpp(family, template):
    rows = [json.loads(line) for line in (ORACLE / "parse" / f"{family}.jsonl").read_text(encoding="utf-8").splitlines()]
    rows = {r["id"]: r for r in rows if Path(r["template"]).stem == template}
    if not rows:
        pytest.skip("llama.cpp parsed none of this family's fixtures with this template")
    at = AppTest.from_file(APP, default_timeout=300)
    at.session_state["source_request"] = ui.SourceRequest("text", text=load_oracle_template(template))
    at.run()
    at.switch_page("pages/fixtures_page.py").run()
    at.selectbox(key="fx_family").select(family).run()
    # every fixture of the family, as llama.cpp parsed them, not only this model's own
    # (the switch is shown only when the family holds fixtures of other models too)
    if any(t.key == "fx_own_models" for t in at.toggle):
        at.toggle(key="fx_own_models").set_value(False).run()
    at.radio(key="fx_show").set_value("all").run()
    assert not at.exception, [e.value for e in at.exception]
    ids = list(at.selectbox(key="fx_pick").options)
    checked = 0
    mismatches = []
    for fixture_id in ids:
        if fixture_id not in rows:
            continue
        at.selectbox(key="fx_pick").select(fixture_id).run()
        got = json.loads(at.json[-1].value)
        want = rows[fixture_id]
        if want["result"] is None:
            ok = got.get("exception") is not None
        else:
            res = want["result"]
            ok = (got.get("content") or "") == res["content"] and (got.get("reasoning_content") or "") == \
                res["reasoning_content"] and [(c["name"], c["arguments_raw"]) for c in got["tool_calls"]] == \
                [(c["name"], c["arguments"]) for c in res["tool_calls"]]
        checked += 1
        if not ok:
            mismatches.append((fixture_id, got, want["result"], want["exception"]))
    print(f"{family} with {template}: {checked} fixtures compared, {len(mismatches)} differ from llama.cpp")
    for m in mismatches[:3]:
        print("  ", m)
    assert checked == len(rows)
    assert not mismatches
