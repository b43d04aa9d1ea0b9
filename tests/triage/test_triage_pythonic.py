"""pythonic-call says how the template itself writes a call, never a guess ("as JSON").

Our own Llama-3.2-style template (``cases.LLAMA32_PYTHONIC``) renders a call as
``[get_weather(city="Paris")]``; the autoparser misreads it, so the template's own call
fails to parse: the finding must say the template writes calls that way too and that the
fix is llama.cpp's. On a JSON template (chatml-think-tools) the finding shows the
template's own call (with a session) or the parser's opener (without one).
"""

from __future__ import annotations

from cases import LLAMA32_PYTHONIC, PYTHONIC_CALL, assert_headline
from explorer.apply import Request
from explorer.apply.pipeline import apply_template
from explorer.session import open_session
from explorer.sources import from_example, from_text
from explorer.triage import diagnose
from explorer.triage.model import shown

WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
REQUEST = Request(messages=({"role": "user", "content": "hi"},), tools=(WEATHER,))


def test_a_python_style_template_is_described_as_it_renders_calls():
    session = open_session(from_text(LLAMA32_PYTHONIC))
    assert PYTHONIC_CALL in (session.sample_reply("call", REQUEST) or "")  # the template's own call
    d = session.diagnose(PYTHONIC_CALL, REQUEST)
    (f,) = d.by_check("pythonic-call")
    assert "JSON" not in f.summary
    assert "how this template writes calls too" in f.summary and shown(PYTHONIC_CALL) in f.summary
    assert f.expected == PYTHONIC_CALL and f.found.startswith("get_weather(")
    assert f.fix_where == "llama.cpp" and f.quirk and f.llama_cpp.startswith("autoparser")
    assert f.rule
    # the template's own call fails: the headline tells the template's misreading first
    assert_headline(d, fix="llama.cpp", says=("llama.cpp's autoparser misread this template",))


def test_a_json_template_shows_its_own_call_or_the_parsers_opener():
    source = from_example("chatml-think-tools")
    output = "get_weather(city='Paris')"
    d = open_session(source).diagnose(output, REQUEST)
    (f,) = d.by_check("pythonic-call")
    assert "its own rendering of a call" in f.summary and '<tool_call>' in f.expected
    assert_headline(d, wrote=output, fix="model", at=0)
    assert '"name": "get_weather"' in f.expected and f.fix_where == "model"
    bare = diagnose(apply_template(source.text, REQUEST), REQUEST, output)  # no session: the parser's opener
    (g,) = bare.by_check("pythonic-call")
    assert 'starting with "<tool_call>\\n" and JSON arguments' in g.summary and g.expected == "<tool_call>\n"
