"""What the pages moved into the library (issue 22's "pages only display", issue 21's pages):
the one Markdown escaping helper, the request change from widget values, the Grammar page's
include rule and generated rules, the probe's sides and steps, the markers' template lines,
the route's reason, an empty template's note and the bug report that reproduces a case."""

from __future__ import annotations

import contextlib
import io
import json
import re
import shlex
from dataclasses import replace
from pathlib import Path

import pytest

from apptest_support import md_plain
from cases import TAGGED
from explorer import cli
from explorer.analysis.model import ToolFormat, ToolFormatAnalysis
from explorer.analysis.overrides import parse_setting
from explorer.apply import GET_WEATHER_TOOL
from explorer.cli.inputs import request_from_args
from explorer.errors import RequestError
from explorer.grammar.explain import generated_rules, rule_note
from explorer.peg.nodes import Ac, Until
from explorer.routing import AUTOPARSER
from explorer.session import open_session
from explorer.sources import from_example, from_text, from_upload
from explorer.ui_support import analysis_view as av
from explorer.ui_support import bug_report as br
from explorer.ui_support import grammar_view as gv
from explorer.ui_support import probe_view as pv
from explorer.ui_support.links import SourceRequest
from explorer.ui_support.requests import request_change
from explorer.ui_support.text import md_code, md_escape

WEATHER = [GET_WEATHER_TOOL]


# --- the one escaping helper -----------------------------------------------------------------


@pytest.mark.parametrize("text", [
    ">\nquote", "**x**", "<b>bold</b>", "```py\ncode\n```", "$x^2$", "1. item", "- dash", "# head", "===",
    "~~s~~", "[l](http://x.y)", ":smile: :red[x] :material/home:", "col|pipe", "_x_", "&amp;", "a\\b",
])
def test_markdown_specials_are_escaped_and_read_back_as_written(text):
    escaped = md_escape(text)
    assert md_plain(escaped) == text
    # every character Markdown reads anywhere in a line stands behind a backslash
    assert re.search(r"(?<!\\)[*<>`$\[\]|~&]", escaped.replace("\\\\", "")) is None, escaped
    for shape in (":material/", ":red[", ":smile:"):
        assert shape not in escaped


def test_plain_words_stay_as_they_are():
    for text in ("get_weather", "tools: invalid JSON at line 1, column 2", "a_b_c", "it's 3 o'clock"):
        assert md_escape(text) == text


def test_line_starts_that_make_blocks_are_escaped():
    assert md_escape("> q\n# h\n- l\n+ l\n2) n\n3. n") == "\\> q\n\\# h\n\\- l\n\\+ l\n2\\) n\n3\\. n"


def test_md_code_survives_backticks():
    assert md_code("a`b") == "``a`b``"
    assert md_code("`") == "`` ` ``"
    assert md_code("<tool_call>") == "`<tool_call>`"


# --- the What if's request change from plain values -----------------------------------------


def test_request_change_from_widget_values():
    change = request_change(enable_thinking=False, reasoning_format="none", parallel_tool_calls=True,
                            kwargs_text='{"enable_thinking": true, "reasoning_effort": "high"}',
                            tool_order_text=" search , get_weather ,")
    assert change.enable_thinking is False  # the switch wins over a kwarg of the same name
    assert dict(change.chat_template_kwargs)["reasoning_effort"] == "high"
    assert change.reasoning_format == "none" and change.parallel_tool_calls is True
    assert tuple(change.tool_order) == ("search", "get_weather")
    assert request_change().empty


@pytest.mark.parametrize(("text", "said"), [("{not json", "not JSON"), ("[1, 2]", "expected a JSON object")])
def test_request_change_refuses_kwargs_that_are_not_an_object(text, said):
    with pytest.raises(RequestError, match=said):
        request_change(kwargs_text=text)


# --- the Grammar page: include rule, notation, generated rules --------------------------------


def test_no_grammar_reasons_follow_the_route_that_built_the_params():
    chatml = open_session(from_example("chatml-think-tools"))
    bare = chatml.request(tools=None)
    params = chatml.params(bare)
    assert params.grammar == "" and params.handler == AUTOPARSER
    fmt = chatml.analysis.tools.format
    assert gv.no_grammar_reason(params, bare, fmt).startswith("the request has no tools")
    none = chatml.request(tools=WEATHER, tool_choice="none")
    assert chatml.params(none).grammar == ""
    assert gv.no_grammar_reason(chatml.params(none), none, fmt) == "tool_choice is none"
    # a handler route: the handler's own policy, named
    coder = open_session(from_text(TAGGED))
    assert coder.handler != AUTOPARSER
    request = coder.request(tools=None)
    reason = gv.no_grammar_reason(coder.params(request), request, None)
    assert coder.params(request).grammar == ""
    assert reason.startswith(f"the request has no tools; the {coder.handler} handler includes a grammar only for")


def test_no_trigger_marker_is_the_reason_only_when_the_generator_agrees():
    """With the opener overridden away (a workaround would do that), the autoparser's generator
    really sends no lazy grammar, and the page says it is for want of a trigger word."""
    sets = tuple(parse_setting(s) for s in ('tools.format.per_call_start=""', 'tools.format.section_start=""'))
    session = open_session(from_example("chatml-think-tools").text, overrides=sets)
    request = session.request(tools=WEATHER)
    params = session.params(request)
    assert params.grammar == ""
    assert "would have no word to trigger on" in gv.no_grammar_reason(params, request, session.analysis.tools.format)
    assert session.params(replace(request, tool_choice="required")).grammar  # required: sent, not lazy
    empty = ToolFormatAnalysis(mode=ToolFormat.NONE)
    assert "found no tool-call format" in gv.no_grammar_reason(params, request, empty)


def test_generated_rules_name_their_parser_and_delimiter():
    session = open_session(from_example("tagged-parameters"))
    params = session.params(session.request(tools=WEATHER))
    rules = generated_rules(params.grammar, params.arena)
    assert {r.kind for r in rules} == {"until", "ac"}
    defined = {line.split("::=")[0].strip() for line in params.grammar.splitlines() if "::=" in line}
    for rule in rules:
        node = params.arena.parsers[rule.parser_id]
        assert isinstance(node, Until if rule.kind == "until" else Ac)
        assert rule.delimiters == tuple(node.delimiters) and rule.states[0] == rule.name
        assert set(rule.states) == {n for n in defined if n == rule.name or n.startswith(rule.name + "-")}
        # one state per character of the delimiter already matched (a single delimiter: its length)
        if len(rule.delimiters) == 1:
            assert len(rule.states) == len(rule.delimiters[0])
        assert json.dumps(rule.delimiters[0]) in rule.sentence() and "until this literal" in rule.sentence()
        assert rule_note(rule.states[-1], rules) == rule
    assert gv.rule_notes(params) == rules


def test_notation_rows_are_the_arenas_rules_and_escape_as_html():
    session = open_session(from_example("chatml-think-tools"))
    params = session.params(session.request(tools=WEATHER))
    rows = gv.notation_rows(params.arena)
    assert rows and "\n".join(f"{n} = {e}" if n else e for n, e in rows) == params.arena.notation()
    assert "<tool_call>" not in gv.notation_html(params.arena) and "&lt;tool_call&gt;" in gv.notation_html(params.arena)


# --- the Probes page: which output is which, fields as steps ---------------------------------


def test_probe_sides_say_what_a_and_b_render():
    analysis = open_session(from_example("tagged-parameters")).analysis
    r2 = pv.probe_sides(analysis.probe("R2"))
    assert (r2.a, r2.b, r2.varies) == ("enable_thinking=false", "enable_thinking=true", "enable_thinking")
    r1 = pv.probe_sides(analysis.probe("R1"))
    assert r1.a == "user → assistant (content)" and r1.b == "user → assistant (content + reasoning_content)"
    t7 = pv.probe_sides(analysis.probe("T7"))
    assert "id call00001" in t7.a and "id call99999" in t7.b and t7.varies == "messages"
    title = pv.probe_title(analysis.probe("R2"))
    assert title.startswith("R2 · ") and "A: enable_thinking=false | B: enable_thinking=true" in title


def test_a_field_set_twice_reads_as_steps():
    analysis = open_session(from_example("tagged-parameters")).analysis
    t3 = analysis.probe("T3")
    assert "tools.function.name_prefix" in pv.repeated_fields(t3)
    steps = pv.field_steps(t3, analysis)
    assert [r["step"] for r in steps] == [str(i) for i in range(1, len(steps) + 1)]
    firsts = [r for r in steps if r["field"] == "tools.function.name_prefix"]
    assert firsts[0]["value"] == "∅" and firsts[0]["note"] == ""
    assert firsts[1]["value"] == "<function=" and firsts[1]["note"] == \
        f"set again: replaces step {firsts[0]['step']}; the analysis keeps this value"


# --- the Analysis page and the Template page: template lines, the route -----------------------


def test_each_marker_names_the_template_line_that_writes_it():
    source = from_example("tagged-parameters")
    session = open_session(source)
    rows = {r.field: r for r in av.marker_rows(session.analysis, session.lines)}
    lines = source.text.splitlines()
    prefix = rows["tools.function.name_prefix"]
    assert prefix.lines and all("'<function='" in w.text for w in prefix.lines)
    assert all(lines[w.line - 1] == w.text for w in prefix.lines)
    assert prefix.meaning and "function name" in prefix.meaning
    assert rows["tools.format.mode"].meaning.startswith("the function name stands in tags")
    assert rows["tools.call_id.prefix"].lines == () and rows["tools.call_id.prefix"].problem is None  # empty
    html = av.lines_html(prefix)
    assert f"line {prefix.lines[0].line}" in html and "&#x27;&lt;function=&#x27;" in html


def test_why_this_route_names_the_deciding_text_and_where_it_stands():
    session = open_session(from_text(TAGGED))
    reason = av.route_reason(session.routing)
    assert reason.specialized and reason.headline().startswith(f"Route: the specialized handler {session.handler}")
    first = next(e for e in session.routing.evidence if e.wanted)
    assert reason.deciding[0] == (f"the template contains {json.dumps(first.needle)} at template line {first.line} "
                                  f"({first.source_line.strip()})")
    plain = av.route_reason(open_session(from_example("plain-chat")).routing)
    assert not plain.specialized and plain.deciding == () and "None of the" in plain.headline()
    opener = av.call_lines(open_session(from_example("chatml-think-tools")))
    assert [r.field for r in opener] == ["tools.format.per_call_start"] and "<tool_call>" in opener[0].lines[0].text


def test_an_empty_template_is_named_with_what_llama_cpp_does():
    note = av.empty_template_note("")
    assert note and note.startswith("This template is empty.") and "ChatML" in note
    assert av.empty_template_note("chatml") and av.empty_template_note(" ") is None
    session = open_session("")  # what the note says: llama.cpp's ChatML is what gets analysed
    assert session.analysis.assistant_start == "<|im_start|>assistant"


# --- the bug report reproduces the case anywhere -----------------------------------------------


def test_the_template_spec_reloads_it_anywhere():
    example = from_example("plain-chat")
    assert br.template_spec(SourceRequest("example", name="plain-chat"), example).spec == "example:plain-chat"
    hub = br.template_spec(SourceRequest("hub", name="acme/m", revision="v1", variant="tool_use"), example)
    assert hub.spec == "hf:acme/m@v1#tool_use" and not hub.attached
    upload = br.template_spec(SourceRequest("upload", name="mine.jinja"), from_upload(b"{{ x }}", "mine.jinja"))
    assert upload.attached and upload.spec == br.ATTACHED and "uploaded file `mine.jinja`" in upload.label
    assert "pasted" not in upload.label
    assert "pasted template" in br.template_spec(SourceRequest("text", text="{{ x }}"), from_text("{{ x }}")).label


def test_the_reports_commands_rebuild_the_same_request_and_parse(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch):
    """The report's CLI lines, run as written in a folder holding the files it names, build the
    request the app parsed with and print the same message."""
    source = from_example("chatml-think-tools")
    session = open_session(source)
    request = session.request(tools=WEATHER, enable_thinking=True,
                              chat_template_kwargs={"enable_thinking": True, "thinking": True})
    output = '<think>\nhm\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    spec = br.template_spec(SourceRequest("example", name="chatml-think-tools"), source)
    parse_line, why_line = br.reproduce_commands(spec, request)
    monkeypatch.chdir(tmp_path)
    (tmp_path / br.OUTPUT_FILE).write_text(output, encoding="utf-8")
    (tmp_path / br.TOOLS_FILE).write_text(json.dumps(WEATHER), encoding="utf-8")
    argv = shlex.split(parse_line)
    assert argv[0] == "template-explorer"
    assert request_from_args(session, cli.build_parser().parse_args(argv[1:])) == request
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):
        assert cli.main(argv[1:]) == 0
    assert json.loads(shown.getvalue())["result"] == session.parse(output, request).message.to_oracle_json()
    assert cli.build_parser().parse_args(shlex.split(why_line)[1:]).command == "why"


def test_the_report_links_the_app_only_when_it_is_public():
    source = from_upload(b"{% for m in messages %}{{ m.content }}{% endfor %}", "mine.jinja")
    session = open_session(source)
    request = session.request(tools=WEATHER)
    common = dict(source=source, source_request=SourceRequest("upload", name="mine.jinja"), request=request,
                  handler=session.handler, raw_output="hi", parsed_json="{}", query="page=try&t=z1abc")
    private = br.try_bug_report(**common)
    assert "explorer view" not in private and "localhost" not in private and "?page=" not in private
    assert "- template: the uploaded file `mine.jinja`" in private and "pasted" not in private
    body = json.loads(private.split("**Request** (llama-server's request body)\n\n```json\n", 1)[1].split("\n```")[0])
    assert body == br.request_body(request) and body["tools"] == WEATHER
    assert "template-explorer parse template.jinja --output-file output.txt --tools tools.json" in private
    assert "the attached template as `template.jinja`" in private
    public = br.try_bug_report(**common, public_url="https://explorer.example.org/")
    assert "- explorer view: https://explorer.example.org/try?page=try&t=z1abc" in public


def test_the_fixtures_page_opens_on_the_doctors_family_with_its_counts():
    """The Fixtures page on the built-in example: the family the Doctor picks, and by default
    the fixtures of the models the template speaks, so its counts are the Doctor's."""
    from apptest_support import open_page
    from explorer.doctor.report import doctor

    session = open_session(from_example("chatml-think-tools"))
    run = doctor(session, fixes=False).fixtures
    assert run is not None
    at = open_page("fixtures_page.py", "chatml-think-tools")
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="fx_family").value == run.match.slug
    shown = {m.label: int(m.value) for m in at.metric}
    assert shown == {"✓ pass": run.counts()["pass"], "≈ soft pass": run.counts()["soft_pass"],
                     "✗ fail": run.counts()["fail"], "! error": run.counts()["error"]}
    at.toggle(key="fx_own_models").set_value(False).run()
    assert sum(int(m.value) for m in at.metric) > len(run.rows)  # the whole family


def test_the_header_names_the_origin_by_its_kind_not_the_name_again():
    from explorer.ui_support.app_options import origin_label

    example = from_example("plain-chat")
    assert "plain-chat" in example.origin  # the origin string repeats the name ...
    assert origin_label(SourceRequest("example", name="plain-chat"), example) == "a built-in example"  # ... this not
    upload = from_upload(b"{{ x }}", "mine.jinja")
    assert origin_label(SourceRequest("upload", name="mine.jinja"), upload) == "an uploaded file"
    assert origin_label(None, upload) == upload.origin
