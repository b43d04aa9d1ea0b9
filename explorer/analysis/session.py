"""Running probes: render both sides, diff them, remember everything.

Input: a compiled template, its capabilities, and probe names (``explorer.analysis.probes``).
Output: ``Comparison`` objects for the analyzers (outputs and diff, or None when a
render threw, as llama.cpp's ``compare_variants`` returns nullopt) and, at the end,
the frozen ``Probe`` trace.

Strings handed to the analyzers are UTF-8 bytes spelled as latin-1 characters
("byte strings"), so that every position, common prefix and substring is the byte
one the C++ code computes; ``from_bytes`` turns results back into text.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from explorer.analysis.diff import DiffSplit, DiffStep, DiffTrace, calculate_diff_split, trace_diff
from explorer.analysis.probes import PROBES, Probe, ProbeFailure, ProbeInputs, ProbeSpec, probe_tools
from explorer.caps import Caps
from explorer.errors import ExplorerError
from explorer.render import CompiledTemplate, RenderInputs, RenderLimits, fixed_clock, render


def to_bytes(text: str) -> str:
    return text.encode("utf-8", "surrogatepass").decode("latin-1")


def from_bytes(data: str) -> str:
    return data.encode("latin-1").decode("utf-8", "replace")


@dataclass(frozen=True)
class Comparison:
    """compare_variants_result: the diff and both outputs (byte strings)."""

    diff: DiffSplit
    output_a: str
    output_b: str


@dataclass
class _Run:
    spec: ProbeSpec
    output_a: str | None = None
    output_b: str | None = None
    diff: DiffSplit | None = None
    traced: DiffTrace | None = None
    error: ProbeFailure | None = None
    fields: list[tuple[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


class _RenderFailed(Exception):
    def __init__(self, failure: ProbeFailure) -> None:
        super().__init__(failure.message)
        self.failure = failure


_KEYS: dict[int, tuple[ProbeInputs, str]] = {}

# A probe render normally takes a millisecond; these bound hostile templates (llama.cpp
# itself has no limit and would hang on an endless loop).
PROBE_RENDER_SECONDS = 1.0
# Probes render with the oracle's run date in both dialects: an analysis is a function of
# the template alone (a transformers-dialect render's default clock is the real one).
PROBE_CLOCK = fixed_clock
ANALYSIS_RENDER_BUDGET_SECONDS = 6.0
TIMEOUTS_BEFORE_GIVING_UP = 2


class ProbeSession:
    """Renders probes for one template, caching renders shared between probes."""

    def __init__(self, tmpl: CompiledTemplate, caps: Caps, *, trace: bool = True,
                 budget_seconds: float = ANALYSIS_RENDER_BUDGET_SECONDS, bos_token: str = "",
                 eos_token: str = "") -> None:
        self.tmpl = tmpl
        self.caps = caps
        self.trace = trace
        self.bos_token = bos_token
        self.eos_token = eos_token
        self._deadline = time.monotonic() + budget_seconds
        self._timeouts = 0
        self._skipped = 0
        self._cache: dict[str, str | ProbeFailure] = {}
        self._runs: list[_Run] = []
        self._by_name: dict[str, _Run] = {}

    @property
    def cut_short(self) -> bool:
        """Whether the render budget (not the template) stopped some probe."""
        return self._timeouts > 0 or self._skipped > 0

    # --- analyzer API ---------------------------------------------------------

    def compare(self, name: str) -> Comparison | None:
        spec = PROBES[name]
        run = _Run(spec)
        self._runs.append(run)
        self._by_name[name] = run
        if not self.caps.supports_string_content and self.caps.supports_typed_content:
            run.notes.append("string contents were sent as [{type: text, text: ...}] parts: the "
                             "template only supports typed content")
        # Both sides are rendered, as in the reference, so the trace shows whichever worked.
        for side, inputs in (("A", spec.a), ("B", spec.b)):
            try:
                output = self._render(inputs, side)
            except _RenderFailed as exc:
                run.error = run.error or exc.failure
                continue
            if side == "A":
                run.output_a = output
            else:
                run.output_b = output
        if run.error is not None or run.output_a is None or run.output_b is None:
            return None
        if self.trace:
            run.traced = trace_diff(run.output_a, run.output_b)
            run.diff = run.traced.final
        else:
            run.diff = calculate_diff_split(run.output_a, run.output_b)
        return Comparison(run.diff, run.output_a, run.output_b)

    def record(self, probe: str, field_name: str, value: Any) -> None:
        run = self._by_name.get(probe)
        if run is not None:
            run.fields.append((field_name, value))

    def note(self, probe: str, text: str) -> None:
        run = self._by_name.get(probe)
        if run is not None:
            run.notes.append(text)

    def failed(self, probe: str) -> ProbeFailure | None:
        run = self._by_name.get(probe)
        return run.error if run is not None else None

    # --- rendering ------------------------------------------------------------

    def _render(self, inputs: ProbeInputs, side: str) -> str:
        # Same inputs, same key: the probe specs are shared constants.
        key = _KEYS.get(id(inputs))
        if key is None or key[0] is not inputs:
            key = (inputs, json.dumps([list(inputs.messages), inputs.tools, inputs.add_generation_prompt,
                                       inputs.enable_thinking]))
            _KEYS[id(inputs)] = key
        cached = self._cache.get(key[1])
        if cached is None:
            cached = self._render_uncached(self._normalize(inputs.messages), inputs)
            self._cache[key[1]] = cached
        if isinstance(cached, ProbeFailure):
            raise _RenderFailed(
                ProbeFailure(side, cached.kind, cached.message, cached.line, cached.source_line)
            )
        return cached

    def _render_uncached(self, messages: list[dict[str, Any]], inputs: ProbeInputs) -> str | ProbeFailure:
        started = time.monotonic()
        remaining = self._deadline - started
        if remaining <= 0 or self._timeouts >= TIMEOUTS_BEFORE_GIVING_UP:
            self._skipped += 1
            return ProbeFailure("", "limit", "not rendered: earlier probes ran out of time (the analysis' "
                                "render time budget is spent)")
        limits = RenderLimits(wall_seconds=min(PROBE_RENDER_SECONDS, remaining))
        result = self._render_limited(messages, inputs, limits)
        if isinstance(result, ProbeFailure) and time.monotonic() - started >= 0.9 * limits.wall_seconds:
            self._timeouts += 1
        return result

    def _render_limited(self, messages: list[dict[str, Any]], inputs: ProbeInputs,
                        limits: RenderLimits) -> str | ProbeFailure:
        render_inputs = _render_inputs(messages, inputs, self.bos_token, self.eos_token)
        try:
            return to_bytes(render(self.tmpl, render_inputs, limits=limits, clock=PROBE_CLOCK))
        except ExplorerError as exc:
            loc = exc.location
            return ProbeFailure(
                "", getattr(exc, "kind", "error"), exc.message,
                loc.line if loc else None, loc.source_line if loc else None,
            )
        except RecursionError as exc:
            return ProbeFailure("", "limit", f"recursion too deep: {exc}")
        except Exception as exc:  # the reference catches every std::exception here
            return ProbeFailure("", type(exc).__name__, str(exc))

    def _normalize(self, messages: tuple[dict[str, Any], ...]) -> list[dict[str, Any]]:
        return _normalize_content(json.loads(json.dumps(list(messages))), self.caps)

    # --- the trace ------------------------------------------------------------

    def probes(self) -> tuple[Probe, ...]:
        return tuple(self._freeze(run) for run in self._runs)

    def _freeze(self, run: _Run) -> Probe:
        steps: tuple[DiffStep, ...] = ()
        naive = None
        diff = run.diff
        if run.traced is not None:
            steps = tuple(DiffStep(s.name, s.detail, _decode_split(s.split)) for s in run.traced.steps)
            naive = _decode_split(run.traced.naive)
        return Probe(
            name=run.spec.name,
            purpose=run.spec.purpose,
            inputs_a=run.spec.a,
            inputs_b=run.spec.b,
            output_a=from_bytes(run.output_a) if run.output_a is not None else None,
            output_b=from_bytes(run.output_b) if run.output_b is not None else None,
            diff=_decode_split(diff) if diff is not None else None,
            diff_steps=steps,
            diff_naive=naive,
            error=run.error,
            fields_set=tuple((k, _decode_value(v)) for k, v in run.fields),
            notes=tuple(run.notes),
        )


def probe_render_inputs(inputs: ProbeInputs, caps: Caps, *, bos_token: str = "",
                        eos_token: str = "") -> RenderInputs:
    """The ``RenderInputs`` a probe side is rendered with in the analysis (content
    normalised for the template's caps, the probe tools, ``enable_thinking`` in the
    context): to render it again, e.g. with provenance (explorer.analysis.lines)."""
    messages = _normalize_content(json.loads(json.dumps(list(inputs.messages))), caps)
    return _render_inputs(messages, inputs, bos_token, eos_token)


def _render_inputs(messages: list[dict[str, Any]], inputs: ProbeInputs, bos_token: str,
                   eos_token: str) -> RenderInputs:
    return RenderInputs(
        messages=messages,
        tools=probe_tools() if inputs.tools else None,
        add_generation_prompt=inputs.add_generation_prompt,
        enable_thinking=inputs.enable_thinking,
        bos_token=bos_token,
        eos_token=eos_token,
        extra_context={"enable_thinking": inputs.enable_thinking},
    )


def compare_variants(tmpl: CompiledTemplate, a: RenderInputs, b: RenderInputs, caps: Caps) -> Comparison | None:
    """llama.cpp's ``compare_variants`` for arbitrary inputs (text in, text out).

    Renders both sides as the analysis does (normalised content, ``enable_thinking`` in
    the context); None when either render throws, as the reference's nullopt.
    """
    outputs = []
    for inputs in (a, b):
        messages = _normalize_content(json.loads(json.dumps(list(inputs.messages))), caps)
        extra = dict(inputs.extra_context or {})
        extra["enable_thinking"] = True if inputs.enable_thinking is None else inputs.enable_thinking
        try:
            outputs.append(to_bytes(render(tmpl, RenderInputs(
                messages=messages, tools=inputs.tools, add_generation_prompt=inputs.add_generation_prompt,
                enable_thinking=inputs.enable_thinking, bos_token=inputs.bos_token,
                eos_token=inputs.eos_token, extra_context=extra,
            ), clock=PROBE_CLOCK)))
        except Exception:  # noqa: BLE001 - the reference catches everything and gives up
            return None
    diff = _decode_split(calculate_diff_split(outputs[0], outputs[1]))
    return Comparison(diff, from_bytes(outputs[0]), from_bytes(outputs[1]))


def _normalize_content(messages: list[Any], caps: Caps) -> list[Any]:
    """llama.cpp's messages_inp_normalizer: string vs typed content, per the caps."""
    only_typed = not caps.supports_string_content and caps.supports_typed_content
    only_string = caps.supports_string_content and not caps.supports_typed_content
    for msg in messages:
        if not isinstance(msg, dict):
            continue
        if only_typed and isinstance(msg.get("content"), str):
            msg["content"] = [{"type": "text", "text": msg["content"]}]
        elif only_string and isinstance(msg.get("content"), list):
            msg["content"] = _concat_parts(msg["content"])
    return messages


def _decode_split(split: DiffSplit) -> DiffSplit:
    return DiffSplit(
        from_bytes(split.prefix), from_bytes(split.suffix), from_bytes(split.left), from_bytes(split.right)
    )


def _decode_value(value: Any) -> Any:
    if isinstance(value, str) and not hasattr(value, "value"):
        return from_bytes(value)
    if isinstance(value, tuple):
        return tuple(_decode_value(v) for v in value)
    return value


def _concat_parts(parts: list[Any]) -> str:
    text = ""
    last_media = False
    for part in parts:
        kind = part.get("type", "") if isinstance(part, dict) else ""
        if kind == "text":
            newline = not last_media and bool(text)
            last_media = False
        elif kind == "media_marker":
            newline = False
            last_media = True
        else:
            continue
        if newline:
            text += "\n"
        text += part.get("text", "")
    return text
