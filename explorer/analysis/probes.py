"""The probes of the differential analysis: named pairs of render inputs, and their trace.

Input: nothing (the probe inputs are fixed data, as in llama.cpp). Output: ``PROBES``,
one ``ProbeSpec`` per comparison the analysis makes (its reference name, one-line
purpose, inputs A and B), and the frozen ``Probe`` record of one run: both outputs,
the diff, any render failure, and the analysis fields the probe set.

The sentinels are llama.cpp's own, so a rendering can be read side by side with the
reference's debug output.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from explorer.analysis.diff import DiffSplit, DiffStep
from explorer.jsontypes import Json, JsonObject

# --- sentinels (chat-diff-analyzer.cpp) ----------------------------------------

FUN_FIRST = "FFF_FIRST_FUN_F"
FUN_SECOND = "SSS_SECOND_FUN_S"
ARG_FIRST = "AA_ARG_FST_AA"
ARG_SECOND = "BB_ARG_SND_BB"
USER_MSG = "U_USER_MSG Hello END_U"
USER_MSG_TWO = "V_USER_MSG Hello END_V"
ASSISTANT_MSG = "A_ASST_MSG I can help END_A"
THINKING_CONTENT = "REASON_PART I am thinking END_R"
CALL_ID_001 = "call00001"
CALL_ID_002 = "call00002"
CALL_ID_999 = "call99999"


def _params_schema() -> JsonObject:
    return {
        "type": "object",
        "properties": {
            ARG_FIRST: {"type": "string", "description": "First argument"},
            ARG_SECOND: {"type": "string", "description": "Second argument"},
        },
        "required": [],
    }


def probe_tools() -> list[JsonObject]:
    """The two probe tools (a fresh copy: templates may not mutate ours)."""
    return [
        {
            "type": "function",
            "function": {"name": FUN_FIRST, "description": "Test function foo", "parameters": _params_schema()},
        },
        {
            "type": "function",
            "function": {"name": FUN_SECOND, "description": "Test function bar", "parameters": _params_schema()},
        },
    ]


def tool_call(name: str, args: JsonObject, call_id: str = CALL_ID_001) -> JsonObject:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}


def user(content: str = USER_MSG) -> JsonObject:
    return {"role": "user", "content": content}


def assistant(content: Json = ASSISTANT_MSG, **extra: Json) -> JsonObject:
    msg: JsonObject = {"role": "assistant", "content": content}
    msg.update(extra)
    return msg


def calls(*tool_calls: JsonObject) -> JsonObject:
    return assistant("", tool_calls=list(tool_calls))


FIRST_CALL = tool_call(FUN_FIRST, {ARG_FIRST: "XXXX", ARG_SECOND: "YYYY"})
SECOND_CALL = tool_call(FUN_SECOND, {ARG_FIRST: "XXXX", ARG_SECOND: "YYYY"}, CALL_ID_002)
FIRST_CALL_ALT_ID = tool_call(FUN_FIRST, {ARG_FIRST: "XXXX", ARG_SECOND: "YYYY"}, CALL_ID_999)
FIRST_CALL_ZERO_ARGS = tool_call(FUN_FIRST, {})
FIRST_CALL_ONE_ARG = tool_call(FUN_FIRST, {ARG_FIRST: "XXXX"})
FIRST_CALL_ONE_ARG_OTHER_VAL = tool_call(FUN_FIRST, {ARG_FIRST: "YYYY"})
FIRST_CALL_OTHER_ARG = tool_call(FUN_FIRST, {ARG_SECOND: "YYYY"})


# --- probe inputs and specs ----------------------------------------------------

# The value of one analysis field, as the analysis holds it: modes as their enums, lists of
# strings as tuples, other fields as strings or flags.
FieldValue = str | bool | tuple[str, ...] | Enum


@dataclass(frozen=True)
class ProbeInputs:
    """One side of a probe: what the template is rendered with."""

    messages: tuple[JsonObject, ...]
    tools: bool = False  # the two probe tools, or none
    add_generation_prompt: bool = False
    enable_thinking: bool = True

    def to_json(self) -> JsonObject:
        return {
            "messages": list(self.messages),
            "tools": list(probe_tools()) if self.tools else None,
            "add_generation_prompt": self.add_generation_prompt,
            "enable_thinking": self.enable_thinking,
        }


@dataclass(frozen=True)
class ProbeSpec:
    name: str
    purpose: str
    a: ProbeInputs
    b: ProbeInputs
    reference: str  # the C++ function that makes this comparison


def _spec(name: str, purpose: str, reference: str, a: list[JsonObject], b: list[JsonObject], *, tools: bool = True,
          gp: bool = False) -> ProbeSpec:
    return ProbeSpec(
        name, purpose, ProbeInputs(tuple(a), tools, gp), ProbeInputs(tuple(b), tools, gp), reference
    )


_U = user()
_A = assistant()
_ONE_CALL = calls(FIRST_CALL)
_TWO_CALLS = calls(FIRST_CALL, SECOND_CALL)

PROBES: dict[str, ProbeSpec] = {
    s.name: s
    for s in (
        _spec("R1", "Does reasoning_content render, and between which markers?",
              "analyze_reasoning::compare_reasoning_presence",
              [_U, _A], [_U, assistant(ASSISTANT_MSG, reasoning_content=THINKING_CONTENT)], tools=False),
        ProbeSpec(
            "R2", "What does enable_thinking=true add to (or remove from) the generation prompt?",
            ProbeInputs((_U,), False, True, False), ProbeInputs((_U,), False, True, True),
            "analyze_reasoning::compare_thinking_enabled",
        ),
        _spec("R3", "Does reasoning render only next to tool calls (TOOLS_ONLY)?",
              "analyze_reasoning::compare_reasoning_scope",
              [_U, assistant(ASSISTANT_MSG, reasoning_content=THINKING_CONTENT)],
              [_U, assistant(None, reasoning_content=THINKING_CONTENT,
                             tool_calls=[tool_call(FUN_FIRST, {ARG_FIRST: "VVVV", ARG_SECOND: "XXXX"})])]),
        _spec("C1.tools", "Content-only reply versus a tool-call reply: is content wrapped?",
              "analyze_content::analyze_content",
              [_U, _A], [_U, calls(tool_call("test_func", {"arg1": "value1"}))]),
        _spec("C1.reasoning", "Content-only reply versus a reasoning-only reply: is content wrapped?",
              "analyze_content::analyze_content",
              [_U, _A], [_U, assistant("", reasoning_content=THINKING_CONTENT)]),
        _spec("T1", "Plain reply versus one tool call: the tool-call section and its format",
              "analyze_tools::analyze_tool_calls", [_U, _A], [_U, _ONE_CALL]),
        _spec("T1.parallel", "One call versus two (JSON): are the section markers per call?",
              "analyze_tools::analyze_json_native_parallel_calls", [_U, _ONE_CALL], [_U, _TWO_CALLS]),
        _spec("T2", "One call versus two: section markers or per-call markers?",
              "analyze_tools::check_per_call_markers", [_U, _ONE_CALL], [_U, _TWO_CALLS]),
        _spec("T3", "Function FFF_FIRST_FUN_F versus SSS_SECOND_FUN_S: name prefix, suffix, close",
              "analyze_tools::extract_function_markers", [_U, _ONE_CALL], [_U, calls(SECOND_CALL)]),
        _spec("T3.closer", "A call versus no call: what closes a function when no end marker is known",
              "analyze_tools::extract_function_markers", [_U, _ONE_CALL], [_U, _A]),
        _spec("A1", "Argument AA_ARG_FST_AA versus BB_ARG_SND_BB: argument name markers",
              "analyze_tools::extract_argument_name_markers",
              [_U, calls(FIRST_CALL_ONE_ARG)], [_U, calls(FIRST_CALL_OTHER_ARG)]),
        _spec("A2", "Argument value XXXX versus YYYY: argument value markers",
              "analyze_tools::extract_argument_value_markers",
              [_U, calls(FIRST_CALL_ONE_ARG)], [_U, calls(FIRST_CALL_ONE_ARG_OTHER_VAL)]),
        _spec("T5", "One argument versus two: the separator between arguments",
              "analyze_tools::extract_argument_separator",
              [_U, calls(FIRST_CALL_ONE_ARG)], [_U, _ONE_CALL]),
        _spec("T6", "No arguments versus one: markers around the argument block",
              "analyze_tools::extract_args_markers",
              [_U, calls(FIRST_CALL_ZERO_ARGS)], [_U, calls(FIRST_CALL_ONE_ARG)]),
        _spec("T7", "Call id call00001 versus call99999: where the id goes and its markers",
              "analyze_tools::extract_call_id_markers", [_U, _ONE_CALL], [_U, calls(FIRST_CALL_ALT_ID)]),
        _spec("assistant-start", "User turn alone versus user + assistant: the assistant turn opener",
              "autoparser::detect_assistant_start_marker", [_U], [_U, _A], tools=False),
        _spec("user-start", "No messages versus one user turn: the user turn opener",
              "autoparser::detect_user_start_marker", [], [_U], tools=False),
        _spec("user-start.fallback", "If empty messages fail: a later user turn, to find its opener",
              "autoparser::detect_user_start_marker",
              [user(USER_MSG_TWO), _A], [user(USER_MSG_TWO), _A, _U], tools=False),
    )
}


# --- the record of one probe run -----------------------------------------------


@dataclass(frozen=True)
class ProbeFailure:
    """A render that threw: which side, the error kind, the template's message and line."""

    side: str
    kind: str
    message: str
    line: int | None = None
    source_line: str | None = None

    def to_json(self) -> JsonObject:
        return {"side": self.side, "kind": self.kind, "message": self.message, "line": self.line,
                "source_line": self.source_line}


@dataclass(frozen=True)
class Probe:
    """One comparison as it ran: inputs, outputs, diff, failure and the fields it set."""

    name: str
    purpose: str
    inputs_a: ProbeInputs
    inputs_b: ProbeInputs
    output_a: str | None
    output_b: str | None
    diff: DiffSplit | None
    diff_steps: tuple[DiffStep, ...] = ()  # how the marker-aware split was reached
    diff_naive: DiffSplit | None = None  # the plain character split, before marker fixing
    error: ProbeFailure | None = None
    fields_set: tuple[tuple[str, FieldValue], ...] = ()
    notes: tuple[str, ...] = ()

    def to_json(self) -> JsonObject:
        return {
            "name": self.name,
            "purpose": self.purpose,
            "inputs_a": self.inputs_a.to_json(),
            "inputs_b": self.inputs_b.to_json(),
            "output_a": self.output_a,
            "output_b": self.output_b,
            "diff": self.diff.to_json() if self.diff else None,
            "diff_naive": self.diff_naive.to_json() if self.diff_naive else None,
            "diff_steps": [{"name": s.name, "detail": s.detail, "split": s.split.to_json()}
                           for s in self.diff_steps],
            "error": self.error.to_json() if self.error else None,
            "fields_set": [{"field": k, "value": _jsonable(v)} for k, v in self.fields_set],
            "notes": list(self.notes),
        }


def _jsonable(value: FieldValue) -> Json:
    """An analysis field value as JSON: a tuple of strings as a list, a mode as its value."""
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Enum):
        mode: str = value.value
        return mode
    return value
