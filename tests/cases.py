"""Our own templates, analyses and request helpers that tests of several stages share.

Input: nothing. Output: constants (templates we wrote, hand-written analyses in the
oracle's JSON shape, tools) and small helpers that build a route's params. Each stage's
tests import what they need from here (``from cases import ...``) instead of from each
other's modules.
"""

from __future__ import annotations

import json
import re
from typing import Any

from explorer.analysis.model import TemplateAnalysis
from explorer.apply.messages import tools_to_template_json
from explorer.generator import GenerationParams, generate_params
from explorer.generator.params import GeneratedParams
from explorer.handlers import handler_named

# --- hand-written analyses (generator) -------------------------------------------------

WEATHER = [{"type": "function", "function": {
    "name": "get_weather", "description": "Weather.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                   "required": ["city"]}}}]

# Hand-written analyses (the oracle's JSON shape) for formats we know by heart.
HERMES = {
    "jinja_caps": {"supports_tool_calls": True},
    "reasoning": {"mode": "TAG_BASED", "start": "<think>", "end": "</think>"},
    "content": {"mode": "PLAIN", "start": "", "end": "", "requires_nonnull_content": False},
    "tools": {
        "format": {"mode": "JSON_NATIVE", "section_start": "<tool_call>", "section_end": "</tool_call>",
                   "per_call_start": "", "per_call_end": "", "fun_name_is_key": False,
                   "tools_array_wrapped": False, "openai_wrapper_trigger": False, "function_field": "function",
                   "name_field": "name", "args_field": "arguments", "id_field": "", "gen_id_field": "",
                   "parameter_order": []},
        "function": {"name_prefix": "", "name_suffix": "", "args_separator": "", "close": ""},
        "arguments": {"start": "", "end": "", "name_prefix": "", "name_suffix": "", "value_prefix": "",
                      "value_suffix": "", "separator": "", "tolerate_intertag_whitespace": False},
        "call_id": {"pos": "NONE", "prefix": "", "suffix": ""},
    },
    "preserved_tokens": ["<think>", "</think>", "<tool_call>", "</tool_call>"],
    "additional_stops": [],
    "analysis_complete": True,
}


def tagged_spec() -> dict:
    spec = json.loads(json.dumps(HERMES))
    spec["tools"]["format"].update(mode="TAG_WITH_TAGGED", section_start="", section_end="",
                                   per_call_start="<tool_call>", per_call_end="</tool_call>")
    spec["tools"]["function"].update(name_prefix="<function=", name_suffix=">", close="</function>")
    spec["tools"]["arguments"].update(name_prefix="<parameter=", name_suffix=">", value_prefix="\n",
                                      value_suffix="\n</parameter>")
    return spec


# --- templates we wrote -------------------------------------------------------------

# Qwen3-Coder style: tagged function and parameters, one <tool_call> per call.
TAGGED = (
    "{% for m in messages %}<|im_start|>{{ m.role }}\n"
    "{% if m.tool_calls %}{% for tc in m.tool_calls %}<tool_call>\n<function={{ tc.function.name }}>\n"
    "{% for k, v in tc.function.arguments.items() %}<parameter={{ k }}>\n{{ v }}\n</parameter>\n"
    "{% endfor %}</function>\n</tool_call>{% endfor %}{% else %}{{ m.content }}{% endif %}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

# ChatML turns, JSON tool calls in <tool_call> tags (the dialect round-trip templates)

TOOLS_HEADER = (
    "{%- if tools %}{{- '<|im_start|>system\\nTools:' }}"
    "{%- for tool in tools %}{{- '\\n' + (tool | tojson) }}{%- endfor %}"
    "EXTRA"
    "{{- '\\nCall a tool as <tool_call>\\n{\"name\": \"tool_name\", \"arguments\": {\"key\": \"value\"}}"
    "\\n</tool_call><|im_end|>\\n' }}{%- endif %}\n"
)
TURNS = """{%- for message in messages %}
{%- if message.role == 'user' %}{{- '<|im_start|>user\\n' + message.content + '<|im_end|>\\n' }}
{%- elif message.role == 'assistant' %}{{- '<|im_start|>assistant\\n' }}
{%- if message.content %}{{- message.content }}{%- endif %}
{%- for tool_call in message.tool_calls or [] %}{%- set call = tool_call.function %}
CALL
{%- endfor %}
{{- '<|im_end|>\\n' }}
{%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"""
OPEN = "{{- '<tool_call>\\n{\"name\": \"' + call.name + '\", \"arguments\": ' }}"
CLOSE = "{{- '}\\n</tool_call>' }}"
ARGS_EXPR = "{%- if call.arguments is string %}{{- call.arguments }}{%- else %}{{- call.arguments | TOJSON }}{%- endif %}"
CALLS = {
    "tojson": OPEN + ARGS_EXPR.replace("TOJSON", "tojson") + CLOSE,
    "compact": OPEN + ARGS_EXPR.replace("TOJSON", "tojson(separators=(',', ':'))") + CLOSE,
    # docs item 5: '...' | safe is Markup in jinja2, and Markup + str escapes the str
    "safe": ("{{- ('<tool_call>\\n{\"name\": \"' + call.name + '\", \"arguments\": ') | safe"
             " + (call.arguments if call.arguments is string else call.arguments | tojson) }}" + CLOSE),
    # docs item 11: list.append is a SecurityError in transformers' immutable sandbox
    "append": "{%- set seen = [] %}{%- set _ = seen.append(call.name) %}" + OPEN + ARGS_EXPR.replace("TOJSON", "tojson")
              + CLOSE,
}


def dialect_template(call: str = "tojson", *, extra: str = "", prelude: str = "") -> str:
    return prelude + TOOLS_HEADER.replace("EXTRA", extra) + TURNS.replace("CALL", CALLS[call])


# --- harmony and Functionary v3.2 in miniature (triage patterns) ---------------------

GPT_OSS_MINI = (
    "{%- for m in messages %}"
    "{%- if m.role == 'assistant' and m.tool_calls %}{%- for tc in m.tool_calls %}"
    "<|start|>assistant to=functions.{{ tc.function.name }}<|channel|>commentary json<|message|>"
    "{{ tc.function.arguments | tojson }}<|call|>{%- endfor %}"
    "{%- elif m.role == 'assistant' %}<|start|>assistant<|channel|>final<|message|>{{ m.content }}<|end|>"
    "{%- else %}<|start|>{{ m.role }}<|message|>{{ m.content }}<|end|>{%- endif %}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}<|start|>assistant{%- endif %}")
FUNCTIONARY_MINI = (
    "{#- a recipient is written >>>${recipient}, content >>>all -#}"
    "{%- for m in messages %}<|start_header_id|>{{ m.role }}<|end_header_id|>\n\n"
    "{%- if m.role == 'assistant' %}{%- if m.tool_calls %}{%- for tc in m.tool_calls %}>>>{{ tc.function.name }}\n"
    "{{ tc.function.arguments | tojson }}{%- endfor %}{%- else %}>>>all\n{{ m.content }}{%- endif %}"
    "{%- else %}{{ m.content }}{%- endif %}<|eot_id|>{%- endfor %}"
    "{%- if add_generation_prompt %}<|start_header_id|>assistant<|end_header_id|>\n\n>>>{%- endif %}")

# Llama 3.2's shape with Python-style calls (our own): a header per turn, the calls as
# ``[get_weather(city="Paris")]`` after the assistant header, ``<|eot_id|>`` ending each turn
LLAMA32_PYTHONIC = (
    "{{- bos_token }}<|start_header_id|>system<|end_header_id|>\n\n"
    "{%- if tools %}{{- 'Call a function by replying [name(arg=value)]. Functions:\n' }}"
    "{%- for t in tools %}{{- t | tojson }}{{- '\n' }}{%- endfor %}{%- endif %}<|eot_id|>"
    "{%- for m in messages %}"
    "{%- if m.role == 'assistant' and m.tool_calls %}<|start_header_id|>assistant<|end_header_id|>\n\n["
    "{%- for tc in m.tool_calls %}{{- tc.function.name + '(' }}"
    "{%- for k, v in tc.function.arguments | items %}{{- k + '=' + v | tojson }}"
    "{%- if not loop.last %}, {% endif %}{%- endfor %}){%- if not loop.last %}, {% endif %}{%- endfor %}"
    "]<|eot_id|>"
    "{%- else %}<|start_header_id|>{{ m.role }}<|end_header_id|>\n\n{{ m.content }}<|eot_id|>{%- endif %}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}<|start_header_id|>assistant<|end_header_id|>\n\n{%- endif %}")
PYTHONIC_CALL = '[get_weather(city="Paris")]'  # how LLAMA32_PYTHONIC renders the call

ARGS = '{"city": "Paris"}'
# the mini template's rendering of a call, after the generation prompt "<|start|>assistant"
GPT_CALL = f" to=functions.get_weather<|channel|>commentary json<|message|>{ARGS}<|call|>"
FN_CALL = f"get_weather\n{ARGS}"  # after the generation prompt's ">>>"


# --- route params -------------------------------------------------------------------

def handler_params(handler: str, source: str = "", *, tools: list | None = None, tool_choice: str = "auto",
                   parallel_tool_calls: bool = True, reasoning_format: str = "deepseek",
                   json_schema: dict | None = None, generation_prompt: str = "",
                   enable_thinking: bool = True) -> GeneratedParams:
    """One specialised handler's params for a request, tools normalised as the apply stage does."""
    normalised = tools_to_template_json(tools)
    return handler_named(handler).params(GenerationParams(
        source=source, tools=tuple(normalised) if normalised else None, tool_choice=tool_choice,
        parallel_tool_calls=parallel_tool_calls, reasoning_format=reasoning_format, enable_thinking=enable_thinking,
        json_schema=json_schema, generation_prompt=generation_prompt))


def route_params(handler: str, spec: TemplateAnalysis | None, source: str, **request) -> Any:
    """The params llama.cpp builds on a route: the autoparser's from its analysis, or the handler's."""
    if handler == "autoparser":
        return generate_params(spec, GenerationParams(**request))
    return handler_params(handler, source, **request)




def assert_one_place(d: Any) -> None:
    """Every finding of a ``Diagnosis`` gives one place: ``found`` is the output at its span
    (or a cut of it, marked, or END_OF_OUTPUT at the end), ``place`` is the span, and every
    position its summary names is that place's (the statement audit's ``found`` invariant)."""
    from explorer.triage.audit import audit_found

    bad = [str(v) for v in audit_found(d)]
    assert not bad, bad


def remarks(d: Any) -> tuple[Any, ...]:
    """A diagnosis' findings other than the lazy grammar's wake-up note (the info a clean
    call gets: where the grammar woke and that it accepts the output)."""
    return tuple(f for f in d.findings if not (f.check == "grammar-trigger" and f.severity == "info"))


# --- triage: a tool, a Qwen3-Coder call of it, and finding lookups ------------------------

WEATHER_CITY = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
QWEN_CALL = "<tool_call>\n<function=get_weather>\n<parameter=city>\n{city}\n</parameter>\n</function>\n</tool_call>"


def only(d: Any, check: str) -> Any:
    """The one finding of ``check`` (the assertion lists every finding when there is not one)."""
    found = d.by_check(check)
    assert len(found) == 1, [(f.check, f.severity, f.summary) for f in d.findings]
    return found[0]


def checks_of(d: Any) -> set[str]:
    return {f.check for f in d.findings}


# --- triage: the headline sentence -------------------------------------------------------------

FIX_WORDS = {"model": "the fix belongs to the model (or its prompt).", "request": "the fix belongs to the request.",
             "template": "the fix belongs to the chat template.", "llama.cpp": "the fix belongs to llama.cpp."}


def assert_headline(d: Any, *, wrote: str | None = None, expects: str | None = None, fix: str | None = None,
                    at: int | None = None, says: tuple[str, ...] = ()) -> str:
    """The diagnosis opens with one sentence that names what the model wrote (``wrote``, quoted,
    whole or cut and marked), what llama.cpp expected there, llama-server's position of ``at``
    (an output character: its llama.cpp offset and older builds' pos) and where the fix belongs;
    ``says``: more words it holds. Returns the headline."""
    import json as _json

    from explorer.triage.model import Place

    h = d.headline
    bare = re.sub(r'"(?:[^"\\]|\\.)*"', '""', h)
    assert h.endswith(".") and not re.search(r"[.;] [A-Z]", bare[:-1].replace("e.g. ", "")), h  # one sentence
    if wrote is not None:
        quoted = _json.dumps(wrote, ensure_ascii=False)
        assert quoted in h or _json.dumps(wrote[:40] + "…", ensure_ascii=False) in h, (wrote, h)
        assert h.startswith("The model wrote "), h
    if expects is not None:
        assert f"llama.cpp expects {expects}" in h, (expects, h)
    if fix is not None:
        assert h.endswith(FIX_WORDS[fix]), (fix, h)
    if at is not None:
        p = Place.of(d.output, d.generation_prompt, at)
        assert f"llama.cpp offset {p.llama_offset} (older builds' pos {p.pos})" in h, (at, h)
    for words in says:
        assert words in h, (words, h)
    return h


def check_headline(d: Any) -> None:
    """Every diagnosis's headline against its lead finding: one sentence; a clean parse says
    so; otherwise it ends with where the lead's fix belongs and, for a lead with a place,
    names llama-server's numbers of it and quotes what the model wrote there."""
    import json as _json

    from explorer.triage.model import END_OF_OUTPUT

    h = d.headline
    bare = re.sub(r'"(?:[^"\\]|\\.)*"', '""', h)
    assert h.endswith(".") and not re.search(r"[.;] [A-Z]", bare[:-1].replace("e.g. ", "")), h
    lead = d.lead
    if lead is None:
        assert h.endswith("no check found anything wrong."), h
        return
    assert h.endswith(FIX_WORDS[lead.fix_where]), (lead.fix_where, h)
    if lead.span is not None and lead.place is not None and (lead.found or lead.expected):
        p = lead.place
        assert f"llama.cpp offset {p.llama_offset} (older builds' pos {p.pos})" in h, h
        wrote = d.output[lead.span[0]:lead.span[1]]
        if wrote and lead.found != END_OF_OUTPUT:
            quoted = _json.dumps(wrote, ensure_ascii=False)
            assert quoted in h or _json.dumps(wrote[:40] + "…", ensure_ascii=False) in h, h
