"""Capabilities: the nine template flags llama.cpp detects, found by rendering probes.

Input: a ``CompiledTemplate``. Output: ``Caps`` (frozen), computed the way llama.cpp's
``jinja::caps_get`` (common/jinja/caps.cpp) does: render a fixed series of probe
conversations with usage statistics switched on, then ask which probe inputs the
template touched (``used``), how (``ops`` such as ``test_is_string``, ``selectattr``,
``array_access``), whether the render succeeded, and what it printed.

A probe that fails to render is not an error here: like llama.cpp, the failure itself is
evidence (e.g. no string content support). ``detect_caps_trace`` also returns each probe's
outcome for display.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from explorer.errors import ExplorerError, RenderLimitError
from explorer.render import CompiledTemplate, RenderLimits, apply_reasoning_switches, fixed_clock, render_context
from explorer.render.jinja_compat_state import TrackedStr, has_op, is_used, track

CONTENT_MARKER = "STRING_MARKER"
REASONING_PLACEHOLDER = "<REASONING_CONTENT_PLACEHOLDER>"
PROBE_LIMITS = RenderLimits(wall_seconds=2.0)
# All probes of one template share this much wall time (a hostile template would otherwise
# cost every probe its full budget).
CAPS_BUDGET_SECONDS = 4.0
# After this many probe renders ran out of time, the rest fail without rendering (as the
# analysis does): a runaway template would otherwise spend the whole budget.
TIMEOUTS_BEFORE_GIVING_UP = 2


@dataclass(frozen=True)
class Caps:
    """llama.cpp's ``jinja::caps``; defaults are llama.cpp's before any probe runs."""

    supports_tools: bool = True
    supports_tool_calls: bool = True
    supports_system_role: bool = True
    supports_parallel_tool_calls: bool = True
    supports_preserve_reasoning: bool = False
    supports_reasoning_effort: bool = False
    supports_string_content: bool = True
    supports_typed_content: bool = False
    supports_object_arguments: bool = False

    @classmethod
    def coerce(cls, caps: Any) -> Caps:
        """From a Caps, a dict of the nine flags, or anything with those attributes."""
        if isinstance(caps, Caps):
            return caps
        if isinstance(caps, dict):
            return cls(**{k: bool(caps[k]) for k in CAPS_FIELDS if k in caps})
        return cls(**{k: bool(getattr(caps, k)) for k in CAPS_FIELDS if hasattr(caps, k)})

    def to_json(self) -> dict[str, bool]:
        return asdict(self)

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2)


# The nine flag names, in llama.cpp's (and the oracle's) order.
CAPS_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Caps))


@dataclass(frozen=True)
class CapsProbe:
    """One probe render: its name, whether it rendered, its output or error."""

    name: str
    success: bool
    output: str
    error: str | None = None
    evidence: tuple[str, ...] = ()
    timed_out: bool = False  # stopped by the render budget, not by the template


@dataclass
class _Run:
    success: bool
    output: str
    messages: Any
    tools: Any
    ctx: dict[str, Any] = field(default_factory=dict)


_TOOLS = [
    {
        "name": "tool",
        "type": "function",
        "function": {
            "name": "tool1",
            "description": "Tool description",
            "parameters": {
                "type": "object",
                "properties": {"arg": {"type": "string", "description": "Arg description"}},
                "required": ["arg"],
            },
        },
    }
]


def _call(call_id: str, arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": "tool1", "arguments": arguments}}


def _tool_conversation(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "User message"},
        {"role": "assistant", "content": "", "tool_calls": calls},
        {"role": "tool", "content": "Tool response", "tool_call_id": "call00001"},
        {"role": "assistant", "content": "The tool response was 'tool response'"},
        {"role": "user", "content": "User message"},
    ]


def _reasoning_conversation() -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "User message"},
        {"role": "assistant", "content": "Assistant message", "reasoning_content": REASONING_PLACEHOLDER},
        {"role": "user", "content": "User message"},
        {"role": "assistant", "content": "Assistant message", "reasoning_content": "Reasoning content"},
        {"role": "user", "content": "User message"},
    ]


class _Prober:
    def __init__(self, tmpl: CompiledTemplate, limits: RenderLimits, budget_seconds: float) -> None:
        self.template = tmpl.stats_template()
        self.source = tmpl.source
        self.limits = limits
        self.deadline = time.monotonic() + budget_seconds
        self.timeouts = 0
        self.trace: list[CapsProbe] = []

    def run(
        self,
        name: str,
        messages: list[Any],
        tools: list[Any] | None = None,
        ctx_fn: Callable[[dict[str, Any]], None] | None = None,
    ) -> _Run:
        ctx: dict[str, Any] = {
            "messages": track(messages),
            "tools": track(tools or []),
            "bos_token": TrackedStr(""),
            "eos_token": TrackedStr(""),
            "add_generation_prompt": True,
        }
        if ctx_fn is not None:
            ctx_fn(ctx)
        ctx["strftime_now"] = lambda fmt: fixed_clock().strftime(str(fmt))
        run = _Run(False, "", ctx["messages"], ctx["tools"], ctx)
        error = None
        timed_out = False
        started = time.monotonic()
        left = max(0.01, min(self.limits.wall_seconds, self.deadline - started))
        if self.timeouts >= TIMEOUTS_BEFORE_GIVING_UP:
            error = "not rendered: earlier probes ran out of time (the capability budget is spent)"
            timed_out = True
        else:
            try:
                limits = replace(self.limits, wall_seconds=left)
                run.output = render_context(self.template, self.source, dict(ctx), limits=limits)
                run.success = True
            except ExplorerError as exc:  # a failing probe is evidence, as in llama.cpp
                error = str(exc)
                if isinstance(exc, RenderLimitError) and time.monotonic() - started >= 0.9 * left:
                    self.timeouts += 1
                    timed_out = True
        self.trace.append(CapsProbe(name, run.success, run.output, error, timed_out=timed_out))
        return run

    def note(self, *evidence: str) -> None:
        """Attach what the last probe showed (which inputs the template used)."""
        last = self.trace[-1]
        self.trace[-1] = replace(last, evidence=last.evidence + evidence)


def _thinking_with(**switches: Any) -> Callable[[dict[str, Any]], None]:
    def apply(ctx: dict[str, Any]) -> None:
        ctx["enable_thinking"] = True
        ctx.update(switches)
        apply_reasoning_switches(ctx)
        ctx.pop("preserve_reasoning", None)

    return apply


def _effort(ctx: dict[str, Any]) -> None:
    ctx["enable_thinking"] = True
    effort = TrackedStr("low")  # one value bound to both names, as llama.cpp does
    ctx["reasoning_effort"] = effort
    ctx["reasoning_strength"] = effort


def _describe(path: str, value: Any) -> str:
    ops = sorted(getattr(value, "jx_ops", ()))
    return f"{path}: {'used' if is_used(value) else 'not used'}" + (f" ({', '.join(ops)})" if ops else "")


def _probe_content(p: _Prober, flags: dict[str, bool]) -> None:
    run = p.run("typed_content", [{"role": "user", "content": CONTENT_MARKER}])
    content = run.messages[0]["content"]
    used_as_array = has_op(content, "selectattr") or has_op(content, "array_access")
    p.note(_describe("messages[0].content", content), f"marker printed: {CONTENT_MARKER in run.output}")
    if used_as_array:
        flags["supports_typed_content"] = True
    if not run.success or (used_as_array and CONTENT_MARKER not in run.output):
        flags["supports_string_content"] = False
    if has_op(content, "test_is_string"):
        run = p.run("typed_content_array", [{"role": "user", "content": []}])
        content = run.messages[0]["content"]
        p.note(_describe("messages[0].content", content))
        if (has_op(content, "selectattr") or has_op(content, "array_access")) and run.success:
            flags["supports_typed_content"] = True


def _probe_system(p: _Prober, flags: dict[str, bool]) -> None:
    run = p.run(
        "system_role",
        [{"role": "system", "content": "System message"}, {"role": "user", "content": "User message"}],
    )
    p.note(_describe("messages[0].content", run.messages[0]["content"]))
    if not is_used(run.messages[0]["content"]):
        flags["supports_system_role"] = False


def _probe_tool_calls(p: _Prober, flags: dict[str, bool]) -> None:
    run = p.run("tool_call_object_arguments", _tool_conversation([_call("call00001", {"arg": "value"})]), _TOOLS)
    if run.success:
        tool_calls = run.messages[1]["tool_calls"]
        arg = tool_calls[0]["function"]["arguments"]["arg"]
        p.note(_describe("tools[0].function.name", run.tools[0]["function"]["name"]),
               _describe("messages[1].tool_calls", tool_calls),
               _describe("messages[1].tool_calls[0].function.arguments.arg", arg))
        if not is_used(run.tools[0]["function"]["name"]):
            flags["supports_tools"] = False
        if not is_used(tool_calls):
            flags["supports_tool_calls"] = False
        elif is_used(arg):
            flags["supports_object_arguments"] = True
    if flags["supports_object_arguments"]:
        return
    run = p.run("tool_call_string_arguments", _tool_conversation([_call("call00001", '{"arg": "value"}')]), _TOOLS)
    if not run.success:
        flags["supports_tool_calls"] = False
        flags["supports_tools"] = False
        return
    p.note(_describe("tools[0].function.name", run.tools[0]["function"]["name"]),
           _describe("messages[1].tool_calls", run.messages[1]["tool_calls"]))
    if not is_used(run.tools[0]["function"]["name"]):
        flags["supports_tools"] = False
    if not is_used(run.messages[1]["tool_calls"]):
        flags["supports_tool_calls"] = False


def _probe_parallel(p: _Prober, flags: dict[str, bool]) -> None:
    args: Any = {"arg": "value"} if flags["supports_object_arguments"] else '{"arg": "value"}'
    run = p.run(
        "parallel_tool_calls", _tool_conversation([_call("call00001", args), _call("call00002", args)]), _TOOLS
    )
    if not run.success:
        flags["supports_parallel_tool_calls"] = False
        return
    second = run.messages[1]["tool_calls"][1]["function"]
    p.note(_describe("messages[1].tool_calls[1].function", second))
    if not is_used(second):
        flags["supports_parallel_tool_calls"] = False


def _probe_reasoning(p: _Prober, flags: dict[str, bool]) -> None:
    # The output, not usage: reasoning may be tested in an `if` without being printed.
    run = p.run("preserve_reasoning", _reasoning_conversation(), None, _thinking_with(preserve_reasoning=True))
    printed = REASONING_PLACEHOLDER in run.output
    p.note(f"earlier reasoning_content printed: {printed}")
    if printed:
        flags["supports_preserve_reasoning"] = True
    run = p.run("reasoning_effort", [{"role": "user", "content": "User message"}], None, _effort)
    p.note(_describe("reasoning_effort", run.ctx["reasoning_effort"]))
    flags["supports_reasoning_effort"] = is_used(run.ctx["reasoning_effort"])


def detect_caps_trace(
    tmpl: CompiledTemplate, *, limits: RenderLimits | None = None, budget_seconds: float | None = None
) -> tuple[Caps, tuple[CapsProbe, ...]]:
    """The capabilities and every probe render that decided them (in llama.cpp's order).

    ``limits`` apply to each probe render; all probes together stop after
    ``budget_seconds`` (later probes then fail, which llama.cpp would read as evidence).
    """
    # Defaults read at call time, so that the module's budgets can be tuned in one place.
    p = _Prober(tmpl, limits or PROBE_LIMITS, CAPS_BUDGET_SECONDS if budget_seconds is None else budget_seconds)
    flags = asdict(Caps())
    for probe in (_probe_content, _probe_system, _probe_tool_calls, _probe_parallel, _probe_reasoning):
        probe(p, flags)
    return Caps(**flags), tuple(p.trace)


def detect_caps(
    tmpl: CompiledTemplate, *, limits: RenderLimits | None = None, budget_seconds: float | None = None
) -> Caps:
    """llama.cpp's capability flags for a template."""
    return detect_caps_trace(tmpl, limits=limits, budget_seconds=budget_seconds)[0]
