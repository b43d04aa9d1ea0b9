"""llama.cpp's own parser vectors for the specialised handlers (tests/test-chat.cpp).

Each vector is a ``peg_tester`` case of llama.cpp's test suite at 0c1e5709, transcribed:
the template of ``models/templates``, the request settings the case sets (peg_tester's
defaults otherwise: one user message "Hey there!", reasoning_format none, thinking on,
no parallel calls, tool_choice auto), the model output, and the message llama.cpp
expects. As in llama.cpp's ``assert_msg_equals``, content and reasoning are compared
stripped and tool arguments as re-serialized JSON. The whole pipeline runs: template ->
``apply_template`` -> parser -> ``ChatParams.parse``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import pytest

from explorer.apply import Request
from explorer.apply.pipeline import apply_template
from oracle_data import ORACLE, requires_oracle

# llama.cpp's models/templates at 0c1e5709, byte for byte (../shared/oracle/README.md)
TEMPLATES = ORACLE / "templates"

pytestmark = requires_oracle


def _tool(name: str, properties: dict, required: list[str] | None = None) -> dict:
    params: dict[str, Any] = {"type": "object", "properties": properties}
    if required is not None:
        params["required"] = required
    return {"type": "function", "function": {"name": name, "description": name, "parameters": params}}


INT = {"type": "integer", "description": "The arg."}
CITY = {"type": "string", "description": "City name"}
TOOLS = {
    "special_function": _tool("special_function", {"arg1": INT}, ["arg1"]),
    "special_function_with_opt": _tool("special_function_with_opt",
                                       {"arg1": INT, "arg2": {"type": "integer"}}, ["arg1"]),
    "empty_args": _tool("empty_args", {}),
    "python": _tool("python", {"code": {"type": "string"}}, ["code"]),
    "html": _tool("html", {"markup": {"type": "string"}}, ["markup"]),
    "get_time": _tool("get_time", {"city": CITY}, ["city"]),
    "get_weather": _tool("get_weather", {"city": CITY}, ["city"]),
    "run_in_terminal": _tool("run_in_terminal", {"command": {"type": "string"}}, ["command"]),
    "magic": _tool("magic", {"name": {"type": "string"}, "ref": {"type": "string"}}, ["name", "ref"]),
}
INVOICE = {"type": "object", "properties": {"amount": {"type": "number"}, "date": {"type": "string"}}}
INVOICE_JSON = '{"amount": 123.45, "date": "2025-12-03"}'


@dataclass(frozen=True)
class Vector:
    template: str
    output: str
    content: str = ""
    reasoning: str = ""
    calls: tuple[tuple[str, str, str], ...] = ()  # name, arguments JSON, id
    tools: tuple[str, ...] = ()
    reasoning_format: str = "none"
    thinking: bool = True
    parallel: bool = False
    tool_choice: str = "auto"
    json_schema: dict | None = None
    partial: bool = False
    prefill: dict | None = None  # an assistant message to continue
    continuation: str = "none"  # continue_final_message

    @property
    def label(self) -> str:
        return f"{self.template.removesuffix('.jinja')}: {self.output[:50]!r}"


HELLO = "Hello, world!\nWhat's up?"
THINK = "I'm\nthinking"
CALL1 = (("special_function", '{"arg1": 1}', ""),)
MINISTRAL = "mistralai-Ministral-3-14B-Reasoning-2512.jinja"
COHERE = "Cohere2MoE.jinja"
GEMMA = "google-gemma-4-31B-it.jinja"
QCODER = "Qwen3-Coder.jinja"
DSV32 = "deepseek-ai-DeepSeek-V3.2.jinja"
LING = "inclusionai-ling-3.0-flash.jinja"
K3 = "Kimi-K3.jinja"
K2T = "Kimi-K2-Thinking.jinja"
LFM = "LFM2.5-8B-A1B.jinja"
MM3 = "MiniMax-M3.jinja"
FUNC = "meetkai-functionary-medium-v3.2.jinja"
MUSE = "muse-glimmer.jinja"
GPT = "openai-gpt-oss-120b.jinja"
GIGA = "GigaChat3-10B-A1.8B.jinja"
CPM = "openbmb-MiniCPM5-1B.jinja"
Q35 = "Qwen3.5-4B.jinja"
STEP = "StepFun3.5-Flash.jinja"
GCALL = '<|tool_call>call:get_time{city:<|"|>%s<|"|>}<tool_call|>'
LING_CALL = "<tool_call>get_time\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>"
MUSE_CALL = ('<atem:function_calls>\n<atem:invoke name="special_function">\n'
             '<atem:parameter name="arg1">1</atem:parameter>\n</atem:invoke>\n</atem:function_calls>')
MM = "]<]minimax[>["
XML_CALL = ("<tool_call>\n<function=special_function>\n<parameter=arg1>\n1\n</parameter>\n</function>\n"
            "</tool_call>")

VECTORS = (
    # Ministral 3
    Vector(MINISTRAL, HELLO, HELLO),
    Vector(MINISTRAL, f"[THINK]{THINK}[/THINK]{HELLO}", f"[THINK]{THINK}[/THINK]{HELLO}"),
    Vector(MINISTRAL, f"[THINK]{THINK}[/THINK]{HELLO}", HELLO, THINK, reasoning_format="auto"),
    Vector(MINISTRAL, '[TOOL_CALLS]special_function[ARGS]{"arg1":1}', calls=CALL1, tools=("special_function",),
           reasoning_format="auto"),
    Vector(MINISTRAL, f'[THINK]{THINK}[/THINK][TOOL_CALLS]special_function[ARGS]{{"arg1":1}}', reasoning=THINK,
           calls=CALL1, tools=("special_function",), reasoning_format="auto"),
    Vector(MINISTRAL, '[TOOL_CALLS]special_function[ARGS]{"arg1": 1}'
           '[TOOL_CALLS]special_function_with_opt[ARGS]{"arg1": 1, "arg2": 2}',
           calls=CALL1 + (("special_function_with_opt", '{"arg1": 1, "arg2": 2}', ""),),
           tools=("special_function", "special_function_with_opt"), reasoning_format="auto", parallel=True),
    Vector(MINISTRAL, '[THINK]I need to output the invoice details in JSON[/THINK]```json\n'
           '{"amount": 123.45, "date": "2025-12-03"}\n```', '{"amount": 123.45, "date": "2025-12-03"}',
           "I need to output the invoice details in JSON", reasoning_format="auto", json_schema=INVOICE),
    # Cohere2 MoE
    Vector(COHERE, f"{THINK}<|END_THINKING|><|START_TEXT|>{HELLO}<|END_TEXT|>", HELLO, THINK,
           reasoning_format="deepseek"),
    Vector(COHERE, f"{THINK}<|END_THINKING|><|START_TEXT|>{HELLO}<|END_TEXT|>",
           f"<|START_THINKING|>{THINK}<|END_THINKING|>{HELLO}"),
    Vector(COHERE, f"<|END_THINKING|><|START_TEXT|>{HELLO}<|END_TEXT|>", HELLO, reasoning_format="deepseek"),
    Vector(COHERE, "I need to output the invoice details in JSON<|END_THINKING|><|START_TEXT|>"
           '{"amount": 123.45, "date": "2025-12-03"}<|END_TEXT|>', '{"amount": 123.45, "date": "2025-12-03"}',
           "I need to output the invoice details in JSON", tools=("special_function",),
           reasoning_format="deepseek", json_schema=INVOICE),
    Vector(COHERE, f"{THINK}<|END_THINKING|><|START_ACTION|>[\n"
           '    {"tool_call_id": "0", "tool_name": "special_function", "parameters": {"arg1": 1}}\n]<|END_ACTION|>',
           reasoning=THINK, calls=(("special_function", '{"arg1": 1}', "0"),), tools=("special_function",),
           reasoning_format="deepseek"),
    Vector(COHERE, f"{THINK}<|END_THINKING|><|START_ACTION|>[\n"
           '    {"tool_call_id": "0", "tool_name": "special_function", ', reasoning=THINK,
           calls=(("special_function", "", "0"),), tools=("special_function",), reasoning_format="deepseek",
           partial=True),
    # Gemma 4
    Vector(GEMMA, "Hello, world!", "Hello, world!"),
    Vector(GEMMA, f"<|channel>thought\n{THINK}<channel|>{HELLO}", HELLO, THINK, reasoning_format="auto"),
    Vector(GEMMA, f"<|channel>thought<channel|>{HELLO}", HELLO, reasoning_format="auto"),
    Vector(GEMMA, f"<|channel>thought\n{THINK}<channel|>{HELLO}", f"<|channel>thought\n{THINK}<channel|>{HELLO}"),
    Vector(GEMMA, GCALL % "London", calls=(("get_time", '{"city": "London"}', ""),), tools=("get_time",)),
    Vector(GEMMA, "<|tool_call>call:empty_args{}<tool_call|>", calls=(("empty_args", "{}", ""),),
           tools=("empty_args",)),
    Vector(GEMMA, f"{HELLO}{GCALL % 'Paris'}", HELLO, calls=(("get_time", '{"city": "Paris"}', ""),),
           tools=("get_time",)),
    Vector(GEMMA, GCALL % "Paris", calls=(("get_time", '{"city": "Paris"}', ""),), tools=("get_time",),
           tool_choice="required"),
    Vector(GEMMA, f"<|channel>thought\n{THINK}<channel|>{GCALL % 'Paris'}", reasoning=THINK,
           calls=(("get_time", '{"city": "Paris"}', ""),), tools=("get_time",), tool_choice="required",
           reasoning_format="auto"),
    Vector(GEMMA, GCALL % "London" + '<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|>',
           calls=(("get_time", '{"city": "London"}', ""), ("get_weather", '{"city": "Paris"}', "")),
           tools=("get_time", "get_weather"), parallel=True),
    Vector(GEMMA, "<|tool_call>call:special_function{arg1:42}<tool_call|>",
           calls=(("special_function", '{"arg1": 42}', ""),), tools=("special_function",)),
    # Qwen3-Coder (and the thinking templates of its handler)
    Vector(QCODER, HELLO, HELLO),
    Vector(QCODER, XML_CALL, calls=CALL1, tools=("special_function",)),
    Vector(QCODER, XML_CALL.removeprefix("<tool_call>\n"), calls=CALL1, tools=("special_function",)),
    Vector(QCODER, "Let me call it.\n" + XML_CALL.removeprefix("<tool_call>\n"), "Let me call it.\n",
           calls=CALL1, tools=("special_function",)),
    Vector(Q35, f"{THINK}\n</think>\n\n{HELLO}", HELLO, THINK, reasoning_format="auto"),
    Vector(Q35, f"{THINK}\n</think>\n\n{HELLO}", f"<think>\n{THINK}\n</think>\n\n{HELLO}"),
    Vector(Q35, XML_CALL, calls=CALL1, tools=("special_function",), thinking=False, reasoning_format="auto"),
    Vector(Q35, f"{THINK}\n</think>\n\n{XML_CALL}", reasoning=THINK, calls=CALL1, tools=("special_function",),
           reasoning_format="auto"),
    Vector(STEP, "I was thinking\n</think>\nNow I'm not.", "Now I'm not.", "I was thinking",
           reasoning_format="deepseek"),
    Vector(STEP, "Let me call the magic tool\n</think>\n<tool_call>\n<function=magic>\n<parameter=name>\nfooBar\n"
           "</parameter>\n<parameter=ref>\n5123123\n</parameter>\n</function>\n</tool_call>",
           reasoning="Let me call the magic tool", calls=(("magic", '{"name": "fooBar", "ref": "5123123"}', ""),),
           tools=("magic",), reasoning_format="deepseek"),
    Vector(Q35, 'I need to output the invoice details in JSON\n</think>\n\n{"amount": 123.45, "date": "2025-12-03"}',
           INVOICE_JSON, "I need to output the invoice details in JSON", reasoning_format="auto", json_schema=INVOICE),
    Vector(Q35, "</think>\n\nLet me inspect the current directory.\n<tool_call>\n<function=run_in_terminal>\n"
           "<parameter=command>\npwd\n</parameter>\n</function>\n</tool_call>",
           "Let me inspect the current directory.\n", calls=(("run_in_terminal", '{"command": "pwd"}', ""),),
           tools=("run_in_terminal",), tool_choice="required", reasoning_format="auto"),
    Vector("NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.jinja",
           f'I need to output the invoice details in JSON\n</think>\n{INVOICE_JSON}', INVOICE_JSON,
           "I need to output the invoice details in JSON", reasoning_format="auto", json_schema=INVOICE),
    # DeepSeek V3.2
    Vector(DSV32, HELLO, HELLO, thinking=False, reasoning_format="deepseek"),
    Vector(DSV32, f"{THINK}</think>{HELLO}", HELLO, THINK, reasoning_format="deepseek"),
    Vector(DSV32, "Let me check the time</think>\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_time\">\n"
           "<｜DSML｜parameter name=\"city\" string=\"true\">Tokyo</｜DSML｜parameter>\n</｜DSML｜invoke>\n"
           "</｜DSML｜function_calls>", reasoning="Let me check the time",
           calls=(("get_time", '{"city": "Tokyo"}', ""),), tools=("get_time",), reasoning_format="deepseek"),
    Vector(DSV32, "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"special_function\">\n"
           "<｜DSML｜parameter name=\"arg1\" string=\"false\">1</｜DSML｜parameter>\n</｜DSML｜invoke>\n"
           "</｜DSML｜function_calls>", calls=CALL1, tools=("special_function",), thinking=False,
           reasoning_format="deepseek"),
    # Ling 3.0
    Vector(LING, "I need to check the time first.\n" + LING_CALL, reasoning="I need to check the time first.\n",
           calls=(("get_time", '{"city": "Paris"}', ""),), tools=("get_time",), reasoning_format="deepseek"),
    Vector(LING, "Let me check the time.\n</think>\nChecking it now.\n" + LING_CALL, "Checking it now.\n",
           "Let me check the time.\n", (("get_time", '{"city": "Paris"}', ""),), ("get_time",),
           reasoning_format="deepseek"),
    Vector(LING, LING_CALL + "\nThe time has been checked.", "\nThe time has been checked.",
           calls=(("get_time", '{"city": "Paris"}', ""),), tools=("get_time",), reasoning_format="deepseek"),
    Vector(LING, "</think>\n" + LING_CALL + "\n" + LING_CALL,
           calls=(("get_time", '{"city": "Paris"}', ""),) * 2, tools=("get_time",), reasoning_format="deepseek",
           parallel=True),
    # Kimi K3
    Vector(K3, f"<|open|>response<|sep|>{HELLO}<|close|>response<|sep|><|close|>message<|sep|>", HELLO),
    Vector(K3, "I'm thinking about this<|close|>think<|sep|><|open|>response<|sep|>"
           f"{HELLO}<|close|>response<|sep|><|close|>message<|sep|>", HELLO, "I'm thinking about this",
           reasoning_format="auto"),
    Vector(K3, "I was still thinking when the budget ran out",
           reasoning="I was still thinking when the budget ran out", reasoning_format="auto"),
    Vector(K3, "<|open|>response<|sep|><|close|>response<|sep|><|open|>tools<|sep|>"
           '<|open|>call tool="special_function" index="1"<|sep|>'
           '<|open|>argument key="arg1" type="number"<|sep|>1<|close|>argument<|sep|>'
           "<|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>",
           calls=(("special_function", '{"arg1":1}', ""),), tools=("special_function",)),
    # Kimi K2 Thinking
    Vector(K2T, HELLO, HELLO),
    Vector(K2T, "<|tool_calls_section_begin|><|tool_call_begin|>functions.special_function:0"
           '<|tool_call_argument_begin|>{"arg1": 1}<|tool_call_end|><|tool_calls_section_end|>',
           calls=(("special_function", '{"arg1": 1}', "functions.special_function:0"),),
           tools=("special_function",)),
    Vector(K2T, "<think>I'm thinking about this</think><|tool_calls_section_begin|><|tool_call_begin|>"
           'functions.special_function:0<|tool_call_argument_begin|>{"arg1": 1}<|tool_call_end|>'
           "<|tool_calls_section_end|>", reasoning="I'm thinking about this",
           calls=(("special_function", '{"arg1": 1}', "functions.special_function:0"),),
           tools=("special_function",), reasoning_format="auto"),
    Vector(K2T, "<|tool_calls_section_begin|><|tool_call_begin|>functions.special_function:0"
           '<|tool_call_argument_begin|>{"arg1": 1}<|tool_call_end|><|tool_call_begin|>'
           'functions.special_function_with_opt:1<|tool_call_argument_begin|>{"arg1": 1, "arg2": 2}'
           "<|tool_call_end|><|tool_calls_section_end|>",
           calls=(("special_function", '{"arg1": 1}', "functions.special_function:0"),
                  ("special_function_with_opt", '{"arg1": 1, "arg2": 2}', "functions.special_function_with_opt:1")),
           tools=("special_function", "special_function_with_opt"), reasoning_format="auto", parallel=True),
    Vector(K2T, "<|tool_calls_section_begin|><|tool_call_begin|>functions.special_function:0"
           '<|tool_call_argument_begin|>{"arg1": ', calls=(("special_function", '{"arg1": ',
                                                               "functions.special_function:0"),),
           tools=("special_function",), reasoning_format="auto", partial=True),
    # LFM2.5
    Vector(LFM, f"<think>{THINK}</think><|tool_call_start|>[special_function(arg1=1)]<|tool_call_end|>",
           reasoning=THINK, calls=CALL1, tools=("special_function",), reasoning_format="auto"),
    Vector(LFM, '<think>I need to call a function</think>Let me check the time.<|tool_call_start|>'
           '[get_time(city="Paris")]<|tool_call_end|>', "Let me check the time.", "I need to call a function",
           (("get_time", '{"city":"Paris"}', ""),), ("get_time",), reasoning_format="auto"),
    Vector(LFM, f"<think>{THINK}</think>{HELLO}", HELLO, THINK, thinking=False, reasoning_format="auto"),
    # MiniMax-M3
    Vector(MM3, f"</mm:think>{HELLO}", HELLO, reasoning_format="auto"),
    Vector(MM3, f"<mm:think>{THINK}</mm:think>{HELLO}", HELLO, THINK, reasoning_format="auto"),
    Vector(MM3, f"<mm:think>Let me check the time</mm:think>{MM}<tool_call>\n{MM}<invoke name=\"get_time\">"
           f"{MM}<city>Tokyo{MM}</city>{MM}</invoke>\n{MM}</tool_call>", reasoning="Let me check the time",
           calls=(("get_time", '{"city": "Tokyo"}', ""),), tools=("get_time",), reasoning_format="auto"),
    Vector(MM3, f"</mm:think>{MM}<tool_call>\n{MM}<invoke name=\"special_function\">{MM}<arg1>1{MM}</arg1>"
           f"{MM}</invoke>\n{MM}</tool_call>", calls=CALL1, tools=("special_function",), reasoning_format="auto"),
    # Functionary v3.2
    Vector(FUNC, f"all\n{HELLO}", HELLO),
    Vector(FUNC, 'special_function\n{"arg1": 1}', calls=CALL1, tools=("special_function",)),
    # Muse Glimmer
    Vector(MUSE, f" to=user<|message|>{HELLO}<|eot|>", HELLO, reasoning_format="auto"),
    Vector(MUSE, " to=special_function<|message|>" + MUSE_CALL, calls=CALL1, tools=("special_function",),
           reasoning_format="auto"),
    Vector(MUSE, f" to=user<|message|>{HELLO}<|eom|><|start|>assistant to=special_function<|message|>"
           + MUSE_CALL, HELLO, calls=(("special_function", '{"arg1":1}', ""),), tools=("special_function",),
           reasoning_format="auto"),
    Vector(MUSE, " to=user<|message|>" + INVOICE_JSON, INVOICE_JSON, reasoning_format="auto", json_schema=INVOICE),
    Vector(MUSE, " to=self<|message|>I need to output the invoice details in JSON<|eom|><|start|>assistant to=user"
           "<|message|>" + INVOICE_JSON, INVOICE_JSON, "I need to output the invoice details in JSON",
           reasoning_format="auto", json_schema=INVOICE),
    Vector(MUSE, " to=user<|message|>You invoke it like this:\n" + MUSE_CALL + "<|eot|>",
           "You invoke it like this:\n" + MUSE_CALL, tools=("special_function",), reasoning_format="auto"),
    # GPT-OSS
    Vector(GPT, f"<|channel|>final<|message|>{HELLO}", HELLO),
    Vector(GPT, f"<|channel|>commentary<|message|>{HELLO}", HELLO),
    Vector(GPT, f"<|channel|>analysis<|message|>{THINK}<|end|><|start|>assistant<|channel|>final<|message|>{HELLO}",
           HELLO, THINK, reasoning_format="auto"),
    Vector(GPT, f"<|channel|>analysis<|message|>{THINK}<|end|><|start|>assistant<|channel|>final<|message|>{HELLO}",
           f"<|channel|>analysis<|message|>{THINK}<|end|>{HELLO}"),
    Vector(GPT, f"<|channel|>analysis<|message|>{THINK}", reasoning=THINK, reasoning_format="auto", partial=True),
    Vector(GPT, ' to=functions.special_function<|channel|>analysis<|message|>{"arg1": 1}', calls=CALL1,
           tools=("special_function",), reasoning_format="auto"),
    Vector(GPT, '<|channel|>analysis to=functions.special_function<|message|>{"arg1": 1}', calls=CALL1,
           tools=("special_function",), reasoning_format="auto"),
    Vector(GPT, "<|channel|>analysis<|message|>I need to output the invoice details in JSON<|end|><|start|>assistant"
           "<|channel|>final <|constrain|>json<|message|>" + INVOICE_JSON, INVOICE_JSON,
           "I need to output the invoice details in JSON", reasoning_format="auto", json_schema=INVOICE),
    # GigaChat v3
    Vector(GIGA, HELLO, HELLO),
    Vector(GIGA, '<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": "special_function", "arguments": {"arg1": 1}}',
           calls=CALL1, tools=("special_function",)),
    Vector(GIGA, HELLO + '<|message_sep|>\n\nfunction call<|role_sep|>\n'
           '{"name": "special_function", "arguments": {"arg1": 1}}', HELLO, calls=CALL1, tools=("special_function",)),
    # MiniCPM5
    Vector(CPM, HELLO, HELLO, thinking=False, reasoning_format="auto"),
    Vector(CPM, '<function name="python"><param name="code">print(\'Hello, World!\')</param></function>',
           calls=(("python", '{"code": "print(\'Hello, World!\')"}', ""),), tools=("python",), thinking=False,
           reasoning_format="auto"),
    Vector(CPM, '<function name="empty_args"></function>', calls=(("empty_args", "{}", ""),),
           tools=("empty_args",), thinking=False, reasoning_format="auto"),
    Vector(CPM, '<function name="html"><param name="markup"><![CDATA[<a href="/x">hi</a> </param>]]></param>'
           "</function>", calls=(("html", json.dumps({"markup": '<a href="/x">hi</a> </param>'}), ""),),
           tools=("html",), thinking=False, reasoning_format="auto"),
)


# --- continue_final_message: the prefill is part of the generation prompt the parse sees -----

PREFILL_CONTENT = {"role": "assistant", "content": "Hello, ", "reasoning_content": "I'm thinking"}
PREFILL_REASONING = {"role": "assistant", "content": "", "reasoning_content": "I'm"}
THINKING = "I'm thinking"


def _continued(template: str, reasoning_tail: str | None, fmt: str = "auto", reasoning: str = THINKING) -> tuple:
    """The pair of continuation cases llama.cpp runs for most templates."""
    cases = [Vector(template, "world!\nWhat's up?", HELLO, reasoning if reasoning_tail is not None else "",
                    reasoning_format=fmt, prefill=PREFILL_CONTENT, continuation="content")]
    if reasoning_tail is not None:
        cases.append(Vector(template, f" thinking{reasoning_tail}{HELLO}", HELLO, reasoning, reasoning_format=fmt,
                            prefill=PREFILL_REASONING, continuation="reasoning"))
    return tuple(cases)


CONTINUATIONS = (
    _continued(Q35, "\n</think>\n\n") + _continued(MINISTRAL, "[/THINK]")
    + _continued("NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.jinja", "\n</think>\n") + _continued(GEMMA, "<channel|>")
    + (Vector(QCODER, "world!\nWhat's up?", HELLO, reasoning_format="none", prefill=PREFILL_CONTENT,
              continuation="content"),)
    + _continued(DSV32, "</think>", "deepseek") + _continued("deepseek-ai-DeepSeek-V4.jinja", "</think>", "deepseek")
    + (Vector(LING, "Hello, world!", "Hello, world!", THINKING, reasoning_format="deepseek",
              prefill={"role": "assistant", "content": "", "reasoning_content": THINKING}, continuation="content"),
       Vector(LING, " more</think>Hello, world!", "Hello, world!", "I'm thinking more", reasoning_format="deepseek",
              prefill={"role": "assistant", "content": "", "reasoning_content": THINKING},
              continuation="reasoning"))
    + _continued(K2T, "</think>") + _continued("Kimi-K2-Instruct.jinja", "</think>") + _continued(LFM, "</think>")
    + _continued(MM3, "</mm:think>")
    + (Vector(FUNC, "world!\nWhat's up?", HELLO, reasoning_format="none", prefill=PREFILL_CONTENT,
              continuation="content"),)
    + _continued(GPT, "<|end|><|start|>assistant<|channel|>final<|message|>")
    + _continued(STEP, "\n</think>\n", "deepseek")
    + tuple(Vector(t, "world!\nWhat's up?", HELLO, reasoning_format="none", prefill=PREFILL_CONTENT,
                   continuation="content") for t in (GIGA, "GigaChat3.1-10B-A1.8B.jinja"))
    + (Vector(CPM, f" thinking</think>{HELLO}", HELLO, THINKING, reasoning_format="auto", prefill=PREFILL_REASONING,
              continuation="reasoning"),)
)


def _apply(v: Vector) -> Any:
    user = {"role": "user", "content": "Hey there!"}
    request = Request(
        messages=(user,) if v.prefill is None else (user, v.prefill),
        add_generation_prompt=v.prefill is None,
        continue_final_message=v.continuation,
        tools=tuple(TOOLS[t] for t in v.tools) or None,
        tool_choice=v.tool_choice,
        parallel_tool_calls=v.parallel,
        enable_thinking=v.thinking,
        reasoning_format=v.reasoning_format,
        json_schema=v.json_schema,
    )
    return apply_template((TEMPLATES / v.template).read_text(encoding="utf-8"), request)


def _run(v: Vector) -> Any:
    params = _apply(v)
    return params, params.parse(v.output, is_partial=v.partial)


def _normal(args: str) -> str:
    try:
        return json.dumps(json.loads(args), separators=(",", ":"))
    except json.JSONDecodeError:
        return ""  # llama.cpp ignores partial JSON when comparing


def test_every_template_the_vectors_name_is_in_the_oracle() -> None:
    named = {v.template for v in VECTORS + CONTINUATIONS}
    assert len(named) == 21
    assert sorted(t for t in named if not (TEMPLATES / t).is_file()) == []


@pytest.mark.parametrize("vector", VECTORS, ids=[v.label for v in VECTORS])
def test_llama_cpp_vector(vector: Vector) -> None:
    params, msg = _check(vector)
    assert params.handler != "autoparser", f"{vector.template} must route to a specialised handler"


@pytest.mark.parametrize("vector", CONTINUATIONS, ids=[f"{v.continuation}-{v.label}" for v in CONTINUATIONS])
def test_llama_cpp_continuation_vector(vector: Vector) -> None:
    params, _ = _check(vector)
    assert params.prompt.endswith(params.generation_prompt)


def _check(vector: Vector) -> Any:
    params, msg = _run(vector)
    assert msg.content.strip() == vector.content.strip()
    assert msg.reasoning_content.strip() == vector.reasoning.strip()
    assert [(c.name, _normal(c.arguments), c.id) for c in msg.tool_calls] == \
        [(n, _normal(a), i) for n, a, i in vector.calls]
    return params, msg


def test_a_response_format_is_enforced_by_an_eager_grammar() -> None:
    """llama.cpp's peg_tester: json_schema set -> a grammar, and not a lazy one."""
    for v in VECTORS:
        if v.json_schema is None:
            continue
        params, _ = _run(v)
        assert params.grammar and not params.grammar_lazy, v.label


def test_every_specialised_handler_is_exercised() -> None:
    from explorer.handlers import HANDLER_CLASSES

    seen = set()
    for template in {v.template for v in VECTORS}:
        seen.add(_apply(Vector(template, "x")).handler)
    # the outdated Gemma 4 template and LFM2 (not 2.5) have no vectors in llama.cpp's suite
    missing = {cls.name for cls in HANDLER_CLASSES} - seen - {"gemma4(outdated-template-workarounds)", "lfm2"}
    assert not missing, f"handlers without a llama.cpp vector: {sorted(missing)}"


# --- the grammar accepts what the parser accepts (llama.cpp's test_peg_parser grammar check) ---


def _trigger_pos(params: Any, full: str, expects_calls: bool) -> int | None:
    """Where llama.cpp's test finds the earliest trigger in generation prompt + output."""
    triggers = params.grammar_triggers
    if params.grammar_lazy and params.thinking_end_tags and all(t.type == "WORD" for t in triggers):
        # the reasoning-budget sampler: no triggers inside thinking blocks
        start, ends = params.thinking_start_tag, params.thinking_end_tags
        thinking, i = False, 0
        while i < len(full):
            if not thinking and start and full.startswith(start, i):
                thinking, i = True, i + len(start)
                continue
            if thinking:
                end = next((e for e in ends if full.startswith(e, i)), None)
                thinking, i = (False, i + len(end)) if end else (True, i + 1)
                continue
            if any(full.startswith(t.value, i) for t in triggers):
                return i
            i += 1
        if not expects_calls:
            return None
        # calls nested in a thinking block (Kimi): llama.cpp's test falls back to a plain search
    found = []
    for t in triggers:
        if t.type == "WORD" and t.value in full:
            found.append(full.index(t.value))
        elif t.type == "PATTERN" and (m := re.search(t.value, full)):
            found.append(m.start(m.re.groups))
    return min(found) if found else None


GRAMMAR_VECTORS = [v for v in VECTORS + CONTINUATIONS if not v.partial and (v.tools or v.json_schema)]


@pytest.mark.parametrize("vector", GRAMMAR_VECTORS, ids=[v.label for v in GRAMMAR_VECTORS])
def test_grammar_accepts_the_vector(vector: Vector) -> None:
    from explorer.grammar.check import check_grammar

    params = _apply(vector)
    if not params.grammar:
        return
    full = params.generation_prompt + vector.output
    pos = _trigger_pos(params, full, bool(vector.calls))
    if params.grammar_lazy and vector.calls:
        assert pos is not None, "the lazy grammar's trigger must fire for a tool call"
    if pos is None and params.grammar_lazy:
        return  # never constrained
    # a trigger inside the generation prompt: the grammar was active from the output's start
    constrained = full if pos is None else full[max(pos, len(params.generation_prompt)):]
    verdict = check_grammar(params.grammar, [constrained])[0]
    assert verdict.accepted, verdict.message
