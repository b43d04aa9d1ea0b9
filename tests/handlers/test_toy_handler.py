"""Adding a handler is one class and one line in the registry (docs/architecture.md, "A
new specialised handler"): a toy handler, declared here with its routing rule, parser,
grammar policy and output mapper, and added to ``HANDLER_CLASSES`` for the
test only, is routed to, builds params, parses through its own mapper, and is explained
by the triage, with nothing else in ``explorer`` touched."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from explorer.generator.chat_builder import ChatPeg
from explorer.generator.spec import GenerationParams
from explorer.grammar.gbnf import tool_parameters
from explorer.handlers import registry
from explorer.handlers.base import Handler, include_tools, lazy_tools_auto, word
from explorer.handlers.prompting import ContentOnlyTurn
from explorer.peg import chat_mappers
from explorer.peg.chat_mappers import GenericMapper, MessageDraft
from explorer.session import TemplateSession, forget_sessions

OPEN, CLOSE = "<<toy>>", "<</toy>>"
# a template of our own whose system turn names the toy call markup
TEMPLATE = (
    "{%- if tools %}<|im_start|>system\nCall a tool as " + OPEN + '{"name": NAME, "arguments": ARGS}' + CLOSE
    + "\nTools: {{ tools | tojson }}<|im_end|>\n{% endif %}"
    "{%- for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    "{%- if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
CALL = OPEN + '{"name": "get_weather", "arguments": {"city": "Paris"}}' + CLOSE


def build(p: ChatPeg, i: GenerationParams) -> int:
    """``prompt`` then content, then at most one call ``<<toy>>{"name": .., "arguments": ..}<</toy>>``."""
    if not i.wants_tools:
        return p.cat(lambda: p.literal(i.generation_prompt), p.content(p.rest()))
    calls = p.choice()
    for tool in i.tools or ():
        fn = tool["function"]
        name = fn["name"]
        tool_name = p.json_member("name", p.cat('"', lambda name=name: p.tool_name(p.literal(name)), '"'))
        tool_args = p.json_member("arguments", p.tool_args(p.schema(p.json(), f"tool-{name}-schema",
                                                                    tool_parameters(fn))))
        tool_open = p.tool_open(p.shl(lambda: p.literal(OPEN + "{"), tool_name))
        tool_close = p.tool_close(p.literal("}" + CLOSE))
        calls = p.choice([calls, p.rule(f"tool-{name}", p.shl(tool_open, ",", tool_args, tool_close))])
    call = p.trigger_rule("tool-call", p.repeat(calls, 1 if i.required else 0, 1))
    return p.cat(lambda: p.literal(i.generation_prompt), p.shl(lambda: p.content(p.until(OPEN)), call))


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> Iterator[type[Handler]]:
    """The toy handler, in the registry while the test runs (its mapper too)."""
    monkeypatch.setattr(chat_mappers, "MAPPER_BY_FORMAT", dict(chat_mappers.MAPPER_BY_FORMAT))

    class ToyMapper(GenericMapper):
        """The generic mapping, then each call numbered ``toy-N``: a mapper of the toy's own."""

        format = "peg-toy"

        def run(self, nodes: tuple) -> MessageDraft:
            msg = super().run(nodes)
            for n, call in enumerate(msg.tool_calls):
                call.id = f"toy-{n}"
            return msg

    class Toy(Handler):
        name = "toy"
        required = (OPEN, CLOSE)
        note = "a toy handler of the tests"

        supports_thinking = False
        continuation = ContentOnlyTurn("<|im_start|>assistant\n")

        build = staticmethod(build)
        include = staticmethod(include_tools)
        lazy = staticmethod(lazy_tools_auto)
        triggers = (word(OPEN),)
        mapper = ToyMapper
        preserved_tokens = (OPEN, CLOSE)
        reference = "tests/handlers/test_toy_handler.py"

    monkeypatch.setattr(registry, "HANDLER_CLASSES", (*registry.HANDLER_CLASSES, Toy))  # the one registry line
    forget_sessions()
    yield Toy
    forget_sessions()


def test_a_toy_handler_routes_builds_parses_and_is_explained(toy: type[Handler]) -> None:
    session = TemplateSession(TEMPLATE)
    assert session.handler == "toy" and session.routing.specialized
    assert [e.needle for e in session.routing.evidence] == [OPEN, CLOSE]
    request = session.request(tools=[WEATHER])
    params = session.params(request)
    assert (params.handler, params.format) == ("toy", "peg-toy")
    assert params.why.startswith("toy: ")
    assert params.grammar_lazy and [t.value for t in params.grammar_triggers] == [OPEN]
    assert params.preserved_tokens == (OPEN, CLOSE) and params.supports_thinking is False
    assert "get_weather" in params.grammar
    # parsed through the toy's own mapper (it numbers the calls)
    parsed = session.parse("Let me look. " + CALL, request)
    assert parsed.error is None and parsed.message is not None
    assert parsed.message.content == "Let me look. "
    assert [(c.name, json.loads(c.arguments), c.id) for c in parsed.message.tool_calls] == [
        ("get_weather", {"city": "Paris"}, "toy-0")]
    # the triage reads the toy's parser: a near miss of its opener is the cause
    near_miss = CALL.replace(OPEN, "<< toy>>")
    diagnosis = session.diagnose(near_miss, request)
    assert diagnosis.message is not None and diagnosis.message.tool_calls == ()
    found = next((f for f in diagnosis.findings if f.check == "opener-near-miss"), None)
    assert found is not None, [f.to_json() for f in diagnosis.findings]
    assert found.severity == "cause" and (found.found, found.expected) == ("<< toy>>", OPEN)
    assert found.span == (0, len("<< toy>>"))
    # the comparison with the autoparser works for it as for any handler
    assert session.compare_routes(request).routed


def test_the_toy_leaves_nothing_behind() -> None:
    """Outside the fixture the registry and the mappers are llama.cpp's again."""
    assert "toy" not in registry.route_names()
    assert "peg-toy" not in chat_mappers.MAPPER_BY_FORMAT
    assert TemplateSession(TEMPLATE).handler == "autoparser"
