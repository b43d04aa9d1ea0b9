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
from explorer.session import open_session
from explorer.ui_support import doctor_view as dv
from explorer.doctor import report as doctor_report
from explorer.doctor.model import Fix, RoundTripCount
from explorer.analysis.overrides import parse_setting
from explorer.roundtrip import RequestChange
from oracle_data import PROJECT_ROOT

sys.path.insert(0, str(PROJECT_ROOT / "tests" / "doctor"))
from doctor_templates import LOSSY, MISREAD, RAISES, SOUND, SYNTAX_ERROR  # noqa: E402

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
    assert any("report (JSON)" in b.proto.label for b in at.get("download_button"))


def test_a_lossy_template_lists_its_losses_and_where_they_come_from() -> None:
    at = doctor_page(ui.SourceRequest("text", text=LOSSY))
    [banner] = [w.value for w in at.warning if "**Losses**" in w.value]
    assert "reasoning_content" in banner
    shown = text(at)
    assert "roundtrip-template-drops" in shown and "template" in shown
    try_links = [h for h in hrefs(at) if h.startswith("try?")]
    assert try_links, hrefs(at)
    query = parse_qs(urlsplit(try_links[0]).query)
    assert query["page"] == ["try"] and "o" in query and "t" in query  # the reply and the template go along
    reply = ui.decompress_text(query["o"][0])
    assert reply == "It is sunny."  # message b, whose reasoning the template drops


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
    assert "round trip 10/18 before, 14/18 after (+4 messages back)" in shown
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
