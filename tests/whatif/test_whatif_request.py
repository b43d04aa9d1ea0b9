"""What-if of a request change (``WhatIf.change``, an ``explorer.roundtrip.RequestChange``):
the client sends something else, and the parser, GBNF, round trip and triage are built again
for the changed request, beside the original request's.

Expected values are the template's own behaviour and llama.cpp's rules, not our output: the
generation prompt with enable_thinking false is what jinja2 renders for the template with
that flag (the text add_generation_prompt adds); with thinking off the generation prompt
closes the think block, so a history turn's rendered reasoning is read as content and every
message holding reasoning_content loses in the round trip; with parallel_tool_calls false
llama.cpp's tool-call rule takes one call, not a comma-separated list of them.
"""

from __future__ import annotations

import json

import jinja2
import pytest
from jinja2.sandbox import ImmutableSandboxedEnvironment

from explorer.apply import standard_request
from explorer.errors import RequestError
from explorer.roundtrip import DEFAULT_MESSAGES, DEFAULT_TOOLS, RequestChange
from explorer.session import open_session
from explorer.sources import resolve_spec
from explorer.whatif import FIXTURES_NOTE, WhatIf, what_changed

CHATML = "example:chatml-think-tools"  # <think> reasoning, JSON calls in <tool_call>\n...</tool_call>
CALL = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
TWO_CALLS = f"<tool_call>\n{CALL}\n</tool_call>\n<tool_call>\n{CALL}\n</tool_call>"


def chatml():
    return open_session(resolve_spec(CHATML))


def tool_request(session):
    return session.request(tools=list(standard_request(True).tools))


def jinja2_generation_prompt(text: str, **context: object) -> str:
    """What add_generation_prompt adds, rendered by jinja2 itself (not our renderer)."""
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, undefined=jinja2.Undefined)
    template = env.from_string(text)
    messages = [{"role": "user", "content": "Hello"}]
    with_prompt = template.render(messages=messages, add_generation_prompt=True, **context)
    without = template.render(messages=messages, add_generation_prompt=False, **context)
    assert with_prompt.startswith(without)
    return with_prompt[len(without):]


def test_an_empty_request_change_changes_nothing() -> None:
    session = chatml()
    whatif = WhatIf(change=RequestChange())
    assert whatif.empty and whatif.apply(session) is session
    request = tool_request(session)
    assert whatif.request(request) is request
    changed = what_changed(session, whatif.apply(session), request, TWO_CALLS, change=whatif.change)
    assert changed.nothing and changed.changed == () and changed.request_after == request
    assert FIXTURES_NOTE not in changed.notes
    assert changed.triage_before.verdict == changed.triage_after.verdict


def test_a_change_to_the_value_the_request_already_has_changes_nothing() -> None:
    session = chatml()
    request = tool_request(session)  # parallel calls on (the template renders several), reasoning deepseek
    change = RequestChange(reasoning_format="deepseek", parallel_tool_calls=True)
    changed = what_changed(session, session, request, change=change, fixtures=False)
    assert changed.changed == () and changed.nothing


def test_a_request_change_alone_keeps_the_session_and_is_counted_in_the_banner() -> None:
    session = chatml()
    whatif = WhatIf(change=RequestChange(enable_thinking=False))
    assert not whatif.empty and not whatif.changes_session
    assert whatif.apply(session) is session
    assert whatif.describe() == "request change"
    both = whatif.with_setting(WhatIf.setting("reasoning.start", '"<thought>"'))
    assert both.describe() == "1 override / request change"
    assert both.with_change(None).describe() == "1 override"


def test_thinking_off_gives_the_generation_prompt_the_template_renders_for_it() -> None:
    session = chatml()
    request = tool_request(session)
    change = RequestChange(enable_thinking=False)
    changed = what_changed(session, session, request, change=change, fixtures=False)
    expected_off = jinja2_generation_prompt(session.text, enable_thinking=False)
    expected_on = jinja2_generation_prompt(session.text, enable_thinking=True)
    assert expected_off != expected_on  # the template closes the think block when thinking is off
    gen = next(c for c in changed.changed if c.field == "params.generation_prompt")
    assert (gen.a, gen.b) == (expected_on, expected_off)
    prompts = {name: (a, b) for name, a, b in changed.comparison.prompts}
    assert prompts["generation prompt"] == (expected_on, expected_off)
    assert changed.request_after.enable_thinking is False
    assert changed.request_after.chat_template_kwargs["enable_thinking"] is False


def test_thinking_off_loses_the_reasoning_messages_in_the_round_trip() -> None:
    session = chatml()
    changed = what_changed(session, session, tool_request(session), change=RequestChange(enable_thinking=False),
                           fixtures=False)
    reasoning = {mid for mid, message in DEFAULT_MESSAGES if message.get("reasoning_content")}
    before, after = changed.roundtrip_before, changed.roundtrip_after
    assert before.total == after.total
    after_ids = set(after.equal_ids)
    assert not any(i.split("/")[0] in reasoning for i in after_ids)  # none of them comes back
    assert set(after.lost_from(before)) == {f"{m}/true" for m in reasoning}  # thinking on had them back
    assert after.equal < before.equal and "lost:" in changed.roundtrip_line


def test_parallel_calls_off_changes_the_grammar_and_only_the_grammar_side() -> None:
    session = chatml()
    request = tool_request(session)
    assert request.parallel_tool_calls  # the template renders several calls
    changed = what_changed(session, session, request, TWO_CALLS, change=RequestChange(parallel_tool_calls=False))
    grammar = next(c for c in changed.parser_changes if c.field == "params.grammar")
    rule = next(line for line in str(grammar.b).splitlines() if line.startswith("tool-call ::="))
    assert rule == 'tool-call ::= "<tool_call>\\n" space (tool-get-weather) space "</tool_call>"'
    assert '(space "," space (tool-get-weather))*' in str(grammar.a)
    assert not changed.template_changes  # route, caps and analysis are the template's
    assert changed.request_after.parallel_tool_calls is False
    assert FIXTURES_NOTE in changed.notes  # the fixtures keep their own request, and say so


def test_the_triage_runs_under_each_sides_request() -> None:
    session = chatml()
    request = tool_request(session)
    reply = "<think>\nweather\n</think>\n\nIt is sunny."
    changed = what_changed(session, session, request, reply, change=RequestChange(reasoning_format="none"),
                           fixtures=False)
    # reasoning_format none: llama.cpp does not split the reply, the think block stays in content
    assert changed.triage_before.message.reasoning_content.strip() == "weather"
    assert changed.triage_after.message.reasoning_content == ""
    assert "<think>" in changed.triage_after.message.content


def test_overrides_and_a_request_change_together() -> None:
    session = chatml()
    whatif = WhatIf(change=RequestChange(enable_thinking=False)).with_setting(
        WhatIf.setting("tools.format.per_call_start", '"<call>\\n"'))
    modified = whatif.apply(session)
    changed = what_changed(session, modified, tool_request(session), change=whatif.change, fixtures=False)
    names = {c.field for c in changed.changed}
    assert "autoparser.tools.format.per_call_start" in names and "params.generation_prompt" in names


@pytest.mark.parametrize("body, message", [
    ([1], "expected a JSON object"),
    ({"chat_template_kwargs": [1]}, "chat_template_kwargs: expected a JSON object"),
    ({"chat_template_kwargs": {"x": {"y": 1}}}, "expected a string, number or boolean"),
    ({"chat_template_kwargs": {"enable_thinking": "yes"}}, "enable_thinking: expected true or false"),
    ({"reasoning_format": "loud"}, "reasoning_format: expected one of"),
    ({"parallel_tool_calls": 1}, "parallel_tool_calls: expected true or false"),
    ({"tools": []}, "unknown field(s) 'tools'"),
])
def test_a_bad_request_change_body_is_a_request_error(body: object, message: str) -> None:
    with pytest.raises(RequestError, match=message.replace("(", r"\(").replace(")", r"\)")):
        RequestChange.from_json(body)


def test_a_request_change_reads_back_from_its_json_as_llama_server_reads_the_body() -> None:
    change = RequestChange(enable_thinking=False, chat_template_kwargs=(("reasoning_effort", "high"),),
                           reasoning_format="none", parallel_tool_calls=False)
    assert RequestChange.from_json(change.to_json()) == change
    # llama-server takes enable_thinking from chat_template_kwargs: so does the change
    assert RequestChange.from_json({"chat_template_kwargs": {"enable_thinking": False}}) == RequestChange(
        enable_thinking=False)
    assert RequestChange.from_json({}).empty


def test_a_tool_order_reorders_the_tools_the_template_renders_and_the_round_trip_uses_it() -> None:
    session = chatml()
    tools = list(DEFAULT_TOOLS)
    names = [t["function"]["name"] for t in tools]
    order = tuple(reversed(names))
    change = RequestChange(tool_order=order)
    request = session.request(tools=tools)
    reordered = change.apply(request)
    assert [t["function"]["name"] for t in reordered.tools] == list(order)
    # the prompt is what jinja2 renders for the tools in that order (the template loops over them)
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    env.filters["tojson"] = lambda v: json.dumps(v, ensure_ascii=False)
    expected = env.from_string(session.text).render(messages=[{"role": "user", "content": "Hello"}],
                                                    tools=[tools[names.index(n)] for n in order],
                                                    add_generation_prompt=True)
    assert session.params(reordered).prompt == expected
    # the round trip under the change renders and parses with the tools in that order
    report = session.roundtrip(True, grammar=False, change=change)
    prompt = report.cases[0].prompt
    assert prompt.index(f'"name": "{order[0]}"') < prompt.index(f'"name": "{order[-1]}"')
    # tools it does not name keep their order, after the named ones
    partial = RequestChange(tool_order=(names[-1],)).apply(request)
    assert [t["function"]["name"] for t in partial.tools] == [names[-1], *names[:-1]]
    assert RequestChange.from_json(change.to_json()) == change and "tool order" in change.describe()


def test_a_tool_order_must_be_an_order_of_the_requests_tools() -> None:
    session = chatml()
    request = session.request(tools=list(DEFAULT_TOOLS))
    RequestChange(tool_order=("search", "create_event", "get_weather")).check(request)
    with pytest.raises(RequestError, match="tool order: expected an order of the request's tools"):
        RequestChange(tool_order=("search", "nope")).check(request)
    with pytest.raises(RequestError, match="tool_order: expected a JSON list of distinct tool names"):
        RequestChange.from_json({"tool_order": ["a", "a"]})
