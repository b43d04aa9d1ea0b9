"""The Doctor page under streamlit.testing (AppTest): the verdict, route, health, round-trip
losses with where, the fixture family, fixes with downloads, and links into the other pages."""

from __future__ import annotations

import html
import json
import sys
from urllib.parse import parse_qs, urlsplit

import pytest
from streamlit.testing.v1 import AppTest

from explorer import sources
from explorer import ui_support as ui
from explorer.analysis.overrides import parse_setting
from explorer.doctor import report as doctor_report
from explorer.doctor.model import Fix, RoundTripCount
from explorer.roundtrip import RequestChange
from explorer.session import open_session
from explorer.ui_support import doctor_view as dv
from oracle_data import PROJECT_ROOT

sys.path.insert(0, str(PROJECT_ROOT / "tests" / "doctor"))
from doctor_templates import MISREAD, RAISES, SOUND, SYNTAX_ERROR  # noqa: E402
from doctor_templates import PARSER_LOSSY as LOSSY

APP = str(PROJECT_ROOT / "app.py")
PAGE = "pages/doctor_page.py"
pytestmark = pytest.mark.timeout(600)


def doctor_page(request: ui.SourceRequest) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["source_request"] = request
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def text(at: AppTest) -> str:
    parts = [str(e.value) for kind in ("subheader", "markdown", "caption", "success", "warning", "error", "info",
                                       "code") for e in getattr(at, kind)]
    parts += [str(t.value) for t in at.table]
    parts += [html.unescape(e.proto.body) for e in at.get("html")]
    return "\n".join(parts)


def hrefs(at: AppTest) -> list[str]:
    bodies = "\n".join(html.unescape(e.proto.body) for e in at.get("html"))
    return [part.split('"', 1)[0] for part in bodies.split('href="')[1:]]


@pytest.mark.parametrize("example", list(sources.list_examples()))
def test_the_doctor_page_renders_every_example_with_a_verdict(example: str) -> None:
    at = doctor_page(ui.SourceRequest("example", name=example))
    shown = text(at)
    assert any(word in shown for word in ("**Full**", "**Losses**", "**Broken**"))
    assert "Route" in [s.value for s in at.subheader]


def test_a_sound_template_is_full_with_every_section() -> None:
    at = doctor_page(ui.SourceRequest("text", text=SOUND))
    assert any("**Full**" in s.value for s in at.success)
    assert [s.value for s in at.subheader] == ["Route", "Template health", "Round trip", "Fixture family", "Fixes"]
    assert "qwen3-hermes" in text(at)
    # the fixture count says what it counts (the models this template writes, of the family's)
    assert any("the family's models whose format this template writes" in c.value for c in at.caption)
    assert any("report (JSON)" in b.proto.label for b in at.get("download_button"))


def test_a_lossy_template_lists_its_losses_and_where_they_come_from() -> None:
    at = doctor_page(ui.SourceRequest("text", text=LOSSY))
    [banner] = [w.value for w in at.warning if "**Losses**" in w.value]
    assert "parser does not give back the reply" in banner
    shown = text(at)
    assert "roundtrip-parser-loses" in shown
    assert "By design" in shown and "reasoning-not-rendered" in shown  # it writes no reasoning, on purpose
    try_links = [h for h in hrefs(at) if h.startswith("try?")]
    assert try_links, hrefs(at)
    query = parse_qs(urlsplit(try_links[0]).query)
    assert query["page"] == ["try"] and "o" in query and "t" in query  # the reply and the template go along
    reply = ui.decompress_text(query["o"][0])
    assert reply.startswith("<tool_call>") and reply.endswith("Let me check the weather.")  # message f, rejected


def test_a_misread_template_is_broken_and_links_its_probe() -> None:
    at = doctor_page(ui.SourceRequest("text", text=MISREAD))
    assert any("**Broken**" in e.value for e in at.error)
    probes = [h for h in hrefs(at) if h.startswith("probes?")]
    assert probes and "focus=" in probes[0]
    assert any(h.startswith("analysis?") for h in hrefs(at))


def test_templates_that_raise_or_do_not_compile_are_shown_in_place() -> None:
    at = doctor_page(ui.SourceRequest("text", text=RAISES))
    assert any("**Broken**" in e.value for e in at.error)
    at = doctor_page(ui.SourceRequest("text", text=SYNTAX_ERROR))
    assert "syntax" in " ".join(e.value for e in at.error).lower()


def test_fixes_show_before_and_after_with_their_downloads(monkeypatch: pytest.MonkeyPatch) -> None:
    before = RoundTripCount(10, 18)
    fixes = (
        Fix("template-edit", "render reasoning in history turns", before, RoundTripCount(14, 18),
            diff="--- a/t.jinja\n+++ b/t.jinja\n@@\n-x\n+y\n", patched_template=SOUND),
        Fix("analysis-override", "set the call opener", before, RoundTripCount(12, 18),
            overrides=(parse_setting("tools.format.per_call_start=<tool_call>"),), substring="<tool_call>",
            substring_matches=("t.jinja",), workaround_cpp="[](const common_chat_template & tmpl) {}"),
        Fix("request-change", "send parallel_tool_calls", before, RoundTripCount(11, 18),
            request_change=RequestChange(parallel_tool_calls=True)),
    )
    monkeypatch.setattr(doctor_report, "default_fix_search", lambda session, corpus: fixes)
    at = doctor_page(ui.SourceRequest("text", text=LOSSY + "{# fixes #}"))
    shown = text(at)
    assert "round trip 10/18 before, 14/18 after (+4 messages back; assistant messages" in shown
    assert "--set tools.format.per_call_start=\"<tool_call>\"" in shown
    assert '"parallel_tool_calls": true' in shown
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Download the patched template" in labels and "Download the workaround lambda" in labels
    assert "Download the diff" in labels


def test_the_views_files_are_named_after_the_template() -> None:
    report = doctor_report.doctor(open_session(LOSSY), fixes=False, name="models/Acme 7B/chat_template.jinja")
    d = dv.json_download(report)
    assert d.file_name == "chat_template-doctor.json" and json.loads(d.data)["verdict"] == "losses"
    fix = Fix("template-edit", "x", RoundTripCount(1, 2), RoundTripCount(2, 2), diff="-a\n+b\n", patched_template="b")
    view = dv.fix_view(fix, report.template)
    assert [x.file_name for x in view.downloads] == ["chat_template-patched.jinja", "chat_template.diff"]


def _fixes() -> tuple[Fix, ...]:
    before = RoundTripCount(10, 18, ("a/false",))
    return (
        Fix("template-edit", "render reasoning in history turns", before, RoundTripCount(14, 18, ("a/false",)),
            classes=("reasoning-dropped",), diff="--- a/t.jinja\n+++ b/t.jinja\n@@\n-x\n+y\n", patched_template=SOUND),
        Fix("analysis-override", "set the call opener", before, RoundTripCount(12, 18, ("a/false",)),
            overrides=(parse_setting("tools.format.per_call_start=<tool_call>"),), substring="<tool_call>",
            substring_matches=("t.jinja",), workaround_cpp="[](const common_chat_template & tmpl) { /* x */ }"),
        Fix("request-change", "send parallel_tool_calls", before, RoundTripCount(11, 18, ("a/false",)),
            request_change=RequestChange(parallel_tool_calls=True)),
    )


def test_the_bug_report_carries_the_chosen_fix() -> None:
    report = doctor_report.doctor(open_session(LOSSY), fixes=lambda session, corpus: _fixes(), name="lossy.jinja")
    common = {"source_name": "lossy.jinja", "source_origin": "pasted text", "template_text": LOSSY}
    plain = dv.bug_report(report, **common)
    assert "Proposed fix" not in plain and "doctor verdict losses" in plain
    assert "roundtrip-parser-loses" in plain and "template line 4" in plain  # the findings, placed
    edit, override, change = (dv.bug_report(report, **common, fix=f) for f in report.fixes)
    assert "- kind: `template-edit`" in edit and "render reasoning in history turns" in edit
    assert "10/18 messages come back before, 14/18 after (+4)" in edit and "+++ b/t.jinja" in edit
    assert '--set tools.format.per_call_start="<tool_call>"' in override and "/* x */" in override
    assert "uniqueness not checked" in override  # the hand-made fix searched no corpus
    assert '"parallel_tool_calls": true' in change
    assert dv.chosen_fix(report, dv.fix_choices(report)[2]) is report.fixes[1]
    assert dv.chosen_fix(report, "no fix") is None


def test_add_to_bug_report_puts_that_fix_into_the_pages_bug_report(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(doctor_report, "default_fix_search", lambda session, corpus: _fixes())
    at = doctor_page(ui.SourceRequest("text", text=LOSSY + "{# bug report #}"))
    report_md = lambda: next(c.value for c in at.code if c.value.startswith("### Chat template"))  # noqa: E731
    assert "Proposed fix" not in report_md()
    at.button(key="doc_fix_bug_2").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert '"parallel_tool_calls": true' in report_md() and "- kind: `request-change`" in report_md()
    assert at.selectbox(key="doc_bug_fix").value.startswith("3. Request change")
    assert any(b.proto.label == "Download bug-report.md" for b in at.get("download_button"))


def test_failure_classes_without_a_sound_fix_say_why() -> None:
    from doctor_cases import TEMPLATES

    report = doctor_report.doctor(open_session(TEMPLATES["calls-dropped"]), name="calls-dropped")
    assert report.unfixed and all(c.no_fix for c in report.unfixed)
    line = json.loads(json.dumps(report.to_json()))
    assert {c["key"] for c in line["fix_classes"]} >= {c.key for c in report.unfixed}
    assert all(c["no_fix"] for c in line["fix_classes"] if c["key"] == "calls-dropped")
    from explorer.doctor.text import report_text, summary_table

    shown = report_text(line)
    assert "no sound fix:" in shown and "why: The template writes no tool call" in shown
    assert summary_table([line]).splitlines()[0].endswith("no fix")
    rows = dv.unfixed_rows(report)
    assert rows and rows[0]["why no fix is sound"]
    at = doctor_page(ui.SourceRequest("text", text=TEMPLATES["calls-dropped"]))
    assert "No sound fix" in text(at) and "The template writes no tool call" in text(at)


def test_try_its_bug_report_offers_the_fix_chosen_on_the_doctor_page(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(doctor_report, "default_fix_search", lambda session, corpus: _fixes())
    text_ = LOSSY + "{# try it #}"
    at = doctor_page(ui.SourceRequest("text", text=text_))
    at.button(key="doc_fix_bug_0").click().run()
    sha, fix = at.session_state[dv.CHOSEN_FIX_STATE]
    assert sha == open_session(text_).sha256 and fix.kind == "template-edit"
    at.switch_page("pages/try_it_page.py").run()
    assert not at.exception, [e.value for e in at.exception]
    report = next(c.value for c in at.code if c.value.startswith("### Chat parsing"))
    assert "- kind: `template-edit`" in report and "+++ b/t.jinja" in report
    at.checkbox(key="try_bug_fix").uncheck().run()
    report = next(c.value for c in at.code if c.value.startswith("### Chat parsing"))
    assert "Proposed fix" not in report


def test_a_fix_applied_as_the_what_if_shows_the_fixed_template_everywhere_with_its_checks(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """One button applies a fix as the What-if: the header then says a what-if is active, the
    Analysis page's What if… section shows the fix with the acceptance standard's checks, and
    the Doctor page doctors the fixed template."""
    from explorer.doctor.acceptance import CHECK_IDS
    from explorer.doctor.model import CheckResult

    before = RoundTripCount(10, 18)
    checks = tuple(CheckResult(c, "pass", f"{c} held") for c in CHECK_IDS)
    fix = Fix("template-edit", "write the content before the calls", before, RoundTripCount(14, 18),
              diff="--- a/t.jinja\n+++ b/t.jinja\n@@\n-x\n+y\n", patched_template=SOUND, checks=checks)
    monkeypatch.setattr(doctor_report, "default_fix_search", lambda session, corpus: (fix,))
    at = doctor_page(ui.SourceRequest("text", text=LOSSY + "{# apply #}"))
    assert "summary-true held" in text(at)  # the checks beside the fix
    [button] = [b for b in at.button if b.label == "Apply this fix as the What-if"]
    button.click().run()
    assert not at.exception, [e.value for e in at.exception]
    held = at.session_state[dv.APPLIED_FIX_STATE]
    assert isinstance(held, dv.AppliedFix) and held.whatif.text == SOUND and held.checks == checks
    assert any("What-if active" in w.value and "edited template" in w.value for w in at.warning)
    assert any("**Full**" in s.value for s in at.success)  # the Doctor now doctors the fixed (sound) template
    at.switch_page("pages/analysis_page.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Applied from the Doctor: write the content before the calls" in i.value for i in at.info)
    assert "grammar-no-worse held" in text(at)
